"""Counting (``np.bincount``): the kernels of an eager histogram of non-negative integers, in the
control-flow form (:class:`~.kernel_ir.Function`).

A histogram takes two steps, the first of which sizes the second's result:

1. the extremes of the values (their least and greatest, as int64), for NumPy's check of negative
   values and the result's length: :func:`extremes_function` reduces each work-item's share of the
   positions into its own column of a ``(2, work-items)`` array of partials, and
   :func:`extremes_combine_function` (one work-item) reduces those columns into two int64 values,
   which the host reads;
2. the counts (int64) or the sums of the weights (float64) of each value, in one of two forms:

   * private rows (:func:`private_histogram_function`, CPUs): each work-item counts its contiguous
     run of positions into its own row of a ``(rows, bins)`` array filled with zeros (plain loads
     and stores, no atomics), and :func:`merge_rows_function` adds the rows up, one work-item per
     bin, into the result (bins past the rows' width are zero);
   * atomics (:func:`atomic_histogram_function`, GPUs): each position adds its weight into the
     result, filled with zeros, by an atomic add (a compare-exchange loop for floats where the
     device has no float atomic add).

Values are read through their strides (any 1-d layout) and converted to int64 (unsigned 64-bit
values past the int64 range turn negative, as NumPy's cast makes them); weights of any real or bool
dtype are converted to float64 before they are added. Integer minima and maxima are compares and
branches (the Intel CPU runtime builds kernels holding integer selects without optimisation, see
``rust/src/runtime/program.rs``).
"""

from __future__ import annotations

from .kernel_ir import (
    ArrayDecl,
    Atomic,
    BinaryInst,
    Branch,
    Dim,
    Function,
    Imm,
    Jump,
    LoadInst,
    Local,
    Operand,
    Return,
    StoreInst,
    WorkItem,
)
from .reductions import FunctionBuilder

_I64 = "int64"
_F64 = "float64"
_LOWEST = -(2**63)
_HIGHEST = 2**63 - 1


def histogram_dtype(weighted: bool) -> str:
    """The dtype of a histogram: int64 counts, float64 sums of weights (NumPy's)."""
    return _F64 if weighted else _I64


def _below(b: FunctionBuilder, value: Operand, dst: int) -> None:
    """``dst = min(dst, value)`` by a compare and a branch; the builder is left after it."""
    take, after = b.new_block(), b.new_block()
    b.end(Branch(b.binary("bool", "lt", value, Local(dst)), take, after), then=take)
    b.set(dst, value)
    b.end(Jump(after), then=after)


def _above(b: FunctionBuilder, value: Operand, dst: int) -> None:
    """``dst = max(dst, value)`` by a compare and a branch; the builder is left after it."""
    take, after = b.new_block(), b.new_block()
    b.end(Branch(b.binary("bool", "gt", value, Local(dst)), take, after), then=take)
    b.set(dst, value)
    b.end(Jump(after), then=after)


def _value(b: FunctionBuilder, dtype: str, at: Operand) -> Local:
    """The element of array 0 (1-d, of `dtype`) at position `at`, as int64."""
    e = b.local(dtype)
    b.emit(LoadInst(e, 0, (at,)))
    return b.cast(_I64, Local(e), dtype)


def _weight(b: FunctionBuilder, weight_dtype: str | None, at: Operand) -> Operand:
    """The weight of position `at`: 1 (int64) without weights, else the element of array 1 (of
    `weight_dtype`) as float64."""
    if weight_dtype is None:
        return Imm(_I64, 1)
    w = b.local(weight_dtype)
    b.emit(LoadInst(w, 1, (at,)))
    return b.cast(_F64, Local(w), weight_dtype)


def _inputs(dtype: str, weight_dtype: str | None) -> list[ArrayDecl]:
    arrays = [ArrayDecl("x", dtype, 1, "global")]
    if weight_dtype is not None:
        arrays.append(ArrayDecl("weights", weight_dtype, 1, "global"))
    return arrays


