"""Array creation: asarray, empty, zeros, ones, full, their *_like forms, arange, and asnumpy.

Every creation function takes NumPy's ``order=``: 'C' or 'F' for new arrays, also 'A' and 'K'
(the default) for the *_like forms and asarray, which keep the layout of their input."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from .. import _core
from ..devices import DeviceArg, Queue, default_queue, resolve_queue
from .allocation import OrderLike, ShapeLike, allocate_in_order, normalize_shape, order_axes
from .dtypes import check_usm_type, default_float
from .interface import from_usm_interface
from .ndarray import ndarray
from .transfers import convert, copy_to_host, upload_into


def _queue_for(device: DeviceArg, sycl_queue: Queue | None) -> Queue:
    return resolve_queue(device, sycl_queue) or default_queue()


def empty(
    shape: ShapeLike,
    dtype: DTypeLike | None = None,
    *,
    device: DeviceArg = None,
    usm_type: str = "device",
    sycl_queue: Queue | None = None,
    order: OrderLike = "C",
) -> ndarray:
    q = _queue_for(device, sycl_queue)
    dt = dtype if dtype is not None else default_float(q)
    return allocate_in_order(shape, dt, q, usm_type, _new_order(order, shape))


def _new_order(order: OrderLike, shape: ShapeLike) -> tuple[int, ...]:
    """The axis order of a new array of `shape` in memory order 'C' or 'F'."""
    return order_axes(order, len(normalize_shape(shape)), allowed="CF")


def full(
    shape: ShapeLike,
    fill_value: ArrayLike,
    dtype: DTypeLike | None = None,
    *,
    device: DeviceArg = None,
    usm_type: str = "device",
    sycl_queue: Queue | None = None,
    order: OrderLike = "C",
) -> ndarray:
    q = _queue_for(device, sycl_queue)
    if dtype is None:
        dtype = np.asarray(fill_value).dtype
        if dtype.kind == "f":
            dtype = default_float(q)
    out = allocate_in_order(shape, dtype, q, usm_type, _new_order(order, shape))
    _fill(out, fill_value)
    return out


def _fill(out: ndarray, fill_value: ArrayLike) -> None:
    """Fill a new dense array (any axis order) with one value."""
    if out.nbytes:
        pattern = np.asarray(fill_value, dtype=out.dtype).tobytes()
        _core.fill(out._queue, out._data_ptr, pattern, out.nbytes)  # dense, from its first element


def zeros(
    shape: ShapeLike,
    dtype: DTypeLike | None = None,
    *,
    device: DeviceArg = None,
    usm_type: str = "device",
    sycl_queue: Queue | None = None,
    order: OrderLike = "C",
) -> ndarray:
    return full(
        shape,
        0,
        dtype or default_float(_queue_for(device, sycl_queue)),
        device=device,
        usm_type=usm_type,
        sycl_queue=sycl_queue,
        order=order,
    )


def ones(
    shape: ShapeLike,
    dtype: DTypeLike | None = None,
    *,
    device: DeviceArg = None,
    usm_type: str = "device",
    sycl_queue: Queue | None = None,
    order: OrderLike = "C",
) -> ndarray:
    return full(
        shape,
        1,
        dtype or default_float(_queue_for(device, sycl_queue)),
        device=device,
        usm_type=usm_type,
        sycl_queue=sycl_queue,
        order=order,
    )


def _like(
    x: ndarray | ArrayLike,
    dtype: DTypeLike | None,
    device: DeviceArg,
    usm_type: str | None,
    sycl_queue: Queue | None,
    order: OrderLike,
) -> tuple[tuple[int, ...], DTypeLike, Queue, str, tuple[int, ...]]:
    """Shape, dtype, queue, USM type and axis order of a new array like `x` (dpctl.tensor's *_like
    rules): by default those of `x`; a NumPy array (or anything array-like) gives its shape, dtype
    and layout, on the default queue with `device` USM."""
    if isinstance(x, ndarray):
        q = resolve_queue(device, sycl_queue) or x._queue
        axes = order_axes(order, x.ndim, x._desc)
        return x.shape, dtype if dtype is not None else x.dtype, q, usm_type or x.usm_type, axes
    h = np.asarray(x)
    return (
        h.shape,
        dtype if dtype is not None else h.dtype,
        _queue_for(device, sycl_queue),
        usm_type or "device",
        order_axes(order, h.ndim, h),
    )


def empty_like(
    x: ndarray | ArrayLike,
    dtype: DTypeLike | None = None,
    *,
    device: DeviceArg = None,
    usm_type: str | None = None,
    sycl_queue: Queue | None = None,
    order: OrderLike = "K",
) -> ndarray:
    """A new uninitialised array with the shape (and by default the dtype, queue, USM type and
    layout) of `x`."""
    shape, dt, q, usm, axes = _like(x, dtype, device, usm_type, sycl_queue, order)
    return allocate_in_order(shape, dt, q, usm, axes)


def full_like(
    x: ndarray | ArrayLike,
    fill_value: ArrayLike,
    dtype: DTypeLike | None = None,
    *,
    device: DeviceArg = None,
    usm_type: str | None = None,
    sycl_queue: Queue | None = None,
    order: OrderLike = "K",
) -> ndarray:
    """A new array with the shape (and by default the dtype, queue, USM type and layout) of `x`,
    filled with `fill_value`."""
    shape, dt, q, usm, axes = _like(x, dtype, device, usm_type, sycl_queue, order)
    out = allocate_in_order(shape, dt, q, usm, axes)
    _fill(out, fill_value)
    return out


def zeros_like(
    x: ndarray | ArrayLike,
    dtype: DTypeLike | None = None,
    *,
    device: DeviceArg = None,
    usm_type: str | None = None,
    sycl_queue: Queue | None = None,
    order: OrderLike = "K",
) -> ndarray:
    return full_like(x, 0, dtype, device=device, usm_type=usm_type, sycl_queue=sycl_queue, order=order)


def ones_like(
    x: ndarray | ArrayLike,
    dtype: DTypeLike | None = None,
    *,
    device: DeviceArg = None,
    usm_type: str | None = None,
    sycl_queue: Queue | None = None,
    order: OrderLike = "K",
) -> ndarray:
    return full_like(x, 1, dtype, device=device, usm_type=usm_type, sycl_queue=sycl_queue, order=order)


def arange(
    start: float,
    stop: float | None = None,
    step: float = 1,
    dtype: DTypeLike | None = None,
    *,
    device: DeviceArg = None,
    usm_type: str = "device",
    sycl_queue: Queue | None = None,
) -> ndarray:
    host = np.arange(start, stop, step, dtype=dtype)
    if dtype is None and host.dtype.kind == "f":
        host = host.astype(default_float(_queue_for(device, sycl_queue)))
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
    *,
    device: DeviceArg = None,
    sycl_queue: Queue | None = None,
    usm_type: str | None = None,
    copy: bool | None = None,
    order: OrderLike = "K",
) -> ndarray:
    """`obj` as a numba_ext.ndarray on the requested queue, in memory order `order` ('K', the
    default, keeps the layout of an array `obj`; 'A' keeps F-contiguous arrays F; 'C'; 'F').

    No copy when `obj` already is such an array on the same queue with the same dtype and USM type
    (or on a queue sharing its context: USM memory belongs to the context) and its layout satisfies
    `order`. `copy=True` always copies; `copy=False` raises ValueError if a copy would be needed."""
    if usm_type is not None:
        check_usm_type(usm_type)
    target = resolve_queue(device, sycl_queue)

    if not isinstance(obj, ndarray) and hasattr(obj, "__sycl_usm_array_interface__"):
        obj = from_usm_interface(obj, obj.__sycl_usm_array_interface__)

    if isinstance(obj, ndarray):
        return convert(obj, target, dtype, usm_type, copy, order)

    if copy is False:
        raise ValueError("asarray(copy=False): host data must be copied into USM memory")
    q = target or default_queue()
    host = np.asarray(obj, dtype=dtype)
    if dtype is None and host.dtype.char in "dD" and not q.device.has_fp64:
        host = host.astype(np.float32 if host.dtype.kind == "f" else np.complex64)
    out = allocate_in_order(
        host.shape, host.dtype, q, usm_type or "device", order_axes(order, host.ndim, host)
    )
    upload_into(out, host)
    return out
