"""numba_ext: compute-follows-data offload for Numba.

Arrays live in USM memory bound to a queue; jitted functions and kernels run where their data is.

The package is built in one-way layers (each may import only the ones below it; import-linter checks
this in ``make test``): ``devices`` <- ``arrays`` <- ``placement`` <- ``compiler`` and ``kernels``
<- ``library`` <- this module, which gathers the public API. Importing it does not import Numba: the
compiler, the kernels, the kernel API and the eager library load on first use (see below).
"""

import importlib
from typing import TYPE_CHECKING, Any

# First: registers the OpenCL drivers with the ICD loader before the extension loads.
from . import devices  # noqa: F401

# isort: split
# The layers that do not need Numba load with the package; the compiler, the kernels and the eager
# library (which import Numba: most of the import time) load on first use: a name of theirs asked of
# this module, an array's first operator, reduction or Numba type (``arrays.hooks``), or Numba's
# first compilation (the ``numba_extensions`` entry point, ``compiler.install``).
from . import arrays, errors, placement  # noqa: F401
from .arrays import (
    arange,
    array,
    asarray,
    asnumpy,
    empty,
    empty_like,
    eye,
    from_dlpack,
    full,
    full_like,
    hooks,
    identity,
    linspace,
    ndarray,
    ones,
    ones_like,
    zeros,
    zeros_like,
)
from .devices import Context, Device, Queue, default_queue, get_devices, set_default_device
from .errors import (
    ArrayInterfaceError,
    BuildError,
    DeviceFaultError,
    ExecutionPlacementError,
    KernelArgumentError,
    KernelTypingError,
    LaunchError,
    MixedUSMTypeWarning,
    NumbaExtError,
    QueueMismatchWarning,
    UnsupportedError,
    USMError,
)
from .placement import offload_to

if TYPE_CHECKING:  # what the names loaded on first use are (explicit re-exports for type checkers)
    from numba import prange as prange

    from . import array_api as array_api
    from . import atomic as atomic
    from . import compiler as compiler
    from . import dask as dask
    from . import fft as fft
    from . import functions as functions
    from . import kernel_api as kernel_api
    from . import kernels as kernels
    from . import library as library
    from . import linalg as linalg
    from . import local as local
    from . import private as private
    from . import random as random
    from . import utils as utils
    from .compiler import erf as erf
    from .compiler import erfc as erfc
    from .functions import jit as jit
    from .kernel_api import GLOBAL_MEM_FENCE as GLOBAL_MEM_FENCE
    from .kernel_api import LOCAL_MEM_FENCE as LOCAL_MEM_FENCE
    from .kernel_api import barrier as barrier
    from .kernel_api import get_global_id as get_global_id
    from .kernel_api import get_global_linear_id as get_global_linear_id
    from .kernel_api import get_global_linear_size as get_global_linear_size
    from .kernel_api import get_global_size as get_global_size
    from .kernel_api import get_group_id as get_group_id
    from .kernel_api import get_group_linear_id as get_group_linear_id
    from .kernel_api import get_local_id as get_local_id
    from .kernel_api import get_local_linear_id as get_local_linear_id
    from .kernel_api import get_local_linear_size as get_local_linear_size
    from .kernel_api import get_local_size as get_local_size
    from .kernel_api import get_num_groups as get_num_groups
    from .kernel_api import get_work_dim as get_work_dim
    from .kernels import NdRange as NdRange
    from .kernels import Range as Range
    from .kernels import USMNdArray as USMNdArray
    from .kernels import call_kernel as call_kernel
    from .kernels import call_kernel_async as call_kernel_async
    from .kernels import func as device_func
    from .kernels import func as func
    from .kernels.kernel import kernel as kernel

_SUBMODULES = frozenset(
    {
        "array_api",
        "atomic",
        "compiler",
        "dask",
        "fft",
        "functions",
        "kernel_api",
        "kernels",
        "library",
        "linalg",
        "local",
        "private",
        "random",
        "utils",
    }
)
#: public name -> (module, attribute) for the names of the layers loaded on first use (the kernel
#: API's names, every other public name not defined here, are added after ``__all__``)
_LAZY: dict[str, tuple[str, str]] = {
    **{n: ("numba_ext.compiler", n) for n in ("erf", "erfc")},
    "jit": ("numba_ext.functions", "jit"),
    **{
        n: ("numba_ext.kernels", n)
        for n in ("NdRange", "Range", "USMNdArray", "call_kernel", "call_kernel_async", "func", "kernel")
    },
    # numba_dpex.device_func is numba_ext.func
    "device_func": ("numba_ext.kernels", "func"),
    # numba_dpex.prange is Numba's prange; programs that import it from the offload package find it here
    "prange": ("numba", "prange"),
}


