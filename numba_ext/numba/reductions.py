"""Reductions NumPy spells as functions with extra structure: ``argmin/argmax``, ``np.dot`` of two
1-D arrays, and reductions along one axis (``a.sum(axis=1)``, ``np.max(a, axis=0)``, ...).

A before-inference rewrite sends these calls to dispatch functions whose overloads call
``numba_ext.jit`` helpers on USM arrays (so they compile with the offload pipeline: prange loops and
whole-array reductions become kernels) and NumPy's own functions on host arrays."""

from __future__ import annotations

import functools

import numpy as np
from numba import prange
from numba.core import ir, types
from numba.core.rewrites import Rewrite, register_rewrite
from numba.extending import overload

from .. import creation
from ..errors import UnsupportedError
from .elementwise import emit_call, resolve_global
from .types import USMArrayType

_AXIS_OPS = ("sum", "prod", "min", "max", "mean")


def nx_argmin(a):
    return np.argmin(a)


def nx_argmax(a):
    return np.argmax(a)


def nx_dot(a, b):
    return np.dot(a, b)


def nx_reduce_axis(a, op, axis):
    return getattr(np, op)(a, axis=axis)


def _np_argmin(a):
    return np.argmin(a)


def _np_argmax(a):
    return np.argmax(a)


def _np_dot(a, b):
    return np.dot(a, b)


_NOT_REWRITTEN = {_np_argmin, _np_argmax, _np_dot}


@functools.lru_cache(maxsize=None)
def _arg_helper(kind: str):
    from ..jit import jit

    src = f"""
def arg{kind}(a):
    flat = a.reshape(a.size)
    n = flat.shape[0]
    if n == 0:
        raise ValueError("attempt to get arg{kind} of an empty sequence")
    m = np.{kind}(flat)
    nan = m != m  # NumPy returns the first NaN
    best = n
    for i in prange(n):
        v = flat[i]
        hit = (v != v) if nan else (v == m)
        if hit:
            best = min(best, i)
    return best
"""
    ns = {"np": np, "prange": prange}
    exec(src, ns)
    argext = ns[f"arg{kind}"]
    return jit(argext)._dispatcher


@functools.lru_cache(maxsize=None)
def _dot_helper():
    from ..jit import jit

    def dot(a, b):
        return np.sum(a * b)

    return jit(dot)._dispatcher


@functools.lru_cache(maxsize=None)
def _axis_helper(op: str, ndim: int, axis: int, dtype: str):
    """A jitted reduction of a C-contiguous `ndim`-d array along `axis` (one work-item per output
    element, a sequential loop along the axis)."""
    from ..jit import jit

    keep = [d for d in range(ndim) if d != axis]
    outer = " * ".join(f"a.shape[{d}]" for d in range(axis)) or "1"
    inner = " * ".join(f"a.shape[{d}]" for d in range(axis + 1, ndim)) or "1"
    out_shape = "(" + "".join(f"a.shape[{d}], " for d in keep) + ")"
    init = {"sum": "0", "prod": "1", "mean": "0", "min": "v3[i, 0, j]", "max": "v3[i, 0, j]"}[op]
    step = {"sum": "s += x", "prod": "s *= x", "mean": "s += x", "min": "s = min(s, x)", "max": "s = max(s, x)"}[op]
    final = "s / n" if op == "mean" else "s"
    src = f"""
def reduce_axis(a):
    n = a.shape[{axis}]
    o = {outer}
    m = {inner}
    v3 = a.reshape((o, n, m))
    out = numba_ext.empty((o, m), np.{dtype})
    for i in prange(o):
        for j in prange(m):
            s = {init}
            for k in range(n):
                x = v3[i, k, j]
                {step}
            out[i, j] = {final}
    return out.reshape({out_shape})
"""
    ns = {"np": np, "prange": prange, "numba_ext": __import__("numba_ext")}
    exec(src, ns)
    return jit(ns["reduce_axis"])._dispatcher


def _usm(*ts):
    return any(isinstance(t, USMArrayType) for t in ts)


@overload(nx_argmin)
def _ov_argmin(a):
    if _usm(a):
        h = _arg_helper("min")
        return lambda a: h(a)
    return _np_argmin


@overload(nx_argmax)
def _ov_argmax(a):
    if _usm(a):
        h = _arg_helper("max")
        return lambda a: h(a)
    return _np_argmax


