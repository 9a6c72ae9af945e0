"""Expressions and calls in kernel code, for the translator of ``kernel_translate.py``: operators,
array attributes and indexing, ``range`` iteration, the kernel API (work-item queries, barriers,
local and private arrays, atomics), math functions, builtins, NumPy scalar types and ufuncs on
scalars, and ``@numba_ext.func`` device functions (inlined)."""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numba.core import ir, types

from . import intrinsics
from .device_functions import DeviceFunction, typed_ir
from .function_builder import ArrayRef, Element, Range, const
from .kernel_ir import (
    Atomic,
    Barrier,
    BinaryInst,
    CastInst,
    Copy,
    Dim,
    Imm,
    LoadInst,
    Local,
    Operand,
    SelectInst,
    Space,
    UnaryInst,
    WorkItem,
)
from .kernelspec import COMPARISONS, UFUNC_OPS, dtype_name

if TYPE_CHECKING:
    from .kernel_translate import Translator

_BINOPS = {
    operator.add: "add",
    operator.sub: "sub",
    operator.mul: "mul",
    operator.truediv: "div",
    operator.floordiv: "floordiv",
    operator.mod: "rem",
    operator.pow: "pow",
    operator.and_: "and",
    operator.or_: "or",
    operator.xor: "xor",
    operator.lt: "lt",
    operator.le: "le",
    operator.gt: "gt",
    operator.ge: "ge",
    operator.eq: "eq",
    operator.ne: "ne",
    operator.iadd: "add",
    operator.isub: "sub",
    operator.imul: "mul",
    operator.itruediv: "div",
    operator.ifloordiv: "floordiv",
    operator.imod: "rem",
    operator.ipow: "pow",
    operator.iand: "and",
    operator.ior: "or",
    operator.ixor: "xor",
}


@dataclass(frozen=True, slots=True)
class _Iter:
    rng: Range
    cur: int  # the local holding the next value


@dataclass(frozen=True, slots=True)
class _Pair:
    """The result of ``iternext``: the value and whether it is valid."""

    value: Operand
    valid: Operand


def translate_expr(tr: Translator, target: ir.Var, e: ir.Expr, t: types.Type) -> None:
    op = e.op
    if op in ("binop", "inplace_binop"):
        _binop(tr, target, e.fn, e.lhs, e.rhs, t)
    elif op == "unary":
        _unary(tr, target, e.fn, e.value)
    elif op == "call":
        translate_call(tr, target, e, t)
    elif op == "getattr":
        _getattr(tr, target, e)
    elif op in ("getitem", "static_getitem"):
        _getitem(tr, target, e, t)
    elif op == "build_tuple":
        tr.vals[target.name] = [tr.scalar(v) for v in e.items]
    elif op == "cast":
        tr.vals[target.name] = tr.vals.get(e.value.name)
        if isinstance(t, (types.Number, types.Boolean)):
            tr.assign_scalar(target, tr.scalar(e.value))
    elif op == "getiter":
        rng = tr.vals.get(e.value.name)
        if not isinstance(rng, Range):
            tr.fail("iterating over anything but range()")
        cur = tr.fb.new_local("int64")
        tr.emit(Copy(cur, tr.cast(rng.start, "int64")))
        tr.vals[target.name] = _Iter(rng, cur)
    elif op == "iternext":
        _iternext(tr, target, tr.vals[e.value.name])
    elif op == "pair_first":
        tr.assign_scalar(target, tr.vals[e.value.name].value)
    elif op == "pair_second":
        tr.assign_scalar(target, tr.vals[e.value.name].valid)
    else:
        tr.fail(f"the expression '{op}'")


def _iternext(tr: Translator, target: ir.Var, it: _Iter) -> None:
    val, valid = tr.fb.new_local("int64"), tr.fb.new_local("bool")
    step = tr.cast(it.rng.step, "int64")
    stop = tr.cast(it.rng.stop, "int64")
    cur = Local(it.cur)
    tr.emit(Copy(val, cur))
    if isinstance(step, Imm) and step.value > 0:
        tr.emit(BinaryInst(valid, "lt", cur, stop))
    elif isinstance(step, Imm):
        tr.emit(BinaryInst(valid, "gt", cur, stop))
    else:
        (up, up_op), (down, down_op), (pos, pos_op) = (tr.new_value("bool") for _ in range(3))
        tr.emit(
            BinaryInst(up, "lt", cur, stop),
            BinaryInst(down, "gt", cur, stop),
            BinaryInst(pos, "gt", step, const("int64", 0)),
            SelectInst(valid, pos_op, up_op, down_op),
        )
    tr.emit(BinaryInst(it.cur, "add", cur, step))
    tr.vals[target.name] = _Pair(Local(val), Local(valid))


