"""Calls in kernel code, for the translator of ``kernel_translate.py``: ``range``, the kernel API
(work-item queries, barriers, local and private arrays, atomics), math functions, builtins, NumPy
scalar types and ufuncs on scalars, and ``@numba_ext.func`` device functions and jitted functions
(inlined)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
from numba.core import ir, types
from numba.core.dispatcher import OmittedArg
from numba.parfors.array_analysis import assert_equiv, wrap_index
from numba.parfors.parfor import (
    argmax_checker,
    argmin_checker,
    get_type_max_value,
    get_type_min_value,
    max_checker,
    min_checker,
)

from ..ir import complex_lowering
from ..ir.kernel_ir import Atomic, Barrier, BinaryInst, Imm, KernelSpec, Operand, Space, UnaryInst, WorkItem
from ..ir.spec_builder import COMPARISONS, UFUNC_OPS
from . import intrinsics, item_calls, kernel_views
from .call_binding import CallBinder
from .device_functions import DeviceFunction, typed_ir
from .function_builder import ArrayRef, Range, const
from .kernel_views import SliceVal, const_value
from .kernelspec import dtype_name
from .reduction_rewrite import nx_require_nonempty

if TYPE_CHECKING:
    from .kernel_translate import Translator

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
_HOST_CHECKS = {max_checker, min_checker, argmin_checker, argmax_checker, nx_require_nonempty}
_WORK_ITEMS = {f: f.__name__ for f in intrinsics.WORK_ITEM_FUNCTIONS}


def translate_call(tr: Translator, target: ir.Var, e: ir.Expr, t: types.Type) -> None:
    """Translate `target = e` where `e` is a call."""
    fn = tr.vals.get(e.func.name)
    args: list[ir.Var] = e.args
    if fn is not None and (isinstance(fn, DeviceFunction) or isinstance(tr.ty(e.func), types.Dispatcher)):
        # device functions and jitted functions (numba_ext.jit, numba.njit) are inlined
        if e.vararg:
            tr.fail(f"star arguments in a call of {fn.__name__}")
        formal = None
        if isinstance(fn, DeviceFunction) and fn.signatures is not None:
            if e.kws:
                tr.fail(f"keyword arguments in a call of {fn.__name__}, which has explicit signatures")
            formal = fn.formal_types(tuple(tr.ty(a) for a in args))
        if isinstance(fn, DeviceFunction) and fn.boundscheck:
            tr.fb.boundscheck_requested = True  # the kernel decides (compilation.translate_kernel)
        inline(tr, target, fn.py_func, args, dict(e.kws), formal)
        return
    if not e.vararg and item_calls.translate_call(tr, target, fn, args, dict(e.kws), t):
        return
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
    if _kernel_api(tr, fn, target, args, t) or _array_call(tr, fn, target, args):
        return
    res = dtype_name(t) if isinstance(t, (types.Number, types.Boolean)) else None
    if fn in (int, float, bool) and len(args) == 1 and res and isinstance(tr.vals.get(args[0].name), str):
        tr.vals[target.name] = const(res, fn(tr.vals[args[0].name]))  # float("inf"): a constant
        return
    if any(isinstance(tr.ty(a), types.Array) for a in args):
        tr.fail(f"calling {getattr(fn, '__name__', fn)!r} on an array")
    ops = [tr.scalar(a) for a in args]
    if complex_lowering.translate_call(tr, fn, target, ops, res):
        return
    if _math_or_builtin(tr, fn, target, args, ops, res):
        return
    if isinstance(fn, types.functions.NumberClass) or (
        isinstance(fn, type) and issubclass(fn, np.generic) and res
    ):
        tr.assign_scalar(target, ops[0])
        return
    if isinstance(fn, np.ufunc) and fn.__name__ in UFUNC_OPS and res and _ufunc(tr, target, e, fn, ops, res):
        return
    tr.fail(f"calling {getattr(fn, '__name__', fn)!r}")


def _math_or_builtin(
    tr: Translator, fn: Any, target: ir.Var, args: list[ir.Var], ops: list[Operand], res: str | None
) -> bool:
    """Math functions, min, max, abs and int / float / bool conversions of scalars (`ops`, of
    result dtype `res`); False for other calls."""
    if fn in _MATH1 and len(ops) == 1:
        comp = res if res in ("float32", "float64") else "float64"
        tmp, tmp_op = tr.new_value(comp)
        tr.emit(UnaryInst(tmp, _MATH1[fn], tr.cast(ops[0], comp)))
        tr.assign_scalar(target, tmp_op)
        return True
    if fn in _MATH2 and len(ops) == 2:
        comp = res if res in ("float32", "float64") else "float64"
        tmp, tmp_op = tr.new_value(comp)
        tr.emit(BinaryInst(tmp, _MATH2[fn], tr.cast(ops[0], comp), tr.cast(ops[1], comp)))
        tr.assign_scalar(target, tmp_op)
        return True
    if fn in (min, max) and len(ops) >= 2 and res:
        acc = tr.cast(ops[0], res)
        for o in ops[1:]:
            tmp, tmp_op = tr.new_value(res)
            tr.emit(BinaryInst(tmp, "min" if fn is min else "max", acc, tr.cast(o, res)))
            acc = tmp_op
        tr.assign_scalar(target, acc)
        return True
    if fn is abs and len(ops) == 1 and res:
        tmp, tmp_op = tr.new_value(res)
        # abs of a complex value is its magnitude (a real result), taken before any cast
        src = ops[0] if tr.fb.dtype_of(ops[0]).startswith("complex") else tr.cast(ops[0], res)
        tr.emit(UnaryInst(tmp, "abs", src))
        tr.assign_scalar(target, tmp_op)
        return True
    if fn in (int, float, bool) and len(args) == 1 and res:
        tr.assign_scalar(target, tr.scalar(args[0]))
        return True
    return False


def _kernel_api(tr: Translator, fn: Any, target: ir.Var, args: list[ir.Var], t: types.Type) -> bool:
    """Work-item queries, barriers, local and private arrays and atomics; False for other calls."""
    if fn in _WORK_ITEMS:
        d = tr.scalar(args[0])
        if not (isinstance(d, Imm) and isinstance(d.value, int) and 0 <= d.value <= 2):
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
        if adt == "float16":
            tr.fail(f"atomic.{op} on a float16 array (atomics take int32, int64, float32 and float64 arrays)")
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


def _array_call(tr: Translator, fn: Any, target: ir.Var, args: list[ir.Var]) -> bool:
    """slice(), len(), the index and size helpers of Numba's array analysis, and array expressions
    left inside a parallel loop's body (kernel_views.py); False for other calls."""
    if fn is slice:
        ops = [None if isinstance(tr.ty(a), (types.NoneType, types.Omitted)) else tr.scalar(a) for a in args]
        ops += [None] * (3 - len(ops))
        tr.vals[target.name] = SliceVal(*ops) if len(args) > 1 else SliceVal(None, ops[0], None)
        return True
    if fn is len and len(args) == 1 and isinstance(tr.ty(args[0]), types.Array):
        v = kernel_views.as_view(tr, tr.vals.get(args[0].name))
        if v is None:
            tr.fail(f"len() of {args[0].name}")
        tr.assign_scalar(target, kernel_views.shape(v)[0])
        return True
    if fn is wrap_index:  # NumPy's slice bound of an index against a length
        i, n = tr.cast(tr.scalar(args[0]), "int64"), tr.cast(tr.scalar(args[1]), "int64")
        neg = kernel_views.ibin(tr, "lt", i, const("int64", 0))
        shifted = kernel_views.select(tr, neg, kernel_views.ibin(tr, "add", i, n), i)
        zero = const("int64", 0)
        tr.assign_scalar(target, kernel_views.ibin(tr, "min", kernel_views.ibin(tr, "max", shifted, zero), n))
        return True
    if fn is assert_equiv or fn in _HOST_CHECKS:
        # shape and emptiness checks raise on the host; a kernel cannot raise: not checked
        tr.vals[target.name] = None
        return True
    if _dtype_helper(tr, fn, target, args):
        return True
    spec = getattr(fn, "_nx_spec", None)
    if isinstance(spec, KernelSpec):
        values = [
            tr.scalar(a) if isinstance(tr.ty(a), (types.Number, types.Boolean)) else tr.vals.get(a.name)
            for a in args
        ]
        tr.vals[target.name] = kernel_views.lazy(tr, spec, values)
        return True
    return False


