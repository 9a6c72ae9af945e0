"""Order statistics of numba_ext arrays on their device: ``np.median``, ``np.quantile``,
``np.percentile`` and their NaN-ignoring forms (``np.nanmedian``, ``np.nanquantile``,
``np.nanpercentile``) with NumPy's values, dtypes and shapes; and ``np.average``, ``np.cov``,
``np.corrcoef`` and ``np.interp`` composed from the library's operations (see each).

The reduced axes are moved last and merged into one, the slices sorted along it on the device
(``sorting.sort``: NaNs last, as NumPy sorts them), and the order statistics gathered from the
sorted slices at positions found on the host from the slice length alone:

* ``np.median``: the mean of the one or two middle elements;
* ``np.quantile`` (and ``np.percentile``, its `q` divided by 100) with NumPy's methods but the
  three discontinuous ones of Hyndman and Fan (``inverted_cdf``, ``averaged_inverted_cdf``,
  ``closest_observation``): NumPy's virtual index (``(n - 1) * q`` for ``"linear"``, the default)
  and, for the methods that interpolate, NumPy's interpolation between its neighbours
  (``a + (b - a) * t``, or ``b - (b - a) * (1 - t)`` from ``t = 0.5`` on), in the result's dtype.

A slice holding a NaN gives NaN, as in NumPy (its last sorted element is then NaN). The
NaN-ignoring forms count each slice's values that are not NaN (sorted first) and compute the
positions from that count on the device; a slice of NaNs only gives NaN with NumPy's
RuntimeWarning. Arrays of no element get NumPy's own result (and warnings or errors). The result
dtype is NumPy's for the same array dtype and `q` (asked of NumPy with a one-element array, which
also gives NumPy's errors for data it refuses, such as complex or bool quantiles). ``out=`` and
``weights=`` are refused; ``overwrite_input`` is accepted and the input left as it is.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ..arrays import allocate, asarray, asnumpy, ndarray
from ..arrays.reductions import operand, whole_groups
from ..errors import UnsupportedError
from ..ir.interpolation import interp_function
from ..ir.reductions import normalize_axis
from ..placement import coerce_usm_types, execution_queue
from . import gather, selection
from .compiled import kernel as _kernel
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
    if a.size == 0:
        return _empty(np.median, a, axis=axis, keepdims=keepdims)
    n = math.prod(a.shape[d] for d in axes)
    middle_ranks = sorted({(n - 1) // 2, n // 2})
    if len(axes) == a.ndim and selection.applies(a, 2) and not selection.has_nan(a):
        result = selection.order_statistics(a, middle_ranks).mean(axis=-1)  # no sort
    else:
        ordered = _slices(a, axes)
        middle = ordered[..., middle_ranks[0] : middle_ranks[-1] + 1]
        result = _nan_where_nan(middle.mean(axis=-1), ordered, 0)
    shaped: ndarray = result.reshape(_kept_shape(a, axes, keepdims))
    return shaped


def nanmedian(
    a: ndarray, axis: Any = None, out: Any = None, overwrite_input: bool = False, keepdims: bool = False
) -> ndarray:
    """np.nanmedian: the median of the values of each slice that are not NaN (NaN, with NumPy's
    warning, where there is none)."""
    a = _array("nanmedian", a)
    _refuse("nanmedian", out=out)
    if a.dtype.kind != "f":
        return median(a, axis=axis, keepdims=keepdims)
    axes = _axes(a, axis)
    if a.size == 0:
        return _empty(np.nanmedian, a, axis=axis, keepdims=keepdims)
    ordered = _slices(a, axes)
    counts = _np.astype(_counts(ordered), np.int64)
    low = _np.maximum(_np.floor_divide(_np.subtract(counts, 1), 2), 0)
    high = _np.floor_divide(counts, 2)
    high = _np.where(_np.equal(counts, 0), 0, high)  # slices of NaNs only: their first value, NaN
    pair = gather.take_along_axis(ordered, _np.concatenate([low, high], axis=-1), axis=-1)
    one, two = pair[..., 0], pair[..., 1]
    result = _np.where(_np.equal(low, high)[..., 0], one, _np.true_divide(_np.add(one, two), 2))
    shaped: ndarray = _np.astype(result, a.dtype).reshape(_kept_shape(a, axes, keepdims))
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


def _positions(n: Any, q: Any, method: str, xp: Any) -> tuple[Any, Any, Any]:
    """NumPy's positions in sorted slices of length `n` (an int, or a float64 array of one per
    slice and a last axis of one) for the quantiles `q` (float64, 1-d), computed with `xp` (NumPy
    on the host, or on numba_ext arrays the device) in NumPy's order of operations: the positions
    taken (`method` without interpolation) or the lower ones, and for interpolation the upper ones
    and the weights of the upper ones (else None)."""
    linear = (n - 1) * q
    if method in ("lower", "higher", "nearest"):
        rounded = {"lower": xp.floor, "higher": xp.ceil, "nearest": xp.around}[method](linear)
        return xp.astype(rounded, np.int64), None, None
    if method == "midpoint":
        virtual = 0.5 * (xp.floor(linear) + xp.ceil(linear))
    elif method == "linear":
        virtual = linear
    else:
        alpha, beta = _CONTINUOUS[method]
        virtual = n * q + (alpha + q * (1 - alpha - beta)) - 1
    below = xp.floor(virtual)
    above, under = virtual >= n - 1, virtual < 0
    low = xp.where(above, -1.0, xp.where(under, 0.0, below))
    gamma = virtual - low
    if method == "midpoint":
        gamma = xp.where(virtual % 1 == 0, 0.0, 0.5)
    last = xp.where(above, n - 1, low)  # NumPy's -1: the last
    high = xp.where(above, n - 1, xp.where(under, 0.0, below + 1))
    return xp.astype(last, np.int64), xp.astype(high, np.int64), gamma


def _on_device(a: ndarray, host: np.ndarray) -> ndarray:
    return asarray(host, sycl_queue=a.sycl_queue, usm_type=a.usm_type)


def _counts(ordered: ndarray) -> ndarray:
    """The number of values that are not NaN in each slice of `ordered` (float64, a last axis of
    one), after NumPy's warning where a slice has none."""
    counts: ndarray = _np.logical_not(_np.isnan(ordered)).sum(axis=-1, keepdims=True, dtype=np.int64)
    if bool(_np.any(_np.equal(counts, 0))):
        warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=4)
    result: ndarray = _np.astype(counts, np.float64)
    return result


