"""The stage kernel of the discrete Fourier transform (``library.fft``), in the control-flow form
(:class:`~.kernel_ir.Function`), for eager operations: one stage of a mixed-radix Stockham
(self-sorting) transform of the rows of a matrix, reading from one buffer and writing to another.

After stages whose radices multiply to ``Ns``, a stage of radix ``R`` reads, for each ``j < n /
R``, the ``R`` elements ``x[j + r n / R]``, multiplies them by the twiddles ``exp(+-2 pi i r k /
(Ns R))`` (``k = j mod Ns``), takes their ``R``-point DFT and writes it to ``out[base + q Ns]``,
``base = (j div Ns) Ns R + k``: after the last stage the rows hold their transforms in order. One
work-item per ``j`` (the sums unrolled: ``R`` is small) or, for larger prime radices, per output.
"""

from __future__ import annotations

from .kernel_ir import (
    ArrayDecl,
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

_I64 = "int64"


def stockham_step_function(dtype: str, radix: int, twiddle: bool, gathered: bool) -> Function:
    """One stage of a Stockham (self-sorting) transform of the rows of the C-contiguous complex
    (`dtype`) ``(batch, n)`` matrix `x` into `out` (same shape), after stages whose radices
    multiply to ``Ns`` (the extent of ``T``'s second axis; 1 without `twiddle`): for each ``j <
    n / radix``, with ``k = j mod Ns`` and ``base = (j div Ns) * Ns * radix + k``,
    ``out[b, base + q Ns] = sum_r W[r, q] * T[r, k] * x[b, j + r n / radix]`` (``W`` the
    ``radix``-point DFT matrix, ``T`` ``(radix, Ns)`` the twiddles). `gathered`: one work-item per
    ``(b, j)`` reads its ``radix`` inputs once and writes all ``radix`` outputs; else one per
    output (``radix ** 2`` terms of code would be too many). Parameters: x, W, [T,] out."""
    b = FunctionBuilder(1)
    arrays = [
        ArrayDecl("x", dtype, 2, "global", contiguous=True),
        ArrayDecl("w", dtype, 2, "global", contiguous=True),
    ]
    if twiddle:
        arrays.append(ArrayDecl("t", dtype, 2, "global", contiguous=True))
    out = len(arrays)
    arrays.append(ArrayDecl("out", dtype, 2, "global", contiguous=True))
    gid = b.local(_I64)
    b.emit(WorkItem(gid, "get_global_id", 0))
    (batch_n, n), _ = b.extents(out, 2)
    quarter = b.binary(_I64, "floordiv", n, Imm(_I64, radix))
    if twiddle:
        done_stages = b.local(_I64)
        b.emit(Dim(done_stages, 2, 1))
        stride: Operand = Local(done_stages)
    else:
        stride = Imm(_I64, 1)
    total = b.binary(_I64, "mul", batch_n, quarter if gathered else n)
    body, done = b.new_block(), b.new_block()
    b.end(Branch(b.binary("bool", "lt", Local(gid), total), body, done), then=body)
    if gathered:
        row, j = b.unflatten(Local(gid), [batch_n, quarter])
        q_out: Operand | None = None
    else:
        row, j, q_out = b.unflatten(Local(gid), [batch_n, quarter, Imm(_I64, radix)])
    k = b.binary(_I64, "rem", j, stride)
    base = b.binary(
        _I64,
        "add",
        b.binary(
            _I64,
            "mul",
            b.binary(_I64, "floordiv", j, stride),
            b.binary(_I64, "mul", stride, Imm(_I64, radix)),
        ),
        k,
    )

    def term(r: int) -> Operand:
        """``T[r, k] * x[b, j + r n / radix]``."""
        v = b.local(dtype)
        at = b.binary(_I64, "add", j, b.binary(_I64, "mul", quarter, Imm(_I64, r)))
        b.emit(LoadInst(v, 0, (row, at)))
        if not twiddle or r == 0:  # T[0, k] = 1
            return Local(v)
        t = b.local(dtype)
        b.emit(LoadInst(t, 2, (Imm(_I64, r), k)))
        return b.binary(dtype, "mul", Local(v), Local(t))

    def output(terms: list[Operand], q: Operand) -> Operand:
        acc: Operand = constant(dtype, 0)
        for r, value in enumerate(terms):
            w = b.local(dtype)
            b.emit(LoadInst(w, 1, (Imm(_I64, r), q)))
            acc = b.binary(dtype, "add", acc, b.binary(dtype, "mul", value, Local(w)))
        return acc

    terms = [term(r) for r in range(radix)]
    if q_out is None:
        for q in range(radix):
            at = b.binary(_I64, "add", base, b.binary(_I64, "mul", stride, Imm(_I64, q)))
            b.emit(StoreInst(out, (row, at), output(terms, Imm(_I64, q))))
    else:
        at = b.binary(_I64, "add", base, b.binary(_I64, "mul", stride, q_out))
        b.emit(StoreInst(out, (row, at), output(terms, q_out)))
    b.end(Jump(done), then=done)
    b.end(Return())
    form = ("_twiddled" if twiddle else "") + ("_gathered" if gathered else "")
    return b.function(f"fft_stockham{radix}_{dtype}{form}", *arrays)
