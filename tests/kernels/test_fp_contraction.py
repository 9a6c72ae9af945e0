"""The floating-point contraction policy (docs/numerics.md), stated on inputs where a fused
multiply-add and NumPy's two roundings differ: on SPIR-V devices `a * b + c` is never contracted
(bit-identical to NumPy); on PTX it may be, so each element is the fused or the unfused value, nothing
else; float16 array expressions are rounded after every operation on every target, as NumPy's,
while kernels compute float16 elements in float32 and round once when storing."""

import numpy as np
import pytest

import numba_ext as nx

from ..checks import fused_multiply_add, halves, poison, same_ulps
from ..conftest import DEV


@nx.kernel
def multiply_add(a, b, c, out):
    i = nx.get_global_id(0)
    out[i] = a[i] * b[i] + c[i]


@nx.kernel
def multiply_sub(a, b, c, out):
    i = nx.get_global_id(0)
    out[i] = c[i] - a[i] * b[i]


@nx.jit
def jit_multiply_add(a, b, c):
    return a * b + c


def operands(rng, dtype, n=512, sign=1):
    """Random operands for `sign * a * b + c`, half of them with c = -(sign * a * b) rounded, so that
    the result is the product's rounding error when fused and 0 when not; the first element is
    (1 + e)(1 - e) - 1 (times sign), fused -e**2, unfused 0."""
    a, b, c = (rng.standard_normal(n).astype(dtype) for _ in range(3))
    c[: n // 2] = -(sign * (a[: n // 2] * b[: n // 2]))
    eps = dtype.type(2.0 ** (-13 if dtype == np.float32 else -30))  # (1 - eps**2) rounds to 1
    a[0], b[0], c[0] = 1 + eps, 1 - eps, -sign
    return a, b, c


def run(kernel, dtype, hs):
    poison(len(hs[0]), dtype)
    out = nx.empty(len(hs[0]), dtype=dtype)
    kernel[len(hs[0])](*(nx.asarray(h) for h in hs), out)
    return nx.asnumpy(out)


def assert_policy(got, fused, unfused, min_differ=None):
    differ = fused != unfused
    if min_differ is None:
        min_differ = len(got) // 4
    assert differ.sum() >= min_differ, "the inputs must tell fused from unfused results apart"
    if nx.default_queue().device.target == "spirv":
        # never contracted: bit-identical to NumPy
        np.testing.assert_array_equal(got, unfused)
    else:
        # contraction allowed: each element is one of the two, bit for bit
        ok = (got == fused) | (got == unfused)
        assert ok.all(), (np.flatnonzero(~ok)[:5], got[~ok][:5], fused[~ok][:5], unfused[~ok][:5])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_kernel_multiply_add_follows_the_contraction_policy(rng, dtype):
    dt = np.dtype(dtype)
    if dt == np.float64 and not nx.Device(DEV).has_fp64:
        pytest.skip(f"{DEV} has no fp64")
    a, b, c = operands(rng, dt)
    assert_policy(run(multiply_add, dt, (a, b, c)), fused_multiply_add(a, b, c), a * b + c)
    # c - a*b: a fused negated multiply-add
    a, b, c = operands(rng, dt, sign=-1)
    assert_policy(run(multiply_sub, dt, (a, b, c)), fused_multiply_add(-a, b, c), c - a * b)


def test_jitted_expression_follows_the_contraction_policy(rng):
    dt = np.dtype(np.float64 if nx.Device(DEV).has_fp64 else np.float32)
    a, b, c = operands(rng, dt)
    got = nx.asnumpy(jit_multiply_add(*(nx.asarray(h) for h in (a, b, c))))
    assert_policy(got, fused_multiply_add(a, b, c), a * b + c)


def test_first_operands_tell_fused_from_unfused():
    # the hand-picked element of `operands`: the product 1 - 2**-60 rounds to 1 when rounded alone
    for dt, e in [(np.float64, 2.0**-30), (np.float32, 2.0**-13)]:
        a, b, c = dt(1 + e), dt(1 - e), dt(-1)
        assert a * b + c == 0
        assert fused_multiply_add(a, b, c) == -(e * e) and fused_multiply_add(a, b, c).dtype == dt


@pytest.mark.needs_fp16
def test_float16_array_expression_rounds_every_operation(rng):
    # NumPy rounds every float16 operation to half; a fused multiply-add would round once
    a, b, c = halves(rng, 512), halves(rng, 512), halves(rng, 512)
    c[:256] = -(a[:256] * b[:256])
    want = a * b + c
    assert (want != fused_multiply_add(a.astype(np.float32), b, c).astype(np.float16)).sum() > 128
    poison(512, np.float16)
    same_ulps(jit_multiply_add(*(nx.asarray(h) for h in (a, b, c))), want)


@pytest.mark.needs_fp16
def test_float16_kernel_arithmetic_is_float32_rounded_when_stored(rng):
    # Numba types float16 element arithmetic in float32: the float32 multiply-add (itself under the
    # contraction policy) is rounded to half once, at the store
    a, b, c = halves(rng, 512), halves(rng, 512), halves(rng, 512)
    c[:256] = -(a[:256] * b[:256])
    a32, b32, c32 = (h.astype(np.float32) for h in (a, b, c))
    got = run(multiply_add, np.dtype(np.float16), (a, b, c))
    assert_policy(
        got,
        fused_multiply_add(a32, b32, c32).astype(np.float16),
        (a32 * b32 + c32).astype(np.float16),
        min_differ=0,
    )
    # unlike NumPy's float16 a * b + c (and an array expression's), which rounds the product first
    assert (got != a * b + c).sum() > 128


def execution_modes(spirv: bytes) -> set[int]:
    """The execution modes (OpExecutionMode operands) of a SPIR-V module."""
    words = np.frombuffer(spirv, dtype="<u4")
    assert words[0] == 0x07230203, "not SPIR-V"
    modes, i = set(), 5  # after the header
    while i < len(words):
        count, opcode = int(words[i]) >> 16, int(words[i]) & 0xFFFF
        if opcode == 16:  # OpExecutionMode <entry point> <mode> ...
            modes.add(int(words[i + 2]))
        i += max(count, 1)
    return modes


CONTRACTION_OFF = 31  # SPIR-V execution mode: no contraction of floating-point expressions


@pytest.mark.needs_spirv
def test_spirv_kernels_carry_contraction_off(rng):
    # why the driver does not fuse: every kernel entry point says so in the module
    hs = [rng.standard_normal(16) for _ in range(3)]
    xs = [nx.asarray(h) for h in hs]
    assert "ContractionOff" in multiply_add.inspect_asm(*xs, nx.empty(16))
    (k,) = jit_multiply_add.inspect_kernels(*xs)
    assert k.format == "spirv" and CONTRACTION_OFF in execution_modes(k.binary)
