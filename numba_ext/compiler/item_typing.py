"""Numba typing of the item-style kernel API (``item_api.py``) and of the atomics' operands.

``Item``, ``NdItem`` and ``Group`` are typed per number of dimensions (their methods take a
dimension and return int64), an ``AtomicRef`` by its element type, a ``LocalAccessor`` argument as a
C-contiguous array of its shape (one compiled kernel per shape, since work-group memory is sized when
the kernel is compiled). Only typing: ``item_calls.py`` translates the calls."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numba.core import types
from numba.core.errors import TypingError
from numba.core.typing.templates import (
    AbstractTemplate,
    AttributeTemplate,
    infer_getattr,
    infer_global,
    signature,
)
from numba.extending import type_callable

from . import intrinsics, item_api


class ItemType(types.Type):
    """An ``Item`` of `ndim` dimensions (a kernel launched over a ``Range``)."""

    kind = "Item"

    def __init__(self, ndim: int) -> None:
        if ndim not in (1, 2, 3):
            raise ValueError(f"an {self.kind} has 1 to 3 dimensions, not {ndim!r}")
        self.ndim = ndim
        super().__init__(name=f"{self.kind}({ndim})")


class NdItemType(ItemType):
    """An ``NdItem`` of `ndim` dimensions (a kernel launched over an ``NdRange``)."""

    kind = "NdItem"


class GroupType(ItemType):
    """The ``Group`` of an ``NdItem``."""

    kind = "Group"


class AtomicRefType(types.Type):
    """An ``AtomicRef`` to an element of type `dtype`."""

    def __init__(self, dtype: types.Type) -> None:
        self.dtype = dtype
        super().__init__(name=f"AtomicRef({dtype})")


class LocalAccessorType(types.Array):
    """A ``LocalAccessor`` argument: a C-contiguous array of its shape in work-group memory."""

    def __init__(self, dtype: types.Type, shape: tuple[int, ...]) -> None:
        self.shape = tuple(shape)
        super().__init__(dtype, len(shape), "C", name=f"LocalAccessor({dtype}, {self.shape})")

    @property
    def key(self) -> tuple:
        return (*super().key, self.shape)

    def copy(self, dtype=None, ndim=None, layout=None, readonly=None):
        # views and slices of the accessor are plain arrays
        return types.Array(
            dtype=self.dtype if dtype is None else dtype,
            ndim=self.ndim if ndim is None else ndim,
            layout=self.layout if layout is None else layout,
        )


# -- atomics' operands ----------------------------------------------------------------------------
_ATOMIC_DTYPES = (types.int32, types.int64, types.uint32, types.uint64, types.float32, types.float64)
_BITWISE = ("and", "or", "xor")


def check_atomic(op: str, dtype: types.Type, value: types.Type | None = None) -> None:
    """TypingError unless atomic `op` works on elements of `dtype` with a `value` of that type or one
    that casts to it within its kind (NumPy's same-kind rule)."""
    complex_add = isinstance(dtype, types.Complex) and op in ("add", "sub")
    if dtype not in _ATOMIC_DTYPES and not complex_add:
        names = ", ".join(str(t) for t in _ATOMIC_DTYPES)
        raise TypingError(f"atomic {op} is not supported on {dtype} elements; atomics take {names}")
    if op in _BITWISE and not isinstance(dtype, types.Integer):
        raise TypingError(f"atomic {op} needs integer elements, not {dtype}")
    if value is None or value == dtype or isinstance(value, types.Boolean):
        return
    if isinstance(value, types.Integer) and isinstance(dtype, types.Integer):
        return  # integers of any width and signedness wrap as in C (an int constant into uint64)
    if isinstance(value, types.Number):
        # NumPy's same-kind rule (as for ufuncs with out=): float64 into float32 is fine, a float
        # into an integer element or a complex into a real one is refused
        if np.can_cast(np.dtype(str(value)), np.dtype(str(dtype)), "same_kind"):
            return
    raise TypingError(
        f"atomic {op} on {dtype} elements with a value of type {value} would cast the value to another "
        f"kind; pass a {dtype} value (e.g. numpy.{dtype}(v))"
    )


# -- Item, NdItem, Group --------------------------------------------------------------------------
#: per type: method name -> (takes a dimension, result type given the receiver)
_DIM, _NONE = True, False
_INT = lambda this: types.int64
_METHODS: dict[type, dict[str, tuple[bool, Callable[[Any], types.Type]]]] = {
    ItemType: {
        "get_id": (_DIM, _INT),
        "get_range": (_DIM, _INT),
        "get_linear_id": (_NONE, _INT),
        "get_linear_range": (_NONE, _INT),
    },
    NdItemType: {
        "get_global_id": (_DIM, _INT),
        "get_local_id": (_DIM, _INT),
        "get_global_range": (_DIM, _INT),
        "get_local_range": (_DIM, _INT),
        "get_global_linear_id": (_NONE, _INT),
        "get_local_linear_id": (_NONE, _INT),
        "get_global_linear_range": (_NONE, _INT),
        "get_local_linear_range": (_NONE, _INT),
        "get_group": (_NONE, lambda this: GroupType(this.ndim)),
    },
    GroupType: {
        "get_group_id": (_DIM, _INT),
        "get_group_range": (_DIM, _INT),
        "get_local_range": (_DIM, _INT),
        "get_group_linear_id": (_NONE, _INT),
        "get_group_linear_range": (_NONE, _INT),
        "get_local_linear_range": (_NONE, _INT),
    },
}
_PROPERTIES: dict[type, dict[str, types.Type]] = {
    ItemType: {"dimensions": types.int64},
    NdItemType: {"dimensions": types.int64},
    GroupType: {"dimensions": types.int64, "leader": types.boolean},
}


def _method(name: str, takes_dim: bool, result: Callable[[Any], types.Type]) -> type[AbstractTemplate]:
    class Method(AbstractTemplate):
        key = name

        def generic(self, args, kws):
            if kws or len(args) != int(takes_dim):
                return None
            if takes_dim and not isinstance(args[0], types.Integer):
                raise TypingError(f"{name}() takes an integer dimension, got {args[0]}")
            return signature(result(self.this), *args, recvr=self.this)

    return Method


def _register_item_attributes(cls: type) -> None:
    methods, props = _METHODS[cls], _PROPERTIES[cls]
    templates = {m: _method(f"{cls.kind}.{m}", *spec) for m, spec in methods.items()}

    class Attributes(AttributeTemplate):
        key = cls

        def generic_resolve(self, ty, attr):
            if type(ty) is not cls:
                return None
            if attr in props:
                return props[attr]
            if attr in templates:
                return types.BoundFunction(templates[attr], ty)
            raise TypingError(f"{cls.kind} has no attribute {attr!r}; it has {', '.join([*methods, *props])}")

    infer_getattr(Attributes)


for _cls in (ItemType, NdItemType, GroupType):
    _register_item_attributes(_cls)


# -- AtomicRef ------------------------------------------------------------------------------------
_FETCH = {f"fetch_{op}": op for op in ("add", "sub", "min", "max", "and", "or", "xor")}


def _atomic_method(name: str) -> type[AbstractTemplate]:
    class Method(AbstractTemplate):
        key = f"AtomicRef.{name}"

        def generic(self, args, kws):
            dt = self.this.dtype
            if name in _FETCH or name == "exchange":
                if kws or len(args) != 1:
                    return None
                check_atomic(_FETCH.get(name, "exchange"), dt, args[0])
                return signature(dt, *args, recvr=self.this)
            if name == "store":
                if kws or len(args) != 1:
                    return None
                check_atomic("store", dt, args[0])
                return signature(types.none, *args, recvr=self.this)
            if name == "load":
                return None if (kws or args) else signature(dt, recvr=self.this)
            # compare_exchange(expected, desired, expected_idx=0)
            allargs = [*args, *kws.values()]
            if not 2 <= len(allargs) <= 3 or set(kws) - {"expected", "desired", "expected_idx"}:
                return None
            expected = kws.get("expected", args[0] if args else None)
            if not isinstance(expected, types.Array) or expected.dtype != dt:
                raise TypingError(
                    f"AtomicRef.compare_exchange takes the expected value as an array of {dt} "
                    f"(and its index), got {expected}"
                )
            check_atomic("compare_exchange", dt, kws.get("desired", args[1] if len(args) > 1 else None))
            return signature(types.boolean, *allargs, recvr=self.this)

    return Method


_ATOMIC_TEMPLATES = {m: _atomic_method(m) for m in (*_FETCH, "load", "store", "exchange", "compare_exchange")}


@infer_getattr
class _AtomicRefAttributes(AttributeTemplate):
    key = AtomicRefType

    def generic_resolve(self, ty, attr):
        if attr in _ATOMIC_TEMPLATES:
            return types.BoundFunction(_ATOMIC_TEMPLATES[attr], ty)
        raise TypingError(f"AtomicRef has no attribute {attr!r}; it has {', '.join(_ATOMIC_TEMPLATES)}")


def _is_enum_or_int(t: Any) -> bool:
    return t is None or isinstance(t, (types.Integer, types.IntEnumMember, types.Omitted))


_REF_PARAMS = ("ref", "index", "memory_order", "memory_scope", "address_space")


@infer_global(item_api.AtomicRef)
class _AtomicRefConstructor(AbstractTemplate):
    # an AbstractTemplate rather than type_callable: keywords may skip parameters
    # (AtomicRef(a, index=i, memory_scope=s)), which type_callable's folding refuses
    def generic(self, args, kws):
        if len(args) > len(_REF_PARAMS) or set(kws) - set(_REF_PARAMS[len(args) :]):
            return None
        bound = {**dict(zip(_REF_PARAMS, args)), **kws}
        ref = bound.get("ref")
        if not isinstance(ref, types.Array) or "index" not in bound:
            raise TypingError(f"AtomicRef takes an array (global or local memory) and an index, got {ref}")
        check_atomic("add" if isinstance(ref.dtype, types.Complex) else "load", ref.dtype)
        if not all(_is_enum_or_int(bound.get(k)) for k in _REF_PARAMS[2:]):
            raise TypingError("AtomicRef's memory_order, memory_scope and address_space are enum constants")
        return signature(AtomicRefType(ref.dtype), *args, *kws.values())


# -- functions ------------------------------------------------------------------------------------
@type_callable(item_api.group_barrier)
def _type_group_barrier(context):
    def typer(group, fence_scope=None):
        if isinstance(group, GroupType) and _is_enum_or_int(fence_scope):
            return types.none

    return typer


@type_callable(item_api.atomic_fence)
def _type_atomic_fence(context):
    def typer(memory_order, memory_scope):
        if _is_enum_or_int(memory_order) and _is_enum_or_int(memory_scope):
            return types.none

    return typer


@type_callable(item_api.PrivateArray)
def _type_private_array(context):
    def typer(shape, dtype, fill_zeros=None):
        ndim = _shape_ndim(shape)
        dt = dtype.dtype if isinstance(dtype, (types.functions.NumberClass, types.DTypeSpec)) else None
        if ndim is not None and dt is not None:
            return types.Array(dt, ndim, "C")

    return typer


def _shape_ndim(shape: types.Type) -> int | None:
    if isinstance(shape, types.Integer):
        return 1
    if isinstance(shape, types.BaseTuple) and all(isinstance(t, types.Integer) for t in shape.types):
        return len(shape.types)
    return None


for _fn in intrinsics.LINEAR_FUNCTIONS:

    @type_callable(_fn)
    def _type_linear(context):
        def typer():
            return types.int64

        return typer
