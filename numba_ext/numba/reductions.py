"""Reductions: ``sum prod min max mean any all argmin argmax`` over all elements or along one axis
(``a.sum(axis=1)``, ``np.argmax(a, axis=k)``), and ``np.dot`` / ``np.matmul`` / ``@`` / ``a.dot(b)``
of 1-D and 2-D arrays.

A before-inference rewrite sends these calls to dispatch functions (one per reduction and call form,
``nx_dot``, ``nx_matmul``) whose overloads call ``numba_ext.jit`` helpers on USM arrays (compiled with
the offload pipeline, so their prange loops and whole-array reductions become kernels) and the call
as written on anything else. The helpers are generated per (operation, rank, result dtype, USM type):
an axis reduction moves the (run-time) axis last with a transposed view and runs one work-item per
output element with a sequential loop along the axis, reading through the strides, so slices with
steps, negative strides and transposes work; one compilation per input type serves every axis.
Eager methods (``x.argmin(axis=1)``, ``x @ y``) call the same helpers, so this module is the one
place these reductions are defined. Whole-array reductions stay parfors in ``numba_ext.jit`` code
(with a size check before min/max) and go to the helpers in plain ``numba.njit`` code. Any other form
of these calls on USM arrays (``out=``, ``keepdims=``, ``dtype=``, ...) is a compile-time
UnsupportedError instead of host code reading device memory."""

from __future__ import annotations

import functools
import operator

import numba
import numpy as np
from numba import prange
from numba.core import ir, types
from numba.core.compiler_machinery import FunctionPass, register_pass
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


def _parallel_loops(loops: list[tuple[str, str]], body: list[str]) -> list[str]:
    """Source running `body` for every combination of the index variables `loops` ((name, bound)
    pairs): one flat prange over the product of the bounds, unravelled in C order, so one kernel
    with one work-item per combination (a nested prange would run sequentially inside the kernel).
    `t`, the flat index, is the C-order position of the combination."""
    lines = [f"    nx_n{j} = {bound}" for j, (_, bound) in enumerate(loops)]
    lines.append(f"    for t in prange({' * '.join(f'nx_n{j}' for j in range(len(loops)))}):")
    rest = "t"  # each step a new name: reassigning one would count as overwriting the loop index
    for j in reversed(range(1, len(loops))):
        lines += [f"        {loops[j][0]} = {rest} % nx_n{j}", f"        nx_q{j} = {rest} // nx_n{j}"]
        rest = f"nx_q{j}"
    lines.append(f"        {loops[0][0]} = {rest}")
    return lines + ["        " + b for b in body]


# Numba's parallel min/max reductions fail on booleans (parfor.py: lower_get_type_min_value); for
# booleans they are all/any.
_BOOL_EXTREMES = {"min": "all", "max": "any"}


def whole_function(op: str, ndim: int, dtype, contiguous: bool):
    """The numba_ext.jit function computing `np.<op>(a)` over all elements of an `ndim`-d array of
    `dtype`: a scalar, raising NumPy's ValueError for min/max/argmin/argmax of nothing. C-contiguous
    arrays (`contiguous`) are read as one flat run, which saves unravelling N-D indices."""
    boolean = np.dtype(dtype) == np.bool_
    flat = contiguous and ndim > 1
    if op.startswith("arg"):
        return arg_reducer(op[3:], 1 if flat else ndim, boolean, flat)
    empty_message = EMPTY_MESSAGES.get(op)  # NumPy's error for min/max of nothing, booleans too
    op = _BOOL_EXTREMES.get(op, op) if boolean else op
    if op in ("any", "all"):
        return anyall_reducer(op, 1 if flat else ndim, flat, empty_message)
    if op == "mean":
        return mean_reducer(result_dtype("mean", dtype).name, 1 if flat else ndim, flat)
    return whole_reducer(op, EMPTY_MESSAGES.get(op), flat)


def _flatten(flat: bool) -> list[str]:
    return ["    a = a.reshape(a.size)"] if flat else []