def _quantiles(
    a: ndarray,
    fraction: np.ndarray,
    dtype: np.dtype,
    axes: tuple[int, ...],
    method: str,
    keepdims: bool,
    nan: bool,
) -> ndarray:
    """The quantiles `fraction` (host, any shape, in [0, 1]) of `a` (at least one element in each
    slice) over `axes` in `dtype`; `nan`: of the values that are not NaN. Over every axis of a
    large real array without NaN, the order statistics needed are selected rather than sorted."""
    qs = fraction.astype(np.float64).reshape(-1)
    selected = False
    if not nan and len(axes) == a.ndim and a.dtype.kind != "c":
        low, high, gamma = _positions(a.size, qs, method, np)
        ranks = np.unique(np.concatenate([low, low if high is None else high]))
        selected = selection.applies(a, ranks.size) and not selection.has_nan(a)
    if selected:
        values = selection.order_statistics(a, ranks.tolist())
        ordered = values  # no NaN: never read for NaNs

        def taken(positions: Any) -> ndarray:
            picked: ndarray = gather.take(values, _on_device(a, np.searchsorted(ranks, positions)))
            return picked

    elif nan:
        ordered = _slices(a, axes)  # positions per slice, from its count
        low, high, gamma = _positions(_counts(ordered), _on_device(a, qs), method, _np)
        low = _np.maximum(low, 0)  # slices of NaNs only (their values are NaN)
        high = None if high is None else _np.maximum(high, 0)

        def taken(positions: Any) -> ndarray:
            values: ndarray = gather.take_along_axis(ordered, positions, axis=-1)
            return values

    else:
        ordered = _slices(a, axes)
        low, high, gamma = _positions(ordered.shape[-1], qs, method, np)

        def taken(positions: Any) -> ndarray:
            values: ndarray = gather.take(ordered, _on_device(a, positions), axis=-1)
            return values

    if high is None:
        result = _np.astype(taken(low), dtype)
    else:
        raw_below, raw_above = taken(low), taken(high)
        # NumPy subtracts in the array's float dtype (integers: exactly, here in the result's)
        step = _np.subtract(raw_above, raw_below) if a.dtype.kind == "f" else None
        below, above = _np.astype(raw_below, dtype), _np.astype(raw_above, dtype)
        step = _np.subtract(above, below) if step is None else _np.astype(step, dtype)
        if not nan:
            gamma = _on_device(a, gamma)
        t = _np.astype(gamma, dtype)
        rest = _np.astype(1 - gamma, dtype)
        result = _np.where(
            gamma >= 0.5, _np.subtract(above, _np.multiply(step, rest)), _np.add(below, _np.multiply(step, t))
        )
    if not nan and not selected:
        result = _nan_where_nan(result, ordered, len(qs))
    result = _np.astype(result, dtype)
    kept = _kept_shape(a, axes, keepdims)
    if fraction.ndim == 0:
        shaped: ndarray = result.reshape(kept)
        return shaped
    front = _np.moveaxis(result, -1, 0) if result.ndim > 1 else result
    shaped = front.reshape(fraction.shape + kept)
    return shaped


