"""Expressions in kernel code, for the translator of ``kernel_translate.py``: operators, array
attributes and indexing, tuples, casts and ``range`` iteration. Calls are ``kernel_calls.py``'s."""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numba.core import ir, types

from ..ir import complex_lowering
from ..ir.kernel_ir import (
    BinaryInst,
    CastInst,
    Copy,
    Dim,
    Imm,
    LoadInst,
    Local,
    Operand,
    SelectInst,
    UnaryInst,
)
from ..ir.spec_builder import COMPARISONS
from . import bounds, item_calls, kernel_views
from .function_builder import ArrayRef, Element, Range, const, is_operand
from .kernel_calls import translate_call
from .kernelspec import dtype_name

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
    operator.lshift: "left_shift",
    operator.rshift: "right_shift",
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
    operator.ilshift: "left_shift",
    operator.irshift: "right_shift",
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
        items = [tr.vals.get(v.name) for v in e.items]
        tr.vals[target.name] = [
            i if isinstance(i, kernel_views.SliceVal) else tr.scalar(v) for i, v in zip(items, e.items)
        ]
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
    if isinstance(step, Imm) and isinstance(step.value, int) and step.value > 0:
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
    if fn in (operator.is_, operator.is_not):  # `x is None`: decided by the types
        nones = [isinstance(tr.ty(v), (types.NoneType, types.Omitted)) for v in (lhs, rhs)]
        if not (any(nones) and not any(isinstance(tr.ty(v), types.Optional) for v in (lhs, rhs))):
            tr.fail(f"'{fn.__name__}' between values that are not None")
        tr.assign_scalar(target, const("bool", all(nones) == (fn is operator.is_)))
        return
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
    if item_calls.getattr_(tr, target, base, e.attr):
        return
    if isinstance(bt, types.Module) or not isinstance(bt, (types.Array, types.Number)):
        if base is None or not hasattr(base, e.attr):
            tr.fail(f"the attribute {e.attr}")
        tr.bind_value(target, getattr(base, e.attr), t)
        return
    if isinstance(bt, types.Complex) and e.attr in ("real", "imag"):  # complex_lowering.py
        tr.emit(UnaryInst(tr.local_for(target), e.attr, tr.scalar(e.value)))
        return
    if isinstance(bt, types.Number) and e.attr in ("conjugate", "conj"):
        tr.vals[target.name] = complex_lowering.ConjugateMethod(tr.scalar(e.value))
        return
    if isinstance(bt, types.Number) and e.attr in ("real", "imag"):  # a real value, as Numba
        value = tr.scalar(e.value) if e.attr == "real" else const(dtype_name(bt), 0)
        tr.assign_scalar(target, value)
        return
    if isinstance(bt, types.Array) and e.attr == "dtype":
        tr.vals[target.name] = np.dtype(dtype_name(bt.dtype))
        return
    if isinstance(bt, types.Array) and isinstance(base, (kernel_views.View, kernel_views.Lazy)):
        _view_attr(tr, target, e.attr, kernel_views.shape(base))
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
    items = tr.index_items(e)
    scalar = isinstance(t, (types.Number, types.Boolean))
    if (
        isinstance(base, ArrayRef)
        and scalar
        and len(items) == tr.fb.arrays[base.index].ndim
        and all(is_operand(i) for i in items)
    ):
        index = bounds.wrap_indices(tr, base.index, tr.index_ops_of(items))
        dst = tr.local_for(target)
        elem = tr.fb.arrays[base.index].dtype
        if tr.fb.locals[dst] == elem:
            tr.emit(LoadInst(dst, base.index, tuple(index)))
        else:  # a variable Numba unified to a wider type (float32 loads into a float64 accumulator)
            tmp, loaded = tr.new_value(elem)
            tr.emit(LoadInst(tmp, base.index, tuple(index)))
            tr.assign_scalar(target, loaded)
        return
    view = kernel_views.as_view(tr, base)
    if view is None:
        tr.fail(f"indexing {e.value.name} ({tr.ty(e.value)})")
    if isinstance(view, kernel_views.Lazy):
        if not (scalar and all(is_operand(i) for i in items)):
            tr.fail("slicing an array expression inside a parallel loop")
        tr.assign_scalar(target, kernel_views.element(tr, view, tuple(items), dtype_name(t)))
        return
    sub = kernel_views.subscript(tr, view, items)
    if sub.ndim == 0:
        tr.assign_scalar(target, kernel_views.element(tr, sub, (), dtype_name(t)))
    else:
        tr.vals[target.name] = sub


def _view_attr(tr: Translator, target: ir.Var, attr: str, shape: tuple[Operand, ...]) -> None:
    """.shape, .size and .ndim of a view or an array expression."""
    if attr == "shape":
        tr.vals[target.name] = list(shape)
    elif attr == "ndim":
        tr.vals[target.name] = const("int64", len(shape))
    elif attr == "size":
        acc: Operand = const("int64", 1)
        for n in shape:
            acc = kernel_views.ibin(tr, "mul", acc, n)
        tr.assign_scalar(target, acc)
    else:
        tr.fail(f"the attribute .{attr} of an array view")
