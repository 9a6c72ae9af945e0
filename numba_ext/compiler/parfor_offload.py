"""Offloading parfors: ``prange`` loops and the NumPy calls Numba's ParforPass turns into loops
(``np.sum``, ``np.prod``, ...). A compiler pass marks every parfor that touches USM arrays with our
lowerer (Numba's ``parfor.lowerer`` hook). The lowerer translates the loop body to the control-flow
kernel IR and emits the launch on the arrays' queue.

Kernel shape: one work-item per iteration of the flattened iteration space when there is no reduction
(a bounds check, no loop: the Intel CPU runtime vectorises such kernels across work-items, not a
loop); with reductions, a grid-stride loop over a capped number of work-items; reduction variables are private partials, started at the operation's identity
and combined once per work-item into a one-element accumulator with an atomic. The accumulator holds
the variable's value from before the loop, so `s = 1; for i in prange(n): s += a[i]` keeps its 1."""

from __future__ import annotations

import hashlib
import operator
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import llvmlite.ir as llir
import numpy as np
from numba.core import cgutils, ir, types
from numba.core.compiler_machinery import FunctionPass
from numba.np import numpy_support
from numba.parfors.parfor import Parfor

from .. import _core
from ..devices import device_by_filter
from ..errors import ExecutionPlacementError, UnsupportedError
from .function_builder import ArrayRef, Element, FunctionBuilder, const
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
from .kernel_ir import (
    ArrayParam,
    Atomic,
    Binary,
    BinaryInst,
    Branch,
    Cast,
    CastInst,
    Const,
    Copy,
    Function,
    Inst,
    Jump,
    KernelSpec,
    Load,
    LoadInst,
    Local,
    Operand,
    Return,
    ScalarArg,
    Select,
    SelectInst,
    Store,
    StoreInst,
    Unary,
    UnaryInst,
    WorkItem,
)
from .kernel_translate import Translator
from .kernelspec import dtype_name
from .parfor_fusion import fuse_regions_into_parfors
from .types import USMArrayType

_REDOPS = {
    operator.iadd: "add",
    operator.add: "add",
    operator.isub: "add",
    operator.sub: "add",
    operator.imul: "mul",
    operator.mul: "mul",
    min: "min",
    max: "max",
}
REDUCTION_WORK_ITEMS = 1 << 14


def _identity(op: str, dtype: str):
    if op == "add":
        return 0
    if op == "mul":
        return 1
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return op == "min"
    if dt.kind == "f":
        return float("inf") if op == "min" else float("-inf")
    info = np.iinfo(dt)
    return int(info.max) if op == "min" else int(info.min)


def accumulator_dtype(dtype: str) -> str:
    """The dtype of a reduction's device accumulator: device atomics work on 32- and 64-bit values,
    so booleans and 8- and 16-bit integers accumulate in 32 bits (truncated back on the host; sums
    and products still wrap as in the narrow type)."""
    dt = np.dtype(dtype)
    if dt.kind in "biu" and dt.itemsize < 4:
        return "uint32" if dt.kind == "u" else "int32"
    return dt.name


def _redop_from_nodes(info, func_ir):
    """Numba leaves `redop` unset for min/max reductions (`v = min(v, x)`); find the call."""
    for node in info.reduce_nodes or ():
        if isinstance(node, ir.Assign) and isinstance(node.value, ir.Expr) and node.value.op == "call":
            try:
                d = func_ir.get_definition(node.value.func)
            except Exception:
                continue
            fn = getattr(d, "value", None)
            if fn in (min, max):
                return fn.__name__
    return None


def _definitions(blocks) -> tuple[set[str], set[str]]:
    """Variables assigned in `blocks` (including nested parfors) and nested parfors' index variables."""
    defined, indices = set(), set()
    for blk in blocks:
        for stmt in blk.body:
            if isinstance(stmt, ir.Assign):
                defined.add(stmt.target.name)
            elif isinstance(stmt, Parfor):
                d, i = _definitions([stmt.init_block, *stmt.loop_body.values()])
                defined |= d
                indices |= i | {n.index_variable.name for n in stmt.loop_nests} | {stmt.index_var.name}
    return defined, indices


