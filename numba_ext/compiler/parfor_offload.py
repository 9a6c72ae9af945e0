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
from ..arrays.reductions import CPU_ELEMENTS_PER_WORK_ITEM, CPU_WORK_ITEMS_PER_UNIT
from ..arrays.reductions import unroll as reduction_unroll
from ..devices import device_by_filter
from ..errors import ExecutionPlacementError
from ..ir.kernel_ir import BOUNDS_RECORD_LEN
from ..ir.reductions import WORK_ITEMS as REDUCTION_WORK_ITEMS
from ..ir.reductions import accumulator_dtype
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
from .lazy_refs import KernelRef, lazy_address
from .parfor_fusion import fuse_regions_into_parfors
from .parfor_kernel import ParforKernel, parfor_vars
from .setitem_offload import offload_setitems
from .types import USMArrayType


def _touches_usm(parfor, typemap) -> bool:
    return any(isinstance(typemap.get(n), USMArrayType) for n in parfor_vars(parfor))


class OffloadParfors(FunctionPass):
    """Give every parfor that touches USM arrays the numba_ext lowerer."""

    _name = "numba_ext_offload_parfors"

    def __init__(self):
        FunctionPass.__init__(self)

    def run_pass(self, state):
        offload_setitems(state)
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
    """Lower `parfor` as a kernel launched on its arrays' queue: the host set-up of the init block,
    the kernel (``parfor_kernel.py``), the queue check, the argument slots, the launch, then the
    results (fused epilogues' arrays, reduction variables)."""
    deferred = _lower_init_block(lowerer, parfor)
    typemap = lowerer.fndesc.typemap
    device = next(
        typemap[n].device for n in sorted(parfor_vars(parfor)) if isinstance(typemap.get(n), USMArrayType)
    )
    blocked = reduction_unroll(device_by_filter(device)) > 1  # CPUs: a contiguous run per work-item
    launch = _ParforLaunch(lowerer, parfor, ParforKernel(lowerer, parfor, blocked))
    launch.array_and_scalar_slots()
    counts = launch.loop_counts()
    epi_outs = launch.fused_region_slots(counts)
    accs = launch.reduction_accumulators()
    launch.launch(counts, accs, epi_outs)
    for n, _, out in epi_outs:
        lowerer.storevar(out._getvalue(), n)
    for inst in deferred:
        lowerer.lower_inst(inst)
    launch.read_back_accumulators(accs)


def _lower_init_block(lowerer, parfor) -> list:
    """Lower the parfor's host set-up (reduction initial values, ...) but the `del`s of the
    arguments of fused regions (parfor_fusion.py): used only by the launch, Numba places their
    `del`s in the set-up block, so they are returned, to be lowered after the launch."""
    fused_args = {
        n
        for _, _, args in getattr(parfor, "_nx_prologue", []) + getattr(parfor, "_nx_epilogue", [])
        for n in args
    }
    deferred = []
    for inst in parfor.init_block.body:
        if isinstance(inst, ir.Del) and inst.value in fused_args:
            deferred.append(inst)
        else:
            lowerer.lower_inst(inst)
    return deferred


