"""DLPack import: ``numba_ext.from_dlpack(x, device=None, copy=None)`` (array API 2023.12).

The producer is asked for a versioned capsule (``max_version=(1, 0)``, with ``copy``; producers of
the earlier protocol, which take no keywords, are called without them). What comes back decides:

* numba_ext's own oneAPI memory (a capsule made by ``ndarray.__dlpack__``): wrapped with no copy on
  the exporting array's queue; the new array holds the consumed tensor, which keeps the producer
  alive and calls its deleter when the array is freed;
* host memory (``kDLCPU``: NumPy and other CPU producers): copied into a new array on `device`
  (the default queue if None), since OpenCL kernels cannot address NumPy's memory; ``copy=False``
  is a ``BufferError``;
* another runtime's oneAPI memory that the producer also exports through a USM array interface
  naming a numba_ext queue (checked by ``interface.from_usm_interface``): no copy;
* other device memory (another runtime's oneAPI memory, CUDA, ...): the producer is asked again for
  a host copy (``dl_device=(kDLCPU, 0), copy=True``), which is then copied to `device`; with
  ``copy=False`` a ``BufferError``.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from .. import _core
from ..devices import DeviceArg, Queue, default_queue, get_devices, resolve_queue
from ..errors import ArrayInterfaceError
from .allocation import allocate
from .dlpack_export import DLPACK_VERSION, HOST_DEVICE_TYPES, KDL_CPU, KDL_ONEAPI
from .dtypes import check_dtype
from .interface import from_usm_interface
from .ndarray import ndarray
from .transfers import convert, upload_into

_KINDS = {0: "i", 1: "u", 2: "f", 5: "c", 6: "b"}
_CODE_NAMES = {3: "opaque handle", 4: "bfloat", 7: "float8", 8: "float6", 9: "float4"}


class _TensorHolder:
    """Keeps the consumed DLPack tensor (and so the producer) alive; gives NumPy the address,
    shape and strides of its memory."""

    def __init__(self, tensor: _core.DLPackTensor, dt: np.dtype) -> None:
        self.tensor = tensor
        self.__array_interface__ = {
            "data": (tensor.data, tensor.read_only),
            "shape": tuple(tensor.shape),
            "strides": tuple(s * dt.itemsize for s in tensor.strides),
            "typestr": dt.str,
            "version": 3,
        }


def _dtype(tensor: _core.DLPackTensor) -> np.dtype:
    code, bits, lanes = tensor.dtype
    kind = _KINDS.get(code)
    if kind is None or lanes != 1 or bits % 8 or (kind == "b" and bits != 8):
        what = _CODE_NAMES.get(code, f"type code {code}")
        raise BufferError(
            f"from_dlpack: the producer's data type ({what}, {bits} bits, {lanes} lanes) has no NumPy "
            "dtype numba_ext arrays hold (bool, integers, float16/32/64, complex64/128)"
        )
    return check_dtype(np.dtype(f"{kind}{bits // 8}"))


def _host_view(tensor: _core.DLPackTensor, dt: np.dtype) -> np.ndarray:
    if 0 in tensor.shape:
        return np.empty(tuple(tensor.shape), dt)
    return np.asarray(_TensorHolder(tensor, dt))


def _target_queue(device: DeviceArg | tuple[int, int]) -> Queue | None:
    if isinstance(device, tuple):
        try:
            kind, index = (operator.index(v) for v in device)
        except (TypeError, ValueError):
            raise TypeError(
                f"from_dlpack: device={device!r} is not a (device type, device id) pair"
            ) from None
        devices = get_devices()
        if kind != KDL_ONEAPI or not 0 <= index < len(devices):
            raise ValueError(
                f"from_dlpack: device={device!r} is not a numba_ext device: pass a Device, Queue or filter "
                f"string, or ({KDL_ONEAPI}, i) for numba_ext.get_devices()[i] (0 <= i < {len(devices)}); "
                "for host arrays use numpy.from_dlpack"
            )
        device = devices[index]
    return resolve_queue(device)


def _request(x: Any, dl_device: tuple[int, int] | None, copy: bool | None) -> Any:
    try:
        return x.__dlpack__(max_version=DLPACK_VERSION, dl_device=dl_device, copy=copy)
    except TypeError:
        # a producer of the protocol before 2023.12 takes no keywords
        return x.__dlpack__()


def from_dlpack(
    x: Any, /, *, device: DeviceArg | tuple[int, int] = None, copy: bool | None = None
) -> ndarray:
    """A ``numba_ext.ndarray`` of the DLPack producer `x` (any object with ``__dlpack__``).

    `device`: where the result lives (a Device, Queue, filter string, or ``(14, i)`` for
    ``get_devices()[i]``); None: the producer's queue for numba_ext arrays, else the default
    queue. `copy`: True always copies, False never (a ``BufferError`` where a copy is needed: host
    memory, another runtime's memory, another context), None copies only where needed."""
    if not hasattr(x, "__dlpack__"):
        raise TypeError(
            f"from_dlpack: {type(x).__name__} does not support DLPack (no __dlpack__ method); "
            "use numba_ext.asarray for other array-likes"
        )
    if copy not in (None, True, False):
        raise ValueError(f"from_dlpack: copy must be None, True or False, got {copy!r}")
    target = _target_queue(device)
    if target is None and isinstance(x, ndarray):
        target = x._queue  # the producer's device, also where its memory has to be copied
    try:
        tensor = _core.dlpack_import(_request(x, None, copy))
    except BufferError:
        if copy is False:
            raise
        # memory the producer cannot hand over as it is (numba_ext's cl_mem buffers): a host copy
        tensor = _core.dlpack_import(_request(x, (KDL_CPU, 0), True))
    owner = tensor.owner
    if tensor.device[0] == KDL_ONEAPI and isinstance(owner, ndarray):
        return _own_memory(tensor, owner, target, copy)
    shared = _usm_interface_view(x) if tensor.device[0] == KDL_ONEAPI else None
    if shared is not None:
        del tensor  # the array interface's view holds the producer instead
        return _placed(shared, target, copy, copied=False)
    if tensor.device[0] not in HOST_DEVICE_TYPES:
        if copy is False:
            raise BufferError(
                f"from_dlpack(copy=False): {type(x).__name__}'s memory is on DLPack device {tensor.device}, "
                "which numba_ext cannot address; pass copy=None or copy=True (a copy through the host)"
            )
        del tensor  # release the producer's device tensor before asking for a host copy
        tensor = _core.dlpack_import(_request(x, (KDL_CPU, 0), True))
        if tensor.device[0] not in HOST_DEVICE_TYPES:
            raise BufferError(
                f"from_dlpack: {type(x).__name__} gave no host copy of its memory (device {tensor.device})"
            )
    if copy is False:
        raise BufferError(
            f"from_dlpack(copy=False): {type(x).__name__}'s data is host memory, which OpenCL kernels cannot "
            "address; pass copy=None or copy=True to copy it to the device"
        )
    host = _host_view(tensor, _dtype(tensor))
    out = allocate(host.shape, host.dtype, target or default_queue(), "device")
    upload_into(out, host)
    return out


def _own_memory(
    tensor: _core.DLPackTensor, owner: ndarray, target: Queue | None, copy: bool | None
) -> ndarray:
    """numba_ext's own memory: a view of it on the producer's queue, then on `target`."""
    dt = _dtype(tensor)
    if 0 in tensor.shape:
        arr = allocate(tuple(tensor.shape), dt, owner._queue, owner.usm_type)
    else:
        arr = ndarray._wrap(_host_view(tensor, dt), owner._queue, owner.usm_type, owner._base_ptr)
    return _placed(arr, target, copy, copied=tensor.is_copied)


def _usm_interface_view(x: Any) -> ndarray | None:
    """Another runtime's oneAPI memory with no copy, where `x` also exports a USM array interface
    that ``interface.from_usm_interface`` accepts (its queue is numba_ext's); else None."""
    iface = getattr(x, "__sycl_usm_array_interface__", None)
    if iface is None:
        return None
    try:
        return from_usm_interface(x, iface)
    except ArrayInterfaceError:
        return None  # not memory of a numba_ext context: a copy through the host instead


def _placed(arr: ndarray, target: Queue | None, copy: bool | None, copied: bool) -> ndarray:
    """`arr` (a view of the producer's memory) on `target`: copied where `copy` is True and the
    producer did not copy already, or where `target` is in another context (unless `copy` is False)."""
    q = target or arr._queue
    if copy is False and q.context != arr._queue.context:
        raise BufferError(
            f"from_dlpack(copy=False): the producer's memory belongs to the context of {arr._queue!r}, "
            f"not that of {q!r}; pass copy=None or copy=True"
        )
    return convert(arr, q, None, None, True if copy and not copied else None)
