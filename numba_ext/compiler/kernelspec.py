"""Translation of a typed array expression (Numba's ``arrayexpr`` tree) into a KernelSpec: the dataflow
form of the kernel IR (``kernel_ir.py``) handed to the Rust compiler in one call
(``_core.compile_kernel``).

NumPy semantics come from Numba's ufunc loop selection (``ir.spec_builder.CompiledSpecBuilder``): each
operation casts its inputs to the chosen loop's types, and the result is cast to the expression's
type when stored."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np
from numba.core import ir, types
from numba.np import numpy_support
from numba.np.ufunc.array_exprs import _binops, _unaryops

from ..errors import UnsupportedError
from ..ir.kernel_ir import (
    Binary,
    KernelSpec,
    Load,
    Scalar,
    ScalarArg,
    Select,
    Store,
    Unary,
)
from ..ir.spec_builder import CompiledSpecBuilder as SpecBuilder
from .redirects import ELEMENTWISE, resolve_global

_OPERATOR_UFUNCS = {
    operator.add: np.add,
    operator.sub: np.subtract,
    operator.mul: np.multiply,
    operator.truediv: np.true_divide,
    operator.floordiv: np.floor_divide,
    operator.mod: np.remainder,
    operator.pow: np.power,
    operator.lt: np.less,
    operator.le: np.less_equal,
    operator.gt: np.greater,
    operator.ge: np.greater_equal,
    operator.eq: np.equal,
    operator.ne: np.not_equal,
    operator.and_: np.bitwise_and,
    operator.or_: np.bitwise_or,
    operator.xor: np.bitwise_xor,
    operator.lshift: np.left_shift,
    operator.rshift: np.right_shift,
    operator.ilshift: np.left_shift,
    operator.irshift: np.right_shift,
    operator.neg: np.negative,
    operator.pos: np.positive,
    operator.invert: np.invert,
    operator.iadd: np.add,
    operator.isub: np.subtract,
    operator.imul: np.multiply,
    operator.itruediv: np.true_divide,
}


def dtype_name(nbty: types.Type) -> str:
    if isinstance(nbty, types.Literal):
        nbty = nbty.literal_type
    if isinstance(nbty, types.Array):
        nbty = nbty.dtype
    try:
        return numpy_support.as_dtype(nbty).name
    except Exception:
        raise UnsupportedError(f"values of type {nbty} cannot be used in offloaded code") from None


def as_ufunc(op: object) -> np.ufunc:
    if isinstance(op, np.ufunc):
        return op
    if op in _OPERATOR_UFUNCS:
        return _OPERATOR_UFUNCS[op]
    if isinstance(op, str):  # Numba spells some operators by name in arrayexpr trees
        table: dict[Any, Any] = {**_binops, **_unaryops}
        for k, v in table.items():
            if v == op and k in _OPERATOR_UFUNCS:
                return _OPERATOR_UFUNCS[k]
    raise UnsupportedError(f"operation {getattr(op, '__name__', op)!r} cannot be offloaded yet")


class RegionTranslator:
    """Translates a region: consecutive ``arrayexpr`` statements connected by elementwise dataflow.
    Values defined in the region feed later statements directly (no temporaries); only the
    variables in `outputs` are stored. Leaves from outside the region become kernel parameters
    (``self.args`` lists the IR variables passed at launch, in parameter order) or constants."""

    def __init__(
        self, func_ir: ir.FunctionIR, typemap: dict[str, types.Type], ndim: int, loc: ir.Loc
    ) -> None:
        self.func_ir = func_ir
        self.typemap = typemap
        self.ndim = ndim
        self.loc = loc
        self.b = SpecBuilder(ndim)
        self.args: list[ir.Var] = []
        self._leaf: dict[str, tuple[int, str]] = {}

    def translate(self, insts: list[ir.Assign], outputs: list[ir.Var]) -> KernelSpec:
        for inst in insts:
            self.loc = inst.loc
            want = dtype_name(self.typemap[inst.target.name])  # NumPy: the statement's array dtype
            if inst.value.op == "arrayexpr":
                value, dt = self._expr(inst.value.expr)
            else:  # np.where / np.clip / astype / erf (compiler/elementwise.py)
                value, dt = self._elementwise(
                    resolve_global(self.func_ir, inst.value.func), inst.value.args, want
                )
            self._leaf[inst.target.name] = (self.b.cast(value, dt, want), want)
        for var in outputs:
            node, dt = self._leaf[var.name]
            p = self.b.array_param(var.name, dt, self.ndim, True)
            self.b.node(Store(dt, p, node))
        return self.b.spec()

    def _elementwise(self, fn: Any, args: list[ir.Var], want: str) -> tuple[int, str]:
        kind = ELEMENTWISE[fn]
        if kind == "astype":
            return self._leaf_value(args[0])
        if kind in ("erf", "erfc"):
            v, d = self._leaf_value(args[0])
            comp = d if d in ("float32", "float64") else "float64"
            return self.b.node(Unary(comp, kind, self.b.cast(v, d, comp))), comp
        vals = [self._leaf_value(a) for a in args]
        if kind == "where":
            (c, cdt), a, b = vals
            cond = self.b.cast(c, cdt, "bool")
            return self.b.node(
                Select(want, cond, self.b.cast(a[0], a[1], want), self.b.cast(b[0], b[1], want))
            ), want
        if np.dtype(want).kind in "iu":
            # integer bounds beyond the result dtype's range clip as NumPy does (np.clip(int8, 0, 200)
            # is int8 with nothing above 127): clamp them into it before casting
            vals = [vals[0]] + [self._clamp_bound(v, d, want) for v, d in vals[1:]]
        x, lo, hi = (self.b.cast(v, d, want) for v, d in vals)  # clip: minimum(maximum(x, lo), hi)
        return self.b.node(Binary(want, "min", self.b.node(Binary(want, "max", x, lo)), hi)), want

    def _clamp_bound(self, v: int, d: str, want: str) -> tuple[int, str]:
        if np.dtype(d).kind not in "iu" or d == want:
            return v, d
        w, b = np.iinfo(want), np.iinfo(d)
        lo, hi = max(int(w.min), int(b.min)), min(int(w.max), int(b.max))
        if lo > int(b.min):
            v = self.b.node(Binary(d, "max", v, self.b.const(d, lo)))
        if hi < int(b.max):
            v = self.b.node(Binary(d, "min", v, self.b.const(d, hi)))
        return v, d

    def _const_of(self, var: ir.Var) -> Scalar | np.generic | None:
        try:
            d = self.func_ir.get_definition(var)
        except Exception:
            return None
        if isinstance(d, (ir.Const, ir.Global, ir.FreeVar)) and isinstance(
            d.value, (bool, int, float, complex, np.number, np.bool_)
        ):
            return d.value
        return None

    def _leaf_value(self, var: ir.Var) -> tuple[int, str]:
        if var.name in self._leaf:
            return self._leaf[var.name]
        ty = self.typemap[var.name]
        dt = dtype_name(ty)
        if isinstance(ty, types.Array):
            contiguous = ty.layout == "C" and ty.ndim == self.ndim
            p = self.b.array_param(var.name, dt, ty.ndim, contiguous)
            self.args.append(var)
            res = (self.b.node(Load(dt, p)), dt)
        else:
            c = self._const_of(var)
            if c is not None:
                res = (self.b.const(dt, c), dt)
            else:
                p = self.b.scalar_param(var.name, dt)
                self.args.append(var)
                res = (self.b.node(ScalarArg(dt, p)), dt)
        self._leaf[var.name] = res
        return res

    def _expr(self, tree: Any) -> tuple[int, str]:
        if isinstance(tree, ir.Var):
            return self._leaf_value(tree)
        if isinstance(tree, ir.Const):
            dt = np.asarray(tree.value).dtype.name
            return self.b.const(dt, tree.value), dt
        op, operands = tree
        ufunc = as_ufunc(op)
        vals = [self._expr(o) for o in operands]
        try:
            return self.b.apply_ufunc(ufunc, vals)
        except UnsupportedError as e:
            raise UnsupportedError(f"{e} (line {self.loc.line} of {self.loc.filename})") from None
