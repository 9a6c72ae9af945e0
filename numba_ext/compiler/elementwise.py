"""Array functions that are elementwise but not ufuncs: ``np.where(c, a, b)``, ``np.clip(a, lo, hi)``
and ``a.astype(dtype)``. A before-inference rewrite sends these calls to the functions below; on
NumPy arrays they are NumPy's own, on USM arrays they are typed as USM arrays and the offload rewrite
fuses them into kernels with the surrounding array expressions."""

from __future__ import annotations

import numpy as np
from numba.core import cgutils, ir, types
from numba.core.rewrites import Rewrite
from numba.core.typing import signature
from numba.extending import intrinsic, overload, overload_classmethod
from numba.np import numpy_support

from ..errors import ExecutionPlacementError, UnsupportedError
from ..ir import numba_loops
from ..placement import coerce_usm_types
from . import ufuncs
from .redirects import (
    SCAN_HOST_IMPLS,
    SCANS,
    emit_call,
    nx_ascontiguousarray,
    nx_astype,
    nx_clip,
    nx_copy,
    nx_where,
    resolve_global,
)
from .types import USMArrayType, source_location


def _array_args(args):
    return [t for t in args if isinstance(t, types.Array)]


def _usm_result(name, args, dtype):
    arrays = _array_args(args)
    ours = [t for t in arrays if isinstance(t, USMArrayType)]
    if not ours:
        return None
    if len(ours) != len(arrays):
        raise ExecutionPlacementError(
            f"np.{name} mixes numba_ext arrays with NumPy arrays; the queue of the NumPy data cannot be "
            "inferred"
        )
    devices = {t.device for t in ours}
    if len(devices) > 1:
        raise ExecutionPlacementError(f"np.{name} combines arrays on different devices {sorted(devices)}")
    return USMArrayType(
        dtype,
        max(t.ndim for t in ours),
        "C",
        usm_type=coerce_usm_types(t.usm_type for t in ours),
        device=ours[0].device,
    )


def _dt(t):
    return t.dtype if isinstance(t, types.Array) else (t.literal_type if isinstance(t, types.Literal) else t)


def _unreachable(name):
    """Numba compiles overload implementations while typing, so this must be valid code; the offload
    rewrite replaces every such call in user functions, so it only runs if that did not happen."""

    def codegen(context, builder, sig, args):
        with cgutils.if_unlikely(builder, cgutils.true_bit):
            context.call_conv.return_user_exc(
                builder, RuntimeError, (f"np.{name} on numba_ext arrays was not offloaded (a numba_ext bug)",)
            )
        return cgutils.get_null_value(context.get_value_type(sig.return_type))

    return codegen


def ufunc_result_dtype(*args):
    """The result dtype Numba's ufunc typing gives these operands (arrays and scalars):
    ``ir.numba_loops.scalar_aware_result``."""
    arrays = [numpy_support.as_dtype(t.dtype) for t in args if isinstance(t, types.Array)]
    scalars = [numpy_support.as_dtype(_dt(t)) for t in args if not isinstance(t, types.Array)]
    return numpy_support.from_dtype(numba_loops.scalar_aware_result(arrays, scalars))


@intrinsic
def _usm_where(typingctx, c, a, b):
    res = ufunc_result_dtype(a, b)
    ret = _usm_result("where", (c, a, b), res)
    return (signature(ret, c, a, b), _unreachable("where")) if ret is not None else None


@intrinsic
def _usm_clip(typingctx, a, lo, hi):
    res = ufunc_result_dtype(a, lo, hi)
    ret = _usm_result("clip", (a, lo, hi), res)
    return (signature(ret, a, lo, hi), _unreachable("clip")) if ret is not None else None


def dtype_arg(t):
    if isinstance(t, types.functions.NumberClass):
        return t.dtype
    if isinstance(t, types.DTypeSpec):
        return t.dtype
    if isinstance(t, types.StringLiteral):
        return numpy_support.from_dtype(np.dtype(t.literal_value))
    return None


