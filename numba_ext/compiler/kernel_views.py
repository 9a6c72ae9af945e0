"""Array views and array values inside kernel code, for the translator of ``kernel_translate.py``.

A ``prange`` body may slice its arrays (``a[i, :]``, ``row = a[i]``, ``a[i, 1:4]``), read and write
through those views, and compute array expressions on them (``b[i, :] = a[i, :] * 2``). No memory is
allocated in a kernel: a view is an affine map onto the array it views (per dimension of that array
a fixed index, or a start, a step and a length), and an array expression inside the body (the launch
intrinsic that ``offload.py`` left there) is evaluated element by element where it is read
(:class:`Lazy`). Assigning an array value to a view becomes a loop over the view's elements.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from numba.core import ir

from ..ir.kernel_ir import (
    ArrayParam,
    Binary,
    BinaryInst,
    Branch,
    Cast,
    Const,
    Copy,
    Dim,
    Imm,
    Jump,
    KernelSpec,
    Load,
    LoadInst,
    Operand,
    ScalarArg,
    Select,
    SelectInst,
    Store,
    StoreInst,
    Unary,
    UnaryInst,
    ViewIndex,
)
from . import bounds
from .function_builder import ArrayRef, const, is_operand

if TYPE_CHECKING:
    from .kernel_translate import Translator


@dataclass(frozen=True, slots=True)
class SliceVal:
    """A variable bound to ``slice(start, stop, step)`` (None where left out)."""

    start: Operand | None
    stop: Operand | None
    step: Operand | None


@dataclass(frozen=True, slots=True)
class Sliced:
    """A dimension of a view: base index ``start + k * step`` for ``0 <= k < length``; `whole`: the
    base array's own dimension (start 0, step 1, its extent), which the access's check covers."""

    start: Operand
    step: Operand
    length: Operand
    whole: bool = False


@dataclass(frozen=True, slots=True)
class View:
    """A view of array `base` of the function: per dimension of `base`, a fixed index operand or a
    :class:`Sliced` dimension (the view's own dimensions, in order)."""

    base: int
    dims: tuple[Operand | Sliced, ...]

    @property
    def sliced(self) -> list[Sliced]:
        return [d for d in self.dims if isinstance(d, Sliced)]

    @property
    def ndim(self) -> int:
        return len(self.sliced)


@dataclass(frozen=True, slots=True)
class Lazy:
    """An array expression read element by element: its KernelSpec, the values of its parameters
    (views, or scalar operands; not its output) and its broadcast shape."""

    spec: KernelSpec
    args: tuple[Any, ...]
    shape: tuple[Operand, ...]


def _fold(op: str, a: Operand, b: Operand) -> Operand | None:
    if not (isinstance(a, Imm) and isinstance(b, Imm)):
        return None
    x, y = a.value, b.value
    if isinstance(x, complex) or isinstance(y, complex):  # index arithmetic is on integers
        return None
    table = {
        "add": lambda: x + y,
        "sub": lambda: x - y,
        "mul": lambda: x * y,
        "min": lambda: min(x, y),
        "max": lambda: max(x, y),
        "lt": lambda: x < y,
        "eq": lambda: x == y,
    }
    if op in ("floordiv",) and y != 0:
        return const("int64", x // y)
    if op not in table:
        return None
    v = table[op]()
    return const("bool" if isinstance(v, bool) else "int64", v)


def ibin(tr: Translator, op: str, a: Operand, b: Operand) -> Operand:
    """An int64 binary operation (folded when both operands are constants)."""
    a, b = tr.cast(a, "int64"), tr.cast(b, "int64")
    folded = _fold(op, a, b)
    if folded is not None:
        return folded
    dst, dst_op = tr.new_value("bool" if op in ("lt", "le", "gt", "ge", "eq", "ne") else "int64")
    tr.emit(BinaryInst(dst, op, a, b))
    return dst_op


def select(tr: Translator, cond: Operand, a: Operand, b: Operand) -> Operand:
    a, b = tr.cast(a, "int64"), tr.cast(b, "int64")
    if isinstance(cond, Imm):
        return a if cond.value else b
    dst, dst_op = tr.new_value("int64")
    tr.emit(SelectInst(dst, cond, a, b))
    return dst_op


def full_view(tr: Translator, arr: int) -> View:
    """The whole of array `arr` as a view (its lengths read in the current block)."""
    dims: list[Operand | Sliced] = []
    for d in range(tr.fb.arrays[arr].ndim):
        n, n_op = tr.new_value("int64")
        tr.emit(Dim(n, arr, d))
        dims.append(Sliced(const("int64", 0), const("int64", 1), n_op, whole=True))
    return View(arr, tuple(dims))


def as_view(tr: Translator, v: object) -> View | Lazy | None:
    if isinstance(v, ArrayRef):
        return full_view(tr, v.index)
    if isinstance(v, (View, Lazy)):
        return v
    return None


def shape(v: View | Lazy) -> tuple[Operand, ...]:
    return v.shape if isinstance(v, Lazy) else tuple(d.length for d in v.sliced)


def _wrap(tr: Translator, i: Operand, n: Operand, lo: Operand, hi: Operand) -> Operand:
    """NumPy's slice bound: `i` (+ `n` if negative), clamped to [lo, hi]."""
    neg = ibin(tr, "lt", i, const("int64", 0))
    shifted = select(tr, neg, ibin(tr, "add", i, n), i)
    return ibin(tr, "min", ibin(tr, "max", shifted, lo), hi)


def _slice_dim(tr: Translator, dim: Sliced, s: SliceVal) -> Sliced:
    step = const("int64", 1) if s.step is None else tr.cast(s.step, "int64")
    if not isinstance(step, Imm) or isinstance(step.value, complex) or step.value == 0:
        tr.fail("a slice whose step is not a non-zero constant")
    n, zero = dim.length, const("int64", 0)
    if step.value > 0:
        start = zero if s.start is None else _wrap(tr, s.start, n, zero, n)
        stop = n if s.stop is None else _wrap(tr, s.stop, n, zero, n)
        span = ibin(tr, "sub", stop, start)
    else:
        minus1, last = const("int64", -1), ibin(tr, "sub", n, const("int64", 1))
        start = last if s.start is None else _wrap(tr, s.start, n, minus1, last)
        stop = minus1 if s.stop is None else _wrap(tr, s.stop, n, minus1, last)
        span = ibin(tr, "sub", start, stop)
    k = abs(int(step.value))
    length = ibin(
        tr, "max", ibin(tr, "floordiv", ibin(tr, "add", span, const("int64", k - 1)), const("int64", k)), zero
    )
    return Sliced(
        ibin(tr, "add", dim.start, ibin(tr, "mul", start, dim.step)),
        ibin(tr, "mul", dim.step, step),
        length,
    )


def subscript(tr: Translator, view: View, items: list[Any], access: str | None = "read") -> View:
    """`view[items]` (integer operands and SliceVals; missing trailing items are full slices). An
    integer index into a dimension the view narrowed is checked against the view's length where the
    function checks bounds (``ViewIndex``; `access`: "read" or "write", None where the indices are
    known to be in range)."""
    if len(items) > view.ndim:
        tr.fail(f"indexing a {view.ndim}-d array with {len(items)} indices")
    it = iter(items)
    dims: list[Operand | Sliced] = []
    axis = -1
    for d in view.dims:
        if not isinstance(d, Sliced):
            dims.append(d)
            continue
        axis += 1
        item = next(it, SliceVal(None, None, None))
        if isinstance(item, SliceVal):
            dims.append(_slice_dim(tr, d, item))
        elif is_operand(item):
            i = bounds.wrap(tr, item, d.length)  # a[-1], a[i] with i < 0
            at = ibin(tr, "add", d.start, ibin(tr, "mul", i, d.step))
            if not d.whole and access is not None:
                dst, checked = tr.new_value("int64")
                code = 1 if access == "write" else 0
                ext = tr.cast(d.length, "int64")
                tr.emit(ViewIndex(dst, tr.cast(at, "int64"), tr.cast(i, "int64"), ext, view.base, axis, code))
                at = checked
            dims.append(at)
        else:
            tr.fail(f"indexing an array with {item!r}")
    return View(view.base, tuple(dims))


def element(tr: Translator, v: View | Lazy, index: tuple[Operand, ...], dtype: str) -> Operand:
    """The element of `v` at `index` (one int operand per dimension of `v`, broadcast where `v` has
    fewer or length-1 dimensions), as a `dtype` operand; `index` lies in the broadcast shape (loop
    counters), so it is not checked again."""
    if isinstance(v, Lazy):
        return tr.cast(_lazy_element(tr, v, index), dtype)
    index = index[len(index) - v.ndim :]
    idx = []
    for d, i in zip(v.sliced, index):
        one = ibin(tr, "eq", d.length, const("int64", 1))
        idx.append(select(tr, one, const("int64", 0), i))
    at = subscript(tr, v, idx, access=None)
    dst, dst_op = tr.new_value(tr.fb.arrays[v.base].dtype)
    tr.emit(LoadInst(dst, v.base, tuple(d for d in at.dims if not isinstance(d, Sliced))))
    return tr.cast(dst_op, dtype)


def store(tr: Translator, v: View, index: tuple[Operand, ...], value: Operand) -> None:
    """Store `value` at `index` of `v` (loop counters of an assignment: in range, not checked)."""
    at = subscript(tr, v, list(index), access=None)
    if at.ndim:
        tr.fail("storing to an array view with fewer indices than dimensions")
    fixed = tuple(d for d in at.dims if not isinstance(d, Sliced))
    tr.emit(StoreInst(v.base, fixed, tr.cast(value, tr.fb.arrays[v.base].dtype)))


def _lazy_element(tr: Translator, lz: Lazy, index: tuple[Operand, ...]) -> Operand:
    """Evaluate the array expression's nodes at one element."""
    vals: list[Operand | None] = []
    last: Operand | None = None
    for node in lz.spec.nodes:
        v: Operand | None
        if isinstance(node, Load):
            v = element(tr, lz.args[node.param], index, node.dtype)
        elif isinstance(node, ScalarArg):
            v = tr.cast(lz.args[node.param], node.dtype)
        elif isinstance(node, Const):
            v = const(node.dtype, node.value)
        elif isinstance(node, Cast):
            v = tr.cast(_val(vals, node.arg), node.dtype)
        elif isinstance(node, Unary):
            dst, v = tr.new_value(node.dtype)
            tr.emit(UnaryInst(dst, node.op, _val(vals, node.arg)))
        elif isinstance(node, Binary):
            dst, v = tr.new_value(node.dtype)
            tr.emit(BinaryInst(dst, node.op, _val(vals, node.lhs), _val(vals, node.rhs)))
        elif isinstance(node, Select):
            dst, v = tr.new_value(node.dtype)
            tr.emit(SelectInst(dst, _val(vals, node.cond), _val(vals, node.a), _val(vals, node.b)))
        elif isinstance(node, Store):
            last, v = _val(vals, node.value), None
        else:
            tr.fail(f"the array expression node {type(node).__name__}")
        vals.append(v)
    if last is None:
        tr.fail("an array expression without a value")
    return last


def _val(vals: list[Operand | None], i: int) -> Operand:
    v = vals[i]
    assert v is not None
    return v


def lazy(tr: Translator, spec: KernelSpec, values: list[Any]) -> Lazy:
    """An array expression (a launch intrinsic's KernelSpec) over `values`: views or scalar
    operands, one per input parameter; its shape is the broadcast shape of its arrays."""
    n_out = sum(isinstance(n, Store) for n in spec.nodes)
    if n_out != 1:
        tr.fail("an array expression with several results inside a parallel loop")
    args: list[Any] = []
    for p, v in zip(spec.params, values):
        if isinstance(p, ArrayParam):
            av = as_view(tr, v)
            if av is None:
                tr.fail(f"the array operand {v!r} of an array expression")
            args.append(av)
        else:
            args.append(v)
    arrays = [a for a in args if isinstance(a, (View, Lazy))]
    ndim = max((len(shape(a)) for a in arrays), default=0)
    dims: list[Operand] = []
    for k in range(ndim):  # right-aligned; the largest length where lengths broadcast
        lens = [shape(a)[len(shape(a)) - ndim + k] for a in arrays if len(shape(a)) - ndim + k >= 0]
        n = lens[0]
        for m in lens[1:]:
            n = ibin(tr, "max", n, m)
        dims.append(n)
    return Lazy(spec, tuple(args), tuple(dims))


def assign_loop(tr: Translator, target: View, value: Any) -> None:
    """`target[...] = value` (a scalar operand, a view or an array expression, broadcast): nested
    loops over the target's elements."""
    src = as_view(tr, value)
    dtype = tr.fb.arrays[target.base].dtype
    counters: list[Operand] = []
    exits: list[tuple[int, int, int]] = []  # per loop: (head, latch, done)
    for n in shape(target):
        i, i_op = tr.new_value("int64")
        c, c_op = tr.new_value("bool")
        tr.emit(Copy(i, const("int64", 0)))
        head, body, latch, done = (tr.fb.new_block() for _ in range(4))
        tr.terminate(Jump(head))
        tr.cur = head
        tr.emit(BinaryInst(c, "lt", i_op, n))
        tr.terminate(Branch(c_op, body, done))
        tr.cur = latch
        tr.emit(BinaryInst(i, "add", i_op, const("int64", 1)))
        tr.terminate(Jump(head))
        tr.cur = body
        counters.append(i_op)
        exits.append((head, latch, done))
    index = tuple(counters)
    if src is not None:
        val = element(tr, src, index, dtype)
    elif is_operand(value):
        val = tr.cast(value, dtype)
    else:
        tr.fail(f"assigning {value!r} to an array")
    store(tr, target, index, val)
    if exits:
        tr.terminate(Jump(exits[-1][1]))
        for k in range(len(exits) - 1, 0, -1):  # an inner loop's exit continues the outer latch
            tr.fb.terminate(exits[k][2], Jump(exits[k - 1][1]))
        tr.cur = exits[0][2]


def const_value(tr: Translator, var: ir.Var) -> Any:
    """A compile-time constant (ints, tuples of ints, '|' of flags)."""
    v = tr.vals.get(var.name)
    if isinstance(v, Imm):
        return v.value
    if isinstance(v, list) and all(isinstance(o, Imm) for o in v):
        return tuple(o.value for o in v)
    if isinstance(v, (int, tuple)):
        return v
    d = tr.func_ir.get_definition(var)
    if isinstance(d, ir.Expr) and d.op == "binop" and d.fn is operator.or_:
        return const_value(tr, d.lhs) | const_value(tr, d.rhs)
    if isinstance(d, ir.Expr) and d.op == "build_tuple":
        return tuple(const_value(tr, i) for i in d.items)
    tr.fail(f"a non-constant value for {var.name} where a compile-time constant is needed")
