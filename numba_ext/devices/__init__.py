"""Devices layer: OpenCL driver discovery, devices, contexts, queues and the default queue.

Owns: registration of OpenCL drivers with the ICD loader (``drivers``), the Rust ``Device``,
``Context`` and ``Queue`` classes, device selection (selector strings, ``NUMBA_EXT_DEVICE``) and
the resolution of ``device=`` / ``sycl_queue=`` keywords (``queues``), the numba_ext queue behind a
``dpctl.SyclQueue`` and back, over one OpenCL context (``dpctl_interop``), and the read-only report
of the OpenCL platforms for diagnostics (``platforms``).

May import: ``numba_ext.errors`` and the compiled core ``numba_ext._core``. Nothing above it.
"""

from . import drivers

# Before the first OpenCL call anywhere in the process, i.e. before the extension loads.
drivers.register()
drivers.register_libdevice()

from .dpctl_interop import (  # noqa: E402  (after the driver registration above)
    dpctl_queue_of,
    is_dpctl_queue,
    queue_for_oneapi_device,
    queue_from_dpctl,
    sycl_view,
)
from .queues import (  # noqa: E402  (after the driver registration above)
    Context,
    Device,
    DeviceArg,
    Queue,
    as_queue,
    default_queue,
    device_by_filter,
    device_queue,
    get_devices,
    remember_device,
    resolve_queue,
    set_default_device,
)

__all__ = [
    "Context",
    "Device",
    "DeviceArg",
    "Queue",
    "as_queue",
    "default_queue",
    "device_by_filter",
    "device_queue",
    "dpctl_queue_of",
    "get_devices",
    "is_dpctl_queue",
    "queue_for_oneapi_device",
    "queue_from_dpctl",
    "remember_device",
    "resolve_queue",
    "set_default_device",
    "sycl_view",
]
