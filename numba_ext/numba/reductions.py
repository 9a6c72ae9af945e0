"""Reductions NumPy spells with extra structure: ``argmin/argmax``, reductions along one axis
(``a.sum(axis=1)``, ``np.argmax(a, axis=0)``, ...) and ``np.dot`` / ``@`` of 1-D and 2-D arrays.

A before-inference rewrite sends these calls to dispatch functions (``nx_reduce``, ``nx_dot``)
whose overloads call ``numba_ext.jit`` helpers on USM arrays (so they compile with the offload
pipeline: prange loops and whole-array reductions become kernels) and NumPy's own functions on host
arrays. The helpers are generated per (operation, rank, axis, result dtype, USM type): one work-item
per output element, a sequential loop along the reduced axis, indexing the input through its strides
(so slices with steps, negative strides and transposes work). Eager methods (``x.argmin(axis=1)``,
``x @ y``) call the same helpers, so the rules below are the one place these reductions are defined.
An after-inference check turns any other form of these calls on USM arrays (``out=``, ``keepdims=``,
``dtype=``, ...) into a compile-time UnsupportedError instead of host code reading device memory."""

from __future__ import annotations

import functools
import operator

import numpy as np
from numba import prange
from numba.core import ir, types
from numba.core.rewrites import Rewrite, register_rewrite
from numba.extending import overload
from numba.np import numpy_support

from .. import creation
from ..errors import ExecutionPlacementError, UnsupportedError
from .elementwise import emit_call, resolve_global
from .types import USMArrayType

WHOLE_OPS = ("sum", "prod", "min", "max", "mean", "any", "all")
REDUCTIONS = WHOLE_OPS + ("argmin", "argmax")
_ALIASES = {"amin": "min", "amax": "max"}
_REDUCTION_FUNCS = {getattr(np, name): name for name in REDUCTIONS} | {np.amin: "min", np.amax: "max"}
EMPTY_MESSAGES = {
    "min": "zero-size array to reduction operation minimum which has no identity",
    "max": "zero-size array to reduction operation maximum which has no identity",
    "argmin": "attempt to get argmin of an empty sequence",
    "argmax": "attempt to get argmax of an empty sequence",
}


# -- the rules (plain Python: used by the overloads and by the eager methods) ---------------------------
def result_dtype(op: str, dtype) -> np.dtype:
    """NumPy's result dtype of `op` over elements of `dtype` (sums of integers widen to 64 bits)."""
    dt = np.dtype(dtype)
    if op in ("argmin", "argmax"):
        return np.dtype(np.int64)
    if op in ("any", "all"):
        return np.dtype(np.bool_)
    if op == "mean":
        return dt if dt.kind == "f" else np.dtype(np.float64)
    if op in ("sum", "prod") and dt.kind in "biu":
        return np.dtype(np.uint64 if dt.kind == "u" else np.int64)
    return dt


def normalize_axis(axis: int, ndim: int) -> int:
    """`axis` in range(ndim) (negative counts from the end); NumPy's AxisError otherwise."""
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, (int, np.integer)):
        raise UnsupportedError(f"axis must be an integer or None on numba_ext arrays, got {axis!r}")
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(int(axis), ndim)
    return int(axis) % ndim


def dot_dtype(a, b) -> np.dtype:
    return np.result_type(np.dtype(a), np.dtype(b))


def check_dot_ndims(ndim_a: int, ndim_b: int, what: str = "np.dot") -> None:
    if not (1 <= ndim_a <= 2 and 1 <= ndim_b <= 2):
        raise UnsupportedError(
            f"{what} on numba_ext arrays supports 1-D and 2-D operands, got {ndim_a}-D and {ndim_b}-D "
            "(scalars: use *)"
        )


# -- generated numba_ext.jit helpers -------------------------------------------------------------------
def _compile(src: str, name: str):
    from ..jit import jit

    ns = {"np": np, "prange": prange, "numba_ext": __import__("numba_ext")}
    exec(compile(src, f"<numba_ext {name}>", "exec"), ns)
    return jit(ns[name])


