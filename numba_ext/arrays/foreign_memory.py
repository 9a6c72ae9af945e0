"""The memory a foreign ``__sycl_usm_array_interface__`` names, checked before anything is read:
the queue its ``syclobj`` gives, the allocation of that queue's context holding its data pointer
(asked of the runtime: Intel's USM pointer query, or the address registry of the ``cl_mem`` buffer
back end; the pointer itself is never touched), and the bytes its view (offset, shape, strides)
spans, which must all lie inside that allocation.

Empty arrays read nothing: their pointer may be null or lie in no allocation, and such an array is
then given a fresh empty allocation of its own (there is no data to share)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from .. import _core
from ..devices import Context, Device, Queue, device_queue, is_dpctl_queue, queue_from_dpctl
from ..errors import ArrayInterfaceError


@dataclass(frozen=True)
class Extent:
    """The driver allocation holding a data pointer: its start, size in bytes and USM type."""

    base: int
    size: int
    usm_type: str


def sycl_scope(what: str, syclobj: object) -> Queue | Context:
    """The queue or context ``syclobj`` gives: a Queue, a Context, or an object whose ``sycl_queue``
    is a Queue (such as a numba_ext array) or whose ``sycl_context`` is a Context; a
    ``dpctl.SyclQueue`` gives the numba_ext queue on its (adopted) OpenCL context."""
    if isinstance(syclobj, (Queue, Context)):
        return syclobj
    if is_dpctl_queue(syclobj):
        # dpctl/dpnp submit asynchronously: their writes must be done before numba_ext reads the
        # memory, through its own queue on the same OpenCL context
        syclobj.wait()  # type: ignore[attr-defined]
        return queue_from_dpctl(syclobj)
    if not isinstance(syclobj, (str, bytes, int, float, type(None))):
        for attr, cls in (("sycl_queue", Queue), ("sycl_context", Context)):
            try:
                given = getattr(syclobj, attr, None)
            except Exception as e:  # a foreign property that fails: report it as the field's fault
                raise ArrayInterfaceError(
                    f"{what} has syclobj={syclobj!r}, whose {attr} raised {type(e).__name__}: {e}"
                ) from e
            if isinstance(given, cls):
                return given
    raise ArrayInterfaceError(
        f"{what} has syclobj={syclobj!r}, which is not a numba_ext.Queue or numba_ext.Context (nor an "
        "object whose sycl_queue is one); its memory belongs to another runtime. Copy it through the "
        "host (e.g. numba_ext.asarray(<to-numpy>(x)))"
    )


def find_extent(scope: Queue | Context, ptr: int) -> tuple[Extent, Device | None] | None:
    """The allocation of `scope`'s context holding `ptr`, and the device it was made for (None for
    host memory); None when no allocation of the context holds it."""
    found = _core.allocation_extent(scope, ptr)
    if found is None:
        return None
    base, size, usm_type, device = found
    return Extent(base, size, usm_type), device


def queue_of(scope: Queue | Context, device: Device | None) -> Queue:
    """The queue for memory of `scope`: the queue itself, or for a context a queue on the device the
    allocation was made for (its first device for host memory), the device's default queue when the
    context is that queue's."""
    if isinstance(scope, Queue):
        return scope
    dev = device if device is not None else scope.devices[0]
    q = device_queue(dev)
    return q if q.context == scope else Queue(dev, context=scope)


def not_in_context(what: str, data: object, ptr: int, scope: Queue | Context) -> ArrayInterfaceError:
    """The error for a data pointer `ptr` (field value `data`) in no allocation of `scope`'s context."""
    where = (
        f"the context of queue {scope!r} ({scope.device.filter_string})"
        if isinstance(scope, Queue)
        else f"context {scope!r}"
    )
    return ArrayInterfaceError(
        f"{what} has data={data!r}: address {ptr:#x} lies in no allocation of {where} "
        "(nothing was read); host memory, memory of another context and dangling pointers cannot be "
        "wrapped. Pass the queue the memory was allocated on as syclobj, or copy the data through the host"
    )


def view_bytes(
    shape: tuple[int, ...], strides: tuple[int, ...] | None, offset: int, itemsize: int
) -> tuple[int, int]:
    """The bytes ``[lo, hi)``, relative to the data pointer, that a non-empty view touches (strides
    and offset in elements; None strides: C-contiguous)."""
    if strides is None:
        first = offset
        last = offset + math.prod(shape) - 1
    else:
        first = offset + sum((n - 1) * s for n, s in zip(shape, strides) if s < 0)
        last = offset + sum((n - 1) * s for n, s in zip(shape, strides) if s > 0)
    return first * itemsize, (last + 1) * itemsize


def check_view(
    what: str,
    fields: str,
    ptr: int,
    extent: Extent,
    span: tuple[int, int],
) -> None:
    """Refuse a view whose bytes `span` (relative to `ptr`) reach outside the allocation `extent`;
    `fields` quotes the interface's shape, strides, offset and typestr for the message."""
    lo, hi = ptr + span[0], ptr + span[1]
    end = extent.base + extent.size
    if lo >= extent.base and hi <= end:
        return
    beyond = (
        f"{extent.base - lo} bytes before its start" if lo < extent.base else f"{hi - end} bytes past its end"
    )
    raise ArrayInterfaceError(
        f"{what} has {fields}: the view spans bytes {span[0]} to {span[1]} from the data pointer "
        f"{ptr:#x}, but the allocation holding that pointer is {extent.size} bytes at {extent.base:#x}: "
        f"the view reaches {beyond} (nothing was read). Strides and offset count elements, not bytes"
    )
