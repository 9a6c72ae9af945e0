"""Eager ``sum``, ``prod``, ``mean``, ``min``, ``max``, ``any``, ``all``, ``argmin`` and ``argmax`` of
real and bool arrays run the kernels of ``ir.reductions`` directly, with no Numba-compiled helper:
NumPy's values and dtypes (exact for integers, minima, maxima, indices and truth values; within
rounding for float sums) over every element and along each axis, in any layout, NaN and empty arrays
as NumPy, the USM type and queue of the input."""

import numpy as np
import pytest

import numba_ext
from numba_ext.compiler import reduction_helpers

from ..checks import fp_tol, refuse_calls

OPS = ["sum", "prod", "mean", "min", "max", "any", "all", "argmin", "argmax"]
DTYPES = ["float64", "float32", "int8", "int32", "int64", "uint8", "uint32", "uint64", "bool"]


@pytest.fixture
def no_helpers(monkeypatch):
    """Fails any reduction that calls a Numba-compiled helper."""
    refuse_calls(monkeypatch, reduction_helpers, "whole_function", "axis_reducer")


def _values(rng, dtype, shape):
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if np.dtype(dtype).kind == "f":
        return rng.uniform(-2, 2, shape).astype(dtype)
    low = 0 if np.dtype(dtype).kind == "u" else -5
    return rng.integers(low, 6, shape).astype(dtype)


def _same(got, want, dtype, terms):
    got_h = numba_ext.asnumpy(got)
    assert got_h.dtype == np.asarray(want).dtype and got_h.shape == np.shape(want)
    if np.asarray(want).dtype.kind in "fc":
        tol = {"rtol": 2e-7 * terms + 1e-6, "atol": 1e-5} if dtype == "float32" else fp_tol()
        np.testing.assert_allclose(got_h, want, **tol)
    else:
        np.testing.assert_array_equal(got_h, want)


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_reduction_of_every_dtype_and_layout(rng, dtype, no_helpers):
    h = _values(rng, dtype, (12, 9))
    a = numba_ext.asarray(h)
    for hx, x in ((h, a), (h.T, a.T), (h[::3, ::-2], a[::3, ::-2]), (h[2], a[2])):
        for op in OPS:
            got = getattr(x, op)()
            assert got.ndim == 0 and got.sycl_queue == a.sycl_queue
            _same(got, getattr(hx, op)(), dtype, hx.size)
            for axis in range(hx.ndim):
                _same(getattr(x, op)(axis=axis), getattr(hx, op)(axis=axis), dtype, hx.shape[axis])


def test_nan_empty_and_usm_types(rng, no_helpers):
    h = rng.standard_normal(40)
    h[17] = np.nan
    a = numba_ext.asarray(h)
    assert np.isnan(float(a.min())) and np.isnan(float(a.max())) and np.isnan(float(a.sum()))
    h[30] = np.nan
    m = numba_ext.asarray(h.reshape(5, 8))
    assert int(m.argmin()) == int(m.argmax()) == 17  # the first NaN, as NumPy
    _same(m.argmax(axis=0), h.reshape(5, 8).argmax(axis=0), "float64", 5)
    _same(m.T.argmin(axis=1), h.reshape(5, 8).T.argmin(axis=1), "float64", 5)
    with pytest.raises(ValueError, match="attempt to get argmax of an empty sequence"):
        numba_ext.asarray(np.zeros((3, 0))).argmax()
    e = numba_ext.asarray(np.zeros((3, 0)))
    assert float(e.sum()) == 0.0 and float(e.prod()) == 1.0
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        assert np.isnan(float(e.mean()))
    with pytest.raises(ValueError, match="zero-size array to reduction operation minimum"):
        e.min()
    with pytest.raises(ValueError, match="zero-size array to reduction operation maximum"):
        e.max(axis=1)
    assert numba_ext.asnumpy(e.sum(axis=0)).shape == (0,)
    for usm in ("device", "shared", "host"):
        x = numba_ext.asarray(rng.standard_normal((4, 5)), usm_type=usm)
        assert x.sum().usm_type == usm and x.max(axis=1).usm_type == usm
        # the results that stay on the device (the accumulator, the index) and the others
        for got in (x.sum(), x.min(), x.argmax(), x.mean(), (x > 0).any(), x.astype(np.int8).max()):
            assert got.usm_type == usm and got.shape == () and got.sycl_queue == x.sycl_queue


def test_truth_reductions_of_nan_and_empty_arrays(rng, no_helpers):
    """any / all take NaN as true; over nothing they are False / True, where the minimum and maximum
    of bools (their all and any) are NumPy's ValueError."""
    h = np.where(rng.random((6, 5)) < 0.7, 0.0, np.nan)
    a = numba_ext.asarray(h)
    for axis in (None, 0, 1):
        _same(a.any(axis=axis), h.any(axis=axis), "float64", 1)
        _same(a.all(axis=axis), h.all(axis=axis), "float64", 1)
    e, he = numba_ext.asarray(np.zeros((0, 3), bool)), np.zeros((0, 3), bool)
    for axis in (None, 0, 1):
        _same(e.any(axis=axis), he.any(axis=axis), "bool", 1)
        _same(e.all(axis=axis), he.all(axis=axis), "bool", 1)
    _same(e.max(axis=1), he.max(axis=1), "bool", 1)
    with pytest.raises(ValueError, match="zero-size array to reduction operation maximum"):
        e.max()
    with pytest.raises(ValueError, match="zero-size array to reduction operation minimum"):
        e.min(axis=0)


@pytest.mark.parametrize("n", [1_000_003, 65_537, 37])
def test_every_work_items_share_is_reduced(rng, n, no_helpers):
    """Each work-item's share of the positions (a run of them on CPUs, a grid-stride on GPUs) counts,
    the uneven last one too: exact integer sums, the first index of a repeated extreme, a NaN in the
    last place, an int64 dot product."""
    h = rng.integers(-1000, 1000, n)
    a = numba_ext.asarray(h)
    assert int(a.sum()) == int(h.sum()) and int(a.min()) == int(h.min())
    top = rng.integers(0, n)
    h[top] = h[n - 1] = 5000
    a = numba_ext.asarray(h)
    assert int(a.argmax()) == top == int(np.argmax(h))
    assert int(np.dot(a, a)) == int(np.dot(h, h))
    f = rng.standard_normal(n)
    f[-1] = np.nan
    assert np.isnan(float(numba_ext.asarray(f).max())) and int(numba_ext.asarray(f).argmin()) == n - 1
