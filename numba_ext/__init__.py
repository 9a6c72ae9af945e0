"""numba_ext: compute-follows-data offload for Numba.

Arrays live in USM memory bound to a queue; jitted functions and kernels run where their data is.
"""

from . import _icd

_icd.register()  # before the first OpenCL call anywhere in the process
_icd.register_libdevice()

from . import (  # noqa: E402
    _core,  # noqa: F401  (the extension; loaded after ICD registration)
    atomic,
    local,
    private,
    utils,
)
from .array import ndarray  # noqa: E402
from .cfd import offload_to  # noqa: E402
from .creation import (  # noqa: E402
    arange,
    asarray,
    asnumpy,
    empty,
    empty_like,
    full,
    full_like,
    ones,
    ones_like,
    zeros,
    zeros_like,
)
from .errors import (  # noqa: E402
    BuildError,
    ExecutionPlacementError,
    KernelArgumentError,
    LaunchError,
    MixedUSMTypeWarning,
    NumbaExtError,
    QueueMismatchWarning,
    UnsupportedError,
    USMError,
)
from .jit import jit  # noqa: E402
from .kernel import NdRange, Range, call_kernel, call_kernel_async, func, kernel  # noqa: E402
from .kernel_api import (  # noqa: E402
    GLOBAL_MEM_FENCE,
    LOCAL_MEM_FENCE,
    barrier,
    get_global_id,
    get_global_size,
    get_group_id,
    get_local_id,
    get_local_size,
    get_num_groups,
)
from .numba import _init_extension  # noqa: E402
from .runtime import Context, Device, Queue, default_queue, get_devices  # noqa: E402
from .ufuncs import erf, erfc  # noqa: E402

_init_extension()

__version__ = "0.1.0"

__all__ = [
    "GLOBAL_MEM_FENCE",
    "erf",
    "erfc",
    "KernelArgumentError",
    "LOCAL_MEM_FENCE",
    "LaunchError",
    "NdRange",
    "Range",
    "atomic",
    "barrier",
    "call_kernel",
    "call_kernel_async",
    "func",
    "get_global_id",
    "get_global_size",
    "get_group_id",
    "get_local_id",
    "get_local_size",
    "get_num_groups",
    "kernel",
    "local",
    "private",
    "BuildError",
    "Context",
    "Device",
    "ExecutionPlacementError",
    "MixedUSMTypeWarning",
    "NumbaExtError",
    "Queue",
    "USMError",
    "UnsupportedError",
    "arange",
    "asarray",
    "asnumpy",
    "default_queue",
    "empty",
    "empty_like",
    "full",
    "full_like",
    "get_devices",
    "jit",
    "ndarray",
    "offload_to",
    "ones",
    "ones_like",
    "utils",
    "zeros",
    "zeros_like",
    "QueueMismatchWarning",
]
