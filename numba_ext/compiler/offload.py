"""Offloading array expressions: an after-inference rewrite (it runs inside plain ``@numba.njit`` and
``@numba_ext.jit`` alike) that replaces every ``arrayexpr`` whose result is a USM array with a call
to a launch intrinsic. The expression becomes one kernel (KernelSpec -> Rust dataflow graph ->
SPIR-V/PTX, compiled once per device kind); the host code the intrinsic emits checks shapes and
queues, allocates the result on the execution queue and launches through the extension's C ABI.
"""

from __future__ import annotations

import inspect
import weakref
from typing import Any

from numba.core import cgutils, ir, types
from numba.core.rewrites import Rewrite
from numba.core.typing import signature
from numba.extending import intrinsic

from .. import _core
from ..devices import device_by_filter
from ..errors import UnsupportedError
from ..ir.kernel_ir import ArrayParam, KernelSpec
from . import host_access
from .host_abi import (
    I8P,
    I32,
    I64,
    allocate_result,
    broadcast_shape,
    broadcast_strides,
    declare,
    scalar_slots,
)
from .kernelspec import RegionTranslator
from .lazy_refs import KernelRef, lazy_address
from .redirects import is_offloadable


def _is_pure(inst, typemap) -> bool:
    """Statements that may stay in front of a fused region: constants, globals, module attributes."""
    if not isinstance(inst, ir.Assign):
        return False
    v = inst.value
    if isinstance(v, (ir.Const, ir.Global, ir.FreeVar)):
        return True
    if not isinstance(v, ir.Expr):
        return False
    if v.op == "getattr":
        return isinstance(typemap.get(v.value.name), types.Module)
    if v.op in ("binop", "unary", "inplace_binop", "cast"):  # scalar arithmetic
        return all(isinstance(typemap.get(x.name), (types.Number, types.Boolean)) for x in v.list_vars())
    return False


