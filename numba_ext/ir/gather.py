"""Gathering, scattering and compaction: the kernels of ``np.take``, ``np.take_along_axis``,
``np.nonzero``, boolean-mask selection, ``np.repeat`` and assignment through integer arrays, in the
control-flow form (:class:`~.kernel_ir.Function`), for eager operations.

Gathering (:func:`gather_function`): one work-item per element of a C-contiguous result reads one
element of the index array, turns it into a position along the gathered dimensions of the source
(NumPy's ``mode``: ``"raise"`` wraps negative indices and flags any outside the extent, skipping
the read; ``"wrap"`` takes the index modulo the extent; ``"clip"`` clamps it) and copies the
source element there. Elements are copied as bits (:func:`copy_dtype`), so one kernel serves
every dtype of an element size.

Scattering (:func:`scatter_function`) is a gather's inverse: one work-item per element of
C-contiguous values writes it where its flat position says, in a target of any strides. Where a
position is named more than once (``x[idx] = v``: the last value wins, as in NumPy), either the
positions are made distinct before the scatter, or :func:`claim_function` first lets each position
name its last occurrence (an atomic maximum of the occurrences' numbers into an ``owner`` vector
over the target's leading dimensions, filled with -1) and the claimed scatter
(``scatter_function(..., claimed=True)``) writes only the values of those occurrences.

Compaction takes three kernels, as the blocked scans of ``ir.scans``: the flat positions of the
input (C order) are cut into blocks of ``ceil(n / blocks)`` positions,

1. :func:`block_counts_function`: one work-item per block sums its elements' weights (the truth of
   each element for ``nonzero`` and masks, the repeat count for ``np.repeat``);
2. ``ir.scans.block_prefix_function("cumsum", "int64")`` turns the counts (one more element than
   blocks, zero) into exclusive prefixes in place; the extra element becomes the total;
3. :func:`compact_function`: one work-item per block walks its block again from its prefix and
   writes, for each element, as many outputs as its weight: its flat position, its index (one
   coordinate per dimension), or the element of a source array of the same shape.

Integer selects, minima and maxima are branches here (the Intel CPU runtime builds kernels holding
them without optimisation, see ``rust/src/runtime/program.rs``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

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
from .reductions import FunctionBuilder, constant

#: the index modes of ``np.take``
MODES = ("raise", "wrap", "clip")
#: what :func:`compact_function` writes for each selected element
EMITS = ("positions", "coords", "values")
#: how :func:`block_counts_function` and :func:`compact_function` weigh each element
WEIGHTS = ("truth", "count")
_I64 = "int64"


def copy_dtype(dtype: object) -> str:
    """The dtype elements of `dtype` are copied as: an unsigned integer of their size (a complex128
    element as itself, 16 bytes), so that copies keep every bit (NaN payloads, ``-0.0``)."""
    dt = np.dtype(dtype)  # type: ignore[call-overload]
    if dt.itemsize == 16:
        return "complex128"
    if dt.itemsize not in (1, 2, 4, 8):
        raise ValueError(f"no copy dtype for {dt}")
    return f"uint{8 * dt.itemsize}"


def _product(b: FunctionBuilder, extents: list[Operand]) -> Operand:
    total: Operand = Imm(_I64, 1)
    for e in extents:
        total = b.binary(_I64, "mul", total, e)
    return total


def gather_function(
    dtype: str,
    index_dtype: str,
    ndim: int,
    axis: int,
    span: int,
    index_ndim: int,
    start: int,
    out_ndim: int,
    mode: str,
) -> Function:
    """The gather ``out[o] = x[o[:axis], j, o[out_ndim - post:]]`` over every index ``o`` of the
    C-contiguous result (rank `out_ndim`), where ``post = ndim - axis - span`` and ``j``, the element
    of the index array (rank `index_ndim`, any integer or bool `index_dtype`, any strides, zero for
    broadcast dimensions) at ``o[start:start + index_ndim]``, is a flat position (C order) over the
    `span` dimensions ``axis .. axis + span - 1`` of the source `x` (rank `ndim`, elements of
    `dtype`, any strides), taken as `mode` says (see the module documentation). All ranks are at
    least 1. Parameters: the source, the indices, the result and, for ``"raise"``, a one-element
    int32 flag set to 1 where an index is out of range; launched over at least the result's size."""
    if mode not in MODES:
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    post = ndim - axis - span
    if min(ndim, span, index_ndim, out_ndim) < 1 or axis < 0 or post < 0:
        raise ValueError("a gather of rank-0 operands or dimensions outside the source")
    if start < 0 or start + index_ndim > out_ndim or axis + post > out_ndim:
        raise ValueError("a gather whose index dimensions are outside the result")
    b = FunctionBuilder(1)
    gid = b.local(_I64)
    b.emit(WorkItem(gid, "get_global_id", 0))
    x_extents, _ = b.extents(0, ndim)
    out_extents, total = b.extents(2, out_ndim)
    body, done = b.new_block(), b.new_block()
    b.end(Branch(b.binary("bool", "lt", Local(gid), total), body, done), then=body)
    o = b.unflatten(Local(gid), out_extents)
    raw = b.local(index_dtype)
    b.emit(LoadInst(raw, 1, tuple(o[start : start + index_ndim])))
    j = b.local(_I64)
    b.set(j, b.cast(_I64, Local(raw), index_dtype))
    n = _product(b, x_extents[axis : axis + span])
    copy = b.new_block()
    if mode == "raise":
        negative, check, bad = b.new_block(), b.new_block(), b.new_block()
        b.end(Branch(b.binary("bool", "lt", Local(j), Imm(_I64, 0)), negative, check), then=negative)
        b.emit(BinaryInst(j, "add", Local(j), n))
        b.end(Jump(check), then=check)
        outside = b.binary(
            "bool",
            "or",
            b.binary("bool", "lt", Local(j), Imm(_I64, 0)),
            b.binary("bool", "ge", Local(j), n),
        )
        b.end(Branch(outside, bad, copy), then=bad)
        b.emit(StoreInst(3, (Imm(_I64, 0),), Imm("int32", 1)))
        b.end(Jump(done), then=copy)
    elif mode == "wrap":
        b.emit(BinaryInst(j, "rem", Local(j), n))
        negative = b.new_block()
        b.end(Branch(b.binary("bool", "lt", Local(j), Imm(_I64, 0)), negative, copy), then=negative)
        b.emit(BinaryInst(j, "add", Local(j), n))  # a truncated remainder made a floored one
        b.end(Jump(copy), then=copy)
    else:
        low, high_test, high = b.new_block(), b.new_block(), b.new_block()
        b.end(Branch(b.binary("bool", "lt", Local(j), Imm(_I64, 0)), low, high_test), then=low)
        b.set(j, Imm(_I64, 0))
        b.end(Jump(copy), then=high_test)
        b.end(Branch(b.binary("bool", "ge", Local(j), n), high, copy), then=high)
        b.set(j, b.binary(_I64, "sub", n, Imm(_I64, 1)))
        b.end(Jump(copy), then=copy)
    at = (*o[:axis], *b.unflatten(Local(j), x_extents[axis : axis + span]), *o[out_ndim - post :])
    e = b.local(dtype)
    b.emit(LoadInst(e, 0, at))
    b.emit(StoreInst(2, tuple(o), Local(e)))
    b.end(Jump(done), then=done)
    b.end(Return())
    arrays = [
        ArrayDecl("x", dtype, ndim, "global"),
        ArrayDecl("indices", index_dtype, index_ndim, "global"),
        ArrayDecl("out", dtype, out_ndim, "global", contiguous=True),
    ]
    if mode == "raise":
        arrays.append(ArrayDecl("flag", "int32", 1, "global", contiguous=True))
    name = f"gather_{mode}_{dtype}_{ndim}d_a{axis}s{span}"
    return b.function(f"{name}_by_{index_dtype}_{index_ndim}d_at{start}_to_{out_ndim}d", *arrays)


