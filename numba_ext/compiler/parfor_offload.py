"""Offloading parfors: ``prange`` loops and the NumPy calls Numba's ParforPass turns into loops
(``np.sum``, ``np.prod``, ...). A compiler pass marks every parfor that touches USM arrays with our
lowerer (Numba's ``parfor.lowerer`` hook). The lowerer translates the loop to a kernel
(``parfor_kernel.py``, which describes the kernel's shape) and emits the launch on the arrays'
queue: the arguments, the loop bounds and, for reductions, one-element device accumulators."""

from __future__ import annotations

import llvmlite.ir as llir
import numpy as np
from numba.core import cgutils, ir, types
from numba.core.compiler_machinery import FunctionPass
from numba.np import numpy_support
from numba.parfors.parfor import Parfor

from .. import _core
from ..devices import device_by_filter
from ..errors import ExecutionPlacementError
from .host_abi import (
    I8P,
    I32,
    I64,
    USM_CODES,
    allocate_result,
    broadcast_shape,
    broadcast_strides,
    declare,
    scalar_bits,
)
from .kernelspec import dtype_name
from .parfor_fusion import fuse_regions_into_parfors
from .parfor_kernel import ParforKernel, accumulator_dtype, parfor_vars
from .types import USMArrayType

REDUCTION_WORK_ITEMS = 1 << 14


def _touches_usm(parfor, typemap) -> bool:
    return any(isinstance(typemap.get(n), USMArrayType) for n in parfor_vars(parfor))


class OffloadParfors(FunctionPass):
    """Give every parfor that touches USM arrays the numba_ext lowerer."""

    _name = "numba_ext_offload_parfors"

    def __init__(self):
        FunctionPass.__init__(self)

    def run_pass(self, state):
        fuse_regions_into_parfors(
            state.func_ir,
            state.typemap,
            lambda p: _offloaded(p, state.typemap),
            getattr(state, "metadata", None),
        )
        for blk in state.func_ir.blocks.values():
            for inst in blk.body:
                if isinstance(inst, Parfor) and _offloaded(inst, state.typemap):
                    inst.lowerer = lower_parfor_offload
        return False


def _offloaded(parfor, typemap) -> bool:
    """Whether `parfor` runs on a device (it touches USM arrays); an error if it also touches NumPy
    arrays."""
    if not _touches_usm(parfor, typemap):
        return False
    arrays = [n for n in parfor_vars(parfor) if isinstance(typemap.get(n), types.Array)]
    host = [n for n in arrays if not isinstance(typemap[n], USMArrayType)]
    if host:
        raise ExecutionPlacementError(
            f"a parallel loop at {parfor.loc.filename}, line {parfor.loc.line} mixes numba_ext arrays "
            f"with NumPy arrays ({', '.join(sorted(host))}); the queue of the NumPy data cannot be "
            "inferred (compute follows data). Convert them with numba_ext.asarray(x, sycl_queue=q)"
        )
    return True


def parfor_lowering_with_offload(numba_lower):
    """Numba's parfor lowering entry point (``parfor_lowering._lower_parfor_parallel``) wrapped so
    that parfors touching USM arrays take ``lower_parfor_offload``: plain ``@numba.njit(parallel=True)``
    compiles with Numba's own pipeline, which has no OffloadParfors pass, so its parfors reach this
    entry point with no lowerer set, and Numba would build a host gufunc over device arrays. Every
    other parfor goes to Numba unchanged."""

    def lower_parfor(lowerer, parfor):
        if parfor.lowerer is None and _offloaded(parfor, lowerer.fndesc.typemap):
            return lower_parfor_offload(lowerer, parfor)
        return numba_lower(lowerer, parfor)

    return lower_parfor


