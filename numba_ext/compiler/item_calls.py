"""Translation of the item-style kernel API (``item_api.py``) and of the OpenCL-style linear-id
functions, for the translator of ``kernel_translate.py``.

An ``Item``, ``NdItem`` or ``Group`` is no runtime value: its methods become the same work-item
queries the OpenCL-style functions give (``item.get_id(d)`` is ``get_global_id(d)``), so both styles
compile to the same code. Linear ids follow SYCL in the item style (the last dimension varies
fastest) and OpenCL in the OpenCL style (dimension 0 varies fastest). An ``AtomicRef`` is its array
element, memory order and scope; its methods become atomic instructions."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from numba.core import ir, types

from ..ir.kernel_ir import Atomic, Barrier, BinaryInst, Fence, Imm, LoadInst, Operand, StoreInst, WorkItem
from . import intrinsics, item_api, kernel_views
from .function_builder import ArrayRef, const
from .item_typing import ItemType
from .kernelspec import dtype_name

if TYPE_CHECKING:
    from .kernel_translate import Translator


@dataclass(frozen=True)
class ItemVal:
    """An Item, NdItem or Group (`kind`) of `ndim` dimensions."""

    kind: str
    ndim: int


@dataclass(frozen=True)
class AtomicRefVal:
    array: int
    index: tuple[Operand, ...]
    order: str
    scope: str


@dataclass(frozen=True)
class BoundMethod:
    obj: ItemVal | AtomicRefVal
    name: str


# method -> work-item query, per kind
_QUERIES = {
    "Item": {"get_id": "get_global_id", "get_range": "get_global_size"},
    "NdItem": {
        "get_global_id": "get_global_id",
        "get_local_id": "get_local_id",
        "get_global_range": "get_global_size",
        "get_local_range": "get_local_size",
    },
    "Group": {
        "get_group_id": "get_group_id",
        "get_group_range": "get_num_groups",
        "get_local_range": "get_local_size",
    },
}
# linear method -> (id query or None for a linear range, size query)
_LINEAR = {
    "Item": {
        "get_linear_id": ("get_global_id", "get_global_size"),
        "get_linear_range": (None, "get_global_size"),
    },
    "NdItem": {
        "get_global_linear_id": ("get_global_id", "get_global_size"),
        "get_local_linear_id": ("get_local_id", "get_local_size"),
        "get_global_linear_range": (None, "get_global_size"),
        "get_local_linear_range": (None, "get_local_size"),
    },
    "Group": {
        "get_group_linear_id": ("get_group_id", "get_num_groups"),
        "get_group_linear_range": (None, "get_num_groups"),
        "get_local_linear_range": (None, "get_local_size"),
    },
}
_FETCH = {"fetch_add", "fetch_sub", "fetch_min", "fetch_max", "fetch_and", "fetch_or", "fetch_xor"}


def bind_item_arg(tr: Translator, target: ir.Var, t: types.Type) -> bool:
    """Bind a kernel parameter of an item type; False for other types."""
    if isinstance(t, ItemType):
        tr.vals[target.name] = ItemVal(t.kind, t.ndim)
        return True
    return False


def getattr_(tr: Translator, target: ir.Var, base: Any, attr: str) -> bool:
    """`base.attr` for item and atomic-reference values; False for other values."""
    if not isinstance(base, (ItemVal, AtomicRefVal)):
        return False
    if isinstance(base, ItemVal) and attr == "dimensions":
        tr.vals[target.name] = const("int64", base.ndim)
    elif isinstance(base, ItemVal) and attr == "leader":  # the work-item of local id 0
        lin = _linear(tr, base.ndim, "get_local_id", "get_local_size", sycl=True)
        tr.assign_scalar(target, kernel_views.ibin(tr, "eq", lin, const("int64", 0)))
    else:
        tr.vals[target.name] = BoundMethod(base, attr)
    return True


def translate_call(
    tr: Translator, target: ir.Var, fn: Any, args: list[ir.Var], kws: dict[str, ir.Var], t: types.Type
) -> bool:
    """Calls of the item-style API and of the linear-id functions; False for other calls."""
    if isinstance(fn, BoundMethod):
        if isinstance(fn.obj, ItemVal):
            _item_method(tr, target, fn.obj, fn.name, args)
        else:
            names = _CAS_PARAMS if fn.name == "compare_exchange" else () if fn.name == "load" else ("value",)
            _atomic_method(tr, target, fn.obj, fn.name, _bind(tr, f"AtomicRef.{fn.name}", args, kws, names))
        return True
    if fn in intrinsics.LINEAR_FUNCTIONS:
        spec = intrinsics.LINEAR_FUNCTIONS[fn]
        if spec is None:  # get_work_dim
            if tr.fb.work_dim is None:
                tr.fail("get_work_dim() outside a kernel")
            tr.vals[target.name] = const("int64", tr.fb.work_dim)
        else:
            tr.assign_scalar(target, _linear(tr, tr.fb.work_dim or 3, *spec, sycl=False))
        return True
    if fn is item_api.AtomicRef:
        _atomic_ref(tr, target, _bind(tr, "AtomicRef", args, kws, _REF_PARAMS))
        return True
    if fn is item_api.PrivateArray:
        _private_array(tr, target, _bind(tr, "PrivateArray", args, kws, ("shape", "dtype", "fill_zeros")), t)
        return True
    if fn is item_api.group_barrier:
        tr.emit(Barrier(3))  # a work-group barrier with local and global memory fences
        return True
    if fn is item_api.atomic_fence:
        a = _bind(tr, "atomic_fence", args, kws, ("memory_order", "memory_scope"))
        order, scope = _order(tr, a["memory_order"]), _scope(tr, a["memory_scope"])
        tr.emit(Fence(order, scope))
        return True
    return False


_REF_PARAMS = ("ref", "index", "memory_order", "memory_scope", "address_space")
_CAS_PARAMS = ("expected", "desired", "expected_idx")


def _bind(
    tr: Translator, what: str, args: list[ir.Var], kws: dict[str, ir.Var], names: tuple[str, ...]
) -> dict:
    if len(args) > len(names):
        tr.fail(f"{what}() with {len(args)} arguments")
    bound = dict(zip(names, args))
    for k, v in kws.items():
        if k not in names or k in bound:
            tr.fail(f"{what}() with the keyword argument {k!r}")
        bound[k] = v
    return bound


# -- Item, NdItem, Group ----------------------------------------------------------------------------
def _query(tr: Translator, query: str, dim: int) -> Operand:
    dst, op = tr.new_value("int64")
    tr.emit(WorkItem(dst, query, dim))
    return op


def _linear(tr: Translator, ndim: int, id_query: str | None, size_query: str, *, sycl: bool) -> Operand:
    """The linear id (`id_query` given) or the linear size over `ndim` dimensions: SYCL's order
    (the last dimension fastest) or OpenCL's (dimension 0 fastest)."""
    dims = list(range(ndim)) if sycl else list(reversed(range(ndim)))
    acc: Operand | None = None
    for d in dims:
        size = _query(tr, size_query, d)
        if id_query is None:
            acc = size if acc is None else kernel_views.ibin(tr, "mul", acc, size)
        else:
            i = _query(tr, id_query, d)
            acc = (
                i if acc is None else kernel_views.ibin(tr, "add", kernel_views.ibin(tr, "mul", acc, size), i)
            )
    assert acc is not None
    return acc