def _nested_pranges(loops: list[tuple[str, str]], body: list[str]) -> list[str]:
    """`for <var> in prange(<bound>)` nested over `loops` around `body`: perfectly nested, so one
    parfor, one kernel and one work-item per combination."""
    lines, indent = [], "    "
    for var, bound in loops:
        lines.append(f"{indent}for {var} in prange({bound}):")
        indent += "    "
    return lines + [indent + b for b in body]


def _over(dims) -> list[tuple[str, str]]:
    return [(f"i{d}", f"a.shape[{d}]") for d in dims]


@functools.lru_cache(maxsize=None)
def whole_reducer(op: str):
    """`np.<op>(a)` over all elements of an array of any rank and layout, as a numba_ext.jit function."""
    lines = ["def reduce_all(a):"]
    if op in EMPTY_MESSAGES:
        lines += ["    if a.size == 0:", f"        raise ValueError({EMPTY_MESSAGES[op]!r})"]
    lines.append(f"    return np.{op}(a)")
    return _compile("\n".join(lines), "reduce_all")


@functools.lru_cache(maxsize=None)
def arg_reducer(kind: str, ndim: int):
    """np.arg<kind>(a) of an `ndim`-d array of any layout: the flat C-order index of the first extreme
    element (or of the first NaN, as NumPy)."""
    dims = list(range(ndim))
    flat = "i0"
    for d in dims[1:]:
        flat = f"({flat}) * d{d} + i{d}"
    body = [
        f"v = a[{', '.join(f'i{d}' for d in dims)}]",
        "hit = (v != v) if nan else (v == m)",
        "if hit:",
        f"    best = min(best, {flat})",
    ]
    src = "\n".join([
        "def arg_reduce(a):",
        "    size = a.size",
        "    if size == 0:",
        f"        raise ValueError({EMPTY_MESSAGES['arg' + kind]!r})",
        *[f"    d{d} = a.shape[{d}]" for d in dims[1:]],
        f"    m = np.{kind}(a)",
        "    nan = m != m  # NumPy returns the first NaN",
        "    best = size",
        *_nested_pranges(_over(dims), body),
        "    return best",
    ])
    return _compile(src, "arg_reduce")


_AXIS_BODIES = {
    # op: (initial value, loop start, step, result); `x` is the element, `s` the accumulator
    "sum": ("np.{acc}(0)", 0, ["s += x"], "s"),
    "prod": ("np.{acc}(1)", 0, ["s *= x"], "s"),
    "mean": ("np.{acc}(0)", 0, ["s += x"], "s / n"),
    "min": ("FIRST", 1, ["if (x < s) | (x != x):", "    s = x"], "s"),  # NaN propagates
    "max": ("FIRST", 1, ["if (x > s) | (x != x):", "    s = x"], "s"),
    # arg*: strict comparisons keep the first of equal values; once `s` is NaN it stays (the first NaN)
    "argmin": ("FIRST", 1, ["if ((x < s) | (x != x)) & (s == s):", "    s = x", "    b = k"], "b"),
    "argmax": ("FIRST", 1, ["if ((x > s) | (x != x)) & (s == s):", "    s = x", "    b = k"], "b"),
    "any": ("False", 0, ["if x != 0:", "    s = True"], "s"),
    "all": ("True", 0, ["if x == 0:", "    s = False"], "s"),
}


