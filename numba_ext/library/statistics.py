"""Order statistics of numba_ext arrays on their device: ``np.median``, ``np.quantile`` and
``np.percentile`` with NumPy's values, dtypes and shapes.

The reduced axes are moved last and merged into one, the slices sorted along it on the device
(``sorting.sort``: NaNs last, as NumPy sorts them), and the order statistics gathered from the
sorted slices at positions found on the host from the slice length alone:

* ``np.median``: the mean of the one or two middle elements;
* ``np.quantile`` (and ``np.percentile``, its `q` divided by 100) with NumPy's methods but the
  three discontinuous ones of Hyndman and Fan (``inverted_cdf``, ``averaged_inverted_cdf``,
  ``closest_observation``): NumPy's virtual index (``(n - 1) * q`` for ``"linear"``, the default)
  and, for the methods that interpolate, NumPy's interpolation between its neighbours
  (``a + (b - a) * t``, or ``b - (b - a) * (1 - t)`` from ``t = 0.5`` on), in the result's dtype.

A slice holding a NaN gives NaN, as in NumPy (its last sorted element is then NaN). The result
dtype is NumPy's for the same array dtype and `q` (asked of NumPy with a one-element array, which
also gives NumPy's errors for data it refuses, such as complex or bool quantiles). ``out=`` and
``weights=`` are refused; ``overwrite_input`` is accepted and the input left as it is.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..arrays import asarray, asnumpy, ndarray
from ..errors import UnsupportedError
from ..ir.reductions import normalize_axis
from . import gather
from .sorting import sort

_np: Any = np  # NumPy's functions, untyped: on numba_ext arrays they dispatch to this library


def _array(name: str, a: Any) -> ndarray:
    if not isinstance(a, ndarray):
        raise TypeError(f"np.{name}: expected a numba_ext array, got {type(a).__name__}")
    return a


def _refuse(name: str, **given: Any) -> None:
    for keyword, value in given.items():
        if value is not None:
            raise UnsupportedError(
                f"np.{name}({keyword}=) of numba_ext arrays is not supported; use the array np.{name}(a) "
                "returns"
            )


def _axes(a: ndarray, axis: Any) -> tuple[int, ...]:
    """The reduced axes, normalized (all of them for None), NumPy's errors for bad ones."""
    if axis is None:
        return tuple(range(a.ndim))
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    normal = tuple(normalize_axis(ax, a.ndim) for ax in axes)
    if len(set(normal)) != len(normal):
        raise ValueError("repeated axis")
    return normal


def _slices(a: ndarray, axes: tuple[int, ...]) -> ndarray:
    """`a` with the kept axes first and the reduced ones merged into its last, sorted along it."""
    kept = [d for d in range(a.ndim) if d not in axes]
    moved = a.transpose([*kept, *axes]) if a.ndim else a.reshape(1)
    merged = moved.reshape((*(a.shape[d] for d in kept), math.prod(a.shape[d] for d in axes)))
    return sort(merged, axis=-1)


def _kept_shape(a: ndarray, axes: tuple[int, ...], keepdims: bool) -> tuple[int, ...]:
    return tuple(1 if d in axes else n for d, n in enumerate(a.shape) if keepdims or d not in axes)


def _nan_where_nan(result: ndarray, ordered: ndarray, width: int) -> ndarray:
    """`result` (the slices' statistics, `width` of them per slice, last; or one, no axis when
    `width` is 0) made NaN where a slice of `ordered` holds a NaN: its last element."""
    if ordered.dtype.kind not in "fc":
        return result
    last = ordered[..., -1]
    if width:
        last = last[..., None]
    found: ndarray = _np.where(_np.isnan(last), _np.astype(last, result.dtype), result)
    return found


