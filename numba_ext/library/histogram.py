"""Counting and selection of numba_ext arrays on their device: ``np.bincount`` with the kernels of
``ir.histogram``, and ``np.partition`` / ``np.argpartition`` by a full sort (``library.sorting``),
with NumPy's signatures in :data:`HISTOGRAM_FUNCTIONS` (for ``__array_function__``).

``bincount`` runs on the queue compute follows data infers from its numba_ext operands (the values
and the weights); its result has the USM type of the precedence rule (device < shared < host) over
them. Either operand may be host data (a list, a NumPy array) next to a numba_ext one: it is copied
to that queue first. The values are never copied to the host: one kernel pass finds their least
and greatest value, of which the host reads the two int64 numbers (NumPy's check of negative
values, and the result's length ``max(greatest + 1, minlength)``); a second pass counts. On CPUs
each work-item counts its run of values into a private row (no atomics, which cost more there than
a single sequential count, even over bins spread wide), and one work-item per bin adds the rows up;
rows are at most as many bins in all as there are values, down to one row, the result itself. On
GPUs each value is added into the result with an atomic add. Sums of float weights are therefore
added in an unspecified order: they agree with NumPy's within rounding.

``partition`` and ``argpartition`` sort the whole axis (stable): the element at each ``kth`` is the
one a sorted array has there, with smaller-or-equal elements before it and greater-or-equal ones
after it, which is all NumPy promises.
"""

from __future__ import annotations

import functools
import operator
import sys
import warnings
from collections.abc import Callable, Sequence
from types import FrameType
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import _core
from ..arrays import allocate, asarray, asnumpy, ndarray
from ..arrays.reductions import (
    CPU_ELEMENTS_PER_WORK_ITEM,
    CPU_WORK_ITEMS_PER_UNIT,
    launch_work_items,
    operand,
    unroll,
    whole_groups,
)
from ..devices import Device, Queue
from ..errors import ExecutionPlacementError, UnsupportedError
from ..ir.histogram import (
    atomic_histogram_function,
    extremes_combine_function,
    extremes_function,
    histogram_dtype,
    merge_rows_function,
    private_histogram_function,
)
from ..ir.reductions import normalize_axis
from ..placement import coerce_usm_types, execution_queue
from .compiled import kernel as _kernel
from .sorting import argsort, sort

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

_I64 = np.dtype(np.int64)
_F64 = np.dtype(np.float64)
_ZERO = bytes(8)
#: private rows (CPUs) hold this many bins per value counted, at most (one row at least)
ROW_BINS_PER_VALUE = 1


# -- bincount ---------------------------------------------------------------------------------------
@functools.cache
def _uint64_values() -> bool:
    """Whether this NumPy's ``bincount`` takes uint64 values (NumPy 2.3 and later cast every
    integer dtype to intp; earlier ones cast safely only, refusing uint64)."""
    try:
        np.bincount(np.zeros(1, np.uint64))
    except TypeError:
        return False
    return True


def _caller_level() -> int:
    """The ``stacklevel`` of the first frame outside numba_ext, counted from the function calling
    this one (NumPy's warnings point at the user's call, however it reached the library)."""
    frame: FrameType | None = sys._getframe(1)
    level = 1
    while frame is not None and str(frame.f_globals.get("__name__", "")).startswith("numba_ext."):
        frame, level = frame.f_back, level + 1
    return level


@functools.cache
def _none_minlength_refused() -> bool:
    """Whether this NumPy's ``bincount`` refuses ``minlength=None`` (NumPy 2.3 and later; earlier
    ones warn and count from 0)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            np.bincount(np.zeros(1, np.int64), minlength=None)  # type: ignore[arg-type]
        except TypeError:
            return True
    return False


def _cast_error(dtype: np.dtype, to: np.dtype) -> TypeError:
    return TypeError(f"Cannot cast array data from {dtype!r} to {to!r} according to the rule 'safe'")


def _check_1d(ndim: int) -> None:
    """NumPy's errors for an operand of bincount that is not 1-d."""
    if ndim > 1:
        raise ValueError("object too deep for desired array")
    if ndim < 1:
        raise ValueError("object of too small depth for desired array")


def _check_values_dtype(dtype: np.dtype) -> None:
    """NumPy's casting of bincount's values to intp: bools and integers (uint64 where this NumPy
    takes it; its values past the int64 range then read as negative)."""
    if dtype.kind == "b" or (dtype.kind in "iu" and (dtype != np.uint64 or _uint64_values())):
        return
    raise _cast_error(dtype, _I64)


