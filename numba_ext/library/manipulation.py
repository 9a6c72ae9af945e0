"""NumPy's array manipulation, statistics and comparison functions on numba_ext arrays, computed on
the arrays' queue:

* views, made by NumPy on the array's descriptor (which holds the addresses, never read on the
  host): ``np.ravel``, ``np.squeeze``, ``np.swapaxes``, ``np.moveaxis``, ``np.expand_dims``,
  ``np.broadcast_to``, ``np.diagonal``, ``np.matrix_transpose``, ``np.fliplr``, ``np.flipud``,
  ``np.rot90``;
* copies on the device: assignment of one array into a view of another (``x[k] = y``),
  ``np.concatenate`` and ``np.stack``, ``np.astype``;
* ``np.var`` and ``np.std`` as NumPy computes them (the mean, the squared deviations, their sum
  over the count less ``ddof``), ``np.round`` (scaled, rounded to even, scaled back), ``np.isclose``
  and ``np.allclose``, ``np.roll``, ``np.diff``, ``np.outer``, ``np.trace``, ``np.linalg.norm``
  (the orders reductions give), ``np.count_nonzero``, ``np.array_equal`` and ``np.array_equiv``,
  each from the eager operations;
* ``np.atleast_1d``/``2d``/``3d`` as views, through which NumPy's own ``np.hstack``, ``np.vstack``
  and ``np.dstack`` run.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..arrays import allocate, hooks, ndarray
from ..errors import ExecutionPlacementError, UnsupportedError
from ..ir.reductions import normalize_axis
from ..placement import coerce_usm_types, execution_queue
from . import elementwise


# -- assignment on the device ----------------------------------------------------------------------
def device_assignable(dst: ndarray, src: Any) -> bool:
    """Whether ``dst[...] = src`` runs on the device: `src` a numba_ext array on a queue equivalent
    to `dst`'s, of no more dimensions, broadcasting to `dst`'s shape, whose dtype casts to `dst`'s
    with 'same_kind' casting (other assignments go through the host, as NumPy's rules need)."""
    return (
        isinstance(src, ndarray)
        and (src._queue is dst._queue or src._queue.equivalent(dst._queue))
        and src.ndim <= dst.ndim
        and np.can_cast(src.dtype, dst.dtype, casting="same_kind")
        and _broadcasts_to(src.shape, dst.shape)
    )


def _broadcasts_to(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    tail = target[len(target) - len(shape) :]
    return all(s == t or s == 1 for s, t in zip(shape, tail))


def copy_into(dst: ndarray, src: ndarray) -> None:
    """`src` broadcast to `dst`'s shape and cast to its dtype, written into `dst` (any strides) by one
    kernel on `dst`'s queue (``device_assignable`` holds). Where the two share memory, `src` is
    copied first, so the result is NumPy's (``x[1:] = x[:-1]``)."""
    if np.may_share_memory(dst._desc, src._desc):  # the descriptors hold the device addresses
        src = src.copy()
    elementwise.assign(dst, src)


# -- views -----------------------------------------------------------------------------------------
def _view_function(fn: Callable[..., np.ndarray]) -> Callable[..., ndarray]:
    """NumPy's `fn` applied to a numba_ext array's descriptor: the same view of its memory (NumPy's
    argument checks and errors)."""

    def view(a: ndarray, *args: Any, **kwargs: Any) -> ndarray:
        if not isinstance(a, ndarray):
            raise TypeError(f"np.{fn.__name__}: expected a numba_ext array, got {type(a).__name__}")
        return a._view(fn(a._desc, *args, **kwargs))

    view.__name__ = fn.__name__
    return view


def ravel(a: ndarray, order: Any = "C") -> ndarray:
    """np.ravel: a view where the layout allows one, else a copy."""
    if order in ("K", "k"):
        raise UnsupportedError(
            "np.ravel(order='K') is not supported on numba_ext arrays; use 'C', 'F' or 'A'"
        )
    return a.reshape(-1, order=order)


# -- copies ----------------------------------------------------------------------------------------
def _arrays(name: str, arrays: Any) -> list[ndarray]:
    """The arrays of a sequence argument: numba_ext arrays on one execution queue."""
    if isinstance(arrays, ndarray) or not isinstance(arrays, (list, tuple)):
        raise TypeError(f"np.{name}: the arrays must be given as a list or tuple of numba_ext arrays")
    if not arrays:
        raise ValueError("need at least one array to concatenate")
    foreign = [i for i, a in enumerate(arrays) if not isinstance(a, ndarray)]
    if foreign:
        raise ExecutionPlacementError(
            f"np.{name} mixes numba_ext arrays with host data (position(s) {foreign}); the queue of host "
            "data cannot be inferred (compute follows data). Convert it first with "
            "numba_ext.asarray(x, sycl_queue=<the arrays' queue>)"
        )
    return list(arrays)


def concatenate(
    arrays: Sequence[ndarray],
    axis: Any = 0,
    out: Any = None,
    *,
    dtype: Any = None,
    casting: Any = "same_kind",
) -> ndarray:
    """np.concatenate: a new array on the arrays' execution queue with the USM type they coerce to,
    each array copied into its part by a kernel."""
    if out is not None:
        raise UnsupportedError("np.concatenate on numba_ext arrays takes no out=; assign the result")
    parts = _arrays("concatenate", arrays)
    if axis is None:
        parts, axis = [p.reshape(-1) for p in parts], 0
    first = parts[0]
    if first.ndim == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    ax = normalize_axis(operator.index(axis), first.ndim)
    for i, p in enumerate(parts[1:], 1):
        if p.ndim != first.ndim:
            raise ValueError(
                "all the input array dimensions except for the concatenation axis must match exactly, "
                f"but the array at index 0 has {first.ndim} dimension(s) and the array at index {i} has "
                f"{p.ndim} dimension(s)"
            )
        for d in range(first.ndim):
            if d != ax and p.shape[d] != first.shape[d]:
                raise ValueError(
                    "all the input array dimensions except for the concatenation axis must match "
                    f"exactly, but along dimension {d}, the array at index 0 has size {first.shape[d]} "
                    f"and the array at index {i} has size {p.shape[d]}"
                )
    dt = np.result_type(*(p.dtype for p in parts)) if dtype is None else np.dtype(dtype)
    for p in parts:
        if not np.can_cast(p.dtype, dt, casting=casting):
            raise TypeError(
                f"Cannot cast array data from dtype({p.dtype.name!r}) to dtype({dt.name!r}) according "
                f"to the rule {casting!r}"
            )
    queue = execution_queue([(f"array {i}", p) for i, p in enumerate(parts)])
    usm_type = coerce_usm_types([p.usm_type for p in parts]) or first.usm_type
    shape = list(first.shape)
    shape[ax] = sum(p.shape[ax] for p in parts)
    result = allocate(tuple(shape), dt, queue, usm_type)
    start = 0
    for p in parts:
        stop = start + p.shape[ax]
        piece = result[(slice(None),) * ax + (slice(start, stop),)]
        if p.size:
            if p.dtype.kind == "c" and dt.kind != "c":  # unsafe casting only: NumPy drops the imaginary part
                p = p.real
            if np.can_cast(p.dtype, dt, casting="same_kind"):
                copy_into(piece, p)
            else:
                copy_into(piece, p.astype(dt))
        start = stop
    return result


def stack(
    arrays: Sequence[ndarray],
    axis: Any = 0,
    out: Any = None,
    *,
    dtype: Any = None,
    casting: Any = "same_kind",
) -> ndarray:
    """np.stack: the arrays (of one shape) along a new axis."""
    parts = _arrays("stack", arrays)
    shapes = {p.shape for p in parts}
    if len(shapes) != 1:
        raise ValueError("all input arrays must have the same shape")
    ax = normalize_axis(operator.index(axis), parts[0].ndim + 1)
    expanded = [p._view(np.expand_dims(p._desc, ax)) for p in parts]
    return concatenate(expanded, ax, out, dtype=dtype, casting=casting)


def astype(x: ndarray, dtype: Any, /, *, copy: bool = True, device: Any = None) -> ndarray:
    """np.astype (the array API's form): `x` as `dtype` on its own queue."""
    if not isinstance(x, ndarray):
        raise TypeError(f"np.astype: expected a numba_ext array, got {type(x).__name__}")
    if device is not None and device != x.device and device != x.sycl_queue:
        raise UnsupportedError("np.astype(device=) must be the array's own device; use x.to_device(...)")
    return x.astype(dtype, copy=copy)


# -- statistics, rounding, comparison --------------------------------------------------------------
def _unsupported_keywords(name: str, **given: Any) -> None:
    used = sorted(k for k, v in given.items() if v is not None and v is not np._NoValue)
    if used:
        raise UnsupportedError(f"np.{name} on numba_ext arrays does not take {', '.join(used)}")


def var(
    a: ndarray,
    axis: Any = None,
    dtype: Any = None,
    out: Any = None,
    ddof: Any = 0,
    keepdims: bool = False,
    *,
    where: Any = np._NoValue,
    mean: Any = np._NoValue,
    correction: Any = np._NoValue,
) -> ndarray:
    """np.var as NumPy computes it: the mean (float64 for integer and bool data), the deviations,
    their squared magnitudes summed, over the count less `ddof` (NaN, or inf, where that is not
    positive)."""
    _unsupported_keywords("var", out=out, where=where, mean=mean)
    if correction is not np._NoValue:
        if ddof != 0:
            raise ValueError("ddof and correction can't be provided simultaneously.")
        ddof = correction
    mean_dtype = dtype
    if dtype is None and a.dtype.kind in "biu":
        mean_dtype = np.float64
    axes = tuple(range(a.ndim)) if axis is None else axis if isinstance(axis, tuple) else (axis,)
    axes = tuple(normalize_axis(operator.index(d), a.ndim) for d in axes)
    count = 1
    for d in axes:
        count *= a.shape[d]
    data: Any = a  # (mypy does not see the operators ArrayOperators gets by setattr)
    centre = data.mean(axis=axes, dtype=mean_dtype, keepdims=True)
    deviation = data - centre
    squares = (deviation * deviation.conj()).real if deviation.dtype.kind == "c" else deviation * deviation
    total = squares.sum(axis=axes, dtype=dtype, keepdims=keepdims)
    return total / max(count - ddof, 0)


def std(a: Any, *args: Any, **kwargs: Any) -> Any:
    """np.std (np.var's arguments): the square root of np.var."""
    return np.sqrt(var(a, *args, **kwargs))


def round_(a: Any, decimals: Any = 0, out: Any = None) -> Any:
    """np.round / np.around as NumPy computes it: the data scaled by a power of ten, rounded to the
    nearest even integer and scaled back (integers through float64 and back, so ``round(25, -1)``
    is 20; bools to float16, and only to 0 decimals, as NumPy's; complex values part by part)."""
    _unsupported_keywords("round", out=out)
    d = operator.index(decimals)
    if a.dtype.kind == "c":  # each part on its own, as NumPy's
        result = allocate(a.shape, a.dtype, a._queue, a.usm_type)
        result.real[...] = round_(a.real, d)
        result.imag[...] = round_(a.imag, d)
        return result
    if a.dtype.kind == "b":
        if d:
            raise TypeError(
                f"np.round of a bool array to {d} decimals: NumPy cannot cast the scaled float64 values "
                "back to bool (casting rule 'same_kind')"
            )
        return np.rint(a)
    if a.dtype.kind in "iu":
        if d >= 0:
            return a.copy()
        scale = 10.0**-d
        return (np.rint(a / scale) * scale).astype(a.dtype)
    if d == 0:
        return np.rint(a)
    scale = 10.0 ** abs(d)
    return np.rint(a * scale) / scale if d > 0 else np.rint(a / scale) * scale


def isclose(a: Any, b: Any, rtol: Any = 1e-05, atol: Any = 1e-08, equal_nan: bool = False) -> ndarray:
    """np.isclose as NumPy 2 computes it: ``|a - b| <= atol + rtol * |b|`` where `b` is finite, or
    ``a == b``; NaNs equal each other with `equal_nan`. `b` computes in its float dtype."""
    if isinstance(b, ndarray):
        b = b.astype(np.result_type(b.dtype, 1.0), copy=False)
    elif type(b) is int:
        b = float(b)
    close = (abs(a - b) <= atol + rtol * abs(b)) & np.isfinite(b) | (a == b)
    if equal_nan:
        close = close | (np.isnan(a) & np.isnan(b))
    return close


def allclose(a: Any, b: Any, rtol: Any = 1e-05, atol: Any = 1e-08, equal_nan: bool = False) -> bool:
    """np.allclose: whether np.isclose holds everywhere (a Python bool, as NumPy's)."""
    return bool(isclose(a, b, rtol, atol, equal_nan).all())


def atleast_nd(ndim: int) -> Callable[..., Any]:
    """np.atleast_1d / 2d / 3d (`ndim`): views with leading (for 3-d, leading and trailing) axes of
    length 1 added, one array or a tuple of them, as NumPy's. np.hstack, np.vstack and np.dstack
    then run NumPy's own implementations, which call these and np.concatenate."""
    fn = {1: np.atleast_1d, 2: np.atleast_2d, 3: np.atleast_3d}[ndim]

    def atleast(*arys: Any) -> Any:
        views = []
        for a in arys:
            if not isinstance(a, ndarray):
                raise ExecutionPlacementError(
                    f"np.{fn.__name__} of numba_ext arrays and host data ({type(a).__name__}); convert it "
                    "first with numba_ext.asarray(x, sycl_queue=<the arrays' queue>)"
                )
            views.append(a._view(fn(a._desc)))
        return views[0] if len(views) == 1 else tuple(views)

    return atleast


def roll(a: ndarray, shift: Any, axis: Any = None) -> ndarray:
    """np.roll: the elements shifted along `axis` (flattened when None), as two slices copied."""
    if axis is None:
        return roll(a.ravel(), shift, 0).reshape(a.shape)
    shifts = tuple(shift) if isinstance(shift, (tuple, list)) else (shift,)
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    if len(shifts) == 1 and len(axes) > 1:
        shifts = shifts * len(axes)
    if len(axes) == 1 and len(shifts) > 1:
        axes = axes * len(shifts)  # NumPy broadcasts the shifts against the axes
    if len(shifts) != len(axes):
        raise ValueError("shape mismatch: objects cannot be broadcast to a single shape.")
    out = a
    for k, ax in zip(shifts, axes):
        ax = normalize_axis(operator.index(ax), a.ndim)
        n = a.shape[ax]
        k = operator.index(k) % n if n else 0
        if k:
            before = (slice(None),) * ax
            out = concatenate([out[(*before, slice(n - k, None))], out[(*before, slice(0, n - k))]], ax)
    return out if out is not a else a.copy()


def diff(
    a: ndarray, n: Any = 1, axis: Any = -1, prepend: Any = np._NoValue, append: Any = np._NoValue
) -> Any:
    """np.diff: `n` times the differences of neighbours along `axis` (booleans: their inequality)."""
    _unsupported_keywords("diff", prepend=prepend, append=append)
    n = operator.index(n)
    if n == 0:
        return a
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n!r}")
    if a.ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    ax = normalize_axis(operator.index(axis), a.ndim)
    before = (slice(None),) * ax
    out: Any = a
    for _ in range(n):
        later, earlier = out[(*before, slice(1, None))], out[(*before, slice(None, -1))]
        out = later != earlier if out.dtype == np.bool_ else later - earlier
    return out


def outer(a: Any, b: Any, out: Any = None) -> Any:
    """np.outer: every element of `a` (flattened) times every element of `b`."""
    _unsupported_keywords("outer", out=out)
    return a.ravel()[:, None] * b.ravel()[None, :]


def trace(
    a: ndarray, offset: Any = 0, axis1: Any = 0, axis2: Any = 1, dtype: Any = None, out: Any = None
) -> Any:
    """np.trace: the sum along the diagonal."""
    _unsupported_keywords("trace", out=out)
    return a._view(np.diagonal(a._desc, offset, axis1, axis2)).sum(axis=-1, dtype=dtype)


def norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Any:
    """np.linalg.norm for the orders reductions give: the 2-norm of a vector and the Frobenius norm
    of a matrix (the default), a vector's 1-norm and its infinity norms."""
    if x.dtype.kind in "biu":
        x = x.astype(np.float64)
    vector = (
        (axis is None and x.ndim == 1)
        or (axis is not None and not isinstance(axis, tuple))
        or (isinstance(axis, tuple) and len(axis) == 1)
    )
    magnitude: Any = abs(x)
    if ord is None or (ord == 2 and vector) or (ord == "fro" and not vector):
        squares = (x * x.conj()).real if x.dtype.kind == "c" else x * x
        return np.sqrt(squares.sum(axis=axis, keepdims=keepdims))
    if vector and ord == 1:
        return magnitude.sum(axis=axis, keepdims=keepdims)
    if vector and ord in (np.inf, -np.inf):
        return (
            magnitude.max(axis=axis, keepdims=keepdims)
            if ord > 0
            else magnitude.min(axis=axis, keepdims=keepdims)
        )
    # the other orders (matrix norms by singular values, vector p-norms): numba_ext.linalg, above
    return hooks.upper_array_functions[np.linalg.norm](x, ord=ord, axis=axis, keepdims=keepdims)


def count_nonzero(a: Any, axis: Any = None, *, keepdims: bool = False) -> Any:
    """np.count_nonzero: int64 counts (over every element a 0-d array on the queue, as the
    reductions give)."""
    return (a != 0).sum(axis=axis, keepdims=keepdims)


def array_equal(a1: Any, a2: Any, equal_nan: bool = False) -> bool:
    """np.array_equal: the same shape and equal elements (NaN equal to NaN with `equal_nan`)."""
    if not (isinstance(a1, ndarray) and isinstance(a2, ndarray)):
        raise ExecutionPlacementError(
            "np.array_equal of a numba_ext array and host data; compare numba_ext arrays on one queue, "
            "or bring both to the host with numba_ext.asnumpy"
        )
    if a1.shape != a2.shape:
        return False
    same: Any = a1 == a2
    if equal_nan and a1.dtype.kind in "fc" and a2.dtype.kind in "fc":
        same = same | (np.isnan(a1) & np.isnan(a2))
    return bool(same.all())


def array_equiv(a1: Any, a2: Any) -> bool:
    """np.array_equiv: shapes that broadcast together and equal elements."""
    if not (isinstance(a1, ndarray) and isinstance(a2, ndarray)):
        raise ExecutionPlacementError(
            "np.array_equiv of a numba_ext array and host data; compare numba_ext arrays on one queue"
        )
    try:
        np.broadcast_shapes(a1.shape, a2.shape)
    except ValueError:
        return False
    same: Any = a1 == a2
    return bool(same.all())


#: the NumPy functions of this module (``__array_function__``), by function
MANIPULATION_FUNCTIONS: dict[Callable[..., Any], Callable[..., Any]] = {
    **{
        f: _view_function(f)
        for f in (
            np.squeeze,
            np.swapaxes,
            np.moveaxis,
            np.expand_dims,
            np.broadcast_to,
            np.diagonal,
            np.fliplr,
            np.flipud,
            np.rot90,
        )
    },
    np.atleast_1d: atleast_nd(1),
    np.atleast_2d: atleast_nd(2),
    np.atleast_3d: atleast_nd(3),
    np.roll: roll,
    np.diff: diff,
    np.outer: outer,
    np.trace: trace,
    np.linalg.norm: norm,
    np.count_nonzero: count_nonzero,
    np.array_equal: array_equal,
    np.array_equiv: array_equiv,
    np.matrix_transpose: _view_function(np.matrix_transpose),
    np.ravel: ravel,
    np.concatenate: concatenate,
    np.stack: stack,
    np.astype: astype,
    np.var: var,
    np.std: std,
    np.round: round_,
    np.around: round_,
    np.isclose: isclose,
    np.allclose: allclose,
}
