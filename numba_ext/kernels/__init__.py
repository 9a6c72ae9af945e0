"""The kernels layer: explicit data-parallel kernels (``@numba_ext.kernel``, ``@numba_ext.func``).

Owns: the kernel object (``kernel``), its forms (``forms``: OpenCL or item style, parameter binding,
explicit signatures), its launch configurations (``ranges``: ``Range`` / ``NdRange``),
typing per launch signature and compilation per device (``compilation``), the launch with its
argument slots, limits and events (``launch``), and ``call_kernel`` (also inside jitted code:
``jit_launch``). Launches follow compute follows
data through the placement layer; translation to the kernel IR is the compiler's.

May import: ``numba_ext.compiler``, ``numba_ext.placement``, ``numba_ext.arrays``,
``numba_ext.devices``, ``numba_ext.errors``, ``numba_ext._pickling`` and ``numba_ext._core``. Never
the library.
"""

from __future__ import annotations

from . import jit_launch  # noqa: F401  (registers call_kernel, Range and NdRange in jitted code)
from .forms import USMNdArray
from .kernel import Event, Kernel, NdRange, Range, call_kernel, call_kernel_async, func, kernel

__all__ = [
    "Event",
    "Kernel",
    "NdRange",
    "Range",
    "USMNdArray",
    "call_kernel",
    "call_kernel_async",
    "func",
    "kernel",
]