@functools.cache
def whole_reducer(op: str, empty_message: str | None, flat: bool):
    lines = ["def reduce_all(a):"]
    if empty_message:
        lines += ["    if a.size == 0:", f"        raise ValueError({empty_message!r})"]
    lines += [*_flatten(flat), f"    return np.{op}(a)"]
    return _compile("\n".join(lines), "reduce_all")


@functools.cache
def mean_reducer(out_dtype: str, ndim: int, flat: bool):
    """np.mean(a) of an `ndim`-d array: a device sum over the size, in NumPy's result type. As NumPy,
    integers are summed in float64 (an int64 sum would wrap) and float32 in float32; an empty array
    gives NaN (where Numba's own mean divides by zero)."""
    acc = "float32" if out_dtype == "float32" else "float64"
    index = ", ".join(f"i{d}" for d in range(ndim))
    src = "\n".join(
        [
            "def reduce_mean(a):",
            "    if a.size == 0:",
            f"        return np.{out_dtype}(np.nan)",
            *_flatten(flat),
            f"    s = np.{acc}(0)",
            *_parallel_loops(
                [(f"i{d}", f"a.shape[{d}]") for d in range(ndim)], [f"s += np.{acc}(a[{index}])"]
            ),
            f"    return np.{out_dtype}(s / a.size)",
        ]
    )
    return _compile(src, "reduce_mean")


@functools.cache
def anyall_reducer(op: str, ndim: int, flat: bool, empty_message: str | None = None):
    """np.any / np.all of an `ndim`-d array of any layout as one prange max / min reduction: Numba's
    parfor pass leaves np.any / np.all to host code, which must not read device memory. (Also
    min / max of booleans, which raise `empty_message` for an empty array.)"""
    index = ", ".join(f"i{d}" for d in range(ndim))
    fold = "max" if op == "any" else "min"
    check = ["    if a.size == 0:", f"        raise ValueError({empty_message!r})"] if empty_message else []
    src = "\n".join(
        [
            "def reduce_anyall(a):",
            *check,
            *_flatten(flat),
            f"    s = {0 if op == 'any' else 1}",
            *_parallel_loops(
                [(f"i{d}", f"a.shape[{d}]") for d in range(ndim)],
                [f"s = {fold}(s, 1 if a[{index}] != 0 else 0)"],
            ),
            "    return s > 0",
        ]
    )
    return _compile(src, "reduce_anyall")


@functools.cache
def arg_reducer(kind: str, ndim: int, boolean: bool, flat: bool):
    """np.arg<kind>(a) of an `ndim`-d array of any layout (`flat`: a C-contiguous one, reshaped to
    1-D): the flat C-order index of the first extreme element (or of the first NaN, as NumPy)."""
    index = ", ".join(f"i{d}" for d in range(ndim))
    # `t` is the flat C-order index of a[i0, i1, ...]
    body = [f"v = a[{index}]", "hit = (v != v) if nan else (v == m)", "if hit:", "    best = min(best, t)"]
    src = "\n".join(
        [
            "def arg_reduce(a):",
            "    size = a.size",
            "    if size == 0:",
            f"        raise ValueError({EMPTY_MESSAGES['arg' + kind]!r})",
            *_flatten(flat),
            f"    m = np.{_BOOL_EXTREMES[kind] if boolean else kind}(a)",
            "    nan = m != m  # NumPy returns the first NaN",
            "    best = size",
            *_parallel_loops([(f"i{d}", f"a.shape[{d}]") for d in range(ndim)], body),
            "    return best",
        ]
    )
    return _compile(src, "arg_reduce")


_AXIS_BODIES = {
    # op: (initial value, loop start, step, result); `x` is the element, `s` the accumulator
    "sum": ("np.{acc}(0)", 0, ["s += x"], "s"),
    "prod": ("np.{acc}(1)", 0, ["s *= x"], "s"),
    "mean": ("np.{acc}(0)", 0, ["s += x"], "s / n if n != 0 else np.nan"),
    "min": ("FIRST", 1, ["if (x < s) | (x != x):", "    s = x"], "s"),  # NaN propagates
    "max": ("FIRST", 1, ["if (x > s) | (x != x):", "    s = x"], "s"),
    # arg*: strict comparisons keep the first of equal values; once `s` is NaN it stays (the first NaN)
    "argmin": ("FIRST", 1, ["if ((x < s) | (x != x)) & (s == s):", "    s = x", "    b = k"], "b"),
    "argmax": ("FIRST", 1, ["if ((x > s) | (x != x)) & (s == s):", "    s = x", "    b = k"], "b"),
    "any": ("False", 0, ["if x != 0:", "    s = True"], "s"),
    "all": ("True", 0, ["if x == 0:", "    s = False"], "s"),
}


