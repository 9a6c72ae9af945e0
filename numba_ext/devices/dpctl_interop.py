"""dpctl interop: the numba_ext queue behind a ``dpctl.SyclQueue`` and the ``dpctl.SyclQueue`` behind a
numba_ext queue, both over one OpenCL context, so that USM pointers pass between dpctl/dpnp and
numba_ext with no copy.

* dpctl -> numba_ext (``queue_from_dpctl``): the queue's native ``cl_context`` and ``cl_device_id``
  (SYCL's ``context::getNative`` / ``device::getNative``, which retain them) are adopted by the runtime
  (``Context._adopt_native``), and a numba_ext queue is made on that context and device. Arrays of
  the dpctl queue are then valid in numba_ext's context: the same pointers, no copy.
* numba_ext -> dpctl (``dpctl_queue_of``): the numba_ext queue's ``cl_context`` becomes a SYCL context
  (SYCL's OpenCL interop ``make_context``), wrapped by ``dpctl.SyclContext`` from a ``SyclContextRef``
  capsule, and a ``dpctl.SyclQueue`` is made on it. Queues adopted from dpctl give back the very
  ``dpctl.SyclQueue`` they came from.

dpctl is never imported here: objects are recognised by their type's module and name, and the dpctl
functions used come from the module the object belongs to. The SYCL entry points are found in the
``libsycl`` dpctl already loaded into the process (its Itanium C++ names, for the SYCL ABI ``_V1``);
where they are missing, a ``InteropError`` says so.
"""

from __future__ import annotations

import ctypes
import re
import sys
import threading
from functools import cache
from typing import Any

from .. import _core
from ..errors import InteropError

Context = _core.Context
Device = _core.Device
Queue = _core.Queue

#: SYCL's member functions giving a context's / device's native OpenCL handle (retained)
_CONTEXT_GET_NATIVE = "_ZNK4sycl3_V17context9getNativeEv"
_DEVICE_GET_NATIVE = "_ZNK4sycl3_V16device9getNativeEv"
#: ``sycl::detail::make_context(native, const async_handler&, backend, bool keep_ownership,
#: const std::vector<device>&)``, behind ``sycl::make_context<backend::opencl>``
_MAKE_CONTEXT = (
    "_ZN4sycl3_V16detail12make_contextEmRKSt8functionIFvNS0_14exception_listEEENS0_7backendEbRK"
    "St6vectorINS0_6deviceESaISA_EE"
)
_OPENCL_BACKEND = 1  # sycl::backend::opencl

_lock = threading.RLock()
# dpctl queue -> ours. dpctl queues hash and compare by their SYCL queue, so the copies dpctl makes of
# one (each array it builds from a __sycl_usm_array_interface__ gets one) find the same entry; the
# first dpctl queue object of each SYCL queue is kept alive (dpctl's queues take no weak references).
_from_dpctl: dict[Any, Queue] = {}
_to_dpctl: dict[int, tuple[Queue, Any]] = {}  # our queue's handle -> (it, the dpctl queue)
_dpctl_contexts: dict[
    int, tuple[Context, Any, ctypes.Array]
] = {}  # cl_context -> (ours, dpctl's, sycl::context)


def is_dpctl_queue(obj: object) -> bool:
    """Whether `obj` is a ``dpctl.SyclQueue`` (recognised without importing dpctl)."""
    t = type(obj)
    return t.__name__ == "SyclQueue" and t.__module__.split(".")[0] == "dpctl"


def is_dpctl_device(obj: object) -> bool:
    """Whether `obj` is a ``dpctl.SyclDevice``."""
    t = type(obj)
    return t.__name__ == "SyclDevice" and t.__module__.split(".")[0] == "dpctl"


@cache
def _libsycl() -> ctypes.CDLL:
    """The SYCL runtime dpctl loaded into this process (found among the mapped libraries)."""
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if re.search(r"/libsycl\.so[.\d]*\s*$", line)}
    except OSError:
        paths = set()
    if not paths:
        raise InteropError(
            "dpctl interop needs the SYCL runtime (libsycl.so) that dpctl loads, and none is loaded in "
            "this process; import dpctl first (Linux only)"
        )
    return ctypes.CDLL(sorted(paths)[0])


