"""``numba_ext.local.array(shape, dtype)``: work-group shared memory inside kernels."""

from .compiler.intrinsics import local_array as array

__all__ = ["array"]
