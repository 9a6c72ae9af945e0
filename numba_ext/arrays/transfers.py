"""Copies between host memory and numba_ext arrays of any strides, and ``convert``: an array on
another queue, with another dtype or USM type, copied only where the memory cannot be shared, and
converted on the device where it stays in one context (``casts``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .. import _core
from ..devices import Queue
from .allocation import OrderLike, allocate_in_order, order_axes
from .casts import cast_into, on_device
from .dtypes import check_dtype, check_usm_type

if TYPE_CHECKING:
    from numpy.typing import DTypeLike

    from .ndarray import ndarray


def byte_span(d: np.ndarray) -> tuple[int, int]:
    """Byte range [lo, hi) relative to the first element that a strided array touches."""
    lo = sum(min(0, (n - 1) * s) for n, s in zip(d.shape, d.strides))
    hi = sum(max(0, (n - 1) * s) for n, s in zip(d.shape, d.strides)) + d.itemsize
    return lo, hi


def upload_into(dst: ndarray, host: np.ndarray) -> None:
    """Copy host data (same shape) into `dst` (any strides)."""
    if dst.size == 0:
        return
    d = dst._desc
    if d.flags.c_contiguous:
        src = np.ascontiguousarray(host, dtype=dst.dtype)
        _core.memcpy(dst._queue, dst._data_ptr, src.ctypes.data, dst.nbytes)
        return
    lo, hi = byte_span(d)
    staging = np.empty(hi - lo, np.uint8)
    if hi - lo != d.nbytes:  # gaps between the elements: keep them intact
        _core.memcpy(dst._queue, staging.ctypes.data, dst._data_ptr + lo, hi - lo)
    view = np.ndarray(d.shape, d.dtype, buffer=staging, offset=-lo, strides=d.strides)
    view[...] = host
    _core.memcpy(dst._queue, dst._data_ptr + lo, staging.ctypes.data, hi - lo)


def copy_to_host(x: ndarray) -> np.ndarray:
    """Copy a numba_ext array (any strides) into a new NumPy array: one with the same strides where
    the array is dense (C- or F-contiguous, or a permutation of those, as dpctl's ``asnumpy``
    keeps them), else a C-contiguous one."""
    d = x._desc
    if d.size == 0 or d.flags.c_contiguous:
        out = np.empty(d.shape, d.dtype)
        if d.size:
            _core.memcpy(x._queue, out.ctypes.data, d.ctypes.data, d.nbytes)
        return out
    lo, hi = byte_span(d)
    staging = np.empty(hi - lo, np.uint8)
    _core.memcpy(x._queue, staging.ctypes.data, d.ctypes.data + lo, hi - lo)
    view = np.ndarray(d.shape, d.dtype, buffer=staging, offset=-lo, strides=d.strides)
    if hi - lo == d.nbytes and all(s > 0 for s in d.strides):
        return view
    return np.ascontiguousarray(view)


def convert(
    x: ndarray,
    queue: Queue | None,
    dtype: DTypeLike | None,
    usm_type: str | None,
    copy: bool | None,
    order: OrderLike = "K",
    casting: Any = "unsafe",
) -> ndarray:
    """`x` on `queue` (default: its own) with `dtype` and `usm_type` (default: its own) in memory
    order `order` ('K' keeps `x`'s layout; 'A' keeps F-contiguous arrays F, else C).

    No copy when nothing changes, or when only the queue does and it shares `x`'s context (USM
    memory belongs to the context); `copy=True` always copies; `copy=False` raises ValueError if a
    copy would be needed. A change of dtype casts as NumPy's ``astype(casting=casting)``."""
    q = queue or x._queue
    want_dtype = check_dtype(dtype) if dtype is not None else x.dtype
    want_usm = check_usm_type(usm_type) if usm_type is not None else x.usm_type
    axes = order_axes(order, x.ndim, x._desc)
    d = x._desc
    layout_ok = (
        (order or "K").upper() == "K"
        or (d.flags.c_contiguous and axes == tuple(range(x.ndim)))
        or (d.flags.f_contiguous and axes == tuple(range(x.ndim))[::-1])
    )
    same_memory_ok = (
        q.context == x._queue.context and want_dtype == x.dtype and want_usm == x.usm_type and layout_ok
    )
    if same_memory_ok and not copy:
        if q == x._queue:
            return x
        return x._wrap(x._desc, q, x._usm_type, x._base_ptr)  # the same memory, bound to `q`
    if copy is False:
        raise ValueError(
            f"asarray(copy=False): a copy is needed (from {x._queue!r}/{x.usm_type}/{x.dtype}/"
            f"{_layout_name(d)} to {q!r}/{want_usm}/{want_dtype}/order={order!r})"
        )
    copier = _direct_copy_queue(x, q, want_usm)
    if copier is not None and want_dtype == x.dtype and d.flags.c_contiguous and axes == tuple(range(x.ndim)):
        out = allocate_in_order(x.shape, want_dtype, q, want_usm, axes)
        _core.memcpy(copier, out._data_ptr, x._data_ptr, x.nbytes)  # one copy, no host staging
        return out
    by_dtype = casting in _DTYPE_CASTING  # not NumPy's 'same_value', which checks every value
    if by_dtype and q.context == x._queue.context and on_device(x.dtype, want_dtype, q.device):
        np.empty(0, x.dtype).astype(want_dtype, casting=casting)  # NumPy's casting check, no data
        out = allocate_in_order(x.shape, want_dtype, q, want_usm, axes)
        cast_into(out, x)  # one kernel on the device (the memory of one context), no host copy
        return out
    host = copy_to_host(x).astype(want_dtype, casting=casting, copy=False)
    out = allocate_in_order(host.shape, want_dtype, q, want_usm, axes)
    upload_into(out, host)
    return out


#: the casting rules NumPy decides by the dtypes alone
_DTYPE_CASTING = frozenset({"no", "equiv", "safe", "same_kind", "unsafe"})


def _direct_copy_queue(x: ndarray, q: Queue, want_usm: str) -> Queue | None:
    """The queue that copies `x`'s USM memory into new USM memory of `q`'s context in one copy: `q`
    within one context; across contexts, the queue of the side whose memory the other side's queue
    cannot address, where the other side's memory is host-addressable (USM on a CPU device, or host
    or shared USM), which that queue reads or writes as host memory. None: stage through the host."""
    src, dst = x._queue.device, q.device
    if not (src.has_usm and dst.has_usm):
        return None
    if q.context == x._queue.context:
        return q
    if src.device_type == "cpu" or x.usm_type in ("host", "shared"):
        return q
    if dst.device_type == "cpu" or want_usm in ("host", "shared"):
        return x._queue
    return None


def _layout_name(d: np.ndarray) -> str:
    return "C" if d.flags.c_contiguous else ("F" if d.flags.f_contiguous else "strided")
