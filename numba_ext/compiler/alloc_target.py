"""Where an allocation in jitted code goes: the ``device=`` / ``sycl_queue=`` keywords of
``numba_ext.empty`` & co., resolved while typing (the device, part of the result's type) and while
lowering (the queue handle the allocation uses).

* ``sycl_queue=q`` (a ``numba_ext.Queue`` passed in, or ``a.sycl_queue``): that queue.
* ``device=`` a constant filter/selector string or a ``numba_ext.Device``: the device's cached queue
  (in its default context, as eagerly); ``device=`` a ``numba_ext.Queue``: that queue.
* Both: they must name the same device (checked at compile time); the queue is ``sycl_queue``'s.
* Neither: the queue of the allocation's source array (the first USM array among the function's
  arguments, or the array a ``*_like`` call is like), else the default queue.
"""

from __future__ import annotations

from dataclasses import dataclass

from numba.core import types

from ..devices import Device, default_queue, device_by_filter
from ..errors import DeviceSelectorError, UnsupportedError
from .host_abi import I8P
from .lazy_refs import QueueRef, lazy_address
from .queue_types import DeviceType, QueueType
from .types import USMArrayType


def given(t) -> bool:
    return not (t is None or isinstance(t, (types.NoneType, types.Omitted)))


@dataclass(frozen=True)
class Target:
    """The device of an allocation and where its queue comes from: ``kind`` is "sycl_queue" or
    "device" (the queue value of that argument), "source" (the queue of source array ``index``) or
    "fixed" (the cached queue of ``device``, embedded in the code)."""

    device: str
    kind: str
    index: int = -1


def _device_of(t, what: str) -> tuple[str, bool]:
    """(filter string, whether the value is a queue) of a device= or sycl_queue= argument type."""
    if isinstance(t, QueueType):
        return t.device, True
    if isinstance(t, DeviceType) and what == "device":
        return t.filter_string, False
    if isinstance(t, types.StringLiteral) and what == "device":
        try:
            return Device(t.literal_value).filter_string, False
        except ValueError as e:
            raise DeviceSelectorError(f"device={t.literal_value!r}: {e}") from None
    wants = "a numba_ext.Queue" if what == "sycl_queue" else "a constant selector string, a Device or a Queue"
    raise UnsupportedError(f"{what}= in jitted code takes {wants}, got {t}")


def resolve_target(device, sycl_queue, sources) -> Target:
    """The target of an allocation with these argument types (`sources`: a tuple type of the
    arrays whose queue is used when neither keyword is given)."""
    if given(sycl_queue):
        dev, _ = _device_of(sycl_queue, "sycl_queue")
        if given(device):
            other, _ = _device_of(device, "device")
            if other != dev:
                raise UnsupportedError(
                    f"device= ({other}) and sycl_queue= ({dev}) name different devices; give only one"
                )
        return Target(dev, "sycl_queue")
    if given(device):
        dev, is_queue = _device_of(device, "device")
        return Target(dev, "device" if is_queue else "fixed")
    for i, t in enumerate(getattr(sources, "types", ())):
        if isinstance(t, USMArrayType):
            return Target(t.device, "source", i)
    return Target(default_queue().device.filter_string, "fixed")


def target_queue(context, builder, target: Target, device_v, queue_v, sources_t, sources_v):
    """The queue handle (i8*) of `target` in compiled code."""
    if target.kind == "sycl_queue":
        return queue_v
    if target.kind == "device":
        return device_v
    if target.kind == "source":
        src_t = sources_t.types[target.index]
        src = context.make_array(src_t)(
            context, builder, value=builder.extract_value(sources_v, target.index)
        )
        return builder.bitcast(src.queue, I8P)
    return lazy_address(context, builder, QueueRef(target.device))


def default_float(target: Target):
    """The floating-point type of new arrays without dtype= (float32 on devices without fp64)."""
    return types.float64 if device_by_filter(target.device).has_fp64 else types.float32
