"""Array creation: array, asarray, empty, zeros, ones, full, arange, and asnumpy (the *_like forms are in
``like``).

Arguments follow NumPy's rules and raise NumPy's exceptions (``arguments``): shapes, dtypes, fill
values, ``order=`` ('C' or 'F' for new arrays, also 'A' and 'K', the default, for asarray, which
keeps the layout of its input) and ``like=``. Then come numba_ext's own checks: a dtype its arrays
hold (else a TypeError naming them), the device's precision, the USM type."""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any, SupportsIndex

import numpy as np

from .. import _core
from ..devices import DeviceArg, Queue, default_queue, resolve_queue
from ..errors import ExecutionPlacementError
from .allocation import OrderLike, ShapeLike, allocate_in_order, order_axes
from .arguments import (
    MAXDIMS,
    as_shape,
    check_like,
    check_new_order,
    check_size,
    copy_flag,
    fill_source,
    order_letter,
)
from .dtypes import check_dtype, check_usm_type, default_float
from .interface import from_usm_interface
from .ndarray import ndarray
from .transfers import convert, copy_to_host, upload_into

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, DTypeLike


def queue_for(device: DeviceArg, sycl_queue: Queue | None) -> Queue:
    """The queue `device` or `sycl_queue` names, else the default queue."""
    return resolve_queue(device, sycl_queue) or default_queue()


class _NoFill:
    """The fill of ``empty``: none."""


_NO_FILL = _NoFill()


def new_array(
    shape: Any,
    dtype: DTypeLike | None,
    order: Any,
    like: Any,
    queue: Queue,
    usm_type: str,
    fill_value: Any = _NO_FILL,
) -> ndarray:
    """A new array of memory order 'C' or 'F', its arguments checked by NumPy's rules and in NumPy's
    order (shape, dtype, order, like, the size, the memory, then the fill value; None as dtype is
    the queue's default float), with ours (a dtype numba_ext arrays hold, the device's precision)
    before the memory is allocated."""
    dims = as_shape(shape)
    dt = default_float(queue) if dtype is None else np.dtype(dtype)
    letter = order_letter(order, "C")
    check_like(like)
    check_new_order(letter)
    check_size(dims, dt.itemsize)
    dt = check_dtype(dt)  # one numba_ext arrays hold, before the fill value is converted to it
    # as NumPy: the memory first (too large is a MemoryError whatever the fill), then the fill value
    out = allocate_in_order(dims, dt, queue, usm_type, order_axes(letter, len(dims), allowed="CF"))
    if fill_value is not _NO_FILL:
        write_fill(out, fill_source(fill_value, dt, dims))
    return out


def write_fill(out: ndarray, source: bytes | np.ndarray) -> None:
    """Fill a new dense array (any axis order) with one element's bytes, or copy a host array into it."""
    if isinstance(source, np.ndarray):
        upload_into(out, source)
    elif out.nbytes:
        _core.fill(out._queue, out._data_ptr, source, out.nbytes)  # dense, from its first element


def empty(
    shape: ShapeLike,
    dtype: DTypeLike | None = None,
    order: OrderLike = "C",
    *,
    device: DeviceArg = None,
    usm_type: str = "device",
    sycl_queue: Queue | None = None,
    like: Any = None,
) -> ndarray:
    q = queue_for(device, sycl_queue)
    return new_array(shape, dtype, order, like, q, usm_type)


def full(
    shape: ShapeLike,
    fill_value: ArrayLike,
    dtype: DTypeLike | None = None,
    order: OrderLike = "C",
    *,
    device: DeviceArg = None,
    usm_type: str = "device",
    sycl_queue: Queue | None = None,
    like: Any = None,
) -> ndarray:
    """A new array filled with `fill_value` (broadcast to `shape`, cast as NumPy's ``full`` casts);
    without `dtype`, the fill value's dtype (double precision as the device's default float)."""
    check_like(like)  # NumPy's full checks like= first, then takes the fill value's dtype
    q = queue_for(device, sycl_queue)
    if isinstance(fill_value, ndarray):
        fill_value = copy_to_host(fill_value)
    if dtype is None:
        dtype = np.asarray(fill_value).dtype
        if dtype.char in "dD" and not q.device.has_fp64:
            dtype = np.dtype(np.float32 if dtype.kind == "f" else np.complex64)
    return new_array(shape, dtype, order, like, q, usm_type, fill_value)


