"""np.nansum, np.nanmean, np.nanmin, ... of numba_ext arrays: NumPy's values, shapes, dtypes and
warnings, computed on the array's queue."""

import warnings

import numpy as np
import pytest

import numba_ext
from numba_ext.errors import UnsupportedError

REDUCTIONS = ["nansum", "nanprod", "nanmin", "nanmax", "nanmean", "nanvar", "nanstd"]
SCANS = ["nancumsum", "nancumprod"]
AXES = [{}, {"axis": 0}, {"axis": 1, "keepdims": True}, {"axis": -1}, {"axis": (0, 1)}]


def _with_nans(rng, shape, dtype="float64", all_nan_row=True):
    host = rng.standard_normal(shape).astype(dtype)
    host[rng.random(shape) < 0.3] = np.nan
    if all_nan_row:
        host[1] = np.nan
    return host


def _run(func, *args, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = func(*args, **kwargs)
    return result, sorted({str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)})


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", REDUCTIONS + SCANS)
def test_nan_functions_match_numpy(rng, name, dtype, fp64):
    if dtype == "float64" and not fp64:
        pytest.skip("float64 needs a device with fp64")
    host = _with_nans(rng, (6, 11), dtype)
    func = getattr(np, name)
    for kw in AXES if name not in SCANS else [{}, {"axis": 0}, {"axis": 1}]:
        if name in ("nanprod",) and kw.get("axis") == (0, 1):
            continue
        want, want_warnings = _run(func, host, **kw)
        got, got_warnings = _run(func, numba_ext.asarray(host), **kw)
        assert isinstance(got, numba_ext.ndarray), kw
        got = numba_ext.asnumpy(got)
        want = np.asarray(want)
        assert got.shape == want.shape and got.dtype == want.dtype, kw
        tol = 1e-5 if dtype == "float32" else 1e-12
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol, equal_nan=True, err_msg=str(kw))
        assert got_warnings == want_warnings, kw


@pytest.mark.parametrize("ddof", [0, 1, 3])
def test_nanvar_ddof(rng, ddof):
    host = _with_nans(rng, (9, 5), all_nan_row=False)
    got, got_warnings = _run(np.nanvar, numba_ext.asarray(host), axis=0, ddof=ddof)
    want, want_warnings = _run(np.nanvar, host, axis=0, ddof=ddof)
    np.testing.assert_allclose(numba_ext.asnumpy(got), want, rtol=1e-12, equal_nan=True)
    assert got_warnings == want_warnings


@pytest.mark.parametrize("name", ["nanargmin", "nanargmax"])
def test_nanarg_functions(rng, name):
    host = _with_nans(rng, (5, 8), all_nan_row=False)
    host[0, :] = rng.standard_normal(8)  # no all-NaN slice along either axis: those raise
    host[:, 0] = rng.standard_normal(5)
    func = getattr(np, name)
    for kw in ({}, {"axis": 0}, {"axis": 1}):
        got = numba_ext.asnumpy(func(numba_ext.asarray(host), **kw))
        np.testing.assert_array_equal(got, func(host, **kw))
    host[2] = np.nan
    with pytest.raises(ValueError, match="All-NaN slice"):
        func(numba_ext.asarray(host), axis=1)


@pytest.mark.parametrize("dtype", ["int32", "bool", "uint8"])
def test_nan_functions_of_arrays_without_nans(rng, dtype):
    host = rng.integers(0, 5, (4, 7)).astype(dtype)
    x = numba_ext.asarray(host)
    for name in ("nansum", "nanmin", "nanmax", "nanmean", "nancumsum", "nanargmax"):
        got = numba_ext.asnumpy(getattr(np, name)(x, axis=1))
        want = getattr(np, name)(host, axis=1)
        assert got.dtype == want.dtype, name
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_complex_nansum_and_nanmean(rng, cdt):
    host = (rng.standard_normal((4, 6)) + 1j * rng.standard_normal((4, 6))).astype(cdt)
    host[0, 1] = complex(np.nan, 0)
    host[2, 3] = complex(0, np.nan)
    x = numba_ext.asarray(host)
    tol = 1e-5 if cdt == "complex64" else 1e-12
    np.testing.assert_allclose(numba_ext.asnumpy(np.nansum(x, axis=0)), np.nansum(host, axis=0), rtol=tol)
    np.testing.assert_allclose(numba_ext.asnumpy(np.nanmean(x, axis=1)), np.nanmean(host, axis=1), rtol=tol)
    np.testing.assert_allclose(numba_ext.asnumpy(np.nanvar(x)), np.nanvar(host), rtol=tol)


@pytest.mark.parametrize(
    ("call", "keyword"),
    [
        (lambda x: np.nansum(x, out=numba_ext.empty(())), "out"),
        (lambda x: np.nanmax(x, initial=0.0), "initial"),
        (lambda x: np.nanmean(x, where=numba_ext.ones(x.shape, dtype=bool)), "where"),
    ],
)
def test_unsupported_keywords_are_named(rng, call, keyword):
    with pytest.raises(UnsupportedError, match=f"{keyword}="):
        call(numba_ext.asarray(rng.standard_normal(5)))