def _dtype_helper(tr: Translator, fn: Any, target: ir.Var, args: list[ir.Var]) -> bool:
    """np.dtype('float64') and the type bounds Numba's parallel min/max start from, as constants."""
    if fn is np.dtype and len(args) == 1 and isinstance(tr.vals.get(args[0].name), str):
        tr.vals[target.name] = np.dtype(tr.vals[args[0].name])
        return True
    if fn in (get_type_min_value, get_type_max_value) and len(args) == 1:
        given = tr.vals.get(args[0].name)
        if not isinstance(given, (np.dtype, type, str)):
            tr.fail(f"{fn.__name__} of a value that is not a dtype")
        dt = np.dtype(given)
        lo = fn is get_type_min_value
        bound: float | int = (
            (-np.inf if lo else np.inf)
            if dt.kind == "f"
            else int(np.iinfo(dt).min if lo else np.iinfo(dt).max)
        )
        c = const(dt.name, bound)
        if tr.single_def(target):
            tr.vals[target.name] = c
        else:  # a variable that starts as this constant
            tr.assign_scalar(target, c)
        return True
    return False


def _ufunc(tr: Translator, target: ir.Var, e: ir.Expr, fn: np.ufunc, ops: list[Operand], res: str) -> bool:
    """A NumPy ufunc on scalars; False for ufuncs without a kernel form."""
    kind, name = UFUNC_OPS[fn.__name__]
    if kind == "square":
        kind, name, ops = "binary", "mul", [ops[0], ops[0]]
    elif kind == "identity":
        tr.assign_scalar(target, ops[0])
        return True
    elif kind in ("logical", "logical_not"):
        bs = [tr.cast(o, "bool") for o in ops]
        tmp, tmp_op = tr.new_value("bool")
        tr.emit(
            UnaryInst(tmp, "not", bs[0])
            if kind == "logical_not"
            else BinaryInst(tmp, str(name), bs[0], bs[1])
        )
        tr.assign_scalar(target, tmp_op)
        return True
    if kind not in ("unary", "binary") or name is None:
        return False
    comp = dtype_name(tr.calltypes[e].args[0]) if e in tr.calltypes else res
    if kind == "unary" and name not in ("neg", "abs", "not") and not comp.startswith(("float", "complex")):
        comp = "float64"
    if kind == "binary":
        complex_lowering.check_binary(name, comp)
    out = (
        "bool"
        if name in COMPARISONS
        else comp
        if kind == "binary"
        else complex_lowering.unary_result(name, comp)
    )
    tmp, tmp_op = tr.new_value(out)
    cast = [tr.cast(o, comp) for o in ops]
    tr.emit(UnaryInst(tmp, name, cast[0]) if kind == "unary" else BinaryInst(tmp, name, cast[0], cast[1]))
    tr.assign_scalar(target, tmp_op)
    return True


