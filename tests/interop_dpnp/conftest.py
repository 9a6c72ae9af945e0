"""The dpctl / dpnp interop group: runs in the separate environment that ``make test-dpnp`` makes
(dpnp and dpctl from PyPI, on the same OpenCL CPU device as numba_ext); the main suite does not
collect it (``tests/conftest.py``)."""

import pytest

import numba_ext

dpctl = pytest.importorskip("dpctl", reason="the dpnp interop group needs dpctl (make test-dpnp installs it)")
dpnp = pytest.importorskip("dpnp", reason="the dpnp interop group needs dpnp (make test-dpnp installs it)")


@pytest.fixture
def dq():
    """A fresh dpctl queue on the OpenCL CPU device (its own SYCL queue; the platform's default
    context, which dpnp's arrays use too)."""
    return dpctl.SyclQueue("opencl:cpu")


@pytest.fixture
def ours():
    return numba_ext.default_queue()