@functools.lru_cache(maxsize=None)
def axis_reducer(op: str, ndim: int, axis: int, out_dtype: str, usm_type: str):
    """`np.<op>(a, axis=axis)` for an `ndim`-d array (ndim >= 2) of any layout, as a numba_ext.jit
    function: one work-item per output element, a sequential loop along `axis`."""
    keep = [d for d in range(ndim) if d != axis]
    index = ", ".join("k" if d == axis else f"i{d}" for d in range(ndim))
    first = ", ".join("0" if d == axis else f"i{d}" for d in range(ndim))
    init, start, step, final = _AXIS_BODIES[op]
    # sums accumulate in the result type, as NumPy does
    init = f"a[{first}]" if init == "FIRST" else init.format(acc=out_dtype)
    body = ["s = " + init, *(["b = 0"] if op.startswith("arg") else []),
            f"for k in range({start}, n):", f"    x = a[{index}]", *["    " + s for s in step],
            f"out[{', '.join(f'i{d}' for d in keep)}] = {final}"]
    lines = ["def reduce_axis(a):", f"    n = a.shape[{axis}]"]
    if op in EMPTY_MESSAGES:
        lines += ["    if n == 0:", f"        raise ValueError({EMPTY_MESSAGES[op]!r})"]
    shape = "(" + "".join(f"a.shape[{d}], " for d in keep) + ")"
    lines.append(f"    out = numba_ext.empty({shape}, np.{out_dtype}, usm_type={usm_type!r})")
    lines += _nested_pranges(_over(keep), body)
    lines.append("    return out")
    return _compile("\n".join(lines), "reduce_axis")


def _shape_expr(var: str, ndim: int) -> str:
    """Numba source spelling `var`'s shape as NumPy prints it: '(3,4)', '(5,)'."""
    dims = ' + "," + '.join(f"str({var}.shape[{d}])" for d in range(ndim))
    return f'"(" + {dims} + "{"," if ndim == 1 else ""})"'


@functools.lru_cache(maxsize=None)
def dot_function(ndim_a: int, ndim_b: int, out_dtype: str, usm_type: str, what: str = "np.dot"):
    """`np.dot(a, b)` of 1-D/2-D arrays as a numba_ext.jit function. Vector . vector is one fused
    reduction kernel; otherwise one work-item per output element loops over the shared dimension.
    Products accumulate in the result type (integers wrap as in NumPy); booleans count, then test."""
    check_dot_ndims(ndim_a, ndim_b, what)
    k = ndim_a - 1  # the contracted dimension of `a` (that of `b` is 0)
    boolean = out_dtype == "bool"
    lines = [
        "def dot(a, b):",
        f"    if a.shape[{k}] != b.shape[0]:",
        f"        raise ValueError({what + ': shapes '!r} + {_shape_expr('a', ndim_a)} + ' and ' + "
        f"{_shape_expr('b', ndim_b)} + ' not aligned: ' + str(a.shape[{k}]) + ' (dim {k}) != ' + "
        "str(b.shape[0]) + ' (dim 0)')",
    ]
    if ndim_a == ndim_b == 1:
        total = "np.sum(a * b)"
        lines.append(f"    return {total} != 0" if boolean else f"    return np.{out_dtype}({total})")
        return _compile("\n".join(lines), "dot")
    loops = [("i", "a.shape[0]")] * (ndim_a == 2) + [("j", "b.shape[1]")] * (ndim_b == 2)
    body = [
        f"s = np.{'int64' if boolean else out_dtype}(0)",
        f"for p in range(a.shape[{k}]):",
        f"    s += a[{'i, p' if ndim_a == 2 else 'p'}] * b[{'p, j' if ndim_b == 2 else 'p'}]",
        f"out[{', '.join(v for v, _ in loops)}] = {'s != 0' if boolean else 's'}",
    ]
    shape = "(" + "".join(f"{n}, " for _, n in loops) + ")"
    lines.append(f"    out = numba_ext.empty({shape}, np.{out_dtype}, usm_type={usm_type!r})")
    lines += _nested_pranges(loops, body)
    lines.append("    return out")
    return _compile("\n".join(lines), "dot")


# -- dispatch functions the rewrite calls, and their overloads -----------------------------------------
def nx_reduce(a, op, axis):
    return getattr(np, op)(a, axis=axis)


def nx_dot(a, b):
    return np.dot(a, b)


def nx_matmul(a, b):
    return a @ b


def _host_impl(op: str, with_axis: bool):
    fn = getattr(np, op)
    if with_axis:
        return lambda a, op, axis: fn(a, axis=axis)
    return lambda a, op, axis: fn(a)


_HOST_REDUCE = {(op, w): _host_impl(op, w) for op in REDUCTIONS for w in (True, False)}


def _np_dot(a, b):
    return np.dot(a, b)


def _np_matmul(a, b):
    return a @ b


