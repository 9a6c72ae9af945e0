"""Explicit data-parallel kernels: ``@numba_ext.kernel`` and ``@numba_ext.func``.

A kernel is typed by Numba for the launch's argument types, translated to the control-flow kernel IR
(``compiler.kernel_translate``) and compiled by the Rust core, once per (signature, device kind).
Launches follow compute follows data (``placement.plan_call``): the queue comes from the array
arguments, NumPy arrays need ``offload_to``."""

from __future__ import annotations

import hashlib
import inspect
import shutil
import struct
import subprocess
import tempfile
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast, overload

import numpy as np
from numba.core import types
from numba.core.typing import typeof as numba_typeof

from .. import _core
from ..arrays import ndarray
from ..compiler.device_functions import DeviceFunction, typed_ir
from ..compiler.function_builder import FunctionBuilder
from ..compiler.kernel_ir import Function
from ..compiler.kernel_translate import Translator
from ..devices import device_by_filter
from ..errors import (
    ExecutionPlacementError,
    KernelArgumentError,
    LaunchError,
    NumbaExtError,
    UnsupportedError,
)
from ..placement import plan_call

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Literal, NoReturn, SupportsIndex, TypeAlias

    from ..devices import Device, Queue
    from ..placement import CallPlan

    #: a range: an int, or a tuple or list of ints (1 to 3 of them)
    _RangeArg = SupportsIndex | tuple[SupportsIndex, ...] | list[SupportsIndex]
    #: a launch configuration: a global range, (global range, local range) or an NdRange
    _LaunchConfig: TypeAlias = "_RangeArg | tuple[_RangeArg, _RangeArg] | NdRange"

    class _LaunchPlan(CallPlan):
        """The call plan of a launch: it has a queue (``Kernel._prepare`` checks)."""

        queue: Queue


_F64, _F64_BITS = struct.Struct("<d"), struct.Struct("<Q")  # a float argument's bits

_compile_lock = threading.RLock()


class Range(tuple[int, ...]):
    """A global range of 1 to 3 dimensions."""

    @overload
    def __new__(cls, dims: tuple[SupportsIndex, ...] | list[SupportsIndex], /) -> Range: ...
    @overload
    def __new__(cls, *dims: SupportsIndex) -> Range: ...
    def __new__(cls, *dims: Any) -> Range:
        if 1 <= len(dims) <= 3 and all(type(d) is int and d >= 0 for d in dims):  # the common spelling
            return super().__new__(cls, dims)
        dims = _dims(dims[0] if len(dims) == 1 and isinstance(dims[0], (tuple, list)) else dims, "global")
        return super().__new__(cls, dims)


class NdRange:
    """A global range and a work-group (local) range of the same dimensions."""

    def __init__(self, global_range: _RangeArg, local_range: _RangeArg) -> None:
        self.global_range = Range(
            *(global_range if isinstance(global_range, (tuple, list)) else (global_range,))
        )
        self.local_range = Range(*(local_range if isinstance(local_range, (tuple, list)) else (local_range,)))
        if len(self.global_range) != len(self.local_range):
            raise LaunchError(
                f"global range {tuple(self.global_range)} and local range {tuple(self.local_range)} have "
                "different numbers of dimensions"
            )
        for d, (g, lo) in enumerate(zip(self.global_range, self.local_range)):
            if g % lo:
                raise LaunchError(f"local size {lo} does not divide global size {g} in dimension {d}")

    def __repr__(self) -> str:
        return f"NdRange({tuple(self.global_range)}, {tuple(self.local_range)})"


def _dims(dims: Any, what: str) -> tuple[int, ...]:
    if isinstance(dims, (int, np.integer)):
        dims = (dims,)
    dims = tuple(dims)
    if not 1 <= len(dims) <= 3 or not all(isinstance(d, (int, np.integer)) and d >= 0 for d in dims):
        raise LaunchError(f"a {what} range is 1 to 3 non-negative integers, got {dims!r}")
    return tuple(int(d) for d in dims)


def _normalize_range(cfg: _LaunchConfig) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
    if isinstance(cfg, NdRange):
        return tuple(cfg.global_range), tuple(cfg.local_range)
    if isinstance(cfg, Range):
        return tuple(cfg), None
    if (
        isinstance(cfg, tuple)
        and len(cfg) == 2
        and all(isinstance(c, (tuple, list, int, np.integer, Range)) for c in cfg)
        and not all(isinstance(c, (int, np.integer)) for c in cfg)
    ):
        nd = NdRange(cfg[0], cfg[1])
        return tuple(nd.global_range), tuple(nd.local_range)
    if isinstance(cfg, tuple) and len(cfg) == 2 and all(isinstance(c, (int, np.integer)) for c in cfg):
        # k[global, local] with two integers: a 1-D launch
        nd = NdRange(cfg[0], cfg[1])
        return tuple(nd.global_range), tuple(nd.local_range)
    return _dims(cfg, "global"), None


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