class OffloadArrayExprs(Rewrite):
    """Fuse array expressions on USM arrays into kernels.

    Numba's RewriteArrayExprs has already folded each statement's operator tree into one ``arrayexpr``.
    Here consecutive such statements connected by dataflow (a statement reads a value an earlier one
    in the region produced) form one region and one kernel; values that are used only inside the
    region never become arrays. Each region is replaced by a call to a launch intrinsic (and, for
    several escaping values, ``static_getitem``s of its tuple result)."""

    def __init__(self, state=None):
        super().__init__(state)
        self.state = state

    def match(self, func_ir, block, typemap, calltypes):
        self.func_ir, self.block, self.typemap, self.calltypes = func_ir, block, typemap, calltypes
        if not getattr(func_ir, "_nx_host_access_checked", False):
            func_ir._nx_host_access_checked = True  # once per function, before anything is rewritten
            flags = getattr(self.state, "flags", None)
            host_access.check_host_results(func_ir, typemap, calltypes)
            host_access.check(
                func_ir,
                typemap,
                calltypes,
                parallel=bool(flags and flags.auto_parallel.enabled),
                late_setitems=getattr(getattr(self.state, "pipeline", None), "offloads_setitems", False),
            )
        return any(is_offloadable(inst, typemap, func_ir) for inst in block.body)

    def _reads(self) -> dict[int, set[str]]:
        """Variables each statement of the function reads (by statement id)."""
        reads = {}
        for blk in self.func_ir.blocks.values():
            for stmt in blk.body:
                if isinstance(stmt, ir.Del):
                    continue
                if isinstance(stmt, ir.Assign):
                    v = stmt.value
                    vs = [v] if isinstance(v, ir.Var) else (v.list_vars() if hasattr(v, "list_vars") else [])
                else:
                    vs = stmt.list_vars()
                reads[id(stmt)] = {x.name for x in vs}
        return reads

    def apply(self):
        # 1. Runs: maximal sequences of offloadable statements, with the pure scalar statements and
        #    `del`s between them.
        plan, run = [], None  # plan: ("stmt", inst) | ("run", run)
        for inst in self.block.body:
            if is_offloadable(inst, self.typemap, self.func_ir):
                if run is None:
                    run = {"insts": [], "dels": [], "pre": []}
                    plan.append(("run", run))
                run["insts"].append(inst)
            elif run is not None and isinstance(inst, ir.Del):
                run["dels"].append(inst)
            elif run is not None and _is_pure(inst, self.typemap):
                run["pre"].append(inst)  # hoisted in front of the fused launches
            else:
                run = None
                plan.append(("stmt", inst))
        reads = self._reads()
        new_block = self.block.copy()
        new_block.clear()
        for kind, item in plan:
            if kind == "stmt":
                new_block.append(item)
                continue
            for pre in item["pre"]:
                new_block.append(pre)
            temps = set()
            for region in self._regions(item["insts"]):
                mine = {id(i) for i in region}
                outside = set().union(*(r for sid, r in reads.items() if sid not in mine))
                outputs = [i.target for i in region if i.target.name in outside] or [region[-1].target]
                temps |= {i.target.name for i in region} - {o.name for o in outputs}
                for new in self._replace(region, outputs):
                    new_block.append(new)
            for d in item["dels"]:
                if d.value not in temps:
                    new_block.append(d)
        return new_block

    def _regions(self, insts):
        """Split a run into regions: statements connected through the arrays they read or define
        (union-find), with one iteration rank. Connected arrays must share the iteration shape (the
        launch checks), so fusing them adds no constraint; unconnected statements stay apart."""
        parent = list(range(len(insts)))

        def find(i):
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        owner: dict[str, int] = {}
        for i, inst in enumerate(insts):
            names = {inst.target.name} | {
                v.name for v in inst.value.list_vars() if isinstance(self.typemap[v.name], types.Array)
            }
            ndim = self.typemap[inst.target.name].ndim
            for n in names:
                key = f"{n}/{ndim}"
                if key in owner:
                    parent[find(i)] = find(owner[key])
                else:
                    owner[key] = i
        groups: dict[int, list] = {}
        for i, inst in enumerate(insts):
            groups.setdefault(find(i), []).append(inst)
        # Dependencies between regions only go from lower to higher rank (a value of one rank is read
        # by statements of the same rank, which are then connected, or of a higher rank through
        # broadcasting), and run statements are pure: (rank, position) is a topological order.
        return sorted(groups.values(), key=lambda g: (self.typemap[g[0].target.name].ndim, insts.index(g[0])))

    def _replace(self, insts, outputs):
        first = insts[0]
        ndim = self.typemap[first.target.name].ndim
        tr = RegionTranslator(self.func_ir, self.typemap, ndim, first.loc)
        try:
            spec = tr.translate(insts, outputs)
        except UnsupportedError as e:
            raise UnsupportedError(f"{e} (in {tr.loc.filename}, line {tr.loc.line})") from None
        out_types = [self.typemap[o.name] for o in outputs]
        kernel = _core.compile_kernel(spec, device_by_filter(out_types[0].device))
        md = getattr(self.state, "metadata", None)
        kref = KernelRef(kernel, spec, out_types[0].device)
        if md is not None:  # the compile result's: inspect_kernels, and the kernel alive while it is
            md.setdefault("numba_ext_kernels", []).append(kernel)
            md.setdefault("numba_ext_refs", []).append(kref)

        arg_types = tuple(self.typemap[v.name] for v in tr.args)
        fn = make_launch_intrinsic(kref, spec, out_types, arg_types)
        scope, loc = first.target.scope, insts[-1].loc
        fvar = ir.Var(scope, scope.redefine("$nx_launch", loc).name, loc)
        typingctx = self.state.typingctx
        typingctx.refresh()  # picks up the new intrinsic's typing template
        fnty = typingctx.resolve_value_type(fn)
        sig = fnty.get_call_type(typingctx, arg_types, {})
        self.typemap[fvar.name] = fnty
        call = ir.Expr.call(fvar, list(tr.args), (), loc)
        self.calltypes[call] = sig
        out = [ir.Assign(ir.Global("nx_launch", fn, loc), fvar, loc)]
        if len(outputs) == 1:
            out.append(ir.Assign(call, outputs[0], loc))
            return out
        tup = ir.Var(scope, scope.redefine("$nx_outs", loc).name, loc)
        self.typemap[tup.name] = sig.return_type
        out.append(ir.Assign(call, tup, loc))
        for i, o in enumerate(outputs):
            out.append(ir.Assign(ir.Expr.static_getitem(tup, i, None, loc), o, loc))
        out.append(ir.Del(tup.name, loc))
        return out


