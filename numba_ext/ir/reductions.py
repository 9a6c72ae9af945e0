"""Reductions: NumPy's result dtypes and axis rules, and the kernels of reductions along one axis
and over every element, in the control-flow form (:class:`~.kernel_ir.Function`), for functions
compiled from their source and for eager reductions.

Along an axis (:func:`axis_function`):

The kernel runs one work-item per element of the result, with a sequential loop along the axis
reading the input through its strides (any layout), in the order and with the arithmetic of the
compiler layer's jitted helpers (``compiler.reduction_helpers``), so both give the same bits:

* ``sum``, ``prod``: accumulated in the result dtype from 0 (1), each element converted to it first;
* ``mean``: that sum divided by the number of elements in float64, then stored in the result dtype
  (NaN over an empty axis);
* ``min``, ``max``: from the first element, replaced by each later one that is smaller (larger) or
  NaN, so the first NaN stays. An empty axis is NumPy's ValueError, raised before the launch.
* ``any``, ``all``: from False (True), each element's truth (NaN is true) or-ed (and-ed) in.

Along a contiguous axis GPUs take a work-group per result element instead
(:func:`axis_group_function`): neighbouring work-items read neighbouring elements of the line, and
the work-group combines their partials in local memory. Its sums are within rounding of the
helpers', not their bits (a tree, as NumPy's pairwise sums).

Over every element (:func:`whole_function`), a capped number of work-items each reduce their share
of the flat index into private partials, started at the operation's identity, each element
converted to the result dtype first; the partials are combined into a one-element accumulator with
an atomic (``min``/``max`` propagate NaN, as ``np.minimum``). A work-item's share
(:meth:`FunctionBuilder.flat_loop`) is either

* strided (``unroll`` 1, GPUs): positions ``gid, gid + global size, ...``, so neighbouring
  work-items read neighbouring elements (coalesced loads); or
* blocked (``unroll`` > 1, CPUs, launched with work-groups of one work-item): one contiguous run per
  work-item, read ``unroll`` elements at a time into as many independent partials. A CPU runtime
  runs work-groups of one work-item as scalar code, and its compiler turns the independent partials
  into vector registers and the contiguous run into streaming loads. The strided form on a CPU
  makes every work-item's next element a page away (the runtime packs neighbouring work-items into
  vector lanes, but cannot tell that a loop's index stays consecutive, so each load is a gather):
  10**7 float64 elements took 21 ms strided and 2.5 ms blocked, where NumPy takes 2.5 ms.

``argmin`` / ``argmax`` over every element take two kernels either way: on GPUs the extreme (as
above), then the first flat index holding it (:func:`first_index_function`); on CPUs one pass in
which each work-item finds its run's best value and first index, chunk by chunk
(:func:`arg_runs_function`), then one work-item combining the runs in order
(:func:`arg_combine_function`). Along a contiguous axis, CPUs scan one row per work-item the same
way (:func:`arg_rows_function`).

The compiler layer's prange reductions (``compiler.parfor_kernel``) take the same two forms (one
partial per work-item: their bodies are Numba's). On CPUs, integer minima and maxima compare and
branch, and combine by compare-exchange (:meth:`FunctionBuilder.combine`).

The order of the atomics is the device's, so float sums and products agree with the compiled
form's within rounding, not bit for bit (as two runs of the compiled form agree).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from ..errors import UnsupportedError
from . import complex_lowering
from .kernel_ir import (
    ArrayDecl,
    Atomic,
    Barrier,
    BinaryInst,
    Block,
    Branch,
    CastInst,
    Copy,
    Dim,
    FnArrayParam,
    Function,
    Imm,
    Inst,
    Jump,
    LoadInst,
    Local,
    Operand,
    Return,
    SelectInst,
    StoreInst,
    Term,
    UnaryInst,
    WorkItem,
)

if TYPE_CHECKING:
    from numpy.typing import DTypeLike

#: the reductions along an axis this module builds (and over every element)
AXIS_OPS = ("sum", "prod", "mean", "min", "max", "any", "all")
#: the work-items of a reduction over every element (at most; each runs a grid-stride loop)
WORK_ITEMS = 1 << 14
#: the independent partials of each work-item of a blocked reduction (CPUs): eight float64 partials
#: fill one AVX-512 register, and more did not help
CPU_UNROLL = 8
#: the minimum and maximum of booleans are all and any (Numba's parallel min/max reductions fail
#: on booleans, parfor.py: lower_get_type_min_value)
BOOL_EXTREMES = {"min": "all", "max": "any"}
EMPTY_MESSAGES = {
    "min": "zero-size array to reduction operation minimum which has no identity",
    "max": "zero-size array to reduction operation maximum which has no identity",
    "argmin": "attempt to get argmin of an empty sequence",
    "argmax": "attempt to get argmax of an empty sequence",
}


def result_dtype(op: str, dtype: object) -> np.dtype:
    """NumPy's result dtype of `op` over elements of `dtype` (sums of integers widen to 64 bits)."""
    dt = np.dtype(dtype)  # type: ignore[call-overload]
    if op in ("argmin", "argmax"):
        return np.dtype(np.int64)
    if op in ("any", "all"):
        return np.dtype(np.bool_)
    if op == "mean":
        return dt if dt.kind in "fc" else np.dtype(np.float64)
    if op in ("sum", "prod") and dt.kind in "biu":
        return np.dtype(np.uint64 if dt.kind == "u" else np.int64)
    return dt


def normalize_axis(axis: int, ndim: int) -> int:
    """`axis` in range(ndim) (negative counts from the end); NumPy's AxisError otherwise."""
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, (int, np.integer)):
        raise UnsupportedError(f"axis must be an integer or None on numba_ext arrays, got {axis!r}")
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(int(axis), ndim)
    return int(axis) % ndim


def dot_dtype(a: DTypeLike, b: DTypeLike) -> np.dtype:
    """NumPy's result dtype of a product of arrays of dtypes `a` and `b`."""
    return np.result_type(np.dtype(a), np.dtype(b))