def zeros(
    shape: ShapeLike,
    dtype: DTypeLike | None = None,
    order: OrderLike = "C",
    *,
    device: DeviceArg = None,
    usm_type: str = "device",
    sycl_queue: Queue | None = None,
    like: Any = None,
) -> ndarray:
    q = queue_for(device, sycl_queue)
    return new_array(shape, dtype, order, like, q, usm_type, 0)


def ones(
    shape: ShapeLike,
    dtype: DTypeLike | None = None,
    order: OrderLike = "C",
    *,
    device: DeviceArg = None,
    usm_type: str = "device",
    sycl_queue: Queue | None = None,
    like: Any = None,
) -> ndarray:
    check_like(like)  # NumPy's ones checks like= first
    q = queue_for(device, sycl_queue)
    return new_array(shape, dtype, order, like, q, usm_type, 1)


class _NoStart:
    """The start of ``arange(stop=n)``: none given (an explicit None is NumPy's TypeError)."""

    def __repr__(self) -> str:
        return "<no start>"


_NO_START: Any = _NoStart()


def arange(
    start: Any = _NO_START,
    stop: Any = None,
    step: Any = None,
    dtype: DTypeLike | None = None,
    *,
    device: DeviceArg = None,
    usm_type: str = "device",
    sycl_queue: Queue | None = None,
    like: Any = None,
) -> ndarray:
    """NumPy's ``arange`` (its values, arguments and errors; ``arange(stop=n)`` too) on the queue;
    floating-point results in the device's default float when `dtype` is not given."""
    check_like(like)
    if start is _NO_START:
        if stop is None:
            raise TypeError("arange() requires stop to be specified.")
        start, stop = stop, None  # arange(stop=n)
    host = np.arange(start, stop, step, dtype=dtype)
    if dtype is None and host.dtype.char in "dD":
        q = queue_for(device, sycl_queue)
        if not q.device.has_fp64:
            host = host.astype(np.float32 if host.dtype.kind == "f" else np.complex64)
    return asarray(host, device=device, usm_type=usm_type, sycl_queue=sycl_queue)


def asnumpy(x: Any) -> np.ndarray:
    """Copy a numba_ext array (any strides) into a new C-contiguous NumPy array (NumPy arrays are
    returned as they are)."""
    if isinstance(x, np.ndarray):
        return x
    if not isinstance(x, ndarray):
        raise TypeError(f"asnumpy expects a numba_ext.ndarray, got {type(x).__name__}")
    return copy_to_host(x)


