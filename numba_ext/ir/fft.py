"""The step kernel of the discrete Fourier transform's mixed-radix recursion (``library.fft``), in
the control-flow form (:class:`~.kernel_ir.Function`), for eager operations.

A length ``n = r * m`` transform of a row reads the ``r`` transforms (length ``m``) of its
subsequences of stride ``r``, ``y[j2, k1]``, and writes ``X[k1 + m k2] = sum_j2 W[j2, k2] *
T[j2, k1] * y[j2, k1]`` with the ``r``-point DFT matrix ``W`` and the twiddle factors ``T``: one
work-item per column ``(b, k1)`` reading its ``r`` inputs once and writing its ``r`` outputs (the
sums unrolled: ``r`` is small), or, for larger radices, one work-item per output element; the
twiddle product, the DFT and the transposition of the output in one pass. Without twiddles
(``m = 1``) the same kernel is a row's direct DFT by its matrix.
"""

from __future__ import annotations

from .kernel_ir import (
    ArrayDecl,
    Branch,
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

_I64 = "int64"


def radix_step_function(dtype: str, radix: int, twiddle: bool, gathered: bool) -> Function:
    """``out[b, k2, k1] = sum_{j2 < radix} W[j2, k2] * T[j2, k1] * y[b, j2, k1]`` for every index of
    the C-contiguous complex (`dtype`) arrays ``y`` and ``out`` of shape ``(batch, radix, m)``,
    with ``W`` ``(radix, radix)`` and ``T`` ``(radix, m)`` C-contiguous; without `twiddle`, ``T``
    is not read (all ones). `gathered`: one work-item per ``(b, k1)`` reads its ``radix`` inputs
    once and writes all ``radix`` outputs (launched over at least ``batch * m``); else one
    work-item per output (over at least out's size; code of ``radix`` terms rather than
    ``radix ** 2``, for the larger radices). Parameters: y, W, [T,] out."""
    b = FunctionBuilder(1)
    arrays = [
        ArrayDecl("y", dtype, 3, "global", contiguous=True),
        ArrayDecl("w", dtype, 2, "global", contiguous=True),
    ]
    if twiddle:
        arrays.append(ArrayDecl("t", dtype, 2, "global", contiguous=True))
    out = len(arrays)
    arrays.append(ArrayDecl("out", dtype, 3, "global", contiguous=True))
    gid = b.local(_I64)
    b.emit(WorkItem(gid, "get_global_id", 0))
    extents, total = b.extents(out, 3)
    if gathered:
        total = b.binary(_I64, "mul", extents[0], extents[2])
    body, done = b.new_block(), b.new_block()
    b.end(Branch(b.binary("bool", "lt", Local(gid), total), body, done), then=body)

    def term(batch: Operand, j: int, k1: Operand) -> Operand:
        """``T[j, k1] * y[b, j, k1]``."""
        y = b.local(dtype)
        b.emit(LoadInst(y, 0, (batch, Imm(_I64, j), k1)))
        if not twiddle:
            return Local(y)
        t = b.local(dtype)
        b.emit(LoadInst(t, 2, (Imm(_I64, j), k1)))
        return b.binary(dtype, "mul", Local(y), Local(t))

    def output(terms: list[Operand], k2: Operand) -> Operand:
        acc: Operand = constant(dtype, 0)
        for j, value in enumerate(terms):
            w = b.local(dtype)
            b.emit(LoadInst(w, 1, (Imm(_I64, j), k2)))
            acc = b.binary(dtype, "add", acc, b.binary(dtype, "mul", value, Local(w)))
        return acc

    if gathered:
        batch, k1 = b.unflatten(Local(gid), [extents[0], extents[2]])
        terms = [term(batch, j, k1) for j in range(radix)]
        for k in range(radix):
            b.emit(StoreInst(out, (batch, Imm(_I64, k), k1), output(terms, Imm(_I64, k))))
    else:
        batch, row, k1 = b.unflatten(Local(gid), extents)
        b.emit(StoreInst(out, (batch, row, k1), output([term(batch, j, k1) for j in range(radix)], row)))
    b.end(Jump(done), then=done)
    b.end(Return())
    form = ("_twiddled" if twiddle else "") + ("_gathered" if gathered else "")
    return b.function(f"fft_radix{radix}_{dtype}{form}", *arrays)