def _item_method(tr: Translator, target: ir.Var, item: ItemVal, name: str, args: list[ir.Var]) -> None:
    if name == "get_group" and item.kind == "NdItem":
        tr.vals[target.name] = ItemVal("Group", item.ndim)
        return
    if name in _LINEAR[item.kind]:
        tr.assign_scalar(target, _linear(tr, item.ndim, *_LINEAR[item.kind][name], sycl=True))
        return
    query = _QUERIES[item.kind].get(name)
    if query is None:
        tr.fail(f"{item.kind}.{name}()")
    d = tr.scalar(args[0])
    if isinstance(d, Imm):
        # dimensions the launch lacks read as the device reports them (id 0, range 1)
        if not isinstance(d.value, int) or not 0 <= d.value <= 2:
            tr.fail(f"{item.kind}.{name}({d.value}) (dimensions are 0, 1 and 2)")
        tr.emit(WorkItem(tr.local_for(target), query, d.value))  # as get_global_id(d) does
        return
    # a dimension known only at run time: choose among the dimensions' values
    d = tr.cast(d, "int64")
    acc = _query(tr, query, 0)
    for k in range(1, item.ndim):
        is_k = kernel_views.ibin(tr, "eq", d, const("int64", k))
        acc = kernel_views.select(tr, is_k, _query(tr, query, k), acc)
    tr.assign_scalar(target, acc)


# -- AtomicRef ------------------------------------------------------------------------------------
def _enum(tr: Translator, var: ir.Var | None, enum: type, default: Any) -> Any:
    if var is None or isinstance(tr.ty(var), types.Omitted):
        return default
    v = kernel_views.const_value(tr, var)
    try:
        return enum(int(v))
    except ValueError:
        tr.fail(f"the {enum.__name__} value {v!r}")


def _order(tr: Translator, var: ir.Var | None) -> str:
    order = _enum(tr, var, item_api.MemoryOrder, item_api.MemoryOrder.RELAXED)
    if order not in item_api.ORDER_NAMES:
        tr.fail(f"the memory order {order.name}")
    return item_api.ORDER_NAMES[order]


def _scope(tr: Translator, var: ir.Var | None) -> str:
    return item_api.SCOPE_NAMES[_enum(tr, var, item_api.MemoryScope, item_api.MemoryScope.DEVICE)]


