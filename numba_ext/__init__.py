"""numba_ext: compute-follows-data offload for Numba.

Arrays live in USM memory bound to a queue; jitted functions and kernels run where their data is.

The package is built in one-way layers (each may import only the ones below it; import-linter checks
this in ``make test``): ``devices`` <- ``arrays`` <- ``placement`` <- ``compiler`` and ``kernels``
<- ``library`` <- this module, which only gathers the public API.
"""

import numba

# First: registers the OpenCL drivers with the ICD loader before the extension loads.
from . import devices  # noqa: F401

# isort: split
from . import (
    arrays,  # noqa: F401
    atomic,
    compiler,
    errors,
    kernel_api,
    kernels,  # noqa: F401
    library,  # noqa: F401  (registers the arrays' eager operations)
    local,
    placement,  # noqa: F401
    private,
    utils,
)
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
    identity,
    linspace,
    ndarray,
    ones,
    ones_like,
    zeros,
    zeros_like,
)
from .compiler import erf, erfc, jit
from .devices import Context, Device, Queue, default_queue, get_devices
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
from .kernel_api import (
    GLOBAL_MEM_FENCE,
    LOCAL_MEM_FENCE,
    barrier,
    get_global_id,
    get_global_linear_id,
    get_global_linear_size,
    get_global_size,
    get_group_id,
    get_group_linear_id,
    get_local_id,
    get_local_linear_id,
    get_local_linear_size,
    get_local_size,
    get_num_groups,
    get_work_dim,
)
from .kernels import NdRange, Range, USMNdArray, call_kernel, call_kernel_async, func, kernel
from .placement import offload_to

# numba_dpex.prange is Numba's prange; programs that import it from the offload package find it here
prange = numba.prange
# numba_dpex.device_func is numba_ext.func
device_func = func

compiler.install()

__version__ = "0.1.0"

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
