"""NumPy's NaN-ignoring reductions and scans of numba_ext arrays (``np.nansum``, ``np.nanmean``,
``np.nanmin``, ``np.nanvar``, ``np.nancumsum``, ...), each the plain operation of the array with
its NaNs replaced by the operation's identity (0 for sums, 1 for products, +-inf for minima and
maxima), composed from eager operations on the array's queue. Results follow NumPy's, warnings
included: an all-NaN slice gives NaN for minima, maxima and means (with NumPy's RuntimeWarning),
and an error for ``nanargmin``/``nanargmax``. Integer and bool arrays have no NaNs: the plain
operation."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ..arrays.ndarray import ndarray
from ..errors import UnsupportedError

_np: Any = np  # NumPy's functions, untyped: on numba_ext arrays they dispatch to this library
_NOVALUE: Any = np._NoValue  # NumPy's "not given" default of keepdims=, initial=, where=


def _check(name: str, out: Any = None, initial: Any = _NOVALUE, where: Any = _NOVALUE) -> None:
    for keyword, value, default in (
        ("out", out, None),
        ("initial", initial, _NOVALUE),
        ("where", where, _NOVALUE),
    ):
        if value is not default and not (keyword == "where" and value is True):
            raise UnsupportedError(
                f"np.{name}({keyword}=) of numba_ext arrays is not supported; "
                f"use the array np.{name}(x) returns"
            )


def _keep(keepdims: Any) -> bool:
    return False if keepdims is _NOVALUE else bool(keepdims)


def _has_nans(a: ndarray) -> bool:
    return a.dtype.kind in "fc"


def _filled(a: ndarray, value: float) -> ndarray:
    """`a` with its NaNs replaced by `value`."""
    result: ndarray = _np.where(_np.isnan(a), value, a)
    return result


def _count(a: ndarray, axis: Any, keepdims: bool) -> ndarray:
    """How many elements that are not NaN each result of a reduction over `axis` has."""
    result: ndarray = _np.logical_not(_np.isnan(a)).sum(axis=axis, keepdims=keepdims, dtype=np.int64)
    return result


def _warn_if_any(mask: ndarray, message: str) -> None:
    if bool(_np.any(mask)):
        warnings.warn(message, RuntimeWarning, stacklevel=4)


def nansum(
    a: ndarray,
    axis: Any = None,
    dtype: Any = None,
    out: Any = None,
    keepdims: Any = _NOVALUE,
    initial: Any = _NOVALUE,
    where: Any = _NOVALUE,
) -> ndarray:
    _check("nansum", out, initial, where)
    src = _filled(a, 0) if _has_nans(a) else a
    result: ndarray = src.sum(axis=axis, dtype=dtype, keepdims=_keep(keepdims))
    return result


def nanprod(
    a: ndarray,
    axis: Any = None,
    dtype: Any = None,
    out: Any = None,
    keepdims: Any = _NOVALUE,
    initial: Any = _NOVALUE,
    where: Any = _NOVALUE,
) -> ndarray:
    _check("nanprod", out, initial, where)
    src = _filled(a, 1) if _has_nans(a) else a
    result: ndarray = src.prod(axis=axis, dtype=dtype, keepdims=_keep(keepdims))
    return result


def _extremum(name: str, fill: float) -> Callable[..., ndarray]:
    def reduce(
        a: ndarray,
        axis: Any = None,
        out: Any = None,
        keepdims: Any = _NOVALUE,
        initial: Any = _NOVALUE,
        where: Any = _NOVALUE,
    ) -> ndarray:
        _check(f"nan{name}", out, initial, where)
        keep = _keep(keepdims)
        if not _has_nans(a):
            plain: ndarray = getattr(a, name)(axis=axis, keepdims=keep)
            return plain
        if a.dtype.kind == "c":
            raise UnsupportedError(f"np.nan{name}() of complex numba_ext arrays is not supported")
        value = getattr(_filled(a, fill), name)(axis=axis, keepdims=keep)
        all_nan = _np.logical_not(_np.logical_not(_np.isnan(a)).any(axis=axis, keepdims=keep))
        _warn_if_any(all_nan, "All-NaN slice encountered")
        result: ndarray = _np.where(all_nan, np.nan, value)
        return result.astype(a.dtype, copy=False)

    reduce.__name__ = f"nan{name}"
    return reduce


def _arg_extremum(name: str, fill: float) -> Callable[..., ndarray]:
    def reduce(a: ndarray, axis: Any = None, out: Any = None, *, keepdims: Any = _NOVALUE) -> ndarray:
        _check(f"nan{name}", out)
        keep = _keep(keepdims)
        if not _has_nans(a):
            plain: ndarray = getattr(a, name)(axis=axis, keepdims=keep)
            return plain
        if a.dtype.kind == "c":
            raise UnsupportedError(f"np.nan{name}() of complex numba_ext arrays is not supported")
        if bool(_np.any(_np.logical_not(_np.logical_not(_np.isnan(a)).any(axis=axis)))):
            raise ValueError("All-NaN slice encountered")
        result: ndarray = getattr(_filled(a, fill), name)(axis=axis, keepdims=keep)
        return result

    reduce.__name__ = f"nan{name}"
    return reduce


def _float_dtype(a: ndarray, dtype: Any) -> np.dtype:
    if dtype is not None:
        return np.dtype(dtype)
    return a.dtype if a.dtype.kind in "fc" else np.dtype(np.float64)


def nanmean(
    a: ndarray,
    axis: Any = None,
    dtype: Any = None,
    out: Any = None,
    keepdims: Any = _NOVALUE,
    *,
    where: Any = _NOVALUE,
) -> ndarray:
    _check("nanmean", out, where=where)
    keep = _keep(keepdims)
    if not _has_nans(a):
        plain: ndarray = a.mean(axis=axis, dtype=dtype, keepdims=keep)
        return plain
    dt = _float_dtype(a, dtype)
    count = _count(a, axis, keep)
    _warn_if_any(_np.equal(count, 0), "Mean of empty slice")
    total = _filled(a, 0).sum(axis=axis, dtype=dt, keepdims=keep)
    result: ndarray = _np.true_divide(total, count).astype(dt, copy=False)
    return result


def nanvar(
    a: ndarray,
    axis: Any = None,
    dtype: Any = None,
    out: Any = None,
    ddof: float = 0,
    keepdims: Any = _NOVALUE,
    *,
    where: Any = _NOVALUE,
    mean: Any = _NOVALUE,
    correction: Any = _NOVALUE,
) -> ndarray:
    _check("nanvar", out, where=where)
    if mean is not _NOVALUE:
        raise UnsupportedError("np.nanvar(mean=) of numba_ext arrays is not supported")
    if correction is not _NOVALUE:
        ddof = correction
    keep = _keep(keepdims)
    if not _has_nans(a):
        plain: ndarray = a.var(axis=axis, dtype=dtype, ddof=ddof, keepdims=keep)
        return plain
    dt = _float_dtype(a, dtype)
    nan = _np.isnan(a)
    count = _np.logical_not(nan).sum(axis=axis, keepdims=True, dtype=np.int64)
    mean_ = _np.true_divide(_np.where(nan, 0, a).sum(axis=axis, dtype=dt, keepdims=True), count)
    dev = _np.where(nan, 0, _np.subtract(a, mean_))
    squares = _np.multiply(dev, _np.conjugate(dev)).real if a.dtype.kind == "c" else _np.multiply(dev, dev)
    dof = _np.subtract(count, ddof)
    bad = _np.less_equal(dof, 0)
    _warn_if_any(bad, "Degrees of freedom <= 0 for slice.")
    result = _np.where(
        bad, np.nan, _np.true_divide(squares.sum(axis=axis, keepdims=True), _np.maximum(dof, 1))
    )
    if not keep:
        axes = range(a.ndim) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
        reduced = {int(i) % a.ndim for i in axes} if a.ndim else set()
        result = result.reshape(tuple(n for i, n in enumerate(result.shape) if i not in reduced))
    out_dt = dt if dt.kind != "c" else np.dtype(dt.char.lower())
    final: ndarray = result.astype(out_dt, copy=False)
    return final


def nanstd(
    a: ndarray,
    axis: Any = None,
    dtype: Any = None,
    out: Any = None,
    ddof: float = 0,
    keepdims: Any = _NOVALUE,
    *,
    where: Any = _NOVALUE,
    mean: Any = _NOVALUE,
    correction: Any = _NOVALUE,
) -> ndarray:
    result: ndarray = _np.sqrt(
        nanvar(a, axis, dtype, out, ddof, keepdims, where=where, mean=mean, correction=correction)
    )
    return result


def _nan_scan(name: str, fill: float) -> Callable[..., ndarray]:
    def scan(a: ndarray, axis: Any = None, dtype: Any = None, out: Any = None) -> ndarray:
        _check(f"nan{name}", out)
        src = _filled(a, fill) if _has_nans(a) else a
        result: ndarray = getattr(_np, name)(src, axis=axis, dtype=dtype)
        return result

    scan.__name__ = f"nan{name}"
    return scan


NAN_FUNCTIONS: dict[Callable[..., Any], Callable[..., ndarray]] = {
    np.nansum: nansum,
    np.nanprod: nanprod,
    np.nanmin: _extremum("min", np.inf),
    np.nanmax: _extremum("max", -np.inf),
    np.nanargmin: _arg_extremum("argmin", np.inf),
    np.nanargmax: _arg_extremum("argmax", -np.inf),
    np.nanmean: nanmean,
    np.nanvar: nanvar,
    np.nanstd: nanstd,
    np.nancumsum: _nan_scan("cumsum", 0),
    np.nancumprod: _nan_scan("cumprod", 1),
}
