"""np.median, np.quantile, np.percentile and their NaN-ignoring forms (np.nanmedian, ...), np.average,
np.cov, np.corrcoef and np.interp of numba_ext arrays against NumPy on fresh random inputs:
every axis form (None, one, negative, a tuple) with and without keepdims, scalar and array
quantiles, the methods computed on the device, dtypes (float, integer, float16 where the device has
it, complex medians), memory layouts, slices holding NaN, empty slices, and NumPy's errors."""

import numpy as np
import pytest

import numba_ext as nx
from numba_ext.errors import UnsupportedError

from ..checks import poison
from ..conftest import DEV

AXES = [None, 0, -1, (0, 2), (2, 1, 0)]
DEVICE_METHODS = [
    "linear",
    "lower",
    "higher",
    "nearest",
    "midpoint",
    "weibull",
    "hazen",
    "interpolated_inverted_cdf",
    "median_unbiased",
    "normal_unbiased",
]


def _data(rng, shape, dtype):
    if np.dtype(dtype).kind in "iu":
        return rng.integers(-50 if np.dtype(dtype).kind == "i" else 0, 50, shape).astype(dtype)
    return (rng.standard_normal(shape) * 10).astype(dtype)


def _close(got, want, what):
    assert isinstance(got, nx.ndarray), what
    host = nx.asnumpy(got)
    assert host.dtype == np.asarray(want).dtype and host.shape == np.shape(want), (
        what,
        host.dtype,
        host.shape,
    )
    # NumPy interpolates in float64 or in its quantiles' dtype: last-bit differences
    rtol = {2: 1e-3, 4: 2e-6}.get(host.dtype.itemsize, 1e-13)
    scale = 1e3 * rtol  # the data's magnitude (standard normal times 10) where values cancel
    np.testing.assert_allclose(host, want, rtol=rtol, atol=scale, err_msg=what)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.uint8])
def test_median(rng, dtype):
    for shape in ((5, 6, 7), (4, 1, 8)):  # slices of odd and even lengths
        h = _data(rng, shape, dtype)
        x = nx.asarray(h, device=DEV)
        for axis in AXES:
            for keepdims in (False, True):
                poison(h.size, np.float64, dtype)
                want = np.median(h, axis=axis, keepdims=keepdims)
                _close(np.median(x, axis=axis, keepdims=keepdims), want, f"{shape} {axis} {keepdims}")
    t = nx.asarray(np.asfortranarray(h), device=DEV).T[::2, :, 1:]  # a transposed, strided view
    _close(np.median(t, axis=1), np.median(h.T[::2, :, 1:], axis=1), "view")


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32])
def test_quantile_and_percentile(rng, dtype):
    h = _data(rng, (6, 5, 4), dtype)
    x = nx.asarray(h, device=DEV)
    qs = [0.0, 1.0, float(rng.random()), list(rng.random(3)), rng.random((2, 2))]
    for axis in AXES:
        for q in qs:
            for method in DEVICE_METHODS:
                what = f"{axis} {q} {method}"
                want = np.quantile(h, q, axis=axis, method=method)
                _close(np.quantile(x, q, axis=axis, method=method), want, what)
        want = np.percentile(h, [12.5, 99.0], axis=axis, keepdims=True)
        _close(np.percentile(x, [12.5, 99.0], axis=axis, keepdims=True), want, f"percentile {axis}")
    q = nx.asarray(np.array([0.25, 0.75]), device=DEV)  # quantiles on the device too
    _close(np.quantile(x, q, axis=1), np.quantile(h, [0.25, 0.75], axis=1), "device q")


def test_slices_holding_nan(rng):
    h = _data(rng, (5, 9), np.float64)
    h[1, 3] = h[4, 0] = np.nan
    h[2, :] = np.inf
    x = nx.asarray(h, device=DEV)
    for axis in (None, 0, 1):
        np.testing.assert_array_equal(nx.asnumpy(np.median(x, axis=axis)), np.median(h, axis=axis))
        with np.errstate(invalid="ignore"):  # NumPy's interpolation of infinities
            want = np.quantile(h, [0.1, 0.5], axis=axis)
        np.testing.assert_allclose(nx.asnumpy(np.quantile(x, [0.1, 0.5], axis=axis)), want, rtol=1e-13)