@functools.cache
def axis_reducer(op: str, ndim: int, out_dtype: str, usm_type: str):
    """`np.<op>(a, axis=axis)` for an `ndim`-d array (ndim >= 2) of any layout, as a numba_ext.jit
    function of (a, axis) with 0 <= axis < ndim a run-time value: a view with `axis` moved last
    (a transpose: no copy), then one work-item per output element and a sequential loop along it.
    One compilation per input type serves every axis."""
    keep = range(ndim - 1)
    perm = ", ".join([f"{j} if {j} < axis else {j + 1}" for j in keep] + ["axis"])
    outer = ", ".join(f"i{j}" for j in keep)
    init, start, step, final = _AXIS_BODIES[op]
    # sums accumulate in the result type, as NumPy does
    init = f"v[{outer}, 0]" if init == "FIRST" else init.format(acc=out_dtype)
    body = [
        "s = " + init,
        *(["b = 0"] if op.startswith("arg") else []),
        f"for k in range({start}, n):",
        f"    x = v[{outer}, k]",
        *["    " + s for s in step],
        f"out[{outer}] = {final}",
    ]
    lines = ["def reduce_axis(a, axis):", f"    v = a.transpose(({perm}))", f"    n = v.shape[{ndim - 1}]"]
    if op in EMPTY_MESSAGES:
        lines += ["    if n == 0:", f"        raise ValueError({EMPTY_MESSAGES[op]!r})"]
    shape = "(" + "".join(f"v.shape[{j}], " for j in keep) + ")"
    lines.append(f"    out = numba_ext.empty({shape}, np.{out_dtype}, usm_type={usm_type!r})")
    lines += _parallel_loops([(f"i{j}", f"v.shape[{j}]") for j in keep], body)
    lines.append("    return out")
    return _compile("\n".join(lines), "reduce_axis")


def _shape_expr(var: str, ndim: int) -> str:
    """Numba source spelling `var`'s shape as NumPy prints it: '(3,4)', '(5,)'."""
    dims = ' + "," + '.join(f"str({var}.shape[{d}])" for d in range(ndim))
    return f'"(" + {dims} + "{"," if ndim == 1 else ""})"'


