"""Offloading array expressions: an after-inference rewrite (it runs inside plain ``@numba.njit`` and
``@numba_ext.jit`` alike) that replaces every ``arrayexpr`` whose result is a USM array with a call
to a launch intrinsic. The expression becomes one kernel (KernelSpec -> Rust dataflow graph ->
SPIR-V/PTX, compiled once per device kind); the host code the intrinsic emits checks shapes and
queues, allocates the result on the execution queue and launches through the extension's C ABI.
"""

from __future__ import annotations

import llvmlite.ir as llir
from numba.core import cgutils, ir, types
from numba.core.rewrites import Rewrite, register_rewrite
from numba.core.typing import signature
from numba.extending import intrinsic
from numba.np.arrayobj import populate_array

from .. import _core
from ..errors import UnsupportedError
from .kernelspec import ArrayExprTranslator
from .types import USMArrayType

_USM_CODES = {"device": 0, "shared": 1, "host": 2}
_i8p = llir.IntType(8).as_pointer()
_i64 = llir.IntType(64)
_i32 = llir.IntType(32)


def _device_for(filter_string: str):
    from ..runtime import device_by_filter

    return device_by_filter(filter_string)


@register_rewrite("after-inference")
class OffloadArrayExprs(Rewrite):
    """Replace ``arrayexpr`` nodes producing USM arrays with launches of compiled kernels."""

    def __init__(self, state=None):
        super().__init__(state)
        self.state = state

    def match(self, func_ir, block, typemap, calltypes):
        self.func_ir, self.block, self.typemap, self.calltypes = func_ir, block, typemap, calltypes
        self.matches = [
            inst for inst in block.body
            if isinstance(inst, ir.Assign) and isinstance(inst.value, ir.Expr) and inst.value.op == "arrayexpr"
            and isinstance(typemap.get(inst.target.name), USMArrayType)
        ]
        return bool(self.matches)

    def apply(self):
        new_block = self.block.copy()
        new_block.clear()
        matched = set(map(id, self.matches))
        for inst in self.block.body:
            if id(inst) in matched:
                for new in self._replace(inst):
                    new_block.append(new)
            else:
                new_block.append(inst)
        return new_block

    def _replace(self, inst: ir.Assign):
        expr = inst.value
        out_type = self.typemap[inst.target.name]
        tr = ArrayExprTranslator(self.func_ir, self.typemap, out_type, inst.loc)
        try:
            spec = tr.translate(expr.expr)
        except UnsupportedError as e:
            raise UnsupportedError(f"{e} (in {inst.loc.filename}, line {inst.loc.line})") from None
        kernel = _core.compile_kernel(spec, _device_for(out_type.device))
        md = getattr(self.state, "metadata", None)
        if md is not None:
            md.setdefault("numba_ext_kernels", []).append(kernel)

        arg_types = tuple(self.typemap[v.name] for v in tr.args)
        fn = make_launch_intrinsic(kernel, spec, out_type, arg_types)
        scope = inst.target.scope
        fvar = ir.Var(scope, scope.redefine("$nx_launch", inst.loc).name, inst.loc)
        self.state.typingctx.refresh()  # picks up the new intrinsic's typing template
        fnty = self.state.typingctx.resolve_value_type(fn)
        sig = fnty.get_call_type(self.state.typingctx, arg_types, {})
        self.typemap[fvar.name] = fnty
        call = ir.Expr.call(fvar, list(tr.args), (), inst.loc)
        self.calltypes[call] = sig
        return [ir.Assign(ir.Global("nx_launch", fn, inst.loc), fvar, inst.loc), ir.Assign(call, inst.target, inst.loc)]


def _declare(builder, name, ret, args):
    return cgutils.get_or_insert_function(builder.module, llir.FunctionType(ret, args), name)


