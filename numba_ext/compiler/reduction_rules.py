"""The rules of reductions shared by the rewrites, the jitted helpers and the eager methods: which
calls are reductions, their result dtypes and axis rules, and the compile-time check that refuses
the forms numba_ext does not offload (``out=``, ``keepdims=``, ``dtype=``, a tuple of axes, ...)
instead of letting host code read device memory."""

from __future__ import annotations

import numpy as np
from numba.core import ir, types
from numba.core.compiler_machinery import FunctionPass
from numba.core.rewrites import Rewrite

from ..errors import UnsupportedError
from ..ir.reductions import BOOL_EXTREMES as BOOL_EXTREMES
from ..ir.reductions import EMPTY_MESSAGES as EMPTY_MESSAGES
from ..ir.reductions import check_dot_ndims as check_dot_ndims
from ..ir.reductions import dot_dtype as dot_dtype
from ..ir.reductions import normalize_axis as normalize_axis
from ..ir.reductions import result_dtype as result_dtype
from .redirects import resolve_global
from .types import USMArrayType

WHOLE_OPS = ("sum", "prod", "min", "max", "mean", "any", "all")
REDUCTIONS = WHOLE_OPS + ("argmin", "argmax")
ALIASES = {"amin": "min", "amax": "max"}
REDUCTION_FUNCS = {getattr(np, name): name for name in REDUCTIONS} | {np.amin: "min", np.amax: "max"}


def method_of(func_ir, var):
    """(attribute, object) when `var` is a method access like `x.sum`, else None."""
    try:
        d = func_ir.get_definition(var)
    except Exception:  # no single definition (a phi, a parameter, ...)
        return None
    if isinstance(d, ir.Expr) and d.op == "getattr" and resolve_global(func_ir, var) is None:
        return d.attr, d.value
    return None


def reduction_call(func_ir, call):
    """(op, array var, axis var or None) for np.<op>(x[, axis]) and x.<op>([axis]), else None."""
    kws = dict(call.kws)
    if call.vararg or set(kws) - {"axis"}:
        return None
    fn = resolve_global(func_ir, call.func)
    if fn in REDUCTION_FUNCS:
        op, args = REDUCTION_FUNCS[fn], list(call.args)
    else:
        m = method_of(func_ir, call.func)
        if m is None or m[0] not in REDUCTIONS:
            return None
        op, args = "x." + m[0], [m[1], *call.args]
    if not args or len(args) > 2 or (len(args) == 2 and "axis" in kws):
        return None
    return op, args[0], kws.get("axis", args[1] if len(args) == 2 else None)


def parallelizes(state) -> bool:
    """Whether this compilation turns NumPy reductions into parfors (numba_ext.jit's pipeline); the
    IR Numba builds to inline a closure comes with no flags: treat it as unchanged."""
    flags = getattr(state, "flags", None)
    return flags is None or flags.auto_parallel.enabled


def check_reduction_calls(func_ir, block, typemap, parallel: bool) -> None:
    """The forms of these reductions the rewrite above left alone (``out=``, ``keepdims=``,
    ``dtype=``, ``initial=``, a tuple of axes, ...) would run as host code reading USM memory: on
    numba_ext arrays they are a compile-time UnsupportedError naming the call and the line."""
    for inst in block.body:
        call = inst.value if isinstance(inst, ir.Assign) else None
        if not (isinstance(call, ir.Expr) and call.op == "call"):
            continue
        fn = resolve_global(func_ir, call.func)
        if fn in REDUCTION_FUNCS or fn in (np.dot, np.matmul, np.vdot, np.inner, np.tensordot):
            op, name, operands = fn.__name__, f"np.{fn.__name__}", [*call.args, *(v for _, v in call.kws)]
        else:
            m = method_of(func_ir, call.func)
            if m is None or m[0] not in REDUCTIONS + ("dot",):
                continue
            op, name, operands = m[0], f"x.{m[0]}", [m[1], *call.args, *(v for _, v in call.kws)]
        if not any(isinstance(typemap.get(getattr(v, "name", None)), USMArrayType) for v in operands):
            continue
        op = ALIASES.get(op, op)
        if not call.kws and not call.vararg and len(operands) == 1 and op in WHOLE_OPS:
            if parallel and op in BOOL_EXTREMES and typemap[operands[0].name].dtype == types.boolean:
                raise UnsupportedError(
                    f"{name}() of a boolean numba_ext array in numba_ext.jit code (line {inst.loc.line}) is "
                    f"not supported by Numba's parallel reductions: use np.{BOOL_EXTREMES[op]}(x) (the same)"
                )
            continue  # a whole-array reduction
        given = ", ".join(["..."] * len(call.args) + [f"{k}=..." for k, _ in call.kws])
        raise UnsupportedError(
            f"{name}({given}) on numba_ext arrays is not supported (line {inst.loc.line}); supported: "
            "np.<op>(x) / x.<op>() and np.<op>(x, axis=<int>) for sum prod min max mean any all "
            "argmin argmax, np.dot / np.matmul / @ of two 1-D or 2-D arrays"
        )


class CheckReductions(Rewrite):
    """check_reduction_calls in every nopython pipeline (plain numba.njit included)."""

    def __init__(self, state):
        super().__init__(state)
        self.parallel = parallelizes(state)

    def match(self, func_ir, block, typemap, calltypes):
        if typemap is not None:
            check_reduction_calls(func_ir, block, typemap, self.parallel)
        return False

    def apply(self):  # pragma: no cover - match() never asks for it
        raise AssertionError


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