_NOT_REWRITTEN = {_np_dot, _np_matmul, *_HOST_REDUCE.values()}


def _usm(*ts):
    return any(isinstance(t, USMArrayType) for t in ts)


def _as_np(dt) -> np.dtype:
    return numpy_support.as_dtype(dt)


@overload(nx_reduce, prefer_literal=True)
def _ov_reduce(a, op, axis):
    if not isinstance(op, types.StringLiteral):
        return None
    name = op.literal_value
    if not _usm(a):
        return _HOST_REDUCE[name, not isinstance(axis, (types.NoneType, types.Omitted))]
    whole = isinstance(axis, (types.NoneType, types.Omitted))
    if not whole and not isinstance(axis, types.IntegerLiteral):
        raise UnsupportedError(
            f"{name}(axis=...) on numba_ext arrays needs a constant integer axis (or None), got {axis}"
        )
    ax = None if whole else normalize_axis(axis.literal_value, a.ndim)
    if whole or a.ndim == 1:
        h = (arg_reducer(name[3:], a.ndim) if name.startswith("arg") else whole_reducer(name))._dispatcher
        return lambda a, op, axis: h(a)
    h = axis_reducer(name, a.ndim, ax, result_dtype(name, _as_np(a.dtype)).name, a.usm_type)._dispatcher
    return lambda a, op, axis: h(a)


def _dot_overload(what, host_impl):
    def ov(a, b):
        if not _usm(a, b):
            return host_impl
        if not (isinstance(a, types.Array) and isinstance(b, types.Array)):
            raise UnsupportedError(
                f"{what} on numba_ext arrays needs two arrays, got {a} and {b} (scalars: use *)"
            )
        if not (isinstance(a, USMArrayType) and isinstance(b, USMArrayType)):
            raise ExecutionPlacementError(
                f"{what} mixes a numba_ext array with a NumPy array; the queue of the NumPy data cannot be "
                "inferred (compute follows data). Convert it with numba_ext.asarray(x, "
                "sycl_queue=<the array's queue>)"
            )
        if a.device != b.device:
            raise ExecutionPlacementError(
                f"{what} combines arrays on different devices {a.device!r} and {b.device!r}"
            )
        from ..cfd import coerce_usm_types

        dtype = dot_dtype(_as_np(a.dtype), _as_np(b.dtype)).name
        h = dot_function(a.ndim, b.ndim, dtype,
                         coerce_usm_types([a.usm_type, b.usm_type]), what)._dispatcher
        return lambda a, b: h(a, b)

    return ov


overload(nx_dot)(_dot_overload("np.dot", _np_dot))
overload(nx_matmul)(_dot_overload("matmul", _np_matmul))


# -- the rewrites --------------------------------------------------------------------------------------
def _method(func_ir, var):
    """(attribute, object) when `var` is a method access like `x.sum`, else None."""
    try:
        d = func_ir.get_definition(var)
    except Exception:  # no single definition (a phi, a parameter, ...)
        return None
    if isinstance(d, ir.Expr) and d.op == "getattr" and resolve_global(func_ir, var) is None:
        return d.attr, d.value
    return None


def _reduction_call(func_ir, call):
    """(op, array var, axis var or None, has_axis) for the forms we offload, else None."""
    kws = dict(call.kws)
    if call.vararg or set(kws) - {"axis"}:
        return None
    fn = resolve_global(func_ir, call.func)
    if fn in _REDUCTION_FUNCS:
        op, args = _REDUCTION_FUNCS[fn], list(call.args)
    else:
        m = _method(func_ir, call.func)
        if m is None or m[0] not in REDUCTIONS:
            return None
        op, args = m[0], [m[1], *call.args]
    if not args or len(args) > 2 or (len(args) == 2 and "axis" in kws):
        return None
    axis = kws.get("axis", args[1] if len(args) == 2 else None)
    if axis is None and op in WHOLE_OPS:
        return None  # whole-array reductions: parfors (numba_ext.jit) or host code (plain numba.njit)
    return op, args[0], axis