def _parfor_vars(parfor, with_init=True) -> set[str]:
    names = set()
    for blk in ([parfor.init_block] if with_init else []) + list(parfor.loop_body.values()):
        for stmt in blk.body:
            names.update(v.name for v in stmt.list_vars())
    for nest in parfor.loop_nests:
        for x in (nest.start, nest.stop, nest.step):
            if isinstance(x, ir.Var):
                names.add(x.name)
    return names


def _touches_usm(parfor, typemap) -> bool:
    return any(isinstance(typemap.get(n), USMArrayType) for n in _parfor_vars(parfor))


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
    arrays = [n for n in _parfor_vars(parfor) if isinstance(typemap.get(n), types.Array)]
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


class _ParforKernel:
    """The kernel translated from one parfor, with the plan for its arguments."""

    def __init__(self, lowerer, parfor):
        typemap = lowerer.fndesc.typemap
        self.parfor = parfor
        defined, index_names = _definitions(parfor.loop_body.values())
        index_names |= {n.index_variable.name for n in parfor.loop_nests} | {parfor.index_var.name}
        self.redvars = list(parfor.redvars)
        self.redops = {}
        for r in self.redvars:
            info = parfor.reddict[r]
            op = _REDOPS.get(info.redop) or _redop_from_nodes(info, lowerer.func_ir)
            if op is None:
                raise UnsupportedError(
                    f"the reduction operator {getattr(info.redop, '__name__', info.redop)} of '{r}' (line "
                    f"{parfor.loc.line}) cannot be offloaded; use +=, -=, *=, min or max"
                )
            self.redops[r] = op
        # regions fused into this loop (parfor_fusion.py): (output, launch intrinsic, argument names)
        self.prologue = list(getattr(parfor, "_nx_prologue", ()))
        self.epilogue = list(getattr(parfor, "_nx_epilogue", ()))
        self.extra: list[tuple[str, str]] = []  # their parameters, in order: (kind, variable)
        fused = {t for t, _, _ in self.prologue}
        used = _parfor_vars(parfor, with_init=False)  # the init block is host code, lowered first
        free = sorted(
            n for n in used if n not in defined and n not in index_names and n in typemap and n not in fused
        )
        # loop bounds are host values, passed separately
        for nest in parfor.loop_nests:
            if not (nest.step == 1 or (isinstance(nest.step, ir.Var) and False)):
                raise UnsupportedError(f"a parallel loop with step {nest.step} (line {parfor.loc.line})")
        bound_names = {
            x.name for nest in parfor.loop_nests for x in (nest.start, nest.stop) if isinstance(x, ir.Var)
        }
        self.arrays = [n for n in free if isinstance(typemap[n], types.Array) and n not in self.redvars]
        self.scalars = [
            n
            for n in free
            if isinstance(typemap[n], (types.Number, types.Boolean))
            and n not in self.redvars
            and (n not in bound_names or self._used_in_body(parfor, n))
        ]
        others = [
            n
            for n in free
            if n not in self.arrays
            and n not in self.scalars
            and n not in self.redvars
            and n not in bound_names
            and not isinstance(
                typemap[n],
                (types.Function, types.Module, types.NumberClass, types.Dispatcher, types.DTypeSpec),
            )
        ]
        if others:
            raise UnsupportedError(
                f"values of types {sorted({str(typemap[n]) for n in others})} used in the parallel loop at line "
                f"{parfor.loc.line} cannot be passed to a kernel"
            )
        self.ndim = len(parfor.loop_nests)
        self.spec = self._build(lowerer, typemap, index_names)

    @staticmethod
    def _used_in_body(parfor, name) -> bool:
        return any(
            name in {v.name for v in st.list_vars()} for b in parfor.loop_body.values() for st in b.body
        )

    def _build(self, lowerer: Any, typemap: dict[str, types.Type], index_names: set[str]) -> Function:
        parfor = self.parfor
        fb = FunctionBuilder("")
        tr = Translator(fb, lowerer.func_ir, typemap, lowerer.fndesc.calltypes)
        for n in self.arrays:
            t = typemap[n]
            tr.vals[n] = ArrayRef(fb.array_param(_safe(n), dtype_name(t), t.ndim, t.layout == "C"))
        for n in self.scalars:
            tr.vals[n] = Local(fb.scalar_param(dtype_name(typemap[n])))
        fused_params = []  # per fused region: the operand of each spec parameter
        for part, regions in (("pro", self.prologue), ("epi", self.epilogue)):
            for t, fn, args in regions:
                ops: list[ArrayRef | Local] = []
                for p, name in zip(fn._nx_spec.params, [*args, t]):
                    if name == t and part == "pro":
                        continue  # the prologue's output: never stored
                    if isinstance(p, ArrayParam):
                        out = name == t and part == "epi"
                        # prologue inputs: read through broadcast strides (host-computed); epilogue
                        # inputs have the loop's shape (parfor_fusion.py checks it)
                        contiguous = out or (part == "epi" and typemap[name].layout == "C")
                        ops.append(
                            ArrayRef(fb.array_param(f"{part}_{_safe(name)}", p.dtype, self.ndim, contiguous))
                        )
                        self.extra.append((f"{part}_out" if out else f"{part}_array", name))
                    else:
                        ops.append(Local(fb.scalar_param(p.dtype)))
                        self.extra.append((f"{part}_scalar", name))
                fused_params.append((part, t, fn._nx_spec, ops))
        acc = {}
        for r in self.redvars:
            acc[r] = fb.array_param(f"acc{len(acc)}", accumulator_dtype(dtype_name(typemap[r])), 1, True)
        bounds = [(fb.scalar_param("int64"), fb.scalar_param("int64")) for _ in parfor.loop_nests]
        total = fb.scalar_param("int64")

        entry, head, pre, latch, exit_ = (fb.new_block() for _ in range(5))
        gid, gsize, lin, cond = (fb.new_local(dt) for dt in ("int64", "int64", "int64", "bool"))
        fb.emit(
            entry,
            WorkItem(gid, "get_global_id", 0),
            WorkItem(gsize, "get_global_size", 0),
            Copy(lin, Local(gid)),
        )
        partial = {}
        for r in self.redvars:
            dt = dtype_name(typemap[r])
            partial[r] = fb.new_local(dt)
            fb.emit(entry, Copy(partial[r], const(dt, _identity(self.redops[r], dt))))
            tr.vals[r] = Local(partial[r])
        fb.terminate(entry, Jump(head))
        fb.emit(head, BinaryInst(cond, "lt", Local(lin), Local(total)))
        fb.terminate(head, Branch(Local(cond), pre, exit_))
        # unravel the flat index over the loop nest (C order) and bind the index variables
        rest: Operand = Local(lin)
        idx_locals = [0] * self.ndim
        for d in reversed(range(self.ndim)):
            start, count = bounds[d]
            q, rem, i = fb.new_local("int64"), fb.new_local("int64"), fb.new_local("int64")
            if d > 0:
                fb.emit(
                    pre,
                    BinaryInst(rem, "rem", rest, Local(count)),
                    BinaryInst(q, "floordiv", rest, Local(count)),
                )
                rest = Local(q)
            else:
                fb.emit(pre, Copy(rem, rest))
            fb.emit(pre, BinaryInst(i, "add", Local(rem), Local(start)))
            idx_locals[d] = i
        for d, nest in enumerate(parfor.loop_nests):
            name = nest.index_variable.name
            want = dtype_name(typemap[name])
            loc = fb.new_local(want)
            fb.emit(
                pre,
                CastInst(loc, Local(idx_locals[d])) if want != "int64" else Copy(loc, Local(idx_locals[d])),
            )
            tr.vals[name] = Local(loc)
        if parfor.index_var.name not in tr.vals:
            tr.vals[parfor.index_var.name] = [tr.vals[n.index_variable.name] for n in parfor.loop_nests]
        index = tuple(Local(i) for i in idx_locals)
        for part, t, spec, ops in fused_params:
            if part == "pro":  # the region's element at this index, where the body reads t[index]
                tr.vals[t] = Element(_emit_region(fb, pre, spec, ops, index))
        tr.translate(entry_block=pre, blocks=parfor.loop_body, exit_block=latch)
        for part, _, spec, ops in fused_params:
            if part == "epi":  # after the body: the region's element from the values just stored
                _emit_region(fb, latch, spec, ops, index)
        if self.redvars:  # a grid-stride loop
            fb.emit(latch, BinaryInst(lin, "add", Local(lin), Local(gsize)))
            fb.terminate(latch, Jump(head))
        else:  # one work-item per iteration: no loop, so that drivers vectorise across work-items
            fb.terminate(latch, Jump(exit_))
        for r in self.redvars:
            value: Operand = Local(partial[r])
            wide = accumulator_dtype(dtype_name(typemap[r]))
            if wide != dtype_name(typemap[r]):
                w = fb.new_local(wide)
                fb.emit(exit_, CastInst(w, value))
                value = Local(w)
            fb.emit(exit_, Atomic(None, self.redops[r], acc[r], (const("int64", 0),), value, None))
        fb.terminate(exit_, Return())
        f = fb.function()
        return replace(f, name="nx_p" + hashlib.sha1(repr(f).encode()).hexdigest()[:16])


