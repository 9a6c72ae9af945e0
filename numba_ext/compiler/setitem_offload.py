"""Whole-array and slice assignment to USM arrays on the device.

In a parallel function Numba's parfor pass turns most assignments through slices and masks
(``out[:] = expr``, ``out[i, :] = row``, ``out[mask] = v``) into parallel loops, which are offloaded.
Those it leaves on the host (a slice with a step, a shape its array analysis cannot name) become
parallel loops here, over the view they assign to: ``view = target[index]`` on the host (metadata
only), then one work-item per element of the view. The host-access check (``host_access.py``) lets
these statements through when the function is compiled by this pipeline; anything still left on
the host that the host cannot address is refused here with the construct and its line.
"""

from __future__ import annotations

import operator
from typing import Any

import numba
from numba.core import ir, types
from numba.core.ir_utils import mk_unique_var, next_label
from numba.core.typing import signature
from numba.parfors.parfor import LoopNest, Parfor

from ..errors import UnsupportedError
from .host_access import host_setitem_error, inaccessible
from .types import USMArrayType


def offload_setitems(state: Any) -> None:
    """Turn the slice and mask assignments to USM arrays left in host code into parallel loops."""
    func_ir, typemap = state.func_ir, state.typemap
    for blk in func_ir.blocks.values():
        new_body: list[ir.Stmt] = []
        for st in blk.body:
            if isinstance(st, (ir.SetItem, ir.StaticSetItem)) and isinstance(
                typemap.get(st.target.name), USMArrayType
            ):
                idx = st.index if isinstance(st, ir.SetItem) else st.index_var
                ity = typemap.get(idx.name) if idx is not None else None
                if _has_slices(ity):
                    new_body.extend(_as_parfor(state, st, idx))
                    continue
                if inaccessible(typemap[st.target.name]) and not _scalar_index(ity):
                    raise UnsupportedError(host_setitem_error(st, typemap))
            new_body.append(st)
        blk.body = new_body


def _has_slices(t: Any) -> bool:
    if isinstance(t, types.SliceType):
        return True
    return isinstance(t, types.BaseTuple) and any(isinstance(x, types.SliceType) for x in t.types)


def _scalar_index(t: Any) -> bool:
    if isinstance(t, types.Integer):
        return True
    return isinstance(t, types.BaseTuple) and all(isinstance(x, types.Integer) for x in t.types)


def _as_parfor(state: Any, st: ir.SetItem | ir.StaticSetItem, idx: ir.Var) -> list[ir.Stmt]:
    """`view = target[idx]`, its shape, and a parfor storing `value` (a scalar, or an array of the
    view's rank read at the same index) into every element of the view."""
    typemap, calltypes, typingctx = state.typemap, state.calltypes, state.typingctx
    scope, loc = st.target.scope, st.loc
    tt, it, vt = typemap[st.target.name], typemap[idx.name], typemap[st.value.name]
    view_t = typingctx.resolve_function_type(operator.getitem, (tt, it), {})
    if view_t is None or not isinstance(view_t.return_type, types.Array):
        raise UnsupportedError(host_setitem_error(st, typemap))
    if isinstance(vt, types.Array) and vt.ndim > view_t.return_type.ndim:
        raise UnsupportedError(
            f"assigning a {vt.ndim}-d array to a {view_t.return_type.ndim}-d slice {_line(loc)}"
        )
    out: list[ir.Stmt] = []
    view = _new(typemap, scope, loc, "$nx_view", view_t.return_type)
    get = ir.Expr.getitem(st.target, idx, loc)
    calltypes[get] = view_t
    out.append(ir.Assign(get, view, loc))
    if isinstance(vt, types.Array):
        out += _shape_check(state, view, st.value, loc)
    ndim = view_t.return_type.ndim
    shape = _new(typemap, scope, loc, "$nx_view_shape", types.UniTuple(types.intp, ndim))
    out.append(ir.Assign(ir.Expr.getattr(view, "shape", loc), shape, loc))
    nests, index_vars = [], []
    for d in range(ndim):
        n = _new(typemap, scope, loc, "$nx_view_len", types.intp)
        out.append(ir.Assign(ir.Expr.static_getitem(shape, d, None, loc), n, loc))
        i = _new(typemap, scope, loc, "$nx_index", types.intp)
        index_vars.append(i)
        nests.append(LoopNest(i, 0, n, 1))
    body = ir.Block(scope, loc)
    if ndim == 1:
        index, index_t = index_vars[0], types.intp
    else:
        index_t = types.UniTuple(types.intp, ndim)
        index = _new(typemap, scope, loc, "$nx_index_tuple", index_t)
        body.append(ir.Assign(ir.Expr.build_tuple(list(index_vars), loc), index, loc))
    value = st.value
    if isinstance(vt, types.Array):  # broadcast over the leading dimensions
        value = _new(typemap, scope, loc, "$nx_value", vt.dtype)
        v_index, v_index_t = index, index_t
        if vt.ndim < ndim:
            v_index_t = types.UniTuple(types.intp, vt.ndim)
            v_index = _new(typemap, scope, loc, "$nx_value_index", v_index_t)
            body.append(ir.Assign(ir.Expr.build_tuple(index_vars[ndim - vt.ndim :], loc), v_index, loc))
        get_v = ir.Expr.getitem(st.value, v_index, loc)
        calltypes[get_v] = signature(vt.dtype, vt, v_index_t)
        body.append(ir.Assign(get_v, value, loc))
    store = ir.SetItem(view, index, value, loc)
    calltypes[store] = signature(types.none, view_t.return_type, index_t, view_t.return_type.dtype)
    body.append(store)
    parfor = Parfor(
        nests, ir.Block(scope, loc), {next_label(): body}, loc, index, None, ("setitem", ""), state.flags
    )
    parfor.redvars, parfor.reddict = [], {}
    out.append(parfor)
    return out


@numba.njit
def require_same_trailing_shape(view, value):
    """NumPy's ValueError where `value` does not have the trailing shape of `view` (broadcasting
    over leading dimensions only; a length-1 dimension is not stretched)."""
    off = view.ndim - value.ndim
    for d in range(value.ndim):
        if value.shape[d] != view.shape[off + d]:
            raise ValueError("could not broadcast the assigned array into the shape of the slice")


def _shape_check(state: Any, view: ir.Var, value: ir.Var, loc: ir.Loc) -> list[ir.Stmt]:
    """A call of `require_same_trailing_shape` on the host, before the parfor."""
    typemap, scope = state.typemap, view.scope
    fty = types.Dispatcher(require_same_trailing_shape)
    fn = _new(typemap, scope, loc, "$nx_shape_check", fty)
    res = _new(typemap, scope, loc, "$nx_shape_checked", types.none)
    call = ir.Expr.call(fn, [view, value], (), loc)
    state.calltypes[call] = state.typingctx.resolve_function_type(
        fty, (typemap[view.name], typemap[value.name]), {}
    )
    return [
        ir.Assign(ir.Global("require_same_trailing_shape", require_same_trailing_shape, loc), fn, loc),
        ir.Assign(call, res, loc),
    ]


def _new(typemap: dict, scope: ir.Scope, loc: ir.Loc, name: str, t: types.Type) -> ir.Var:
    v = ir.Var(scope, mk_unique_var(name), loc)
    typemap[v.name] = t
    return v


def _line(loc: ir.Loc) -> str:
    return f"(at {loc.filename}, line {loc.line})"