def _sycl_function(name: str, restype: Any, argtypes: list[Any]) -> Any:
    try:
        f = getattr(_libsycl(), name)
    except AttributeError:
        raise InteropError(
            f"the SYCL runtime loaded by dpctl lacks {name}; this dpctl/SYCL version is not one numba_ext "
            "can share OpenCL contexts with (copy the data through numba_ext.asnumpy instead)"
        ) from None
    f.restype, f.argtypes = restype, argtypes
    return f


def _native(getter: str, sycl_object: Any) -> int:
    """The native OpenCL handle (retained once) of a dpctl SyclContext / SyclDevice."""
    return int(_sycl_function(getter, ctypes.c_void_p, [ctypes.c_void_p])(sycl_object.addressof_ref()) or 0)


def _backend(d: Any) -> str:
    """The backend name of a dpctl SyclDevice ("opencl", "level_zero", "cuda", ...)."""
    return str(getattr(d.backend, "name", d.backend))


def _check_opencl(q: Any) -> None:
    backend = _backend(q.sycl_device)
    if backend != "opencl":
        raise InteropError(
            f"the dpctl queue {q!r} is on a {backend} device ({q.sycl_device.filter_string}); numba_ext "
            "shares memory with dpctl on OpenCL devices only: make the queue with "
            "dpctl.SyclQueue('opencl:<device type>')"
        )


def queue_from_dpctl(q: Any) -> Queue:
    """The numba_ext queue on the OpenCL context and device of the ``dpctl.SyclQueue`` `q` (the same
    object for the same `q`); arrays allocated through either are valid in both."""
    if not is_dpctl_queue(q):
        raise TypeError(f"expected a dpctl.SyclQueue, got {type(q).__name__}")
    with _lock:
        hit = _from_dpctl.get(q)
        if hit is not None:
            return hit
        _check_opencl(q)
        ctx = Context._adopt_native(_native(_CONTEXT_GET_NATIVE, q.sycl_context))
        dev_handle = _native(_DEVICE_GET_NATIVE, q.sycl_device)
        dev = ctx._device_by_native(dev_handle)
        if dev is None:
            raise InteropError(f"the device of {q!r} is not among the devices of its own context")
        if not dev.has_usm:
            raise InteropError(
                f"numba_ext keeps arrays on {dev.filter_string} in cl_mem buffers (no USM, or "
                "NUMBA_EXT_FORCE_BUFFERS=1), which cannot share dpctl's USM memory"
            )
        ours = Queue(dev, context=ctx, in_order=bool(q.is_in_order))
        _from_dpctl[q] = ours
        _to_dpctl.setdefault(ours._handle, (ours, q))
        return ours


def dpctl_queue_of(queue: Queue) -> Any:
    """The ``dpctl.SyclQueue`` on the OpenCL context and device of the numba_ext `queue`: the dpctl
    queue it was adopted from, else one made (once) on its context. Needs dpctl imported."""
    with _lock:
        hit = _to_dpctl.get(queue._handle)
        if hit is not None:
            return hit[1]
        dpctl = sys.modules.get("dpctl")
        if dpctl is None:
            raise InteropError("a dpctl.SyclQueue for a numba_ext queue needs dpctl imported first")
        ctx = _dpctl_context(dpctl, queue.context)
        dev = next(
            (d for d in ctx.get_devices() if _native(_DEVICE_GET_NATIVE, d) == queue.device._native), None
        )
        if dev is None:
            raise InteropError(f"dpctl does not see the device of {queue!r} in its context")
        q = dpctl.SyclQueue(ctx, dev, property="in_order" if queue.in_order else "default")
        _to_dpctl[queue._handle] = (queue, q)
        _from_dpctl[q] = queue  # and back to the very same numba_ext queue
        return q