def scatter_function(dtype: str, ndim: int, span: int, claimed: bool = False) -> Function:
    """The scatter ``x[p[:span], o[1:]] = values[o]`` over every index ``o`` of the C-contiguous
    `values` (rank ``1 + ndim - span``), where ``p`` is the index (C order) over the leading `span`
    dimensions of the target `x` (rank `ndim`, elements of `dtype`, any strides) of the flat
    position ``j = targets[o[0]]`` (a C-contiguous int64 vector of positions inside those
    dimensions). Unclaimed, each position is named at most once, so that no two work-items write
    one element. `claimed`: positions may repeat, and an element is written only where
    ``owner[j] == o[0]`` (a C-contiguous int64 vector over the flattened leading dimensions, as
    :func:`claim_function` leaves it: the last occurrence of each position), so that each element
    is written once, with its last value. Parameters: the target, the positions, the values[, the
    owners]; launched over at least the values' size."""
    post = ndim - span
    if span < 1 or post < 0:
        raise ValueError("a scatter over no dimension or dimensions outside the target")
    b = FunctionBuilder(1)
    gid = b.local(_I64)
    b.emit(WorkItem(gid, "get_global_id", 0))
    x_extents, _ = b.extents(0, ndim)
    v_extents, total = b.extents(2, 1 + post)
    body, done = b.new_block(), b.new_block()
    b.end(Branch(b.binary("bool", "lt", Local(gid), total), body, done), then=body)
    o = b.unflatten(Local(gid), v_extents)
    j = b.local(_I64)
    b.emit(LoadInst(j, 1, (o[0],)))
    if claimed:
        owner, store = b.local(_I64), b.new_block()
        b.emit(LoadInst(owner, 3, (Local(j),)))
        b.end(Branch(b.binary("bool", "eq", Local(owner), o[0]), store, done), then=store)
    at = (*b.unflatten(Local(j), x_extents[:span]), *o[1:])
    e = b.local(dtype)
    b.emit(LoadInst(e, 2, tuple(o)))
    b.emit(StoreInst(0, at, Local(e)))
    b.end(Jump(done), then=done)
    b.end(Return())
    arrays = [
        ArrayDecl("x", dtype, ndim, "global"),
        ArrayDecl("targets", _I64, 1, "global", contiguous=True),
        ArrayDecl("values", dtype, 1 + post, "global", contiguous=True),
    ]
    if claimed:
        arrays.append(ArrayDecl("owner", _I64, 1, "global", contiguous=True))
    return b.function(f"scatter_{'claimed_' if claimed else ''}{dtype}_{ndim}d_s{span}", *arrays)


