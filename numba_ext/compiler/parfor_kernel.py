"""The kernel of an offloaded parfor (``parfor_offload.py``): which variables become parameters, and
the loop body translated to the control-flow form of the kernel IR (``kernel_ir.Function``), with the
array expressions fused into the loop (``parfor_fusion.py``) computed per element.

Kernel shape: one work-item per iteration of the flattened iteration space when there is no reduction
(a bounds check, no loop: the Intel CPU runtime vectorises such kernels across work-items, not a
loop); with reductions, a loop over each work-item's share of a capped number of work-items:
strided on GPUs (``gid, gid + global size, ...``: neighbouring work-items read neighbouring
elements) and, on CPUs (``blocked``), one contiguous run per work-item, launched in work-groups of
one, which the CPU runtime runs as streaming scalar loops (strided, each load is a gather a page
away from the last: see ``ir.reductions``). Reduction variables are private partials, started at
the operation's identity and combined once per work-item into a one-element accumulator with an
atomic. The accumulator holds the variable's value from before the
loop, so `s = 1; for i in prange(n): s += a[i]` keeps its 1."""

from __future__ import annotations

import hashlib
import operator
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from numba.core import ir, types
from numba.parfors.parfor import Parfor

from ..errors import UnsupportedError
from ..ir import complex_lowering
from ..ir.kernel_ir import (
    ArrayParam,
    Atomic,
    BinaryInst,
    Branch,
    CastInst,
    Copy,
    Function,
    Imm,
    Jump,
    KernelSpec,
    Local,
    Operand,
    Return,
    WorkItem,
)
from ..ir.reductions import accumulator_dtype, identity
from .bounds import add_bounds_array
from .function_builder import ArrayRef, Element, FunctionBuilder, const, emit_spec_element
from .kernel_translate import Translator
from .kernelspec import dtype_name

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


def _redop_from_nodes(info: Any, func_ir: ir.FunctionIR) -> str | None:
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


def _definitions(blocks: Iterable[ir.Block]) -> tuple[set[str], set[str]]:
    """Variables assigned in `blocks` (including nested parfors) and nested parfors' index variables."""
    defined: set[str] = set()
    indices: set[str] = set()
    for blk in blocks:
        for stmt in blk.body:
            if isinstance(stmt, ir.Assign):
                defined.add(stmt.target.name)
            elif isinstance(stmt, Parfor):
                d, i = _definitions([stmt.init_block, *stmt.loop_body.values()])
                defined |= d
                indices |= i | {n.index_variable.name for n in stmt.loop_nests} | {stmt.index_var.name}
    return defined, indices


def parfor_vars(parfor: Parfor, with_init: bool = True) -> set[str]:
    """The names of the variables a parfor uses (loop bounds included)."""
    names: set[str] = set()
    for blk in ([parfor.init_block] if with_init else []) + list(parfor.loop_body.values()):
        for stmt in blk.body:
            names.update(v.name for v in stmt.list_vars())
    for nest in parfor.loop_nests:
        for x in (nest.start, nest.stop, nest.step):
            if isinstance(x, ir.Var):
                names.add(x.name)
    return names