@functools.cache
def dot_function(ndim_a: int, ndim_b: int, out_dtype: str, usm_type: str):
    """`np.dot(a, b)` of 1-D/2-D arrays as a numba_ext.jit function. Vector . vector is a
    whole-array sum of the product; otherwise one work-item per output element loops over the
    shared dimension. Products accumulate in the result type (integers wrap as in NumPy); booleans
    count, then test."""
    check_dot_ndims(ndim_a, ndim_b)
    k = ndim_a - 1  # the contracted dimension of `a` (that of `b` is 0)
    boolean = out_dtype == "bool"
    lines = [
        "def dot(a, b):",
        f"    if a.shape[{k}] != b.shape[0]:",
        f"        raise ValueError('shapes ' + {_shape_expr('a', ndim_a)} + ' and ' + "
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
    lines += _parallel_loops(loops, body)
    lines.append("    return out")
    return _compile("\n".join(lines), "dot")


# -- dispatch functions the rewrite calls, and their overloads -----------------------------------------
def nx_dot(a, b):
    return np.dot(a, b)


def nx_matmul(a, b):
    return a @ b


def nx_method_dot(a, b):
    return a.dot(b)


def _np_dot(a, b):
    return np.dot(a, b)


def _np_method_dot(a, b):
    return a.dot(b)


def _np_matmul(a, b):
    return a @ b


def _usm(*ts):
    return any(isinstance(t, USMArrayType) for t in ts)


def _as_np(dt) -> np.dtype:
    return numpy_support.as_dtype(dt)


def _no_axis(axis) -> bool:
    return isinstance(axis, (types.NoneType, types.Omitted))


def _usm_reduce(name: str, a, axis):
    """The implementation of np.<name>(a, axis=axis) for a USM array `a` (an axis of any integer
    type is a run-time value: one compilation serves every axis)."""
    if _no_axis(axis):
        h = whole_function(name, a.ndim, _as_np(a.dtype), a.layout == "C")._dispatcher
        return lambda a, axis: h(a)
    if not isinstance(axis, types.Integer):
        raise UnsupportedError(
            f"{name}(axis=...) on numba_ext arrays needs one integer axis (or None), got {axis}"
        )
    nd, axis_error = a.ndim, np.exceptions.AxisError
    if nd == 1:  # NumPy gives a scalar: the whole-array reduction
        h = whole_function(name, 1, _as_np(a.dtype), a.layout == "C")._dispatcher

        def impl(a, axis):
            if axis < -1 or axis >= 1:
                raise axis_error(axis, 1)
            return h(a)

        return impl
    h = axis_reducer(name, nd, result_dtype(name, _as_np(a.dtype)).name, a.usm_type)._dispatcher

    def impl(a, axis):
        if axis < -nd or axis >= nd:
            raise axis_error(axis, nd)
        return h(a, axis + nd if axis < 0 else axis)

    return impl


def _dispatch_function(name: str, method: bool):
    """The function the rewrite calls for np.<name>(a, axis) (or a.<name>(axis) when `method`), its
    overload, and the host implementations: the call as written, for data that is not ours (NumPy
    arrays, other objects with such methods)."""
    call = f"a.{name}(" if method else f"np.{name}(a, "
    fname = f"nx_{'method_' if method else ''}{name}"
    ns = {"np": np, "__name__": __name__}  # functions of this module (host_access trusts numba_ext's)
    exec(
        f"def {fname}(a, axis):\n    return {call}axis=axis)\n"
        f"def host_axis(a, axis):\n    return {call}axis=axis)\n"
        f"def host_all(a, axis):\n    return {call.rstrip(', ')})\n",
        ns,
    )
    host_axis, host_all = ns["host_axis"], ns["host_all"]

    def ov(a, axis):
        if not _usm(a):
            return host_all if _no_axis(axis) else host_axis
        return _usm_reduce(name, a, axis)

    overload(ns[fname])(ov)
    return ns[fname], (host_axis, host_all)


_DISPATCH, _HOST_IMPLS = {}, set()
for _name in REDUCTIONS:
    for _method_form in (False, True):
        _DISPATCH[_name, _method_form], _impls = _dispatch_function(_name, _method_form)
        _HOST_IMPLS.update(_impls)
del _name, _method_form, _impls
_NOT_REWRITTEN = frozenset({_np_dot, _np_matmul, _np_method_dot, *_HOST_IMPLS})


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
        h = dot_function(a.ndim, b.ndim, dtype, coerce_usm_types([a.usm_type, b.usm_type]))._dispatcher
        return lambda a, b: h(a, b)

    return ov


overload(nx_dot)(_dot_overload("np.dot", _np_dot))
overload(nx_method_dot)(_dot_overload("x.dot", _np_method_dot))
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
    """(op, array var, axis var or None) for np.<op>(x[, axis]) and x.<op>([axis]), else None."""
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
        op, args = "x." + m[0], [m[1], *call.args]
    if not args or len(args) > 2 or (len(args) == 2 and "axis" in kws):
        return None
    return op, args[0], kws.get("axis", args[1] if len(args) == 2 else None)


def nx_require_nonempty(a, op):
    if a.size == 0:
        raise ValueError(EMPTY_MESSAGES[op])


@overload(nx_require_nonempty, prefer_literal=True)
def _ov_require_nonempty(a, op):
    if not isinstance(op, types.StringLiteral):
        return None
    if not isinstance(a, types.Array):
        return lambda a, op: None
    message = EMPTY_MESSAGES[op.literal_value]

    def impl(a, op):
        if a.size == 0:
            raise ValueError(message)

    return impl


def _parallel(state) -> bool:
    """Whether this compilation turns NumPy reductions into parfors (numba_ext.jit's pipeline); the
    IR Numba builds to inline a closure comes with no flags: treat it as unchanged."""
    flags = getattr(state, "flags", None)
    return flags is None or flags.auto_parallel.enabled


@register_rewrite("before-inference")
class RewriteReductions(Rewrite):
    """np.<op>(x, axis=k), np.<op>(x, k), x.<op>(axis=k), x.<op>(k) for the reductions above,
    np.argmin/argmax(x), x.argmin/argmax(), np.dot(a, b), x.dot(b), np.matmul(a, b) and a @ b -> the
    dispatch functions above. Whole-array reductions (np.sum(x), x.max(), ...) go there too in
    pipelines without parfors (plain numba.njit), so they run on the device; with parfors
    (numba_ext.jit) they stay parfors, and min/max get a size check first, as Numba's parallel
    np.min/np.max only check len() and gave +-inf for N-D arrays with no elements."""

    def __init__(self, state):
        super().__init__(state)
        self.parallel = _parallel(state)
        self.guarded = set()  # the whole-array min/max calls given a check (ids of their IR nodes)

    def match(self, func_ir, block, typemap, calltypes):
        self.func_ir, self.block, self.todo, self.rebind = func_ir, block, [], {}
        if func_ir.func_id.func in _NOT_REWRITTEN:
            return False
        for inst in block.body:
            if not (isinstance(inst, ir.Assign) and isinstance(inst.value, ir.Expr)):
                continue
            e = inst.value
            if e.op == "binop" and e.fn is operator.matmul:
                self.todo.append((inst, nx_matmul, [e.lhs, e.rhs], False))
                continue
            if e.op != "call":
                continue
            if not e.kws and not e.vararg:
                fn = resolve_global(func_ir, e.func)
                m = _method(func_ir, e.func)
                if fn in (np.dot, np.matmul) and len(e.args) == 2:
                    self.todo.append((inst, nx_dot if fn is np.dot else nx_matmul, list(e.args), False))
                    if fn is np.matmul:  # Numba cannot type the (then unused) np.matmul: rebind it
                        self.rebind[e.func.name] = nx_matmul
                    continue
                if m is not None and m[0] == "dot" and len(e.args) == 1:
                    self.todo.append((inst, nx_method_dot, [m[1], e.args[0]], False))
                    continue
            r = _reduction_call(func_ir, e)
            if r is None:
                continue
            op, array, axis = r
            name = op.removeprefix("x.")
            # Numba's parfor pass turns whole-array sum/prod/min/max/mean into device loops, but not
            # any/all (they would run as host code, which buffer memory cannot serve)
            if axis is not None or name not in WHOLE_OPS or not self.parallel or name in ("any", "all"):
                self.todo.append((inst, _DISPATCH[name, op.startswith("x.")], [array, axis], False))
            elif name in EMPTY_MESSAGES and id(e) not in self.guarded:
                self.guarded.add(id(e))
                self.todo.append((inst, nx_require_nonempty, [array, name], True))
        return bool(self.todo)

    def apply(self):
        new = self.block.copy()
        new.clear()
        todo = {id(i): rest for i, *rest in self.todo}
        for inst in self.block.body:
            if isinstance(inst, ir.Assign) and inst.target.name in self.rebind:
                g = ir.Global("nx_matmul", self.rebind[inst.target.name], inst.loc)
                inst = ir.Assign(g, inst.target, inst.loc)
                self.func_ir._definitions[inst.target.name] = [g]
            if id(inst) not in todo:
                new.append(inst)
                continue
            fn, args, keep = todo[id(inst)]
            scope, loc = inst.target.scope, inst.loc
            vars_ = []
            for a in args:  # constants (the operation's name, a missing axis) become variables
                if not isinstance(a, ir.Var):
                    v = ir.Var(scope, scope.redefine("$nx_arg", loc).name, loc)
                    c = ir.Const(a, loc)
                    new.append(ir.Assign(c, v, loc))
                    self.func_ir._definitions[v.name] = [c]
                    a = v
                vars_.append(a)
            target = ir.Var(scope, scope.redefine("$nx_check", loc).name, loc) if keep else inst.target
            emit_call(new, self.func_ir, fn, vars_, target, loc)
            if keep:
                new.append(inst)
        return new


def check_reduction_calls(func_ir, block, typemap, parallel: bool) -> None:
    """The forms of these reductions the rewrite above left alone (``out=``, ``keepdims=``,
    ``dtype=``, ``initial=``, a tuple of axes, ...) would run as host code reading USM memory: on
    numba_ext arrays they are a compile-time UnsupportedError naming the call and the line."""
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
        op = _ALIASES.get(op, op)
        if not call.kws and not call.vararg and len(operands) == 1 and op in WHOLE_OPS:
            if parallel and op in _BOOL_EXTREMES and typemap[operands[0].name].dtype == types.boolean:
                raise UnsupportedError(
                    f"{name}() of a boolean numba_ext array in numba_ext.jit code (line {inst.loc.line}) is "
                    f"not supported by Numba's parallel reductions: use np.{_BOOL_EXTREMES[op]}(x) (the same)"
                )
            continue  # a whole-array reduction
        given = ", ".join(["..."] * len(call.args) + [f"{k}=..." for k, _ in call.kws])
        raise UnsupportedError(
            f"{name}({given}) on numba_ext arrays is not supported (line {inst.loc.line}); supported: "
            "np.<op>(x) / x.<op>() and np.<op>(x, axis=<int>) for sum prod min max mean any all "
            "argmin argmax, np.dot / np.matmul / @ of two 1-D or 2-D arrays"
        )


@register_rewrite("after-inference")
class CheckReductions(Rewrite):
    """check_reduction_calls in every nopython pipeline (plain numba.njit included)."""

    def __init__(self, state):
        super().__init__(state)
        self.parallel = _parallel(state)

    def match(self, func_ir, block, typemap, calltypes):
        if typemap is not None:
            check_reduction_calls(func_ir, block, typemap, self.parallel)
        return False

    def apply(self):  # pragma: no cover - match() never asks for it
        raise AssertionError


@register_pass(mutates_CFG=False, analysis_only=True)
class CheckReductionsPass(FunctionPass):
    """check_reduction_calls right after type inference, before Numba's PreParforPass replaces
    NumPy reductions by its parallel implementations (numba_ext.jit's pipeline)."""

    _name = "numba_ext_check_reductions"

    def __init__(self):
        FunctionPass.__init__(self)

    def run_pass(self, state):
        for block in state.func_ir.blocks.values():
            check_reduction_calls(state.func_ir, block, state.typemap, state.flags.auto_parallel.enabled)
        return False


_ = creation  # numba_ext.empty is used by the generated helpers


def install_usm_mean() -> None:
    """Numba's parfor pass replaces np.mean(a) with its own loop (``mean_parallel_impl``), which
    divides by zero for an empty array (ZeroDivisionError). For USM arrays, use the same loop with
    NumPy's value for that case (NaN); every other array keeps Numba's."""
    from numba.parfors import parfor

    numba_mean = parfor.swap_functions_map[("mean", "numpy")]
    if getattr(numba_mean, "_numba_ext", False):
        return

    def mean_impl(return_type, arg):
        if not isinstance(arg, USMArrayType) or arg.ndim == 0:
            return numba_mean(return_type, arg)
        zero, nan = return_type(0), return_type(np.nan)

        if arg.ndim == 1:

            def mean_usm(in_arr):
                parfor.init_prange()
                val = zero
                for i in parfor.internal_prange(len(in_arr)):
                    val += in_arr[i]
                if len(in_arr) == 0:
                    return nan
                return val / len(in_arr)
        else:

            def mean_usm(in_arr):
                parfor.init_prange()
                val = zero
                for i in numba.pndindex(in_arr.shape):
                    val += in_arr[i]
                if in_arr.size == 0:
                    return nan
                return val / in_arr.size

        from .host_access import TRUSTED_CODE

        TRUSTED_CODE.add(mean_usm.__code__)
        return mean_usm

    mean_impl._numba_ext = True
    parfor.swap_functions_map[("mean", "numpy")] = mean_impl