def extremes_function(dtype: str, unroll: int) -> Function:
    """The least and greatest value (as int64) of each work-item's share of a 1-d array of the
    integer or bool `dtype` (any stride), stored into column ``gid`` of a C-contiguous int64 array
    of shape ``(2, work-items)`` (row 0 the least, row 1 the greatest; a work-item without
    positions stores ``(2**63 - 1, -2**63)``). Shares as ``FunctionBuilder.flat_loop`` makes them
    (`unroll` 1: strided, GPUs; more: contiguous runs, CPUs, in work-groups of one). Parameters:
    the values, the partials; launched over exactly the partials' columns."""
    b = FunctionBuilder(1)
    gid = b.local(_I64)
    b.emit(WorkItem(gid, "get_global_id", 0))
    n = b.local(_I64)
    b.emit(Dim(n, 0, 0))
    lo, hi = b.local(_I64), b.local(_I64)
    b.set(lo, Imm(_I64, _HIGHEST))
    b.set(hi, Imm(_I64, _LOWEST))

    def step(lane: int, at: Operand) -> None:
        v = _value(b, dtype, at)
        _below(b, v, lo)
        _above(b, v, hi)

    b.flat_loop(Local(n), unroll, step)
    b.emit(StoreInst(1, (Imm(_I64, 0), Local(gid)), Local(lo)))
    b.emit(StoreInst(1, (Imm(_I64, 1), Local(gid)), Local(hi)))
    b.end(Return())
    return b.function(
        f"bincount_extremes_of_{dtype}" + (f"_by{unroll}" if unroll > 1 else ""),
        ArrayDecl("x", dtype, 1, "global"),
        ArrayDecl("partials", _I64, 2, "global", contiguous=True),
    )


def extremes_combine_function() -> Function:
    """The least of row 0 and the greatest of row 1 of the ``(2, work-items)`` int64 partials of
    :func:`extremes_function`, stored into a 2-element int64 array, by the work-item of global id
    0. Parameters: the partials, the result."""
    b = FunctionBuilder(1)
    gid = b.local(_I64)
    b.emit(WorkItem(gid, "get_global_id", 0))
    setup, head, body, done = b.new_block(), b.new_block(), b.new_block(), b.new_block()
    b.end(Branch(b.binary("bool", "eq", Local(gid), Imm(_I64, 0)), setup, done), then=setup)
    columns, k, lo, hi = b.local(_I64), b.local(_I64), b.local(_I64), b.local(_I64)
    b.emit(Dim(columns, 0, 1))
    b.set(lo, Imm(_I64, _HIGHEST))
    b.set(hi, Imm(_I64, _LOWEST))
    b.set(k, Imm(_I64, 0))
    b.end(Jump(head), then=head)
    b.end(Branch(b.binary("bool", "lt", Local(k), Local(columns)), body, done), then=body)
    least, greatest = b.local(_I64), b.local(_I64)
    b.emit(LoadInst(least, 0, (Imm(_I64, 0), Local(k))))
    b.emit(LoadInst(greatest, 0, (Imm(_I64, 1), Local(k))))
    _below(b, Local(least), lo)
    _above(b, Local(greatest), hi)
    b.emit(StoreInst(1, (Imm(_I64, 0),), Local(lo)))
    b.emit(StoreInst(1, (Imm(_I64, 1),), Local(hi)))
    b.emit(BinaryInst(k, "add", Local(k), Imm(_I64, 1)))
    b.end(Jump(head), then=done)
    b.end(Return())
    return b.function(
        "bincount_extremes_combine",
        ArrayDecl("partials", _I64, 2, "global", contiguous=True),
        ArrayDecl("extremes", _I64, 1, "global", contiguous=True),
    )


def private_histogram_function(dtype: str, weight_dtype: str | None) -> Function:
    """Each work-item's histogram of its contiguous run of ``ceil(n / rows)`` positions of the 1-d
    values (of the integer or bool `dtype`, any stride, every value in ``[0, bins)``), added into
    its own row ``gid`` of a C-contiguous ``(rows, bins)`` array (filled with zeros before): 1 per
    value (int64) without weights, else the weight at the same position (of `weight_dtype`, any
    stride) as float64. Parameters: the values, [the weights,] the rows; launched over exactly
    ``rows`` work-items (on CPUs in work-groups of one)."""
    out = histogram_dtype(weight_dtype is not None)
    arrays = _inputs(dtype, weight_dtype)
    rows_array = len(arrays)
    b = FunctionBuilder(1)
    gid, gsize = b.local(_I64), b.local(_I64)
    b.emit(WorkItem(gid, "get_global_id", 0))
    b.emit(WorkItem(gsize, "get_global_size", 0))
    n = b.local(_I64)
    b.emit(Dim(n, 0, 0))
    start, end = b.run(Local(n), Local(gid), Local(gsize))
    i = b.local(_I64)
    b.set(i, start)
    head, body, done = b.new_block(), b.new_block(), b.new_block()
    b.end(Jump(head), then=head)
    inside = b.binary(
        "bool",
        "and",
        b.binary("bool", "lt", Local(i), end),
        b.binary("bool", "lt", Local(i), Local(n)),
    )
    b.end(Branch(inside, body, done), then=body)
    v = _value(b, dtype, Local(i))
    w = _weight(b, weight_dtype, Local(i))
    count = b.local(out)
    at = (Local(gid), v)
    b.emit(LoadInst(count, rows_array, at))
    b.emit(BinaryInst(count, "add", Local(count), w))
    b.emit(StoreInst(rows_array, at, Local(count)))
    b.emit(BinaryInst(i, "add", Local(i), Imm(_I64, 1)))
    b.end(Jump(head), then=done)
    b.end(Return())
    arrays.append(ArrayDecl("rows", out, 2, "global", contiguous=True))
    name = f"bincount_rows_of_{dtype}" + (f"_by_{weight_dtype}" if weight_dtype else "")
    return b.function(name, *arrays)


