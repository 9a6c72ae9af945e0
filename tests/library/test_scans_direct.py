"""Eager ``np.cumsum`` and ``np.cumprod`` of real and bool arrays run the kernels of ``ir.scans``
directly, with no Numba-compiled helper: NumPy's values (exact for integers, which wrap as NumPy's;
within rounding for floats) and result dtypes over the array flattened in C order (empty, 0-d and
one-block to many-block sizes) and along each axis, with ``dtype=``, in any layout, with the input's
queue and USM type, and NumPy's exceptions for bad arguments."""

import numpy as np
import pytest

import numba_ext
from numba_ext.compiler import scans as jitted_scans
from numba_ext.ir.scans import BLOCKS, block_count

from ..checks import fp_tol, refuse_calls

DTYPES = ["float64", "float32", "int8", "int32", "int64", "uint8", "uint16", "uint64", "bool"]


@pytest.fixture
def no_helpers(monkeypatch):
    """Fails any scan that calls a Numba-compiled helper."""
    refuse_calls(monkeypatch, jitted_scans, "scan_function")


def _values(rng, dtype, shape, op):
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if np.dtype(dtype).kind == "f":  # products near 1, so that they neither vanish nor overflow
        low, high = (0.99, 1.01) if op == "cumprod" else (-2, 2)
        return rng.uniform(low, high, shape).astype(dtype)
    low = 0 if np.dtype(dtype).kind == "u" else -3
    return rng.integers(low, 4, shape).astype(dtype)


def _same(got, want, dtype, usm_type):
    assert got.usm_type == usm_type
    got_h = numba_ext.asnumpy(got)
    assert got_h.dtype == want.dtype and got_h.shape == want.shape
    if want.dtype.kind == "f":
        tol = {"rtol": 1e-4, "atol": 1e-4} if dtype == "float32" else fp_tol()
        np.testing.assert_allclose(got_h, want, **tol)
    else:
        np.testing.assert_array_equal(got_h, want)


@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_scans_of_every_dtype_and_layout(rng, op, dtype, no_helpers):
    h = _values(rng, dtype, (37, 29), op)
    a = numba_ext.asarray(h, usm_type="shared")
    views = ((h, a), (h.T, a.T), (h[::3, ::-2], a[::3, ::-2]), (h[5], a[5]), (h[:, 4], a[:, 4]))
    for hx, x in views:
        got = getattr(np, op)(x)
        _same(got, getattr(np, op)(hx), dtype, "shared")
        assert got.sycl_queue == a.sycl_queue


