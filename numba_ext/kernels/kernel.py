"""Explicit data-parallel kernels: ``@numba_ext.kernel`` and ``@numba_ext.func``.

A kernel is typed by Numba for the launch's argument types, translated to the control-flow kernel IR
(``compiler.kernel_translate``) and compiled by the Rust core, once per (signature, device kind).
Launches follow compute follows data (``placement.plan_call``): the queue comes from the array
arguments, NumPy arrays need ``offload_to``.

Owns: the kernel object (its launch ranges and compiled forms cached per kernel, the placement of a
launch, introspection), the decorators and ``call_kernel`` / ``call_kernel_async``. Launch
configurations are ``ranges.py``'s, compilation ``compilation.py``'s, argument slots, limits and
events ``launch.py``'s."""

from __future__ import annotations

import inspect
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast, overload

from .. import _core
from ..arrays import ndarray
from ..compiler.device_functions import DeviceFunction
from ..errors import ExecutionPlacementError, KernelArgumentError, LaunchError, UnsupportedError
from ..placement import plan_call
from .compilation import CompiledKernel, argument_types, compile_kernel, compile_lock
from .launch import Event, argument_slots, check_limits, launch_and_finish, launch_async
from .ranges import LaunchConfig, NdRange, Range, normalize_range

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Literal, NoReturn

    from ..devices import Queue
    from .launch import LaunchPlan


# normalised launch ranges cached per kernel (by launch configuration), at most this many
_MAX_RANGES = 64


class Kernel(_core.KernelCaller):
    """A kernel function. Launch with ``k[global_size](*args)``, ``k[global_size, local_size](*args)``,
    ``k[numba_ext.NdRange(g, l)](*args)`` or ``numba_ext.call_kernel(k, range, *args)``.

    ``k[...]`` returns a launch object (``_core.KernelLaunch``) whose call takes the common case
    (numba_ext arrays on one queue, Python scalars) straight to the compiled kernel in Rust
    (rust/src/python/kernel_launch.rs); everything else comes to :meth:`launch`."""

    def __init__(self, py_func: Callable[..., Any]) -> None:
        self.py_func = py_func
        self._params = list(inspect.signature(py_func).parameters)
        self._cache: dict = {}  # (argument types, device filter) -> CompiledKernel
        self._fast: dict = {}  # the same by the argument types' identities
        self._ranges: dict = {}  # launch configuration -> (global range, local range)
        self.__name__ = py_func.__name__
        self.__doc__ = py_func.__doc__
        self._set_fast_path(ndarray, len(self._params))

    def __getitem__(self, cfg: LaunchConfig) -> _core.KernelLaunch:
        key: tuple[type, object] | None
        try:
            key = (type(cfg), cfg)  # (4, 4) is a 1-D launch with a local size, Range(4, 4) a 2-D range
            ranges = self._ranges.get(key)
        except TypeError:  # unhashable (a list)
            key = ranges = None
        if ranges is None:
            global_range, local_range = normalize_range(cfg)
            ranges = (list(global_range), None if local_range is None else list(local_range))
            if key is not None:
                if len(self._ranges) >= _MAX_RANGES:
                    self._ranges.clear()
                self._ranges[key] = ranges
        return _core.KernelLaunch(self, *ranges)

    def __call__(self, *args: Any) -> NoReturn:
        raise LaunchError(
            f"kernel {self.__name__} needs a launch range: call it as {self.__name__}[global_size](...) or "
            f"{self.__name__}[global_size, local_size](...), or use numba_ext.call_kernel"
        )

    # -- compilation ----------------------------------------------------------------------------------
    def _compile(self, argtys: tuple[Any, ...], device_filter: str) -> CompiledKernel:
        # Numba interns its types (one object per type), so identities make a cheap first-level key;
        # the entry keeps the types alive, so the identities stay theirs
        fast = (*map(id, argtys), device_filter)
        c = self._fast.get(fast)
        if c is not None:
            return c
        key = (argtys, device_filter)
        c = self._cache.get(key)
        if c is not None:
            self._fast[fast] = c
            return c
        with compile_lock:
            c = self._cache.get(key)
            if c is None:
                c = self._cache[key] = compile_kernel(self.py_func, self.__name__, argtys, device_filter)
        return c

    def _prepare(self, args: Sequence[Any]) -> tuple[LaunchPlan, CompiledKernel]:
        if len(args) != len(self._params):
            raise KernelArgumentError(
                f"kernel {self.__name__} takes {len(self._params)} arguments, got {len(args)}"
            )
        plan = plan_call(
            f"kernel {self.__name__}", self._params, args, allow_host_and_usm=False, stacklevel=5
        )
        if plan.queue is None:
            raise ExecutionPlacementError(
                f"kernel {self.__name__} has no array argument, so there is no data to follow: pass at least "
                "one numba_ext array (or NumPy arrays inside numba_ext.offload_to)"
            )
        argtys = argument_types(self.__name__, self._params, plan.args)
        compiled = self._compile(argtys, plan.queue.device.filter_string)
        return cast("LaunchPlan", plan), compiled  # its queue was checked above

    # -- launch -------------------------------------------------------------------------------------
    @overload
    def launch(
        self,
        global_range: Sequence[int],
        local_range: Sequence[int] | None,
        args: Sequence[Any],
        *,
        wait: Literal[True] = True,
    ) -> None: ...
    @overload
    def launch(
        self,
        global_range: Sequence[int],
        local_range: Sequence[int] | None,
        args: Sequence[Any],
        *,
        wait: Literal[False],
    ) -> Event: ...
    def launch(
        self,
        global_range: Sequence[int],
        local_range: Sequence[int] | None,
        args: Sequence[Any],
        *,
        wait: bool = True,
    ) -> Event | None:
        plan, compiled = self._prepare(args)
        check_limits(self.__name__, compiled.local_bytes, plan.queue.device, global_range, local_range)
        slots = argument_slots(plan.args)
        if wait:
            launch_and_finish(compiled.kernel, plan, slots, global_range, local_range)
            return None
        return launch_async(compiled.kernel, plan, slots, global_range, local_range, (plan, args))

    def _fast_entry(self, args: Sequence[Any]) -> tuple[_core.Kernel, Queue, int] | None:
        """For the Rust launch path, after a launch with `args` (all numba_ext arrays on one queue):
        (compiled kernel, queue, the device's largest work-group), or None to keep launching here."""
        plan, compiled = self._prepare(args)
        dev = plan.queue.device
        if compiled.local_bytes > dev.local_mem_size:
            return None
        return compiled.kernel, plan.queue, dev.max_work_group_size

    # -- introspection --------------------------------------------------------------------------------
    def _compiled_for(self, args: Sequence[Any]) -> CompiledKernel:
        return self._prepare(args)[1]

    def inspect_llvm(self, *args: Any) -> str:
        """LLVM IR of the kernel for these arguments' types."""
        return self._compiled_for(args).kernel.llvm_ir

    def inspect_asm(self, *args: Any) -> str:
        """Device code: SPIR-V disassembly (needs `spirv-dis`) or PTX text."""
        k = self._compiled_for(args).kernel
        if k.format == "ptx":
            return k.binary.decode()
        tool = shutil.which("spirv-dis")
        if tool is None:
            raise UnsupportedError("SPIR-V disassembly needs `spirv-dis` (Debian package spirv-tools)")
        with tempfile.NamedTemporaryFile(suffix=".spv") as f:
            f.write(k.binary)
            f.flush()
            return subprocess.run([tool, f.name], capture_output=True, text=True, check=True).stdout

    def __repr__(self) -> str:
        return f"<numba_ext.kernel {self.py_func.__qualname__}>"