def check_dot_ndims(ndim_a: int, ndim_b: int, what: str = "np.dot") -> None:
    """Products take 1-D and 2-D operands."""
    if not (1 <= ndim_a <= 2 and 1 <= ndim_b <= 2):
        raise UnsupportedError(
            f"{what} on numba_ext arrays supports 1-D and 2-D operands, got {ndim_a}-D and {ndim_b}-D "
            "(scalars: use *)"
        )


def identity(op: str, dtype: str) -> bool | int | float:
    """The identity of the combining operation `op` (``add``, ``mul``, ``min``, ``max``) on `dtype`:
    where a partial starts."""
    if op == "add":
        return 0
    if op == "mul":
        return 1
    if op in ("or", "and"):
        return op == "and"
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return op == "min"
    if dt.kind == "f":
        return float("inf") if op == "min" else float("-inf")
    info = np.iinfo(dt)
    return int(info.max) if op == "min" else int(info.min)


def constant(dtype: str, value: bool | int | float) -> Imm:
    """`value` as a constant of `dtype` (a complex one for complex dtypes)."""
    return Imm(dtype, complex_lowering.cast_constant(value, dtype))


def accumulator_dtype(dtype: str) -> str:
    """The dtype of a reduction's device accumulator: device atomics work on 32- and 64-bit values,
    so booleans and 8- and 16-bit integers accumulate in 32 bits (truncated back on the host; sums
    and products still wrap as in the narrow type)."""
    dt = np.dtype(dtype)
    if dt.kind in "biu" and dt.itemsize < 4:
        return "uint32" if dt.kind == "u" else "int32"
    return dt.name


#: the operation combining the elements of each reduction (``any`` and ``all`` on the elements'
#: truth values)
COMBINE = {"sum": "add", "prod": "mul", "mean": "add", "min": "min", "max": "max", "any": "or", "all": "and"}


class FunctionBuilder:
    """Locals and blocks of one control-flow function (`kernel_ir.Function`), blocks filled in any
    order."""

    def __init__(self, nblocks: int) -> None:
        self.locals: list[str] = []
        self.blocks: list[tuple[list[Inst], Term | None]] = [([], None) for _ in range(nblocks)]
        self.block = 0

    def new_block(self) -> int:
        """A new empty block's index."""
        self.blocks.append(([], None))
        return len(self.blocks) - 1

    def local(self, dtype: str) -> int:
        self.locals.append(dtype)
        return len(self.locals) - 1

    def emit(self, inst: Inst) -> None:
        self.blocks[self.block][0].append(inst)

    def end(self, term: Term, then: int | None = None) -> None:
        self.blocks[self.block] = (self.blocks[self.block][0], term)
        if then is not None:
            self.block = then

    def binary(self, dtype: str, op: str, a: Operand, b: Operand) -> Local:
        dst = self.local(dtype)
        self.emit(BinaryInst(dst, op, a, b))
        return Local(dst)

    def unary(self, dtype: str, op: str, a: Operand) -> Local:
        dst = self.local(dtype)
        self.emit(UnaryInst(dst, op, a))
        return Local(dst)

    def cast(self, dtype: str, src: Local, src_dtype: str) -> Local:
        if dtype == src_dtype:
            return src
        dst = self.local(dtype)
        self.emit(CastInst(dst, src))
        return Local(dst)

    def set(self, dst: int, src: Operand) -> None:
        self.emit(Copy(dst, src))

    def function(self, name: str, *arrays: ArrayDecl) -> Function:
        """The function of these blocks using `arrays`, whose global ones are its parameters, in
        order."""
        return Function(
            name=name,
            locals=tuple(self.locals),
            arrays=arrays,
            params=tuple(FnArrayParam(i) for i, a in enumerate(arrays) if a.space == "global"),
            blocks=tuple(Block(tuple(insts), term) for insts, term in self.blocks if term is not None),
        )

    def extents(self, array: int, ndim: int) -> tuple[list[Operand], Operand]:
        """The extents of the first `ndim` dimensions of `array` and their product."""
        extents: list[Operand] = []
        total: Operand = Imm("int64", 1)
        for d in range(ndim):
            e = self.local("int64")
            self.emit(Dim(e, array, d))
            extents.append(Local(e))
            total = self.binary("int64", "mul", total, Local(e))
        return extents, total

    def flat_loop(self, total: Operand, unroll: int, step: Callable[[int, Operand], None]) -> None:
        """A loop over this work-item's share of the flat positions ``0 .. total - 1``, calling
        `step(lane, position)` to emit the work of one position, from the current block; the
        builder is left in the block after the loop. With `unroll` 1 the share is strided (`lane`
        0 at ``gid, gid + global size, ...``); with `unroll` > 1 it is the work-item's contiguous
        run of ``ceil(total / global size)`` positions (rounded up to `unroll`), `unroll` positions
        per step (lanes 0 .. unroll - 1), then the rest one at a time in lane 0 (see the module
        documentation). Bounds are tested without integer minimum or select, which would make the
        Intel CPU runtime build the kernel without optimisation (see ``rust/src/runtime/program.rs``)."""
        i64 = "int64"
        gid, gsize, lin = self.local(i64), self.local(i64), self.local(i64)
        self.emit(WorkItem(gid, "get_global_id", 0))
        self.emit(WorkItem(gsize, "get_global_size", 0))
        head, body, after = self.new_block(), self.new_block(), self.new_block()
        if unroll == 1:
            self.set(lin, Local(gid))
            self.end(Jump(head), then=head)
            self.end(Branch(self.binary("bool", "lt", Local(lin), total), body, after), then=body)
            step(0, Local(lin))
            self.emit(BinaryInst(lin, "add", Local(lin), Local(gsize)))
            self.end(Jump(head), then=after)
            return
        start, end = self.run(total, Local(gid), Local(gsize), unroll)
        self.set(lin, start)
        self.end(Jump(head), then=head)

        def before(limit: Operand, op: str) -> Local:
            return self.binary(
                "bool", "and", self.binary("bool", op, limit, end), self.binary("bool", op, limit, total)
            )

        last = self.binary(i64, "add", Local(lin), Imm(i64, unroll))
        rest_head, rest_body = self.new_block(), self.new_block()
        self.end(Branch(before(last, "le"), body, rest_head), then=body)
        for lane in range(unroll):
            step(lane, self.binary(i64, "add", Local(lin), Imm(i64, lane)) if lane else Local(lin))
        self.emit(BinaryInst(lin, "add", Local(lin), Imm(i64, unroll)))
        self.end(Jump(head), then=rest_head)
        self.end(Branch(before(Local(lin), "lt"), rest_body, after), then=rest_body)
        step(0, Local(lin))
        self.emit(BinaryInst(lin, "add", Local(lin), Imm(i64, 1)))
        self.end(Jump(rest_head), then=after)

    def run(self, total: Operand, gid: Operand, gsize: Operand, multiple: int = 1) -> tuple[Local, Local]:
        """The first position and the end (exclusive, possibly past `total`) of work-item `gid`'s
        contiguous run of ``ceil(total / gsize)`` positions, rounded up to a `multiple`."""
        i64 = "int64"
        per = self.binary(
            i64,
            "floordiv",
            self.binary(i64, "add", total, self.binary(i64, "sub", gsize, Imm(i64, 1))),
            gsize,
        )
        if multiple > 1:
            rounded = self.binary(
                i64, "floordiv", self.binary(i64, "add", per, Imm(i64, multiple - 1)), Imm(i64, multiple)
            )
            per = self.binary(i64, "mul", rounded, Imm(i64, multiple))
        start = self.binary(i64, "mul", gid, per)
        return start, self.binary(i64, "add", start, per)

    def combine(self, op: str, dst: int, value: Operand, branch: bool = False) -> None:
        """``dst = op(dst, value)``; with `branch`, a minimum or maximum is a compare and a branch
        (an integer minimum, maximum or select makes the Intel CPU runtime build the whole kernel
        without optimisation, a workaround for a driver bug: ``rust/src/runtime/program.rs``). A
        float minimum or maximum takes `value` where it is smaller (larger) or NaN, one select (a
        NaN in `dst` stays, as NumPy's; ``np.minimum``'s symmetric form takes three)."""
        if op in ("min", "max") and np.dtype(self.locals[dst]).kind == "f":
            better = self.binary("bool", "lt" if op == "min" else "gt", value, Local(dst))
            nan = self.binary("bool", "ne", value, value)
            self.emit(SelectInst(dst, self.binary("bool", "or", better, nan), value, Local(dst)))
            return
        if not (branch and op in ("min", "max")):
            self.emit(BinaryInst(dst, op, Local(dst), value))
            return
        take, after = self.new_block(), self.new_block()
        better = self.binary("bool", "lt" if op == "min" else "gt", value, Local(dst))
        self.end(Branch(better, take, after), then=take)
        self.set(dst, value)
        self.end(Jump(after), then=after)

    def combine_lanes(self, op: str, partials: list[int], branch: bool = False) -> None:
        """Combine `partials` into the first with `op`, pairwise (`branch`: as :meth:`combine`)."""
        width = len(partials)
        while width > 1:
            half = (width + 1) // 2
            for u in range(width - half):
                self.combine(op, partials[u], Local(partials[u + half]), branch)
            width = half

    def atomic_extreme(self, op: str, array: int, value: Operand, dtype: str) -> None:
        """``array[0] = op(array[0], value)`` for `op` ``min`` or ``max`` of `dtype` values, by a
        compare-exchange loop rather than an atomic minimum or maximum (see :meth:`combine`); the
        builder is left in the block after it."""
        i64 = "int64"
        current, old = self.local(dtype), self.local(dtype)
        head, body, after = self.new_block(), self.new_block(), self.new_block()
        self.emit(Atomic(current, "load", array, (Imm(i64, 0),), constant(dtype, 0)))
        self.end(Jump(head), then=head)
        better = self.binary("bool", "lt" if op == "min" else "gt", value, Local(current))
        self.end(Branch(better, body, after), then=body)
        self.emit(Atomic(old, "compare_exchange", array, (Imm(i64, 0),), value, Local(current)))
        swapped = self.binary("bool", "eq", Local(old), Local(current))
        self.set(current, Local(old))
        self.end(Branch(swapped, after, head), then=after)

    def unflatten(self, flat: Operand, extents: list[Operand]) -> list[Operand]:
        """The index (C order) of the flat position `flat` in an array of `extents` (at least one)."""
        index = [flat] * len(extents)
        rest = flat
        for d in reversed(range(1, len(extents))):
            index[d] = self.binary("int64", "rem", rest, extents[d])
            rest = self.binary("int64", "floordiv", rest, extents[d])
        index[0] = rest
        return index