def claim_function() -> Function:
    """The claim before a scatter of repeated positions: ``owner[targets[k]] = max(owner[...],
    k)`` by an atomic maximum, one work-item per occurrence ``k`` of the C-contiguous int64
    positions `targets`, into the C-contiguous int64 `owner` (filled with -1, one element per
    position that may be named). Afterwards each named position holds the number of its last
    occurrence, whose value NumPy's ``x[idx] = v`` keeps. Parameters: the owners, the positions;
    launched over at least the positions."""
    b = FunctionBuilder(1)
    gid = b.local(_I64)
    b.emit(WorkItem(gid, "get_global_id", 0))
    _, m = b.extents(1, 1)
    body, done = b.new_block(), b.new_block()
    b.end(Branch(b.binary("bool", "lt", Local(gid), m), body, done), then=body)
    j = b.local(_I64)
    b.emit(LoadInst(j, 1, (Local(gid),)))
    b.emit(Atomic(None, "max", 0, (Local(j),), Local(gid)))
    b.end(Jump(done), then=done)
    b.end(Return())
    return b.function(
        "claim_last_occurrences",
        ArrayDecl("owner", _I64, 1, "global", contiguous=True),
        ArrayDecl("targets", _I64, 1, "global", contiguous=True),
    )


def _block_walk(
    b: FunctionBuilder, ndim: int, setup: Callable[[Local], None]
) -> tuple[Local, list[Operand], Local, int, int]:
    """The entry of a blocked kernel over array 0 (rank `ndim`), whose block counts or prefixes are
    array 1 (one element more than blocks): `setup(block)` emits the set-up of this work-item's
    block; returns the running flat position (a local, from the block's first position), the
    extents of array 0, the loop's condition (the position below the block's end and the array's
    size), and the blocks of the loop's test (the builder is left there, after the condition) and
    of the kernel's end; work-items past the blocks go to the end."""
    block, blocks = b.local(_I64), b.local(_I64)
    b.emit(WorkItem(block, "get_global_id", 0))
    extents, n = b.extents(0, ndim)
    b.emit(Dim(blocks, 1, 0))
    b.emit(BinaryInst(blocks, "sub", Local(blocks), Imm(_I64, 1)))
    set_up, head, done = b.new_block(), b.new_block(), b.new_block()
    b.end(Branch(b.binary("bool", "lt", Local(block), Local(blocks)), set_up, done), then=set_up)
    last = b.binary(_I64, "sub", Local(blocks), Imm(_I64, 1))
    chunk = b.binary(_I64, "floordiv", b.binary(_I64, "add", n, last), Local(blocks))
    i = b.local(_I64)
    b.set(i, b.binary(_I64, "mul", Local(block), chunk))
    end = b.binary(_I64, "add", Local(i), chunk)
    setup(Local(block))
    b.end(Jump(head), then=head)
    inside = b.binary(
        "bool", "and", b.binary("bool", "lt", Local(i), end), b.binary("bool", "lt", Local(i), n)
    )
    return Local(i), extents, inside, head, done