def _check_weights_dtype(dtype: np.dtype) -> None:
    """NumPy's safe cast of bincount's weights to float64 (complex weights are refused)."""
    if not np.can_cast(dtype, _F64, "safe"):
        raise _cast_error(dtype, _F64)


def _minlength(minlength: Any) -> int:
    """`minlength` as NumPy reads it (an integer; its errors for None and other objects)."""
    if minlength is None:
        if _none_minlength_refused():
            raise TypeError("use 0 instead of None for minlength")
        warnings.warn(
            "0 should be passed as minlength instead of None; this will error in future.",
            DeprecationWarning,
            stacklevel=_caller_level(),
        )
        return 0
    if isinstance(minlength, (bool, np.bool_)):
        raise TypeError("an integer is required")
    return operator.index(minlength)


def _host_operand(value: Any, what: str) -> np.ndarray:
    """Host data given as bincount's values or weights, as NumPy reads it."""
    host = np.asarray(value)
    if host.dtype == object:
        raise TypeError(f"bincount: {what} must be numbers, got {type(value).__name__}")
    return host


def _bincount_placement(x: Any, weights: Any) -> tuple[Queue, str]:
    """The execution queue and the result's USM type of bincount's numba_ext operands."""
    named = [(n, a) for n, a in (("x", x), ("weights", weights)) if isinstance(a, ndarray)]
    if not named:
        raise ExecutionPlacementError(
            "np.bincount of host data only: the queue cannot be inferred (compute follows data). Convert "
            "the values first with numba_ext.asarray(x, sycl_queue=q)"
        )
    if len(named) == 1:
        return named[0][1]._queue, named[0][1]._usm_type
    queue = execution_queue(named)
    usm = coerce_usm_types(a.usm_type for _, a in named)
    assert usm is not None
    return queue, usm


def _extremes(x: ndarray, queue: Queue) -> tuple[int, int]:
    """The least and greatest value of the non-empty 1-d integer or bool `x`, as int64, found on
    `queue` (two numbers come back to the host)."""
    device = queue.device
    dt = x.dtype.name
    form = unroll(device)
    slots, n, _ = operand(x)
    work_items, local = launch_work_items(n, device)
    partials = allocate((2, work_items), _I64, queue, "device")
    extremes = allocate((2,), _I64, queue, "device")
    p_slots = [partials._data_ptr, 2, work_items, 0, 0]
    one, one_local = whole_groups(1, device)
    _core.launch_chain(
        queue,
        [
            (
                _kernel(("extremes", dt, form), lambda: extremes_function(dt, form), device),
                [*slots, *p_slots],
                [work_items],
                local,
                None,
            ),
            (
                _kernel(("extremes_combine",), extremes_combine_function, device),
                [*p_slots, extremes._data_ptr, 2, 0],
                [one],
                one_local,
                None,
            ),
        ],
    )
    host = np.zeros(2, np.int64)
    _core.memcpy(queue, host.ctypes.data, extremes._data_ptr, 16)
    return int(host[0]), int(host[1])


def _uses_atomics(device: Device) -> bool:
    """Whether histograms on `device` add into the result with atomics (GPUs) rather than count
    into private rows (CPUs)."""
    return device.device_type != "cpu"