class ResultLanes:
    """The result elements one work-item computes, of a result array `out` of rank `ndim` (a
    reduction along an axis, a product): element ``gid`` with one lane; with `lanes` > 1 (CPUs), the
    `lanes` consecutive elements from ``gid * lanes`` (in C order of the result), each lane's index
    taken modulo the result's size so that lanes past its end read valid elements, and stored only
    where they are inside it. Work-items past the result go to the block `skip`."""

    def __init__(self, b: FunctionBuilder, out: int, ndim: int, lanes: int, skip: int) -> None:
        i64 = "int64"
        self.b, self.lanes = b, lanes
        t = b.local(i64)
        b.emit(WorkItem(t, "get_global_id", 0))
        extents, self.total = b.extents(out, ndim)
        self.first: Operand = Local(t) if lanes == 1 else b.binary(i64, "mul", Local(t), Imm(i64, lanes))
        setup = b.new_block()
        b.end(Branch(b.binary("bool", "lt", self.first, self.total), setup, skip), then=setup)
        self.indices = []
        for lane in range(lanes):
            flat = self.first
            if lanes > 1:
                flat = b.binary(i64, "rem", b.binary(i64, "add", self.first, Imm(i64, lane)), self.total)
            self.indices.append(b.unflatten(flat, extents))

    def element(self, lane: int, axis: int, at: Operand, dtype: str) -> Local:
        """The element of the input (array 0, of `dtype`) at position `at` along `axis` for `lane`'s
        result element."""
        b, index = self.b, self.indices[lane]
        e = b.local(dtype)
        b.emit(LoadInst(e, 0, (*index[:axis], at, *index[axis:])))
        return Local(e)

    def store(self, array: int, values: list[Operand], done: int) -> None:
        """Store each lane's value into the result `array` (where inside it), then go to `done`."""
        b = self.b
        for lane, (index, value) in enumerate(zip(self.indices, values)):
            if self.lanes == 1:
                b.emit(StoreInst(array, tuple(index), value))
                continue
            store, after = b.new_block(), b.new_block()
            inside = b.binary(
                "bool", "lt", b.binary("int64", "add", self.first, Imm("int64", lane)), self.total
            )
            b.end(Branch(inside, store, after), then=store)
            b.emit(StoreInst(array, tuple(index), value))
            b.end(Jump(after), then=after)
        b.end(Jump(done), then=done)