def asarray(
    obj: Any,
    dtype: DTypeLike | None = None,
    order: OrderLike = "K",
    *,
    device: DeviceArg = None,
    sycl_queue: Queue | None = None,
    usm_type: str | None = None,
    copy: bool | None = None,
    like: Any = None,
) -> ndarray:
    """`obj` as a numba_ext.ndarray on the requested queue, in memory order `order` ('K', the
    default, keeps the layout of an array `obj`; 'A' keeps F-contiguous arrays F; 'C'; 'F').

    No copy when `obj` already is such an array on the same queue with the same dtype and USM type
    (or on a queue sharing its context: USM memory belongs to the context) and its layout satisfies
    `order`. `copy=True` always copies; `copy=False` raises ValueError if a copy would be needed
    (always for host data, which must be copied into USM memory)."""
    dt = None if dtype is None else np.dtype(dtype)
    letter = order_letter(order, "K")
    copy = copy_flag(copy)
    check_like(like)
    if usm_type is not None:
        check_usm_type(usm_type)
    target = resolve_queue(device, sycl_queue)

    if not isinstance(obj, ndarray) and hasattr(obj, "__sycl_usm_array_interface__"):
        obj = from_usm_interface(obj, obj.__sycl_usm_array_interface__)

    if isinstance(obj, ndarray):
        return convert(obj, target, dt, usm_type, copy, letter)

    if copy is False:
        raise ExecutionPlacementError(
            f"asarray(copy=False) of a {type(obj).__name__}: host data cannot be used in place by a "
            "device and must be copied into USM memory; pass copy=None (the default) or copy=True"
        )
    leaves = _array_leaves(obj)
    if leaves:  # a nested sequence holding numba_ext arrays: their elements, on their queue
        q = target or placed_queue(leaves)
        host = np.asarray(_host_leaves(obj), dtype=dt)
        usm_type = usm_type or next(
            t for t in ("device", "shared", "host") if any(a.usm_type == t for a in leaves)
        )
    else:
        q = target or default_queue()
        host = np.asarray(obj, dtype=dt)
    if dt is None and host.dtype.char in "dD" and not q.device.has_fp64:
        host = host.astype(np.float32 if host.dtype.kind == "f" else np.complex64)
    out = allocate_in_order(
        host.shape, host.dtype, q, usm_type or "device", order_axes(letter, host.ndim, host)
    )
    upload_into(out, host)
    return out


def _array_leaves(obj: Any) -> list[ndarray]:
    """The numba_ext arrays inside a nested list or tuple `obj`."""
    if not isinstance(obj, (list, tuple)):
        return []
    found: list[ndarray] = []
    for item in obj:
        if isinstance(item, ndarray):
            found.append(item)
        else:
            found.extend(_array_leaves(item))
    return found


def _host_leaves(obj: Any) -> Any:
    """A nested list or tuple with its numba_ext arrays copied to the host."""
    if isinstance(obj, ndarray):
        return copy_to_host(obj)
    if isinstance(obj, (list, tuple)):
        return [_host_leaves(item) for item in obj]
    return obj


def placed_queue(arrays: list[ndarray]) -> Queue:
    """The queue of `arrays` (the first one's; ``ExecutionPlacementError`` naming each where they are
    not all on equivalent queues, as compute follows data demands). The result's USM type follows
    the precedence device < shared < host, as everywhere."""
    q = arrays[0]._queue
    if not all(a._queue is q or a._queue.equivalent(q) for a in arrays):
        where = ", ".join(f"element {i} on {a.device.filter_string}" for i, a in enumerate(arrays))
        raise ExecutionPlacementError(
            f"asarray() of a sequence of numba_ext arrays on non-equivalent queues ({where}); copy them "
            "to one queue first, e.g. numba_ext.asarray(x, sycl_queue=q)"
        )
    return q


def array(
    obj: Any,
    dtype: DTypeLike | None = None,
    *,
    copy: bool | None = True,
    order: OrderLike = "K",
    ndmin: SupportsIndex = 0,
    like: Any = None,
    device: DeviceArg = None,
    usm_type: str | None = None,
    sycl_queue: Queue | None = None,
) -> ndarray:
    """NumPy's ``array``: ``asarray`` that copies by default (``copy=True``), with `ndmin` leading
    axes of length 1 added up to that many dimensions (a view)."""
    if dtype is not None:
        np.dtype(dtype)  # NumPy's order of checks: dtype, copy, order, ndmin, like; then the rest
    copy_flag(copy)
    order_letter(order, "K")
    nmin = operator.index(ndmin)
    check_like(like)
    if nmin > MAXDIMS:
        raise ValueError(f"ndmin must be <= ndmax ({MAXDIMS})")
    out = asarray(
        obj, dtype, order, device=device, sycl_queue=sycl_queue, usm_type=usm_type, copy=copy, like=like
    )
    return out.reshape((1,) * (nmin - out.ndim) + out.shape) if out.ndim < nmin else out
