"""The functions usable inside ``@numba_ext.kernel`` / ``@numba_ext.func`` code."""

from . import atomic, local, private
from .compiler.intrinsics import (
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

__all__ = [
    "GLOBAL_MEM_FENCE",
    "LOCAL_MEM_FENCE",
    "atomic",
    "barrier",
    "get_global_id",
    "get_global_size",
    "get_group_id",
    "get_local_id",
    "get_local_size",
    "get_num_groups",
    "local",
    "private",
]
