"""``@numba_ext.jit``: Numba's nopython compilation with compute-follows-data checks on the call
and introspection of the device kernels a signature compiled to."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, overload

import numba
import numpy as np
from numba.core import types, typing
from numba.extending import typeof_impl

from .. import _core
from ..arrays import ndarray
from ..errors import UnsupportedError
from ..placement import CallPlan, plan_call
from .numba_hooks import OffloadCompiler, on_reset_overloads


class JitFunction(_core.JitCaller):
    """A jitted function. Calls check compute-follows-data before anything is compiled or run: the
    common case (numba_ext arrays on one queue with one USM type, no NumPy arrays, no offload_to
    active) in the extension, which then calls the compiled overload directly when it can
    (rust/src/python/jit.rs); everything else in ``_call_slow``."""

    def __init__(self, py_func: Callable[..., Any], **options: Any) -> None:
        if options.get("cache"):
            raise UnsupportedError(
                "numba_ext.jit(cache=True) is not supported yet: compiled host code refers to device "
                "kernels by process-local addresses. (Plain numba.njit(cache=True) skips caching such "
                "functions with a warning.)"
            )
        options.setdefault("nopython", True)
        options.setdefault("parallel", True)  # prange loops and NumPy reductions become parfors -> kernels
        options.setdefault("pipeline_class", OffloadCompiler)
        self._dispatcher = numba.jit(**options)(py_func)
        self.py_func = py_func
        params = inspect.signature(py_func).parameters
        self._params = list(params)
        functools.update_wrapper(self, py_func)
        # The overload cache of the fast path (rust/src/python/jit.rs) takes calls that pass every
        # parameter positionally, in functions without defaults or *args/**kwargs.
        plain = all(
            p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
            for p in params.values()
        )
        self._set_fast_path(self._dispatcher, ndarray, np.ndarray, len(params) if plain else None)
        # recompile(): the cached entry points are stale
        on_reset_overloads(self._dispatcher, self._clear_fast_cache)

    _SCALAR_TYPES = {float: types.float64, int: types.int64, bool: types.boolean, complex: types.complex128}

    def _fast_entry(self, args: tuple[Any, ...]) -> int | None:
        """The entry point of the overload compiled for exactly the types of `args` (numba_ext arrays
        and Python scalars, see rust/src/python/jit.rs), or None."""
        sig = tuple(a._numba_type_ if type(a) is ndarray else self._SCALAR_TYPES[type(a)] for a in args)
        cres = self._dispatcher.overloads.get(sig)
        return None if cres is None or cres.objectmode else cres.entry_point

    def _plan(self, args: tuple[Any, ...]) -> CallPlan:
        # warnings point at the caller of the jitted function
        return plan_call(
            f"{self.py_func.__name__}()", self._params, args, allow_host_and_usm=True, stacklevel=4
        )

    def _call_slow(self, *args: Any) -> Any:
        plan = self._plan(args)
        return plan.finish(self._dispatcher(*plan.args))

    def _compile_result(self, args: tuple[Any, ...]) -> Any:
        planned = self._plan(args).args
        argtys = tuple(typing.typeof.typeof(a, typing.typeof.Purpose.argument) for a in planned)
        self._dispatcher.compile(argtys)
        return self._dispatcher.overloads[argtys]

    def inspect_kernels(self, *args: Any) -> list[_core.Kernel]:
        """The device kernels compiled for these arguments' types (one per offloaded region)."""
        return list(self._compile_result(args).metadata.get("numba_ext_kernels", []))

    def inspect_llvm(self, *args: Any) -> str:
        """Host LLVM IR of the function for these arguments' types."""
        return self._compile_result(args).library.get_llvm_str()

    @property
    def signatures(self) -> list[Any]:
        return self._dispatcher.signatures

    def __repr__(self) -> str:
        return f"<numba_ext.jit {self.py_func.__qualname__}>"


@overload
def jit(func: Callable[..., Any], **options: Any) -> JitFunction: ...
@overload
def jit(func: None = None, **options: Any) -> Callable[[Callable[..., Any]], JitFunction]: ...
def jit(
    func: Callable[..., Any] | None = None, **options: Any
) -> JitFunction | Callable[[Callable[..., Any]], JitFunction]:
    """Compile `func` with Numba; array expressions on numba_ext arrays run as fused device kernels
    on the queue inferred from the arguments."""
    if func is None:
        return lambda f: JitFunction(f, **options)
    return JitFunction(func, **options)


@typeof_impl.register(JitFunction)
def _typeof_jit_function(val: JitFunction, c: Any) -> types.Dispatcher:
    """A jitted function called from jitted code (numba_ext.jit or numba.njit) is its dispatcher."""
    return types.Dispatcher(val._dispatcher)
