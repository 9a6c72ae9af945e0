"""Gathering and compaction of numba_ext arrays on their device (``np.take``,
``np.take_along_axis``, ``np.nonzero``, ``np.flatnonzero``, ``np.argwhere``, ``np.extract``,
``np.compress``, ``np.repeat`` and boolean-mask selection) with the kernels of ``ir.gather``.

Every operation runs on the queue compute follows data infers from its numba_ext operands; its
result has the USM type of the precedence rule (device < shared < host) over them. Index arrays,
conditions and repeat counts may also be host data (Python ints, lists, NumPy arrays): they are
copied to that queue first. The array gathered from must be a numba_ext array.

* Gathers launch one kernel (one work-item per result element). With ``mode="raise"`` the kernel
  flags out-of-range indices (and reads nothing there); the flag is read once after the kernel and
  the operation raises NumPy's IndexError, naming the first bad index, with nothing written to any
  existing array.
* A scatter (``x[idx] = v``, see ``indexing``) launches one kernel writing distinct positions, or
  one claiming each repeated position for its last occurrence (an atomic maximum) and one writing
  the claimed occurrences' values.
* Compactions (``nonzero`` and the selections built on it, ``repeat``) launch the block counts and
  their prefixes, read the total (one integer, which the result's shape needs), then the kernel
  writing the selected positions, indices or elements in C order.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import _core
from ..arrays import allocate, asarray, asnumpy, ndarray
from ..arrays.reductions import MASK, layout, operand, whole_groups
from ..devices import Queue
from ..errors import ExecutionPlacementError, UnsupportedError
from ..ir.gather import (
    MODES,
    block_counts_function,
    claim_function,
    compact_function,
    copy_dtype,
    gather_function,
    scatter_function,
)
from ..ir.reductions import normalize_axis
from ..ir.scans import block_count, block_prefix_function
from ..placement import coerce_usm_types, execution_queue
from .compiled import kernel as _kernel

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

_I64 = np.dtype(np.int64)
_ZERO = bytes(8)


# -- operands -----------------------------------------------------------------------------------------
#: an operand's kernel view: its data address, extents and byte strides
_View = tuple[int, tuple[int, ...], tuple[int, ...]]


def _view(x: ndarray) -> _View:
    ptr, shape, strides, _ = layout(x)
    return ptr, tuple(shape), tuple(strides)


def _slots(view: _View) -> list[int]:
    ptr, shape, strides = view
    return [ptr, *shape, *(s & MASK for s in strides)]


def _dense(ptr: int, shape: tuple[int, ...]) -> list[int]:
    """The slots of a C-contiguous kernel operand (its strides are computed from its shape)."""
    return [ptr, *shape, *([0] * len(shape))]


def _source(x: Any, what: str) -> ndarray:
    """`x`, the array an operation reads from: a numba_ext array (host data there is a placement
    error, as in the other eager operations)."""
    if isinstance(x, ndarray):
        return x
    raise ExecutionPlacementError(
        f"{what} of host data ({type(x).__name__}) with numba_ext operands: the queue of host data cannot "
        "be inferred (compute follows data). Convert it first with numba_ext.asarray(x, sycl_queue=q)"
    )


def _placed(x: ndarray, others: Sequence[tuple[str, Any]]) -> tuple[Queue, str]:
    """The execution queue and the result's USM type of `x` with the numba_ext arrays among
    `others` (name, value)."""
    named = [("x", x), *((n, a) for n, a in others if isinstance(a, ndarray))]
    if len(named) == 1:
        return x._queue, x._usm_type
    queue = execution_queue(named)
    usm = coerce_usm_types(a.usm_type for _, a in named)
    assert usm is not None
    return queue, usm


def _on_queue(value: Any, dtype: np.dtype | None, queue: Queue, usm_type: str, forcecast: bool) -> ndarray:
    """`value` as a numba_ext array on `queue` (host data copied there as `dtype`: NumPy's casting
    of index arguments, a forced cast of Python data (`forcecast`) or a same-kind cast of NumPy
    arrays); a numba_ext array as it is."""
    if isinstance(value, ndarray):
        return value
    if dtype is None:
        host = np.asarray(value)
    elif isinstance(value, np.ndarray) or not forcecast:
        host = np.asarray(value)
        if host.dtype.kind not in "biu":
            host = host.astype(dtype, casting="same_kind")
    else:
        host = np.array(value, dtype=dtype)
    return asarray(host, sycl_queue=queue, usm_type=usm_type)


def on_common_queue(*values: Any, names: Sequence[str] | None = None) -> list[ndarray]:
    """`values` (at least one a numba_ext array) as numba_ext arrays on one queue: the execution
    queue of the numba_ext arrays among them (ExecutionPlacementError naming them by `names`, or
    by their positions, when their queues are not equivalent). The numba_ext arrays come back as
    they are; host data (lists, tuples, NumPy arrays and scalars, Python scalars) is copied to that
    queue as ``np.asarray`` makes it, with the USM type of the precedence rule over the arrays.

    A Python scalar thus becomes a 0-d array of NumPy's default dtype for it (int64, float64,
    complex128): a strong operand, as in the NumPy functions that take ``np.asarray`` of their
    operands (``np.kron``, ``np.append``, ``np.digitize``, ``np.interp``), not the weak scalar
    of NumPy's arithmetic, so those functions keep NumPy's result dtypes."""
    labels = [f"argument {i}" for i in range(len(values))] if names is None else names
    named = [(n, v) for n, v in zip(labels, values, strict=True) if isinstance(v, ndarray)]
    if not named:
        raise ExecutionPlacementError(
            "no numba_ext array among the operands: the queue of host data cannot be inferred (compute "
            "follows data). Convert one first with numba_ext.asarray(x, sycl_queue=q)"
        )
    queue = execution_queue(named, stacklevel=5)  # warnings point at the caller's NumPy call
    usm = coerce_usm_types(a.usm_type for _, a in named)
    assert usm is not None
    return [_on_queue(v, None, queue, usm, False) for v in values]


def _check_index_dtype(ind: ndarray, what: str = "indices") -> None:
    if ind.dtype.kind not in "biu":
        raise TypeError(
            f"Cannot cast array data from {ind.dtype!r} to dtype('int64') according to the rule 'same_kind' "
            f"({what} must be integers)"
        )


def _check_mode(mode: str) -> None:
    if mode not in MODES:
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")


# -- gathering ----------------------------------------------------------------------------------------
def _gather(
    queue: Queue,
    x: ndarray,
    x_view: _View,
    axis: int,
    span: int,
    ind: ndarray,
    ind_view: _View,
    start: int,
    out: ndarray,
    out_shape: tuple[int, ...],
    mode: str,
    error_axis: int,
) -> None:
    """Launch the gather of `x` (seen as `x_view`) by `ind` (seen as `ind_view`) into the new
    C-contiguous `out` (seen with `out_shape`, which may hold an extra 1 for a 0-d index), as
    ``ir.gather.gather_function`` describes; with ``mode="raise"`` wait for it and raise NumPy's
    IndexError (naming axis `error_axis`) for an index outside the gathered extent."""
    total = math.prod(out_shape)
    if total == 0:
        return
    device = queue.device
    ndim, k, r = len(x_view[1]), len(ind_view[1]), len(out_shape)
    cdt, idt = copy_dtype(x.dtype), ind.dtype.name
    key = ("gather", cdt, idt, ndim, axis, span, k, start, r, mode)
    kernel = _kernel(key, lambda: gather_function(cdt, idt, ndim, axis, span, k, start, r, mode), device)
    work_items, local = whole_groups(total, device)
    slots = [*_slots(x_view), *_slots(ind_view), *_dense(out._data_ptr, out_shape)]
    if mode != "raise":
        kernel.launch_nd(queue, slots, [work_items], local, wait=False)
        return
    flag = allocate((1,), np.int32, queue, "device")
    kernel.launch_nd(
        queue,
        [*slots, *_dense(flag._data_ptr, (1,))],
        [work_items],
        local,
        (flag._data_ptr, bytes(4), 4),
        wait=False,
    )
    host = np.zeros(1, np.int32)
    _core.memcpy(queue, host.ctypes.data, flag._data_ptr, 4)  # waits for the kernel
    if host[0]:
        n = math.prod(x_view[1][axis : axis + span])
        values = np.broadcast_to(asnumpy(ind), ind_view[1]).astype(np.int64).ravel()
        bad = values[(values < -n) | (values >= n)]
        shown = int(bad[0]) if bad.size else "out of range"
        raise IndexError(f"index {shown} is out of bounds for axis {error_axis} with size {n}")


def scatter(x: ndarray, span: int, targets: ndarray, values: ndarray, owner: ndarray | None = None) -> None:
    """Write `values` (C-contiguous, of `x`'s dtype and shape ``(m, *x.shape[span:])``) into `x`
    (any strides) at the flat positions `targets` (C-contiguous int64, `m` of them, each inside
    `x`'s leading `span` dimensions): one kernel on `x`'s queue, left running
    (``ir.gather.scatter_function``). Without `owner` the positions are distinct; with it (the
    C-contiguous int64 vector :func:`claim` filled) each position is written once, with the value
    of the occurrence that claimed it."""
    if values.size == 0:
        return
    queue = x._queue
    device = queue.device
    cdt, ndim, claimed = copy_dtype(x.dtype), x.ndim, owner is not None
    key = ("scatter_claimed" if claimed else "scatter", cdt, ndim, span)
    kernel = _kernel(key, lambda: scatter_function(cdt, ndim, span, claimed), device)
    work_items, local = whole_groups(values.size, device)
    slots = [*_slots(_view(x)), *_dense(targets._data_ptr, targets.shape)]
    slots += _dense(values._data_ptr, values.shape)
    if owner is not None:
        slots += _dense(owner._data_ptr, owner.shape)
    kernel.launch_nd(queue, slots, [work_items], local, wait=False)


def claim(owner: ndarray, targets: ndarray) -> None:
    """Leave in `owner` (C-contiguous int64, filled with -1, one element per position that may be
    named) the number of the last occurrence of each position of `targets` (C-contiguous int64,
    each inside `owner`) by an atomic maximum per occurrence: one kernel on `owner`'s queue, left
    running (``ir.gather.claim_function``). :func:`scatter` given `owner` then writes each
    position's last value, as NumPy's ``x[idx] = v``."""
    if targets.size == 0:
        return
    queue = owner._queue
    device = queue.device
    kernel = _kernel(("claim",), lambda: claim_function(), device)
    work_items, local = whole_groups(targets.size, device)
    slots = [*_dense(owner._data_ptr, owner.shape), *_dense(targets._data_ptr, targets.shape)]
    kernel.launch_nd(queue, slots, [work_items], local, wait=False)


def take(x: ndarray, indices: ndarray | ArrayLike, axis: int | None = None, mode: str = "raise") -> ndarray:
    """``np.take(x, indices, axis, mode=mode)`` on the device: the elements of `x` (flattened in C
    order when `axis` is None) at `indices` along `axis`, in an array of shape
    ``x.shape[:axis] + indices.shape + x.shape[axis + 1:]`` and `x`'s dtype. `indices`: an integer
    (or bool) numba_ext array, or host data copied to the queue. `mode`: ``"raise"`` (negative
    indices count from the end; an index outside the axis raises IndexError), ``"wrap"`` or
    ``"clip"``, as NumPy's."""
    _check_mode(mode)
    x = _source(x, "np.take")
    queue, usm = _placed(x, [("indices", indices)])
    ind = _on_queue(indices, _I64, queue, x._usm_type, True)
    return _take(x, ind, axis, mode, queue, usm)


def _take(x: ndarray, ind: ndarray, axis: int | None, mode: str, queue: Queue, usm: str) -> ndarray:
    """:func:`take` of `x` by the numba_ext array `ind` on `queue`, into a result of USM type
    `usm`."""
    _check_index_dtype(ind)
    x_view = _view(x)
    if x.ndim == 0:  # a scalar takes as one element
        x_view = (x_view[0], (1,), (x.itemsize,))
    if axis is None:
        axis, span, error_axis = 0, len(x_view[1]), 0
    else:
        if isinstance(axis, (bool, np.bool_)):
            raise TypeError("an integer is required for the axis")
        axis = error_axis = normalize_axis(operator.index(axis), len(x_view[1]))
        span = 1
    shape = x_view[1]
    result_shape = (*shape[:axis], *ind.shape, *shape[axis + span :])
    out = allocate(result_shape, x.dtype, queue, usm)
    if out.size == 0:
        _check_unused_indices(
            ind, math.prod(shape[axis : axis + span]), math.prod(shape[:axis]), mode, error_axis
        )
        return out
    if math.prod(shape[axis : axis + span]) == 0:
        raise IndexError("cannot do a non-empty take from an empty axes.")
    ind_view = _view(ind)
    if ind.ndim == 0:
        ind_view = (ind_view[0], (1,), (0,))
    out_shape = (*shape[:axis], *ind_view[1], *shape[axis + span :])
    _gather(queue, x, x_view, axis, span, ind, ind_view, axis, out, out_shape, mode, error_axis)
    return out


def _check_unused_indices(ind: ndarray, size: int, outer: int, mode: str, axis: int) -> None:
    """NumPy's IndexError for an out-of-range index of a take whose result is empty (its other
    axes have no elements) but which still visits its indices (``mode='raise'``, elements before
    the axis): the indices' extremes, read from the device."""
    if mode != "raise" or ind.size == 0 or outer == 0:
        return
    lo, hi = int(ind.min()), int(ind.max())
    for i in (hi, lo):
        if not -size <= i < size:
            raise IndexError(f"index {i} is out of bounds for axis {axis} with size {size}")


def take_along_axis(x: ndarray, indices: ndarray | ArrayLike, axis: int | None = -1) -> ndarray:
    """``np.take_along_axis(x, indices, axis)`` on the device: ``out[i..., j, k...] =
    x[i..., indices[i..., j, k...], k...]`` with `indices` (an integer array of `x`'s rank) and `x`
    broadcast against each other in the other dimensions; `axis` None takes from `x` flattened
    with 1-d `indices`. Negative indices count from the end; others outside the axis raise
    IndexError."""
    x = _source(x, "np.take_along_axis")
    queue, usm = _placed(x, [("indices", indices)])
    ind = _on_queue(indices, None, queue, x._usm_type, False)
    if ind.dtype.kind not in "iu":
        raise IndexError("`indices` must be an integer array")
    if axis is None:
        if ind.ndim != 1:
            raise ValueError("when axis=None, `indices` must have a single dimension.")
        return _take(x, ind, None, "raise", queue, usm)
    if ind.ndim != x.ndim:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    if isinstance(axis, (bool, np.bool_)):
        raise TypeError("an integer is required for the axis")
    axis = normalize_axis(operator.index(axis), x.ndim)
    x_ptr, x_shape, x_strides = _view(x)
    i_ptr, i_shape, i_strides = _view(ind)
    shape: list[int] = []
    xs, js = list(x_strides), list(i_strides)
    for d, (a, b) in enumerate(zip(x_shape, i_shape)):
        if d == axis:
            shape.append(b)
            continue
        if a != b and a != 1 and b != 1:
            raise IndexError(
                "shape mismatch: indexing arrays could not be broadcast together with shapes "
                f"{x_shape[:axis] + (1,) + x_shape[axis + 1 :]} {i_shape}"
            )
        n = b if a == 1 else a
        shape.append(n)
        if a != n:
            xs[d] = 0
        if b != n:
            js[d] = 0
    out_shape = tuple(shape)
    x_ext = tuple(x_shape[d] if d == axis else out_shape[d] for d in range(x.ndim))
    out = allocate(out_shape, x.dtype, queue, usm)
    x_view = (x_ptr, x_ext, tuple(xs))
    ind_view = (i_ptr, out_shape, tuple(js))
    _gather(queue, x, x_view, axis, 1, ind, ind_view, 0, out, out_shape, "raise", axis)
    return out


# -- compaction ---------------------------------------------------------------------------------------
def _compact(
    queue: Queue,
    source: ndarray,
    view: _View,
    weight: str,
    emit: str,
    make_out: Callable[[int], tuple[ndarray, list[int]]],
    values: tuple[ndarray, _View] | None = None,
) -> ndarray:
    """The compaction of `source` (seen as `view`, of at least one element and rank) by the weights
    `weight` of its elements: the block counts and their prefixes, the total read to the host, the
    output made by ``make_out(total)`` (the array and its kernel slots), then the kernel writing
    `emit` (``ir.gather.compact_function``) there, unless the total is 0. `values`: the array (and
    its view, of `view`'s extents) whose elements ``"values"`` copies."""
    device = queue.device
    dt, ndim = source.dtype.name, len(view[1])
    n = math.prod(view[1])
    blocks = block_count(n)
    counts = allocate((blocks + 1,), _I64, queue, "device")
    c_ptr = counts._data_ptr
    count_kernel = _kernel(
        ("counts", weight, dt, ndim), lambda: block_counts_function(weight, dt, ndim), device
    )
    prefix_kernel = _kernel(("prefixes",), lambda: block_prefix_function("cumsum", "int64"), device)
    work_items, local = whole_groups(blocks, device)
    one, one_local = whole_groups(1, device)
    counts_slots = _dense(c_ptr, (blocks + 1,))
    _core.launch_chain(
        queue,
        [
            (
                count_kernel,
                [*_slots(view), *counts_slots],
                [work_items],
                local,
                (c_ptr + 8 * blocks, _ZERO, 8),
            ),
            (prefix_kernel, counts_slots, [one], one_local, None),
        ],
    )
    host = np.zeros(1, np.int64)
    _core.memcpy(queue, host.ctypes.data, c_ptr + 8 * blocks, 8)
    total = int(host[0])
    out, out_slots = make_out(total)
    if total == 0:
        return out
    value_slots: list[int] = []
    vdt = None
    if values is not None:
        vdt = copy_dtype(values[0].dtype)
        value_slots = _slots(values[1])
    kernel = _kernel(
        ("compact", weight, dt, ndim, emit, vdt),
        lambda: compact_function(weight, dt, ndim, emit, vdt),
        device,
    )
    kernel.launch_nd(
        queue, [*_slots(view), *counts_slots, *value_slots, *out_slots], [work_items], local, wait=False
    )
    return out


def _flat_view(x: ndarray) -> _View:
    """`x`'s kernel view, as one flat run where it is C-contiguous (fewer kernels and index
    computations)."""
    slots, size, ndim = operand(x, x.itemsize)
    if ndim == 1 and x.ndim != 1:
        return slots[0], (size,), (x.itemsize,)
    return _view(x)


def _positions(x: ndarray, queue: Queue, usm_type: str) -> ndarray:
    """The flat positions (C order) of the nonzero elements of `x`: a new 1-d int64 array."""
    if x.size == 0:
        return allocate((0,), _I64, queue, usm_type)
    view = _flat_view(x) if x.ndim else (x._data_ptr, (1,), (x.itemsize,))

    def make(total: int) -> tuple[ndarray, list[int]]:
        out = allocate((total,), _I64, queue, usm_type)
        return out, _dense(out._data_ptr, (total,))

    return _compact(queue, x, view, "truth", "positions", make)


def _coordinates(x: ndarray, transpose: bool) -> ndarray:
    """The indices of the nonzero elements of `x` (ndim >= 1, C order): a new int64 array of shape
    (count, ndim), or (ndim, count) with `transpose`."""
    queue, usm, ndim = x._queue, x._usm_type, x.ndim

    def make(total: int) -> tuple[ndarray, list[int]]:
        shape = (ndim, total) if transpose else (total, ndim)
        out = allocate(shape, _I64, queue, usm)
        strides = (8, 8 * total) if transpose else (8 * ndim, 8)
        return out, [out._data_ptr, total, ndim, *strides]

    if x.size == 0:
        return make(0)[0]
    return _compact(queue, x, _view(x), "truth", "coords", make)


def nonzero(x: ndarray) -> tuple[ndarray, ...]:
    """``np.nonzero(x)`` on the device: one int64 array per dimension of `x` holding the indices of
    its nonzero elements (NaN and complex values with any nonzero part count), in C order."""
    x = _source(x, "np.nonzero")
    if x.ndim == 0:
        raise ValueError(
            "Calling nonzero on 0d arrays is not allowed. Use np.atleast_1d(scalar).nonzero() instead."
        )
    if x.ndim == 1:
        return (_positions(x, x._queue, x._usm_type),)
    rows = _coordinates(x, True)
    return tuple(rows[d] for d in range(x.ndim))


def flatnonzero(x: ndarray) -> ndarray:
    """``np.flatnonzero(x)`` on the device: the flat positions (C order) of the nonzero elements."""
    x = _source(x, "np.flatnonzero")
    return _positions(x, x._queue, x._usm_type)


def argwhere(x: ndarray) -> ndarray:
    """``np.argwhere(x)`` on the device: the indices of the nonzero elements as the rows of an int64
    array of shape (count, x.ndim) (for a 0-d `x`: (1, 0) or (0, 0))."""
    x = _source(x, "np.argwhere")
    if x.ndim == 0:
        return allocate((int(bool(x)), 0), _I64, x._queue, x._usm_type)
    return _coordinates(x, False)


def compress_mask(x: ndarray, mask: ndarray | ArrayLike) -> ndarray:
    """``x[mask]`` for a boolean `mask` of the shape of `x`'s leading ``mask.ndim`` dimensions (all of
    them: a 1-d result of the selected elements in C order; fewer: the selected subarrays, of shape
    ``(count,) + x.shape[mask.ndim:]``). A mask of another shape raises NumPy's IndexError."""
    x = _source(x, "boolean mask selection")
    queue, usm = _placed(x, [("mask", mask)])
    m = _on_queue(mask, None, queue, x._usm_type, False)
    if m.dtype != np.bool_:
        raise TypeError(f"a boolean mask selects elements; got a mask of {m.dtype}")
    if m.ndim > x.ndim:
        raise IndexError(
            f"too many indices for array: array is {x.ndim}-dimensional, but {m.ndim} were indexed"
        )
    for d, (a, b) in enumerate(zip(x.shape, m.shape)):
        if a != b:
            raise IndexError(
                f"boolean index did not match indexed array along axis {d}; size of axis is {a} but size "
                f"of corresponding boolean axis is {b}"
            )
    if m.ndim == 0:  # x[True] is x with a new axis, x[False] an empty one
        out = allocate((int(bool(m)), *x.shape), x.dtype, queue, usm)
        if out.shape[0]:
            out[0] = x
        return out
    if m.ndim < x.ndim:
        positions = _positions(m, queue, "device")
        rest = x.shape[m.ndim :]
        out = allocate((positions.shape[0], *rest), x.dtype, queue, usm)
        _gather(queue, x, _view(x), 0, m.ndim, positions, _view(positions), 0, out, out.shape, "clip", 0)
        return out
    if x.size == 0:
        return allocate((0,), x.dtype, queue, usm)

    def make(total: int) -> tuple[ndarray, list[int]]:
        out = allocate((total,), x.dtype, queue, usm)
        return out, _dense(out._data_ptr, (total,))

    m_view, x_view = _view(m), _view(x)
    if m.flags.c_contiguous and x.flags.c_contiguous:  # both as one flat run
        m_view = (m_view[0], (m.size,), (1,))
        x_view = (x_view[0], (x.size,), (x.itemsize,))
    return _compact(queue, m, m_view, "truth", "values", make, (x, x_view))


def _condition(condition: Any, queue: Queue, usm_type: str) -> ndarray:
    """A condition argument as a numba_ext array on `queue` (host data as NumPy reads it)."""
    if isinstance(condition, ndarray):
        return condition
    return asarray(np.asarray(condition), sycl_queue=queue, usm_type=usm_type)


def extract(condition: ndarray | ArrayLike, arr: ndarray) -> ndarray:
    """``np.extract(condition, arr)`` on the device: the elements of `arr` (flattened) at the flat
    positions where `condition` (flattened, of any size) is nonzero; a position past `arr`'s size
    raises IndexError."""
    arr = _source(arr, "np.extract")
    queue, usm = _placed(arr, [("condition", condition)])
    cond = _condition(condition, queue, arr._usm_type)
    if cond.shape == arr.shape and cond.dtype == np.bool_ and arr.ndim:
        return compress_mask(arr, cond)
    return _take(arr, _positions(cond, queue, "device"), None, "raise", queue, usm)


def compress(condition: ndarray | ArrayLike, a: ndarray, axis: int | None = None) -> ndarray:
    """``np.compress(condition, a, axis)`` on the device: the slices of `a` along `axis` (of `a`
    flattened where None) at the positions where the 1-d `condition` is nonzero; a condition shorter
    than the axis selects among its first elements, a nonzero past the axis raises IndexError."""
    a = _source(a, "np.compress")
    queue, usm = _placed(a, [("condition", condition)])
    cond = _condition(condition, queue, a._usm_type)
    if cond.ndim != 1:
        raise ValueError("condition must be a 1-d array")
    return _take(a, _positions(cond, queue, "device"), axis, "raise", queue, usm)


def repeat(x: ndarray, repeats: ndarray | ArrayLike, axis: int | None = None) -> ndarray:
    """``np.repeat(x, repeats, axis)`` on the device: each element of `x` (flattened where `axis` is
    None) or each slice along `axis` repeated ``repeats`` times (an int, or one count per element
    or slice); negative counts raise ValueError."""
    x = _source(x, "np.repeat")
    queue, usm = _placed(x, [("repeats", repeats)])
    if isinstance(repeats, ndarray):
        reps = repeats
        if reps.dtype.kind not in "biu":
            raise TypeError(
                f"Cannot cast array data from {reps.dtype!r} to dtype('int64') according to the rule 'safe'"
            )
    else:
        host = np.asarray(repeats)
        host = (
            host.astype(np.int64, casting="safe")
            if isinstance(repeats, np.ndarray)
            else np.array(repeats, np.int64)
        )
        if host.ndim > 1:
            raise ValueError("object too deep for desired array")
        if host.size and int(host.min()) < 0:
            raise ValueError("repeats may not contain negative values.")
        reps = asarray(host, sycl_queue=queue, usm_type=x._usm_type)
    if reps.ndim > 1:
        raise ValueError("object too deep for desired array")
    x_view = _view(x)
    if x.ndim == 0:
        x_view = (x_view[0], (1,), (x.itemsize,))
    if axis is None:
        axis, span = 0, len(x_view[1])
    else:
        if isinstance(axis, (bool, np.bool_)):
            raise TypeError("an integer is required for the axis")
        axis, span = normalize_axis(operator.index(axis), len(x_view[1])), 1
    shape = x_view[1]
    n = math.prod(shape[axis : axis + span])
    if reps.size not in (1, n):
        raise ValueError(f"operands could not be broadcast together with shape ({n},) ({reps.size},)")
    if isinstance(repeats, ndarray) and reps.size and reps.dtype.kind == "i" and int(reps.min()) < 0:
        raise ValueError("repeats may not contain negative values.")
    if n == 0:
        return allocate((*shape[:axis], 0, *shape[axis + span :]), x.dtype, queue, usm)
    r_ptr, r_shape, r_strides = _view(reps)
    r_view = (r_ptr, (n,), (0 if reps.size == 1 else (r_strides[0] if r_shape else 0),))

    def make(total: int) -> tuple[ndarray, list[int]]:
        out = allocate((total,), _I64, queue, "device")
        return out, _dense(out._data_ptr, (total,))

    positions = _compact(queue, reps, r_view, "count", "positions", make)
    total = positions.shape[0]
    out = allocate((*shape[:axis], total, *shape[axis + span :]), x.dtype, queue, usm)
    _gather(queue, x, x_view, axis, span, positions, _view(positions), axis, out, out.shape, "clip", axis)
    return out


# -- NumPy's signatures -------------------------------------------------------------------------------
def _no_out(name: str, out: Any) -> None:
    if out is not None:
        raise UnsupportedError(
            f"np.{name}(out=) of numba_ext arrays is not supported; use the array it returns"
        )


def _np_take(
    a: ndarray,
    indices: ndarray | ArrayLike,
    axis: int | None = None,
    out: ndarray | None = None,
    mode: str = "raise",
) -> ndarray:
    _no_out("take", out)
    return take(a, indices, axis, mode)


def _np_take_along_axis(arr: ndarray, indices: ndarray | ArrayLike, axis: int | None = -1) -> ndarray:
    return take_along_axis(arr, indices, axis)


def _np_compress(
    condition: ndarray | ArrayLike, a: ndarray, axis: int | None = None, out: ndarray | None = None
) -> ndarray:
    _no_out("compress", out)
    return compress(condition, a, axis)


GATHER_FUNCTIONS: dict[Callable[..., Any], Callable[..., Any]] = {
    np.take: _np_take,
    np.take_along_axis: _np_take_along_axis,
    np.nonzero: nonzero,
    np.flatnonzero: flatnonzero,
    np.argwhere: argwhere,
    np.extract: extract,
    np.compress: _np_compress,
    np.repeat: repeat,
}