def axis_function(op: str, dtype: str, ndim: int, axis: int, lanes: int = 1) -> Function:
    """The kernel reducing an `ndim`-d array of `dtype` (ndim >= 2) along `axis` (0 <= axis < ndim)
    with `op` into a C-contiguous array of the other dimensions and of ``result_dtype(op, dtype)``.
    Parameters: the input, then the result (each: data address, shape, byte strides); launched over
    the result's size with `lanes` 1, else over ``ceil(size / lanes)`` work-items, each computing
    `lanes` consecutive result elements in one loop along the axis (CPUs, in work-groups of one:
    the lanes' loads are neighbours, where a work-item each makes the CPU runtime gather them).
    Each element's order of accumulation is the same either way."""
    if op not in AXIS_OPS:
        raise ValueError(f"no axis reduction {op!r}")
    if not (ndim >= 2 and 0 <= axis < ndim):
        raise ValueError(f"axis {axis} of a {ndim}-d array cannot be reduced to an array")
    out = result_dtype(op, dtype).name
    acc = out  # the helpers accumulate in the result dtype (a mean's sum too)
    b = FunctionBuilder(1)
    i64 = "int64"
    done = b.new_block()
    rows = ResultLanes(b, 1, ndim - 1, lanes, done)
    # set-up: the axis length, the start values
    n = b.local(i64)
    b.emit(Dim(n, 0, axis))
    k = b.local(i64)
    sums = [b.local(acc) for _ in range(lanes)]

    def element(lane: int, at: Operand) -> Local:
        return rows.element(lane, axis, at, dtype)

    for lane, s in enumerate(sums):
        if op in ("min", "max"):
            b.set(s, element(lane, Imm(i64, 0)))
        elif op in ("any", "all"):
            b.set(s, Imm(acc, op == "all"))
        else:
            b.set(s, constant(acc, int(op == "prod")))
    b.set(k, Imm(i64, 1 if op in ("min", "max") else 0))
    test, body, finish = b.new_block(), b.new_block(), b.new_block()
    b.end(Jump(test), then=test)
    # the loop along the axis
    b.end(Branch(b.binary("bool", "lt", Local(k), Local(n)), body, finish), then=body)
    for lane, s in enumerate(sums):
        x = element(lane, Local(k))
        if op in ("min", "max") and lanes > 1 and np.dtype(dtype).kind in "iu":
            b.combine(op, s, x, branch=True)  # no integer select on CPUs (see FunctionBuilder.combine)
        elif op in ("min", "max"):
            better = b.binary("bool", "lt" if op == "min" else "gt", x, Local(s))
            nan = b.binary("bool", "ne", x, x)
            b.emit(SelectInst(s, b.binary("bool", "or", better, nan), x, Local(s)))
        elif op in ("any", "all"):
            b.emit(BinaryInst(s, COMBINE[op], Local(s), b.cast(acc, x, dtype)))
        else:
            b.emit(BinaryInst(s, "mul" if op == "prod" else "add", Local(s), b.cast(acc, x, dtype)))
    b.emit(BinaryInst(k, "add", Local(k), Imm(i64, 1)))
    b.end(Jump(test), then=finish)
    # the result elements
    values: list[Operand] = []
    for s in sums:
        value: Operand = Local(s)
        if op == "mean" and complex_lowering.is_complex(acc):
            # NumPy's: the sum times 1 / n in complex128 (its complex division by a real), then
            # stored in the result dtype; an empty axis: 0 * inf, NaN in both parts
            inv = b.binary("float64", "div", Imm("float64", 1.0), b.cast("float64", Local(n), i64))
            wide = b.binary(
                "complex128", "mul", b.cast("complex128", Local(s), acc), b.cast("complex128", inv, "float64")
            )
            value = b.cast(acc, wide, "complex128")
        elif op == "mean":
            quotient = b.binary(
                "float64", "div", b.cast("float64", Local(s), acc), b.cast("float64", Local(n), i64)
            )
            q = b.local("float64")
            b.emit(
                SelectInst(q, b.binary("bool", "ne", Local(n), Imm(i64, 0)), quotient, Imm("float64", np.nan))
            )
            value = b.cast(out, Local(q), "float64")
        values.append(value)
    rows.store(1, values, done)
    b.end(Return())
    return b.function(
        f"{op}_axis{axis}_of_{dtype}_{ndim}d" + (f"_by{lanes}" if lanes > 1 else ""),
        ArrayDecl("x", dtype, ndim, "global"),
        ArrayDecl("out", out, ndim - 1, "global", contiguous=True),
    )