def _binop(tr: Translator, target: ir.Var, fn: Any, lhs: ir.Var, rhs: ir.Var, t: types.Type) -> None:
    name = _BINOPS.get(fn)
    if name is None:
        tr.fail(f"the operator {getattr(fn, '__name__', fn)}")
    a, b = tr.scalar(lhs), tr.scalar(rhs)
    res = dtype_name(t)
    comp = np.result_type(np.dtype(tr.dt(a)), np.dtype(tr.dt(b))).name if name in COMPARISONS else res
    dst = tr.local_for(target)
    if name in COMPARISONS or comp == tr.fb.locals[dst]:
        tmp = dst if (name in COMPARISONS or comp == res) else tr.fb.new_local(comp)
    else:
        tmp = tr.fb.new_local(comp)
    tr.emit(BinaryInst(tmp, name, tr.cast(a, comp), tr.cast(b, comp)))
    if tmp != dst:
        tr.emit(CastInst(dst, Local(tmp)))


def _unary(tr: Translator, target: ir.Var, fn: Any, value: ir.Var) -> None:
    a = tr.scalar(value)
    dst = tr.local_for(target)
    res = tr.fb.locals[dst]
    if fn in (operator.neg, "-"):
        tr.emit(UnaryInst(dst, "neg", tr.cast(a, res)))
    elif fn in (operator.pos, "+"):
        tr.emit(Copy(dst, tr.cast(a, res)))
    elif fn in (operator.not_, "not"):
        tr.emit(UnaryInst(dst, "not", tr.cast(a, "bool")))
    elif fn in (operator.invert, "~"):
        tr.emit(UnaryInst(dst, "not", tr.cast(a, res)))
    else:
        tr.fail(f"the unary operator {fn}")


def _getattr(tr: Translator, target: ir.Var, e: ir.Expr) -> None:
    base = tr.vals.get(e.value.name)
    bt = tr.ty(e.value)
    t = tr.ty(target)
    if isinstance(bt, types.Module) or not isinstance(bt, (types.Array, types.Number)):
        if base is None or not hasattr(base, e.attr):
            tr.fail(f"the attribute {e.attr}")
        tr.bind_value(target, getattr(base, e.attr), t)
        return
    if isinstance(bt, types.Array):
        arr = tr.array(e.value)
        if e.attr == "shape":
            dims = []
            for d in range(bt.ndim):
                dst, dst_op = tr.new_value("int64")
                tr.emit(Dim(dst, arr, d))
                dims.append(dst_op)
            tr.vals[target.name] = dims
            return
        if e.attr == "ndim":
            tr.vals[target.name] = const("int64", bt.ndim)
            return
        if e.attr == "size":
            acc: Operand = const("int64", 1)
            for d in range(bt.ndim):
                dim, dim_op = tr.new_value("int64")
                tr.emit(Dim(dim, arr, d))
                out, out_op = tr.new_value("int64")
                tr.emit(BinaryInst(out, "mul", acc, dim_op))
                acc = out_op
            tr.assign_scalar(target, acc)
            return
    tr.fail(f"the attribute .{e.attr} of {bt}")


def _getitem(tr: Translator, target: ir.Var, e: ir.Expr, t: types.Type) -> None:
    base = tr.vals.get(e.value.name)
    if isinstance(base, Element):  # an array expression fused into this parallel loop
        tr.assign_scalar(target, base.value)
        return
    if isinstance(base, list):  # a tuple of scalars
        idx = e.index if e.op == "static_getitem" else None
        if idx is None:
            iv = tr.scalar(e.index)
            idx = iv.value if isinstance(iv, Imm) else None
        if not isinstance(idx, int):
            tr.fail("indexing a tuple with a run-time index")
        tr.assign_scalar(target, base[idx])
        return
    arr = tr.array(e.value)
    if e.op == "getitem":
        index = tr.index_ops(e.index, arr)
    elif e.index_var is not None and e.index_var.name in tr.vals and not isinstance(e.index, (int, tuple)):
        index = tr.index_ops(e.index_var, arr)
    else:
        index = tr.static_index(e.index, arr)
    if not isinstance(t, (types.Number, types.Boolean)):
        tr.fail("taking a view of an array (index with as many integers as dimensions)")
    tr.emit(LoadInst(tr.local_for(target), arr, tuple(index)))


