"""Typed Numba IR -> the control-flow form of the kernel IR (``kernel_ir.Function``).

Numba's front end and type inference give a typed IR of the kernel (or device function). Each Numba
block becomes a block of ours; scalar variables become typed locals, arrays become array slots
(parameters, local or private arrays), tuples of scalars stay compile-time lists of operands,
``range`` iteration (getiter/iternext) becomes an explicit counter, and calls to ``@numba_ext.func``
device functions are inlined (expressions: ``kernel_exprs.py``; calls: ``kernel_calls.py``). Anything
else is an
UnsupportedError naming the construct and line.
"""

from __future__ import annotations

from typing import Any, NoReturn

import numpy as np
from numba.core import ir, types

from ..errors import UnsupportedError
from ..ir import complex_lowering
from ..ir.kernel_ir import (
    BinaryInst,
    Branch,
    CastInst,
    Copy,
    Imm,
    Inst,
    Jump,
    Local,
    Operand,
    Return,
    StoreInst,
)
from . import bounds, item_calls, kernel_views
from .function_builder import ArrayRef, FunctionBuilder, const, is_operand
from .item_typing import LocalAccessorType
from .kernel_exprs import translate_expr
from .kernel_views import SliceVal
from .kernelspec import dtype_name

_SCALARS = (bool, int, float, complex, np.number, np.bool_)