def sycl_view(queue: Queue) -> Any:
    """What an array on `queue` shows as its ``sycl_queue``: once dpctl is imported, the
    ``dpctl.SyclQueue`` on the same OpenCL context and device (dpnp and dpctl accept only those;
    numba_ext accepts both), else `queue` itself (also where dpctl cannot share the context)."""
    if "dpctl" not in sys.modules or not queue.device.has_usm:
        return queue
    try:
        return dpctl_queue_of(queue)
    except InteropError:
        return queue


def _dpctl_context(dpctl: Any, ctx: Context) -> Any:
    """A ``dpctl.SyclContext`` over the OpenCL context of `ctx` (made once per context)."""
    hit = _dpctl_contexts.get(ctx._native)
    if hit is not None:
        return hit[1]
    # SYCL throws (a C++ exception, fatal through ctypes) for devices it does not know: only root
    # OpenCL devices that dpctl lists are handed over
    seen = {_native(_DEVICE_GET_NATIVE, d) for d in dpctl.get_devices() if _backend(d) == "opencl"}
    missing = [d.filter_string for d in ctx.devices if d._native not in seen]
    if missing:
        raise InteropError(
            f"dpctl does not list the device(s) {', '.join(missing)} of this numba_ext context (a "
            "sub-device, or a device ONEAPI_DEVICE_SELECTOR hides), so it cannot share the context"
        )
    make = _sycl_function(
        _MAKE_CONTEXT,
        ctypes.c_void_p,
        [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_void_p, ctypes.c_int, ctypes.c_bool, ctypes.c_void_p],
    )
    # sycl::context is returned into caller memory (it holds a shared_ptr: 16 bytes); an empty
    # std::function (32 bytes) and an empty std::vector (24 bytes) are all zeros in libstdc++.
    out, handler, no_devices = (ctypes.c_byte * 16)(), (ctypes.c_byte * 32)(), (ctypes.c_byte * 24)()
    # keep_ownership: SYCL does not release the cl_context; `ctx` stays alive in the cache instead
    make(
        ctypes.addressof(out),
        ctx._native,
        ctypes.addressof(handler),
        _OPENCL_BACKEND,
        True,
        ctypes.addressof(no_devices),
    )
    new_capsule = ctypes.pythonapi.PyCapsule_New
    new_capsule.restype, new_capsule.argtypes = (
        ctypes.py_object,
        [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p],
    )
    sycl_ctx = dpctl.SyclContext(
        new_capsule(ctypes.addressof(out), b"SyclContextRef", None)
    )  # dpctl copies it
    _dpctl_contexts[ctx._native] = (ctx, sycl_ctx, out)
    return sycl_ctx


def device_from_dpctl(d: Any) -> Device:
    """The numba_ext root device behind the ``dpctl.SyclDevice`` `d` (by its OpenCL handle)."""
    if _backend(d) != "opencl":
        raise InteropError(
            f"the dpctl device {d.filter_string} is not an OpenCL device; numba_ext runs on OpenCL devices"
        )
    handle = _native(_DEVICE_GET_NATIVE, d)
    for dev in _core.get_devices():
        if dev._native == handle:
            return dev
    raise InteropError(f"the dpctl device {d.filter_string} is not one of numba_ext's OpenCL devices")


def queue_for_oneapi_device(device_id: int) -> Queue:
    """The numba_ext queue for DLPack's ``kDLOneAPI`` device `device_id` (dpctl's numbering: an index
    into ``dpctl.get_devices()``), on SYCL's default context of that device's platform, where dpctl
    and dpnp place the memory they export through DLPack. Needs dpctl imported."""
    dpctl = sys.modules.get("dpctl")
    if dpctl is None:
        raise InteropError("a kDLOneAPI DLPack device is numbered by dpctl; import dpctl first")
    devices = dpctl.get_devices()
    if not 0 <= device_id < len(devices):
        raise InteropError(f"kDLOneAPI device {device_id} is not one of dpctl's {len(devices)} devices")
    dev = devices[device_id]
    with _lock:
        key = ("oneapi", device_id)
        hit = _oneapi_queues.get(key)
        if hit is None:
            hit = _oneapi_queues[key] = dpctl.SyclQueue(dev.sycl_platform.default_context, dev)
    return queue_from_dpctl(hit)


_oneapi_queues: dict[tuple[str, int], Any] = {}
