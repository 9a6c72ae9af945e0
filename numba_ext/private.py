"""``numba_ext.private.array(shape, dtype)``: per-work-item memory inside kernels."""

from .compiler.intrinsics import private_array as array

__all__ = ["array"]