def inline(
    tr: Translator,
    target: ir.Var,
    py_func: Any,
    args: list[ir.Var],
    kws: dict[str, ir.Var],
    formal: tuple[types.Type, ...] | None = None,
) -> None:
    """Inline a call of `py_func` (a device function's or a jitted function's): its body continues
    in a new block that the call jumps to, and its returns jump to the block after the call. Keyword
    arguments bind by name; omitted parameters take their (scalar) defaults. `formal`: the argument
    types of the signature a device function with explicit signatures is called with."""
    bound = CallBinder(py_func).bind(args, kws)
    argtys = formal or tuple(types.Omitted(b.value) if isinstance(b, OmittedArg) else tr.ty(b) for b in bound)
    func_ir, typemap, calltypes, restype = typed_ir(py_func, argtys)
    values = [
        _default(tr, py_func, b.value) if isinstance(b, OmittedArg) else _arg_value(tr, b) for b in bound
    ]
    ret_local = tr.local_for(target) if isinstance(restype, (types.Number, types.Boolean)) else None
    cont = tr.fb.new_block()
    sub = type(tr)(tr.fb, func_ir, typemap, calltypes, arg_values=values, ret=(ret_local, cont))
    sub.translate(entry_block=tr.cur)
    tr.cur = cont


def _arg_value(tr: Translator, a: ir.Var) -> Any:
    return tr.scalar(a) if isinstance(tr.ty(a), (types.Number, types.Boolean)) else tr.vals.get(a.name)


def _default(tr: Translator, py_func: Any, value: object) -> Operand:
    if isinstance(value, (bool, int, float)):
        return const(
            "bool" if isinstance(value, bool) else "int64" if isinstance(value, int) else "float64", value
        )
    tr.fail(f"the non-scalar default {value!r} of a parameter of {py_func.__name__}")
