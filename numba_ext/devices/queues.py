"""Devices, contexts and queues (implemented in Rust) plus the two helpers every entry point uses:
the default queue and the normalisation of ``device=`` / ``sycl_queue=`` keywords."""

from __future__ import annotations

import atexit
import os
import threading
from typing import Any

from .. import _core
from ..errors import DeviceSelectorError
from .dpctl_interop import device_from_dpctl, is_dpctl_device, is_dpctl_queue, queue_from_dpctl

Device = _core.Device
Context = _core.Context
Queue = _core.Queue

# The eager library leaves its kernels running (the runtime waits where anything else needs their
# results): at exit, they finish while the interpreter and the driver's threads still stand.
atexit.register(_core.settle_all)

#: ``device=``: a Device, a Queue (its device) or a filter/selector string; None: not given
DeviceArg = Device | Queue | str | None


def get_devices() -> list[Device]:
    """All OpenCL root devices, with filter strings ``opencl:<type>:<n>``."""
    return _core.get_devices()


_queues_lock = threading.Lock()
_device_queues: dict[Device, Queue] = {}


def device_queue(device: Device) -> Queue:
    """The cached queue of a device (in the device's default context). Creating arrays with the
    same ``device=`` twice gives arrays on one queue, as users expect."""
    with _queues_lock:
        q = _device_queues.get(device)
        if q is None:
            q = _device_queues[device] = Queue(device)
        return q


_default_device: Device | None = None


def set_default_device(device: Device | Queue | str | None) -> Device | None:
    """Make `device` (a Device, a Queue's device or a selector) this process's default device, in
    place of ``NUMBA_EXT_DEVICE`` and the default selector; None goes back to them. Returns the
    device it replaces (None when there was none). A Dask worker pinned to one device of a host
    uses it (``numba_ext.dask``): arrays created or unpickled there without a queue land on it."""
    global _default_device
    if device is None:
        new = None
    elif isinstance(device, Device):
        new = device
    elif isinstance(device, Queue):
        new = device.device
    elif isinstance(device, str):
        try:
            new = Device(device)
        except ValueError as e:
            raise DeviceSelectorError(f"set_default_device({device!r}): {e}") from None
    else:
        raise TypeError(
            "set_default_device() takes a numba_ext.Device, a Queue, a selector string or None, "
            f"got {type(device).__name__}"
        )
    old, _default_device = _default_device, new
    return old


def default_queue() -> Queue:
    """The queue of the default device: the one `set_default_device` set, else the selector in
    ``NUMBA_EXT_DEVICE`` if set, else the default selector (a GPU numba_ext can compile for, else a
    CPU)."""
    pinned = _default_device
    if pinned is not None:
        return device_queue(pinned)
    selector = os.environ.get("NUMBA_EXT_DEVICE", "")
    try:
        dev = Device(selector)
    except ValueError as e:
        raise DeviceSelectorError(f"NUMBA_EXT_DEVICE={selector!r}: {e}") from None
    return device_queue(dev)


def as_queue(obj: Any) -> Any:
    """`obj` with a ``dpctl.SyclQueue`` replaced by the numba_ext queue on its OpenCL context and
    device (``dpctl_interop.queue_from_dpctl``); anything else unchanged."""
    return queue_from_dpctl(obj) if is_dpctl_queue(obj) else obj


def resolve_queue(device: Any = None, sycl_queue: Any = None) -> Queue | None:
    """The queue named by ``device=`` (Device, Queue or selector string; a ``dpctl.SyclQueue`` or
    ``dpctl.SyclDevice``) and/or ``sycl_queue=`` (Queue or ``dpctl.SyclQueue``). Both given and
    disagreeing is an error. None when neither is given."""
    sycl_queue, device = as_queue(sycl_queue), as_queue(device)
    if is_dpctl_device(device):
        device = device_from_dpctl(device)
    if sycl_queue is not None and not isinstance(sycl_queue, Queue):
        raise TypeError(
            f"sycl_queue= must be a numba_ext.Queue or a dpctl.SyclQueue, got {type(sycl_queue).__name__}"
        )
    if device is None:
        return sycl_queue
    if isinstance(device, Queue):
        q = device
    elif isinstance(device, Device):
        q = device_queue(device)
    elif isinstance(device, str):
        try:
            q = device_queue(Device(device))
        except ValueError as e:
            raise DeviceSelectorError(str(e)) from None
    else:
        raise TypeError(
            f"device= must be a numba_ext.Device, a numba_ext.Queue, a selector string or a dpctl "
            "SyclQueue / SyclDevice, "
            f"got {type(device).__name__}"
        )
    if sycl_queue is not None:
        if isinstance(device, Queue):
            agree = device.equivalent(sycl_queue)
        else:
            agree = sycl_queue.device == q.device
        if not agree:
            raise ValueError(
                f"device={device!r} and sycl_queue={sycl_queue!r} disagree; give only one of them"
            )
        return sycl_queue
    return q


_known_devices_lock = threading.Lock()
_known_devices: dict[str, Device] = {}


def remember_device(device: Device) -> Device:
    """Record a device (e.g. a sub-device) so compiled code can find it by filter string."""
    with _known_devices_lock:
        _known_devices.setdefault(device.filter_string, device)
    return device


def device_by_filter(filter_string: str) -> Device:
    """The device whose filter string is `filter_string` (root devices and remembered sub-devices).
    A sub-device's filter string (``opencl:cpu:0.1``) that was not remembered resolves to its root
    device, which has the same capabilities (this is used to choose how to compile)."""
    if "." in filter_string:
        with _known_devices_lock:
            d = _known_devices.get(filter_string)
        return d if d is not None else device_by_filter(filter_string.split(".")[0])
    with _known_devices_lock:
        d = _known_devices.get(filter_string)
    if d is not None:
        return d
    for d in get_devices():
        if d.filter_string == filter_string:
            return remember_device(d)
    raise DeviceSelectorError(f"no device with filter string {filter_string!r}")
