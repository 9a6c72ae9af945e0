"""The functions usable inside ``@numba_ext.kernel`` / ``@numba_ext.func`` code (work-item ids and
sizes, barriers, local and private arrays, atomics). They only have meaning when compiled: the
kernel typing (``kernel_typing``) and translation (``kernel_translate``) recognise these objects;
called from Python they raise. The public names live in ``numba_ext``, ``numba_ext.atomic``,
``numba_ext.local`` and ``numba_ext.private``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn

#: Fence flags for :func:`barrier` (OpenCL's CLK_LOCAL_MEM_FENCE / CLK_GLOBAL_MEM_FENCE).
LOCAL_MEM_FENCE = 1
GLOBAL_MEM_FENCE = 2


def device_only(name: str) -> Callable[..., NoReturn]:
    """A stand-in for the device function `name` that raises when called from Python."""

    def stub(*args: Any, **kwargs: Any) -> NoReturn:
        raise RuntimeError(
            f"numba_ext.{name}() can only be called inside a @numba_ext.kernel or @numba_ext.func"
        )

    stub.__name__ = name
    stub.__qualname__ = name
    return stub


get_global_id = device_only("get_global_id")
get_local_id = device_only("get_local_id")
get_group_id = device_only("get_group_id")
get_global_size = device_only("get_global_size")
get_local_size = device_only("get_local_size")
get_num_groups = device_only("get_num_groups")
barrier = device_only("barrier")

# Linear forms (OpenCL's: dimension 0 varies fastest) and the launch's number of dimensions; they
# take no argument.
get_global_linear_id = device_only("get_global_linear_id")
get_local_linear_id = device_only("get_local_linear_id")
get_group_linear_id = device_only("get_group_linear_id")
get_global_linear_size = device_only("get_global_linear_size")
get_local_linear_size = device_only("get_local_linear_size")
get_work_dim = device_only("get_work_dim")

#: the linear functions: (id query, size query) they combine, or None for get_work_dim
LINEAR_FUNCTIONS = {
    get_global_linear_id: ("get_global_id", "get_global_size"),
    get_local_linear_id: ("get_local_id", "get_local_size"),
    get_group_linear_id: ("get_group_id", "get_num_groups"),
    get_global_linear_size: (None, "get_global_size"),
    get_local_linear_size: (None, "get_local_size"),
    get_work_dim: None,
}

WORK_ITEM_FUNCTIONS = (
    get_global_id,
    get_local_id,
    get_group_id,
    get_global_size,
    get_local_size,
    get_num_groups,
)

#: ``numba_ext.local.array(shape, dtype)``: work-group shared memory.
local_array = device_only("local.array")
#: ``numba_ext.private.array(shape, dtype)``: per-work-item memory.
private_array = device_only("private.array")

# Atomic read-modify-write on array elements: ``numba_ext.atomic.add(array, index, value)`` and
# friends return the old value. int32, int64, float32 and float64 (floats through a
# compare-and-swap loop, so every device supports them).
atomic_add = device_only("atomic.add")
atomic_sub = device_only("atomic.sub")
atomic_min = device_only("atomic.min")
atomic_max = device_only("atomic.max")
atomic_exchange = device_only("atomic.exchange")
atomic_compare_exchange = device_only("atomic.compare_exchange")

#: The atomic stand-ins and the operation each names.
ATOMIC_OPS = {
    atomic_add: "add",
    atomic_sub: "sub",
    atomic_min: "min",
    atomic_max: "max",
    atomic_exchange: "exchange",
    atomic_compare_exchange: "compare_exchange",
}
