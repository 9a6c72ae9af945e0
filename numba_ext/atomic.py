"""Atomic read-modify-write on array elements inside kernels: ``numba_ext.atomic.add(array, index,
value)`` and friends return the old value. int32, int64, float32 and float64 (floats through a
compare-and-swap loop, so every device supports them)."""

from .compiler.intrinsics import ATOMIC_OPS as OPS
from .compiler.intrinsics import atomic_add as add
from .compiler.intrinsics import atomic_compare_exchange as compare_exchange
from .compiler.intrinsics import atomic_exchange as exchange
from .compiler.intrinsics import atomic_max as max
from .compiler.intrinsics import atomic_min as min
from .compiler.intrinsics import atomic_sub as sub

__all__ = ["OPS", "add", "compare_exchange", "exchange", "max", "min", "sub"]