def _weight(b: FunctionBuilder, weight: str, dtype: str, index: list[Operand]) -> Local:
    """The weight (int64) of the element of array 0 (of `dtype`) at `index`: its truth (0 or 1) or
    its value (a repeat count)."""
    if weight not in WEIGHTS:
        raise ValueError(f"no weight {weight!r}")
    e = b.local(dtype)
    b.emit(LoadInst(e, 0, tuple(index)))
    if weight == "count":
        return b.cast(_I64, Local(e), dtype)
    truth = Local(e) if dtype == "bool" else b.binary("bool", "ne", Local(e), constant(dtype, 0))
    return b.cast(_I64, truth, "bool")


def block_counts_function(weight: str, dtype: str, ndim: int) -> Function:
    """The first kernel of a compaction: the total weight (``"truth"``: the number of nonzero
    elements; ``"count"``: the sum of the integer elements) of each block of the flattened
    `ndim`-d array of `dtype` (any layout), stored into ``counts[block]``. Parameters: the input,
    the counts (int64, one element more than blocks); launched over at least the blocks."""
    b = FunctionBuilder(1)
    count = b.local(_I64)
    blocks: list[Local] = []

    def setup(block: Local) -> None:
        blocks.append(block)
        b.set(count, Imm(_I64, 0))

    i, extents, inside, head, done = _block_walk(b, ndim, setup)
    body, finish = b.new_block(), b.new_block()
    b.end(Branch(inside, body, finish), then=body)
    w = _weight(b, weight, dtype, b.unflatten(i, extents))
    b.emit(BinaryInst(count, "add", Local(count), w))
    b.emit(BinaryInst(i.index, "add", i, Imm(_I64, 1)))
    b.end(Jump(head), then=finish)
    b.emit(StoreInst(1, (blocks[0],), Local(count)))
    b.end(Jump(done), then=done)
    b.end(Return())
    return b.function(
        f"block_{weight}_counts_of_{dtype}_{ndim}d",
        ArrayDecl("x", dtype, ndim, "global"),
        ArrayDecl("counts", _I64, 1, "global", contiguous=True),
    )


