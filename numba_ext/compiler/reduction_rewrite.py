"""The before-inference rewrite of reductions and products on arrays, and the functions it calls.

``np.<op>(x, axis=k)``, ``x.<op>(k)`` (``op`` one of ``sum prod min max mean any all argmin argmax``),
``np.dot``, ``np.matmul``, ``@`` and ``x.dot(y)`` become calls of the dispatch functions defined here;
their overloads (``reductions``) choose the device helpers for USM arrays and the call as written for
anything else. Whole-array reductions stay parfors in pipelines with parfors (``numba_ext.jit``), with
a size check before min/max. This module names the dispatch functions only, so the rewrite (installed
with Numba by ``numba_hooks``) does not depend on the helpers the overloads compile."""

from __future__ import annotations

import operator

import numba
import numpy as np
from numba.core import ir
from numba.core.rewrites import Rewrite
from numba.parfors import parfor

from .host_access import TRUSTED_CODE
from .redirects import emit_call, resolve_global
from .reduction_rules import EMPTY_MESSAGES, REDUCTIONS, WHOLE_OPS, method_of, parallelizes, reduction_call
from .types import USMArrayType


def nx_dot(a, b):
    return np.dot(a, b)


def nx_matmul(a, b):
    return a @ b


def nx_method_dot(a, b):
    return a.dot(b)


def np_dot(a, b):
    return np.dot(a, b)


def np_method_dot(a, b):
    return a.dot(b)


def np_matmul(a, b):
    return a @ b


def _reduction_functions(name: str, method: bool):
    """The dispatch function the rewrite calls for np.<name>(a, axis) (or a.<name>(axis) when
    `method`), and the host implementations its overload gives data that is not ours (NumPy arrays):
    NumPy's function with the axis, and without one."""
    np_func = getattr(np, name)

    def dispatch(a, axis):
        return np_func(a, axis=axis)

    def host_axis(a, axis):
        return np_func(a, axis=axis)

    def host_all(a, axis):
        return np_func(a)

    dispatch.__name__ = dispatch.__qualname__ = f"nx_{'method_' if method else ''}{name}"
    return dispatch, host_axis, host_all


#: (name, method form) -> (dispatch function, host implementation with an axis, without one)
DISPATCH = {
    (name, method): _reduction_functions(name, method) for name in REDUCTIONS for method in (False, True)
}
#: functions the rewrite leaves alone (they are what its dispatch functions call on host data)
NOT_REWRITTEN = frozenset(
    {np_dot, np_matmul, np_method_dot, *(f for _, *hosts in DISPATCH.values() for f in hosts)}
)


def nx_require_nonempty(a, op):
    if a.size == 0:
        raise ValueError(EMPTY_MESSAGES[op])


def _is_argument(func_ir, var) -> bool:
    """Whether `var` is one of the function's arguments: the minimum or maximum of an argument has no
    loop to fuse with, and the eager kernels (several partials per work-item) are faster than a
    parfor's one (``compiler.eager_calls``)."""
    try:
        return isinstance(func_ir.get_definition(var), ir.Arg)
    except Exception:  # no single definition
        return False


class RewriteReductions(Rewrite):
    """np.<op>(x, axis=k), np.<op>(x, k), x.<op>(axis=k), x.<op>(k) for the reductions above,
    np.argmin/argmax(x), x.argmin/argmax(), np.dot(a, b), x.dot(b), np.matmul(a, b) and a @ b -> the
    dispatch functions above. Whole-array reductions (np.sum(x), x.max(), ...) go there too in
    pipelines without parfors (plain numba.njit), so they run on the device; with parfors
    (numba_ext.jit) they stay parfors, and min/max get a size check first, as Numba's parallel
    np.min/np.max only check len() and gave +-inf for N-D arrays with no elements."""

    def __init__(self, state):
        super().__init__(state)
        self.parallel = parallelizes(state)
        # Numba's np.min / np.max do not compile for float16 (no float16 NaN test): with float16
        # array arguments, whole-array min/max go to the helpers too (they reduce as float32)
        args = getattr(state, "args", None) or ()
        self.half = any(getattr(t, "dtype", None) == numba.core.types.float16 for t in args)
        self.guarded = set()  # the whole-array min/max calls given a check (ids of their IR nodes)

    def match(self, func_ir, block, typemap, calltypes):
        self.func_ir, self.block, self.todo, self.rebind = func_ir, block, [], {}
        if func_ir.func_id.func in NOT_REWRITTEN:
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
                m = method_of(func_ir, e.func)
                if fn in (np.dot, np.matmul) and len(e.args) == 2:
                    self.todo.append((inst, nx_dot if fn is np.dot else nx_matmul, list(e.args), False))
                    if fn is np.matmul:  # Numba cannot type the (then unused) np.matmul: rebind it
                        self.rebind[e.func.name] = nx_matmul
                    continue
                if m is not None and m[0] == "dot" and len(e.args) == 1:
                    self.todo.append((inst, nx_method_dot, [m[1], e.args[0]], False))
                    continue
            r = reduction_call(func_ir, e)
            if r is None:
                continue
            op, array, axis = r
            name = op.removeprefix("x.")
            # Numba's parfor pass turns whole-array sum/prod/min/max/mean into device loops, but not
            # any/all (they would run as host code, which buffer memory cannot serve)
            half = self.half and name in ("min", "max")
            if (
                axis is not None
                or name not in WHOLE_OPS
                or not self.parallel
                or name in ("any", "all")
                or half
                or (name in ("min", "max") and _is_argument(func_ir, array))
            ):
                self.todo.append((inst, DISPATCH[name, op.startswith("x.")][0], [array, axis], False))
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


def usm_mean_swap(numba_mean):
    """Numba's parfor pass replaces np.mean(a) with its own loop (``mean_parallel_impl``, from
    ``parfor.swap_functions_map``), which divides by zero for an empty array (ZeroDivisionError).
    For USM arrays, the same loop with NumPy's value for that case (NaN); every other array keeps
    Numba's (`numba_mean`)."""

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

        TRUSTED_CODE.add(mean_usm.__code__)
        return mean_usm

    return mean_impl
