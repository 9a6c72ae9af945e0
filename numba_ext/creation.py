"""Array creation and transfer: asarray, empty, zeros, ones, full, their *_like forms, arange, asnumpy."""

from __future__ import annotations

import numbers

import numpy as np

from . import _core
from .array import SUPPORTED_DTYPES, USM_TYPES, check_dtype, check_usm_type, ndarray

_SUPPORTED = frozenset(SUPPORTED_DTYPES)
_USM = frozenset(USM_TYPES)
from .runtime import Queue, default_queue, resolve_queue


def _default_float(queue: Queue) -> np.dtype:
    return np.dtype("float64" if queue.device.has_fp64 else "float32")


def _shape(shape) -> tuple:
    if isinstance(shape, (numbers.Integral, np.integer)):
        shape = (int(shape),)
    try:
        shape = tuple(int(s) for s in shape)
    except TypeError:
        raise TypeError(f"shape must be an int or a sequence of ints, got {shape!r}") from None
    if any(s < 0 for s in shape):
        raise ValueError(f"negative dimensions are not allowed: {shape}")
    return shape


# (dtype, ndim, usm_type, device filter string) -> ArrayInfo of new C-contiguous arrays
_infos: dict = {}


def _allocate(shape, dtype, queue: Queue, usm_type: str) -> ndarray:
    """A new C-contiguous array: allocated and wrapped by the extension (``_core.empty``), which
    returns an array holding only its native image, as compiled code's results do."""
    dt = dtype if type(dtype) is np.dtype and dtype in _SUPPORTED else check_dtype(dtype)
    if type(shape) is not tuple or (shape and min(shape) < 0):
        shape = _shape(shape)
    key = (dt, len(shape), usm_type, queue.device.filter_string)
    info = _infos.get(key)
    if info is None:
        info = _new_array_info(dt, len(shape), usm_type, queue)
    return _core.empty(queue, shape, dt.itemsize, info)


def _new_array_info(dt: np.dtype, ndim: int, usm_type: str, queue: Queue):
    from numba.np import numpy_support

    from .numba.types import USMArrayType, array_info

    check_usm_type(usm_type)
    if dt.char == "d" and not queue.device.has_fp64:
        raise TypeError(f"device {queue.device.filter_string} has no fp64 support; use float32")
    device = queue.device.filter_string
    t = USMArrayType(numpy_support.from_dtype(dt), ndim, "C", usm_type=usm_type, device=device)
    info = _infos[(dt, ndim, usm_type, device)] = array_info(t)
    return info


def _queue_for(device, sycl_queue) -> Queue:
    return resolve_queue(device, sycl_queue) or default_queue()


def empty(shape, dtype=None, *, device=None, usm_type="device", sycl_queue=None) -> ndarray:
    q = _queue_for(device, sycl_queue)
    return _allocate(shape, dtype if dtype is not None else _default_float(q), q, usm_type)


def full(shape, fill_value, dtype=None, *, device=None, usm_type="device", sycl_queue=None) -> ndarray:
    q = _queue_for(device, sycl_queue)
    if dtype is None:
        dtype = np.asarray(fill_value).dtype
        if dtype.kind == "f":
            dtype = _default_float(q)
    out = _allocate(shape, dtype, q, usm_type)
    if out.nbytes:
        pattern = np.asarray(fill_value, dtype=out.dtype).tobytes()
        _core.fill(out._queue, out._data_ptr, pattern, out.nbytes)
    return out


def zeros(shape, dtype=None, *, device=None, usm_type="device", sycl_queue=None) -> ndarray:
    return full(
        shape,
        0,
        dtype or _default_float(_queue_for(device, sycl_queue)),
        device=device,
        usm_type=usm_type,
        sycl_queue=sycl_queue,
    )


def ones(shape, dtype=None, *, device=None, usm_type="device", sycl_queue=None) -> ndarray:
    return full(
        shape,
        1,
        dtype or _default_float(_queue_for(device, sycl_queue)),
        device=device,
        usm_type=usm_type,
        sycl_queue=sycl_queue,
    )


