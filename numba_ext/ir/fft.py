"""The step kernel of the discrete Fourier transform's mixed-radix recursion (``library.fft``), in
the control-flow form (:class:`~.kernel_ir.Function`), for eager operations.

A length ``n = r * m`` transform of a row reads the ``r`` transforms (length ``m``) of its
subsequences of stride ``r``, ``y[j2, k1]``, and writes ``X[k1 + m k2] = sum_j2 W[j2, k2] *
T[k1, j2] * y[j2, k1]`` with the ``r``-point DFT matrix ``W`` and the twiddle factors ``T``: one
work-item per output element, the sum over ``j2`` unrolled (``r`` is small), the twiddle product,
the DFT and the transposition of the output in one pass. Without twiddles (``m = 1``) the same
kernel is a row's direct DFT by its matrix.
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


def radix_step_function(dtype: str, radix: int, twiddle: bool) -> Function:
    """``out[b, k2, k1] = sum_{j2 < radix} W[j2, k2] * T[k1, j2] * y[b, j2, k1]`` for every index of
    the C-contiguous complex (`dtype`) arrays ``y`` and ``out`` of shape ``(batch, radix, m)``,
    with ``W`` ``(radix, radix)`` and ``T`` ``(m, radix)`` C-contiguous; without `twiddle`, ``T``
    is not read (all ones). Parameters: y, W, [T,] out; launched over at least out's size."""
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
    body, done = b.new_block(), b.new_block()
    b.end(Branch(b.binary("bool", "lt", Local(gid), total), body, done), then=body)
    batch, k2, k1 = b.unflatten(Local(gid), extents)
    acc: Operand = constant(dtype, 0)
    for j in range(radix):
        j2 = Imm(_I64, j)
        term = b.local(dtype)
        b.emit(LoadInst(term, 0, (batch, j2, k1)))
        value: Operand = Local(term)
        if twiddle:
            t = b.local(dtype)
            b.emit(LoadInst(t, 2, (k1, j2)))
            value = b.binary(dtype, "mul", value, Local(t))
        w = b.local(dtype)
        b.emit(LoadInst(w, 1, (j2, k2)))
        acc = b.binary(dtype, "add", acc, b.binary(dtype, "mul", value, Local(w)))
    b.emit(StoreInst(out, (batch, k2, k1), acc))
    b.end(Jump(done), then=done)
    b.end(Return())
    return b.function(f"fft_radix{radix}_{dtype}" + ("_twiddled" if twiddle else ""), *arrays)
