"""The library layer: eager NumPy-surface operations on numba_ext arrays outside jitted code.

Owns: elementwise operators and ufuncs (``elementwise``: ``a + b``, ``np.sqrt(a)``), reductions and
products (``reductions``: ``x.sum(axis=1)``, ``a @ b``), the NumPy functions arrays answer through
``__array_function__`` (``functions``: np.where, np.clip, np.cumsum, the ``*_like`` functions, ...;
``manipulation``: views, np.concatenate, np.var, np.round, np.isclose, ...; ``statistics``:
np.median, np.quantile, np.percentile and their NaN-ignoring forms, np.average, np.cov,
np.corrcoef, np.interp; ``einsum``: np.einsum; ``composed``: np.tril, np.tile, np.meshgrid,
np.kron, np.select, ...; ``fft``: np.fft; ``convolution``: np.convolve, np.correlate;
sorting, gathering, sets, histograms and the NaN-ignoring reductions in
their modules) and assignment of one array into a view of another on the device.
Each runs on the queue compute follows data infers. Elementwise operations, ``np.where``, ``np.clip``,
the reductions (``argmin`` and ``argmax`` included), ``np.dot`` / ``@`` and the scans (``np.cumsum``,
``np.cumprod``) of real and bool values build their kernels from the kernel IR (``numba_ext.ir``)
without Numba; the others (``out=`` products, complex and float16 values) call jitted helpers of the
compiler layer, which import it, and Numba, on their first call. Importing this package registers
these operations as the arrays' eager operations (``arrays.hooks``).

May import: ``numba_ext.compiler``, ``numba_ext.placement``, ``numba_ext.arrays``,
``numba_ext.devices``, ``numba_ext.errors`` and ``numba_ext._core``. Never the kernels.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..arrays import hooks
from . import indexing
from .elementwise import apply
from .functions import ARRAY_FUNCTIONS, clip, where
from .like_creation import LIKE_FUNCTIONS
from .manipulation import copy_into, device_assignable
from .reductions import dot, reduce


class _ArrayOperations:
    """What arrays ask of the library (``arrays.hooks.ArrayOperations``)."""

    apply = staticmethod(apply)
    reduce = staticmethod(reduce)
    dot = staticmethod(dot)

    @staticmethod
    def assign(dst: Any, value: Any) -> bool:
        if not device_assignable(dst, value):
            return False
        copy_into(dst, value)
        return True

    getitem = staticmethod(indexing.getitem)
    setitem = staticmethod(indexing.setitem)
    ufunc_at = staticmethod(indexing.ufunc_at)

    @property
    def array_functions(self) -> Mapping[Callable[..., Any], Callable[..., Any]]:
        return ARRAY_FUNCTIONS

    @property
    def like_functions(self) -> Mapping[Callable[..., Any], Callable[..., Any]]:
        return LIKE_FUNCTIONS


hooks.register_operations(_ArrayOperations())

__all__ = ["ARRAY_FUNCTIONS", "apply", "clip", "dot", "reduce", "where"]
