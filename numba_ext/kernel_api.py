"""The names kernels are written with (numba-dpex's ``kernel_api``, plus the OpenCL-style functions).

Item style: the kernel's first parameter is the work-item, an ``Item`` (launched over a ``Range``)
or an ``NdItem`` (over an ``NdRange``; ``nd_item.get_group()`` gives its ``Group``); ``AtomicRef``
updates an array element atomically, ``atomic_fence`` orders memory, ``group_barrier`` synchronises a
work-group, ``PrivateArray`` is per-work-item memory and a ``LocalAccessor`` argument work-group
memory. OpenCL style: ``get_global_id(d)`` and friends, ``barrier(flags)``, ``atomic.add`` and
friends, ``local.array`` and ``private.array``. Both styles compile to the same code and may be
mixed. ``ItemType`` / ``NdItemType`` name the item in explicit kernel signatures."""

from . import atomic, local, private
from .compiler.intrinsics import (
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
from .compiler.item_api import (
    AddressSpace,
    AtomicRef,
    Group,
    Item,
    LocalAccessor,
    MemoryOrder,
    MemoryScope,
    NdItem,
    PrivateArray,
    atomic_fence,
    group_barrier,
)
from .compiler.item_typing import ItemType, NdItemType
from .kernels import NdRange, Range, call_kernel, call_kernel_async

__all__ = [
    "GLOBAL_MEM_FENCE",
    "LOCAL_MEM_FENCE",
    "AddressSpace",
    "AtomicRef",
    "Group",
    "Item",
    "ItemType",
    "LocalAccessor",
    "MemoryOrder",
    "MemoryScope",
    "NdItem",
    "NdItemType",
    "NdRange",
    "PrivateArray",
    "Range",
    "atomic",
    "atomic_fence",
    "barrier",
    "call_kernel",
    "call_kernel_async",
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
    "group_barrier",
    "local",
    "private",
]