class _Compiled:
    __slots__ = ("kernel", "spec", "local_bytes")

    def __init__(self, kernel: _core.Kernel, spec: Function) -> None:
        self.kernel = kernel
        self.spec = spec
        self.local_bytes = sum(
            int(np.prod(a.shape, dtype=np.int64)) * np.dtype(a.dtype).itemsize
            for a in spec.arrays
            if a.space == "local"
        )


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
        self._cache: dict = {}
        self._fast: dict = {}
        self._ranges: dict = {}  # launch configuration -> (global range, local range)
        self.__name__ = py_func.__name__
        self.__doc__ = py_func.__doc__
        self._set_fast_path(ndarray, len(self._params))

    def __getitem__(self, cfg: _LaunchConfig) -> _core.KernelLaunch:
        key: tuple[type, object] | None
        try:
            key = (type(cfg), cfg)  # (4, 4) is a 1-D launch with a local size, Range(4, 4) a 2-D range
            ranges = self._ranges.get(key)
        except TypeError:  # unhashable (a list)
            key = ranges = None
        if ranges is None:
            global_range, local_range = _normalize_range(cfg)
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
    def _argtypes(self, args: Sequence[Any]) -> tuple[Any, ...]:
        out = []
        for name, a in zip(self._params, args):
            if isinstance(a, ndarray):
                out.append(a._numba_type_)  # made once per array
            elif isinstance(a, (bool, np.bool_)):
                out.append(types.boolean)
            elif isinstance(a, (int, np.integer)):
                out.append(types.int64 if isinstance(a, int) else numba_typeof.typeof(a))
            elif isinstance(a, (float, np.floating)):
                out.append(types.float64 if isinstance(a, float) else numba_typeof.typeof(a))
            else:
                raise KernelArgumentError(
                    f"kernel {self.__name__}: argument '{name}' has type {type(a).__name__}; kernels take "
                    "numba_ext arrays, NumPy arrays (inside numba_ext.offload_to) and Python ints, floats, "
                    "bools"
                )
        return tuple(out)

    def _compile(self, argtys: tuple[Any, ...], device_filter: str) -> _Compiled:
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
        with _compile_lock:
            c = self._cache.get(key)
            if c is None:
                c = self._cache[key] = self._compile_uncached(argtys, device_filter)
        return c

    def _compile_uncached(self, argtys: tuple[Any, ...], device_filter: str) -> _Compiled:
        try:
            func_ir, typemap, calltypes, restype = typed_ir(self.py_func, argtys)
        except NumbaExtError:
            raise
        except Exception as e:
            raise UnsupportedError(f"kernel {self.__name__} could not be typed for {argtys}:\n{e}") from None
        if not isinstance(restype, types.NoneType):
            raise UnsupportedError(
                f"kernel {self.__name__} returns a value ({restype}); kernels return nothing"
            )
        digest = hashlib.sha1(repr((self.py_func.__qualname__, argtys)).encode()).hexdigest()[:12]
        fb = FunctionBuilder(f"{self.__name__}_{digest}")
        Translator(fb, func_ir, typemap, calltypes).translate()
        spec = fb.function()
        kernel = _core.compile_function(spec, device_by_filter(device_filter))
        return _Compiled(kernel, spec)

    def _prepare(self, args: Sequence[Any]) -> tuple[_LaunchPlan, _Compiled]:
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
        argtys = self._argtypes(plan.args)
        compiled = self._compile(argtys, plan.queue.device.filter_string)
        return cast("_LaunchPlan", plan), compiled  # its queue was checked above

    def _slots(self, args: Sequence[Any]) -> list[int]:
        slots = []
        for a in args:
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

    def _check_limits(
        self,
        compiled: _Compiled,
        device: Device,
        global_range: Sequence[int],
        local_range: Sequence[int] | None,
    ) -> None:
        if local_range is not None:
            wg = int(np.prod(local_range))
            if wg > device.max_work_group_size:
                raise LaunchError(
                    f"kernel {self.__name__}: work-group size {local_range} ({wg} work-items) exceeds the "
                    f"limit of {device.max_work_group_size} on {device.filter_string}"
                )
        if compiled.local_bytes > device.local_mem_size:
            raise LaunchError(
                f"kernel {self.__name__} needs {compiled.local_bytes} bytes of local memory; "
                f"{device.filter_string} has {device.local_mem_size}"
            )

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
        self._check_limits(compiled, plan.queue.device, global_range, local_range)
        slots = self._slots(plan.args)
        if wait:
            compiled.kernel.launch_nd(
                plan.queue, slots, list(global_range), None if local_range is None else list(local_range)
            )
            plan.finish(None)
            return None

        def run() -> None:
            try:
                compiled.kernel.launch_nd(
                    plan.queue, slots, list(global_range), None if local_range is None else list(local_range)
                )
                plan.finish(None)
            except Exception as e:  # surfaced by Event.wait()
                ev._error = e

        th = threading.Thread(target=run, daemon=True)
        ev = Event(th, (plan, args))
        th.start()
        return ev

    def _fast_entry(self, args: Sequence[Any]) -> tuple[_core.Kernel, Queue, int] | None:
        """For the Rust launch path, after a launch with `args` (all numba_ext arrays on one queue):
        (compiled kernel, queue, the device's largest work-group), or None to keep launching here."""
        plan, compiled = self._prepare(args)
        dev = plan.queue.device
        if compiled.local_bytes > dev.local_mem_size:
            return None
        return compiled.kernel, plan.queue, dev.max_work_group_size

    # -- introspection --------------------------------------------------------------------------------
    def _compiled_for(self, args: Sequence[Any]) -> _Compiled:
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


def call_kernel(k: Kernel, range_: _LaunchConfig, *args: Any) -> None:
    """Launch `k` over `range_` (an int, a tuple, a Range or an NdRange) and wait."""
    return k[range_](*args)


def call_kernel_async(k: Kernel, range_: _LaunchConfig, *args: Any) -> Event:
    """Launch `k` and return an Event; call `.wait()` before using the results."""
    g, lo = _normalize_range(range_)
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
