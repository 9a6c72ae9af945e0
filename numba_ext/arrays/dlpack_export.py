"""DLPack export (``ndarray.__dlpack__`` and ``ndarray.__dlpack_device__``, the array API 2023.12
protocol): USM memory leaves as oneAPI device memory (``kDLOneAPI``, the device type dpctl uses),
host-accessible memory also as CPU memory (``kDLCPU``) to consumers that ask for it (NumPy), and a
copy where the memory cannot be shared (``copy=True``; ``cl_mem`` buffers, which have no pointer).

The capsules themselves (versioned ``dltensor_versioned`` or legacy ``dltensor``, the deleter that
releases the exporting array) are built by ``_core.dlpack_export``.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import _core
from ..devices import Device, Queue, get_devices
from .transfers import convert, copy_to_host

if TYPE_CHECKING:
    from .ndarray import ndarray

#: DLPack device types (``DLDeviceType`` in dlpack.h)
KDL_CPU = 1
KDL_OPENCL = 4
KDL_ONEAPI = 14
#: device types whose memory the host addresses directly, as NumPy reads them
HOST_DEVICE_TYPES = (KDL_CPU, 3, 11, 13)  # kDLCPU, kDLCUDAHost, kDLROCMHost, kDLCUDAManaged
#: the DLPack ABI version numba_ext writes in versioned capsules
DLPACK_VERSION = (1, 0)

#: NumPy dtype kinds -> DLPack type codes (kDLInt, kDLUInt, kDLFloat, kDLComplex, kDLBool)
_CODES = {"i": 0, "u": 1, "f": 2, "c": 5, "b": 6}


def dlpack_dtype(dt: np.dtype) -> tuple[int, int]:
    """The DLPack (type code, bits) of a NumPy dtype."""
    return _CODES[dt.kind], dt.itemsize * 8


def root_device_index(device: Device) -> int:
    """The ``device_id`` of `device` for DLPack: the index of its root device (itself, or the
    device it was partitioned from) in ``numba_ext.get_devices()``, as dpctl numbers root devices
    in its list of devices."""
    root = device
    while root.parent_device is not None:
        root = root.parent_device
    return get_devices().index(root)


def dlpack_device(x: ndarray) -> tuple[int, int]:
    """``(kDLOneAPI, root device index)`` for USM memory; ``(kDLOpenCL, index)`` for the ``cl_mem``
    buffer back end, whose memory has no pointer to export."""
    device = x.device
    kind = KDL_ONEAPI if device.memory_backend == "usm" else KDL_OPENCL
    return kind, root_device_index(device)


def host_accessible(x: ndarray) -> bool:
    """Whether the host can read `x`'s memory in place: USM on the CPU device, or host or shared USM."""
    device = x.device
    return device.memory_backend == "usm" and (
        device.device_type == "cpu" or x.usm_type in ("host", "shared")
    )


def _parse_version(max_version: object) -> bool:
    """Whether a versioned capsule may be given for ``max_version``."""
    if max_version is None:
        return False
    try:
        major, _minor = (operator.index(v) for v in max_version)  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        raise TypeError(
            f"__dlpack__: max_version must be a tuple (major, minor), got {max_version!r}"
        ) from None
    return major >= DLPACK_VERSION[0]


def _parse_device(dl_device: object) -> tuple[int, int] | None:
    if dl_device is None:
        return None
    try:
        kind, index = (operator.index(v) for v in dl_device)  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        raise TypeError(
            f"__dlpack__: dl_device must be a tuple (device type, device id), got {dl_device!r}"
        ) from None
    return kind, index


def _capsule(
    owner: Any, desc: np.ndarray, base: int, device: tuple[int, int], versioned: bool, copied: bool
) -> Any:
    data = desc.__array_interface__["data"][0] if desc.size else base
    return _core.dlpack_export(
        owner,
        base,
        data - base,
        desc.shape,
        tuple(s // desc.itemsize for s in desc.strides),
        dlpack_dtype(desc.dtype),
        device,
        versioned=versioned,
        read_only=not desc.flags.writeable,
        copied=copied,
    )


def _host_copy(x: ndarray, versioned: bool) -> Any:
    host = copy_to_host(x)
    return _capsule(host, host, host.ctypes.data, (KDL_CPU, 0), versioned, True)


def export_dlpack(
    x: ndarray,
    *,
    stream: object = None,
    max_version: object = None,
    dl_device: object = None,
    copy: bool | None = None,
) -> Any:
    """The DLPack capsule of ``x.__dlpack__(stream=, max_version=, dl_device=, copy=)``."""
    if stream is not None and not isinstance(stream, Queue):
        raise TypeError(f"__dlpack__: stream must be None or a numba_ext.Queue, got {type(stream).__name__}")
    versioned = _parse_version(max_version)
    want = _parse_device(dl_device)
    own = dlpack_device(x)
    x._queue.wait()  # work submitted on the array's queue is complete before the consumer reads
    if own[0] == KDL_OPENCL:
        if copy is True and want in (None, (KDL_CPU, 0)):
            return _host_copy(x, versioned)
        raise BufferError(
            f"cannot export this array through DLPack: it lives in an OpenCL cl_mem buffer on "
            f"{x.device.filter_string} (the buffer back end), which has no device pointer to hand over"
            + ("" if copy is False else "; pass copy=True (a host copy, kDLCPU) or use numba_ext.asnumpy(x)")
        )
    if want is None or want == own:
        if copy:
            c = convert(x, None, None, None, True, "K")
            return _capsule(c, c._desc, c._base_ptr, own, versioned, True)
        return _capsule(x, x._desc, x._base_ptr, own, versioned, False)
    if want == (KDL_CPU, 0):
        if copy is True:
            return _host_copy(x, versioned)
        if host_accessible(x):
            return _capsule(x, x._desc, x._base_ptr, (KDL_CPU, 0), versioned, False)
        if copy is None:
            return _host_copy(x, versioned)
        raise BufferError(
            f"__dlpack__(dl_device=(kDLCPU, 0), copy=False): this array's {x.usm_type} USM memory on "
            f"{x.device.filter_string} is not host-accessible; pass copy=None or copy=True for a host copy"
        )
    raise BufferError(
        f"__dlpack__: cannot export to dl_device={want}: this array is on {own} "
        f"({x.device.filter_string}); numba_ext exports to its own device or to the host (kDLCPU, 0)"
    )