def make_launch_intrinsic(
    kref: KernelRef, spec: KernelSpec, out_types: list[types.Array], arg_types: tuple[types.Type, ...]
) -> Any:
    """An intrinsic whose lowering launches `kernel` over the arrays/scalars of one region and
    returns its output array(s) (a tuple when there are several). (One function of about 80 lines:
    the lowering closure and the typer of one Numba intrinsic.)"""
    params = spec.params  # in kernel order; the outputs come last
    n_in = len(params) - len(out_types)
    ndim = out_types[0].ndim
    ret_type = out_types[0] if len(out_types) == 1 else types.Tuple(out_types)
    # Numba keeps every intrinsic for the life of the process: it refers to the kernel weakly, so
    # the kernel lives as long as the function compiled with it (its environment and metadata)
    weak_kref = weakref.ref(kref)
    device_filter = out_types[0].device

    def codegen(context, builder, sig, llargs):
        arrays = [
            (ty, context.make_array(ty)(context, builder, value=v))
            for ty, v in zip(sig.args, llargs)
            if isinstance(ty, types.Array)
        ]
        _, first = arrays[0]
        shape, broadcast = broadcast_shape(context, builder, arrays, ndim)

        queue = builder.bitcast(first.queue, I8P)
        # Compute follows data: all arrays on equivalent queues (the error names the arrays).
        if len(arrays) > 1:
            qs = cgutils.alloca_once(builder, I8P, size=len(arrays))
            for i, (_, ary) in enumerate(arrays):
                builder.store(builder.bitcast(ary.queue, I8P), builder.gep(qs, [I32(i)]))
            names = ",".join(p.name for p in params[:n_in] if isinstance(p, ArrayParam))
            cname = context.insert_const_string(builder.module, names)
            check = declare(builder, "nx_check_queues", I32, [I8P.as_pointer(), I32, I8P])
            st = builder.call(check, [qs, I32(len(arrays)), cname])
            with cgutils.if_unlikely(builder, builder.icmp_signed("!=", st, I32(0))):
                context.call_conv.return_exc(builder)

        nitems = cgutils.intp_t(1)
        for s in shape:
            nitems = builder.mul(nitems, s)
        outs = [allocate_result(context, builder, ty, queue, shape, nitems) for ty in out_types]

        # General argument slots (CompiledKernel::launch_general): each array's data address and its
        # byte strides over the iteration space, 0 where it broadcasts.
        slot_vals = []
        launch_args = list(zip(sig.args, llargs)) + [(ty, o._getvalue()) for ty, o in zip(out_types, outs)]
        for p, (ty, v) in zip(params, launch_args):
            if isinstance(p, ArrayParam):
                ary = context.make_array(ty)(context, builder, value=v)
                slot_vals.append(builder.ptrtoint(ary.data, I64))
                slot_vals.extend(broadcast_strides(builder, ty, ary, shape))
            else:
                slot_vals.extend(scalar_slots(context, builder, ty, v))
        slot_vals.extend(shape)
        slot_vals.append(nitems)
        slots = cgutils.alloca_once(builder, I64, size=len(slot_vals))
        for i, sv in enumerate(slot_vals):
            builder.store(sv, builder.gep(slots, [I32(i)]))
        launch = declare(builder, "nx_launch", I32, [I8P, I8P, I64.as_pointer(), I32, I32])
        kaddr = lazy_address(context, builder, weak_kref() or KernelRef(None, spec, device_filter))
        st = builder.call(launch, [kaddr, queue, slots, I32(len(slot_vals)), builder.zext(broadcast, I32)])
        with cgutils.if_unlikely(builder, builder.icmp_signed("!=", st, I32(0))):
            for ty, o in zip(out_types, outs):
                context.nrt.decref(builder, ty, o._getvalue())
            context.call_conv.return_exc(builder)
        if len(outs) == 1:
            return outs[0]._getvalue()
        return context.make_tuple(builder, ret_type, [o._getvalue() for o in outs])

    # Numba folds a typer's *args into one tuple argument, so the typer declares one named parameter
    # per argument (its signature says so; it takes them positionally).
    def typer(typingctx, *args):
        return signature(ret_type, *args), codegen

    P = inspect.Parameter
    typer.__signature__ = inspect.Signature(
        [P("typingctx", P.POSITIONAL_OR_KEYWORD)]
        + [P(f"a{i}", P.POSITIONAL_OR_KEYWORD) for i in range(len(arg_types))]
    )
    typer.__name__ = typer.__qualname__ = f"nx_launch_{spec.name}"
    fn: Any = intrinsic(typer)
    fn._numba_ext_kernel = weak_kref  # for fusion with prange loops (parfor_fusion.py)
    fn._nx_spec, fn._nx_out_types = spec, list(out_types)  # for fusion with prange loops (parfor_fusion.py)
    return fn
