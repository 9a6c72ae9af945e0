"""The kernel of ``np.interp`` (``library.statistics``), in the control-flow form
(:class:`~.kernel_ir.Function`), for eager operations: one work-item per point binary-searches the
sample points and applies NumPy's formula and special cases in float64, so the whole interpolation
is one pass over the points (composed from eager operations it took about twenty)."""

from __future__ import annotations

from .kernel_ir import (
    ArrayDecl,
    Branch,
    Dim,
    Function,
    Imm,
    Jump,
    LoadInst,
    Local,
    Operand,
    Return,
    SelectInst,
    StoreInst,
    WorkItem,
)
from .reductions import FunctionBuilder

_I64, _F64 = "int64", "float64"


def interp_function() -> Function:
    """``out[i] = np.interp(x[i], xp, fp, left, right)`` for C-contiguous float64 vectors `x`,
    `xp` (increasing, at least two points) and `fp`, with ``edges = [left, right]`` (NumPy's
    defaults ``fp[0]``, ``fp[-1]`` filled in by the caller): ``j`` the number of sample points at
    or below ``x[i]``, less one (a binary search), ``k = clip(j, 0, n - 2)``, the value ``slope *
    (x - xp[k]) + fp[k]``; where that is NaN (an infinite slope) the other endpoint's form ``slope *
    (x - xp[k + 1]) + fp[k + 1]``, and still NaN with ``fp[k] == fp[k + 1]``, ``fp[k]``; ``fp[k]`` at
    ``x == xp[k]``; ``fp[-1]`` for ``j >= n - 1``; `left` for ``j < 0``; `right` above ``xp[-1]``; NaN
    points stay NaN. Parameters: x, xp, fp, edges, out; launched over at least ``len(x)``
    work-items."""
    X, XP, FP, EDGES, OUT = range(5)
    b = FunctionBuilder(1)
    g = b.local(_I64)
    b.emit(WorkItem(g, "get_global_id", 0))
    size, n = b.local(_I64), b.local(_I64)
    b.emit(Dim(size, X, 0))
    b.emit(Dim(n, XP, 0))
    body, done = b.new_block(), b.new_block()
    b.end(Branch(b.binary("bool", "lt", Local(g), Local(size)), body, done), then=body)

    def load(array: int, at: Operand) -> Local:
        v = b.local(_F64)
        b.emit(LoadInst(v, array, (at,)))
        return Local(v)

    def select(cond: Operand, a: Operand, c: Operand) -> Local:
        v = b.local(_F64)
        b.emit(SelectInst(v, cond, a, c))
        return Local(v)

    def is_nan(v: Operand) -> Local:
        return b.binary("bool", "ne", v, v)

    x = load(X, Local(g))
    # the binary search: lo = the number of sample points <= x (NaN: none)
    lo, hi = b.local(_I64), b.local(_I64)
    b.set(lo, Imm(_I64, 0))
    b.set(hi, Local(n))
    head, step, found = b.new_block(), b.new_block(), b.new_block()
    b.end(Jump(head), then=head)
    b.end(Branch(b.binary("bool", "lt", Local(lo), Local(hi)), step, found), then=step)
    mid = b.binary(_I64, "floordiv", b.binary(_I64, "add", Local(lo), Local(hi)), Imm(_I64, 2))
    at_or_below = b.binary("bool", "le", load(XP, mid), x)
    b.emit(SelectInst(lo, at_or_below, b.binary(_I64, "add", mid, Imm(_I64, 1)), Local(lo)))
    b.emit(SelectInst(hi, at_or_below, Local(hi), mid))
    b.end(Jump(head), then=found)
    j = b.binary(_I64, "sub", Local(lo), Imm(_I64, 1))
    last_interval = b.binary(_I64, "sub", Local(n), Imm(_I64, 2))
    k = b.local(_I64)
    b.emit(SelectInst(k, b.binary("bool", "lt", j, Imm(_I64, 0)), Imm(_I64, 0), j))
    b.emit(SelectInst(k, b.binary("bool", "gt", Local(k), last_interval), last_interval, Local(k)))
    k1 = b.binary(_I64, "add", Local(k), Imm(_I64, 1))
    x0, x1, y0, y1 = load(XP, Local(k)), load(XP, k1), load(FP, Local(k)), load(FP, k1)
    slope = b.binary(_F64, "div", b.binary(_F64, "sub", y1, y0), b.binary(_F64, "sub", x1, x0))
    value = b.binary(_F64, "add", b.binary(_F64, "mul", slope, b.binary(_F64, "sub", x, x0)), y0)
    other = b.binary(_F64, "add", b.binary(_F64, "mul", slope, b.binary(_F64, "sub", x, x1)), y1)
    value = select(is_nan(value), other, value)
    flat = b.binary("bool", "and", is_nan(value), b.binary("bool", "eq", y0, y1))
    value = select(flat, y0, value)
    value = select(b.binary("bool", "eq", x, x0), y0, value)
    last = load(FP, b.binary(_I64, "sub", Local(n), Imm(_I64, 1)))
    value = select(b.binary("bool", "ge", j, b.binary(_I64, "sub", Local(n), Imm(_I64, 1))), last, value)
    value = select(b.binary("bool", "lt", j, Imm(_I64, 0)), load(EDGES, Imm(_I64, 0)), value)
    top = load(XP, b.binary(_I64, "sub", Local(n), Imm(_I64, 1)))
    value = select(b.binary("bool", "gt", x, top), load(EDGES, Imm(_I64, 1)), value)
    value = select(is_nan(x), x, value)
    b.emit(StoreInst(OUT, (Local(g),), value))
    b.end(Jump(done), then=done)
    b.end(Return())
    vector = lambda name: ArrayDecl(name, _F64, 1, "global", contiguous=True)
    return b.function(
        "interp_float64", vector("x"), vector("xp"), vector("fp"), vector("edges"), vector("out")
    )