def __getattr__(name: str) -> Any:
    """The names of the compiler, the kernels and the kernel API, imported on first use."""
    if name in _SUBMODULES:
        value = importlib.import_module(f"numba_ext.{name}")
    elif name in _LAZY:
        module, attr = _LAZY[name]
        value = getattr(importlib.import_module(module), attr)
    elif name == "__array_namespace_info__" or not name.startswith("__"):
        # the array API's names (numba_ext.sum, numba_ext.float32): this module is the namespace
        array_api = importlib.import_module("numba_ext.array_api")
        if name not in array_api.__all__:
            raise AttributeError(f"module 'numba_ext' has no attribute {name!r}")
        value = getattr(array_api, name)
    else:
        raise AttributeError(f"module 'numba_ext' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    from .array_api import __all__ as array_api_names

    return sorted(set(globals()) | set(__all__) | set(array_api_names))


def _load_compiler() -> None:
    importlib.import_module("numba_ext.compiler")


def _load_library() -> None:
    importlib.import_module("numba_ext.library")


hooks.set_loaders(_load_compiler, _load_library)


def _numpy_linalg(name: str) -> Any:
    """``np.linalg.<name>`` of numba_ext arrays: ``numba_ext.linalg``'s NumPy-signature form,
    imported on the first call."""

    def call(*args: Any, **kwargs: Any) -> Any:
        return importlib.import_module("numba_ext.linalg").NUMPY_FUNCTIONS[name](*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    return call


def _register_numpy_linalg() -> None:
    import numpy as np

    for name in _NUMPY_LINALG:
        func = getattr(np.linalg, name, None)
        if func is not None:
            hooks.upper_array_functions[func] = _numpy_linalg(name)


#: np.linalg's functions numba_ext.linalg computes on the device (NUMPY_FUNCTIONS there)
_NUMPY_LINALG = (
    "cholesky",
    "cond",
    "cross",
    "det",
    "diagonal",
    "eigh",
    "eigvalsh",
    "inv",
    "lstsq",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "norm",
    "outer",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "svd",
    "svdvals",
    "trace",
    "vector_norm",
)
_register_numpy_linalg()

__version__ = "0.1.0"
#: the revision of the Python array API standard this module's namespace follows (``numba_ext.array_api``)
__array_api_version__ = "2024.12"

__all__ = [
    "ArrayInterfaceError",
    "GLOBAL_MEM_FENCE",
    "LOCAL_MEM_FENCE",
    "BuildError",
    "Context",
    "Device",
    "ExecutionPlacementError",
    "KernelArgumentError",
    "KernelTypingError",
    "LaunchError",
    "DeviceFaultError",
    "MixedUSMTypeWarning",
    "NdRange",
    "NumbaExtError",
    "Queue",
    "QueueMismatchWarning",
    "Range",
    "USMError",
    "USMNdArray",
    "UnsupportedError",
    "arange",
    "array",
    "asarray",
    "asnumpy",
    "atomic",
    "barrier",
    "call_kernel",
    "call_kernel_async",
    "default_queue",
    "set_default_device",
    "device_func",
    "empty",
    "empty_like",
    "erf",
    "erfc",
    "errors",
    "eye",
    "from_dlpack",
    "full",
    "full_like",
    "func",
    "get_devices",
    "get_global_id",
    "get_global_linear_id",
    "get_global_linear_size",
    "get_global_size",
    "get_group_id",
    "get_group_linear_id",
    "get_local_id",
    "get_local_linear_id",
    "get_local_linear_size",
    "get_local_size",
    "get_num_groups",
    "get_work_dim",
    "identity",
    "kernel_api",
    "jit",
    "kernel",
    "linspace",
    "local",
    "ndarray",
    "offload_to",
    "ones",
    "ones_like",
    "prange",
    "private",
    "utils",
    "zeros",
    "zeros_like",
]

# the kernel API's names: the public names neither defined above nor loaded from another layer
_LAZY.update(
    (n, ("numba_ext.kernel_api", n))
    for n in __all__
    if n not in globals() and n not in _LAZY and n not in _SUBMODULES
)
