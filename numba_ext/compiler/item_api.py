"""The item-style kernel API (the names of numba-dpex's ``kernel_api``): ``Item``, ``NdItem`` and
``Group`` (the work-item a kernel runs as, passed as its first argument), ``AtomicRef``,
``atomic_fence``, ``group_barrier``, ``PrivateArray``, ``LocalAccessor`` and the memory enums.

Like the OpenCL-style functions of ``intrinsics.py``, the in-kernel names only have meaning when
compiled: typing is ``item_typing.py``'s, translation ``item_calls.py``'s. ``LocalAccessor`` is the
exception: it is made on the host and passed to a launch, which gives the kernel work-group memory
of its shape and dtype."""

from __future__ import annotations

from enum import IntEnum
from typing import Any, NoReturn

import numpy as np

from .intrinsics import device_only


class MemoryOrder(IntEnum):
    """Memory orders of atomic operations and fences (SYCL's ``memory_order``, same values)."""

    RELAXED = 0
    ACQUIRE = 1
    CONSUME_UNSUPPORTED = 2
    RELEASE = 3
    ACQ_REL = 4
    SEQ_CST = 5


class MemoryScope(IntEnum):
    """The work-items an atomic operation, fence or barrier orders memory for (SYCL's
    ``memory_scope``, same values)."""

    WORK_ITEM = 0
    SUB_GROUP = 1
    WORK_GROUP = 2
    DEVICE = 3
    SYSTEM = 4


class AddressSpace(IntEnum):
    """Address spaces (SYCL's, same values); an ``AtomicRef`` takes its array's."""

    PRIVATE = 0
    GLOBAL = 1
    CONSTANT = 2
    LOCAL = 3
    GENERIC = 4


#: the kernel IR's names of memory orders and scopes
ORDER_NAMES = {
    MemoryOrder.RELAXED: "relaxed",
    MemoryOrder.ACQUIRE: "acquire",
    MemoryOrder.RELEASE: "release",
    MemoryOrder.ACQ_REL: "acq_rel",
    MemoryOrder.SEQ_CST: "seq_cst",
}
SCOPE_NAMES = {
    MemoryScope.WORK_ITEM: "work_item",
    MemoryScope.SUB_GROUP: "sub_group",
    MemoryScope.WORK_GROUP: "work_group",
    MemoryScope.DEVICE: "device",
    MemoryScope.SYSTEM: "system",
}