def whole_function(op: str, dtype: str, ndim: int, unroll: int = 1) -> Function:
    """The kernel reducing every element of an `ndim`-d array of `dtype` (any layout) with `op`
    into a one-element accumulator of ``accumulator_dtype(result)``, which holds the identity
    before the launch (for ``mean``: the sum, which the host divides). Parameters: the input, then
    the accumulator (each: data address, shape, byte strides). With `unroll` 1 (strided) launched
    over at most ``WORK_ITEMS`` work-items; with `unroll` > 1 (blocked, for CPUs) over a few
    work-items per compute unit in work-groups of one (see the module documentation)."""
    if op not in AXIS_OPS:
        raise ValueError(f"no reduction {op!r}")
    if ndim < 1:
        raise ValueError("a reduction of a 0-d array")
    out = result_dtype(op, dtype).name
    combine = COMBINE[op]
    acc = accumulator_dtype(out)
    b = FunctionBuilder(1)
    i64 = "int64"
    extents, total = b.extents(0, ndim)
    partials = [b.local(out) for _ in range(unroll)]
    for p in partials:
        b.set(p, constant(out, identity(combine, out)))

    # on CPUs, integer extremes without integer minimum, maximum or select (see FunctionBuilder.combine)
    branch = unroll > 1 and combine in ("min", "max") and np.dtype(out).kind in "iu"

    def step(lane: int, at: Operand) -> None:
        # the element at the flat index (C order), converted to the result dtype, then combined
        e = b.local(dtype)
        b.emit(LoadInst(e, 0, tuple(b.unflatten(at, extents))))
        b.combine(combine, partials[lane], b.cast(out, Local(e), dtype), branch)

    b.flat_loop(total, unroll, step)
    b.combine_lanes(combine, partials, branch)
    if branch:
        b.atomic_extreme(combine, 1, b.cast(acc, Local(partials[0]), out), acc)
    else:
        b.emit(Atomic(None, combine, 1, (Imm(i64, 0),), b.cast(acc, Local(partials[0]), out)))
    b.end(Return())
    return b.function(
        f"{op}_of_{dtype}_{ndim}d" + (f"_by{unroll}" if unroll > 1 else ""),
        ArrayDecl("x", dtype, ndim, "global"),
        ArrayDecl("acc", acc, 1, "global", contiguous=True),
    )


#: the reductions to an index this module builds: along an axis, and over every element after the
#: extreme's own reduction
ARG_OPS = ("argmin", "argmax")


def _better(b: FunctionBuilder, op: str, x: Operand, best: Operand, floating: bool) -> Local:
    """Whether `x` replaces `best` in ``argmin`` / ``argmax`` (`op`) scanned in order: smaller
    (larger), or NaN while `best` is not, so the first extreme (the first NaN) wins, as NumPy's."""
    better = b.binary("bool", "lt" if op == "argmin" else "gt", x, best)
    if floating:
        first_nan = b.binary("bool", "and", b.binary("bool", "ne", x, x), b.binary("bool", "eq", best, best))
        better = b.binary("bool", "or", better, first_nan)
    return better


def _matches(b: FunctionBuilder, x: Operand, extreme: Operand, floating: bool) -> Local:
    """Whether `x` is the `extreme` found (a NaN matches NaN)."""
    found = b.binary("bool", "eq", x, extreme)
    if floating:
        both_nan = b.binary(
            "bool", "and", b.binary("bool", "ne", x, x), b.binary("bool", "ne", extreme, extreme)
        )
        found = b.binary("bool", "or", found, both_nan)
    return found


def arg_axis_function(op: str, dtype: str, ndim: int, axis: int, lanes: int = 1) -> Function:
    """``argmin`` / ``argmax`` along `axis` of an `ndim`-d array of `dtype` (ndim >= 2) into a
    C-contiguous int64 array of the other dimensions: from the first element, an element replaces
    the best so far where it is smaller (larger), or NaN while the best is not, so the first extreme
    (the first NaN) wins, as NumPy's. Parameters, `lanes` and launch as :func:`axis_function`'s."""
    if op not in ARG_OPS:
        raise ValueError(f"no index reduction {op!r}")
    if not (ndim >= 2 and 0 <= axis < ndim):
        raise ValueError(f"axis {axis} of a {ndim}-d array cannot be reduced to an array")
    b = FunctionBuilder(1)
    i64 = "int64"
    done = b.new_block()
    rows = ResultLanes(b, 1, ndim - 1, lanes, done)
    n, k = b.local(i64), b.local(i64)
    b.emit(Dim(n, 0, axis))
    bests = [b.local(i64) for _ in range(lanes)]
    extremes = [b.local(dtype) for _ in range(lanes)]

    def element(lane: int, at: Operand) -> Local:
        return rows.element(lane, axis, at, dtype)

    for lane in range(lanes):
        b.set(extremes[lane], element(lane, Imm(i64, 0)))
        b.set(bests[lane], Imm(i64, 0))
    b.set(k, Imm(i64, 1))
    test, body, finish = b.new_block(), b.new_block(), b.new_block()
    b.end(Jump(test), then=test)
    b.end(Branch(b.binary("bool", "lt", Local(k), Local(n)), body, finish), then=body)
    for lane, (s, best) in enumerate(zip(extremes, bests)):
        x = element(lane, Local(k))
        better = _better(b, op, x, Local(s), np.dtype(dtype).kind == "f")
        # a branch, not an integer select (which the Intel CPU runtime builds without optimisation)
        take, after = b.new_block(), b.new_block()
        b.end(Branch(better, take, after), then=take)
        b.set(s, x)
        b.set(best, Local(k))
        b.end(Jump(after), then=after)
    b.emit(BinaryInst(k, "add", Local(k), Imm(i64, 1)))
    b.end(Jump(test), then=finish)
    rows.store(1, [Local(best) for best in bests], done)
    b.end(Return())
    return b.function(
        f"{op}_axis{axis}_of_{dtype}_{ndim}d" + (f"_by{lanes}" if lanes > 1 else ""),
        ArrayDecl("x", dtype, ndim, "global"),
        ArrayDecl("out", i64, ndim - 1, "global", contiguous=True),
    )


#: the index accumulator's start: no element found yet
NO_INDEX = (1 << 63) - 1