def lower_parfor_offload(lowerer, parfor):
    builder, context = lowerer.builder, lowerer.context
    typemap = lowerer.fndesc.typemap
    # the arguments of fused regions (parfor_fusion.py) are used only by the launch below, so
    # Numba places their `del`s in the set-up block: those wait until after the launch
    fused_args = {
        n
        for _, _, args in getattr(parfor, "_nx_prologue", []) + getattr(parfor, "_nx_epilogue", [])
        for n in args
    }
    deferred = []
    for inst in parfor.init_block.body:  # host set-up (reduction initial values, ...)
        if isinstance(inst, ir.Del) and inst.value in fused_args:
            deferred.append(inst)
        else:
            lowerer.lower_inst(inst)
    pk = ParforKernel(lowerer, parfor)
    extra_arrays = [n for kind, n in pk.extra if kind in ("pro_array", "epi_array")]
    usm = [n for n in pk.arrays + extra_arrays if isinstance(typemap[n], USMArrayType)]
    device = typemap[usm[0]].device
    kernel = _core.compile_function(pk.spec, device_by_filter(device))
    if lowerer.metadata is not None:  # the compile result's metadata (for inspect_kernels)
        lowerer.metadata.setdefault("numba_ext_kernels", []).append(kernel)
    _KEEP_ALIVE.append(kernel)

    arrays = {
        n: context.make_array(typemap[n])(context, builder, value=lowerer.loadvar(n))
        for n in pk.arrays + extra_arrays
    }
    queue = builder.bitcast(arrays[usm[0]].queue, I8P)
    if len(usm) > 1:
        qs = cgutils.alloca_once(builder, I8P, size=len(usm))
        for i, n in enumerate(usm):
            builder.store(builder.bitcast(arrays[n].queue, I8P), builder.gep(qs, [I32(i)]))
        cname = context.insert_const_string(builder.module, ",".join(usm))
        check = declare(builder, "nx_check_queues", I32, [I8P.as_pointer(), I32, I8P])
        st = builder.call(check, [qs, I32(len(usm)), cname])
        with cgutils.if_unlikely(builder, builder.icmp_signed("!=", st, I32(0))):
            context.call_conv.return_exc(builder)

    slot_vals = []
    for n in pk.arrays:
        ary, t = arrays[n], typemap[n]
        slot_vals.append(builder.ptrtoint(ary.data, I64))
        slot_vals.extend(cgutils.unpack_tuple(builder, ary.shape, t.ndim))
        slot_vals.extend(cgutils.unpack_tuple(builder, ary.strides, t.ndim))
    for n in pk.scalars:
        slot_vals.append(scalar_bits(context, builder, typemap[n], lowerer.loadvar(n)))
    # fused regions (parfor_fusion.py): a prologue's inputs over their broadcast shape, an
    # epilogue's inputs as they are (they have the loop's shape) and its result, allocated here
    counts = []
    for nest in parfor.loop_nests:
        start = _asI64(lowerer, builder, nest.start)
        stop = _asI64(lowerer, builder, nest.stop)
        counts.append(
            (start, builder.select(builder.icmp_signed(">", stop, start), builder.sub(stop, start), I64(0)))
        )
    pro_strides = {}
    for t, _, args in pk.prologue:
        arrs = [(typemap[n], arrays[n]) for n in args if n in arrays]
        shape, _ = broadcast_shape(context, builder, arrs, pk.ndim)
        for n in args:
            if n in arrays:
                pro_strides[t, n] = (shape, broadcast_strides(builder, typemap[n], arrays[n], shape))
    epi_outs = []
    pending_pro = [(t, n) for t, _, args in pk.prologue for n in args if n in arrays]
    for kind, n in pk.extra:
        if kind == "pro_array":
            shape, strides = pro_strides[pending_pro.pop(0)]
            slot_vals.append(builder.ptrtoint(arrays[n].data, I64))
            slot_vals.extend(shape)
            slot_vals.extend(strides)
        elif kind == "epi_array":
            ary, t = arrays[n], typemap[n]
            slot_vals.append(builder.ptrtoint(ary.data, I64))
            slot_vals.extend(cgutils.unpack_tuple(builder, ary.shape, t.ndim))
            slot_vals.extend(cgutils.unpack_tuple(builder, ary.strides, t.ndim))
        elif kind == "epi_out":
            ty = typemap[n]
            shape = [c for _, c in counts]
            nitems = I64(1)
            for c in shape:
                nitems = builder.mul(nitems, c)
            out = allocate_result(context, builder, ty, queue, shape, nitems)
            epi_outs.append((n, ty, out))
            slot_vals.append(builder.ptrtoint(out.data, I64))
            slot_vals.extend(shape)
            slot_vals.extend(cgutils.unpack_tuple(builder, out.strides, ty.ndim))
        else:  # pro_scalar, epi_scalar
            slot_vals.append(scalar_bits(context, builder, typemap[n], lowerer.loadvar(n)))
    # reduction accumulators: one element of device memory each, holding the value from before the
    # loop; written and read back through copies (device memory need not be host-addressable)
    accs = []
    memcpy = declare(builder, "nx_memcpy", I32, [I8P, I8P, I8P, I64])
    release = declare(builder, "NRT_MemInfo_release", llir.VoidType(), [I8P])
    for r in pk.redvars:
        t = typemap[r]
        wide_t = numpy_support.from_dtype(np.dtype(accumulator_dtype(dtype_name(t))))
        size = context.get_abi_sizeof(context.get_data_type(wide_t))
        mi_slot = cgutils.alloca_once(builder, I8P)
        alloc = declare(builder, "nx_usm_alloc", I8P, [I8P, I64, I32, I8P.as_pointer()])
        data = builder.call(alloc, [queue, I64(size), I32(USM_CODES["device"]), mi_slot])
        with cgutils.if_unlikely(builder, cgutils.is_null(builder, data)):
            context.call_conv.return_exc(builder)
        host = cgutils.alloca_once(builder, context.get_data_type(wide_t))
        builder.store(context.cast(builder, lowerer.loadvar(r), t, wide_t), host)
        st = builder.call(memcpy, [queue, data, builder.bitcast(host, I8P), I64(size)])
        with cgutils.if_unlikely(builder, builder.icmp_signed("!=", st, I32(0))):
            builder.call(release, [builder.load(mi_slot)])
            context.call_conv.return_exc(builder)
        accs.append((r, host, data, size, builder.load(mi_slot)))
        slot_vals += [builder.ptrtoint(data, I64), I64(1), I64(size)]
    total = I64(1)
    for start, count in counts:
        slot_vals += [start, count]
        total = builder.mul(total, count)
    slot_vals.append(total)
    slots = cgutils.alloca_once(builder, I64, size=len(slot_vals))
    for i, sv in enumerate(slot_vals):
        builder.store(sv, builder.gep(slots, [I32(i)]))
    gsize = cgutils.alloca_once(builder, I64)
    if pk.redvars:
        cap = I64(REDUCTION_WORK_ITEMS)
        builder.store(builder.select(builder.icmp_signed("<", total, cap), total, cap), gsize)
    else:
        builder.store(total, gsize)
    local = llir.Constant(I64.as_pointer(), None)  # the driver chooses
    if str(device_by_filter(device).target).startswith("ptx"):
        # whole work-groups (the grid-stride loop ignores the extra work-items): NVIDIA's
        # driver, left to choose, picks a divisor of the global size (as small as 1 for a prime)
        wg, g = _core.NVIDIA_WORK_GROUP, builder.load(gsize)
        builder.store(builder.mul(builder.udiv(builder.add(g, I64(wg - 1)), I64(wg)), I64(wg)), gsize)
        local = cgutils.alloca_once_value(builder, I64(wg))
    launch = declare(
        builder,
        "nx_launch_nd",
        I32,
        [I8P, I8P, I64.as_pointer(), I32, I32, I64.as_pointer(), I64.as_pointer()],
    )
    kaddr = context.add_dynamic_addr(builder, kernel.address, info="numba_ext kernel")  # not cacheable
    st = builder.call(launch, [kaddr, queue, slots, I32(len(slot_vals)), I32(1), gsize, local])
    with cgutils.if_unlikely(builder, builder.icmp_signed("!=", st, I32(0))):
        for *_, mi in accs:
            builder.call(release, [mi])
        for _, ty, out in epi_outs:
            context.nrt.decref(builder, ty, out._getvalue())
        context.call_conv.return_exc(builder)
    for n, _, out in epi_outs:
        lowerer.storevar(out._getvalue(), n)
    for inst in deferred:
        lowerer.lower_inst(inst)
    for r, host, data, size, mi in accs:
        st = builder.call(memcpy, [queue, builder.bitcast(host, I8P), data, I64(size)])
        builder.call(release, [mi])
        with cgutils.if_unlikely(builder, builder.icmp_signed("!=", st, I32(0))):
            context.call_conv.return_exc(builder)
        t = typemap[r]
        wide_t = numpy_support.from_dtype(np.dtype(accumulator_dtype(dtype_name(t))))
        lowerer.storevar(context.cast(builder, builder.load(host), wide_t, t), r)


_KEEP_ALIVE: list = []  # compiled kernels referenced by address from compiled host code


def _asI64(lowerer, builder, x):
    if isinstance(x, int):
        return I64(x)
    v = lowerer.loadvar(x.name)
    t = lowerer.fndesc.typemap[x.name]
    if isinstance(t, types.Integer) and t.bitwidth < 64:
        return builder.sext(v, I64) if t.signed else builder.zext(v, I64)
    return v
