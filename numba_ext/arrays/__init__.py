"""Arrays layer: ``numba_ext.ndarray`` and everything that makes, moves and describes arrays.

Owns: the array class (``ndarray``, with its eager operations in ``operators``), the dtypes and USM
kinds arrays hold (``dtypes``), allocation, creation (``asarray``, ``empty``, ``zeros``, ``full``,
``arange``, the ``*_like`` forms, with NumPy's argument rules: ``arguments``), copies between host
and device and between queues (``transfers``), dtype conversions on the device (``casts``),
reductions on the device with ``ir.reductions``' kernels (``reductions``),
``__sycl_usm_array_interface__`` import
(``interface``), DLPack export and import (``dlpack_export``, ``dlpack``) and the extension points
through which upper layers give arrays their Numba type and their eager operations (``hooks``).

Also ``nrt``: Numba's runtime C module (which owns the arrays' memory), loaded without importing Numba.

May import: ``numba_ext.devices``, ``numba_ext.ir`` (the kernel builders of ``casts`` and
``reductions``), ``numba_ext.errors`` and ``numba_ext._core``. Never the
placement rules, the compiler, the kernels or the library (they register with ``hooks`` instead).
"""

from . import hooks, nrt  # noqa: F401  (nrt: NRT's C API, before any array is made)
from .allocation import ShapeLike, allocate, array_info, normalize_shape
from .creation import arange, array, asarray, asnumpy, empty, full, ones, zeros
from .dlpack import from_dlpack
from .dtypes import SUPPORTED_DTYPES, USM_TYPES, check_dtype, check_usm_type, default_float
from .like import empty_like, full_like, ones_like, zeros_like
from .ndarray import ndarray
from .sequences import eye, identity, linspace
from .transfers import upload_into

__all__ = [
    "SUPPORTED_DTYPES",
    "USM_TYPES",
    "ShapeLike",
    "allocate",
    "arange",
    "array_info",
    "array",
    "asarray",
    "asnumpy",
    "check_dtype",
    "check_usm_type",
    "default_float",
    "empty",
    "empty_like",
    "eye",
    "from_dlpack",
    "full",
    "full_like",
    "hooks",
    "identity",
    "linspace",
    "ndarray",
    "normalize_shape",
    "ones",
    "ones_like",
    "upload_into",
    "zeros",
    "zeros_like",
]