def first_index_function(dtype: str, ndim: int) -> Function:
    """The first flat index (C order) of an `ndim`-d array of `dtype` whose element equals the value
    in a one-element array of ``accumulator_dtype(dtype)`` (the array's minimum or maximum, reduced
    there by :func:`whole_function` just before; a NaN matches NaN), combined with an atomic minimum
    into a one-element int64 accumulator that holds ``NO_INDEX`` before the launch. Parameters: the
    input, the extreme, the index accumulator (each: data address, shape, byte strides); launched
    as :func:`whole_function`'s strided form (GPUs; CPUs take :func:`arg_runs_function`)."""
    acc = accumulator_dtype(dtype)
    b = FunctionBuilder(1)
    i64 = "int64"
    m = b.local(acc)
    b.emit(LoadInst(m, 1, (Imm(i64, 0),)))
    extents, total = b.extents(0, ndim)
    first = b.local(i64)
    b.set(first, Imm(i64, NO_INDEX))

    def step(_: int, at: Operand) -> None:
        e = b.local(dtype)
        b.emit(LoadInst(e, 0, tuple(b.unflatten(at, extents))))
        x = b.cast(acc, Local(e), dtype)
        found = _matches(b, x, Local(m), np.dtype(dtype).kind == "f")
        better = b.binary("bool", "lt", at, Local(first))
        b.emit(SelectInst(first, b.binary("bool", "and", found, better), at, Local(first)))

    b.flat_loop(total, 1, step)
    b.emit(Atomic(None, "min", 2, (Imm(i64, 0),), Local(first)))
    b.end(Return())
    return b.function(
        f"first_index_of_{dtype}_{ndim}d",
        ArrayDecl("x", dtype, ndim, "global"),
        ArrayDecl("extreme", acc, 1, "global", contiguous=True),
        ArrayDecl("index", i64, 1, "global", contiguous=True),
    )


#: on CPUs, the elements of one chunk of an index reduction's run: its extreme is found over
#: ``CPU_UNROLL`` partials, and the chunk is read again (from the cache) for the extreme's first
#: index only where that extreme beats the run's best so far
ARG_CHUNK = 256


def _arg_value_dtype(dtype: str) -> str:
    """The dtype in which ``argmin`` / ``argmax`` compare elements of `dtype` (bools as uint8)."""
    return "uint8" if dtype == "bool" else dtype


def _best_in_chunks(
    b: FunctionBuilder,
    op: str,
    v: str,
    element: Callable[[Operand], Local],
    span: tuple[Operand, Operand | None, Operand],
    unroll: int,
    chunk: int,
) -> tuple[int, int]:
    """Emit, from the current block, the scan of ``argmin`` / ``argmax`` (`op`) over the positions
    ``start ..`` below both `end` (None: none) and `total` (`span`; `start` < `total`, and `start`
    to `end` whole chunks) of elements `element(position)` of dtype `v`: chunk by chunk, the chunk's
    extreme over `unroll` partials and, only where it beats the best so far (as :func:`_better`), its
    first position in the chunk, read again from the cache. Returns the locals of the best value and
    its position; the builder is left in the block after the scan."""
    start, end, total = span
    i64 = "int64"
    floating = np.dtype(v).kind == "f"
    extreme = "min" if op == "argmin" else "max"
    best, index, c, lin, k = b.local(v), b.local(i64), b.local(i64), b.local(i64), b.local(i64)

    def below(at: Operand, limit: Operand | None, cmp: str = "lt") -> Local:
        inside = b.binary("bool", cmp, at, total)
        return inside if limit is None else b.binary("bool", "and", b.binary("bool", cmp, at, limit), inside)

    chunk_head, chunk_body, finish = b.new_block(), b.new_block(), b.new_block()
    b.set(best, element(start))
    b.set(index, start)
    b.set(c, start)
    b.end(Jump(chunk_head), then=chunk_head)
    b.end(Branch(below(Local(c), end), chunk_body, finish), then=chunk_body)
    # the chunk's extreme (it ends at its end or at the total)
    chunk_end = b.binary(i64, "add", Local(c), Imm(i64, chunk))
    partials = [b.local(v) for _ in range(unroll)]
    x0 = element(Local(c))
    for p in partials:
        b.set(p, x0)
    branch = not floating  # integers compare and branch (see FunctionBuilder.combine)
    head, body, rest_head, rest_body, reduced = (b.new_block() for _ in range(5))
    b.set(lin, Local(c))
    b.end(Jump(head), then=head)
    last = b.binary(i64, "add", Local(lin), Imm(i64, unroll))
    b.end(Branch(below(last, chunk_end, "le"), body, rest_head), then=body)
    for lane, p in enumerate(partials):
        at = b.binary(i64, "add", Local(lin), Imm(i64, lane)) if lane else Local(lin)
        b.combine(extreme, p, element(at), branch)
    b.emit(BinaryInst(lin, "add", Local(lin), Imm(i64, unroll)))
    b.end(Jump(head), then=rest_head)
    b.end(Branch(below(Local(lin), chunk_end), rest_body, reduced), then=rest_body)
    b.combine(extreme, partials[0], element(Local(lin)), branch)
    b.emit(BinaryInst(lin, "add", Local(lin), Imm(i64, 1)))
    b.end(Jump(rest_head), then=reduced)
    b.combine_lanes(extreme, partials, branch)
    m = Local(partials[0])
    # a better extreme: its first position in the chunk
    scan, scan_head, scan_test, scan_step, found, next_chunk = (b.new_block() for _ in range(6))
    b.end(Branch(_better(b, op, m, Local(best), floating), scan, next_chunk), then=scan)
    b.set(k, Local(c))
    b.end(Jump(scan_head), then=scan_head)
    b.end(Branch(below(Local(k), chunk_end), scan_test, next_chunk), then=scan_test)
    b.end(Branch(_matches(b, element(Local(k)), m, floating), found, scan_step), then=scan_step)
    b.emit(BinaryInst(k, "add", Local(k), Imm(i64, 1)))
    b.end(Jump(scan_head), then=found)
    b.set(best, m)
    b.set(index, Local(k))
    if floating:  # a NaN: nothing later replaces it
        b.end(Branch(b.binary("bool", "ne", Local(best), Local(best)), finish, next_chunk), then=next_chunk)
    else:
        b.end(Jump(next_chunk), then=next_chunk)
    b.emit(BinaryInst(c, "add", Local(c), Imm(i64, chunk)))
    b.end(Jump(chunk_head), then=finish)
    return best, index