@pytest.mark.parametrize("n", [0, 1, 2, BLOCKS - 1, BLOCKS, BLOCKS + 1, 3 * BLOCKS + 7, 100_003, 300_009])
def test_block_boundaries(rng, n, no_helpers):
    assert n == 0 or (block_count(n) <= min(n, BLOCKS) and -(-n // block_count(n)) * block_count(n) >= n)
    h = rng.integers(-1000, 1000, n)
    _same(np.cumsum(numba_ext.asarray(h)), np.cumsum(h), "int64", "device")
    f = rng.uniform(0.999, 1.001, n)
    _same(np.cumprod(numba_ext.asarray(f)), np.cumprod(f), "float64", "device")


def test_a_million_elements(rng, no_helpers):
    h = rng.integers(-1000, 1000, 1_000_003)
    _same(np.cumsum(numba_ext.asarray(h)), np.cumsum(h), "int64", "device")


def test_integers_wrap_and_zero_d(no_helpers):
    big = np.array([2**62, 2**62, 2**62, -5], dtype=np.int64)
    with np.errstate(over="ignore"):
        _same(np.cumsum(numba_ext.asarray(big)), np.cumsum(big), "int64", "device")
        _same(np.cumprod(numba_ext.asarray(big)), np.cumprod(big), "int64", "device")
    u = np.array([255, 255, 3], dtype=np.uint8)
    _same(np.cumprod(numba_ext.asarray(u)), np.cumprod(u), "uint8", "device")  # in uint64: no wrap at 8 bits
    z = np.float32(2.5)
    _same(np.cumsum(numba_ext.asarray(z)), np.cumsum(z), "float32", "device")


def test_nan_propagates(no_helpers):
    h = np.arange(1.0, 10_000.0)
    h[5000] = np.nan
    got = numba_ext.asnumpy(np.cumsum(numba_ext.asarray(h)))
    np.testing.assert_array_equal(np.isnan(got), np.isnan(np.cumsum(h)))


def test_other_dtypes_keep_the_helper():
    h = np.array([1 + 2j, 3 - 1j, 0.5j])
    np.testing.assert_allclose(numba_ext.asnumpy(np.cumsum(numba_ext.asarray(h))), np.cumsum(h))


@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_scans_along_an_axis_and_into_a_dtype(rng, op, dtype, no_helpers):
    h = _values(rng, dtype, (6, 5, 4), op)
    a = numba_ext.asarray(h, usm_type="host")
    views = ((h, a), (h.transpose(2, 0, 1), a.transpose(2, 0, 1)), (h[::2, ::-1], a[::2, ::-1]))
    for hx, x in views:
        for axis in (0, 1, 2, -1, -3):
            for into in (None, "float64", "int32", "uint8"):
                want = getattr(np, op)(hx, axis=axis, dtype=into)
                got = getattr(np, op)(x, axis=axis, dtype=into)
                _same(got, want, dtype if into is None else into, "host")
                assert got.flags.c_contiguous and got.sycl_queue == a.sycl_queue
    # a 1-d or 0-d array along its axis is its flattened scan; an empty axis gives an empty result
    for hx in (h[1, 2], np.asarray(h[1, 2, 3])):
        _same(getattr(np, op)(numba_ext.asarray(hx), axis=-1), getattr(np, op)(hx, axis=-1), dtype, "device")
    e = np.zeros((3, 0), dtype)
    _same(getattr(np, op)(numba_ext.asarray(e), axis=1), getattr(np, op)(e, axis=1), dtype, "device")


def test_arguments_as_numpy_takes_them(no_helpers):
    h = np.ones((3, 4))
    a = numba_ext.asarray(h)
    for kwargs, error in (
        ({"axis": 2}, np.exceptions.AxisError),
        ({"axis": -3}, np.exceptions.AxisError),
        ({"axis": 1.0}, TypeError),
        ({"axis": True}, TypeError),
        ({"dtype": "not a dtype"}, TypeError),
    ):
        with pytest.raises(error):
            np.cumsum(h, **kwargs)
        with pytest.raises(error):
            np.cumsum(a, **kwargs)
    with pytest.raises(np.exceptions.AxisError):
        np.cumsum(numba_ext.asarray(np.float64(1.0)), axis=1)
    # what is not offloaded says so
    with pytest.raises(numba_ext.UnsupportedError, match="out="):
        np.cumsum(a, out=numba_ext.empty(12))
    with pytest.raises(
        numba_ext.UnsupportedError, match="real or complex results, not complex128 into float64"
    ):
        np.cumsum(numba_ext.asarray(np.ones((2, 2), np.complex128)), axis=0, dtype=np.float64)
    # float16 along an axis: refused (or, without cl_khr_fp16, the array itself is)
    with pytest.raises(numba_ext.UnsupportedError, match="float16"):
        np.cumsum(numba_ext.asarray(np.ones((2, 2), np.float16)), axis=0)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_scans(rng, dtype, no_helpers):
    """Flattened, along each axis and into complex128, with NumPy's values."""
    h = (rng.uniform(-1, 1, (5, 7)) + 1j * rng.uniform(-1, 1, (5, 7))).astype(dtype)
    a = numba_ext.asarray(h, usm_type="shared")
    tol = {"rtol": 1e-5, "atol": 1e-5} if dtype == "complex64" else fp_tol()
    for op in ("cumsum", "cumprod"):
        f = getattr(np, op)
        for kwargs in (
            {},
            {"axis": 0},
            {"axis": 1},
            {"dtype": np.complex128},
            {"axis": 0, "dtype": np.complex128},
        ):
            for hx, x in ((h, a), (h.T, a.T), (h[::2, ::-3], a[::2, ::-3])):
                got, want = f(x, **kwargs), f(hx, **kwargs)
                assert got.usm_type == "shared" and numba_ext.asnumpy(got).dtype == want.dtype
                np.testing.assert_allclose(numba_ext.asnumpy(got), want, **tol, err_msg=f"{op} {kwargs}")
    real = rng.uniform(-1, 1, 9)
    got = np.cumsum(numba_ext.asarray(real), dtype=dtype)
    np.testing.assert_allclose(numba_ext.asnumpy(got), np.cumsum(real, dtype=dtype), **tol)
