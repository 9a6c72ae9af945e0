"""NumPy's creation functions with like= a numba_ext array (NEP 35) make numba_ext arrays on that
array's queue with its USM type, with NumPy's values."""

import numpy as np
import pytest

import numba_ext
from numba_ext.errors import UnsupportedError

CASES = [
    ("empty", (np.empty, (4, 3)), {"dtype": "int32"}),
    ("zeros", (np.zeros, (4, 3)), {"dtype": "float32"}),
    ("ones", (np.ones, (5,)), {}),
    ("full", (np.full, (2, 3), -7), {"dtype": "int16"}),
    ("arange", (np.arange, 3, 17, 2), {}),
    ("arange float", (np.arange, 0.5, 4.0, 0.25), {}),
    ("eye", (np.eye, 4, 5, 1), {}),
    ("identity", (np.identity, 3), {}),
    ("asarray list", (np.asarray, [[1, 2], [3, 4]]), {"dtype": "uint8"}),
    ("array list", (np.array, [1.5, 2.5]), {}),
]


@pytest.mark.parametrize("usm_type", ["device", "shared"])
@pytest.mark.parametrize(("name", "call", "kwargs"), CASES, ids=[c[0] for c in CASES])
def test_creation_like_a_device_array(name, call, kwargs, usm_type):
    proto = numba_ext.empty((0,), usm_type=usm_type)
    func, *args = call
    got = func(*args, like=proto, **kwargs)
    want = func(*args, **kwargs)
    assert isinstance(got, numba_ext.ndarray)
    assert got.sycl_queue == proto.sycl_queue and got.usm_type == usm_type
    assert got.shape == want.shape and got.dtype == want.dtype
    if name != "empty":
        np.testing.assert_array_equal(numba_ext.asnumpy(got), want)


def test_asarray_like_keeps_a_device_arrays_usm_type(rng):
    host = rng.standard_normal(6)
    x = numba_ext.asarray(host, usm_type="host")
    got = np.asarray(x, like=numba_ext.empty((0,)))
    assert got.usm_type == "host"
    np.testing.assert_array_equal(numba_ext.asnumpy(got), host)


def test_creation_like_refuses_numpys_device_keyword():
    with pytest.raises(UnsupportedError, match=r"np.ones\(..., like=x\).*device="):
        np.ones(3, like=numba_ext.empty((0,)), device="cpu")


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_ufunc_dtype_keyword_computes_in_that_dtype(rng, dtype):
    a = rng.integers(-50, 50, 20)
    b = rng.integers(-50, 50, 20)
    da_, db = numba_ext.asarray(a), numba_ext.asarray(b)
    for ufunc in (np.add, np.multiply, np.subtract):
        got = ufunc(da_, db, dtype=dtype)
        want = ufunc(a, b, dtype=dtype)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(numba_ext.asnumpy(got), want)
    got = np.true_divide(da_, 4, dtype=dtype if dtype != "int64" else "float64")
    np.testing.assert_allclose(numba_ext.asnumpy(got), np.true_divide(a, 4, dtype=got.dtype), rtol=1e-6)