def arg_runs_function(
    op: str, dtype: str, ndim: int, unroll: int = CPU_UNROLL, chunk: int = ARG_CHUNK
) -> Function:
    """``argmin`` / ``argmax`` (`op`) over every element of an `ndim`-d array of `dtype` (real or
    bool), in one pass over the data (CPUs): each work-item takes one contiguous run of whole
    `chunk`-element chunks and finds its best value and first index (:func:`_best_in_chunks`); it
    stores them into ``values[gid]`` and ``indices[gid]`` (``NO_INDEX`` for an empty run), which
    :func:`arg_combine_function` combines in order. Parameters: the input, the values (of the
    input's dtype, bools as uint8) and the indices (int64), each one element per work-item;
    launched in work-groups of one."""
    if op not in ARG_OPS:
        raise ValueError(f"no index reduction {op!r}")
    v = _arg_value_dtype(dtype)
    b = FunctionBuilder(1)
    i64 = "int64"
    extents, total = b.extents(0, ndim)
    gid, gsize = b.local(i64), b.local(i64)
    b.emit(WorkItem(gid, "get_global_id", 0))
    b.emit(WorkItem(gsize, "get_global_size", 0))
    start, end = b.run(total, Local(gid), Local(gsize), chunk)

    def element(at: Operand) -> Local:
        e = b.local(dtype)
        b.emit(LoadInst(e, 0, tuple(b.unflatten(at, extents))))
        return b.cast(v, Local(e), dtype)

    scan, empty, done = b.new_block(), b.new_block(), b.new_block()
    b.end(Branch(b.binary("bool", "lt", start, total), scan, empty), then=scan)
    best, index = _best_in_chunks(b, op, v, element, (start, end, total), unroll, chunk)
    b.emit(StoreInst(1, (Local(gid),), Local(best)))
    b.emit(StoreInst(2, (Local(gid),), Local(index)))
    b.end(Jump(done), then=empty)
    b.emit(StoreInst(1, (Local(gid),), constant(v, 0)))
    b.emit(StoreInst(2, (Local(gid),), Imm(i64, NO_INDEX)))
    b.end(Jump(done), then=done)
    b.end(Return())
    return b.function(
        f"{op}_runs_of_{dtype}_{ndim}d_by{unroll}_{chunk}",
        ArrayDecl("x", dtype, ndim, "global"),
        ArrayDecl("values", v, 1, "global", contiguous=True),
        ArrayDecl("indices", i64, 1, "global", contiguous=True),
    )


def arg_rows_function(
    op: str, dtype: str, ndim: int, axis: int, unroll: int = CPU_UNROLL, chunk: int = ARG_CHUNK
) -> Function:
    """``argmin`` / ``argmax`` (`op`) along `axis` of an `ndim`-d array of `dtype` (ndim >= 2) whose
    axis is its contiguous one (CPUs): one work-item per result element scans its row as
    :func:`_best_in_chunks` (its loads are consecutive, where :func:`arg_axis_function`'s lanes
    read as many rows). Parameters as :func:`arg_axis_function`'s; launched over the result's size
    in work-groups of one."""
    if op not in ARG_OPS:
        raise ValueError(f"no index reduction {op!r}")
    if not (ndim >= 2 and 0 <= axis < ndim):
        raise ValueError(f"axis {axis} of a {ndim}-d array cannot be reduced to an array")
    v = _arg_value_dtype(dtype)
    b = FunctionBuilder(1)
    i64 = "int64"
    done = b.new_block()
    row = ResultLanes(b, 1, ndim - 1, 1, done)
    n = b.local(i64)
    b.emit(Dim(n, 0, axis))

    def element(at: Operand) -> Local:
        return b.cast(v, row.element(0, axis, at, dtype), dtype)

    _, index = _best_in_chunks(b, op, v, element, (Imm(i64, 0), None, Local(n)), unroll, chunk)
    row.store(1, [Local(index)], done)
    b.end(Return())
    return b.function(
        f"{op}_rows{axis}_of_{dtype}_{ndim}d_by{unroll}_{chunk}",
        ArrayDecl("x", dtype, ndim, "global"),
        ArrayDecl("out", i64, ndim - 1, "global", contiguous=True),
    )


def arg_combine_function(op: str, dtype: str) -> Function:
    """The index of ``argmin`` / ``argmax`` (`op`) from the runs of :func:`arg_runs_function` (its
    values and indices, in order; runs of ``NO_INDEX`` are empty): the first run's index whose
    value no later run beats (as :func:`_better`), stored into a one-element int64 array.
    Parameters: the values, the indices, the result; launched as one work-item."""
    if op not in ARG_OPS:
        raise ValueError(f"no index reduction {op!r}")
    v = _arg_value_dtype(dtype)
    i64 = "int64"
    b = FunctionBuilder(1)
    n, r, best, index = b.local(i64), b.local(i64), b.local(v), b.local(i64)
    b.emit(Dim(n, 1, 0))
    b.set(r, Imm(i64, 0))
    b.set(best, constant(v, 0))
    b.set(index, Imm(i64, NO_INDEX))
    head, body, take, step, done = (b.new_block() for _ in range(5))
    b.end(Jump(head), then=head)
    b.end(Branch(b.binary("bool", "lt", Local(r), Local(n)), body, done), then=body)
    value, at = b.local(v), b.local(i64)
    b.emit(LoadInst(value, 0, (Local(r),)))
    b.emit(LoadInst(at, 1, (Local(r),)))
    none_yet = b.binary("bool", "eq", Local(index), Imm(i64, NO_INDEX))
    replaces = b.binary(
        "bool", "or", none_yet, _better(b, op, Local(value), Local(best), np.dtype(v).kind == "f")
    )
    run_found = b.binary("bool", "ne", Local(at), Imm(i64, NO_INDEX))
    b.end(Branch(b.binary("bool", "and", run_found, replaces), take, step), then=take)
    b.set(best, Local(value))
    b.set(index, Local(at))
    b.end(Jump(step), then=step)
    b.emit(BinaryInst(r, "add", Local(r), Imm(i64, 1)))
    b.end(Jump(head), then=done)
    b.emit(StoreInst(2, (Imm(i64, 0),), Local(index)))
    b.end(Return())
    return b.function(
        f"{op}_combine_of_{dtype}",
        ArrayDecl("values", v, 1, "global", contiguous=True),
        ArrayDecl("indices", i64, 1, "global", contiguous=True),
        ArrayDecl("index", i64, 1, "global", contiguous=True),
    )


#: the work-items of a work-group reducing one result element along a contiguous axis (GPUs)
GROUP = 256


