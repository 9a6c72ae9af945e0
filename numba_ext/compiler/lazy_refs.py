"""How compiled host code refers to the device kernels and queues it uses: through a reference in
the function's Numba environment, resolved to the process's kernel or queue on the call site's first
run and kept in a per-call-site slot. The compiled code holds no process-local address, so Numba can
cache it on disk (``cache=True``): a reference pickles as what recreates it in a new process (a
kernel as its package, the device binary and slot layout, plus its description; a queue as its
device's filter string), and a new process loads the kernel without typing, code generation or, with
the program cache, the driver's build."""

from __future__ import annotations

from typing import Any

import llvmlite.ir as llir
from numba.core import cgutils

from .. import _core
from ..devices import device_by_filter, device_queue
from ..errors import NumbaExtError
from ..ir.kernel_ir import Function
from .host_abi import I8P, declare


class KernelRef:
    """A compiled device kernel for one device (`device_filter`), with its description `spec` (a
    ``KernelSpec`` or ``Function``)."""

    __slots__ = ("spec", "device_filter", "_package", "_kernel", "__weakref__")

    def __init__(self, kernel: Any, spec: Any, device_filter: str, package: bytes | None = None) -> None:
        self.spec, self.device_filter = spec, device_filter
        self._kernel, self._package = kernel, package

    def __reduce__(self) -> tuple:
        package = self._package if self._kernel is None else self._kernel.package
        return (KernelRef, (None, self.spec, self.device_filter, package))

    def kernel(self) -> Any:
        """The kernel in this process (loaded from the package on first use)."""
        k = self._kernel
        if k is None:
            device = device_by_filter(self.device_filter)
            try:
                k = _core.kernel_from_package(self._package or b"", self.spec, device)
            except NumbaExtError:  # a damaged package: compiled again from the description
                compile_ = _core.compile_function if isinstance(self.spec, Function) else _core.compile_kernel
                k = compile_(self.spec, device)
            self._kernel = k
        return k

    def _resolve_address(self) -> int:
        return int(self.kernel().address)


class QueueRef:
    """The cached queue of a device (its default context), as allocations with ``device=`` use."""

    __slots__ = ("device_filter", "_queue")

    def __init__(self, device_filter: str) -> None:
        self.device_filter = device_filter
        self._queue: Any = None

    def __reduce__(self) -> tuple:
        return (QueueRef, (self.device_filter,))

    def queue(self) -> Any:
        q = self._queue
        if q is None:
            q = self._queue = device_queue(device_by_filter(self.device_filter))
            _core._register_queue(q)  # results on it carry this object (device_queue's, as eagerly)
        return q

    def _resolve_address(self) -> int:
        return int(self.queue()._handle)


def lazy_address(context, builder, ref: KernelRef | QueueRef):
    """The address `ref` resolves to, as an i8* in compiled code: a per-call-site slot (a global of
    the module), filled on the first run through ``nx_resolve`` from the reference kept in the
    function's environment (an exception propagates if that fails)."""
    module = builder.module
    slot = llir.GlobalVariable(module, I8P, module.get_unique_name("nx_ref"))
    slot.linkage = "internal"
    slot.initializer = llir.Constant(I8P, None)
    current = builder.load_atomic(slot, "monotonic", 8)
    with builder.if_then(cgutils.is_null(builder, current), likely=False):
        env_manager = context.get_env_manager(builder)
        obj = env_manager.read_const(env_manager.add_const(ref))
        resolve = declare(builder, "nx_resolve", I8P, [I8P])
        addr = builder.call(resolve, [builder.bitcast(obj, I8P)])
        with cgutils.if_unlikely(builder, cgutils.is_null(builder, addr)):
            context.call_conv.return_exc(builder)
        builder.store_atomic(addr, slot, "monotonic", 8)
    return builder.load_atomic(slot, "monotonic", 8)