class _ParforLaunch:
    """The host code launching one parfor's kernel: made with the kernel compiled, the arrays
    loaded and their queues checked; each step appends the values of its argument slots, in the
    order of the kernel's parameters, to `slot_vals`."""

    def __init__(self, lowerer, parfor, pk: ParforKernel):
        self.lowerer, self.parfor, self.pk = lowerer, parfor, pk
        self.builder, self.context = builder, context = lowerer.builder, lowerer.context
        self.typemap = typemap = lowerer.fndesc.typemap
        extra_arrays = [n for kind, n in pk.extra if kind in ("pro_array", "epi_array")]
        usm = [n for n in pk.arrays + extra_arrays if isinstance(typemap[n], USMArrayType)]
        self.device = typemap[usm[0]].device
        self.kernel = kernel = _core.compile_function(pk.spec, device_by_filter(self.device))
        if lowerer.metadata is not None:  # the compile result's metadata (for inspect_kernels)
            lowerer.metadata.setdefault("numba_ext_kernels", []).append(kernel)
        self.arrays = {
            n: context.make_array(typemap[n])(context, builder, value=lowerer.loadvar(n))
            for n in pk.arrays + extra_arrays
        }
        self.queue = builder.bitcast(self.arrays[usm[0]].queue, I8P)
        if len(usm) > 1:
            self._check_queues(usm)
        self.slot_vals: list = []

    def _check_queues(self, usm: list[str]) -> None:
        """Host code raising ExecutionPlacementError where the USM arrays' queues differ."""
        builder, context = self.builder, self.context
        qs = cgutils.alloca_once(builder, I8P, size=len(usm))
        for i, n in enumerate(usm):
            builder.store(builder.bitcast(self.arrays[n].queue, I8P), builder.gep(qs, [I32(i)]))
        cname = context.insert_const_string(builder.module, ",".join(usm))
        check = declare(builder, "nx_check_queues", I32, [I8P.as_pointer(), I32, I8P])
        st = builder.call(check, [qs, I32(len(usm)), cname])
        with cgutils.if_unlikely(builder, builder.icmp_signed("!=", st, I32(0))):
            context.call_conv.return_exc(builder)

    def _array_slots(self, n: str) -> None:
        ary, t = self.arrays[n], self.typemap[n]
        self.slot_vals.append(self.builder.ptrtoint(ary.data, I64))
        self.slot_vals.extend(cgutils.unpack_tuple(self.builder, ary.shape, t.ndim))
        self.slot_vals.extend(cgutils.unpack_tuple(self.builder, ary.strides, t.ndim))

    def _scalar_slot(self, n: str) -> None:
        value = self.lowerer.loadvar(n)
        self.slot_vals.append(scalar_bits(self.context, self.builder, self.typemap[n], value))

    def array_and_scalar_slots(self) -> None:
        """The slots of the loop body's arrays and scalars."""
        for n in self.pk.arrays:
            self._array_slots(n)
        for n in self.pk.scalars:
            self._scalar_slot(n)

    def loop_counts(self) -> list:
        """Per loop nest: (start, iteration count), as int64 values."""
        builder = self.builder
        counts = []
        for nest in self.parfor.loop_nests:
            start = _asI64(self.lowerer, builder, nest.start)
            stop = _asI64(self.lowerer, builder, nest.stop)
            count = builder.select(builder.icmp_signed(">", stop, start), builder.sub(stop, start), I64(0))
            counts.append((start, count))
        return counts

    def fused_region_slots(self, counts: list) -> list:
        """The slots of fused regions (parfor_fusion.py): a prologue's inputs over their broadcast
        shape, an epilogue's inputs as they are (they have the loop's shape) and its result,
        allocated here. Returns the results: (variable, type, array)."""
        builder, context, typemap, arrays, pk = self.builder, self.context, self.typemap, self.arrays, self.pk
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
                self.slot_vals.append(builder.ptrtoint(arrays[n].data, I64))
                self.slot_vals.extend(shape)
                self.slot_vals.extend(strides)
            elif kind == "epi_array":
                self._array_slots(n)
            elif kind == "epi_out":
                ty = typemap[n]
                shape = [c for _, c in counts]
                nitems = I64(1)
                for c in shape:
                    nitems = builder.mul(nitems, c)
                out = allocate_result(context, builder, ty, self.queue, shape, nitems)
                epi_outs.append((n, ty, out))
                self.slot_vals.append(builder.ptrtoint(out.data, I64))
                self.slot_vals.extend(shape)
                self.slot_vals.extend(cgutils.unpack_tuple(builder, out.strides, ty.ndim))
            else:  # pro_scalar, epi_scalar
                self._scalar_slot(n)
        return epi_outs

    def reduction_accumulators(self) -> list:
        """Reduction accumulators: one element of device memory each, holding the value from before
        the loop; written and read back through copies (device memory need not be host-addressable).
        Returns per reduction variable (variable, host copy, device data, size, meminfo)."""
        builder, context, queue = self.builder, self.context, self.queue
        accs = []
        memcpy = declare(builder, "nx_memcpy", I32, [I8P, I8P, I8P, I64])
        release = declare(builder, "NRT_MemInfo_release", llir.VoidType(), [I8P])
        for r in self.pk.redvars:
            t = self.typemap[r]
            wide_t = _accumulator_type(t)
            size = context.get_abi_sizeof(context.get_data_type(wide_t))
            mi_slot = cgutils.alloca_once(builder, I8P)
            alloc = declare(builder, "nx_usm_alloc", I8P, [I8P, I64, I32, I8P.as_pointer()])
            data = builder.call(alloc, [queue, I64(size), I32(USM_CODES["device"]), mi_slot])
            with cgutils.if_unlikely(builder, cgutils.is_null(builder, data)):
                context.call_conv.return_exc(builder)
            host = cgutils.alloca_once(builder, context.get_data_type(wide_t))
            builder.store(context.cast(builder, self.lowerer.loadvar(r), t, wide_t), host)
            st = builder.call(memcpy, [queue, data, builder.bitcast(host, I8P), I64(size)])
            with cgutils.if_unlikely(builder, builder.icmp_signed("!=", st, I32(0))):
                builder.call(release, [builder.load(mi_slot)])
                context.call_conv.return_exc(builder)
            accs.append((r, host, data, size, builder.load(mi_slot)))
            self.slot_vals += [builder.ptrtoint(data, I64), I64(1), I64(size)]
        return accs

    def launch(self, counts: list, accs: list, epi_outs: list) -> None:
        """The loop bounds' slots, then the launch (one work-item per iteration, or a capped number
        running a grid-stride loop for reductions); on failure, frees what was allocated."""
        builder, context = self.builder, self.context
        total = I64(1)
        for start, count in counts:
            self.slot_vals += [start, count]
            total = builder.mul(total, count)
        self.slot_vals.append(total)
        record = self._bounds_record(accs, epi_outs)
        slots = cgutils.alloca_once(builder, I64, size=len(self.slot_vals))
        for i, sv in enumerate(self.slot_vals):
            builder.store(sv, builder.gep(slots, [I32(i)]))
        gsize = cgutils.alloca_once(builder, I64)
        local = llir.Constant(I64.as_pointer(), None)  # the driver chooses
        if self.pk.redvars and self.pk.blocked:
            # as the eager reductions over every element on a CPU: a few runs per compute unit, each
            # of at least CPU_ELEMENTS_PER_WORK_ITEM iterations, in work-groups of one
            most = I64(CPU_WORK_ITEMS_PER_UNIT * device_by_filter(self.device).max_compute_units)
            runs = builder.sdiv(
                builder.add(total, I64(CPU_ELEMENTS_PER_WORK_ITEM - 1)), I64(CPU_ELEMENTS_PER_WORK_ITEM)
            )
            runs = builder.select(builder.icmp_signed("<", runs, most), runs, most)
            builder.store(builder.select(builder.icmp_signed("<", runs, I64(1)), I64(1), runs), gsize)
            local = cgutils.alloca_once_value(builder, I64(1))
        elif self.pk.redvars:
            cap = I64(REDUCTION_WORK_ITEMS)
            builder.store(builder.select(builder.icmp_signed("<", total, cap), total, cap), gsize)
        else:
            builder.store(total, gsize)
        if str(device_by_filter(self.device).target).startswith("ptx"):
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
        kaddr = lazy_address(context, builder, KernelRef(self.kernel, self.pk.spec, self.device))
        st = builder.call(launch, [kaddr, self.queue, slots, I32(len(self.slot_vals)), I32(1), gsize, local])
        if record is not None:  # the launch's status, else the bounds check's
            st_slot = cgutils.alloca_once_value(builder, st)
            with builder.if_else(builder.icmp_signed("==", st, I32(0))) as (ok, failed):
                with ok:
                    builder.store(self._check_bounds(record), st_slot)
                with failed:
                    builder.call(declare(builder, "NRT_MemInfo_release", llir.VoidType(), [I8P]), [record[1]])
            st = builder.load(st_slot)
        with cgutils.if_unlikely(builder, builder.icmp_signed("!=", st, I32(0))):
            self._release(accs, epi_outs)
            context.call_conv.return_exc(builder)

    def _release(self, accs: list, epi_outs: list, record=None) -> None:
        """Free the accumulators, the fused results and the bounds record, on a failure."""
        release = declare(self.builder, "NRT_MemInfo_release", llir.VoidType(), [I8P])
        for mi in [mi for *_, mi in accs] + ([] if record is None else [record[1]]):
            self.builder.call(release, [mi])
        for _, ty, out in epi_outs:
            self.context.nrt.decref(self.builder, ty, out._getvalue())

    def _bounds_record(self, accs: list, epi_outs: list):
        """For a bounds-checked kernel: its zeroed error record (device memory, the last argument's
        slots appended), as (data, meminfo); else None."""
        if self.pk.spec.bounds is None:
            return None
        builder, context = self.builder, self.context
        mi_slot = cgutils.alloca_once(builder, I8P)
        alloc = declare(builder, "nx_usm_alloc", I8P, [I8P, I64, I32, I8P.as_pointer()])
        nbytes = I64(8 * BOUNDS_RECORD_LEN)
        data = builder.call(alloc, [self.queue, nbytes, I32(USM_CODES["device"]), mi_slot])
        with cgutils.if_unlikely(builder, cgutils.is_null(builder, data)):
            self._release(accs, epi_outs)
            context.call_conv.return_exc(builder)
        record = (data, builder.load(mi_slot))
        fill = declare(builder, "nx_usm_fill", I32, [I8P, I8P, I8P, I64, I64])
        zero = cgutils.alloca_once_value(builder, llir.IntType(8)(0))
        st = builder.call(fill, [self.queue, data, zero, I64(1), nbytes])
        with cgutils.if_unlikely(builder, builder.icmp_signed("!=", st, I32(0))):
            self._release(accs, epi_outs, record)
            context.call_conv.return_exc(builder)
        self.slot_vals += [builder.ptrtoint(data, I64), I64(BOUNDS_RECORD_LEN), I64(8)]
        return record

    def _check_bounds(self, record):
        """After the launch: 0, or -1 with an IndexError set from the record; frees the record."""
        builder, spec = self.builder, self.pk.spec
        where = f"line {self.parfor.loc.line} of {self.lowerer.fndesc.qualname}"
        what = f"prange loop at {where} (kernel {spec.name})"
        check = declare(builder, "nx_bounds_check", I32, [I8P, I8P, I8P, I8P])
        names = ",".join(a.name for a in spec.arrays)
        cwhat = self.context.insert_const_string(builder.module, what)
        cnames = self.context.insert_const_string(builder.module, names)
        st = builder.call(check, [self.queue, record[0], cwhat, cnames])
        builder.call(declare(builder, "NRT_MemInfo_release", llir.VoidType(), [I8P]), [record[1]])
        return st

    def read_back_accumulators(self, accs: list) -> None:
        """Copy each accumulator back, free it, and store its value (in the variable's type)."""
        builder, context = self.builder, self.context
        memcpy = declare(builder, "nx_memcpy", I32, [I8P, I8P, I8P, I64])
        release = declare(builder, "NRT_MemInfo_release", llir.VoidType(), [I8P])
        for r, host, data, size, mi in accs:
            st = builder.call(memcpy, [self.queue, builder.bitcast(host, I8P), data, I64(size)])
            builder.call(release, [mi])
            with cgutils.if_unlikely(builder, builder.icmp_signed("!=", st, I32(0))):
                context.call_conv.return_exc(builder)
            t = self.typemap[r]
            value = context.cast(builder, builder.load(host), _accumulator_type(t), t)
            self.lowerer.storevar(value, r)


def _accumulator_type(t):
    """The Numba type of the device accumulator of a reduction variable of type `t`."""
    return numpy_support.from_dtype(np.dtype(accumulator_dtype(dtype_name(t))))


def _asI64(lowerer, builder, x):
    if isinstance(x, int):
        return I64(x)
    v = lowerer.loadvar(x.name)
    t = lowerer.fndesc.typemap[x.name]
    if isinstance(t, types.Integer) and t.bitwidth < 64:
        return builder.sext(v, I64) if t.signed else builder.zext(v, I64)
    return v
