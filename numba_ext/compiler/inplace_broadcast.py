"""In-place operators that broadcast, ``d += v[:, None]`` / ``d -= x[:, 0:1]``, on numba_ext arrays in
jitted code.

Numba turns ``d op= x`` into a loop over ``d``'s indices that reads ``x`` at the same indices, after
asserting the two shapes equal (only dimensions that are 1 at compile time may differ), so a
broadcasting operand fails with "Sizes of ... do not match" or would be read out of bounds. For a
numba_ext array ``d`` of two or more dimensions, or an operand of another rank, this after-inference
rewrite makes the statement a call of the dispatch function of its ufunc (``DISPATCH``), whose
overload (``inplace_helpers``) calls a ``numba_ext.jit`` helper: the ufunc as an array expression (a
kernel that broadcasts as NumPy does), stored into ``d`` by a second device loop. One-dimensional
operands of equal rank keep Numba's single loop."""

from __future__ import annotations

import operator

import numpy as np
from numba.core import ir
from numba.core.rewrites import Rewrite
from numba.np import numpy_support

from .types import USMArrayType

#: the highest rank of a target this rewrite handles
MAX_RANK = 4

#: in-place operator -> the NumPy ufunc computing it
INPLACE_UFUNCS = {
    operator.iadd: "add",
    operator.isub: "subtract",
    operator.imul: "multiply",
    operator.itruediv: "true_divide",
    operator.ifloordiv: "floor_divide",
    operator.imod: "remainder",
    operator.ipow: "power",
    operator.iand: "bitwise_and",
    operator.ior: "bitwise_or",
    operator.ixor: "bitwise_xor",
    operator.ilshift: "left_shift",
    operator.irshift: "right_shift",
}


def _dispatch_function(ufunc_name: str):
    """nx_inplace_<ufunc>(d, x): `d op= x` (d returned), what the rewrite calls."""
    ufunc = getattr(np, ufunc_name)

    def dispatch(d, x):
        d[:] = ufunc(d, x)
        return d

    dispatch.__name__ = dispatch.__qualname__ = f"nx_inplace_{ufunc_name}"
    return dispatch


#: ufunc name -> the dispatch function of its in-place operator
DISPATCH = {name: _dispatch_function(name) for name in INPLACE_UFUNCS.values()}


def _broadcasts(target, value) -> bool:
    return (
        isinstance(target, USMArrayType)
        and 1 <= target.ndim <= MAX_RANK
        and isinstance(value, USMArrayType)
        and (target.ndim >= 2 or value.ndim != target.ndim)
    )


def _castable(target, value) -> bool:
    """NumPy's same_kind rule for the in-place result (an int array cannot take a float result)."""
    result = np.result_type(numpy_support.as_dtype(target.dtype), numpy_support.as_dtype(value.dtype))
    return bool(np.can_cast(result, numpy_support.as_dtype(target.dtype), "same_kind"))


class RewriteInplaceBroadcast(Rewrite):
    """d op= x (d a numba_ext array of rank >= 2, or x of another rank) -> nx_inplace_<ufunc>(d, x)."""

    def __init__(self, state):
        super().__init__(state)
        self.state = state

    def match(self, func_ir, block, typemap, calltypes):
        self.func_ir, self.block, self.typemap, self.calltypes = func_ir, block, typemap, calltypes
        self.todo = []
        for inst in block.body:
            if not (isinstance(inst, ir.Assign) and isinstance(inst.value, ir.Expr)):
                continue
            e = inst.value
            if e.op != "inplace_binop" or e.fn not in INPLACE_UFUNCS:
                continue
            target, value = typemap.get(e.lhs.name), typemap.get(e.rhs.name)
            if _broadcasts(target, value) and target.device == value.device and _castable(target, value):
                self.todo.append(inst)
        return bool(self.todo)

    def apply(self):
        new = self.block.copy()
        new.clear()
        typingctx = self.state.typingctx
        todo = {id(i) for i in self.todo}
        for inst in self.block.body:
            if id(inst) not in todo:
                new.append(inst)
                continue
            e, loc, scope = inst.value, inst.loc, inst.target.scope
            dispatch = DISPATCH[INPLACE_UFUNCS[e.fn]]
            fnty = typingctx.resolve_value_type(dispatch)
            args = (self.typemap[e.lhs.name], self.typemap[e.rhs.name])
            sig = typingctx.resolve_function_type(fnty, args, {})
            g = ir.Var(scope, scope.redefine("$nx_inplace", loc).name, loc)
            gv = ir.Global(dispatch.__name__, dispatch, loc)
            new.append(ir.Assign(gv, g, loc))
            self.typemap[g.name] = fnty
            self.func_ir._definitions[g.name] = [gv]
            call = ir.Expr.call(g, [e.lhs, e.rhs], (), loc)
            self.calltypes[call] = sig
            new.append(ir.Assign(call, inst.target, loc))
        return new


__all__ = ["DISPATCH", "INPLACE_UFUNCS", "RewriteInplaceBroadcast"]