class ParforKernel:
    """The kernel translated from one parfor, with the plan for its arguments."""

    def __init__(self, lowerer: Any, parfor: Parfor, blocked: bool = False) -> None:
        typemap = lowerer.fndesc.typemap
        self.parfor = parfor
        #: a reduction's loop takes one contiguous run per work-item (CPUs), not a strided one
        self.blocked = blocked
        defined, index_names = _definitions(parfor.loop_body.values())
        index_names |= {n.index_variable.name for n in parfor.loop_nests} | {parfor.index_var.name}
        self.redvars = list(parfor.redvars)
        self.redops: dict[str, str] = {}
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
        used = parfor_vars(parfor, with_init=False)  # the init block is host code, lowered first
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
                f"values of types {sorted({str(typemap[n]) for n in others})} used in the parallel loop at "
                f"line {parfor.loc.line} cannot be passed to a kernel"
            )
        self.ndim = len(parfor.loop_nests)
        self.spec = self._build(lowerer, typemap, index_names)

    @staticmethod
    def _used_in_body(parfor: Parfor, name: str) -> bool:
        return any(
            name in {v.name for v in st.list_vars()} for b in parfor.loop_body.values() for st in b.body
        )

    def _build(self, lowerer: Any, typemap: dict[str, Any], index_names: set[str]) -> Function:
        """The kernel: its parameters, then the loop (see the module documentation): the flat index
        unravelled over the loop nest, the fused prologues, the body, the fused epilogues and, with
        reductions, the combination of the partials into the accumulators."""
        parfor = self.parfor
        fb = FunctionBuilder("")
        tr = Translator(fb, lowerer.func_ir, typemap, lowerer.fndesc.calltypes)
        fused_params = self._parameters(fb, tr, typemap)
        acc: dict[str, int] = {}
        for r in self.redvars:
            acc[r] = fb.array_param(f"acc{len(acc)}", accumulator_dtype(dtype_name(typemap[r])), 1, True)
        bounds = [(fb.scalar_param("int64"), fb.scalar_param("int64")) for _ in parfor.loop_nests]
        total = fb.scalar_param("int64")

        loop = _Loop(fb, self.blocked and bool(self.redvars))
        partial = loop.start(self.redvars, self.redops, tr, typemap, total)
        # a constant start (prange(n): 0) keeps the indices visibly non-negative: no wrap code
        starts = [const("int64", n.start) if isinstance(n.start, int) else None for n in parfor.loop_nests]
        idx_locals = loop.unravel(bounds, starts)
        for d, nest in enumerate(parfor.loop_nests):
            name = nest.index_variable.name
            want = dtype_name(typemap[name])
            loc = fb.new_local(want)
            fb.emit(
                loop.pre,
                CastInst(loc, Local(idx_locals[d])) if want != "int64" else Copy(loc, Local(idx_locals[d])),
            )
            tr.vals[name] = Local(loc)
        if parfor.index_var.name not in tr.vals:
            tr.vals[parfor.index_var.name] = [tr.vals[n.index_variable.name] for n in parfor.loop_nests]
        index = tuple(Local(i) for i in idx_locals)
        for part, t, spec, ops in fused_params:
            if part == "pro":  # the region's element at this index, where the body reads t[index]
                elem = emit_spec_element(fb, loop.pre, spec, ops, index)
                if elem is None:
                    raise UnsupportedError(f"internal: a fused region without a stored value ({t})")
                tr.vals[t] = Element(elem)
        tr.translate(entry_block=loop.pre, blocks=parfor.loop_body, exit_block=loop.latch)
        for part, _, spec, ops in fused_params:
            if part == "epi":  # after the body: the region's element from the values just stored
                emit_spec_element(fb, loop.latch, spec, ops, index)
        loop.finish(bool(self.redvars))
        for r in self.redvars:
            value: Operand = Local(partial[r])
            wide = accumulator_dtype(dtype_name(typemap[r]))
            if wide != dtype_name(typemap[r]):
                w = fb.new_local(wide)
                fb.emit(loop.exit, CastInst(w, value))
                value = Local(w)
            complex_lowering.check_reduction(self.redops[r], wide)
            fb.emit(loop.exit, Atomic(None, self.redops[r], acc[r], (const("int64", 0),), value, None))
        fb.terminate(loop.exit, Return())
        # jit(boundscheck=True) / NUMBA_BOUNDSCHECK, as Numba's context resolves them
        f = fb.function(bounds=add_bounds_array(fb) if lowerer.context.enable_boundscheck else None)
        return replace(f, name="nx_p" + hashlib.sha1(repr(f).encode()).hexdigest()[:16])

    def _parameters(
        self, fb: FunctionBuilder, tr: Translator, typemap: dict[str, Any]
    ) -> list[tuple[str, str, KernelSpec, list[ArrayRef | Local]]]:
        """The parameters of the body's arrays and scalars, then those of the fused regions
        (recorded in `extra`). Returns per region: (part, output, its KernelSpec, the operands of
        its parameters)."""
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
        return fused_params