def _empty(reference: Callable[..., Any], a: ndarray, *args: Any, **kwargs: Any) -> ndarray:
    """NumPy's result for an `a` of no element (its shape, dtype, warnings and errors), on the
    array's queue."""
    return _on_device(a, np.asarray(reference(np.empty(a.shape, a.dtype), *args, **kwargs)))


def _quantile_function(name: str, scale: float) -> Callable[..., ndarray]:
    reference = getattr(np, name)
    nan = name.startswith("nan")

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
        given = host if isinstance(q, ndarray) else q
        # NumPy's checks of q and the method, its errors for the array's dtype and its result dtype
        dtype = np.dtype(reference(np.zeros(1, a.dtype), given, method=method).dtype)
        if method not in METHODS:
            raise UnsupportedError(
                f"np.{name}(method={method!r}) of numba_ext arrays is not supported; the methods are "
                + ", ".join(METHODS)
            )
        axes = _axes(a, axis)
        if a.size == 0:
            return _empty(reference, a, given, axis=axis, method=method, keepdims=keepdims)
        fraction = np.asarray(np.true_divide(host, scale) if scale != 1 else host)
        return _quantiles(a, fraction, dtype, axes, method, keepdims, nan and a.dtype.kind == "f")

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"np.{name} on the device (see the module)."
    return fn


quantile = _quantile_function("quantile", 1.0)
percentile = _quantile_function("percentile", 100.0)
nanquantile = _quantile_function("nanquantile", 1.0)
nanpercentile = _quantile_function("nanpercentile", 100.0)


