"""The kernels of ``np.dot`` of 1-d and 2-d arrays in the control-flow form
(:class:`~.kernel_ir.Function`), for eager products. Both operands hold the result dtype already
(the caller converts them, as NumPy computes in the result type); products accumulate in it, so
integers wrap as in NumPy, and booleans count their true products in int64, then test the count.

* A matrix with a matrix or a vector, or a vector with a matrix (:func:`product_function`): one
  work-item per result element, a sequential loop over the shared dimension, in the order of the
  compiler layer's jitted helpers (``compiler.reduction_helpers``).
* Two vectors (:func:`vector_function`): the pattern of a reduction over every element (a capped
  number of work-items, each a grid-stride loop into a private partial, combined with an atomic add
  into a one-element accumulator of ``accumulator_dtype``), so float results agree with the compiled
  form's within rounding.
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
)
from .reductions import FunctionBuilder, ResultLanes, accumulator_dtype

_I64 = "int64"


def _zero(dtype: str) -> Imm:
    return Imm(dtype, 0.0 if dtype.startswith("float") else 0)


def accumulation_dtype(dtype: str) -> str:
    """The dtype a product of `dtype` accumulates in: int64 for booleans (a count), else `dtype`."""
    return _I64 if dtype == "bool" else dtype


def product_function(
    dtype: str, ndim_a: int, ndim_b: int, contiguous: bool = False, lanes: int = 1
) -> Function:
    """``np.dot`` of an `ndim_a`-d and an `ndim_b`-d array of `dtype` (1 or 2 each, not both 1) into a
    C-contiguous result of `dtype`; with `contiguous`, for C-contiguous operands (their strides
    computed from their shapes, which spares the kernel the loads and multiplications of strides).
    Parameters: a, b, the result (each: data address, shape, byte strides); launched over the
    result's size (at least: work-items beyond it do nothing) with `lanes` 1, else over
    ``ceil(size / lanes)`` work-items each computing `lanes` neighbouring result elements in one loop
    over the shared dimension (CPUs, in work-groups of one: see ``reductions.ResultLanes``)."""
    if not (ndim_a in (1, 2) and ndim_b in (1, 2) and ndim_a + ndim_b > 2):
        raise ValueError(f"no product kernel of a {ndim_a}-d and a {ndim_b}-d array")
    acc = accumulation_dtype(dtype)
    ndim_out = ndim_a + ndim_b - 2
    b = FunctionBuilder(1)
    done = b.new_block()
    result = ResultLanes(b, 2, ndim_out, lanes, done)
    # set-up: the shared length, the sums' start
    n = b.local(_I64)
    b.emit(Dim(n, 0, ndim_a - 1))
    k = b.local(_I64)
    sums = [b.local(acc) for _ in range(lanes)]
    b.set(k, Imm(_I64, 0))
    for s in sums:
        b.set(s, _zero(acc))
    head, body, finish = b.new_block(), b.new_block(), b.new_block()
    b.end(Jump(head), then=head)
    b.end(Branch(b.binary("bool", "lt", Local(k), Local(n)), body, finish), then=body)

    def load(array: int, index: tuple[Operand, ...]) -> Local:
        v = b.local(dtype)
        b.emit(LoadInst(v, array, index))
        return Local(v)

    for out_index, s in zip(result.indices, sums):
        row = out_index[0] if ndim_a == 2 else None
        column = out_index[-1] if ndim_b == 2 else None
        x = load(0, (Local(k),) if row is None else (row, Local(k)))
        y = load(1, (Local(k),) if column is None else (Local(k), column))
        term = b.binary(acc, "mul", b.cast(acc, x, dtype), b.cast(acc, y, dtype))
        b.emit(BinaryInst(s, "add", Local(s), term))
    b.emit(BinaryInst(k, "add", Local(k), Imm(_I64, 1)))
    b.end(Jump(head), then=finish)
    result.store(2, [b.cast(dtype, Local(s), acc) for s in sums], done)
    b.end(Return())
    return b.function(
        f"dot_{ndim_a}d_{ndim_b}d_of_{dtype}{'_c' if contiguous else ''}"
        + (f"_by{lanes}" if lanes > 1 else ""),
        ArrayDecl("a", dtype, ndim_a, "global", contiguous=contiguous),
        ArrayDecl("b", dtype, ndim_b, "global", contiguous=contiguous),
        ArrayDecl("out", dtype, ndim_out, "global", contiguous=True),
    )


def vector_function(dtype: str, unroll: int = 1) -> Function:
    """``np.dot`` of two vectors of `dtype` (of one length) into a one-element accumulator of
    ``accumulator_dtype(accumulation_dtype(dtype))`` that holds 0 before the launch. Parameters: a,
    b, the accumulator (each: data address, shape, byte strides); `unroll` and the launch as
    ``reductions.whole_function``'s (strided for GPUs, blocked for CPUs)."""
    part = accumulation_dtype(dtype)
    acc = accumulator_dtype(part)
    b = FunctionBuilder(1)
    n = b.local(_I64)
    b.emit(Dim(n, 0, 0))
    partials = [b.local(part) for _ in range(unroll)]
    for p in partials:
        b.set(p, _zero(part))

    def step(lane: int, at: Operand) -> None:
        x, y = b.local(dtype), b.local(dtype)
        b.emit(LoadInst(x, 0, (at,)))
        b.emit(LoadInst(y, 1, (at,)))
        term = b.binary(part, "mul", b.cast(part, Local(x), dtype), b.cast(part, Local(y), dtype))
        b.emit(BinaryInst(partials[lane], "add", Local(partials[lane]), term))

    b.flat_loop(Local(n), unroll, step)
    b.combine_lanes("add", partials)
    b.emit(Atomic(None, "add", 2, (Imm(_I64, 0),), b.cast(acc, Local(partials[0]), part)))
    b.end(Return())
    return b.function(
        f"dot_vectors_of_{dtype}" + (f"_by{unroll}" if unroll > 1 else ""),
        ArrayDecl("a", dtype, 1, "global"),
        ArrayDecl("b", dtype, 1, "global"),
        ArrayDecl("acc", acc, 1, "global", contiguous=True),
    )
