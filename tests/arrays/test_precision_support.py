"""What a device says about half and double precision (``has_aspect_fp16`` / ``has_aspect_fp64``,
dpctl's names), float16 arrays where the device reports half precision and their clear refusal where
it does not, and complex128 / float64 on a device without fp64 (the error names the dtype, the
device and the dtype to use; checked with the facts of such a device, since the test devices all
have fp64 and fp16)."""

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


@pytest.mark.needs_fp16
@pytest.mark.parametrize(
    "make", [lambda: nx.asarray(np.full(3, 0.1, np.float16)), lambda: nx.full(3, 0.1, dtype="float16")]
)
def test_float16_where_the_device_has_fp16(make):
    x = make()
    assert x.dtype == np.float16 and x.__sycl_usm_array_interface__["typestr"] == "<f2"
    np.testing.assert_array_equal(nx.asnumpy(x), np.full(3, 0.1, np.float16))


@pytest.mark.parametrize("dtype", ["float16", np.float16, "e", "<f2"])
def test_float16_needs_fp16(dtype):
    dev = types.SimpleNamespace(
        has_fp64=True, has_aspect_fp16=False, filter_string="opencl:gpu:3", name="Old GPU"
    )
    with pytest.raises(UnsupportedError) as e:
        allocate((4,), dtype, types.SimpleNamespace(device=dev), "device")
    msg = str(e.value)
    assert "float16" in msg and "opencl:gpu:3" in msg and "Old GPU" in msg, msg
    assert "has_aspect_fp16" in msg and "float32" in msg, msg
    assert isinstance(e.value, TypeError)


@pytest.mark.parametrize(("dtype", "single"), [("complex128", "complex64"), ("float64", "float32")])
def test_double_precision_needs_fp64(dtype, single):
    dev = types.SimpleNamespace(has_fp64=False, filter_string="opencl:gpu:7", name="Small GPU")
    with pytest.raises(UnsupportedError) as e:
        allocate((4,), dtype, types.SimpleNamespace(device=dev), "device")
    msg = str(e.value)
    assert dtype in msg and "opencl:gpu:7" in msg and "Small GPU" in msg and single in msg, msg
    assert isinstance(e.value, TypeError)


def test_float16_on_the_default_device(rng, queue):
    """Works where the device reports cl_khr_fp16; a clear error naming the device elsewhere."""
    h = rng.standard_normal(50).astype(np.float16)
    if queue.device.has_aspect_fp16:
        np.testing.assert_array_equal(nx.asnumpy(nx.asarray(h)), h)
        return
    for make in (
        lambda: nx.asarray(h),
        lambda: nx.empty(4, dtype="float16"),
        lambda: nx.zeros(4).astype("f2"),
    ):
        with pytest.raises(UnsupportedError, match=f"float16.*{queue.device.filter_string}"):
            make()
