"""``@numba_ext.jit``: array-expression functions compiled straight from their source, without Numba;
every other function, and every call the source path does not cover, compiled by Numba through the
compiler layer (loaded then).

Both paths give the same results: the source path (:mod:`.program`, :mod:`.plan`) builds the same
kernel IR the compiler layer builds from Numba's typed IR for the same function, for argument types
whose NumPy typing it shares with Numba exactly. What differs is the cost of a first call: no Numba
import, typing or host code generation, one fused kernel compiled for the whole function.
"""

from __future__ import annotations

import functools
import inspect
import os
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, overload

import numpy as np

from .. import _core
from .._pickling import pickle_reduce
from ..arrays import hooks, ndarray
from ..placement import CallPlan, common_case_queue, offload_active, plan_call
from .plan import Plan, kind_of
from .program import Program, parse
from .staged import StagedPlan, specialize

#: a specialisation of the source path: one fused kernel, or kernels in order around reductions
AnyPlan = Plan | StagedPlan

if TYPE_CHECKING:
    from ..compiler.jit_function import JitFunction as NumbaJitFunction

#: options the source path honours as Numba does (the defaults of ``numba_ext.jit``)
_SOURCE_OPTIONS = {"cache": (True, False), "nopython": (True,), "parallel": (True,)}


#: calls of one argument-type combination served from the source before Numba compiles them too.
#: Numba's compile (about a second with its import, and ~0.4 MB kept for the life of the process) saves
#: a few microseconds per later call of the common case (the extension's native runner costs about
#: twice a bare launch on the CPU device, Numba's compiled code about 1.25x; tens of microseconds for
#: calls the plan runs in Python): it pays for itself after some 100,000 calls, so switching there
#: costs at most about twice the better choice made in hindsight
HOT_CALLS = 100_000


def _hot_calls() -> int:
    """``NUMBA_EXT_HOT_CALLS`` (default ``HOT_CALLS``; 0: always Numba; negative: never Numba)."""
    try:
        return int(os.environ.get("NUMBA_EXT_HOT_CALLS", HOT_CALLS))
    except ValueError:
        return HOT_CALLS


def _numba_disabled() -> bool:
    return os.environ.get("NUMBA_DISABLE_JIT", "0").strip() not in ("", "0")


class _PlanEntry:
    """A specialisation as the extension's fast path calls it: common-case arguments (numba_ext arrays
    on one queue with one USM type, Python scalars)."""

    __slots__ = ("plan", "function")

    def __init__(self, plan: AnyPlan, function: JitFunction) -> None:
        self.plan = plan
        self.function = function

    def __call__(self, *args: Any) -> Any:
        queue = next(a._queue for a in args if type(a) is ndarray)
        result = self.plan.run(args, queue)
        if result is NotImplemented:
            return self.function._numba()(*args)
        self.function._count(self.plan, args)
        return result