def compact_function(
    weight: str, dtype: str, ndim: int, emit: str, value_dtype: str | None = None
) -> Function:
    """The last kernel of a compaction: each block of the flattened `ndim`-d array of `dtype` (any
    layout) walked again from its exclusive prefix; each element of weight ``w`` (see
    :func:`block_counts_function`) writes ``w`` consecutive outputs from the running position:
    ``"positions"``: its flat position (C order) into a 1-d int64 array; ``"coords"``: its index
    into row ``pos`` of a 2-d int64 array (``out[pos, d]``, any strides); ``"values"``: the element
    at the same index of a second array of the same shape (of `value_dtype`, any layout) into a
    1-d array of `value_dtype`. Parameters: the input, the prefixes (int64, one element more than
    blocks), [the value source,] the output; launched as :func:`block_counts_function`."""
    if emit not in EMITS:
        raise ValueError(f"no compaction output {emit!r}")
    if emit == "values" and value_dtype is None:
        raise ValueError("a compaction of values needs their dtype")
    b = FunctionBuilder(1)
    pos, w = b.local(_I64), b.local(_I64)
    i, extents, inside, head, done = _block_walk(b, ndim, lambda block: b.emit(LoadInst(pos, 1, (block,))))
    body, finish = b.new_block(), b.new_block()
    b.end(Branch(inside, body, finish), then=body)
    index = b.unflatten(i, extents)
    b.set(w, _weight(b, weight, dtype, index))
    out = 3 if emit == "values" else 2
    value: Operand | None = None
    if emit == "values":
        assert value_dtype is not None
        inner_head = b.new_block()
        load, after_load = b.new_block(), b.new_block()
        # the value is read only where it is selected
        b.end(Branch(b.binary("bool", "gt", Local(w), Imm(_I64, 0)), load, after_load), then=load)
        v = b.local(value_dtype)
        b.emit(LoadInst(v, 2, tuple(index)))
        value = Local(v)
        b.end(Jump(inner_head), then=after_load)
        b.end(Jump(inner_head), then=inner_head)
    else:
        inner_head = b.new_block()
        b.end(Jump(inner_head), then=inner_head)
    write, next_element = b.new_block(), b.new_block()
    b.end(Branch(b.binary("bool", "gt", Local(w), Imm(_I64, 0)), write, next_element), then=write)
    if emit == "positions":
        b.emit(StoreInst(out, (Local(pos),), i))
    elif emit == "coords":
        for d, c in enumerate(index):
            b.emit(StoreInst(out, (Local(pos), Imm(_I64, d)), c))
    else:
        assert value is not None
        b.emit(StoreInst(out, (Local(pos),), value))
    b.emit(BinaryInst(pos, "add", Local(pos), Imm(_I64, 1)))
    b.emit(BinaryInst(w, "sub", Local(w), Imm(_I64, 1)))
    b.end(Jump(inner_head), then=next_element)
    b.emit(BinaryInst(i.index, "add", i, Imm(_I64, 1)))
    b.end(Jump(head), then=finish)
    b.end(Jump(done), then=done)
    b.end(Return())
    arrays = [
        ArrayDecl("x", dtype, ndim, "global"),
        ArrayDecl("prefixes", _I64, 1, "global", contiguous=True),
    ]
    if emit == "values":
        assert value_dtype is not None
        arrays.append(ArrayDecl("values", value_dtype, ndim, "global"))
        arrays.append(ArrayDecl("out", value_dtype, 1, "global", contiguous=True))
    elif emit == "coords":
        arrays.append(ArrayDecl("out", _I64, 2, "global"))
    else:
        arrays.append(ArrayDecl("out", _I64, 1, "global", contiguous=True))
    suffix = f"_{value_dtype}" if emit == "values" else ""
    return b.function(f"compact_{weight}_{emit}_of_{dtype}_{ndim}d{suffix}", *arrays)
