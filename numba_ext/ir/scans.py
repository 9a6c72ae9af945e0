"""Scans (``np.cumsum``, ``np.cumprod``) of an array flattened in C order, as three kernels in the
control-flow form (:class:`~.kernel_ir.Function`), for eager scans. The blocked scan of the compiler
layer's jitted scans (``compiler.scans``), with its arithmetic: the running value is kept in NumPy's
result dtype (:func:`scan_dtype`), each element converted to it before it is combined.

1. :func:`block_totals_function`: one work-item per block of consecutive flat positions computes
   its block's total (reading the input once, writing nothing else);
2. :func:`block_prefix_function`: one work-item turns the block totals into exclusive prefixes, in
   place;
3. :func:`block_scan_function`: one work-item per block scans its block sequentially from its
   prefix into the result.

All blocks but the last hold ``ceil(n / blocks)`` elements, where ``blocks`` is the length of the
block totals' array, chosen by the caller (at most ``BLOCKS``, and no block empty). The association
order differs from NumPy's strictly sequential loop, so float results agree within rounding, and
integers exactly (they wrap, as NumPy's).
"""

from __future__ import annotations

import numpy as np

from .kernel_ir import (
    ArrayDecl,
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
    SelectInst,
    StoreInst,
    WorkItem,
)
from .reductions import FunctionBuilder, constant, identity

#: the scans this module builds, and the operation combining their elements
SCAN_OPS = {"cumsum": "add", "cumprod": "mul"}
#: the most blocks (work-items of the first and last kernels)
BLOCKS = 4096
_I64 = "int64"


def scan_dtype(op: str, dtype: object) -> np.dtype:
    """NumPy's result dtype of ``np.cumsum`` / ``np.cumprod``: integers and booleans widen to 64
    bits."""
    if op not in SCAN_OPS:
        raise ValueError(f"no scan {op!r}")
    dt = np.dtype(dtype)  # type: ignore[call-overload]
    if dt.kind in "bi":
        return np.dtype(np.int64)
    if dt.kind == "u":
        return np.dtype(np.uint64)
    return dt


