"""``empty_like``, ``zeros_like``, ``ones_like`` and ``full_like``: new arrays shaped like another
(a numba_ext array, a NumPy array or anything array-like), with NumPy's argument rules."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..devices import DeviceArg, Queue, resolve_queue
from .allocation import OrderLike, ShapeLike, allocate_in_order, order_axes
from .arguments import as_shape, check_size, fill_source, order_letter
from .creation import queue_for, write_fill
from .ndarray import ndarray
from .transfers import copy_to_host

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, DTypeLike


def _new_like(
    x: ndarray | ArrayLike,
    dtype: DTypeLike | None,
    order: OrderLike,
    shape: ShapeLike | None,
    placement: tuple[DeviceArg, Queue | None, str | None],
    fill_value: Any = None,
) -> ndarray:
    """A new array like `x` (dpctl.tensor's *_like rules for the placement): by default `x`'s shape,
    dtype and layout, and for a numba_ext `x` its queue and USM type; a NumPy array (or anything
    array-like) is on the default queue with `device` USM. Arguments are checked as NumPy's
    ``empty_like`` checks them (order, shape, size), then the fill value as ``full_like``'s copy."""
    device, sycl_queue, usm_type = placement
    if isinstance(x, ndarray):
        proto, q = x._desc, resolve_queue(device, sycl_queue) or x._queue
        usm = usm_type or x.usm_type
    else:
        proto, q, usm = np.asarray(x), queue_for(device, sycl_queue), usm_type or "device"
    dt = proto.dtype if dtype is None else np.dtype(dtype)
    letter = order_letter(order, "K")
    dims = proto.shape if shape is None else as_shape(shape)
    if letter == "K" and len(dims) != proto.ndim:
        letter = "C"  # NumPy: a shape of another rank cannot keep the layout
    check_size(dims, dt.itemsize)
    if isinstance(fill_value, ndarray):
        fill_value = copy_to_host(fill_value)
    source = None if fill_value is None else fill_source(fill_value, dt, dims)
    out = allocate_in_order(dims, dt, q, usm, order_axes(letter, len(dims), proto))
    if source is not None:
        write_fill(out, source)
    return out


def empty_like(
    x: ndarray | ArrayLike,
    dtype: DTypeLike | None = None,
    order: OrderLike = "K",
    *,
    shape: ShapeLike | None = None,
    device: DeviceArg = None,
    usm_type: str | None = None,
    sycl_queue: Queue | None = None,
) -> ndarray:
    """A new uninitialised array with the shape (and by default the dtype, queue, USM type and
    layout) of `x`; `shape` replaces its shape."""
    return _new_like(x, dtype, order, shape, (device, sycl_queue, usm_type))


def full_like(
    x: ndarray | ArrayLike,
    fill_value: ArrayLike,
    dtype: DTypeLike | None = None,
    order: OrderLike = "K",
    *,
    shape: ShapeLike | None = None,
    device: DeviceArg = None,
    usm_type: str | None = None,
    sycl_queue: Queue | None = None,
) -> ndarray:
    """A new array with the shape (and by default the dtype, queue, USM type and layout) of `x`,
    filled with `fill_value` (broadcast and cast as NumPy's ``full_like`` does)."""
    if fill_value is None:
        fill_value = np.asarray(None)  # NumPy's fill of None: the object, cast as any other
    return _new_like(x, dtype, order, shape, (device, sycl_queue, usm_type), fill_value)


def zeros_like(
    x: ndarray | ArrayLike,
    dtype: DTypeLike | None = None,
    order: OrderLike = "K",
    *,
    shape: ShapeLike | None = None,
    device: DeviceArg = None,
    usm_type: str | None = None,
    sycl_queue: Queue | None = None,
) -> ndarray:
    return _new_like(x, dtype, order, shape, (device, sycl_queue, usm_type), 0)


def ones_like(
    x: ndarray | ArrayLike,
    dtype: DTypeLike | None = None,
    order: OrderLike = "K",
    *,
    shape: ShapeLike | None = None,
    device: DeviceArg = None,
    usm_type: str | None = None,
    sycl_queue: Queue | None = None,
) -> ndarray:
    return _new_like(x, dtype, order, shape, (device, sycl_queue, usm_type), 1)