class _KernelOnly:
    """Base of the classes whose objects exist only inside kernels."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError(
            f"numba_ext.kernel_api.{type(self).__name__} objects exist only inside a @numba_ext.kernel "
            "or @numba_ext.func"
        )


class Item(_KernelOnly):
    """The work-item of a kernel launched over a ``Range`` (the kernel's first parameter): ``get_id(d)``,
    ``get_range(d)``, ``get_linear_id()``, ``get_linear_range()``, ``dimensions``."""


class NdItem(_KernelOnly):
    """The work-item of a kernel launched over an ``NdRange``: global and local ids and ranges
    (``get_global_id(d)``, ``get_local_id(d)``, ``get_global_range(d)``, ``get_local_range(d)``, their
    ``*_linear_*`` forms), ``get_group()`` and ``dimensions``."""


class Group(_KernelOnly):
    """The work-group of an ``NdItem`` (``nd_item.get_group()``): ``get_group_id(d)``,
    ``get_group_range(d)``, ``get_local_range(d)``, their linear forms, ``leader`` and ``dimensions``."""


class AtomicRef(_KernelOnly):
    """``AtomicRef(array, index, memory_order=RELAXED, memory_scope=DEVICE, address_space=None)``: one
    element of a global or local array updated atomically: ``fetch_add fetch_sub fetch_min fetch_max
    fetch_and fetch_or fetch_xor`` (return the old value), ``load``, ``store``, ``exchange`` and
    ``compare_exchange(expected, desired, expected_idx=0)``."""


class PrivateArray(_KernelOnly):
    """``PrivateArray(shape, dtype, fill_zeros=False)``: an array in the work-item's own memory."""


def _kernel_only(name: str) -> Any:
    return device_only(f"kernel_api.{name}")


#: ``group_barrier(group, fence_scope=MemoryScope.WORK_GROUP)``: all work-items of the group wait here
group_barrier = _kernel_only("group_barrier")
#: ``atomic_fence(memory_order, memory_scope)``: orders this work-item's memory accesses
atomic_fence = _kernel_only("atomic_fence")

#: the element types work-group memory of a LocalAccessor may hold
LOCAL_ACCESSOR_DTYPES = tuple(
    np.dtype(t)
    for t in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64")
)


class LocalAccessor:
    """Work-group (local) memory of `shape` and `dtype` for one launch: pass it as a kernel argument;
    inside the kernel it is an array shared by the work-items of a work-group. Accessors are
    immutable and interned (one object per shape and dtype), so launches key them by identity."""

    __slots__ = ("shape", "dtype")
    _interned: dict[tuple, LocalAccessor] = {}

    shape: tuple[int, ...]
    dtype: np.dtype

    def __new__(cls, shape: int | tuple[int, ...] | list[int], dtype: Any) -> LocalAccessor:
        key = (tuple(shape) if isinstance(shape, (tuple, list)) else shape, dtype)
        try:
            hit = cls._interned.get(key)
        except TypeError:  # an unhashable dtype spelling
            hit = None
        if hit is not None:
            return hit
        dims = key[0] if isinstance(key[0], tuple) else (key[0],)
        if not 1 <= len(dims) <= 3 or not all(
            isinstance(d, (int, np.integer)) and not isinstance(d, bool) and d > 0 for d in dims
        ):
            raise TypeError(f"LocalAccessor shape must be 1 to 3 positive integers, got {shape!r}")
        try:
            dt = np.dtype(dtype)
        except TypeError:
            dt = None
        if dt not in LOCAL_ACCESSOR_DTYPES:
            names = ", ".join(d.name for d in LOCAL_ACCESSOR_DTYPES)
            raise TypeError(f"LocalAccessor dtype {dtype!r} is not supported; use one of {names}")
        canonical = (tuple(int(d) for d in dims), dt)
        self = cls._interned.get(canonical)
        if self is None:
            self = object.__new__(cls)
            object.__setattr__(self, "shape", canonical[0])
            object.__setattr__(self, "dtype", dt)
        if len(cls._interned) < 4096:  # beyond that, accessors are still correct, just not shared
            cls._interned[canonical] = self
            try:
                cls._interned[key] = self
            except TypeError:
                pass
        return self

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("LocalAccessor objects are immutable")

    @property
    def nbytes(self) -> int:
        return int(np.prod(self.shape)) * self.dtype.itemsize

    def __getitem__(self, index: Any) -> NoReturn:
        raise RuntimeError("the memory of a LocalAccessor exists only inside the kernel it is passed to")

    __setitem__ = __getitem__

    def __repr__(self) -> str:
        return f"LocalAccessor({self.shape}, {self.dtype.name})"


#: methods and attributes the first parameter of an item-style kernel is used through (how a kernel
#: without an annotation is recognised as item-style)
ITEM_ATTRIBUTES = frozenset(
    {
        "get_id",
        "get_range",
        "get_linear_id",
        "get_linear_range",
        "get_global_id",
        "get_local_id",
        "get_global_range",
        "get_local_range",
        "get_global_linear_id",
        "get_local_linear_id",
        "get_global_linear_range",
        "get_local_linear_range",
        "get_group",
        "dimensions",
    }
)
#: the attributes only an Item has, and only an NdItem has
ITEM_ONLY = frozenset({"get_id", "get_range", "get_linear_id", "get_linear_range"})
ND_ITEM_ONLY = ITEM_ATTRIBUTES - ITEM_ONLY - {"dimensions"}
