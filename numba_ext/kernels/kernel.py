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

import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast, overload

from .. import _core
from .._pickling import pickle_reduce
from ..arrays import ndarray
from ..compiler.bounds import boundscheck_setting
from ..compiler.device_functions import DeviceFunction
from ..compiler.item_api import LocalAccessor
from ..compiler.signatures import is_signature_spec, parse_signatures
from ..errors import (
    ExecutionPlacementError,
    KernelArgumentError,
    KernelTypingError,
    LaunchError,
    UnsupportedError,
)
from ..placement import plan_call
from .bounds import bounds_record, check_bounds_record
from .compilation import (
    CompiledKernel,
    argument_types,
    compile_kernel,
    compile_lock,
    disk_cache,
    translate_kernel,
)
from .forms import COMPILE_HINTS, KernelForm, item_kind, kernel_signatures
from .launch import Event, argument_slots, check_limits, launch_and_finish, launch_async
from .ranges import LaunchConfig, NdRange, Range, cache_key, normalize_range

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

    def __init__(
        self, py_func: Callable[..., Any], signatures: Any = None, options: dict[str, Any] | None = None
    ) -> None:
        self.py_func = py_func
        self.__name__ = py_func.__name__
        self.__doc__ = py_func.__doc__
        self._given = (signatures, options)  # for pickling
        unknown = set(options or ()) - COMPILE_HINTS - {"cache", "boundscheck"}
        if unknown:
            raise TypeError(f"kernel {self.__name__}: unknown option(s) {', '.join(sorted(unknown))}")
        self._disk = disk_cache(py_func, self.__name__) if (options or {}).get("cache") else None
        item = item_kind(py_func)
        sigs = None if signatures is None else kernel_signatures(signatures, item, self.__name__)
        self._boundscheck: bool | None = (options or {}).get("boundscheck")
        self._form = KernelForm(py_func, sigs)
        self._params = self._form.params
        self._cache: dict = {}  # (argument types, device filter, launch rank) -> CompiledKernel
        self._fast: dict = {}  # the same by the argument types' identities
        self._ranges: dict = {}  # launch configuration -> its launch object (``k[cfg]``)
        for sig in sigs or ():  # typed and translated now: errors show at decoration
            self._eager(sig)
        self._set_fast_path(ndarray, len(self._params), LocalAccessor)

    def _eager(self, sig: tuple[Any, ...]) -> None:
        ranks = (1, 2, 3) if self._form.item is not None else (1,)
        for ndim in ranks:
            item = self._form.item_type([1] * ndim, [1] * ndim if self._form.item == "NdItem" else None)
            try:
                translate_kernel(self.py_func, self.__name__, (*([item] if item else []), *sig), ndim)
                return
            except (KernelTypingError, UnsupportedError):
                if ndim == ranks[-1]:
                    raise

    def __getitem__(self, cfg: LaunchConfig) -> _core.KernelLaunch:
        # keyed by exact types: (4, 4) is a 1-D launch with a local size, Range(4, 4) a 2-D range, and
        # (64.0,) (equal to (64,)) is no range at all, so it is never found in the cache
        key = cache_key(cfg)
        launch = None if key is None else self._ranges.get(key)
        if launch is None:
            global_range, local_range = normalize_range(cfg)
            launch = _core.KernelLaunch(
                self, list(global_range), None if local_range is None else list(local_range)
            )
            if key is not None:
                if len(self._ranges) >= _MAX_RANGES:
                    self._ranges.clear()
                self._ranges[key] = launch
        return launch

    def __call__(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise LaunchError(
            f"kernel {self.__name__} needs a launch range: call it as {self.__name__}[global_size](...) or "
            f"{self.__name__}[global_size, local_size](...), or use numba_ext.call_kernel"
        )

    # -- compilation ----------------------------------------------------------------------------------
    def _compile(self, argtys: tuple[Any, ...], device_filter: str, work_dim: int) -> CompiledKernel:
        # Numba interns its types (one object per type), so identities make a cheap first-level key;
        # the entry keeps the types alive, so the identities stay theirs
        checks = boundscheck_setting(self._boundscheck)  # NUMBA_BOUNDSCHECK may change
        fast = (*map(id, argtys), device_filter, work_dim, checks)
        c = self._fast.get(fast)
        if c is not None:
            return c
        key = (argtys, device_filter, work_dim, checks)
        c = self._cache.get(key)
        if c is not None:
            self._fast[fast] = c
            return c
        with compile_lock:
            c = self._cache.get(key)
            if c is None:
                c = self._cache[key] = compile_kernel(
                    self.py_func, self.__name__, argtys, device_filter, work_dim, checks, self._disk
                )
        return c

    def _prepare(
        self,
        args: Sequence[Any],
        kwargs: dict[str, Any] | None,
        global_range: Sequence[int],
        local_range: Sequence[int] | None,
    ) -> tuple[LaunchPlan, CompiledKernel, bool]:
        """The launch's plan (arguments bound, placed), its compiled kernel, and whether scalar
        arguments were converted to an explicit signature's types."""
        args = self._form.bind(args, kwargs)
        plan = plan_call(
            f"kernel {self.__name__}", self._params, args, allow_host_and_usm=False, stacklevel=6
        )
        if plan.queue is None:
            raise ExecutionPlacementError(
                f"kernel {self.__name__} has no array argument, so there is no data to follow: pass at least "
                "one numba_ext array (or NumPy arrays inside numba_ext.offload_to)"
            )
        argtys = argument_types(self.__name__, self._params, plan.args)
        argtys, plan.args, converted = self._form.specialize(argtys, tuple(plan.args))
        item = self._form.item_type(global_range, local_range)
        if item is not None:
            argtys = (item, *argtys)
        compiled = self._compile(argtys, plan.queue.device.filter_string, len(global_range))
        return cast("LaunchPlan", plan), compiled, converted  # its queue was checked above

    # -- launch -------------------------------------------------------------------------------------
    @overload
    def launch(
        self,
        global_range: Sequence[int],
        local_range: Sequence[int] | None,
        args: Sequence[Any],
        *,
        wait: Literal[True] = True,
        kwargs: dict[str, Any] | None = None,
        after: Sequence[Event] = (),
    ) -> None: ...
    @overload
    def launch(
        self,
        global_range: Sequence[int],
        local_range: Sequence[int] | None,
        args: Sequence[Any],
        *,
        wait: Literal[False],
        kwargs: dict[str, Any] | None = None,
        after: Sequence[Event] = (),
    ) -> Event: ...
    def launch(
        self,
        global_range: Sequence[int],
        local_range: Sequence[int] | None,
        args: Sequence[Any],
        *,
        wait: bool = True,
        kwargs: dict[str, Any] | None = None,
        after: Sequence[Event] = (),
    ) -> Event | None:
        """Launch over the ranges with `args` (and `kwargs`), once the events `after` have completed;
        wait, or return the launch's Event."""
        plan, compiled, _ = self._prepare(args, kwargs, global_range, local_range)
        check_limits(self.__name__, compiled.local_bytes, plan.queue.device, global_range, local_range)
        slots = argument_slots(plan.args)
        check = None
        if compiled.spec.bounds is not None:  # the error record: the hidden last argument
            record = bounds_record(plan.queue)
            slots += argument_slots([record])
            spec, name = compiled.spec, self.__name__

            def check() -> None:
                check_bounds_record(name, spec, record)

        if wait:
            for ev in after:
                ev.wait()
            launch_and_finish(compiled.kernel, plan, slots, global_range, local_range, check)
            return None
        return launch_async(
            compiled.kernel, plan, slots, global_range, local_range, (plan, args), after, check
        )

    def _fast_entry(
        self, args: Sequence[Any], global_range: Sequence[int], local_range: Sequence[int] | None
    ) -> tuple[_core.Kernel, Queue, int] | None:
        """For the Rust launch path, after a launch with `args` (all numba_ext arrays on one queue)
        over these ranges: (compiled kernel, queue, the device's largest work-group), or None to keep
        launching here."""
        plan, compiled, converted = self._prepare(args, None, global_range, local_range)
        dev = plan.queue.device
        if converted or compiled.local_bytes > dev.local_mem_size or compiled.spec.bounds is not None:
            return None
        return compiled.kernel, plan.queue, dev.max_work_group_size

    # -- introspection --------------------------------------------------------------------------------
    def _compiled_for(self, args: Sequence[Any]) -> CompiledKernel:
        """The kernel compiled for these arguments, for a 1-d launch (the item-style ones: over a
        Range, or an NdRange if the kernel takes an NdItem)."""
        local = [1] if self._form.item == "NdItem" else None
        return self._prepare(args, None, [1], local)[1]

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

    def __reduce__(self) -> tuple[Any, ...]:
        """By reference when its module holds it under its name, else the Python function, the
        signatures and the options (see ``numba_ext._pickling``)."""
        return pickle_reduce(self, self.py_func, (Kernel, (self.py_func, *self._given)))


@overload
def kernel(func_or_sig: Callable[..., Any], **options: Any) -> Kernel: ...
@overload
def kernel(func_or_sig: Any = None, **options: Any) -> Callable[[Callable[..., Any]], Kernel]: ...
def kernel(func_or_sig: Any = None, **options: Any) -> Kernel | Callable[[Callable[..., Any]], Kernel]:
    """Decorator for data-parallel kernels (no return value): ``@kernel``, ``@kernel(**options)``, or
    ``@kernel(sig)`` / ``@kernel([sig, ...])`` to compile for those argument types only (typed when
    decorated). ``boundscheck=True`` checks every array access and raises IndexError after the launch
    (see docs/errors.md; ``NUMBA_BOUNDSCHECK`` overrides it as in Numba). The other options numba-dpex
    and Numba take (``debug``, ``inline_threshold``, ...) are accepted and change nothing."""
    if func_or_sig is None or is_signature_spec(func_or_sig):
        return lambda f: Kernel(f, func_or_sig, options)
    return Kernel(func_or_sig, None, options)


@overload
def func(func_or_sig: Callable[..., Any], **options: Any) -> DeviceFunction: ...
@overload
def func(func_or_sig: Any = None, **options: Any) -> Callable[[Callable[..., Any]], DeviceFunction]: ...
def func(
    func_or_sig: Any = None, **options: Any
) -> DeviceFunction | Callable[[Callable[..., Any]], DeviceFunction]:
    """Decorator for device functions callable from kernels (and jitted code): ``@func``, or
    ``@func(sig)`` / ``@func([sig, ...])`` to type them for those argument types only."""
    unknown = set(options) - COMPILE_HINTS - {"boundscheck"}
    if unknown:
        raise TypeError(f"numba_ext.func: unknown option(s) {', '.join(sorted(unknown))}")
    bc = options.get("boundscheck")
    if func_or_sig is None:
        return lambda f: DeviceFunction(f, boundscheck=bc)
    if is_signature_spec(func_or_sig):
        sigs = parse_signatures(func_or_sig, "device function")
        return lambda f: DeviceFunction(f, sigs, boundscheck=bc)
    return DeviceFunction(func_or_sig, boundscheck=bc)


def call_kernel(kernel_fn: Kernel, index_space: LaunchConfig, *kernel_args: Any) -> None:
    """Launch `kernel_fn` over `index_space` (an int, a tuple, a Range or an NdRange) and wait."""
    return kernel_fn[index_space](*kernel_args)


def call_kernel_async(
    kernel_fn: Kernel, index_space: LaunchConfig, dependent_events: Sequence[Event], *kernel_args: Any
) -> tuple[Event, Event]:
    """Launch `kernel_fn` once `dependent_events` have completed, without waiting for it; returns
    (host event, kernel event) as numba-dpex does (here one Event twice: waiting on it waits for the
    kernel and releases the arguments it keeps alive)."""
    if not isinstance(dependent_events, (list, tuple)) or not all(
        isinstance(e, Event) for e in dependent_events
    ):
        raise KernelArgumentError(
            "call_kernel_async(kernel, index_space, dependent_events, *args): dependent_events is a list or "
            f"tuple of the Events earlier launches returned, got {dependent_events!r}"
        )
    g, lo = normalize_range(index_space)
    ev = kernel_fn.launch(g, lo, kernel_args, wait=False, after=tuple(dependent_events))
    return ev, ev


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