def median(
    a: ndarray, axis: Any = None, out: Any = None, overwrite_input: bool = False, keepdims: bool = False
) -> ndarray:
    """np.median: the mean of the middle element(s) of each sorted slice (see the module)."""
    a = _array("median", a)
    _refuse("median", out=out)
    axes = _axes(a, axis)
    ordered = _slices(a, axes)
    n = ordered.shape[-1]
    if n == 0:
        middle = ordered  # NumPy's mean of an empty slice: NaN and its RuntimeWarning
    else:
        middle = ordered[..., (n - 1) // 2 : n // 2 + 1]
    result = _nan_where_nan(middle.mean(axis=-1), ordered, 0) if n else middle.mean(axis=-1)
    shaped: ndarray = result.reshape(_kept_shape(a, axes, keepdims))
    return shaped


def _host_q(q: Any) -> np.ndarray:
    return asnumpy(q) if isinstance(q, ndarray) else np.asanyarray(q)


#: NumPy's (alpha, beta) of the methods that interpolate between neighbours of a virtual index
#: ``n * q + alpha + q * (1 - alpha - beta) - 1``
_CONTINUOUS = {
    "linear": (1.0, 1.0),
    "weibull": (0.0, 0.0),
    "hazen": (0.5, 0.5),
    "interpolated_inverted_cdf": (0.0, 1.0),
    "median_unbiased": (1 / 3, 1 / 3),
    "normal_unbiased": (3 / 8, 3 / 8),
}
#: the methods of ``np.quantile`` computed on the device
METHODS = (*_CONTINUOUS, "lower", "higher", "nearest", "midpoint")


def _positions(n: int, q: np.ndarray, method: str) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """NumPy's positions in a sorted slice of length `n` for the quantiles `q` (1-d, float64): the
    positions taken (`method` without interpolation) or the lower ones, and for interpolation the
    upper ones and the weights of the upper ones; computed as NumPy computes them."""
    linear = (n - 1) * q
    if method == "lower":
        return np.floor(linear).astype(np.int64), None, None
    if method == "higher":
        return np.ceil(linear).astype(np.int64), None, None
    if method == "nearest":
        return np.around(linear).astype(np.int64), None, None
    if method == "midpoint":
        virtual = 0.5 * (np.floor(linear) + np.ceil(linear))
    elif method == "linear":
        virtual = linear
    else:
        alpha, beta = _CONTINUOUS[method]
        virtual = n * q + (alpha + q * (1 - alpha - beta)) - 1
    low = np.floor(virtual)
    high = low + 1
    above, below = virtual >= n - 1, virtual < 0
    low[above] = high[above] = -1
    low[below] = high[below] = 0
    gamma = virtual - low
    if method == "midpoint":
        gamma = np.where(virtual % 1 == 0, 0.0, 0.5)
    low[above] = high[above] = n - 1  # NumPy's -1: the last
    return low.astype(np.int64), high.astype(np.int64), gamma


def _quantiles(
    name: str,
    a: ndarray,
    q: Any,
    fraction: np.ndarray,
    dtype: np.dtype,
    axis: Any,
    method: str,
    keepdims: bool,
) -> ndarray:
    """The quantiles `fraction` (host, any shape, in [0, 1]) of `a` over `axis` in `dtype`."""
    axes = _axes(a, axis)
    ordered = _slices(a, axes)
    n = ordered.shape[-1]
    if n == 0:
        raise IndexError(f"np.{name} of an empty slice: index -1 is out of bounds for axis 0 with size 0")
    qs = fraction.astype(np.float64).reshape(-1)
    low, high, gamma = _positions(n, qs, method)

    def taken(positions: np.ndarray) -> ndarray:
        index = asarray(positions, sycl_queue=a.sycl_queue, usm_type=a.usm_type)
        values: ndarray = gather.take(ordered, index, axis=-1)
        return values

    if high is None:
        result = _np.astype(taken(low), dtype)
    else:
        assert gamma is not None
        raw_below, raw_above = taken(low), taken(high)
        # NumPy subtracts in the array's float dtype (integers: exactly, here in the result's)
        step = _np.subtract(raw_above, raw_below) if a.dtype.kind == "f" else None
        below, above = _np.astype(raw_below, dtype), _np.astype(raw_above, dtype)
        step = _np.subtract(above, below) if step is None else _np.astype(step, dtype)
        t = asarray(gamma.astype(dtype), sycl_queue=a.sycl_queue, usm_type=a.usm_type)
        rest = asarray((1 - gamma).astype(dtype), sycl_queue=a.sycl_queue, usm_type=a.usm_type)
        upper = asarray(gamma >= 0.5, sycl_queue=a.sycl_queue, usm_type=a.usm_type)
        result = _np.where(
            upper, _np.subtract(above, _np.multiply(step, rest)), _np.add(below, _np.multiply(step, t))
        )
    result = _np.astype(_nan_where_nan(result, ordered, len(qs)), dtype)
    kept = _kept_shape(a, axes, keepdims)
    if fraction.ndim == 0:
        shaped: ndarray = result.reshape(kept)
        return shaped
    front = _np.moveaxis(result, -1, 0) if result.ndim > 1 else result
    shaped = front.reshape(fraction.shape + kept)
    return shaped


def _quantile_function(name: str, scale: float) -> Callable[..., ndarray]:
    def fn(
        a: ndarray,
        q: Any,
        axis: Any = None,
        out: Any = None,
        overwrite_input: bool = False,
        method: str = "linear",
        keepdims: bool = False,
        *,
        weights: Any = None,
        interpolation: Any = None,
    ) -> ndarray:
        a = _array(name, a)
        _refuse(name, out=out, weights=weights, interpolation=interpolation)
        host = _host_q(q)
        sample = np.zeros(1, a.dtype)
        reference = getattr(np, name)
        # NumPy's checks of q and the method, its errors for the array's dtype and its result dtype
        dtype = reference(sample, host if isinstance(q, ndarray) else q, method=method).dtype
        if method not in METHODS:
            raise UnsupportedError(
                f"np.{name}(method={method!r}) of numba_ext arrays is not supported; the methods are "
                + ", ".join(METHODS)
            )
        fraction = np.true_divide(host, scale) if scale != 1 else host
        return _quantiles(name, a, q, np.asarray(fraction), np.dtype(dtype), axis, method, keepdims)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"np.{name} on the device (see the module)."
    return fn


quantile = _quantile_function("quantile", 1.0)
percentile = _quantile_function("percentile", 100.0)

STATISTICS_FUNCTIONS: dict[Callable[..., Any], Callable[..., ndarray]] = {
    np.median: median,
    np.quantile: quantile,
    np.percentile: percentile,
}
