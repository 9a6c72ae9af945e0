"""The stage kernel of the discrete Fourier transform (``library.fft``), in the control-flow form
(:class:`~.kernel_ir.Function`), for eager operations: one stage of a mixed-radix Stockham
(self-sorting) transform of the rows of a matrix, reading from one buffer and writing to another.

After stages whose radices multiply to ``Ns``, a stage of radix ``R`` reads, for each ``j < n /
R``, the ``R`` elements ``x[j + r n / R]``, multiplies them by the twiddles ``exp(+-2 pi i r k /
(Ns R))`` (``k = j mod Ns``), takes their ``R``-point DFT and writes it to ``out[base + q Ns]``,
``base = (j div Ns) Ns R + k``: after the last stage the rows hold their transforms in order. One
work-item per ``j`` or, for larger prime radices, per output. A work-item's ``R``-point DFT is code:
split by ``R``'s smallest prime factor as Cooley and Tukey do (decimation in time), primes summed
directly, every root of unity a constant (multiplications by 1 and -1 left out): a radix-16 stage
takes 64 complex additions and 17 multiplications by constants where the DFT matrix took 256
multiply-adds of loaded entries.
"""

from __future__ import annotations

import math

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


def _smallest_factor(n: int) -> int:
    p = 2
    while p * p <= n:
        if n % p == 0:
            return p
        p += 1
    return n


def dft_code(b: FunctionBuilder, dtype: str, xs: list[Operand], sign: int) -> list[Operand]:
    """Operands of the ``len(xs)``-point DFT ``X[k] = sum_j xs[j] exp(sign 2 pi i j k / n)`` of the
    complex (`dtype`) operands `xs`, as code (see the module)."""
    n = len(xs)
    if n == 1:
        return list(xs)

    def times_root(v: Operand, e: int) -> Operand:
        e %= n
        if e == 0:
            return v
        if 2 * e == n:
            return b.unary(dtype, "neg", v)
        angle = 2.0 * math.pi * e / n
        root = complex(math.cos(angle), sign * math.sin(angle))
        if 4 * e in (n, 3 * n):  # exactly +-i
            root = complex(0.0, sign * (1.0 if 4 * e == n else -1.0))
        return b.binary(dtype, "mul", v, Imm(dtype, root))

    p = _smallest_factor(n)
    if p == n:  # a prime: the sums, a term of root -1 subtracted
        outs: list[Operand] = []
        for k in range(n):
            acc = xs[0]
            for j in range(1, n):
                e = (j * k) % n
                if 2 * e == n:
                    acc = b.binary(dtype, "sub", acc, xs[j])
                else:
                    acc = b.binary(dtype, "add", acc, times_root(xs[j], e))
            outs.append(acc)
        return outs
    m = n // p  # X[k1 + m k2] = sum_r W_p^(r k2) W_n^(r k1) DFT_m(xs[r::p])[k1]
    subs = [dft_code(b, dtype, xs[r::p], sign) for r in range(p)]
    out: list[Operand] = [Imm(dtype, 0j)] * n
    for k1 in range(m):
        column = [times_root(subs[r][k1], r * k1) for r in range(p)]
        for k2, value in enumerate(dft_code(b, dtype, column, sign)):
            out[k1 + m * k2] = value
    return out


def stockham_step_function(dtype: str, radix: int, twiddle: bool, gathered: bool, sign: int = -1) -> Function:
    """One stage of a Stockham (self-sorting) transform of the rows of the C-contiguous complex
    (`dtype`) ``(batch, n)`` matrix `x` into `out` (same shape), after stages whose radices
    multiply to ``Ns`` (the extent of ``T``'s second axis; 1 without `twiddle`): for each ``j <
    n / radix``, with ``k = j mod Ns`` and ``base = (j div Ns) * Ns * radix + k``,
    ``out[b, base + q Ns] = sum_r W[r, q] * T[r, k] * x[b, j + r n / radix]`` (``W`` the
    ``radix``-point DFT matrix, ``T`` ``(radix, Ns)`` the twiddles). `gathered`: one work-item per
    ``(b, j)`` reads its ``radix`` inputs once and writes all ``radix`` outputs, the DFT as code of
    direction `sign` (:func:`dft_code`); else one per output, ``W`` a parameter (``radix ** 2``
    terms of code would be too many). Parameters: x, [W,] [T,] out."""
    b = FunctionBuilder(1)
    arrays = [ArrayDecl("x", dtype, 2, "global", contiguous=True)]
    if not gathered:
        arrays.append(ArrayDecl("w", dtype, 2, "global", contiguous=True))
    table = len(arrays)
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
        b.emit(Dim(done_stages, table, 1))
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
        b.emit(LoadInst(t, table, (Imm(_I64, r), k)))
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
        for q, value in enumerate(dft_code(b, dtype, terms, sign)):
            at = b.binary(_I64, "add", base, b.binary(_I64, "mul", stride, Imm(_I64, q)))
            b.emit(StoreInst(out, (row, at), value))
    else:
        at = b.binary(_I64, "add", base, b.binary(_I64, "mul", stride, q_out))
        b.emit(StoreInst(out, (row, at), output(terms, q_out)))
    b.end(Jump(done), then=done)
    b.end(Return())
    form = ("_twiddled" if twiddle else "") + (
        f"_gathered{'_inverse' if sign > 0 else ''}" if gathered else ""
    )
    return b.function(f"fft_stockham{radix}_{dtype}{form}", *arrays)