@intrinsic(prefer_literal=True)
def _usm_astype(typingctx, a, dtype):
    dt = dtype_arg(dtype)
    if dt is None or not isinstance(a, USMArrayType):
        return None
    return signature(a.copy(dtype=dt, layout="C", readonly=False), a, dtype), _unreachable("astype")


# NumPy's own behaviour for host arrays (the rewrite leaves these functions alone)
def _np_where(c, a, b):
    return np.where(c, a, b)


def _np_clip(a, lo, hi):
    return np.clip(a, lo, hi)


def _np_astype(a, dtype):
    return a.astype(dtype)


def _np_copy(a):
    return a.copy()


_NOT_REWRITTEN = {_np_where, _np_clip, _np_astype, _np_copy}


@intrinsic
def _usm_unary_float(typingctx, x):
    if not isinstance(x, USMArrayType):
        return None
    dt = x.dtype if isinstance(x.dtype, types.Float) else types.float64
    return signature(x.copy(dtype=dt, layout="C", readonly=False), x), _unreachable("erf")


def _host_ufunc(name):
    vec = ufuncs.vectorized(name)
    return lambda x: vec(x)


@overload(ufuncs.erf)
def _ov_erf(x):
    return (lambda x: _usm_unary_float(x)) if isinstance(x, USMArrayType) else _host_ufunc("erf")


@overload(ufuncs.erfc)
def _ov_erfc(x):
    return (lambda x: _usm_unary_float(x)) if isinstance(x, USMArrayType) else _host_ufunc("erfc")


@overload(nx_where)
def _ov_where(c, a, b):
    if any(isinstance(t, USMArrayType) for t in (c, a, b)):
        return lambda c, a, b: _usm_where(c, a, b)
    return _np_where


@overload(nx_clip)
def _ov_clip(a, lo, hi):
    if any(isinstance(t, USMArrayType) for t in (a, lo, hi)):
        return lambda a, lo, hi: _usm_clip(a, lo, hi)
    return _np_clip


@intrinsic
def _usm_copy(typingctx, a):
    if not isinstance(a, USMArrayType):
        return None
    return signature(a.copy(layout="C", readonly=False), a), _unreachable("copy")


@overload(nx_copy)
def _ov_copy(a):
    if isinstance(a, USMArrayType):
        return lambda a: _usm_copy(a)
    return _np_copy


def _np_ascontiguousarray(a):
    return np.ascontiguousarray(a)


def _usm_contiguous_copy(a):
    return nx_copy(a)


_NOT_REWRITTEN |= {_np_ascontiguousarray, *SCAN_HOST_IMPLS}


@overload(nx_ascontiguousarray)
def _ov_ascontiguousarray(a):
    """np.ascontiguousarray of a numba_ext array: the array itself when C-contiguous, else a
    contiguous copy on its queue (NumPy's aliasing rules; the copy is a kernel)."""
    if isinstance(a, USMArrayType) and a.ndim >= 1:
        if a.layout == "C":
            return lambda a: a
        return _usm_contiguous_copy
    return _np_ascontiguousarray


@overload_classmethod(USMArrayType, "_allocate")
def _ov_allocate(cls, allocsize, align):
    raise UnsupportedError(
        "this operation (a NumPy function or boolean/fancy indexing that numba_ext does not offload) "
        "would allocate a numba_ext array on the host inside jitted code; allocate with "
        "numba_ext.empty(shape, dtype) or np.empty_like(x) and fill it in a prange loop (or use "
        "x.copy(), x.astype(), array expressions) instead" + source_location(user_code=True)
    )


@overload(nx_astype, prefer_literal=True)
def _ov_astype(a, dtype):
    if isinstance(a, USMArrayType):
        return lambda a, dtype: _usm_astype(a, dtype)
    return _np_astype


def _resolve(func_ir, var):
    """Like resolve_global, but a method access (`x.astype`) resolves to ("method", name, x)."""
    try:
        d = func_ir.get_definition(var)
    except Exception:
        return None
    if isinstance(d, ir.Expr) and d.op == "getattr" and resolve_global(func_ir, d.value) is None:
        return ("method", d.attr, d.value)
    return resolve_global(func_ir, var)


