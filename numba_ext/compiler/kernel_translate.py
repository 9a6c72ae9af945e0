"""Typed Numba IR -> the control-flow kernel IR (``rust/src/ir/cfg.rs``).

Numba's front end and type inference give a typed IR of the kernel (or device function). Each Numba
block becomes a block of ours; scalar variables become typed locals, arrays become array slots
(parameters, local or private arrays), tuples of scalars stay compile-time lists of operands, and
``range`` iteration (getiter/iternext) becomes an explicit counter. Calls to ``@numba_ext.func``
device functions are inlined. Anything else is an UnsupportedError naming the construct and line.
"""

from __future__ import annotations

import math
import operator
from typing import NoReturn

import numpy as np
from numba.core import ir, types

from ..errors import UnsupportedError
from . import intrinsics
from .device_functions import DeviceFunction, typed_ir
from .kernelspec import UFUNC_OPS, dtype_name

_BINOPS = {
    operator.add: "add",
    operator.sub: "sub",
    operator.mul: "mul",
    operator.truediv: "div",
    operator.floordiv: "floordiv",
    operator.mod: "rem",
    operator.pow: "pow",
    operator.and_: "and",
    operator.or_: "or",
    operator.xor: "xor",
    operator.lt: "lt",
    operator.le: "le",
    operator.gt: "gt",
    operator.ge: "ge",
    operator.eq: "eq",
    operator.ne: "ne",
    operator.iadd: "add",
    operator.isub: "sub",
    operator.imul: "mul",
    operator.itruediv: "div",
    operator.ifloordiv: "floordiv",
    operator.imod: "rem",
    operator.ipow: "pow",
    operator.iand: "and",
    operator.ior: "or",
    operator.ixor: "xor",
}
_COMPARE = {"lt", "le", "gt", "ge", "eq", "ne"}
_MATH1 = {
    math.sqrt: "sqrt",
    math.exp: "exp",
    math.expm1: "expm1",
    math.log: "log",
    math.log1p: "log1p",
    math.log2: "log2",
    math.log10: "log10",
    math.sin: "sin",
    math.cos: "cos",
    math.tan: "tan",
    math.asin: "arcsin",
    math.acos: "arccos",
    math.atan: "arctan",
    math.sinh: "sinh",
    math.cosh: "cosh",
    math.tanh: "tanh",
    math.floor: "floor",
    math.ceil: "ceil",
    math.trunc: "trunc",
    math.erf: "erf",
    math.erfc: "erfc",
    math.fabs: "abs",
}
_MATH2 = {math.pow: "pow", math.atan2: "arctan2", math.hypot: "hypot", math.fmod: "rem"}
_WORK_ITEMS = {f: f.__name__ for f in intrinsics.WORK_ITEM_FUNCTIONS}


class _Range:
    def __init__(self, start, stop, step):
        self.start, self.stop, self.step = start, stop, step


class _Iter:
    def __init__(self, rng, cur):
        self.rng, self.cur = rng, cur


class FunctionBuilder:
    """The function being built: locals, arrays, blocks (shared by a kernel and the device
    functions inlined into it)."""

    def __init__(self, name: str):
        self.name = name
        self.locals: list[str] = []
        self.arrays: list[tuple] = []
        self.params: list[tuple] = []
        self.blocks: list[list] = []  # [insts, term]

    def new_local(self, dtype: str) -> int:
        self.locals.append(dtype)
        return len(self.locals) - 1

    def new_block(self) -> int:
        self.blocks.append([[], None])
        return len(self.blocks) - 1

    def new_array(self, name, dtype, ndim, space, shape=(), contiguous=False) -> int:
        """`contiguous`: a global array known (from its Numba type's layout) to be C-contiguous, whose
        strides the kernel then computes from its shape."""
        self.arrays.append((name, dtype, ndim, space, tuple(shape), bool(contiguous)))
        return len(self.arrays) - 1

    def spec(self) -> dict:
        for i, b in enumerate(self.blocks):
            if b[1] is None:
                raise UnsupportedError(f"internal: block {i} of {self.name} has no terminator")
        return {
            "name": self.name,
            "locals": list(self.locals),
            "arrays": list(self.arrays),
            "params": list(self.params),
            "blocks": [(list(i), t) for i, t in self.blocks],
        }