@register_rewrite("before-inference")
class RewriteReductions(Rewrite):
    """np.<op>(x, axis=k), np.<op>(x, k), x.<op>(axis=k), x.<op>(k) for the reductions above,
    np.argmin/argmax(x), x.argmin/argmax(), np.dot(a, b), np.matmul(a, b) and a @ b -> the
    dispatch functions above."""

    def match(self, func_ir, block, typemap, calltypes):
        self.func_ir, self.block, self.todo = func_ir, block, []
        if func_ir.func_id.func in _NOT_REWRITTEN:
            return False
        for inst in block.body:
            if not (isinstance(inst, ir.Assign) and isinstance(inst.value, ir.Expr)):
                continue
            e = inst.value
            if e.op == "binop" and e.fn is operator.matmul:
                self.todo.append((inst, nx_matmul, [e.lhs, e.rhs], None))
                continue
            if e.op != "call":
                continue
            if not e.kws and not e.vararg:
                fn = resolve_global(func_ir, e.func)
                m = _method(func_ir, e.func)
                if fn in (np.dot, np.matmul) and len(e.args) == 2:
                    self.todo.append((inst, nx_dot if fn is np.dot else nx_matmul, list(e.args), None))
                    continue
                if m is not None and m[0] == "dot" and len(e.args) == 1:
                    self.todo.append((inst, nx_dot, [m[1], e.args[0]], None))
                    continue
            r = _reduction_call(func_ir, e)
            if r is not None:
                self.todo.append((inst, nx_reduce, [r[1]], (r[0], r[2])))
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
                op, axis = extra
                args = list(args)
                for value, hint in ((op, "$nx_op"), (None, "$nx_axis")):
                    if hint == "$nx_axis" and axis is not None:
                        args.append(axis)
                        continue
                    v = ir.Var(scope, scope.redefine(hint, loc).name, loc)
                    c = ir.Const(value, loc)
                    new.append(ir.Assign(c, v, loc))
                    self.func_ir._definitions[v.name] = [c]
                    args.append(v)
            emit_call(new, self.func_ir, fn, args, inst.target, loc)
        return new


@register_rewrite("after-inference")
class CheckReductions(Rewrite):
    """The forms of these reductions the rewrite above left alone (``out=``, ``keepdims=``,
    ``dtype=``, ``initial=``, a tuple of axes, ...) would run as host code reading USM memory:
    on numba_ext arrays they are a compile-time UnsupportedError naming the call and the line."""

    def match(self, func_ir, block, typemap, calltypes):
        if typemap is None:
            return False
        for inst in block.body:
            call = inst.value if isinstance(inst, ir.Assign) else None
            if not (isinstance(call, ir.Expr) and call.op == "call"):
                continue
            fn = resolve_global(func_ir, call.func)
            if fn in _REDUCTION_FUNCS or fn in (np.dot, np.matmul, np.vdot, np.inner, np.tensordot):
                op, name, operands = fn.__name__, f"np.{fn.__name__}", [*call.args, *(v for _, v in call.kws)]
            else:
                m = _method(func_ir, call.func)
                if m is None or m[0] not in REDUCTIONS + ("dot",):
                    continue
                op, name, operands = m[0], f"x.{m[0]}", [m[1], *call.args, *(v for _, v in call.kws)]
            if not any(isinstance(typemap.get(getattr(v, "name", None)), USMArrayType) for v in operands):
                continue
            if not call.kws and not call.vararg and len(operands) == 1 and _ALIASES.get(op, op) in WHOLE_OPS:
                continue  # a whole-array reduction
            given = ", ".join(["..."] * len(call.args) + [f"{k}=..." for k, _ in call.kws])
            raise UnsupportedError(
                f"{name}({given}) on numba_ext arrays is not supported (line {inst.loc.line}); supported: "
                "np.<op>(x) / x.<op>() and np.<op>(x, axis=<constant int>) for sum prod min max mean any all "
                "argmin argmax, np.dot / np.matmul / @ of two 1-D or 2-D arrays"
            )
        return False

    def apply(self):  # pragma: no cover - match() never asks for it
        raise AssertionError


_ = creation  # numba_ext.empty is used by the generated helpers
