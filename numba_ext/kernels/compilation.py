"""Compilation of kernels: the Numba types of a launch's arguments, and a kernel typed for them,
translated to the control-flow kernel IR (``compiler.kernel_translate``) and compiled by the Rust
core for one device. ``Kernel`` (``kernel.py``) caches the results per (signature, device)."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numba.core import types
from numba.core.typing import typeof as numba_typeof

from .. import _core
from ..arrays import ndarray
from ..compiler.bounds import add_bounds_array
from ..compiler.device_functions import typed_ir
from ..compiler.disk_cache import KernelDiskCache
from ..compiler.function_builder import FunctionBuilder
from ..compiler.item_api import LocalAccessor
from ..compiler.item_typing import LocalAccessorType
from ..compiler.kernel_translate import Translator
from ..devices import device_by_filter
from ..errors import KernelArgumentError, KernelTypingError, NumbaExtError, UnsupportedError
from ..ir.kernel_ir import Function

#: held while a kernel compiles, so that concurrent first launches compile it once
compile_lock = threading.RLock()


class CompiledKernel:
    """A kernel compiled for one signature and device: the extension's kernel, its IR and the local
    memory it needs per work-group."""

    __slots__ = ("kernel", "spec", "local_bytes")

    def __init__(self, kernel: _core.Kernel, spec: Function) -> None:
        self.kernel = kernel
        self.spec = spec
        self.local_bytes = sum(
            int(np.prod(a.shape, dtype=np.int64)) * np.dtype(a.dtype).itemsize
            for a in spec.arrays
            if a.space == "local"
        )


def argument_types(kernel_name: str, params: Sequence[str], args: Sequence[Any]) -> tuple[Any, ...]:
    """The Numba types of a launch's arguments (`params`: the kernel's parameter names)."""
    out = []
    for name, a in zip(params, args):
        if isinstance(a, ndarray):
            out.append(a._numba_type_)  # made once per array
        elif isinstance(a, (bool, np.bool_)):
            out.append(types.boolean)
        elif isinstance(a, (int, np.integer)):
            out.append(types.int64 if isinstance(a, int) else numba_typeof.typeof(a))
        elif isinstance(a, (float, np.floating)):
            out.append(types.float64 if isinstance(a, float) else numba_typeof.typeof(a))
        elif isinstance(a, LocalAccessor):
            out.append(LocalAccessorType(numba_typeof.typeof(a.dtype).dtype, a.shape))
        else:
            raise KernelArgumentError(
                f"kernel {kernel_name}: argument '{name}' has type {type(a).__name__}; kernels take "
                "numba_ext arrays, NumPy arrays (inside numba_ext.offload_to), LocalAccessors and Python "
                "ints, floats, bools"
            )
    return tuple(out)


def translate_kernel(
    py_func: Callable[..., Any],
    kernel_name: str,
    argtys: tuple[Any, ...],
    work_dim: int,
    boundscheck: bool | None = None,
) -> Function:
    """`py_func` typed for `argtys` and translated to the kernel IR, for launches of `work_dim`
    dimensions; bounds-checked if `boundscheck` (``compiler.bounds.boundscheck_setting``) is True,
    or None and a device function it calls asks for it."""
    try:
        func_ir, typemap, calltypes, restype = typed_ir(py_func, argtys)
    except NumbaExtError:
        raise
    except Exception as e:
        raise KernelTypingError(f"kernel {kernel_name} could not be typed for {argtys}:\n{e}") from None
    if not isinstance(restype, types.NoneType):
        raise UnsupportedError(f"kernel {kernel_name} returns a value ({restype}); kernels return nothing")
    digest = hashlib.sha1(repr((py_func.__qualname__, argtys, work_dim)).encode()).hexdigest()[:12]
    fb = FunctionBuilder(f"{kernel_name}_{digest}", work_dim=work_dim)
    Translator(fb, func_ir, typemap, calltypes).translate()
    checked = fb.boundscheck_requested if boundscheck is None else boundscheck
    return fb.function(bounds=add_bounds_array(fb) if checked else None)


def compile_kernel(
    py_func: Callable[..., Any],
    kernel_name: str,
    argtys: tuple[Any, ...],
    device_filter: str,
    work_dim: int,
    boundscheck: bool | None = None,
    disk: KernelDiskCache | None = None,
) -> CompiledKernel:
    """`py_func` typed for `argtys`, translated and compiled for the device `device_filter`; with a
    disk cache (``kernel(cache=True)``), loaded from it when it holds the kernel, else saved to it."""
    device = device_by_filter(device_filter)
    key = (argtys, device_filter, work_dim, bool(boundscheck))
    entry = None if disk is None else disk.load(key)
    if entry is not None:
        package, spec = entry
        return CompiledKernel(_core.kernel_from_package(package, spec, device), spec)
    spec = translate_kernel(py_func, kernel_name, argtys, work_dim, boundscheck)
    kernel = _core.compile_function(spec, device)
    if disk is not None:
        disk.save(key, kernel.package, spec)
    return CompiledKernel(kernel, spec)


def disk_cache(py_func: Callable[..., Any], kernel_name: str) -> KernelDiskCache:
    """The disk cache of kernel `py_func` (``kernel(cache=True)``)."""
    try:
        return KernelDiskCache(py_func)
    except RuntimeError as e:  # Numba finds no place for the cache (e.g. a function typed at a prompt)
        raise UnsupportedError(f"kernel {kernel_name}: cache=True is not possible here: {e}") from None
