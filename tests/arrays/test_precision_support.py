"""What a device says about half and double precision (``has_aspect_fp16`` / ``has_aspect_fp64``,
dpctl's names), the clear refusal of float16 arrays, and complex128 / float64 on a device without
fp64 (the error names the dtype, the device and the dtype to use; checked with the facts of such a
device, since the test devices all have fp64)."""

import types

import numpy as np
import pytest

import numba_ext as nx
from numba_ext.arrays.allocation import allocate
from numba_ext.errors import UnsupportedError


def test_device_precision_aspects():
    d = nx.asarray([1.0]).device
    assert d.has_aspect_fp64 is d.has_fp64
    assert isinstance(d.has_aspect_fp16, bool)


@pytest.mark.parametrize(
    "make", [lambda: nx.asarray(np.ones(3, np.float16)), lambda: nx.empty(3, dtype="float16")]
)
def test_float16_is_refused_clearly(make):
    with pytest.raises(UnsupportedError, match="float16") as e:
        make()
    assert "has_aspect_fp16" in str(e.value) and "float32" in str(e.value)
    assert isinstance(e.value, TypeError)


@pytest.mark.parametrize(("dtype", "single"), [("complex128", "complex64"), ("float64", "float32")])
def test_double_precision_needs_fp64(dtype, single):
    dev = types.SimpleNamespace(has_fp64=False, filter_string="opencl:gpu:7", name="Small GPU")
    with pytest.raises(UnsupportedError) as e:
        allocate((4,), dtype, types.SimpleNamespace(device=dev), "device")
    msg = str(e.value)
    assert dtype in msg and "opencl:gpu:7" in msg and "Small GPU" in msg and single in msg, msg
    assert isinstance(e.value, TypeError)