def _like(x, dtype, device, usm_type, sycl_queue):
    """Shape, dtype, queue and USM type of a new array like `x` (dpctl.tensor's *_like rules): by
    default those of `x`; a NumPy array (or anything array-like) gives its shape and dtype, on the
    default queue with `device` USM."""
    if isinstance(x, ndarray):
        q = resolve_queue(device, sycl_queue) or x._queue
        return x.shape, dtype if dtype is not None else x.dtype, q, usm_type or x.usm_type
    h = np.asarray(x)
    return (
        h.shape,
        dtype if dtype is not None else h.dtype,
        _queue_for(device, sycl_queue),
        usm_type or "device",
    )


def empty_like(x, dtype=None, *, device=None, usm_type=None, sycl_queue=None) -> ndarray:
    """A new uninitialised array with the shape (and by default the dtype, queue and USM type) of `x`."""
    shape, dt, q, usm = _like(x, dtype, device, usm_type, sycl_queue)
    return _allocate(shape, dt, q, usm)


def full_like(x, fill_value, dtype=None, *, device=None, usm_type=None, sycl_queue=None) -> ndarray:
    """A new array with the shape (and by default the dtype, queue and USM type) of `x`, filled with
    `fill_value`."""
    shape, dt, q, usm = _like(x, dtype, device, usm_type, sycl_queue)
    return full(shape, fill_value, dt, usm_type=usm, sycl_queue=q)


def zeros_like(x, dtype=None, *, device=None, usm_type=None, sycl_queue=None) -> ndarray:
    return full_like(x, 0, dtype, device=device, usm_type=usm_type, sycl_queue=sycl_queue)


def ones_like(x, dtype=None, *, device=None, usm_type=None, sycl_queue=None) -> ndarray:
    return full_like(x, 1, dtype, device=device, usm_type=usm_type, sycl_queue=sycl_queue)


def arange(
    start, stop=None, step=1, dtype=None, *, device=None, usm_type="device", sycl_queue=None
) -> ndarray:
    host = np.arange(start, stop, step, dtype=dtype)
    if dtype is None and host.dtype.kind == "f":
        host = host.astype(_default_float(_queue_for(device, sycl_queue)))
    return asarray(host, device=device, usm_type=usm_type, sycl_queue=sycl_queue)


def _upload_into(dst: ndarray, host: np.ndarray) -> None:
    """Copy host data (same shape) into `dst` (any strides)."""
    if dst.size == 0:
        return
    if dst._desc.flags.c_contiguous:
        src = np.ascontiguousarray(host, dtype=dst.dtype)
        _core.memcpy(dst._queue, dst._data_ptr, src.ctypes.data, dst.nbytes)
        return
    lo, hi = _span(dst._desc)
    staging = np.empty(hi - lo, np.uint8)
    _core.memcpy(dst._queue, staging.ctypes.data, dst._data_ptr + lo, hi - lo)  # keep gaps intact
    view = np.ndarray(dst.shape, dst.dtype, buffer=staging, offset=-lo, strides=dst.strides)
    view[...] = host
    _core.memcpy(dst._queue, dst._data_ptr + lo, staging.ctypes.data, hi - lo)


def _span(d: np.ndarray) -> tuple[int, int]:
    """Byte range [lo, hi) relative to the first element that a strided array touches."""
    lo = sum(min(0, (n - 1) * s) for n, s in zip(d.shape, d.strides))
    hi = sum(max(0, (n - 1) * s) for n, s in zip(d.shape, d.strides)) + d.itemsize
    return lo, hi