@overload
def kernel(func: None = None) -> Callable[[Callable[..., Any]], Kernel]: ...
@overload
def kernel(func: Callable[..., Any]) -> Kernel: ...
def kernel(func: Callable[..., Any] | None = None) -> Kernel | Callable[[Callable[..., Any]], Kernel]:
    """Decorator for data-parallel kernels (no return value)."""
    if func is None:
        return kernel
    return Kernel(func)


@overload
def func(f: None = None) -> Callable[[Callable[..., Any]], DeviceFunction]: ...
@overload
def func(f: Callable[..., Any]) -> DeviceFunction: ...
def func(
    f: Callable[..., Any] | None = None,
) -> DeviceFunction | Callable[[Callable[..., Any]], DeviceFunction]:
    """Decorator for device functions callable from kernels."""
    if f is None:
        return func
    return DeviceFunction(f)


def call_kernel(k: Kernel, range_: LaunchConfig, *args: Any) -> None:
    """Launch `k` over `range_` (an int, a tuple, a Range or an NdRange) and wait."""
    return k[range_](*args)


def call_kernel_async(k: Kernel, range_: LaunchConfig, *args: Any) -> Event:
    """Launch `k` and return an Event; call `.wait()` before using the results."""
    g, lo = normalize_range(range_)
    return k.launch(g, lo, args, wait=False)


__all__: Sequence[str] = [
    "Event",
    "Kernel",
    "NdRange",
    "Range",
    "call_kernel",
    "call_kernel_async",
    "func",
    "kernel",
]