def _atomic_ref(tr: Translator, target: ir.Var, a: dict[str, ir.Var]) -> None:
    if "ref" not in a or "index" not in a:
        tr.fail("AtomicRef() without an array and an index")
    ref = tr.vals.get(a["ref"].name)
    if not isinstance(ref, ArrayRef):
        tr.fail(f"an AtomicRef to {a['ref'].name} (a view or slice: pass the array and a full index)")
    arr = ref.index
    space = tr.fb.arrays[arr].space
    if space == "private":
        tr.fail("an AtomicRef to private memory (atomics take global or local arrays)")
    given = _enum(tr, a.get("address_space"), item_api.AddressSpace, None)
    wanted = item_api.AddressSpace.LOCAL if space == "local" else item_api.AddressSpace.GLOBAL
    if given not in (None, wanted, item_api.AddressSpace.GENERIC):
        tr.fail(f"an AtomicRef with address_space={given.name} to an array in {wanted.name} memory")
    index = tuple(tr.index_ops(a["index"], arr))
    tr.vals[target.name] = AtomicRefVal(
        arr, index, _order(tr, a.get("memory_order")), _scope(tr, a.get("memory_scope"))
    )


def _atomic(
    tr: Translator, ref: AtomicRefVal, op: str, value: Operand, cmp: Operand | None = None
) -> Operand:
    adt = tr.fb.arrays[ref.array].dtype
    dst, dst_op = tr.new_value(adt)
    inst = Atomic(dst, op, ref.array, ref.index, tr.cast(value, adt), cmp, order=ref.order, scope=ref.scope)
    tr.emit(inst)
    return dst_op


def _atomic_method(
    tr: Translator, target: ir.Var, ref: AtomicRefVal, name: str, a: dict[str, ir.Var]
) -> None:
    adt = tr.fb.arrays[ref.array].dtype
    if name in ("load", "store") and ref.order in (
        ("release", "acq_rel") if name == "load" else ("acquire", "acq_rel")
    ):
        tr.fail(f"AtomicRef.{name}() with memory order {ref.order}")
    if name == "load":
        tr.assign_scalar(target, _atomic(tr, ref, "load", const(adt, 0)))
    elif name == "store":
        inst = Atomic(
            None,
            "store",
            ref.array,
            ref.index,
            tr.cast(tr.scalar(a["value"]), adt),
            None,
            order=ref.order,
            scope=ref.scope,
        )
        tr.emit(inst)
    elif name in _FETCH or name == "exchange":
        op = name.removeprefix("fetch_")
        tr.assign_scalar(target, _atomic(tr, ref, op, tr.scalar(a["value"])))
    elif name == "compare_exchange":
        _compare_exchange(tr, target, ref, a)
    else:
        tr.fail(f"AtomicRef.{name}()")


def _compare_exchange(tr: Translator, target: ir.Var, ref: AtomicRefVal, a: dict[str, ir.Var]) -> None:
    """`ok = ref.compare_exchange(expected, desired, expected_idx)`: on failure the element's value is
    written to ``expected[expected_idx]`` (on success it equals what is there)."""
    adt = tr.fb.arrays[ref.array].dtype
    exp = tr.array(a["expected"])
    idx = (tr.cast(tr.scalar(a["expected_idx"]), "int64") if "expected_idx" in a else const("int64", 0),)
    if tr.fb.arrays[exp].ndim != 1:
        tr.fail("AtomicRef.compare_exchange with a multi-dimensional expected array")
    e, e_op = tr.new_value(adt)
    tr.emit(LoadInst(e, exp, idx))
    old = _atomic(tr, ref, "compare_exchange", tr.scalar(a["desired"]), e_op)
    ok, ok_op = tr.new_value("bool")
    tr.emit(BinaryInst(ok, "eq", old, e_op))
    tr.emit(StoreInst(exp, idx, old))
    tr.assign_scalar(target, ok_op)


# -- PrivateArray -----------------------------------------------------------------------------------
def _private_array(tr: Translator, target: ir.Var, a: dict[str, ir.Var], t: types.Type) -> None:
    if not isinstance(t, types.Array) or "shape" not in a:
        tr.fail("PrivateArray() without a shape and a dtype")
    shape = kernel_views.const_value(tr, a["shape"])
    shape = (int(shape),) if isinstance(shape, int) else tuple(int(s) for s in shape)
    arr = tr.fb.new_array(f"private{len(tr.fb.arrays)}", dtype_name(t), t.ndim, "private", shape)
    tr.vals[target.name] = ArrayRef(arr)
    fill = a.get("fill_zeros")
    if fill is not None and not isinstance(tr.ty(fill), types.Omitted) and kernel_views.const_value(tr, fill):
        view = kernel_views.as_view(tr, ArrayRef(arr))
        assert isinstance(view, kernel_views.View)
        kernel_views.assign_loop(tr, view, const(dtype_name(t.dtype), 0))