def make_launch_intrinsic(kernel, spec: dict, out_type: USMArrayType, arg_types: tuple):
    """An intrinsic whose lowering launches `kernel` over the arrays/scalars of one region."""
    param_kinds = spec["params"]  # in kernel order; the last one is the output
    ndim = out_type.ndim

    def codegen(context, builder, sig, llargs):
        arrays = [
            (ty, context.make_array(ty)(context, builder, value=v))
            for ty, v in zip(sig.args, llargs) if isinstance(ty, types.Array)
        ]
        first_ty, first = arrays[0]
        shape = cgutils.unpack_tuple(builder, first.shape, ndim)

        # Shapes must match (broadcasting arrives with the compiler-breadth work).
        for ty, ary in arrays[1:]:
            other = cgutils.unpack_tuple(builder, ary.shape, ty.ndim)
            bad = cgutils.false_bit
            if ty.ndim != ndim:
                bad = cgutils.true_bit
            else:
                for a, b in zip(shape, other):
                    bad = builder.or_(bad, builder.icmp_unsigned("!=", a, b))
            with cgutils.if_unlikely(builder, bad):
                context.call_conv.return_user_exc(
                    builder, ValueError, ("operands of an offloaded array expression must have the same shape",)
                )

        queue = first.queue
        # Compute follows data: all arrays on equivalent queues (the error names the arrays).
        if len(arrays) > 1:
            qs = cgutils.alloca_once(builder, _i8p, size=len(arrays))
            for i, (_, ary) in enumerate(arrays):
                builder.store(builder.bitcast(ary.queue, _i8p), builder.gep(qs, [_i32(i)]))
            names = ",".join(p[0] for p in param_kinds[:-1] if p[1] == "array")
            cname = context.insert_const_string(builder.module, names)
            check = _declare(builder, "nx_check_queues", _i32, [_i8p.as_pointer(), _i32, _i8p])
            st = builder.call(check, [qs, _i32(len(arrays)), cname])
            with cgutils.if_unlikely(builder, builder.icmp_signed("!=", st, _i32(0))):
                context.call_conv.return_exc(builder)

        # Allocate the result on the execution queue (USM type from the precedence rules).
        itemsize = context.get_abi_sizeof(context.get_data_type(out_type.dtype))
        nitems = cgutils.intp_t(1)
        for s in shape:
            nitems = builder.mul(nitems, s)
        nbytes = builder.mul(nitems, cgutils.intp_t(itemsize))
        mi_slot = cgutils.alloca_once(builder, _i8p)
        alloc = _declare(builder, "nx_usm_alloc", _i8p, [_i8p, _i64, _i32, _i8p.as_pointer()])
        data = builder.call(alloc, [builder.bitcast(queue, _i8p), nbytes, _i32(_USM_CODES[out_type.usm_type]), mi_slot])
        with cgutils.if_unlikely(builder, cgutils.is_null(builder, data)):
            context.call_conv.return_exc(builder)
        meminfo = builder.load(mi_slot)

        out = context.make_array(out_type)(context, builder)
        strides, acc = [], cgutils.intp_t(itemsize)
        for s in reversed(shape):
            strides.append(acc)
            acc = builder.mul(acc, s)
        strides.reverse()
        populate_array(
            out,
            data=builder.bitcast(data, out.data.type),
            shape=cgutils.pack_array(builder, shape) if ndim else cgutils.pack_array(builder, [], cgutils.intp_t),
            strides=cgutils.pack_array(builder, strides) if ndim else cgutils.pack_array(builder, [], cgutils.intp_t),
            itemsize=cgutils.intp_t(itemsize),
            meminfo=builder.bitcast(meminfo, out.meminfo.type),
        )
        out.queue = queue

        # Argument slots, in kernel parameter order (see rust/src/codegen/mod.rs).
        slot_vals = []
        launch_args = list(zip(sig.args, llargs)) + [(out_type, out._getvalue())]
        for (pname, kind, *rest), (ty, v) in zip(param_kinds, launch_args):
            if kind == "array":
                ary = context.make_array(ty)(context, builder, value=v)
                slot_vals.append(builder.ptrtoint(ary.data, _i64))
                contiguous = rest[2]
                if not contiguous:
                    for st in cgutils.unpack_tuple(builder, ary.strides, ty.ndim):
                        slot_vals.append(st)
            else:
                slot_vals.append(_scalar_bits(context, builder, ty, v))
        slot_vals.extend(shape)
        slot_vals.append(nitems)
        slots = cgutils.alloca_once(builder, _i64, size=len(slot_vals))
        for i, sv in enumerate(slot_vals):
            builder.store(sv, builder.gep(slots, [_i32(i)]))
        launch = _declare(builder, "nx_launch", _i32, [_i8p, _i8p, _i64.as_pointer(), _i32])
        kaddr = llir.Constant(_i64, kernel.address).inttoptr(_i8p)
        st = builder.call(launch, [kaddr, builder.bitcast(queue, _i8p), slots, _i32(len(slot_vals))])
        with cgutils.if_unlikely(builder, builder.icmp_signed("!=", st, _i32(0))):
            context.nrt.decref(builder, out_type, out._getvalue())
            context.call_conv.return_exc(builder)
        return out._getvalue()

    # Numba folds *args of intrinsics into a tuple, so the typer gets one named parameter per argument.
    params = ", ".join(f"a{i}" for i in range(len(arg_types)))
    ns = {"signature": signature, "out_type": out_type, "codegen": codegen}
    exec(
        f"def nx_launch_{spec['name']}(typingctx, {params}):\n"
        f"    return signature(out_type, {params}), codegen\n",
        ns,
    )
    typer = ns[f"nx_launch_{spec['name']}"]
    fn = intrinsic(typer)
    fn._numba_ext_kernel = kernel  # keeps the compiled kernel (and its address) alive
    return fn


def _scalar_bits(context, builder, ty, v):
    """A scalar argument's bits in the low bytes of a u64 slot."""
    if isinstance(ty, types.Boolean):
        return builder.zext(v, _i64)
    if isinstance(ty, types.Float):
        ival = builder.bitcast(v, llir.IntType(ty.bitwidth))
        return builder.zext(ival, _i64) if ty.bitwidth < 64 else ival
    if isinstance(ty, types.Integer):
        return builder.zext(v, _i64) if ty.bitwidth < 64 else v
    raise UnsupportedError(f"scalar argument of type {ty} cannot be passed to a kernel")