class _Loop:
    """The blocks and locals of a parfor kernel's loop over the flat index `lin`: `entry` (the
    work-item's first index, the reduction partials), `head` (the bounds check), `pre` (the body's
    entry, where the index is unravelled), `latch` (after the body), `exit`. `blocked`: each
    work-item's indices are one contiguous run (see the module documentation)."""

    def __init__(self, fb: FunctionBuilder, blocked: bool = False) -> None:
        self.fb = fb
        self.blocked = blocked
        self.entry, self.head, self.pre, self.latch, self.exit = (fb.new_block() for _ in range(5))
        self.gid, self.gsize, self.lin, self.cond = (
            fb.new_local(dt) for dt in ("int64", "int64", "int64", "bool")
        )

    def start(
        self, redvars: list[str], redops: dict[str, str], tr: Translator, typemap: dict[str, Any], total: int
    ) -> dict[str, int]:
        """The entry block and the bounds check (`lin` < `total`). Returns the locals of the
        reduction partials, started at their operation's identity."""
        fb = self.fb
        fb.emit(
            self.entry, WorkItem(self.gid, "get_global_id", 0), WorkItem(self.gsize, "get_global_size", 0)
        )
        end = None
        if self.blocked:  # the run gid * per .. gid * per + per - 1, per = ceil(total / global size)
            per, end = fb.new_local("int64"), fb.new_local("int64")
            fb.emit(
                self.entry,
                BinaryInst(per, "add", Local(total), Local(self.gsize)),
                BinaryInst(per, "sub", Local(per), const("int64", 1)),
                BinaryInst(per, "floordiv", Local(per), Local(self.gsize)),
                BinaryInst(self.lin, "mul", Local(self.gid), Local(per)),
                BinaryInst(end, "add", Local(self.lin), Local(per)),
            )
        else:
            fb.emit(self.entry, Copy(self.lin, Local(self.gid)))
        partial = {}
        for r in redvars:
            dt = dtype_name(typemap[r])
            partial[r] = fb.new_local(dt)
            fb.emit(self.entry, Copy(partial[r], const(dt, identity(redops[r], dt))))
            tr.vals[r] = Local(partial[r])
        fb.terminate(self.entry, Jump(self.head))
        fb.emit(self.head, BinaryInst(self.cond, "lt", Local(self.lin), Local(total)))
        if end is not None:  # and before the run's end (no integer minimum: see ir.reductions)
            in_run = fb.new_local("bool")
            fb.emit(
                self.head,
                BinaryInst(in_run, "lt", Local(self.lin), Local(end)),
                BinaryInst(self.cond, "and", Local(self.cond), Local(in_run)),
            )
        fb.terminate(self.head, Branch(Local(self.cond), self.pre, self.exit))
        return partial

    def unravel(self, bounds: list[tuple[int, int]], starts: list[Imm | None]) -> list[int]:
        """Unravel the flat index over the loop nest (C order; `bounds`: per nest the locals of its
        start and count; `starts`: the starts known at compile time). Returns the locals of the
        indices."""
        fb = self.fb
        rest: Operand = Local(self.lin)
        idx_locals = [0] * len(bounds)
        for d in reversed(range(len(bounds))):
            start, count = bounds[d]
            q, rem, i = fb.new_local("int64"), fb.new_local("int64"), fb.new_local("int64")
            if d > 0:
                # the host passes counts >= 0; saying so here keeps the quotients non-negative
                n = fb.new_local("int64")
                fb.emit(self.entry, BinaryInst(n, "max", Local(count), const("int64", 0)))
                fb.emit(
                    self.pre,
                    BinaryInst(rem, "rem", rest, Local(n)),
                    BinaryInst(q, "floordiv", rest, Local(n)),
                )
                rest = Local(q)
            else:
                fb.emit(self.pre, Copy(rem, rest))
            first = starts[d]
            fb.emit(self.pre, BinaryInst(i, "add", Local(rem), Local(start) if first is None else first))
            idx_locals[d] = i
        return idx_locals

    def finish(self, grid_stride: bool) -> None:
        """The latch: the next index of a grid-stride loop (with reductions), else the exit."""
        if grid_stride:
            step = const("int64", 1) if self.blocked else Local(self.gsize)
            self.fb.emit(self.latch, BinaryInst(self.lin, "add", Local(self.lin), step))
            self.fb.terminate(self.latch, Jump(self.head))
        else:  # one work-item per iteration: no loop, so that drivers vectorise across work-items
            self.fb.terminate(self.latch, Jump(self.exit))


def _safe(name: str) -> str:
    """A Numba variable name as a kernel parameter name."""
    return name.replace(".", "_").replace("$", "_")
