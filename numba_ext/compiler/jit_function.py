"""The Numba path of ``@numba_ext.jit`` (``numba_ext.functions.jit_function`` routes calls here when
a function or its argument types are not served from the source), and the jitted helpers of the
library: Numba's nopython compilation with compute-follows-data checks on the call and introspection
of the device kernels a signature compiled to."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Sequence
from typing import Any, overload

import numba
import numpy as np
from numba.core import types, typing

from .. import _core
from .._pickling import pickle_reduce
from ..arrays import ndarray
from ..errors import UnsupportedError
from ..placement import CallPlan, plan_call
from .call_binding import CallBinder
from .disk_cache import FunctionDiskCache
from .numba_hooks import OffloadCompiler, on_reset_overloads


class JitFunction(_core.JitCaller):
    """A jitted function. Calls check compute-follows-data before anything is compiled or run: the
    common case (numba_ext arrays on one queue with one USM type, no NumPy arrays, no offload_to
    active) in the extension, which then calls the compiled overload directly when it can
    (rust/src/python/jit.rs); everything else in ``_call_slow``."""

    def __init__(self, py_func: Callable[..., Any], **options: Any) -> None:
        self._options = dict(options)  # as given, for pickling
        cache = bool(options.pop("cache", False))
        options.setdefault("nopython", True)
        options.setdefault("parallel", True)  # prange loops and NumPy reductions become parfors -> kernels
        options.setdefault("pipeline_class", OffloadCompiler)
        self._binder = CallBinder(py_func)
        self._dispatcher = numba.jit(**options)(py_func)
        if cache:  # Numba's cache with checksummed entries
            try:
                self._dispatcher._cache = FunctionDiskCache(py_func)
            except RuntimeError as e:  # Numba finds no place for the cache (a function typed at a prompt)
                name = py_func.__qualname__
                raise UnsupportedError(f"{name}: cache=True is not possible here: {e}") from None
        self.py_func = py_func
        functools.update_wrapper(self, py_func)
        # Calls passing only positional arguments take the fast path (rust/src/python/jit.rs); its
        # overload cache needs every parameter positional without a default. Numba's dispatcher does
        # not place keyword-only parameters itself, so functions with them always bind here.
        self._fast = not self._binder.keyword_only
        if self._fast:
            nparams = len(self._binder.positional) if self._binder.plain else None
            self._set_fast_path(self._dispatcher, ndarray, np.ndarray, nparams)
        # recompile(): the cached entry points are stale
        on_reset_overloads(self._dispatcher, self._clear_fast_cache)

    @property
    def _numba_type_(self) -> types.Dispatcher:
        """Numba's type of this function inside other jitted code: its dispatcher's (calls compile
        it for the caller's argument types and call it directly)."""
        return types.Dispatcher(self._dispatcher)

    _SCALAR_TYPES = {float: types.float64, int: types.int64, bool: types.boolean, complex: types.complex128}

    def _fast_entry(self, args: tuple[Any, ...]) -> int | None:
        """The entry point of the overload compiled for exactly the types of `args` (numba_ext arrays
        and Python scalars, see rust/src/python/jit.rs), or None."""
        sig = tuple(a._numba_type_ if type(a) is ndarray else self._SCALAR_TYPES[type(a)] for a in args)
        cres = self._dispatcher.overloads.get(sig)
        return None if cres is None or cres.objectmode else cres.entry_point

    def _plan(self, args: Sequence[Any], depth: int = 0) -> CallPlan:
        # warnings point at the caller of the jitted function (`depth` more frames of ours)
        names = self._binder.names(len(args))
        return plan_call(
            f"{self.py_func.__name__}()", names, args, allow_host_and_usm=True, stacklevel=5 + depth
        )

    def _call_slow(self, *args: Any, **kwargs: Any) -> Any:
        """Calls the fast path does not take: keyword arguments, functions with keyword-only
        parameters, and calls that need the placement rules in full."""
        if kwargs or not self._fast:
            values = self._binder.bind(args, kwargs)
            if self._fast:  # now positional: the fast path, or back here without keywords
                return _core.JitCaller.__call__(self, *values)
            return self._run(values, 0)
        return self._run(args, 0)

    def _run(self, args: Sequence[Any], depth: int) -> Any:
        for name, a in zip(self._binder.names(len(args)), args):
            if type(a) is int and not -(2**63) <= a < 2**64:
                raise UnsupportedError(
                    f"{self.py_func.__name__}(): argument {name!r} is the integer {a}, beyond 64 bits, "
                    f"which compiled code cannot hold (Numba has no type for it); pass float({a}) or a "
                    "NumPy integer"
                )
        plan = self._plan(args, depth)
        return plan.finish(self._dispatcher(*plan.args))

    def _compile_result(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        planned = self._plan(self._binder.bind(args, kwargs)).args
        argtys = tuple(typing.typeof.typeof(a, typing.typeof.Purpose.argument) for a in planned)
        self._dispatcher.compile(argtys)
        return self._dispatcher.overloads[argtys]

    def inspect_kernels(self, *args: Any, **kwargs: Any) -> list[_core.Kernel]:
        """The device kernels compiled for these arguments' types (one per offloaded region)."""
        return list(self._compile_result(args, kwargs).metadata.get("numba_ext_kernels", []))

    def inspect_llvm(self, *args: Any, **kwargs: Any) -> str:
        """Host LLVM IR of the function for these arguments' types."""
        return self._compile_result(args, kwargs).library.get_llvm_str()

    @property
    def signatures(self) -> list[Any]:
        return self._dispatcher.signatures

    def __repr__(self) -> str:
        return f"<numba_ext.jit {self.py_func.__qualname__}>"

    def __reduce__(self) -> tuple[Any, ...]:
        """By reference when its module holds it under its name, else the Python function and the
        options (see ``numba_ext._pickling``)."""
        return pickle_reduce(self, self.py_func, (_rebuild, (self.py_func, self._options)))


def _rebuild(py_func: Callable[..., Any], options: dict[str, Any]) -> JitFunction:
    """A jitted function unpickled from its Python function and options. Unpickled by value
    (cloudpickle, a Dask worker) with ``cache=True`` but no source file for Numba's disk cache, it
    keeps the caches in memory and of device programs only."""
    code = getattr(py_func, "__code__", None)
    if options.get("cache") and not (code is not None and os.path.isfile(code.co_filename)):
        f = JitFunction(py_func, **{k: v for k, v in options.items() if k != "cache"})
        f._options = dict(options)  # pickled again as given
        return f
    return JitFunction(py_func, **options)


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
