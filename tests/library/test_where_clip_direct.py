"""Eager ``np.where`` and ``np.clip`` of real and bool values run one elementwise kernel (no jitted
helper): NumPy 2's values and result dtypes for every pairing of dtypes, Python and NumPy scalars,
0-d arrays, broadcasting, strided views, NaN in the condition, the operands and the bounds, and
bounds in either order. Complex values and Python ints outside an integer array's range still go to
the jitted helpers, with NumPy's results."""

import numpy as np
import pytest

import numba_ext as nx
from numba_ext.library import functions

from ..checks import refuse_calls

DTYPES = ["float64", "float32", "int8", "int32", "int64", "uint8", "uint16", "uint64", "bool"]


@pytest.fixture
def no_helpers(monkeypatch):
    refuse_calls(monkeypatch, functions, "_jitted_function")


def _values(rng, dtype, shape):
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if np.dtype(dtype).kind == "f":
        v = rng.uniform(-4, 4, shape).astype(dtype)
        v.flat[:: max(1, v.size // 3)] = np.nan  # NaN among the values
        return v
    low = 0 if np.dtype(dtype).kind == "u" else -9
    return rng.integers(low, 10, shape).astype(dtype)


def _same(got, want):
    assert isinstance(got, nx.ndarray)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype, got.shape, want.shape)
    np.testing.assert_array_equal(nx.asnumpy(got), want)


@pytest.mark.parametrize("xd", DTYPES)
@pytest.mark.parametrize("yd", ["float32", "int16", "uint32", "bool"])
def test_where_of_two_arrays(rng, no_helpers, xd, yd):
    c, x, y = rng.standard_normal((5, 7)), _values(rng, xd, (5, 7)), _values(rng, yd, (1, 7))
    c[0, 0] = np.nan  # true, as NumPy takes it
    _same(np.where(nx.asarray(c) > 0.2, nx.asarray(x), nx.asarray(y)), np.where(c > 0.2, x, y))
    _same(np.where(nx.asarray(c), nx.asarray(x), nx.asarray(y)), np.where(c, x, y))  # a float condition


@pytest.mark.parametrize("xd", DTYPES)
def test_where_with_scalars_and_views(rng, no_helpers, xd):
    x = _values(rng, xd, (6, 8))
    c = rng.random((6, 8)) < 0.5
    a, m = nx.asarray(x), nx.asarray(c)
    for s in (0, 1, 2.5, True, np.float32(0.5), np.int8(-3), np.uint8(200)):
        _same(np.where(m, a, s), np.where(c, x, s))
        _same(np.where(m, s, a), np.where(c, s, x))
    s1, s2 = (slice(None, None, 2), slice(1, None, 3)), (slice(1, None, 2), slice(None, None, 3))
    _same(np.where(m[s1], a[s1], a[s2]), np.where(c[s1], x[s1], x[s2]))  # strided views
    _same(np.where(m.T, a.T, 7), np.where(c.T, x.T, 7))
    _same(np.where(True, a, a[0]), np.where(True, x, x[0]))  # a scalar condition, a broadcast row
    zero_d = nx.asarray(x[2, 3])  # a 0-d array
    _same(np.where(m, zero_d, a), np.where(c, x[2, 3], x))


@pytest.mark.parametrize("dtype", DTYPES[:-1])
def test_clip(rng, no_helpers, dtype):
    x = _values(rng, dtype, (9, 4))
    a = nx.asarray(x)
    lo, hi = _values(rng, dtype, (1, 4)), _values(rng, dtype, (9, 1))
    _same(np.clip(a, nx.asarray(lo), nx.asarray(hi)), np.clip(x, lo, hi))  # some bounds cross
    _same(np.clip(a, 2, 5), np.clip(x, 2, 5))
    _same(np.clip(a, 1.5, 4.5), np.clip(x, 1.5, 4.5))
    _same(np.clip(a, None, 3), np.clip(x, None, 3))
    _same(np.clip(a, min=1), np.clip(x, min=1))
    _same(np.clip(a[::2], 5, 2), np.clip(x[::2], 5, 2))  # lo > hi: hi everywhere
    if x.dtype.kind == "f":
        _same(np.clip(a, np.nan, 1.0), np.clip(x, np.nan, 1.0))
        _same(np.clip(a, np.float32(-1), np.float64(1)), np.clip(x, np.float32(-1), np.float64(1)))


def test_helpers_still_serve_complex_values_and_ints_beyond_the_dtype(rng):
    z = rng.standard_normal(12) + 1j * rng.standard_normal(12)
    i = rng.integers(-100, 100, 12).astype(np.int8)
    _same(np.where(nx.asarray(z.real) > 0, nx.asarray(z), 0), np.where(z.real > 0, z, 0))
    _same(np.clip(nx.asarray(i), -5, 300), np.clip(i, -5, 300))
    try:  # NumPy 2.5 refuses the int beyond int8; earlier versions wrap it around
        want = np.where(i > 0, i, 1000)
    except OverflowError as e:
        with pytest.raises(OverflowError, match=str(e)):
            np.where(nx.asarray(i) > 0, nx.asarray(i), 1000)
    else:
        _same(np.where(nx.asarray(i) > 0, nx.asarray(i), 1000), want)


def test_where_keeps_compute_follows_data(rng, no_helpers):
    h, g = rng.standard_normal(8), rng.standard_normal(8)
    x = nx.asarray(h)
    with pytest.raises(nx.ExecutionPlacementError, match="host data"):
        np.where(x > 0, x, np.zeros(8))
    with pytest.raises(nx.ExecutionPlacementError, match="host data"):
        np.clip(x, np.zeros(8), 1.0)
    other = nx.asarray(g, usm_type="host")
    with pytest.warns(nx.MixedUSMTypeWarning):
        got = np.where(x > 0, x, other)  # the USM type by precedence (device < shared < host): device
    assert got.usm_type == "device"
    np.testing.assert_array_equal(nx.asnumpy(got), np.where(h > 0, h, g))