def test_complex_median_and_float16(rng, queue):
    h = (rng.standard_normal((4, 7)) + 1j * rng.standard_normal((4, 7))).astype(np.complex64)
    got = np.median(nx.asarray(h, device=DEV), axis=1)
    np.testing.assert_allclose(nx.asnumpy(got), np.median(h, axis=1), rtol=1e-6)
    assert got.dtype == np.complex64
    if queue.device.has_aspect_fp16:
        f = _data(rng, (3, 8), np.float16)
        _close(np.median(nx.asarray(f, device=DEV), axis=1), np.median(f, axis=1), "float16 median")
        _close(np.quantile(nx.asarray(f, device=DEV), 0.3, axis=1), np.quantile(f, 0.3, axis=1), "float16")


def test_empty_and_zero_dimensional(rng):
    x = nx.asarray(np.float64(2.5), device=DEV)
    assert float(np.median(x)) == 2.5 and float(np.quantile(x, 0.7)) == 2.5
    empty = nx.zeros((3, 0), device=DEV)
    with np.errstate(invalid="ignore"), pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        got = np.median(empty, axis=1)  # NumPy's result and warnings
    assert got.shape == (3,) and np.isnan(nx.asnumpy(got)).all()
    with pytest.raises(IndexError, match="out of bounds"):
        np.quantile(empty, 0.5, axis=1)
    assert np.median(nx.zeros((0, 4), device=DEV), axis=1).shape == (0,)
    assert np.percentile(nx.zeros((0, 4), device=DEV), [5, 50], axis=1, keepdims=True).shape == (2, 0, 1)


def test_errors_are_numpys():
    x = nx.asarray(np.arange(6.0).reshape(2, 3), device=DEV)
    with pytest.raises(ValueError, match="range"):
        np.quantile(x, 1.5)
    with pytest.raises(ValueError, match="range"):
        np.percentile(x, -1)
    with pytest.raises(ValueError, match="not a valid method"):
        np.quantile(x, 0.5, method="bogus")
    with pytest.raises(UnsupportedError, match="inverted_cdf"):
        np.quantile(x, 0.5, method="inverted_cdf")
    with pytest.raises(TypeError, match="real numbers"):
        np.quantile(x + 1j, 0.5)
    with pytest.raises(np.exceptions.AxisError):
        np.median(x, axis=2)
    with pytest.raises(ValueError, match="repeated axis"):
        np.median(x, axis=(1, -1))
    with pytest.raises(UnsupportedError, match="out="):
        np.median(x, out=nx.empty(3, device=DEV))
    np.testing.assert_array_equal(nx.asnumpy(x), np.arange(6.0).reshape(2, 3))  # the input kept


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_nan_ignoring_forms(rng, dtype):
    h = _data(rng, (5, 6, 7), dtype)
    nans = rng.random(h.shape) < 0.3
    nans[0], nans[:, 0], nans[:, :, 0] = False, False, False  # no slice of NaNs only
    h[nans] = np.nan
    x = nx.asarray(h, device=DEV)
    for axis in (None, 0, 2, (0, 2)):
        for keepdims in (False, True):
            _close(
                np.nanmedian(x, axis=axis, keepdims=keepdims),
                np.nanmedian(h, axis=axis, keepdims=keepdims),
                f"{axis}",
            )
            for method in DEVICE_METHODS:
                for q in (0.0, float(rng.random()), [0.1, 0.5, 1.0]):
                    want = np.nanquantile(h, q, axis=axis, method=method, keepdims=keepdims)
                    got = np.nanquantile(x, q, axis=axis, method=method, keepdims=keepdims)
                    _close(got, want, f"{axis} {q} {method}")
            _close(
                np.nanpercentile(x, 40, axis=axis), np.nanpercentile(h, 40, axis=axis), f"percentile {axis}"
            )
    # a slice of NaNs only along axis 1 (not the first: NumPy's np.nanquantile then gives the dtype
    # of that slice's NaNs to its whole result, the array's, where other data give float64)
    h[-1, :, -1] = np.nan
    x = nx.asarray(h, device=DEV)
    for f in (np.nanmedian, lambda a, axis: np.nanquantile(a, [0.2, 0.6], axis=axis)):
        with pytest.warns(RuntimeWarning, match="All-NaN slice"):
            got = f(x, axis=1)
        with pytest.warns(RuntimeWarning, match="All-NaN slice"):
            want = f(h, axis=1)
        _close(got, want, "a slice of NaNs only")
    ints = rng.integers(0, 9, (4, 5))
    _close(np.nanmedian(nx.asarray(ints, device=DEV), axis=1), np.nanmedian(ints, axis=1), "integers")
    _close(
        np.nanquantile(nx.asarray(ints, device=DEV), 0.3, axis=0), np.nanquantile(ints, 0.3, axis=0), "int"
    )