_MATH1 = {
    math.sqrt: "sqrt",
    math.exp: "exp",
    math.expm1: "expm1",
    math.log: "log",
    math.log1p: "log1p",
    math.log2: "log2",
    math.log10: "log10",
    math.sin: "sin",
    math.cos: "cos",
    math.tan: "tan",
    math.asin: "arcsin",
    math.acos: "arccos",
    math.atan: "arctan",
    math.sinh: "sinh",
    math.cosh: "cosh",
    math.tanh: "tanh",
    math.floor: "floor",
    math.ceil: "ceil",
    math.trunc: "trunc",
    math.erf: "erf",
    math.erfc: "erfc",
    math.fabs: "abs",
}
_MATH2 = {math.pow: "pow", math.atan2: "arctan2", math.hypot: "hypot", math.fmod: "rem"}
_WORK_ITEMS = {f: f.__name__ for f in intrinsics.WORK_ITEM_FUNCTIONS}


def translate_call(tr: Translator, target: ir.Var, e: ir.Expr, t: types.Type) -> None:
    """Translate `target = e` where `e` is a call."""
    fn = tr.vals.get(e.func.name)
    args: list[ir.Var] = e.args
    if e.kws or e.vararg:
        tr.fail("keyword or star arguments")
    if fn is range:
        ops = [tr.scalar(a) for a in args]
        one, zero = const("int64", 1), const("int64", 0)
        tr.vals[target.name] = (
            Range(zero, ops[0], one)
            if len(ops) == 1
            else Range(ops[0], ops[1], ops[2] if len(ops) > 2 else one)
        )
        return
    if _kernel_api(tr, fn, target, args, t):
        return
    if isinstance(fn, DeviceFunction):
        inline(tr, target, fn, args)
        return
    res = dtype_name(t) if isinstance(t, (types.Number, types.Boolean)) else None
    if fn in (int, float, bool) and len(args) == 1 and res and isinstance(tr.vals.get(args[0].name), str):
        tr.vals[target.name] = const(res, fn(tr.vals[args[0].name]))  # float("inf"): a constant
        return
    ops = [tr.scalar(a) for a in args]
    if fn in _MATH1 and len(ops) == 1:
        comp = res if res in ("float32", "float64") else "float64"
        tmp, tmp_op = tr.new_value(comp)
        tr.emit(UnaryInst(tmp, _MATH1[fn], tr.cast(ops[0], comp)))
        tr.assign_scalar(target, tmp_op)
        return
    if fn in _MATH2 and len(ops) == 2:
        comp = res if res in ("float32", "float64") else "float64"
        tmp, tmp_op = tr.new_value(comp)
        tr.emit(BinaryInst(tmp, _MATH2[fn], tr.cast(ops[0], comp), tr.cast(ops[1], comp)))
        tr.assign_scalar(target, tmp_op)
        return
    if fn in (min, max) and len(ops) >= 2 and res:
        acc = tr.cast(ops[0], res)
        for o in ops[1:]:
            tmp, tmp_op = tr.new_value(res)
            tr.emit(BinaryInst(tmp, "min" if fn is min else "max", acc, tr.cast(o, res)))
            acc = tmp_op
        tr.assign_scalar(target, acc)
        return
    if fn is abs and len(ops) == 1 and res:
        tmp, tmp_op = tr.new_value(res)
        tr.emit(UnaryInst(tmp, "abs", tr.cast(ops[0], res)))
        tr.assign_scalar(target, tmp_op)
        return
    if fn in (int, float, bool) and len(args) == 1 and res:
        tr.assign_scalar(target, tr.scalar(args[0]))
        return
    if isinstance(fn, types.functions.NumberClass) or (
        isinstance(fn, type) and issubclass(fn, np.generic) and res
    ):
        tr.assign_scalar(target, ops[0])
        return
    if isinstance(fn, np.ufunc) and fn.__name__ in UFUNC_OPS and res and _ufunc(tr, target, e, fn, ops, res):
        return
    tr.fail(f"calling {getattr(fn, '__name__', fn)!r}")