def merge_rows_function(weighted: bool) -> Function:
    """The sum over the rows of a C-contiguous ``(rows, width)`` array of private histograms (int64
    counts, or float64 sums with `weighted`) into a 1-d C-contiguous result of at least ``width``
    bins, one work-item per bin (bins from ``width`` on are zero). Parameters: the rows, the
    result; launched over at least the result's length."""
    out = histogram_dtype(weighted)
    b = FunctionBuilder(1)
    j = b.local(_I64)
    b.emit(WorkItem(j, "get_global_id", 0))
    bins, rows, width = b.local(_I64), b.local(_I64), b.local(_I64)
    b.emit(Dim(bins, 1, 0))
    b.emit(Dim(rows, 0, 0))
    b.emit(Dim(width, 0, 1))
    setup, head, body, store, done = (b.new_block() for _ in range(5))
    b.end(Branch(b.binary("bool", "lt", Local(j), Local(bins)), setup, done), then=setup)
    total, k = b.local(out), b.local(_I64)
    b.set(total, Imm(out, 0.0 if weighted else 0))
    b.set(k, Imm(_I64, 0))
    b.end(Branch(b.binary("bool", "lt", Local(j), Local(width)), head, store), then=head)
    b.end(Branch(b.binary("bool", "lt", Local(k), Local(rows)), body, store), then=body)
    part = b.local(out)
    b.emit(LoadInst(part, 0, (Local(k), Local(j))))
    b.emit(BinaryInst(total, "add", Local(total), Local(part)))
    b.emit(BinaryInst(k, "add", Local(k), Imm(_I64, 1)))
    b.end(Jump(head), then=store)
    b.emit(StoreInst(1, (Local(j),), Local(total)))
    b.end(Jump(done), then=done)
    b.end(Return())
    return b.function(
        f"bincount_merge_rows_to_{out}",
        ArrayDecl("rows", out, 2, "global", contiguous=True),
        ArrayDecl("out", out, 1, "global", contiguous=True),
    )


def atomic_histogram_function(dtype: str, weight_dtype: str | None, unroll: int) -> Function:
    """The histogram of the 1-d values (of the integer or bool `dtype`, any stride, every value in
    ``[0, bins)``) added into a 1-d C-contiguous result (filled with zeros before) by atomic adds:
    1 per value (int64) without weights, else the weight at the same position (of `weight_dtype`,
    any stride) as float64. Each work-item takes its share of the positions as
    ``FunctionBuilder.flat_loop`` makes it (`unroll` 1: strided, GPUs; more: contiguous runs,
    CPUs, in work-groups of one). Parameters: the values, [the weights,] the result."""
    out = histogram_dtype(weight_dtype is not None)
    arrays = _inputs(dtype, weight_dtype)
    result = len(arrays)
    b = FunctionBuilder(1)
    n = b.local(_I64)
    b.emit(Dim(n, 0, 0))

    def step(lane: int, at: Operand) -> None:
        v = _value(b, dtype, at)
        w = _weight(b, weight_dtype, at)
        b.emit(Atomic(None, "add", result, (v,), w))

    b.flat_loop(Local(n), unroll, step)
    b.end(Return())
    arrays.append(ArrayDecl("out", out, 1, "global", contiguous=True))
    name = f"bincount_atomic_of_{dtype}" + (f"_by_{weight_dtype}" if weight_dtype else "")
    return b.function(name + (f"_by{unroll}" if unroll > 1 else ""), *arrays)
