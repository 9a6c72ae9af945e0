"""The functions the before-inference rewrites redirect NumPy calls to, and the helpers that find
and emit calls in Numba IR.

``np.where(c, a, b)`` in a jitted function becomes ``nx_where(c, a, b)`` (and so on for clip, astype,
copy, ascontiguousarray, cumsum, cumprod): their overloads (``elementwise``, ``scans``) give NumPy's
implementation for NumPy arrays and a device implementation for numba_ext arrays, which the
offload rewrite fuses into kernels. This module only names them, so the rewrites, the kernel
description builder and the overloads can all refer to them without importing one another."""

from __future__ import annotations

import numpy as np
from numba.core import ir

from . import ufuncs
from .types import USMArrayType


def nx_where(c, a, b):
    return np.where(c, a, b)


def nx_clip(a, lo, hi):
    return np.clip(a, lo, hi)


def nx_astype(a, dtype):
    return a.astype(dtype)


def nx_copy(a):
    return a.copy()


def nx_ascontiguousarray(a):
    return np.ascontiguousarray(a)


def nx_cumsum(a):
    return np.cumsum(a)


def nx_cumprod(a):
    return np.cumprod(a)


#: Calls the offload rewrite fuses into kernels, and the operation each computes.
ELEMENTWISE = {
    nx_where: "where",
    nx_clip: "clip",
    nx_astype: "astype",
    nx_copy: "astype",
    ufuncs.erf: "erf",
    ufuncs.erfc: "erfc",
}

#: NumPy's scans and the functions the rewrite sends them to.
SCANS = {np.cumsum: nx_cumsum, np.cumprod: nx_cumprod}


def host_cumsum(a):
    return np.cumsum(a)


def host_cumprod(a):
    return np.cumprod(a)


#: The host implementations of the scans (for NumPy arrays), which the rewrites leave as they are.
SCAN_HOST_IMPLS = frozenset({host_cumsum, host_cumprod})


def resolve_global(func_ir, var):
    """The Python object a function variable names (a global, or an attribute of a global module)."""
    try:
        d = func_ir.get_definition(var)
    except Exception:
        return None
    if isinstance(d, (ir.Global, ir.FreeVar)):
        return d.value
    if isinstance(d, ir.Expr) and d.op == "getattr":
        base = resolve_global(func_ir, d.value)
        return getattr(base, d.attr, None) if base is not None else None
    return None


def emit_call(new_block, func_ir, fn, args, target, loc) -> None:
    """Append `target = fn(*args)` (fn a Python global) to `new_block`, keeping Numba's definitions
    table current so rewrites do not match the new call again."""
    scope = target.scope
    g = ir.Var(scope, scope.redefine("$nx_redirect", loc).name, loc)
    gv = ir.Global(fn.__name__, fn, loc)
    new_block.append(ir.Assign(gv, g, loc))
    func_ir._definitions[g.name] = [gv]
    new_block.append(ir.Assign(ir.Expr.call(g, list(args), (), loc), target, loc))


def is_offloadable(inst, typemap, func_ir=None) -> bool:
    """An array expression, or a call of np.where/np.clip/astype (see ``ELEMENTWISE``), producing a
    USM array."""
    if not (
        isinstance(inst, ir.Assign)
        and isinstance(inst.value, ir.Expr)
        and isinstance(typemap.get(inst.target.name), USMArrayType)
    ):
        return False
    if inst.value.op == "arrayexpr":
        return True
    if inst.value.op == "call" and func_ir is not None:
        return resolve_global(func_ir, inst.value.func) in ELEMENTWISE
    return False
