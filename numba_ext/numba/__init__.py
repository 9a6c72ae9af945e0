"""Numba integration: the USM array type, the offload rewrite and the launch C ABI.

``_init_extension`` is the ``numba_extensions`` entry point: Numba calls it before its first
compilation, so plain ``@numba.njit`` functions understand numba_ext arrays in any module."""

from __future__ import annotations

_initialized = False


def _init_extension() -> None:
    global _initialized
    if _initialized:
        return
    import llvmlite.binding as llvm
    from numba.core.runtime import _nrt_python

    from .. import _core

    _core._set_nrt_api(_nrt_python.c_helpers["get_api"])
    for name, addr in _core.capi_addresses().items():
        llvm.add_symbol(name, addr)
    from . import alloc, elementwise, offload, reductions, types  # noqa: F401  (typing, models, boxing, rewrites)
    from .parfor_offload import install_njit_parfor_lowering
    from .reductions import install_usm_mean

    install_njit_parfor_lowering()  # prange loops in plain @numba.njit(parallel=True)
    install_usm_mean()  # NumPy's NaN for the mean of an empty USM array

    _initialized = True
