"""The compiler layer: numba_ext arrays in Numba, and Numba functions as device kernels.

Owns: the Numba type and data model of ``numba_ext.ndarray`` (``types``), boxing (``boxing``),
float16 in host code and NumPy's float16 loops (``half``), the
rewrites of NumPy calls on USM arrays (``alloc``, ``elementwise``, ``reduction_rewrite``, ``scans``,
``numpy_calls`` with ``search_and_count``, ``reshape_views`` and ``products_out``, and
``inplace_broadcast`` with ``inplace_helpers``),
array expressions and parfors as kernels (``offload``, ``parfor_offload``, ``parfor_kernel``,
``parfor_fusion``, ``setitem_offload``), the kernel IR handed to the Rust compiler (``kernel_ir``)
and its builders (``kernelspec``, ``function_builder``, ``kernel_translate``, ``kernel_exprs``,
``kernel_calls``, ``kernel_views``), the kernel API's typing (``intrinsics``, ``kernel_typing``,
``device_functions``; the item style's ``item_api``, ``item_typing`` and its translation
``item_calls``; explicit signatures ``signatures``), the launch C ABI of compiled host code
(``host_abi``), ``numba_ext.jit`` (``jit_function``) and the one module that hooks into Numba's
internals and checks the Numba version (``numba_hooks``).

May import: ``numba_ext.placement``, ``numba_ext.arrays``, ``numba_ext.devices``,
``numba_ext.errors``, ``numba_ext._pickling``, ``numba_ext._core`` and Numba. Never the kernels or
the library.

:func:`install` runs when this package is imported, which happens on first use (the package root
imports it lazily) or when Numba calls the ``numba_extensions`` entry point before its first
compilation, so plain ``@numba.njit`` functions understand numba_ext arrays in any module.
"""

from __future__ import annotations

# The overloads of these modules register with Numba when imported.
from . import (
    alloc_sequences,  # noqa: F401
    boxing,  # noqa: F401
    device_functions,  # noqa: F401
    fourier,  # noqa: F401
    inplace_helpers,  # noqa: F401
    numba_hooks,  # first: checks the Numba version before anything uses its internals
    products_out,  # noqa: F401
    queue_types,  # noqa: F401
    reductions,  # noqa: F401
    reshape_views,  # noqa: F401
    scans,  # noqa: F401
    search_and_count,  # noqa: F401
)
from .device_functions import DeviceFunction, typed_ir
from .jit_function import JitFunction, jit
from .ufuncs import erf, erfc


def install() -> None:
    """Make Numba understand numba_ext arrays (idempotent)."""
    numba_hooks.install()


install()


__all__ = ["DeviceFunction", "JitFunction", "erf", "erfc", "install", "jit", "typed_ir"]
