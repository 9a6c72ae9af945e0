"""Launching a compiled kernel from Python: the argument slots (data addresses, shapes and byte
strides of arrays, the bits of scalars), the device's limits checked before a launch, and
asynchronous launches with their ``Event``. (The common launch bypasses this module:
``_core.KernelLaunch`` takes it straight to the compiled kernel in Rust.)"""

from __future__ import annotations

import struct
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import _core
from ..arrays.ndarray import ndarray  # the class (mypy, in an import cycle, may take the module)
from ..compiler.item_api import LocalAccessor
from ..errors import LaunchError

if TYPE_CHECKING:
    from ..devices import Device, Queue
    from ..placement import CallPlan

    class LaunchPlan(CallPlan):
        """The call plan of a launch: it has a queue (``Kernel._prepare`` checks)."""

        queue: Queue


_F64, _F64_BITS = struct.Struct("<d"), struct.Struct("<Q")  # a float argument's bits


class Event:
    """Completion of an asynchronous launch; keeps the launch's arguments alive until waited on."""

    def __init__(self, thread: threading.Thread, keepalive: object) -> None:
        self._thread = thread
        self._keepalive = keepalive
        self._error: Exception | None = None

    def wait(self) -> None:
        self._thread.join()
        self._keepalive = None
        if self._error is not None:
            raise self._error


def argument_slots(args: Sequence[Any]) -> list[int]:
    """The 64-bit argument slots of a launch: per array its data address, shape and byte strides,
    per scalar its bits (a LocalAccessor has none: its memory is the kernel's own)."""
    slots = []
    for a in args:
        if isinstance(a, LocalAccessor):
            continue
        if isinstance(a, ndarray):
            slots.append(a._data_ptr)
            slots.extend(a.shape)
            slots.extend(s & 0xFFFFFFFFFFFFFFFF for s in a.strides)
        elif type(a) is float:
            slots.append(_F64_BITS.unpack(_F64.pack(a))[0])
        elif type(a) is int:
            slots.append(a & 0xFFFFFFFFFFFFFFFF)
        else:
            dt = (
                np.dtype(np.bool_)
                if isinstance(a, (bool, np.bool_))
                else (
                    np.dtype(np.int64)
                    if isinstance(a, int)
                    else (np.dtype(np.float64) if isinstance(a, float) else np.asarray(a).dtype)
                )
            )
            slots.append(int(np.asarray(a, dt).reshape(1).view(np.dtype(f"u{dt.itemsize}"))[0]))
    return slots


def check_limits(
    kernel_name: str,
    local_bytes: int,
    device: Device,
    global_range: Sequence[int],
    local_range: Sequence[int] | None,
) -> None:
    """A LaunchError where the work-group or the kernel's local memory exceeds `device`'s limits."""
    if local_range is not None:
        wg = int(np.prod(local_range))
        if wg > device.max_work_group_size:
            raise LaunchError(
                f"kernel {kernel_name}: work-group size {local_range} ({wg} work-items) exceeds the "
                f"limit of {device.max_work_group_size} on {device.filter_string}"
            )
    if local_bytes > device.local_mem_size:
        raise LaunchError(
            f"kernel {kernel_name} needs {local_bytes} bytes of local memory; "
            f"{device.filter_string} has {device.local_mem_size}"
        )


def launch_and_finish(
    kernel: _core.Kernel,
    plan: LaunchPlan,
    slots: list[int],
    global_range: Sequence[int],
    local_range: Sequence[int] | None,
    check: Callable[[], None] | None = None,
) -> None:
    """Launch `kernel` on the plan's queue, wait, finish the plan (NumPy arguments copied back), and
    run `check` (the bounds check's record, ``bounds.py``)."""
    local = None if local_range is None else list(local_range)
    kernel.launch_nd(plan.queue, slots, list(global_range), local)
    plan.finish(None)
    if check is not None:
        check()


def launch_async(
    kernel: _core.Kernel,
    plan: LaunchPlan,
    slots: list[int],
    global_range: Sequence[int],
    local_range: Sequence[int] | None,
    keepalive: object,
    after: Sequence[Event] = (),
    check: Callable[[], None] | None = None,
) -> Event:
    """`launch_and_finish` in a thread, once the events `after` have completed (an error of theirs
    is this launch's too); its Event keeps `keepalive` until waited on and raises the launch's
    error."""

    def run() -> None:
        try:
            for dep in after:
                dep.wait()
            launch_and_finish(kernel, plan, slots, global_range, local_range, check)
        except Exception as e:  # surfaced by Event.wait()
            ev._error = e

    th = threading.Thread(target=run, daemon=True)
    ev = Event(th, keepalive)
    th.start()
    return ev