def _pair(rng, shape, dtype=np.float64):
    h = _data(rng, shape, dtype)
    return h, nx.asarray(h, device=DEV)


def _same_results(got, want, what, rtol=1e-12):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), what
        for g, w in zip(got, want):
            _same_results(g, w, what, rtol)
        return
    host, want = nx.asnumpy(got), np.asarray(want)
    assert host.dtype == want.dtype and host.shape == want.shape, (what, host.dtype, want.dtype, host.shape)
    np.testing.assert_allclose(host, want, rtol=rtol, atol=rtol, err_msg=what)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int16])
def test_average(rng, dtype):
    h, x = _pair(rng, (4, 6), dtype)
    hw = rng.random((4, 6)) + 0.1
    w = nx.asarray(hw, device=DEV)
    r = 1e-5 if dtype == np.float32 else 1e-12
    for axis in (None, 0, 1, (0, 1)):
        for keepdims in (False, True):
            kw = {"axis": axis, "keepdims": keepdims, "returned": True}
            _same_results(np.average(x, **kw), np.average(h, **kw), f"{axis}", r)
            _same_results(np.average(x, weights=w, **kw), np.average(h, weights=hw, **kw), f"w {axis}", r)
    w1 = rng.random(6)
    _same_results(np.average(x, axis=1, weights=w1), np.average(h, axis=1, weights=w1), "1-d weights", r)
    with pytest.raises(ZeroDivisionError, match="Weights sum to zero"):
        np.average(x, axis=0, weights=np.zeros(4))
    with pytest.raises(TypeError, match="Axis must be specified"):
        np.average(x, weights=w1)
    with pytest.raises(ValueError, match="Length of weights"):
        np.average(x, axis=0, weights=w1)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.complex128])
def test_cov_and_corrcoef(rng, dtype):
    h = _data(rng, (4, 9), dtype)
    if np.dtype(dtype).kind == "c":
        h = h + 1j * _data(rng, (4, 9), np.float64)
    x = nx.asarray(h, device=DEV)
    r = 1e-12 if np.dtype(dtype).itemsize != 4 else 1e-5
    _same_results(np.cov(x), np.cov(h), "cov", r)
    _same_results(np.cov(x, rowvar=False, bias=True), np.cov(h, rowvar=False, bias=True), "columns", r)
    _same_results(np.cov(x[0], x[1]), np.cov(h[0], h[1]), "x and y", r)
    _same_results(np.cov(x[2]), np.cov(h[2]), "one variable", r)
    _same_results(np.cov(x, ddof=3, dtype=np.complex64), np.cov(h, ddof=3, dtype=np.complex64), "dtype", 1e-5)
    _same_results(np.corrcoef(x), np.corrcoef(h), "corrcoef", r)
    _same_results(np.corrcoef(x[0], x[3], rowvar=False), np.corrcoef(h[0], h[3], rowvar=False), "x, y", r)
    _same_results(np.corrcoef(x[1]), np.corrcoef(h[1]), "one variable", r)
    with np.errstate(divide="ignore"), pytest.warns(RuntimeWarning, match="Degrees of freedom"):
        got = np.cov(x[:, :1])  # NumPy's warning, and its 1 / 0
    assert np.isinf(nx.asnumpy(got)).all() or np.isnan(nx.asnumpy(got)).all()
    with pytest.raises(UnsupportedError, match="aweights"):
        np.cov(x, aweights=np.ones(9))


