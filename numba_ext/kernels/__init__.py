"""The kernels layer: explicit data-parallel kernels (``@numba_ext.kernel``, ``@numba_ext.func``).

Owns: the kernel object (``kernel``), its launch configurations (``ranges``: ``Range`` / ``NdRange``),
typing per launch signature and compilation per device (``compilation``), the launch with its
argument slots, limits and events (``launch``), and ``call_kernel``. Launches follow compute follows
data through the placement layer; translation to the kernel IR is the compiler's.

May import: ``numba_ext.compiler``, ``numba_ext.placement``, ``numba_ext.arrays``,
``numba_ext.devices``, ``numba_ext.errors`` and ``numba_ext._core``. Never the library.
"""

from __future__ import annotations

from . import range_types  # noqa: F401  (Range and NdRange in jitted code)
from .kernel import Event, Kernel, NdRange, Range, call_kernel, call_kernel_async, func, kernel

__all__ = ["Event", "Kernel", "NdRange", "Range", "call_kernel", "call_kernel_async", "func", "kernel"]