def block_count(n: int) -> int:
    """The number of blocks a scan of `n` (> 0) elements runs: at most ``BLOCKS``, each of
    ``ceil(n / blocks)`` elements but the last, none empty."""
    chunk = -(-n // min(n, BLOCKS))
    return -(-n // chunk)


def _blocks(op: str, dtype: str, ndim: int, name: str, write: bool, out: str | None) -> Function:
    """The first (`write` False) or the last kernel: for the block of this work-item, the running
    value (of `out`, default ``scan_dtype``) from the identity (from the block's prefix) over the
    block's elements, stored as the block's total (each step's value stored into the result)."""
    if op not in SCAN_OPS:
        raise ValueError(f"no scan {op!r}")
    if ndim < 1:
        raise ValueError("a scan of a 0-d array")
    out = out or scan_dtype(op, dtype).name
    combine = SCAN_OPS[op]
    setup, head, body, finish, done = range(1, 6)
    b = FunctionBuilder(6)
    block = b.local(_I64)
    b.emit(WorkItem(block, "get_global_id", 0))
    extents, n = b.extents(0, ndim)
    blocks = b.local(_I64)
    b.emit(Dim(blocks, 1, 0))
    b.end(Branch(b.binary("bool", "lt", Local(block), Local(blocks)), setup, done), then=setup)
    # set-up: the block's flat positions [lo, hi) and its start value
    last = b.binary(_I64, "sub", Local(blocks), Imm(_I64, 1))
    chunk = b.binary(_I64, "floordiv", b.binary(_I64, "add", n, last), Local(blocks))
    lo = b.binary(_I64, "mul", Local(block), chunk)
    end = b.binary(_I64, "add", lo, chunk)
    hi = b.local(_I64)
    b.emit(SelectInst(hi, b.binary("bool", "lt", end, n), end, n))
    running, i = b.local(out), b.local(_I64)
    if write:
        b.emit(LoadInst(running, 1, (Local(block),)))
    else:
        b.set(running, constant(out, identity(combine, out)))
    b.set(i, lo)
    b.end(Jump(head), then=head)
    b.end(Branch(b.binary("bool", "lt", Local(i), Local(hi)), body, finish), then=body)
    # the element at flat position i (C order), converted, combined in
    e = b.local(dtype)
    b.emit(LoadInst(e, 0, tuple(b.unflatten(Local(i), extents))))
    b.emit(BinaryInst(running, combine, Local(running), b.cast(out, Local(e), dtype)))
    if write:
        b.emit(StoreInst(2, (Local(i),), Local(running)))
    b.emit(BinaryInst(i, "add", Local(i), Imm(_I64, 1)))
    b.end(Jump(head), then=finish)
    if not write:
        b.emit(StoreInst(1, (Local(block),), Local(running)))
    b.end(Jump(done), then=done)
    b.end(Return())
    arrays = [ArrayDecl("x", dtype, ndim, "global"), ArrayDecl("blocks", out, 1, "global", contiguous=True)]
    if write:
        arrays.append(ArrayDecl("out", out, 1, "global", contiguous=True))
    return b.function(f"{name}_of_{dtype}_{ndim}d_to_{out}", *arrays)


def block_totals_function(op: str, dtype: str, ndim: int, out: str | None = None) -> Function:
    """The first kernel: the total of each block of the flattened `ndim`-d array of `dtype` (any
    layout) under `op`, in `out` (default ``scan_dtype(op, dtype)``, NumPy's without ``dtype=``).
    Parameters: the input, the block totals (each: data address, shape, byte strides); launched
    over at least the number of blocks."""
    return _blocks(op, dtype, ndim, f"{op}_block_totals", False, out)


def block_scan_function(op: str, dtype: str, ndim: int, out: str | None = None) -> Function:
    """The last kernel: each block of the flattened input scanned from its exclusive prefix into
    the result (1-d, C-contiguous, of the input's size, of `out` as :func:`block_totals_function`).
    Parameters: the input, the prefixes, the result; launched as :func:`block_totals_function`."""
    return _blocks(op, dtype, ndim, f"{op}_blocks", True, out)


def axis_scan_function(op: str, dtype: str, ndim: int, axis: int, out: str | None = None) -> Function:
    """The scan along `axis` (0 <= axis < ndim, ndim >= 2) of an `ndim`-d array of `dtype` (any
    layout) into a C-contiguous array of the same shape and of `out` (default ``scan_dtype(op,
    dtype)``): one work-item per line along the axis, scanning it sequentially (NumPy's order, so
    float results are NumPy's bits up to the device's arithmetic). Parameters: the input, the
    result; launched over at least the number of lines (the product of the other extents)."""
    if op not in SCAN_OPS:
        raise ValueError(f"no scan {op!r}")
    if not (ndim >= 2 and 0 <= axis < ndim):
        raise ValueError(f"axis {axis} of a {ndim}-d array cannot be scanned line by line")
    out = out or scan_dtype(op, dtype).name
    combine = SCAN_OPS[op]
    setup, head, body, done = range(1, 5)
    b = FunctionBuilder(5)
    line = b.local(_I64)
    b.emit(WorkItem(line, "get_global_id", 0))
    extents, _ = b.extents(0, ndim)
    others = [e for d, e in enumerate(extents) if d != axis]  # the other dimensions, in order
    lines: Operand = others[0]
    for extent in others[1:]:
        lines = b.binary(_I64, "mul", lines, extent)
    b.end(Branch(b.binary("bool", "lt", Local(line), lines), setup, done), then=setup)
    # set-up: this line's index in the other dimensions (C order), the start value
    fixed = b.unflatten(Local(line), others)
    running, k = b.local(out), b.local(_I64)
    b.set(running, constant(out, identity(combine, out)))
    b.set(k, Imm(_I64, 0))
    b.end(Jump(head), then=head)
    b.end(Branch(b.binary("bool", "lt", Local(k), extents[axis]), body, done), then=body)
    at = (*fixed[:axis], Local(k), *fixed[axis:])
    e = b.local(dtype)
    b.emit(LoadInst(e, 0, at))
    b.emit(BinaryInst(running, combine, Local(running), b.cast(out, Local(e), dtype)))
    b.emit(StoreInst(1, at, Local(running)))
    b.emit(BinaryInst(k, "add", Local(k), Imm(_I64, 1)))
    b.end(Jump(head), then=done)
    b.end(Return())
    return b.function(
        f"{op}_axis{axis}_of_{dtype}_{ndim}d_to_{out}",
        ArrayDecl("x", dtype, ndim, "global"),
        ArrayDecl("out", out, ndim, "global", contiguous=True),
    )


def block_prefix_function(op: str, out: str) -> Function:
    """The middle kernel: the block totals (of `out`, the scan's result dtype) replaced in place by
    their exclusive prefixes under `op`, by the work-item of global id 0. Parameter: the totals."""
    if op not in SCAN_OPS:
        raise ValueError(f"no scan {op!r}")
    combine = SCAN_OPS[op]
    setup, head, body, done = range(1, 5)
    b = FunctionBuilder(5)
    gid = b.local(_I64)
    b.emit(WorkItem(gid, "get_global_id", 0))
    b.end(Branch(b.binary("bool", "eq", Local(gid), Imm(_I64, 0)), setup, done), then=setup)
    blocks, k, running, total = b.local(_I64), b.local(_I64), b.local(out), b.local(out)
    b.emit(Dim(blocks, 0, 0))
    b.set(running, constant(out, identity(combine, out)))
    b.set(k, Imm(_I64, 0))
    b.end(Jump(head), then=head)
    b.end(Branch(b.binary("bool", "lt", Local(k), Local(blocks)), body, done), then=body)
    at: tuple[Operand, ...] = (Local(k),)
    b.emit(LoadInst(total, 0, at))
    b.emit(StoreInst(0, at, Local(running)))
    b.emit(BinaryInst(running, combine, Local(running), Local(total)))
    b.emit(BinaryInst(k, "add", Local(k), Imm(_I64, 1)))
    b.end(Jump(head), then=done)
    b.end(Return())
    return b.function(f"{op}_block_prefixes_of_{out}", ArrayDecl("blocks", out, 1, "global", contiguous=True))