def test_interp(rng):
    xp = np.sort(rng.standard_normal(12))
    fp = rng.standard_normal(12)
    x = np.concatenate([rng.standard_normal(50) * 2, xp, [np.nan, -np.inf, np.inf]]).reshape(-1, 13)
    dx, dxp, dfp = (nx.asarray(a, device=DEV) for a in (x, xp, fp))
    for kw in ({}, {"left": -5.0, "right": 7}):
        _same_results(np.interp(dx, dxp, dfp, **kw), np.interp(x, xp, fp, **kw), f"{kw}")
        _same_results(np.interp(dx, xp, list(fp), **kw), np.interp(x, xp, fp, **kw), f"host samples {kw}")
    # repeated sample points and infinite values: NumPy's special cases
    xp2, fp2 = np.array([0.0, 1, 1, 2, 3, 4, 5]), np.array([0.0, 1, 3, np.inf, np.inf, -np.inf, 2])
    at = np.array([0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, -1, np.nan])
    _same_results(np.interp(nx.asarray(at, device=DEV), xp2, fp2), np.interp(at, xp2, fp2), "special cases")
    _same_results(
        np.interp(nx.asarray(at, device=DEV), [1.0], [4.0]), np.interp(at, [1.0], [4.0]), "one point"
    )
    ints = rng.integers(0, 10, 7)
    _same_results(
        np.interp(nx.asarray(ints, device=DEV), [0, 5, 9], [1, -1, 2]),
        np.interp(ints, [0, 5, 9], [1, -1, 2]),
        "int",
    )
    # one kernel for any points: strided, 0-d, empty, deep; edges as NumPy scalars, many samples
    big_xp = np.sort(rng.standard_normal(3000))
    big_fp = rng.standard_normal(3000)
    wide = rng.standard_normal((4, 6, 10)) * 3
    for pts in (wide[:, ::2, 1:9:3], wide[0, 0, 0], wide[:0], wide):
        want = np.interp(pts, big_xp, big_fp, left=np.float32(-2), right=np.int8(3))
        got = np.interp(
            nx.asarray(pts, device=DEV), nx.asarray(big_xp, device=DEV), big_fp, np.float32(-2), 3
        )
        _same_results(got, want, f"points of shape {np.shape(pts)}")
    with pytest.raises(ValueError, match="same length"):
        np.interp(dx, dxp, dfp[:-1])
    with pytest.raises(ValueError, match="empty"):
        np.interp(dx, dxp[:0], dfp[:0])
    with pytest.raises(UnsupportedError, match="period"):
        np.interp(dx, dxp, dfp, period=2.0)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int16", "uint32", "uint64", "bool"])
@pytest.mark.parametrize("spread", ["wide", "narrow", "repeated"])
def test_whole_array_selection(dtype, spread):
    """Over every axis of a large real array on a CPU device the order statistics are selected
    (radix selection by 16-bit digits), not sorted (GPUs sort): medians and quantiles of every
    method, odd and even lengths, data in one binade (the top digits alike) and heavily repeated
    values."""
    from numba_ext.library import selection

    rng = np.random.default_rng()
    for n in (selection.SELECT_FEWEST + 1, 3 * selection.SELECT_FEWEST):
        if spread == "wide":
            h = rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)
        elif spread == "narrow":
            h = 1 + rng.random(n) * 1e-9
        else:
            h = rng.integers(-3, 3, n)
        if np.dtype(dtype).kind == "u":
            h = np.abs(h) * 1000
        h = h.astype(dtype)
        x = nx.asarray(h.reshape(-1, 1) if n % 2 else h.reshape(2, -1), device=DEV)  # 2-d: axis None
        host = nx.asnumpy(x)
        q = [0.0, 0.013, 0.5, 0.75, 1.0]
        if dtype == "bool":  # NumPy interpolates booleans only by the methods that pick one
            for method in ("lower", "higher", "nearest"):
                _close(np.quantile(x, q, method=method), np.quantile(host, q, method=method), method)
            continue
        _close(np.median(x), np.median(host), f"median {dtype} {spread} {n}")
        for method in DEVICE_METHODS:
            _close(np.quantile(x, q, method=method), np.quantile(host, q, method=method), f"{dtype} {method}")
        _close(np.percentile(x, 37.5, axis=(0, 1)), np.percentile(host, 37.5, axis=(0, 1)), "percentile")


def test_whole_array_selection_with_nan():
    """A NaN anywhere makes the whole-array median NaN (the sorting path takes it)."""
    rng = np.random.default_rng()
    h = rng.standard_normal(70000)
    h[rng.integers(0, h.size)] = np.nan
    x = nx.asarray(h, device=DEV)
    assert np.isnan(float(np.median(x))) and np.isnan(np.median(h))
    _close(np.nanmedian(x), np.nanmedian(h), "nanmedian")
    _close(np.quantile(x, [0.2, 0.9]), np.quantile(h, [0.2, 0.9]), "quantile with NaN")