def _private_rows(n: int, width: int, device: Device) -> int:
    """The number of private rows (work-items) a CPU histogram of `n` values into `width` bins
    counts into: a few per compute unit, each over at least ``CPU_ELEMENTS_PER_WORK_ITEM`` values,
    and no more rows than ``ROW_BINS_PER_VALUE`` bins per value allow (filling and adding up rows
    wider than that costs more than the values' count gains), at least one."""
    wanted = min(-(-n // CPU_ELEMENTS_PER_WORK_ITEM), CPU_WORK_ITEMS_PER_UNIT * device.max_compute_units)
    return max(min(wanted, ROW_BINS_PER_VALUE * n // width), 1)


def _count(x: ndarray, w: ndarray | None, out: ndarray, width: int, queue: Queue) -> None:
    """The histogram of the non-empty 1-d `x` (values in ``[0, width)``), weighted by `w` where
    given, into the new 1-d `out` (of at least `width` bins, zero past the values)."""
    device = queue.device
    dt = x.dtype.name
    wdt = None if w is None else w.dtype.name
    weighted = w is not None
    out_dt = np.dtype(histogram_dtype(weighted))
    x_slots, n, _ = operand(x)
    inputs = [*x_slots, *(operand(w)[0] if w is not None else [])]
    bins = out.shape[0]
    out_ptr = out._data_ptr
    out_slots = [out_ptr, bins, 0]
    if _uses_atomics(device):
        form = unroll(device)
        kernel = _kernel(("atomic", dt, wdt, form), lambda: atomic_histogram_function(dt, wdt, form), device)
        work_items, local = launch_work_items(n, device)
        kernel.launch_nd(
            queue, [*inputs, *out_slots], [work_items], local, (out_ptr, _ZERO, 8 * bins), wait=False
        )
        return
    rows = _private_rows(n, width, device)
    private = _kernel(("rows", dt, wdt), lambda: private_histogram_function(dt, wdt), device)
    if rows == 1:  # one row: the result itself
        slots = [*inputs, out_ptr, 1, bins, 0, 0]
        private.launch_nd(queue, slots, [1], [1], (out_ptr, _ZERO, 8 * bins), wait=False)
        return
    scratch = allocate((rows, width), out_dt, queue, "device")
    s_ptr = scratch._data_ptr
    s_slots = [s_ptr, rows, width, 0, 0]
    merge = _kernel(("merge", weighted), lambda: merge_rows_function(weighted), device)
    work_items, local = whole_groups(bins, device)
    _core.launch_chain(
        queue,
        [
            (private, [*inputs, *s_slots], [rows], [1], (s_ptr, _ZERO, 8 * rows * width)),
            (merge, [*s_slots, *out_slots], [work_items], local, None),
        ],
    )


def bincount(
    x: ndarray | ArrayLike, weights: ndarray | ArrayLike | None = None, minlength: int = 0
) -> ndarray:
    """``np.bincount(x, weights, minlength)`` on the device: the number of occurrences of each value
    of the 1-d array of non-negative integers (or bools) `x` as int64, or with `weights` (a 1-d
    array of `x`'s length, of any real or bool dtype, converted to float64) the float64 sum of the
    weights at each value's positions; ``max(max(x) + 1, minlength)`` bins (`minlength` bins of
    int64 zeros for an empty `x`). NumPy's errors: ValueError for a negative value, a negative
    `minlength`, weights of another length or operands that are not 1-d; TypeError for values
    that are not integers and for complex weights. Float sums are added in an unspecified order."""
    length = _minlength(minlength)
    queue, usm = _bincount_placement(x, weights)
    if isinstance(x, ndarray):
        _check_1d(x.ndim)
        _check_values_dtype(x.dtype)
        xs = x
    else:
        host = _host_operand(x, "the values")
        _check_1d(host.ndim)
        _check_values_dtype(host.dtype)
        xs = asarray(host, sycl_queue=queue, usm_type=usm)
    if length < 0:
        raise ValueError("'minlength' must not be negative")
    n = xs.shape[0]
    if n == 0:
        out = allocate((length,), _I64, queue, usm)
        if length:
            _core.fill(queue, out._data_ptr, _ZERO, 8 * length)
        return out
    least, greatest = _extremes(xs, queue)
    if least < 0:
        raise ValueError("'list' argument must have no negative elements")
    w: ndarray | None = None
    if weights is not None:
        if isinstance(weights, ndarray):
            _check_1d(weights.ndim)
            _check_weights_dtype(weights.dtype)
            w = weights
        else:
            if isinstance(weights, np.ndarray):
                hw = weights
                _check_1d(hw.ndim)
                _check_weights_dtype(hw.dtype)
            else:  # Python data converts to float64 directly (NumPy's errors for what does not)
                hw = np.array(weights, dtype=_F64)
                _check_1d(hw.ndim)
            w = asarray(hw.astype(_F64), sycl_queue=queue, usm_type=usm)
        if w.shape[0] != n:
            raise ValueError("The weights and list don't have the same length.")
        if not queue.device.has_fp64:
            device = queue.device.filter_string
            raise UnsupportedError(
                f"np.bincount with weights sums in float64, which {device} does not support"
            )
    width = greatest + 1
    out = allocate((max(width, length),), histogram_dtype(w is not None), queue, usm)
    _count(xs, w, out, width, queue)
    return out


# -- partition --------------------------------------------------------------------------------------
def _check_select(what: str, kind: Any, order: Any) -> None:
    """NumPy's check of ``kind=`` (its error); ``order=`` (fields) is refused."""
    if kind != "introselect":
        np.partition(np.zeros(1), 0, kind=kind)  # NumPy's error for a bad kind
    if order is not None:
        raise UnsupportedError(
            f"np.{what}(order=...) orders by fields of structured arrays, which numba_ext arrays do not have"
        )


def _selected(what: str, a: Any) -> ndarray:
    if not isinstance(a, ndarray):
        raise TypeError(f"{what}: expected a numba_ext array, got {type(a).__name__}")
    return a


@functools.cache
def _bool_kth_refused() -> bool:
    """Whether this NumPy's ``np.partition`` refuses booleans as indices (NumPy 2.3 and later;
    earlier ones warn and take them as integers)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            np.partition(np.zeros(2), True)
        except ValueError:
            return True
    return False


def _check_kth(kth: Any, n: int, size: int) -> None:
    """NumPy's checks of partition indices `kth` (an integer or a sequence of them; negative ones
    count from the end) along an axis of length `n` of an array of `size` elements (an empty array
    takes any integer)."""
    k = asnumpy(kth) if isinstance(kth, ndarray) else np.asarray(kth)
    if k.dtype == np.bool_:
        if _bool_kth_refused():
            raise ValueError("Booleans unacceptable as partition index")
        warnings.warn(
            "Passing booleans as partition index is deprecated (warning added in NumPy 1.22)",
            DeprecationWarning,
            stacklevel=_caller_level(),
        )
        k = k.astype(np.int64)
    if k.dtype.kind not in "iu":
        raise TypeError("Partition index must be integer")
    if k.ndim > 1:
        raise ValueError("object too deep for desired array")
    for value in k.astype(np.int64).ravel().tolist():
        at = value + n if value < 0 else value
        if size and not 0 <= at < n:
            raise ValueError(f"kth(={at}) out of bounds ({n})")


def _along(a: ndarray, kth: Any, axis: Any) -> tuple[ndarray, int]:
    """`a` (flattened where `axis` is None) and the normalized axis, after the checks of `kth`."""
    if axis is None:
        a, ax = a.reshape(-1), 0
    else:
        if isinstance(axis, (bool, np.bool_)):
            raise TypeError("an integer is required for the axis")
        ax = normalize_axis(operator.index(axis), a.ndim)
    _check_kth(kth, a.shape[ax], a.size)
    return a, ax


def partition(
    a: ndarray,
    kth: int | Sequence[int] | ArrayLike,
    axis: int | None = -1,
    kind: str = "introselect",
    order: Any = None,
) -> ndarray:
    """``np.partition(a, kth, axis)`` on the device: a new C-contiguous array of `a`'s shape (of `a`
    flattened where `axis` is None) whose element at each index `kth` along `axis` is the one a
    sorted array has there, smaller-or-equal elements before it and greater-or-equal ones after
    it. The whole axis is sorted (NaN last), which NumPy's promise allows. `kth`: an integer or a
    sequence of integers, negative ones counting from the end; out of range: NumPy's ValueError.
    ``order=`` raises :class:`~numba_ext.errors.UnsupportedError`."""
    _check_select("partition", kind, order)
    a, ax = _along(_selected("np.partition", a), kth, axis)
    return sort(a, ax)


def argpartition(
    a: ndarray,
    kth: int | Sequence[int] | ArrayLike,
    axis: int | None = -1,
    kind: str = "introselect",
    order: Any = None,
) -> ndarray:
    """``np.argpartition(a, kth, axis)`` on the device: the int64 positions along `axis` that
    partition `a` as :func:`partition` does (those of a stable sort of the whole axis), in a new
    C-contiguous array of `a`'s shape (1-d where `axis` is None or `a` is 0-d, as NumPy's)."""
    _check_select("argpartition", kind, order)
    a = _selected("np.argpartition", a)
    if a.ndim == 0:
        a = a.reshape(1)
    a, ax = _along(a, kth, axis)
    return argsort(a, ax)


# -- NumPy's signatures -------------------------------------------------------------------------------
def _np_bincount(x: Any, /, weights: Any = None, minlength: int = 0) -> ndarray:
    return bincount(x, weights, minlength)


def _np_partition(
    a: ndarray, kth: Any, axis: int | None = -1, kind: str = "introselect", order: Any = None
) -> ndarray:
    return partition(a, kth, axis, kind, order)


def _np_argpartition(
    a: ndarray, kth: Any, axis: int | None = -1, kind: str = "introselect", order: Any = None
) -> ndarray:
    return argpartition(a, kth, axis, kind, order)


#: NumPy's counting and selection functions on numba_ext arrays (for ``__array_function__``)
HISTOGRAM_FUNCTIONS: dict[Callable[..., Any], Callable[..., Any]] = {
    np.bincount: _np_bincount,
    np.partition: _np_partition,
    np.argpartition: _np_argpartition,
}