def _safe(name: str) -> str:
    """A Numba variable name as a kernel parameter name."""
    return name.replace(".", "_").replace("$", "_")


def _emit_region(
    fb: FunctionBuilder, block: int, spec: KernelSpec, ops: list[ArrayRef | Local], index: tuple[Operand, ...]
) -> Operand | None:
    """Append to `block` the instructions computing a region's KernelSpec (kernelspec.py) at one
    element `index` (int64 operands): `ops` are the operands of its parameters (arrays, scalar
    locals; an output parameter without operand is not stored). Returns the operand of the last
    stored value."""
    vals: list[Operand | None] = []
    last = None

    def new(dt: str, inst: Callable[..., Inst], *args: object) -> Operand:
        loc = fb.new_local(dt)
        fb.emit(block, inst(loc, *args))
        return Local(loc)

    def val(i: int) -> Operand:
        v = vals[i]
        if v is None:
            raise UnsupportedError("internal: a stored value used as an operand in a fused loop")
        return v

    def param(p: int) -> int:
        return ops[p].index

    v: Operand | None
    for node in spec.nodes:
        match node:
            case Load(dtype=dt, param=p):
                v = new(dt, LoadInst, param(p), index)
            case ScalarArg(param=p):
                scalar = ops[p]
                if not isinstance(scalar, Local):
                    raise UnsupportedError("internal: a scalar parameter without a local in a fused loop")
                v = scalar
            case Const(dtype=dt, value=c):
                v = const(dt, c)
            case Cast(dtype=dt, arg=a):
                v = val(a) if fb.dtype_of(val(a)) == dt else new(dt, CastInst, val(a))
            case Unary(dtype=dt, op=name, arg=a):
                v = new(dt, UnaryInst, name, val(a))
            case Binary(dtype=dt, op=name, lhs=x, rhs=y):
                v = new(dt, BinaryInst, name, val(x), val(y))
            case Select(dtype=dt, cond=c, a=x, b=y):
                v = new(dt, SelectInst, val(c), val(x), val(y))
            case Store(param=p, value=x):
                last = val(x)
                if p < len(ops):
                    fb.emit(block, StoreInst(param(p), index, last))
                v = None
            case _:
                raise UnsupportedError(f"internal: region node {node!r} in a fused loop")
        vals.append(v)
    return last


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
    pk = _ParforKernel(lowerer, parfor)
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
    for t, fn, args in pk.prologue:
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