class JitFunction(_core.JitCaller):
    """A jitted function (see the module documentation). Calls check compute-follows-data first;
    NumPy arrays need ``offload_to``, non-equivalent queues are an error."""

    def __init__(self, py_func: Callable[..., Any], _by_value: bool = False, **options: Any) -> None:
        self.py_func = py_func
        self._options = options  # as given, for pickling
        code = getattr(py_func, "__code__", None)
        if _by_value and options.get("cache") and not (code is not None and os.path.isfile(code.co_filename)):
            # unpickled by value (cloudpickle, a Dask worker) with no source file for Numba's disk
            # cache: the in-memory and device-program caches only
            options = {k: v for k, v in options.items() if k != "cache"}
        self._numba_options = options
        self._impl: NumbaJitFunction | None = None
        self._lock = threading.RLock()
        self._program: Program | str | None = None
        self._plans: dict[tuple[Any, ...], AnyPlan | None] = {}
        self._fast_set = False
        self._cache = bool(options.get("cache", False))
        functools.update_wrapper(self, py_func)
        self._source = (
            code is not None
            and all(k in _SOURCE_OPTIONS and v in _SOURCE_OPTIONS[k] for k, v in options.items())
            and not (code.co_kwonlyargcount or code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS))
            and not py_func.__defaults__
            and not _numba_disabled()
            # Numba's cache needs the source file (a function typed at a prompt is refused)
            and not (self._cache and not os.path.isfile(code.co_filename))
        )
        self._names = list(code.co_varnames[: code.co_argcount]) if code is not None else []
        if self._source:
            # common-case calls go from the extension to a plan's native runner (rust/src/python/jit.rs)
            self._set_source_path(ndarray, np.ndarray)
        else:
            self._numba()  # Numba's own checks of the function run now, as they always did

    # -- the Numba path ---------------------------------------------------------------------------
    def _numba(self) -> NumbaJitFunction:
        """The Numba-compiled form (made on first need, which loads Numba)."""
        impl = self._impl
        if impl is None:
            with self._lock:
                if self._impl is None:
                    from ..compiler.jit_function import JitFunction as NumbaJit
                    from ..compiler.numba_hooks import on_reset_overloads

                    impl = NumbaJit(self.py_func, **self._numba_options)
                    # recompile(): globals are read again, by the source path too
                    on_reset_overloads(impl._dispatcher, self._reset_source)
                    self._impl = impl
                impl = self._impl
        self._enable_fast_path()
        return impl

    def recompile(self) -> None:
        """Compile again on the next call of each argument-type combination, reading the function's
        globals anew (as Numba's ``Dispatcher.recompile``)."""
        if self._impl is not None:
            self._impl._dispatcher.recompile()  # calls _reset_source
        else:
            self._reset_source()

    def _reset_source(self) -> None:
        with self._lock:
            self._program = None
            self._plans = {}
        self._clear_fast_cache()

    def _enable_fast_path(self) -> None:
        """Once Numba is loaded (its array types key the extension's fast path), calls of the common
        case go through the extension: to a specialisation's entry or Numba's compiled code."""
        if not self._fast_set and hooks.typing_loaded():
            with self._lock:
                if not self._fast_set:
                    self._fast_set = True
                    impl = self._impl
                    if self._source:
                        # None: the extension calls self._dispatch (a bound method held there
                        # would be a reference cycle the garbage collector cannot break)
                        self._set_fast_path(None, ndarray, np.ndarray, len(self._names))
                    elif impl is not None and impl._fast:  # as Numba's path alone sets it
                        nparams = len(impl._binder.positional) if impl._binder.plain else None
                        self._set_fast_path(impl._dispatcher, ndarray, np.ndarray, nparams)

    def _fast_entry(self, args: tuple[Any, ...]) -> Any:
        """What the extension's fast path calls for arguments of exactly these types."""
        plan = self._plan_for(args)
        if plan is not None:
            return _PlanEntry(plan, self)
        return self._numba()._fast_entry(args)

    def _source_entry(self, args: tuple[Any, ...]) -> tuple[Plan, _core.PlanRunner] | None:
        """For the extension's source path: the plan and runner for arguments of these kinds (a
        common-case call), or None when Numba serves them."""
        plan = self._plan_for(args)
        # a staged plan runs in Python (its kernels, several, from `_call_slow`)
        return (plan, plan.native_runner()) if isinstance(plan, Plan) else None

    def _dispatch(self, *args: Any) -> Any:
        """A common-case call (see :class:`_PlanEntry`) the fast path has no entry for yet."""
        plan = self._plan_for(args)
        if plan is not None:
            return _PlanEntry(plan, self)(*args)
        return self._numba()(*args)

    # -- calls ------------------------------------------------------------------------------------
    def _call_slow(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs and self._source:
            args = tuple(inspect.signature(self.py_func).bind(*args, **kwargs).args)
            kwargs = {}
        plan = self._plan_for(args) if not kwargs else None
        if plan is None:
            return self._numba()(*args, **kwargs)
        self._enable_fast_path()
        queue = common_case_queue(args)
        if queue is not None and not offload_active():  # the placement decision plan_call would make
            result = plan.run(args, queue)
            if result is NotImplemented:
                return self._numba()(*args)
            self._count(plan, args)
            return result
        p = self._plan(args, depth=1)
        if p.queue is None or any(type(a) is np.ndarray for a in p.args):
            return self._numba()(*args)  # NumPy data with device data outside offload_to: Numba's rules
        result = plan.run(p.args, p.queue)
        if result is NotImplemented:
            return self._numba()(*args)
        self._count(plan, p.args)
        return p.finish(result)

    def _plan(self, args: Sequence[Any], depth: int = 0) -> CallPlan:
        """The placement of a call (compute follows data); warnings point at the caller of the jitted
        function (`depth` more frames of ours)."""
        what = f"{self.py_func.__name__}()"
        return plan_call(what, self._names, args, allow_host_and_usm=True, stacklevel=3 + depth)

    def _count(self, plan: AnyPlan, args: Sequence[Any]) -> None:
        """Count a call run from the source; at the ``NUMBA_EXT_HOT_CALLS``-th, have Numba compile
        these types too: its compiled code calls the kernel with the least overhead (a few
        microseconds, against tens for the source path's Python), which matters once a function is
        called often. Later calls of these types go to Numba's code. (The extension's source path,
        ``rust/src/python/jit.rs``, counts its calls in ``plan.calls`` itself, the same way, and
        calls this method only for the call that reaches the threshold.)"""
        plan.calls += 1
        hot = _hot_calls()
        if plan.calls < hot or hot < 0:
            return
        with self._lock:  # one thread compiles; calls racing past the count do not skip it
            if plan.hot or plan.calls < 0:
                return
            try:
                self._numba()._compile_result(tuple(args), {})
            except Exception:  # the source path stays correct: keep it for these types
                plan.calls = -(2**62)
                return
            plan.hot = True
        self._clear_fast_cache()

    def _plan_for(self, args: Sequence[Any]) -> AnyPlan | None:
        """The specialisation for these arguments' types, or None (Numba's)."""
        if not self._source:
            return None
        kinds = tuple(kind_of(a) for a in args)
        if kinds not in self._plans:
            with self._lock:
                if self._program is None:
                    self._program = parse(self.py_func)
                program = self._program
                plan = specialize(program, kinds) if isinstance(program, Program) and _hot_calls() else None
                self._plans[kinds] = plan
        plan = self._plans[kinds]
        return None if plan is None or plan.hot else plan

    # -- introspection ----------------------------------------------------------------------------
    @property
    def _numba_type_(self) -> Any:
        """Numba's type of this function inside other jitted code (its dispatcher's)."""
        return self._numba()._numba_type_

    @property
    def _dispatcher(self) -> Any:
        """Numba's dispatcher of the Numba path."""
        return self._numba()._dispatcher

    def _compile_result(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        return self._numba()._compile_result(args, kwargs)

    def inspect_kernels(self, *args: Any, **kwargs: Any) -> list[_core.Kernel]:
        """The device kernels these arguments' types compile to (one per offloaded region; one for
        a function compiled from its source, or for one that reduces along an axis, those its call
        launches, in order: it runs the call)."""
        values = tuple(inspect.signature(self.py_func).bind(*args, **kwargs).args) if kwargs else args
        plan = self._plan_for(values)
        if isinstance(plan, Plan) and plan.shape(values) is not None:
            queue = next(a._queue for a in values if type(a) is ndarray)
            return [plan.kernel(plan.contiguity(values), queue.device)]
        if isinstance(plan, StagedPlan) and all(type(a) is not np.ndarray for a in values):
            queue = next(a._queue for a in values if type(a) is ndarray)
            used: list[_core.Kernel] = []
            if plan.run(values, queue, used) is not NotImplemented:  # the call, run for its kernels
                return used
        return self._numba().inspect_kernels(*args, **kwargs)

    def inspect_llvm(self, *args: Any, **kwargs: Any) -> str:
        """Host LLVM IR of the function for these arguments' types (Numba's compilation)."""
        return self._numba().inspect_llvm(*args, **kwargs)

    @property
    def signatures(self) -> list[Any]:
        """The argument types compiled: Numba's types, then those of the source path as strings."""
        numba = self._impl.signatures if self._impl is not None else []
        return list(numba) + [p.signature() for p in self._plans.values() if p is not None and p.kernels]

    def __repr__(self) -> str:
        return f"<numba_ext.jit {self.py_func.__qualname__}>"

    def __reduce__(self) -> tuple[Any, ...]:
        """By reference when its module holds it under its name, else the Python function and the
        options (see ``numba_ext._pickling``)."""
        return pickle_reduce(self, self.py_func, (_rebuild, (self.py_func, self._options)))


def _rebuild(py_func: Callable[..., Any], options: dict[str, Any]) -> JitFunction:
    """A jitted function unpickled from its Python function and options (``cache=True`` without a
    source file to cache for: the caches in memory and of device programs only)."""
    return JitFunction(py_func, _by_value=True, **options)


@overload
def jit(func: Callable[..., Any], **options: Any) -> JitFunction: ...
@overload
def jit(func: None = None, **options: Any) -> Callable[[Callable[..., Any]], JitFunction]: ...
def jit(
    func: Callable[..., Any] | None = None, **options: Any
) -> JitFunction | Callable[[Callable[..., Any]], JitFunction]:
    """Compile `func`: array expressions on numba_ext arrays run as fused device kernels on the queue
    inferred from the arguments (see the module documentation for the two paths)."""
    if func is None:
        return lambda f: JitFunction(f, **options)
    return JitFunction(func, **options)
