"""The kernels of the library's own kernel-IR functions (sorting, gathering, histograms), compiled
once per key and device and kept for the life of the process (the device-program cache below keeps
the programs across processes)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from .. import _core
from ..devices import Device
from ..ir.kernel_ir import Function

_lock = threading.Lock()
#: compiled kernels by (the asking module, what, its parameters..., device)
_kernels: dict[tuple[Any, ...], _core.Kernel] = {}


def kernel(key: tuple[Any, ...], build: Callable[[], Function], device: Device) -> _core.Kernel:
    """The kernel `build()` describes, compiled for `device` on the first call with `key` (which
    names everything `build` depends on) from `build`'s module (each module's keys are its own)."""
    full = (build.__module__, *key, device)
    found = _kernels.get(full)
    if found is None:
        found = _core.compile_function(build(), device)
        with _lock:
            found = _kernels.setdefault(full, found)
    return found
