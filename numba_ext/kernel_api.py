"""Functions usable inside ``@numba_ext.kernel`` / ``@numba_ext.func`` code. They only have meaning
when compiled; called from Python they raise."""

from __future__ import annotations

#: Fence flags for :func:`barrier` (OpenCL's CLK_LOCAL_MEM_FENCE / CLK_GLOBAL_MEM_FENCE).
LOCAL_MEM_FENCE = 1
GLOBAL_MEM_FENCE = 2


def _device_only(name):
    def stub(*args, **kwargs):
        raise RuntimeError(
            f"numba_ext.{name}() can only be called inside a @numba_ext.kernel or @numba_ext.func"
        )

    stub.__name__ = name
    stub.__qualname__ = name
    return stub


get_global_id = _device_only("get_global_id")
get_local_id = _device_only("get_local_id")
get_group_id = _device_only("get_group_id")
get_global_size = _device_only("get_global_size")
get_local_size = _device_only("get_local_size")
get_num_groups = _device_only("get_num_groups")
barrier = _device_only("barrier")

WORK_ITEM_FUNCTIONS = (
    get_global_id,
    get_local_id,
    get_group_id,
    get_global_size,
    get_local_size,
    get_num_groups,
)