def axis_group_function(op: str, dtype: str, ndim: int, axis: int, group: int = GROUP) -> Function:
    """`op` (one of ``AXIS_OPS`` or ``ARG_OPS``, real or bool `dtype`) along `axis` of an `ndim`-d
    array (ndim >= 2) by one work-group of `group` work-items (a power of two) per result element
    (GPUs, where the axis is contiguous: neighbouring work-items read neighbouring elements, where
    :func:`axis_function`'s work-item per result element reads its line alone). Work-item ``l``
    combines the elements ``l, l + group, ...`` of its line from the operation's identity (for
    ``argmin`` / ``argmax``: its first extreme and its index), then the work-group combines the
    partials in local memory, halving at each step; ``argmin`` / ``argmax`` prefer the lower index
    among equal values (and NaN as :func:`_better`), so the index is NumPy's. Sums and products are
    accumulated in the result dtype in that tree order (NumPy's pairwise sums are a tree too); the
    others are exact. Parameters as :func:`axis_function`'s (``int64`` results for the index
    operations); launched over ``size * group`` work-items in work-groups of `group`."""
    arg = op in ARG_OPS
    if op not in AXIS_OPS and not arg:
        raise ValueError(f"no axis reduction {op!r}")
    if not (ndim >= 2 and 0 <= axis < ndim):
        raise ValueError(f"axis {axis} of a {ndim}-d array cannot be reduced to an array")
    if group < 1 or group & (group - 1):
        raise ValueError(f"a work-group of {group} work-items is not a power of two")
    if complex_lowering.is_complex(dtype):
        raise ValueError("complex reductions along an axis take axis_function")
    i64 = "int64"
    out = i64 if arg else result_dtype(op, dtype).name
    acc = _arg_value_dtype(dtype) if arg else out  # an index's extreme: in the input's dtype
    combine = ("min" if op == "argmin" else "max") if arg else COMBINE[op]
    floating = np.dtype(acc).kind == "f"
    b = FunctionBuilder(1)
    g, lid, n, k = b.local(i64), b.local(i64), b.local(i64), b.local(i64)
    b.emit(WorkItem(g, "get_group_id", 0))
    b.emit(WorkItem(lid, "get_local_id", 0))
    b.emit(Dim(n, 0, axis))
    extents, _ = b.extents(1, ndim - 1)
    row = b.unflatten(Local(g), extents)
    s, best = b.local(acc), b.local(i64)
    b.set(s, constant(acc, identity(combine, acc)))
    b.set(best, Imm(i64, NO_INDEX))

    def element(at: Operand) -> Local:
        e = b.local(dtype)
        b.emit(LoadInst(e, 0, (*row[:axis], at, *row[axis:])))
        return b.cast(acc, Local(e), dtype)

    def take_pair(value: Operand, index: Operand) -> None:
        """(s, best) = (value, index) where that pair comes first in NumPy's order."""
        none_yet = b.binary("bool", "eq", Local(best), Imm(i64, NO_INDEX))
        ahead = b.binary(
            "bool", "and", _matches(b, value, Local(s), floating), b.binary("bool", "lt", index, Local(best))
        )
        wins = b.binary(
            "bool", "or", none_yet, b.binary("bool", "or", _better(b, op, value, Local(s), floating), ahead)
        )
        wins = b.binary("bool", "and", b.binary("bool", "ne", index, Imm(i64, NO_INDEX)), wins)
        b.emit(SelectInst(s, wins, value, Local(s)))
        b.emit(SelectInst(best, wins, index, Local(best)))

    # this work-item's elements of the line
    head, body, after = b.new_block(), b.new_block(), b.new_block()
    b.set(k, Local(lid))
    b.end(Jump(head), then=head)
    b.end(Branch(b.binary("bool", "lt", Local(k), Local(n)), body, after), then=body)
    x = element(Local(k))
    if arg:
        take_pair(x, Local(k))
    else:
        b.combine(combine, s, x)
    b.emit(BinaryInst(k, "add", Local(k), Imm(i64, group)))
    b.end(Jump(head), then=after)
    # the work-group's partials, halving
    values, indices = 2, 3
    b.emit(StoreInst(values, (Local(lid),), Local(s)))
    if arg:
        b.emit(StoreInst(indices, (Local(lid),), Local(best)))
    b.emit(Barrier(1))
    stride = group // 2
    while stride:
        step, joined = b.new_block(), b.new_block()
        b.end(Branch(b.binary("bool", "lt", Local(lid), Imm(i64, stride)), step, joined), then=step)
        other = b.binary(i64, "add", Local(lid), Imm(i64, stride))
        v = b.local(acc)
        b.emit(LoadInst(v, values, (other,)))
        if arg:
            j = b.local(i64)
            b.emit(LoadInst(j, indices, (other,)))
            take_pair(Local(v), Local(j))
            b.emit(StoreInst(indices, (Local(lid),), Local(best)))
        else:
            b.combine(combine, s, Local(v))
        b.emit(StoreInst(values, (Local(lid),), Local(s)))
        b.end(Jump(joined), then=joined)
        b.emit(Barrier(1))
        stride //= 2
    # work-item 0 stores the result element
    store, done = b.new_block(), b.new_block()
    b.end(Branch(b.binary("bool", "eq", Local(lid), Imm(i64, 0)), store, done), then=store)
    value: Operand = Local(best) if arg else Local(s)
    if op == "mean":
        quotient = b.binary(
            "float64", "div", b.cast("float64", Local(s), acc), b.cast("float64", Local(n), i64)
        )
        q = b.local("float64")
        b.emit(SelectInst(q, b.binary("bool", "ne", Local(n), Imm(i64, 0)), quotient, Imm("float64", np.nan)))
        value = b.cast(out, Local(q), "float64")
    b.emit(StoreInst(1, tuple(row), value))
    b.end(Jump(done), then=done)
    b.end(Return())
    return b.function(
        f"{op}_group{axis}_of_{dtype}_{ndim}d_{group}",
        ArrayDecl("x", dtype, ndim, "global"),
        ArrayDecl("out", out, ndim - 1, "global", contiguous=True),
        ArrayDecl("values", acc, 1, "local", shape=(group,)),
        *([ArrayDecl("indices", i64, 1, "local", shape=(group,))] if arg else []),
    )