# -- averages, covariances and interpolation ---------------------------------------------------------
def average(
    a: ndarray, axis: Any = None, weights: Any = None, returned: bool = False, *, keepdims: bool = False
) -> Any:
    """np.average: the mean, or with `weights` (of `a`'s shape, or 1-d along an int `axis`) the
    weighted sum over the sum of the weights, in NumPy's result dtype; `returned` adds the sum
    of the weights (the count without weights) broadcast to the result's shape."""
    a = _array("average", a)
    if weights is None:
        avg = a.mean(axis=axis, keepdims=keepdims)
        scale = avg.dtype.type(a.size / avg.size)  # NumPy's ZeroDivisionError for no result element
        if not returned:
            return avg
        return avg, _np.full_like(avg, scale)
    w = weights if isinstance(weights, ndarray) else _on_device(a, np.asarray(weights))
    execution_queue([("a", a), ("weights", w)])
    dtype = (
        np.result_type(a.dtype, w.dtype, "f8") if a.dtype.kind in "iub" else np.result_type(a.dtype, w.dtype)
    )
    if w.shape != a.shape:
        if axis is None:
            raise TypeError("Axis must be specified when shapes of a and weights differ.")
        if w.ndim != 1:
            raise TypeError("1D weights expected when shapes of a and weights differ.")
        ax = normalize_axis(axis, a.ndim)
        if w.shape[0] != a.shape[ax]:
            raise ValueError("Length of weights not compatible with specified axis.")
        w = w.reshape((1,) * ax + (w.shape[0],) + (1,) * (a.ndim - ax - 1))
        w = _np.broadcast_to(w, a.shape)
    scale = w.sum(axis=axis, dtype=dtype, keepdims=keepdims)
    if bool(_np.any(_np.equal(scale, 0.0))):
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    avg = _np.true_divide(_np.multiply(a, w, dtype=dtype).sum(axis=axis, keepdims=keepdims), scale)
    if not returned:
        return avg
    return avg, (scale if scale.shape == avg.shape else _np.broadcast_to(scale, avg.shape).copy())


def _variables(m: Any, rowvar: bool, dtype: Any, queue_of: ndarray) -> ndarray:
    """`m` as a 2-d array of variables in rows (NumPy's ``np.cov`` conversion), of `dtype`."""
    x = m if isinstance(m, ndarray) else _on_device(queue_of, np.asarray(m))
    if x.ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    x = _np.astype(_np.atleast_2d(x), dtype)
    if not rowvar and x.shape[0] != 1:
        x = x.T
    return x


def cov(
    m: Any,
    y: Any = None,
    rowvar: bool = True,
    bias: bool = False,
    ddof: Any = None,
    fweights: Any = None,
    aweights: Any = None,
    *,
    dtype: Any = None,
) -> ndarray:
    """np.cov without weights: the rows (`rowvar`) or columns of `m` (and `y`) as variables, their
    deviations from their means multiplied on the device, divided by ``n - ddof`` (``ddof`` 1, or
    0 with `bias`); one variable gives a 0-d result, as NumPy's squeeze does."""
    _refuse("cov", fweights=fweights, aweights=aweights)
    first = m if isinstance(m, ndarray) else y
    arrays = [("m", m)] + ([("y", y)] if isinstance(y, ndarray) else [])
    execution_queue([(n, v) for n, v in arrays if isinstance(v, ndarray)])
    if ddof is not None and ddof != int(ddof):
        raise ValueError("ddof must be integer")
    if dtype is None:
        dtype = np.result_type(m.dtype if isinstance(m, ndarray) else np.asarray(m), np.float64)
        if y is not None:
            dtype = np.result_type(dtype, y.dtype if isinstance(y, ndarray) else np.asarray(y))
    x = _variables(m, rowvar, dtype, first)
    if y is not None:
        x = _np.concatenate([x, _variables(y, rowvar, dtype, first)], axis=0)
    if ddof is None:
        ddof = 0 if bias else 1
    n = x.shape[1]
    fact = n - ddof
    if fact <= 0:
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=3)
        fact = 0.0
    deviations = _np.subtract(x, x.mean(axis=1, keepdims=True))
    product = deviations @ _np.conjugate(deviations).T
    c: ndarray = _np.multiply(product, float(np.true_divide(1, fact)))  # in the product's dtype
    return _np.squeeze(c) if c.size == 1 else c


