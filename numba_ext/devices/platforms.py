"""The OpenCL platforms and their devices as the ICD loader reports them, for diagnostics
(``python -m numba_ext``): the platform names and versions, the devices' OpenCL versions and global
memory sizes, which the compiled core does not expose. Read-only ``clGet*Info`` queries through
ctypes on the loader the core uses (``libOpenCL.so.1``, after ``drivers.register()`` pointed it at
the drivers); nothing here creates a context or allocates. Any failure gives no platforms, never an
exception: the caller prints what the core reports instead."""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from dataclasses import dataclass, field

CL_PLATFORM_VERSION = 0x0901
CL_PLATFORM_NAME = 0x0902
CL_PLATFORM_VENDOR = 0x0903
CL_DEVICE_TYPE_ALL = 0xFFFFFFFF
CL_DEVICE_GLOBAL_MEM_SIZE = 0x101F
CL_DEVICE_NAME = 0x102B
CL_DEVICE_VENDOR = 0x102C
CL_DRIVER_VERSION = 0x102D
CL_DEVICE_VERSION = 0x102F
CL_DEVICE_IL_VERSION = 0x105B


@dataclass(frozen=True)
class DeviceInfo:
    """One device as OpenCL reports it."""

    name: str
    vendor: str
    driver_version: str
    opencl_version: str  # CL_DEVICE_VERSION, e.g. "OpenCL 3.0 (Build 0)"
    il_version: str  # CL_DEVICE_IL_VERSION, e.g. "SPIR-V_1.0 ..." ("" without IL support)
    global_mem_size: int  # bytes


@dataclass(frozen=True)
class PlatformInfo:
    """One platform (driver) and its devices."""

    name: str
    vendor: str
    version: str
    devices: list[DeviceInfo] = field(default_factory=list)


def _load() -> ctypes.CDLL | None:
    try:
        lib = ctypes.CDLL("libOpenCL.so.1")
    except OSError:
        return None
    for fn in (lib.clGetPlatformIDs, lib.clGetPlatformInfo, lib.clGetDeviceIDs, lib.clGetDeviceInfo):
        fn.restype = ctypes.c_int32
    return lib


def _string(get: Callable[..., int], handle: ctypes.c_void_p, param: int) -> str:
    size = ctypes.c_size_t(0)
    if get(handle, ctypes.c_uint32(param), ctypes.c_size_t(0), None, ctypes.byref(size)) != 0:
        return ""
    buf = ctypes.create_string_buffer(size.value + 1)
    if get(handle, ctypes.c_uint32(param), ctypes.c_size_t(size.value), buf, None) != 0:
        return ""
    return buf.value.decode(errors="replace").strip()


def _ulong(get: Callable[..., int], handle: ctypes.c_void_p, param: int) -> int:
    value = ctypes.c_uint64(0)
    if get(handle, ctypes.c_uint32(param), ctypes.c_size_t(8), ctypes.byref(value), None) != 0:
        return 0
    return value.value


def _ids(call: Callable[..., int], *lead: object) -> list[ctypes.c_void_p]:
    """The handles an OpenCL ``clGet*IDs`` call lists (none on any error)."""
    count = ctypes.c_uint32(0)
    if call(*lead, ctypes.c_uint32(0), None, ctypes.byref(count)) != 0 or count.value == 0:
        return []
    ids = (ctypes.c_void_p * count.value)()
    if call(*lead, count, ids, None) != 0:
        return []
    return [ctypes.c_void_p(i) for i in ids]


def _device(lib: ctypes.CDLL, d: ctypes.c_void_p) -> DeviceInfo:
    get = lib.clGetDeviceInfo
    return DeviceInfo(
        name=_string(get, d, CL_DEVICE_NAME),
        vendor=_string(get, d, CL_DEVICE_VENDOR),
        driver_version=_string(get, d, CL_DRIVER_VERSION),
        opencl_version=_string(get, d, CL_DEVICE_VERSION),
        il_version=_string(get, d, CL_DEVICE_IL_VERSION),
        global_mem_size=_ulong(get, d, CL_DEVICE_GLOBAL_MEM_SIZE),
    )


def platforms() -> list[PlatformInfo]:
    """Every platform the ICD loader finds, each with its devices (a platform listed twice by the
    loader once); empty when the loader is missing or lists nothing."""
    lib = _load()
    if lib is None:
        return []
    out: list[PlatformInfo] = []
    seen: set[int | None] = set()
    for p in _ids(lib.clGetPlatformIDs):
        if p.value in seen:
            continue
        seen.add(p.value)
        get = lib.clGetPlatformInfo
        devices = _ids(lib.clGetDeviceIDs, p, ctypes.c_uint64(CL_DEVICE_TYPE_ALL))
        out.append(
            PlatformInfo(
                name=_string(get, p, CL_PLATFORM_NAME),
                vendor=_string(get, p, CL_PLATFORM_VENDOR),
                version=_string(get, p, CL_PLATFORM_VERSION),
                devices=[_device(lib, d) for d in devices],
            )
        )
    return out
