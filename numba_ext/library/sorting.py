"""Sorting of numba_ext arrays on their device with the kernels of ``ir.sorting``: ``sort`` and
``argsort`` along any axis (the array API's, ``descending=`` included), ``searchsorted`` (NumPy's),
and ``np.sort``, ``np.argsort`` and ``np.searchsorted`` with NumPy's signatures
(:data:`SORTING_FUNCTIONS`, for ``__array_function__``).

A sort reads the input through its strides with the sorted axis taken last (no copy first), sorts
runs of each row by insertion, then merges them in passes of doubling width (a stable merge by
rank), all launched as one chain on the input's queue and waited for once; the last pass writes the
new C-contiguous result, of the input's shape, queue and USM type. Nothing goes through the host.
The order is NumPy's (NaN after every number); ``descending=True`` reverses it, keeping equal
elements in their original order. Every sort is stable, so ``kind=`` and ``stable=`` change nothing.

Sorted: booleans, integers, ``float32`` and ``float64`` (``float16`` where the device computes
with it); complex values are refused with :class:`~numba_ext.errors.UnsupportedError`."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import _core
from ..arrays import allocate, asarray, ndarray
from ..arrays.reductions import MASK, c_contiguous, layout, operand, whole_groups
from ..devices import Device
from ..errors import ExecutionPlacementError, UnsupportedError
from ..ir.reductions import normalize_axis
from ..ir.sorting import (
    CHUNK,
    PATH_ITEMS,
    SORTABLE,
    chunk_sort_function,
    key_dtype,
    merge_pass_function,
    merge_passes,
    merge_path_function,
    searchsorted_function,
)
from ..placement import coerce_usm_types, execution_queue
from .compiled import kernel as _kernel

_INT64 = np.dtype(np.int64)


def merge_by_path(device: Device) -> bool:
    """Whether merge passes on `device` take ``ir.sorting.merge_path_function`` (CPUs: each
    work-item merges a share of consecutive elements) rather than ``merge_pass_function`` (GPUs:
    one element per work-item, neighbours reading neighbours)."""
    return device.device_type == "cpu"


def _check_sortable(what: str, dtype: np.dtype) -> None:
    if dtype not in SORTABLE:
        raise UnsupportedError(
            f"{what} of {dtype} numba_ext arrays is not supported; booleans, integers and real floats are"
        )


def _check_array(what: str, x: object) -> ndarray:
    if not isinstance(x, ndarray):
        raise TypeError(f"{what}: expected a numba_ext array, got {type(x).__name__}")
    return x


def _c_strides(shape: Sequence[int], itemsize: int) -> list[int]:
    """The byte strides of a C-contiguous array of `shape`."""
    strides, step = [0] * len(shape), itemsize
    for d in reversed(range(len(shape))):
        strides[d] = step
        step *= shape[d]
    return strides


def _moved_last(
    ptr: int, shape: Sequence[int], strides: Sequence[int], axis: int, itemsize: int
) -> tuple[list[int], int]:
    """The kernel slots of the view of an array with `axis` moved last, and the rank the kernel
    reads: 2 (rows, n) where that view is C-contiguous, else the array's own rank."""
    order = [d for d in range(len(shape)) if d != axis] + [axis]
    moved_shape = [shape[d] for d in order]
    moved_strides = [strides[d] for d in order]
    if c_contiguous(tuple(moved_shape), moved_strides, itemsize):
        n = moved_shape[-1]
        return [ptr, math.prod(moved_shape[:-1]), n, n * itemsize, itemsize], 2
    return [ptr, *moved_shape, *(s & MASK for s in moved_strides)], len(shape)