def _kernel_api(tr: Translator, fn: Any, target: ir.Var, args: list[ir.Var], t: types.Type) -> bool:
    """Work-item queries, barriers, local and private arrays and atomics; False for other calls."""
    if fn in _WORK_ITEMS:
        d = tr.scalar(args[0])
        if not (isinstance(d, Imm) and 0 <= d.value <= 2):
            tr.fail(f"{_WORK_ITEMS[fn]}() with a dimension that is not a constant 0, 1 or 2")
        tr.emit(WorkItem(tr.local_for(target), _WORK_ITEMS[fn], int(d.value)))
        return True
    if fn is intrinsics.barrier:
        flags = 3 if not args else const_value(tr, args[0])
        tr.emit(Barrier(int(flags)))
        return True
    if fn in (intrinsics.local_array, intrinsics.private_array):
        shape = const_value(tr, args[0])
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        if not isinstance(t, types.Array):
            tr.fail(f"{fn.__name__} of type {t}")
        space: Space = "local" if fn is intrinsics.local_array else "private"
        name = f"{space}{len(tr.fb.arrays)}"
        tr.vals[target.name] = ArrayRef(tr.fb.new_array(name, dtype_name(t), t.ndim, space, shape))
        return True
    if fn in intrinsics.ATOMIC_OPS:
        op = intrinsics.ATOMIC_OPS[fn]
        arr = tr.array(args[0])
        index = tr.index_ops(args[1], arr)
        adt = tr.fb.arrays[arr].dtype
        cmp: Operand | None = None
        if op == "compare_exchange":
            cmp, val = tr.cast(tr.scalar(args[2]), adt), tr.cast(tr.scalar(args[3]), adt)
        else:
            val = tr.cast(tr.scalar(args[2]), adt)
        dst, dst_op = tr.new_value(adt)
        tr.emit(Atomic(dst, op, arr, tuple(index), val, cmp))
        tr.assign_scalar(target, dst_op)
        return True
    return False


def _ufunc(tr: Translator, target: ir.Var, e: ir.Expr, fn: np.ufunc, ops: list[Operand], res: str) -> bool:
    """A unary or binary NumPy ufunc on scalars; False for other ufuncs."""
    kind, name = UFUNC_OPS[fn.__name__]
    if kind not in ("unary", "binary") or name is None:
        return False
    comp = dtype_name(tr.calltypes[e].args[0]) if e in tr.calltypes else res
    if kind == "unary" and name not in ("neg", "abs", "not") and not comp.startswith("float"):
        comp = "float64"
    tmp, tmp_op = tr.new_value("bool" if name in COMPARISONS else comp)
    cast = [tr.cast(o, comp) for o in ops]
    tr.emit(UnaryInst(tmp, name, cast[0]) if kind == "unary" else BinaryInst(tmp, name, cast[0], cast[1]))
    tr.assign_scalar(target, tmp_op)
    return True


def const_value(tr: Translator, var: ir.Var) -> Any:
    """A compile-time constant (ints, tuples of ints, '|' of flags)."""
    v = tr.vals.get(var.name)
    if isinstance(v, Imm):
        return v.value
    if isinstance(v, list) and all(isinstance(o, Imm) for o in v):
        return tuple(o.value for o in v)
    if isinstance(v, (int, tuple)):
        return v
    d = tr.func_ir.get_definition(var)
    if isinstance(d, ir.Expr) and d.op == "binop" and d.fn is operator.or_:
        return const_value(tr, d.lhs) | const_value(tr, d.rhs)
    if isinstance(d, ir.Expr) and d.op == "build_tuple":
        return tuple(const_value(tr, i) for i in d.items)
    tr.fail(f"a non-constant value for {var.name} where a compile-time constant is needed")


def inline(tr: Translator, target: ir.Var, fn: DeviceFunction, args: list[ir.Var]) -> None:
    """Inline a device function: its body continues in a new block that the call jumps to, and its
    returns jump to the block after the call."""
    argtys = tuple(tr.ty(a) for a in args)
    func_ir, typemap, calltypes, restype = typed_ir(fn.py_func, argtys)
    values = [
        tr.scalar(a) if isinstance(tr.ty(a), (types.Number, types.Boolean)) else tr.vals.get(a.name)
        for a in args
    ]
    ret_local = tr.local_for(target) if isinstance(restype, (types.Number, types.Boolean)) else None
    cont = tr.fb.new_block()
    sub = type(tr)(tr.fb, func_ir, typemap, calltypes, arg_values=values, ret=(ret_local, cont))
    sub.translate(entry_block=tr.cur)
    tr.cur = cont
