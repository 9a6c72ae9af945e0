"""``@numba_ext.jit``: jitted functions. Array-expression functions are compiled from their source
without loading Numba (``program`` reads the source, ``plan`` specialises it to the arguments' types
as one fused kernel, ``staged`` runs the steps of functions that reduce along an axis or slice, in
order); every other function, and every call the source path does not cover, goes to the compiler
layer (Numba), loaded then (``jit_function``).

May import: ``numba_ext.placement``, ``numba_ext.arrays``, ``numba_ext.devices``, ``numba_ext.ir``,
``numba_ext.errors``, ``numba_ext._pickling``, ``numba_ext._core``; ``numba_ext.compiler`` only
inside the calls that need Numba.
"""

from __future__ import annotations

from .jit_function import JitFunction, jit

__all__ = ["JitFunction", "jit"]