def _sort(what: str, x: ndarray, axis: int, descending: bool, index: bool) -> ndarray:
    """The rows of `x` along `axis` sorted (`index`: their positions in the sorted order) into a new
    C-contiguous array of `x`'s shape on its queue with its USM type."""
    x = _check_array(what, x)
    _check_sortable(what, x.dtype)
    ax = normalize_axis(axis, x.ndim)
    descending = bool(descending)
    ptr, shape, strides, usm_type = layout(x)
    queue = x._queue
    dtype = x.dtype
    out_dtype = _INT64 if index else dtype
    out = allocate(shape, out_dtype, queue, usm_type)
    size = math.prod(shape)
    if size == 0:
        return out
    n = shape[ax]
    rows = size // n
    device = queue.device
    name = dtype.name
    source, src_ndim = _moved_last(ptr, shape, strides, ax, dtype.itemsize)
    key = np.dtype(key_dtype(name))
    passes = merge_passes(n)
    keys = [allocate((rows, n), key, queue, "device") for _ in range(min(passes, 2))]
    positions = [allocate((rows, n), _INT64, queue, "device") for _ in range(min(passes, 2))] if index else []

    def flat(a: ndarray) -> list[int]:
        return [a._data_ptr, size, 0]

    def pair(a: ndarray) -> list[int]:
        return [a._data_ptr, rows, n, 0, 0]

    chunks = -(-n // CHUNK)
    runs = _kernel(
        ("runs", name, src_ndim, index, descending),
        lambda: chunk_sort_function(name, src_ndim, index, descending),
        device,
    )
    work_items, local = whole_groups(rows * chunks, device)
    steps: list[tuple[_core.Kernel, Sequence[int], Sequence[int], Sequence[int] | None, None]] = [
        (runs, [*source, *flat(keys[0]), *(flat(positions[0]) if index else [])], [work_items], local, None)
    ]
    # the result's view with the sorted axis last
    o_item = out_dtype.itemsize
    if ax == len(shape) - 1:
        out_slots, out_ndim = [out._data_ptr, rows, n, n * o_item, o_item], 2
    else:
        out_slots, out_ndim = _moved_last(out._data_ptr, shape, _c_strides(shape, o_item), ax, o_item)
    path = merge_by_path(device)
    build = merge_path_function if path else merge_pass_function
    merge = _kernel(("merge", path, name, index, descending), lambda: build(name, index, descending), device)
    last = _kernel(
        ("last", path, name, index, descending, out_ndim),
        lambda: build(name, index, descending, final=True, out_ndim=out_ndim),
        device,
    )
    width = CHUNK
    for p in range(passes):
        src = [*pair(keys[p % 2]), *(pair(positions[p % 2]) if index else [])]
        if p == passes - 1:
            kernel, dst = last, out_slots
        else:
            kernel, dst = merge, [*pair(keys[(p + 1) % 2]), *(pair(positions[(p + 1) % 2]) if index else [])]
        if path:  # shares of k elements, in work-groups of one (see ir.sorting.merge_path_function)
            k = min(2 * width, PATH_ITEMS)
            steps.append((kernel, [*src, *dst, width, k], [rows * -(-n // k)], [1], None))
        else:
            work_items, local = whole_groups(size, device)
            steps.append((kernel, [*src, *dst, width], [work_items], local, None))
        width *= 2
    _core.launch_chain(queue, steps)  # in turn, waited for once
    return out


def sort(x: ndarray, axis: int = -1, descending: bool = False, stable: bool = True) -> ndarray:
    """The array API's ``sort``: a new C-contiguous array of `x`'s shape, dtype, queue and USM type
    holding `x` sorted along `axis` (NaN after every number; `descending` reverses that order,
    equal elements keeping their order). Every sort is stable (`stable` changes nothing). A bad
    `axis` raises NumPy's AxisError; complex values :class:`~numba_ext.errors.UnsupportedError`."""
    return _sort("sort", x, axis, descending, False)


def argsort(x: ndarray, axis: int = -1, descending: bool = False, stable: bool = True) -> ndarray:
    """The array API's ``argsort``: the int64 positions along `axis` that sort `x` (as :func:`sort`
    orders; equal elements in their original order, descending too), a new C-contiguous array of
    `x`'s shape on its queue with its USM type."""
    return _sort("argsort", x, axis, descending, True)


# -- searchsorted ----------------------------------------------------------------------------------
def _needles(v: Any, a: ndarray) -> ndarray:
    """The needles as a numba_ext array: a Python or NumPy scalar is put on `a`'s queue with its
    USM type, in the dtype NumPy gives it (a Python int as int64, a float as float64), after the
    check that it sorts with `a`."""
    if isinstance(v, ndarray):
        return v
    if isinstance(v, (bool, int, float, complex, np.generic)):
        host = np.asarray(v)
        _check_sortable("np.searchsorted", np.promote_types(a.dtype, host.dtype))
        return asarray(host, sycl_queue=a._queue, usm_type=a.usm_type)
    raise ExecutionPlacementError(
        f"np.searchsorted: the needles are host data ({type(v).__name__}) next to a numba_ext array; "
        "the queue of host data cannot be inferred (compute follows data). Convert them first with "
        "numba_ext.asarray(v, sycl_queue=<the array's queue>)"
    )


def searchsorted(a: ndarray, v: Any, side: str = "left", sorter: ndarray | None = None) -> ndarray:
    """NumPy's ``searchsorted`` on the device: for each needle of `v` (a numba_ext array of any shape,
    or a Python or NumPy scalar), the int64 position in the 1-d array `a` (sorted ascending, NaN
    last; through the positions `sorter` where given) before which inserting it keeps `a` sorted:
    the first such position for `side` ``"left"``, the last for ``"right"``. Elements are compared
    in the common dtype of `a` and `v`, as NumPy does. The result is a new array of `v`'s shape on
    the arrays' execution queue; a sorter position outside ``[0, len(a))`` met by a search raises
    NumPy's ValueError."""
    if not isinstance(a, ndarray):
        raise ExecutionPlacementError(
            f"np.searchsorted: the sorted array is host data ({type(a).__name__}) next to numba_ext arrays; "
            "the queue of host data cannot be inferred (compute follows data). Convert it first with "
            "numba_ext.asarray(a, sycl_queue=<the arrays' queue>)"
        )
    if side not in ("left", "right"):
        raise ValueError(f"search side must be 'left' or 'right' (got {side!r})")
    if a.ndim != 1:
        raise ValueError("object too deep for desired array")
    needles = _needles(v, a)
    named: list[tuple[str, ndarray]] = [("a", a), ("v", needles)]
    if sorter is not None:
        if not isinstance(sorter, ndarray):
            raise ExecutionPlacementError(
                f"np.searchsorted: sorter is host data ({type(sorter).__name__}); convert it first with "
                "numba_ext.asarray(sorter, sycl_queue=<the arrays' queue>)"
            )
        if sorter.dtype.kind not in "iu":
            raise TypeError("sorter must only contain integers")
        if sorter.size != a.size:
            raise ValueError("sorter.size must equal a.size")
        if sorter.ndim != 1:
            raise ValueError("object too deep for desired array")
        named.append(("sorter", sorter))
    common = np.promote_types(a.dtype, needles.dtype)
    _check_sortable("np.searchsorted", common)
    queue = execution_queue(named)
    usm_type = coerce_usm_types([x.usm_type for _, x in named]) or a.usm_type
    shape = needles.shape
    out = allocate((needles.size,), _INT64, queue, usm_type)
    if needles.size:
        a_slots = operand(a)[0]
        v_slots, _, v_ndim = operand(needles, needles.dtype.itemsize)
        s_name = None if sorter is None else sorter.dtype.name
        d, vd = a.dtype.name, needles.dtype.name
        kernel = _kernel(
            ("searchsorted", d, vd, v_ndim, side, s_name),
            lambda: searchsorted_function(d, vd, v_ndim, side, s_name),
            queue.device,
        )
        work_items, local = whole_groups(needles.size, queue.device)
        slots = [*a_slots, *v_slots]
        fill = None
        flag = None
        if sorter is not None:
            flag = allocate((1,), np.dtype(np.int32), queue, "device")
            slots += [*operand(sorter)[0], flag._data_ptr, 1, 0]
            fill = (flag._data_ptr, bytes(4), 4)
        slots += [out._data_ptr, needles.size, 0]
        kernel.launch_nd(queue, slots, [work_items], local, fill, wait=False)
        if flag is not None:
            bad = np.zeros(1, np.int32)
            _core.memcpy(queue, bad.ctypes.data, flag._data_ptr, 4)  # waits for the kernel
            if bad[0]:
                raise ValueError("Sorter index out of range.")
    return out.reshape(shape)


# -- NumPy's signatures ----------------------------------------------------------------------------
def _numpy_options(what: str, kind: Any, order: Any, stable: Any) -> None:
    """NumPy's checks of ``kind=`` and ``stable=`` (its errors); ``order=`` (fields) is refused."""
    if order is not None:
        raise UnsupportedError(
            f"np.{what}(order=...) sorts by fields of structured arrays, which numba_ext arrays do not have"
        )
    np.sort(np.empty(0), kind=kind, stable=stable)  # NumPy's errors for a bad kind or both given


def _np_sort(
    a: ndarray, axis: Any = -1, kind: Any = None, order: Any = None, *, stable: Any = None
) -> ndarray:
    """``np.sort``: :func:`sort` (always stable, whatever `kind` and `stable` ask); `axis` None sorts
    the flattened array."""
    _numpy_options("sort", kind, order, stable)
    a = _check_array("np.sort", a)
    if axis is None:
        return sort(a.reshape(-1), 0)
    return sort(a, axis)


def _np_argsort(
    a: ndarray, axis: Any = -1, kind: Any = None, order: Any = None, *, stable: Any = None
) -> ndarray:
    """``np.argsort``: :func:`argsort` (stable); `axis` None (or a 0-d array, as NumPy) sorts the
    flattened array."""
    _numpy_options("argsort", kind, order, stable)
    a = _check_array("np.argsort", a)
    if axis is None:
        return argsort(a.reshape(-1), 0)
    if a.ndim == 0:
        a = a.reshape(1)
    return argsort(a, axis)


def _np_searchsorted(a: ndarray, v: Any, side: str = "left", sorter: ndarray | None = None) -> ndarray:
    """``np.searchsorted``: :func:`searchsorted`."""
    return searchsorted(a, v, side, sorter)


#: NumPy's sorting functions on numba_ext arrays (for ``__array_function__``)
SORTING_FUNCTIONS: dict[Callable[..., Any], Callable[..., Any]] = {
    np.sort: _np_sort,
    np.argsort: _np_argsort,
    np.searchsorted: _np_searchsorted,
}