def asnumpy(x) -> np.ndarray:
    """Copy a numba_ext array (any strides) into a new C-contiguous NumPy array."""
    if isinstance(x, np.ndarray):
        return x
    if not isinstance(x, ndarray):
        raise TypeError(f"asnumpy expects a numba_ext.ndarray, got {type(x).__name__}")
    d = x._desc
    out = np.empty(d.shape, d.dtype)
    if d.size == 0:
        return out
    if d.flags.c_contiguous:
        _core.memcpy(x._queue, out.ctypes.data, d.ctypes.data, d.nbytes)
        return out
    lo, hi = _span(d)
    staging = np.empty(hi - lo, np.uint8)
    _core.memcpy(x._queue, staging.ctypes.data, d.ctypes.data + lo, hi - lo)
    out[...] = np.ndarray(d.shape, d.dtype, buffer=staging, offset=-lo, strides=d.strides)
    return out


def _from_suai(obj, iface: dict):
    """Wrap an object exposing __sycl_usm_array_interface__ with no copy (its queue must be ours)."""
    q = iface.get("syclobj")
    if not isinstance(q, Queue):
        raise TypeError(
            f"{type(obj).__name__} exposes __sycl_usm_array_interface__ with syclobj={q!r}, which is "
            "not a numba_ext.Queue; its memory belongs to another runtime. Copy it through the host "
            "(e.g. numba_ext.asarray(<to-numpy>(x)))"
        )
    ptr, readonly = iface["data"]
    dt = check_dtype(np.dtype(iface["typestr"]))
    shape = tuple(iface["shape"])
    strides = iface.get("strides")
    offset = int(iface.get("offset", 0) or 0)

    class _Holder:
        # keeps `obj` alive and gives NumPy the address/shape/strides
        def __init__(self):
            self.obj = obj
            self.__array_interface__ = {
                "data": (ptr + offset * dt.itemsize, bool(readonly)),
                "shape": shape,
                "strides": None if strides is None else tuple(s * dt.itemsize for s in strides),
                "typestr": dt.str,
                "version": 3,
            }

    desc = np.asarray(_Holder())
    usm_type = getattr(obj, "usm_type", "device")
    return ndarray._wrap(desc, q, check_usm_type(usm_type), ptr)


def asarray(obj, dtype=None, *, device=None, sycl_queue=None, usm_type=None, copy=None) -> ndarray:
    """`obj` as a numba_ext.ndarray on the requested queue.

    No copy when `obj` already is such an array on the same queue with the same dtype and USM type
    (or on a queue sharing its context: USM memory belongs to the context). `copy=True` always
    copies; `copy=False` raises ValueError if a copy would be needed."""
    if usm_type is not None:
        check_usm_type(usm_type)
    target = resolve_queue(device, sycl_queue)

    if not isinstance(obj, ndarray) and hasattr(obj, "__sycl_usm_array_interface__"):
        obj = _from_suai(obj, obj.__sycl_usm_array_interface__)

    if isinstance(obj, ndarray):
        q = target or obj._queue
        want_dtype = check_dtype(dtype) if dtype is not None else obj.dtype
        want_usm = usm_type or obj.usm_type
        same_memory_ok = (
            q.context == obj._queue.context and want_dtype == obj.dtype and want_usm == obj.usm_type
        )
        if same_memory_ok and not copy:
            if q == obj._queue:
                return obj
            return ndarray._wrap(obj._desc, q, obj._usm_type, obj._base_ptr)
        if copy is False:
            raise ValueError(
                f"asarray(copy=False): a copy is needed (from {obj._queue!r}/{obj.usm_type}/{obj.dtype} "
                f"to {q!r}/{want_usm}/{want_dtype})"
            )
        host = asnumpy(obj).astype(want_dtype, copy=False)
        out = _allocate(host.shape, want_dtype, q, want_usm)
        _upload_into(out, host)
        return out

    if copy is False:
        raise ValueError("asarray(copy=False): host data must be copied into USM memory")
    q = target or default_queue()
    host = np.asarray(obj, dtype=dtype)
    if dtype is None and host.dtype.kind == "f" and host.dtype.itemsize == 8 and not q.device.has_fp64:
        host = host.astype(np.float32)
    out = _allocate(host.shape, host.dtype, q, usm_type or "device")
    _upload_into(out, host)
    return out