class RewriteElementwiseCalls(Rewrite):
    """np.where(c, a, b) / np.clip(a, lo, hi) / x.astype(t) / x.copy() / np.copy(x) /
    np.ascontiguousarray(x) -> nx_where / nx_clip / nx_astype / nx_copy / nx_ascontiguousarray;
    np.divmod(a, b) -> (np.floor_divide(a, b), np.remainder(a, b))."""

    def match(self, func_ir, block, typemap, calltypes):
        self.func_ir, self.block = func_ir, block
        self.todo = []
        self.dead_methods = set()
        if func_ir.func_id.func in _NOT_REWRITTEN:
            return False
        for inst in block.body:
            if not (
                isinstance(inst, ir.Assign) and isinstance(inst.value, ir.Expr) and inst.value.op == "call"
            ):
                continue
            call = inst.value
            if call.kws or call.vararg:
                continue
            fn = _resolve(func_ir, call.func)
            if fn is np.where and len(call.args) == 3:
                self.todo.append((inst, nx_where, list(call.args)))
            elif fn is np.clip and len(call.args) == 3:
                self.todo.append((inst, nx_clip, list(call.args)))
            elif isinstance(fn, tuple) and fn[1] == "astype" and len(call.args) == 1:
                self.todo.append((inst, nx_astype, [fn[2], call.args[0]]))
                self.dead_methods.add(call.func.name)
            elif isinstance(fn, tuple) and fn[1] == "copy" and not call.args:
                self.todo.append((inst, nx_copy, [fn[2]]))
                self.dead_methods.add(call.func.name)
            elif fn is np.copy and len(call.args) == 1:
                self.todo.append((inst, nx_copy, list(call.args)))
            elif fn is np.ascontiguousarray and len(call.args) == 1:
                self.todo.append((inst, nx_ascontiguousarray, list(call.args)))
            elif fn in SCANS and len(call.args) == 1:
                self.todo.append((inst, SCANS[fn], list(call.args)))
            elif fn is np.divmod and len(call.args) == 2:
                self.todo.append((inst, np.divmod, list(call.args)))
        return bool(self.todo)

    def apply(self):
        new = self.block.copy()
        new.clear()
        todo = {id(i): (f, a) for i, f, a in self.todo}
        for inst in self.block.body:
            if isinstance(inst, ir.Assign) and inst.target.name in self.dead_methods:
                # `x.astype` (the bound method) is no longer called: keep the name, drop the use of x
                c = ir.Const(None, inst.loc)
                inst = ir.Assign(c, inst.target, inst.loc)
                self.func_ir._definitions[inst.target.name] = [c]
            if id(inst) not in todo:
                new.append(inst)
                continue
            fn, args = todo[id(inst)]
            if fn is np.divmod:
                _emit_divmod(new, self.func_ir, args, inst.target, inst.loc)
            else:
                emit_call(new, self.func_ir, fn, args, inst.target, inst.loc)
        return new


def _emit_divmod(new_block, func_ir, args, target, loc) -> None:
    """`target = np.divmod(a, b)` as `target = (np.floor_divide(a, b), np.remainder(a, b))`, which
    NumPy defines it to be: two array expressions of the same operands, fused into one kernel."""
    scope = target.scope
    parts = []
    for ufunc in (np.floor_divide, np.remainder):
        part = ir.Var(scope, scope.redefine(f"$nx_{ufunc.__name__}", loc).name, loc)
        emit_call(new_block, func_ir, ufunc, args, part, loc)
        func_ir._definitions[part.name] = [new_block.body[-1].value]
        parts.append(part)
    tup = ir.Expr.build_tuple(parts, loc)
    new_block.append(ir.Assign(tup, target, loc))
    func_ir._definitions[target.name] = [tup]


@overload(abs)
def _ov_builtin_abs(a):
    """Python's abs() of a numba_ext array: np.abs (plain Numba has no abs() of arrays)."""
    if isinstance(a, USMArrayType):
        return lambda a: np.abs(a)
    return None