def const(dtype: str, value):
    return ("c", dtype, bool(value) if dtype == "bool" else value)


class Translator:
    """Translates one typed function body into `fb` (a kernel, or a device function being inlined:
    then `ret_local`/`ret_block` receive its result)."""

    def __init__(self, fb: FunctionBuilder, func_ir, typemap, calltypes, *, arg_values=None, ret=None):
        self.fb = fb
        self.func_ir = func_ir
        self.typemap = typemap
        self.calltypes = calltypes
        self.arg_values = arg_values  # for inlined device functions: the caller's values per argument
        self.ret = ret  # (local or None, continuation block) for inlined device functions
        self.vals: dict[str, object] = {}  # var name -> ("l", idx) | ("arr", idx) | tuple list | python value
        self.cur: int = -1  # the block being filled (set by translate)
        self.loc = None

    # -- helpers ------------------------------------------------------------------------------------
    def fail(self, what: str) -> NoReturn:
        where = f" (line {self.loc.line} of {self.loc.filename})" if self.loc else ""
        raise UnsupportedError(f"{what} is not supported in kernels{where}")

    def emit(self, inst):
        self.fb.blocks[self.cur][0].append(inst)

    def terminate(self, term):
        self.fb.blocks[self.cur][1] = term

    def ty(self, var) -> types.Type:
        return self.typemap[var.name]

    def local_for(self, var) -> int:
        v = self.vals.get(var.name)
        if isinstance(v, tuple) and v and v[0] == "l":
            return v[1]
        idx = self.fb.new_local(dtype_name(self.ty(var)))
        self.vals[var.name] = ("l", idx)
        return idx

    def scalar(self, var):
        """An operand for a scalar variable (local or constant)."""
        v = self.vals.get(var.name)
        if isinstance(v, tuple) and v and v[0] in ("l", "c"):
            return v
        if isinstance(v, (bool, int, float, np.number, np.bool_)):
            return const(dtype_name(self.ty(var)), v.item() if isinstance(v, np.generic) else v)
        self.fail(f"the value {var.name} ({self.ty(var)})")

    def dt(self, op) -> str:
        return self.fb.locals[op[1]] if op[0] == "l" else op[1]

    def cast(self, op, to: str):
        if self.dt(op) == to:
            return op
        if op[0] == "c":
            v = op[2]
            pyv = bool(v) if to == "bool" else (float(v) if to.startswith("float") else int(v))
            return const(to, pyv)
        dst = self.fb.new_local(to)
        self.emit(("cast", dst, op))
        return ("l", dst)

    def assign_scalar(self, target, op):
        dst = self.local_for(target)
        self.emit(("copy", dst, self.cast(op, self.fb.locals[dst])))

    def array(self, var) -> int:
        v = self.vals.get(var.name)
        if isinstance(v, tuple) and v and v[0] == "arr":
            return v[1]
        self.fail(f"using {var.name} ({self.ty(var)}) as an array")

    def index_ops(self, idx_var, array_idx: int) -> list:
        v = self.vals.get(idx_var.name)
        ops = v if isinstance(v, list) else [self.scalar(idx_var)]
        ndim = self.fb.arrays[array_idx][2]
        if len(ops) != ndim:
            self.fail(f"indexing a {ndim}-d array with {len(ops)} indices (slices and views)")
        for o in ops:
            if not (self.dt(o).startswith(("int", "uint")) or self.dt(o) == "bool"):
                self.fail("a non-integer index")
        return ops

    def static_index(self, index, array_idx: int) -> list:
        items = index if isinstance(index, tuple) else (index,)
        if not all(isinstance(i, int) for i in items):
            self.fail("slicing")
        ops = [const("int64", i) for i in items]
        if len(ops) != self.fb.arrays[array_idx][2]:
            self.fail("indexing with fewer indices than dimensions (views)")
        return ops

    # -- entry points -----------------------------------------------------------------------------------
    def translate(self, entry_block: int | None = None, blocks=None, exit_block: int | None = None):
        """Translate `blocks` (default: the whole function). Jumps to labels outside `blocks`, and
        blocks without a terminator, continue at `exit_block` (a parfor body's loop latch)."""
        blocks = self.func_ir.blocks if blocks is None else blocks
        labels = sorted(blocks)
        ours = {lab: self.fb.new_block() for lab in labels}
        self.label_map = ours
        self.exit_block = exit_block
        start = ours[labels[0]]
        if entry_block is not None:  # the caller (or the parfor prologue) jumps here
            self.fb.blocks[entry_block][1] = ("jump", start)
        for lab in labels:
            self.cur = ours[lab]
            for stmt in blocks[lab].body:
                self.loc = stmt.loc
                self.stmt(stmt)
            if self.fb.blocks[self.cur][1] is None:
                if exit_block is None:
                    self.fail("a block without terminator")
                self.terminate(("jump", exit_block))
        return start

    def sequential_parfor(self, p):
        """A parfor nested in a kernel body (an inner prange) runs as ordinary nested loops."""
        for st in p.init_block.body:
            self.loc = st.loc
            self.stmt(st)
        latches = []
        for nest in p.loop_nests:
            counter, cond = self.fb.new_local("int64"), self.fb.new_local("bool")
            start = (
                const("int64", nest.start)
                if isinstance(nest.start, int)
                else self.cast(self.scalar(nest.start), "int64")
            )
            stop = (
                const("int64", nest.stop)
                if isinstance(nest.stop, int)
                else self.cast(self.scalar(nest.stop), "int64")
            )
            step = (
                const("int64", nest.step)
                if isinstance(nest.step, int)
                else self.cast(self.scalar(nest.step), "int64")
            )
            self.emit(("copy", counter, start))
            head, body, latch, done = (self.fb.new_block() for _ in range(4))
            self.terminate(("jump", head))
            self.cur = head
            self.emit(("binary", cond, "lt", ("l", counter), stop))
            self.terminate(("branch", ("l", cond), body, done))
            self.cur = latch
            self.emit(("binary", counter, "add", ("l", counter), step))
            self.terminate(("jump", head))
            self.cur = body
            self.assign_scalar(nest.index_variable, ("l", counter))
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
        for (_latch, done), outer in zip(reversed(latches), reversed([None] + latches[:-1])):
            if outer is not None:
                self.fb.blocks[done][1] = ("jump", outer[0])
        self.cur = latches[0][1]

    def target(self, label):
        if label in self.label_map:
            return self.label_map[label]
        if self.exit_block is None:
            self.fail(f"a jump to unknown block {label}")
        return self.exit_block

    def stmt(self, s):
        if isinstance(s, ir.Assign):
            self.assign(s.target, s.value)
        elif isinstance(s, (ir.SetItem, ir.StaticSetItem)):
            arr = self.array(s.target)
            index = (
                self.index_ops(s.index, arr)
                if isinstance(s, ir.SetItem)
                else (
                    self.index_ops(s.index_var, arr)
                    if s.index_var is not None and s.index_var.name in self.vals
                    else self.static_index(s.index, arr)
                )
            )
            val = self.cast(self.scalar(s.value), self.fb.arrays[arr][1])
            self.emit(("store", arr, index, val))
        elif isinstance(s, ir.Branch):
            cond = self.cast(self.scalar(s.cond), "bool")
            self.terminate(("branch", cond, self.target(s.truebr), self.target(s.falsebr)))
        elif isinstance(s, ir.Jump):
            self.terminate(("jump", self.target(s.target)))
        elif isinstance(s, ir.Return):
            if self.ret is None:
                if not isinstance(self.ty(s.value), types.NoneType):
                    self.fail(f"returning a value ({self.ty(s.value)}) from a kernel")
                self.terminate(("return",))
            else:
                ret_local, cont = self.ret
                if ret_local is not None:
                    self.emit(("copy", ret_local, self.cast(self.scalar(s.value), self.fb.locals[ret_local])))
                self.terminate(("jump", cont))
        elif isinstance(s, ir.Del):
            pass
        elif type(s).__name__ == "Parfor":
            self.sequential_parfor(s)
        elif isinstance(s, ir.Print):
            self.fail("print()")
        else:
            self.fail(type(s).__name__)

    def assign(self, target, value):
        t = self.ty(target)
        if isinstance(value, ir.Arg):
            self.bind_arg(target, value.index, t)
        elif isinstance(value, (ir.Const, ir.Global, ir.FreeVar)):
            self.bind_value(target, value.value, t)
        elif isinstance(value, ir.Var):
            src = self.vals.get(value.name)
            if isinstance(t, (types.Number, types.Boolean)):
                if isinstance(src, (bool, int, float, np.number, np.bool_)):  # e.g. m = np.inf
                    src = const(dtype_name(t), src.item() if isinstance(src, np.generic) else src)
                if isinstance(src, tuple) and src and src[0] == "c" and self.single_def(target):
                    self.vals[target.name] = src
                elif isinstance(src, tuple) and src and src[0] in ("l", "c"):
                    self.assign_scalar(target, src)
                else:
                    self.vals[target.name] = src
            else:
                self.vals[target.name] = src
        elif isinstance(value, ir.Expr):
            self.expr(target, value, t)
        else:
            self.fail(type(value).__name__)

    def bind_value(self, target, v, t):
        """Bind a Python value (constant, global, module attribute) to `target`."""
        if isinstance(v, (bool, int, float, np.number, np.bool_)) and isinstance(
            t, (types.Number, types.Boolean)
        ):
            c = const(dtype_name(t), v.item() if isinstance(v, np.generic) else v)
            if self.single_def(target):
                self.vals[target.name] = c  # a true constant
            else:
                self.assign_scalar(target, c)  # a variable that starts as a constant
        else:
            self.vals[target.name] = v

    def single_def(self, var) -> bool:
        return len(self.func_ir._definitions.get(var.name, ())) <= 1

    def bind_arg(self, target, index, t):
        if self.arg_values is not None:  # inlined device function
            v = self.arg_values[index]
            if isinstance(v, tuple) and v and v[0] in ("l", "c"):
                self.assign_scalar(target, v)
            else:
                self.vals[target.name] = v
            return
        name = self.func_ir.arg_names[index]
        if isinstance(t, types.Array):
            a = self.fb.new_array(name, dtype_name(t), t.ndim, "global", contiguous=t.layout == "C")
            self.fb.params.append(("array", a))
            self.vals[target.name] = ("arr", a)
        elif isinstance(t, (types.Number, types.Boolean)):
            loc_idx = self.fb.new_local(dtype_name(t))
            self.fb.params.append(("scalar", loc_idx))
            self.vals[target.name] = ("l", loc_idx)
        else:
            self.fail(f"an argument of type {t}")

    # -- expressions ----------------------------------------------------------------------------------
    def expr(self, target, e, t):
        op = e.op
        if op in ("binop", "inplace_binop"):
            self.binop(target, e.fn, e.lhs, e.rhs, t)
        elif op == "unary":
            self.unary(target, e.fn, e.value, t)
        elif op == "call":
            self.call(target, e, t)
        elif op == "getattr":
            self.getattr(target, e, t)
        elif op in ("getitem", "static_getitem"):
            self.getitem(target, e, t)
        elif op == "build_tuple":
            items = []
            for v in e.items:
                items.append(self.scalar(v))
            self.vals[target.name] = items
        elif op == "cast":
            src = self.vals.get(e.value.name)
            self.vals[target.name] = src
            if isinstance(t, (types.Number, types.Boolean)):
                self.assign_scalar(target, self.scalar(e.value))
        elif op == "getiter":
            rng = self.vals.get(e.value.name)
            if not isinstance(rng, _Range):
                self.fail("iterating over anything but range()")
            cur = self.fb.new_local("int64")
            self.emit(("copy", cur, self.cast(rng.start, "int64")))
            self.vals[target.name] = _Iter(rng, cur)
        elif op == "iternext":
            it = self.vals[e.value.name]
            val, valid = self.fb.new_local("int64"), self.fb.new_local("bool")
            step = self.cast(it.rng.step, "int64")
            stop = self.cast(it.rng.stop, "int64")
            self.emit(("copy", val, ("l", it.cur)))
            if step[0] == "c" and step[2] > 0:
                self.emit(("binary", valid, "lt", ("l", it.cur), stop))
            elif step[0] == "c":
                self.emit(("binary", valid, "gt", ("l", it.cur), stop))
            else:
                up, down, pos = (
                    self.fb.new_local("bool"),
                    self.fb.new_local("bool"),
                    self.fb.new_local("bool"),
                )
                self.emit(("binary", up, "lt", ("l", it.cur), stop))
                self.emit(("binary", down, "gt", ("l", it.cur), stop))
                self.emit(("binary", pos, "gt", step, const("int64", 0)))
                self.emit(("select", valid, ("l", pos), ("l", up), ("l", down)))
            self.emit(("binary", it.cur, "add", ("l", it.cur), step))
            self.vals[target.name] = ("pair", ("l", val), ("l", valid))
        elif op == "pair_first":
            self.assign_scalar(target, self.vals[e.value.name][1])
        elif op == "pair_second":
            self.assign_scalar(target, self.vals[e.value.name][2])
        else:
            self.fail(f"the expression '{op}'")

    def binop(self, target, fn, lhs, rhs, t):
        name = _BINOPS.get(fn)
        if name is None:
            self.fail(f"the operator {getattr(fn, '__name__', fn)}")
        a, b = self.scalar(lhs), self.scalar(rhs)
        res = dtype_name(t)
        if name in _COMPARE:
            comp = np.result_type(np.dtype(self.dt(a)), np.dtype(self.dt(b))).name
        elif name == "div":
            comp = res
        else:
            comp = res
        dst = self.local_for(target)
        if comp == self.fb.locals[dst] or name in _COMPARE:
            tmp = dst if (name in _COMPARE or comp == res) else self.fb.new_local(comp)
        else:
            tmp = self.fb.new_local(comp)
        self.emit(("binary", tmp, name, self.cast(a, comp), self.cast(b, comp)))
        if tmp != dst:
            self.emit(("cast", dst, ("l", tmp)))

    def unary(self, target, fn, value, t):
        a = self.scalar(value)
        dst = self.local_for(target)
        res = self.fb.locals[dst]
        if fn in (operator.neg, "-"):
            self.emit(("unary", dst, "neg", self.cast(a, res)))
        elif fn in (operator.pos, "+"):
            self.emit(("copy", dst, self.cast(a, res)))
        elif fn in (operator.not_, "not"):
            self.emit(("unary", dst, "not", self.cast(a, "bool")))
        elif fn in (operator.invert, "~"):
            self.emit(("unary", dst, "not", self.cast(a, res)))
        else:
            self.fail(f"the unary operator {fn}")

    def getattr(self, target, e, t):
        base = self.vals.get(e.value.name)
        bt = self.ty(e.value)
        if isinstance(bt, types.Module) or not isinstance(bt, (types.Array, types.Number)):
            if base is None or not hasattr(base, e.attr):
                self.fail(f"the attribute {e.attr}")
            self.bind_value(target, getattr(base, e.attr), t)
            return
        if isinstance(bt, types.Array):
            arr = self.array(e.value)
            if e.attr == "shape":
                dims = []
                for d in range(bt.ndim):
                    dst = self.fb.new_local("int64")
                    self.emit(("dim", dst, arr, d))
                    dims.append(("l", dst))
                self.vals[target.name] = dims
                return
            if e.attr == "ndim":
                self.vals[target.name] = const("int64", bt.ndim)
                return
            if e.attr == "size":
                acc = const("int64", 1)
                for d in range(bt.ndim):
                    dst = self.fb.new_local("int64")
                    self.emit(("dim", dst, arr, d))
                    out = self.fb.new_local("int64")
                    self.emit(("binary", out, "mul", acc, ("l", dst)))
                    acc = ("l", out)
                self.assign_scalar(target, acc)
                return
        self.fail(f"the attribute .{e.attr} of {bt}")

    def getitem(self, target, e, t):
        base = self.vals.get(e.value.name)
        if isinstance(base, tuple) and base and base[0] == "elem":
            # an array expression fused into this parallel loop (parfor_fusion.py): its element at
            # the loop's index (the only way the loop reads it), computed before the body
            self.assign_scalar(target, base[1])
            return
        if isinstance(base, list):  # a tuple of scalars
            idx = e.index if e.op == "static_getitem" else None
            if idx is None:
                iv = self.scalar(e.index)
                idx = iv[2] if iv[0] == "c" else None
            if not isinstance(idx, int):
                self.fail("indexing a tuple with a run-time index")
            self.assign_scalar(target, base[idx])
            return
        arr = self.array(e.value)
        if e.op == "getitem":
            index = self.index_ops(e.index, arr)
        elif (
            e.index_var is not None
            and e.index_var.name in self.vals
            and not isinstance(e.index, (int, tuple))
        ):
            index = self.index_ops(e.index_var, arr)
        else:
            index = self.static_index(e.index, arr)
        if not isinstance(t, (types.Number, types.Boolean)):
            self.fail("taking a view of an array (index with as many integers as dimensions)")
        dst = self.local_for(target)
        self.emit(("load", dst, arr, index))

    # -- calls ----------------------------------------------------------------------------------------
    def call(self, target, e, t):
        fn = self.vals.get(e.func.name)
        args = e.args
        if e.kws or e.vararg:
            self.fail("keyword or star arguments")
        if fn is range:
            ops = [self.scalar(a) for a in args]
            start, stop, step = (
                (const("int64", 0), ops[0], const("int64", 1))
                if len(ops) == 1
                else ((ops[0], ops[1], const("int64", 1)) if len(ops) == 2 else tuple(ops))
            )
            self.vals[target.name] = _Range(start, stop, step)
            return
        if fn in _WORK_ITEMS:
            d = self.scalar(args[0])
            if d[0] != "c" or not 0 <= d[2] <= 2:
                self.fail(f"{_WORK_ITEMS[fn]}() with a dimension that is not a constant 0, 1 or 2")
            self.emit(("workitem", self.local_for(target), _WORK_ITEMS[fn], int(d[2])))
            return
        if fn is intrinsics.barrier:
            flags = 3 if not args else self.const_value(args[0])
            self.emit(("barrier", int(flags)))
            return
        if fn in (intrinsics.local_array, intrinsics.private_array):
            shape = self.const_value(args[0])
            shape = (shape,) if isinstance(shape, int) else tuple(shape)
            space = "local" if fn is intrinsics.local_array else "private"
            a = self.fb.new_array(f"{space}{len(self.fb.arrays)}", dtype_name(t), t.ndim, space, shape)
            self.vals[target.name] = ("arr", a)
            return
        if fn in intrinsics.ATOMIC_OPS:
            name = intrinsics.ATOMIC_OPS[fn]
            arr = self.array(args[0])
            index = self.index_ops(args[1], arr)
            adt = self.fb.arrays[arr][1]
            if name == "compare_exchange":
                cmp, val = self.cast(self.scalar(args[2]), adt), self.cast(self.scalar(args[3]), adt)
            else:
                cmp, val = None, self.cast(self.scalar(args[2]), adt)
            dst = self.fb.new_local(adt)
            self.emit(("atomic", dst, name, arr, index, val, cmp))
            self.assign_scalar(target, ("l", dst))
            return
        if isinstance(fn, DeviceFunction):
            self.inline(target, fn, args, t)
            return
        res = dtype_name(t) if isinstance(t, (types.Number, types.Boolean)) else None
        if (
            fn in (int, float, bool)
            and len(args) == 1
            and res
            and isinstance(self.vals.get(args[0].name), str)
        ):
            self.vals[target.name] = const(res, fn(self.vals[args[0].name]))
            return
        ops = [self.scalar(a) for a in args]
        if fn in _MATH1 and len(ops) == 1:
            comp = res if res in ("float32", "float64") else "float64"
            tmp = self.fb.new_local(comp)
            self.emit(("unary", tmp, _MATH1[fn], self.cast(ops[0], comp)))
            self.assign_scalar(target, ("l", tmp))
            return
        if fn in _MATH2 and len(ops) == 2:
            comp = res if res in ("float32", "float64") else "float64"
            tmp = self.fb.new_local(comp)
            self.emit(("binary", tmp, _MATH2[fn], self.cast(ops[0], comp), self.cast(ops[1], comp)))
            self.assign_scalar(target, ("l", tmp))
            return
        if fn in (min, max) and len(ops) >= 2 and res:
            acc = self.cast(ops[0], res)
            for o in ops[1:]:
                tmp = self.fb.new_local(res)
                self.emit(("binary", tmp, "min" if fn is min else "max", acc, self.cast(o, res)))
                acc = ("l", tmp)
            self.assign_scalar(target, acc)
            return
        if fn is abs and len(ops) == 1 and res:
            tmp = self.fb.new_local(res)
            self.emit(("unary", tmp, "abs", self.cast(ops[0], res)))
            self.assign_scalar(target, ("l", tmp))
            return
        if fn in (int, float, bool) and len(args) == 1 and res:
            v = self.vals.get(args[0].name)
            if isinstance(v, str):  # float("inf"), int("3"): fold the constant
                self.vals[target.name] = const(res, fn(v))
                return
            self.assign_scalar(target, self.scalar(args[0]))
            return
        if (
            isinstance(fn, types.functions.NumberClass)
            or (isinstance(fn, type) and issubclass(fn, np.generic))
            and res
        ):
            self.assign_scalar(target, ops[0])
            return
        if isinstance(fn, np.ufunc) and fn.__name__ in UFUNC_OPS and res:
            kind, name = UFUNC_OPS[fn.__name__]
            if kind in ("unary", "binary"):
                comp = self.calltypes[e].args[0] if e in self.calltypes else None
                comp = dtype_name(comp) if comp is not None else res
                comp = (
                    comp
                    if kind == "binary" or name in ("neg", "abs", "not")
                    else (comp if comp.startswith("float") else "float64")
                )
                tmp = self.fb.new_local("bool" if name in _COMPARE else comp)
                self.emit((kind, tmp, name, *[self.cast(o, comp) for o in ops]))
                self.assign_scalar(target, ("l", tmp))
                return
        self.fail(f"calling {getattr(fn, '__name__', fn)!r}")

    def const_value(self, var):
        """A compile-time constant (ints, tuples of ints, '|' of flags)."""
        v = self.vals.get(var.name)
        if isinstance(v, tuple) and v and v[0] == "c":
            return v[2]
        if isinstance(v, list) and all(o[0] == "c" for o in v):
            return tuple(o[2] for o in v)
        if isinstance(v, (int, tuple)):
            return v
        d = self.func_ir.get_definition(var)
        if isinstance(d, ir.Expr) and d.op == "binop" and d.fn is operator.or_:
            return self.const_value(d.lhs) | self.const_value(d.rhs)
        if isinstance(d, ir.Expr) and d.op == "build_tuple":
            return tuple(self.const_value(i) for i in d.items)
        self.fail(f"a non-constant value for {var.name} where a compile-time constant is needed")

    def inline(self, target, fn, args, t):
        argtys = tuple(self.ty(a) for a in args)
        func_ir, typemap, calltypes, restype = typed_ir(fn.py_func, argtys)
        values = []
        for a in args:
            v = self.vals.get(a.name)
            values.append(self.scalar(a) if isinstance(self.ty(a), (types.Number, types.Boolean)) else v)
        ret_local = self.local_for(target) if isinstance(restype, (types.Number, types.Boolean)) else None
        cont = self.fb.new_block()
        sub = Translator(self.fb, func_ir, typemap, calltypes, arg_values=values, ret=(ret_local, cont))
        call_block = self.cur
        sub.translate(entry_block=call_block)
        self.cur = cont