def corrcoef(x: Any, y: Any = None, rowvar: bool = True, *, dtype: Any = None) -> ndarray:
    """np.corrcoef: the covariances divided by the products of the standard deviations, their real
    (and imaginary) parts clipped to [-1, 1] as NumPy clips them."""
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:
        result: ndarray = _np.true_divide(c, c)  # NumPy's c / c of one variable
        return result
    stddev = _np.sqrt(c.diagonal().real)
    c = _np.true_divide(_np.true_divide(c, stddev[:, None]), stddev[None, :])
    if c.dtype.kind == "c":
        clipped: ndarray = _complex(_np.clip(c.real, -1, 1), _np.clip(c.imag, -1, 1), c)
        return clipped
    result = _np.clip(c, -1, 1)
    return result


def _complex(real: ndarray, imag: ndarray, like: ndarray) -> ndarray:
    result: ndarray = _np.empty_like(like)
    result.real[...] = real
    result.imag[...] = imag
    return result


def interp(x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None, period: Any = None) -> ndarray:
    """np.interp on the device: the interval of each `x` among the increasing `xp` found by a
    binary search, then NumPy's formula and its special cases (`x` at a sample point gives its
    `fp`, a NaN from an infinite slope the other endpoint's form, `left` and `right` outside), in
    float64: one kernel (``ir.interpolation``). Host data among the arguments is copied to the
    queue of the numba_ext ones."""
    _refuse("interp", period=period)
    px, pxp, pfp = gather.on_common_queue(x, xp, fp, names=("x", "xp", "fp"))
    if pfp.dtype.kind == "c":
        raise UnsupportedError(
            "np.interp of complex fp on numba_ext arrays is not supported; interpolate .real and .imag"
        )
    for sample in (pfp, pxp):  # NumPy's errors, fp's first
        if sample.ndim != 1:
            depth = "of too small depth" if sample.ndim == 0 else "too deep"
            raise ValueError(f"object {depth} for desired array")
    if pxp.shape[0] == 0:
        raise ValueError("array of sample points is empty")
    if pxp.shape[0] != pfp.shape[0]:
        raise ValueError("fp and xp are not of the same length.")
    f8 = np.float64
    px, pxp, pfp = _np.astype(px, f8), _np.astype(pxp, f8), _np.astype(pfp, f8)
    n = pxp.shape[0]
    first, last = pfp[0], pfp[n - 1]
    low = first if left is None else f8(left)
    high = last if right is None else f8(right)
    if n == 1:  # NumPy's one sample point gives its value for NaN too
        j = _np.subtract(_np.searchsorted(pxp, px, side="right"), 1)  # xp[0] <= x
        result = _np.where(_np.less(j, 0), low, _np.broadcast_to(first, px.shape))
        found: ndarray = _np.where(_np.greater(px, pxp[0]), high, result)
        return found
    queue = px._queue
    usm_type = coerce_usm_types([px.usm_type, pxp.usm_type, pfp.usm_type]) or px.usm_type
    points = px.reshape(-1) if px.flags.c_contiguous else px.copy().reshape(-1)
    samples = [v if v.flags.c_contiguous else v.copy() for v in (pxp, pfp)]
    edges = _np.concatenate([_np.reshape(asarray(v, sycl_queue=queue), (1,)) for v in (low, high)])
    out = allocate((points.size,), np.dtype(f8), queue, usm_type)
    if points.size:
        kernel = _kernel(("interp",), interp_function, queue.device)
        slots = [*operand(points)[0], *operand(samples[0])[0], *operand(samples[1])[0], *operand(edges)[0]]
        work_items, local = whole_groups(points.size, queue.device)
        kernel.launch_nd(queue, [*slots, out._data_ptr, points.size, 0], [work_items], local, wait=False)
    return out.reshape(px.shape)


STATISTICS_FUNCTIONS: dict[Callable[..., Any], Callable[..., Any]] = {
    np.median: median,
    np.quantile: quantile,
    np.percentile: percentile,
    np.nanmedian: nanmedian,
    np.nanquantile: nanquantile,
    np.nanpercentile: nanpercentile,
    np.average: average,
    np.cov: cov,
    np.corrcoef: corrcoef,
    np.interp: interp,
}