@overload(nx_dot)
def _ov_dot(a, b):
    if _usm(a, b):
        if not (isinstance(a, types.Array) and isinstance(b, types.Array) and a.ndim == 1 and b.ndim == 1):
            raise UnsupportedError("np.dot on numba_ext arrays is supported for two 1-D arrays")
        h = _dot_helper()
        return lambda a, b: h(a, b)
    return _np_dot


def _reduced_dtype(op, dt):
    if op == "mean":
        return "float32" if dt == types.float32 else "float64"
    if op in ("sum", "prod") and isinstance(dt, (types.Integer, types.Boolean)):
        return "uint64" if isinstance(dt, types.Integer) and not dt.signed else "int64"
    return str(np.dtype(str(dt)))


@overload(nx_reduce_axis, prefer_literal=True)
def _ov_reduce_axis(a, op, axis):
    if not isinstance(op, types.StringLiteral):
        return None
    name = op.literal_value
    if not _usm(a):
        fn = getattr(np, name)
        return lambda a, op, axis: fn(a, axis=axis)
    if not isinstance(axis, types.IntegerLiteral):
        raise UnsupportedError(f"{name}(axis=...) on numba_ext arrays needs a constant axis")
    ax = axis.literal_value % a.ndim
    if a.ndim == 1:
        fn = getattr(np, name)
        return lambda a, op, axis: fn(a)
    if a.layout != "C":
        raise UnsupportedError(f"{name}(axis=...) on numba_ext arrays needs a C-contiguous array")
    h = _axis_helper(name, a.ndim, ax, _reduced_dtype(name, a.dtype))
    return lambda a, op, axis: h(a)


@register_rewrite("before-inference")
class RewriteReductions(Rewrite):
    """np.argmin/argmax(x), x.argmin/argmax(), np.dot(a, b), np.<op>(x, axis=k), x.<op>(axis=k)
    -> the dispatch functions above."""

    def match(self, func_ir, block, typemap, calltypes):
        self.func_ir, self.block, self.todo = func_ir, block, []
        if func_ir.func_id.func in _NOT_REWRITTEN:
            return False
        for inst in block.body:
            if not (isinstance(inst, ir.Assign) and isinstance(inst.value, ir.Expr) and inst.value.op == "call"):
                continue
            call = inst.value
            if call.vararg:
                continue
            kws = dict(call.kws)
            fn = resolve_global(func_ir, call.func)
            method = None
            if fn is None:
                d = func_ir.get_definition(call.func) if call.func.name in func_ir._definitions else None
                if isinstance(d, ir.Expr) and d.op == "getattr":
                    method = (d.attr, d.value)
            if fn in (np.argmin, np.argmax) and len(call.args) == 1 and not kws:
                self.todo.append((inst, nx_argmin if fn is np.argmin else nx_argmax, list(call.args), None))
            elif method and method[0] in ("argmin", "argmax") and not call.args and not kws:
                self.todo.append((inst, nx_argmin if method[0] == "argmin" else nx_argmax, [method[1]], None))
            elif fn is np.dot and len(call.args) == 2 and not kws:
                self.todo.append((inst, nx_dot, list(call.args), None))
            elif fn in [getattr(np, o) for o in _AXIS_OPS] and len(call.args) == 1 and set(kws) == {"axis"}:
                self.todo.append((inst, nx_reduce_axis, [call.args[0]], (fn.__name__, kws["axis"])))
            elif method and method[0] in _AXIS_OPS and set(kws) == {"axis"} and not call.args:
                self.todo.append((inst, nx_reduce_axis, [method[1]], (method[0], kws["axis"])))
        return bool(self.todo)

    def apply(self):
        new = self.block.copy()
        new.clear()
        todo = {id(i): (f, a, extra) for i, f, a, extra in self.todo}
        for inst in self.block.body:
            if id(inst) not in todo:
                new.append(inst)
                continue
            fn, args, extra = todo[id(inst)]
            scope, loc = inst.target.scope, inst.loc
            if extra is not None:
                opv = ir.Var(scope, scope.redefine("$nx_op", loc).name, loc)
                c = ir.Const(extra[0], loc)
                new.append(ir.Assign(c, opv, loc))
                self.func_ir._definitions[opv.name] = [c]
                args = args + [opv, extra[1]]
            emit_call(new, self.func_ir, fn, args, inst.target, loc)
        return new


_ = creation  # numba_ext.empty is used by the generated helpers