class Translator:
    """Translates one typed function body into `fb` (a kernel, or a device function being inlined:
    then the local in `ret` receives its result and its returns jump to the block in `ret`)."""

    def __init__(
        self,
        fb: FunctionBuilder,
        func_ir: ir.FunctionIR,
        typemap: dict[str, types.Type],
        calltypes: dict[ir.Expr, Any],
        *,
        arg_values: list[Any] | None = None,
        ret: tuple[int | None, int] | None = None,
    ) -> None:
        self.fb = fb
        self.func_ir = func_ir
        self.typemap = typemap
        self.calltypes = calltypes
        self.arg_values = arg_values  # for inlined device functions: the caller's values per argument
        self.ret = ret  # (local or None, continuation block) for inlined device functions
        # var name -> operand | ArrayRef | Element | list of operands | Range | Python value | ...
        self.vals: dict[str, Any] = {}
        self.cur = -1
        self.loc: ir.Loc | None = None
        self.label_map: dict[int, int] = {}
        self.exit_block: int | None = None

    # -- helpers ------------------------------------------------------------------------------------
    def fail(self, what: str) -> NoReturn:
        where = f" (line {self.loc.line} of {self.loc.filename})" if self.loc else ""
        raise UnsupportedError(f"{what} is not supported in kernels{where}")

    def emit(self, *insts: Inst) -> None:
        self.fb.emit(self.cur, *insts)

    def terminate(self, term: Jump | Branch | Return) -> None:
        self.fb.terminate(self.cur, term)

    def ty(self, var: ir.Var) -> types.Type:
        return self.typemap[var.name]

    def local_for(self, var: ir.Var) -> int:
        v = self.vals.get(var.name)
        if isinstance(v, Local):
            return v.index
        idx = self.fb.new_local(dtype_name(self.ty(var)))
        self.vals[var.name] = Local(idx)
        return idx

    def scalar(self, var: ir.Var) -> Operand:
        """An operand for a scalar variable (local or constant)."""
        v = self.vals.get(var.name)
        if is_operand(v):
            return v
        if isinstance(v, _SCALARS):
            return const(dtype_name(self.ty(var)), v)
        self.fail(f"the value {var.name} ({self.ty(var)})")

    def dt(self, op: Operand) -> str:
        return self.fb.dtype_of(op)

    def cast(self, op: Operand, to: str) -> Operand:
        if self.dt(op) == to:
            return op
        if isinstance(op, Imm):
            v = op.value
            if isinstance(v, complex) or to.startswith("complex"):
                return const(to, complex_lowering.cast_constant(v, to))
            return const(to, bool(v) if to == "bool" else (float(v) if to.startswith("float") else int(v)))
        dst = self.fb.new_local(to)
        self.emit(CastInst(dst, op))
        return Local(dst)

    def assign_scalar(self, target: ir.Var, op: Operand) -> None:
        dst = self.local_for(target)
        self.emit(Copy(dst, self.cast(op, self.fb.locals[dst])))

    def new_value(self, dtype: str) -> tuple[int, Local]:
        """A new local and its operand."""
        idx = self.fb.new_local(dtype)
        return idx, Local(idx)

    def array(self, var: ir.Var) -> int:
        v = self.vals.get(var.name)
        if isinstance(v, ArrayRef):
            return v.index
        self.fail(f"using {var.name} ({self.ty(var)}) as an array")

    def index_ops(self, idx_var: ir.Var, array_idx: int) -> list[Operand]:
        v = self.vals.get(idx_var.name)
        ops = v if isinstance(v, list) else [self.scalar(idx_var)]
        ndim = self.fb.arrays[array_idx].ndim
        if len(ops) != ndim:
            self.fail(f"indexing a {ndim}-d array with {len(ops)} indices (slices and views)")
        for o in ops:
            if not (self.dt(o).startswith(("int", "uint")) or self.dt(o) == "bool"):
                self.fail("a non-integer index")
        return bounds.wrap_indices(self, array_idx, ops)

    def static_index(self, index: object, array_idx: int) -> list[Operand]:
        items = index if isinstance(index, tuple) else (index,)
        if not all(isinstance(i, int) for i in items):
            self.fail("slicing")
        ops: list[Operand] = [const("int64", i) for i in items]
        if len(ops) != self.fb.arrays[array_idx].ndim:
            self.fail("indexing with fewer indices than dimensions (views)")
        return ops

    def single_def(self, var: ir.Var) -> bool:
        return len(self.func_ir._definitions.get(var.name, ())) <= 1

    # -- entry points -----------------------------------------------------------------------------------
    def translate(
        self,
        entry_block: int | None = None,
        blocks: dict[int, ir.Block] | None = None,
        exit_block: int | None = None,
    ) -> int:
        """Translate `blocks` (default: the whole function). Jumps to labels outside `blocks`, and
        blocks without a terminator, continue at `exit_block` (a parfor body's loop latch)."""
        blocks = self.func_ir.blocks if blocks is None else blocks
        labels = sorted(blocks)
        ours = {lab: self.fb.new_block() for lab in labels}
        self.label_map = ours
        self.exit_block = exit_block
        start = ours[labels[0]]
        if entry_block is not None:  # the caller (or the parfor prologue) jumps here
            self.fb.terminate(entry_block, Jump(start))
        for lab in labels:
            self.cur = ours[lab]
            for stmt in blocks[lab].body:
                self.loc = stmt.loc
                self.stmt(stmt)
            if self.fb.terminator(self.cur) is None:
                if exit_block is None:
                    self.fail("a block without terminator")
                self.terminate(Jump(exit_block))
        return start

    def sequential_parfor(self, p: Any) -> None:
        """A parfor nested in a kernel body (an inner prange) runs as ordinary nested loops."""
        for st in p.init_block.body:
            self.loc = st.loc
            self.stmt(st)
        latches = []
        for nest in p.loop_nests:
            counter, counter_op = self.new_value("int64")
            cond, cond_op = self.new_value("bool")
            start, stop, step = (
                const("int64", x) if isinstance(x, int) else self.cast(self.scalar(x), "int64")
                for x in (nest.start, nest.stop, nest.step)
            )
            self.emit(Copy(counter, start))
            head, body, latch, done = (self.fb.new_block() for _ in range(4))
            self.terminate(Jump(head))
            self.cur = head
            self.emit(BinaryInst(cond, "lt", counter_op, stop))
            self.terminate(Branch(cond_op, body, done))
            self.cur = latch
            self.emit(BinaryInst(counter, "add", counter_op, step))
            self.terminate(Jump(head))
            self.cur = body
            self.assign_scalar(nest.index_variable, counter_op)
            latches.append((latch, done))
        if p.index_var.name not in self.vals:
            self.vals[p.index_var.name] = [self.vals[n.index_variable.name] for n in p.loop_nests]
        inner_latch = latches[-1][0]
        saved = (self.label_map, self.exit_block)
        body_entry = self.cur
        sub = Translator(
            self.fb, self.func_ir, self.typemap, self.calltypes, arg_values=self.arg_values, ret=self.ret
        )
        sub.vals = self.vals
        sub.translate(entry_block=body_entry, blocks=p.loop_body, exit_block=inner_latch)
        self.label_map, self.exit_block = saved
        # close the nests from the inside out: each nest's exit continues the enclosing latch
        for (_, done), outer in zip(reversed(latches), reversed([None, *latches[:-1]])):
            if outer is not None:
                self.fb.terminate(done, Jump(outer[0]))
        self.cur = latches[0][1]

    def target(self, label: int) -> int:
        if label in self.label_map:
            return self.label_map[label]
        if self.exit_block is None:
            self.fail(f"a jump to unknown block {label}")
        return self.exit_block

    def stmt(self, s: ir.Stmt) -> None:
        if isinstance(s, ir.Assign):
            self.assign(s.target, s.value)
        elif isinstance(s, (ir.SetItem, ir.StaticSetItem)):
            self.setitem(s)
        elif isinstance(s, ir.Branch):
            cond = self.cast(self.scalar(s.cond), "bool")
            self.terminate(Branch(cond, self.target(s.truebr), self.target(s.falsebr)))
        elif isinstance(s, ir.Jump):
            self.terminate(Jump(self.target(s.target)))
        elif isinstance(s, ir.Return):
            if self.ret is None:
                if not isinstance(self.ty(s.value), types.NoneType):
                    self.fail(f"returning a value ({self.ty(s.value)}) from a kernel")
                self.terminate(Return())
            else:
                ret_local, cont = self.ret
                if ret_local is not None:
                    self.emit(Copy(ret_local, self.cast(self.scalar(s.value), self.fb.locals[ret_local])))
                self.terminate(Jump(cont))
        elif isinstance(s, ir.Del):
            pass
        elif type(s).__name__ == "Parfor":
            self.sequential_parfor(s)
        elif isinstance(s, ir.Print):
            self.fail("print()")
        else:
            self.fail(type(s).__name__)

    def index_items(self, e: ir.SetItem | ir.StaticSetItem | ir.Expr) -> list[Any]:
        """The items of a subscript: integer operands and SliceVals, one per index."""
        var = e.index if isinstance(e, ir.SetItem) or getattr(e, "op", None) == "getitem" else None
        if var is None and e.index_var is not None and e.index_var.name in self.vals:
            if not isinstance(e.index, (int, tuple, slice)):
                var = e.index_var
        if var is not None:
            v = self.vals.get(var.name)
            if isinstance(v, list):
                return list(v)
            if isinstance(v, SliceVal):
                return [v]
            return [self.scalar(var)]
        items = e.index if isinstance(e.index, tuple) else (e.index,)
        out: list[Any] = []
        for i in items:
            if isinstance(i, int):
                out.append(const("int64", i))
            elif isinstance(i, slice):
                out.append(
                    SliceVal(*(None if x is None else const("int64", x) for x in (i.start, i.stop, i.step)))
                )
            else:
                self.fail(f"the index {i!r}")
        return out

    def setitem(self, s: ir.SetItem | ir.StaticSetItem) -> None:
        """`target[index] = value`: one store, or a loop over a view (kernel_views.py)."""
        base = self.vals.get(s.target.name)
        items = self.index_items(s)
        scalar_value = isinstance(self.ty(s.value), (types.Number, types.Boolean))
        if (
            isinstance(base, ArrayRef)
            and scalar_value
            and len(items) == self.fb.arrays[base.index].ndim
            and all(is_operand(i) for i in items)
        ):
            index = bounds.wrap_indices(self, base.index, self.index_ops_of(items))
            val = self.cast(self.scalar(s.value), self.fb.arrays[base.index].dtype)
            self.emit(StoreInst(base.index, tuple(index), val))
            return
        view = kernel_views.as_view(self, base)
        if not isinstance(view, kernel_views.View):
            self.fail(f"assigning to {s.target.name} ({self.ty(s.target)})")
        target = kernel_views.subscript(self, view, items, access="write")
        value = self.scalar(s.value) if scalar_value else self.vals.get(s.value.name)
        kernel_views.assign_loop(self, target, value)

    def index_ops_of(self, ops: list[Any]) -> list[Operand]:
        for o in ops:
            if not (self.dt(o).startswith(("int", "uint")) or self.dt(o) == "bool"):
                self.fail("a non-integer index")
        return ops

    def assign(self, target: ir.Var, value: Any) -> None:
        t = self.ty(target)
        if isinstance(value, ir.Arg):
            self.bind_arg(target, value.index, t)
        elif isinstance(value, (ir.Const, ir.Global, ir.FreeVar)):
            self.bind_value(target, value.value, t)
        elif isinstance(value, ir.Var):
            src = self.vals.get(value.name)
            if isinstance(t, (types.Number, types.Boolean)):
                if isinstance(src, _SCALARS):  # e.g. m = np.inf
                    src = const(dtype_name(t), src)
                if isinstance(src, Imm) and self.single_def(target):
                    self.vals[target.name] = src
                elif is_operand(src):
                    self.assign_scalar(target, src)
                else:
                    self.vals[target.name] = src
            else:
                self.vals[target.name] = src
        elif isinstance(value, ir.Expr):
            translate_expr(self, target, value, t)
        else:
            self.fail(type(value).__name__)

    def bind_value(self, target: ir.Var, v: object, t: types.Type) -> None:
        """Bind a Python value (constant, global, module attribute) to `target`."""
        if isinstance(v, _SCALARS) and isinstance(t, (types.Number, types.Boolean)):
            c = const(dtype_name(t), v)
            if self.single_def(target):
                self.vals[target.name] = c  # a true constant
            else:
                self.assign_scalar(target, c)  # a variable that starts as a constant
        else:
            self.vals[target.name] = v

    def bind_arg(self, target: ir.Var, index: int, t: types.Type) -> None:
        if self.arg_values is not None:  # inlined device function
            v = self.arg_values[index]
            if is_operand(v):
                self.assign_scalar(target, v)
            else:
                self.vals[target.name] = v
            return
        name = self.func_ir.arg_names[index]
        if item_calls.bind_item_arg(self, target, t):
            return
        if isinstance(t, LocalAccessorType):  # work-group memory of the launch's LocalAccessor
            arr = self.fb.new_array(f"local{len(self.fb.arrays)}", dtype_name(t), t.ndim, "local", t.shape)
            self.vals[target.name] = ArrayRef(arr)
        elif isinstance(t, types.Array):
            self.vals[target.name] = ArrayRef(
                self.fb.array_param(name, dtype_name(t), t.ndim, t.layout == "C")
            )
        elif isinstance(t, (types.Number, types.Boolean)):
            self.vals[target.name] = Local(self.fb.scalar_param(dtype_name(t)))
        else:
            self.fail(f"an argument of type {t}")
