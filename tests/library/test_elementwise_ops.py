"""Elementwise operations on every dtype, in @numba_ext.jit code and eagerly (outside jitted code):
bitwise and logical operators, comparisons, the math functions, // and %, integer powers, np.clip /
np.where with Python scalars, astype, mixed-dtype promotion, erf/erfc, integer wraparound; eager edge
shapes (0-d, empty, negative strides, transposes); float32 prange bodies; allocation inside jitted
code; the eager compiler's cache. Inputs are fresh random values, results are checked value by value
(and dtype by dtype) against NumPy.

Reference for the dtype of jitted code: NumPy where NumPy and Numba agree (array operands of one
dtype), plain Numba on NumPy arrays where they differ (Python-int literals are int64 in Numba).
Eager operations follow NumPy 2 exactly (Python scalars are 'weak')."""

import math

import numpy as np
import pytest
from numba import prange

import numba_ext as nx

from ..checks import N, check, check_all, host_reference, poison, rand, tol

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
SIGNED = ["int8", "int16", "int32", "int64"]


# -- bitwise operators ------------------------------------------------------------------------------
def _bitwise(a, b):
    return a & b, a | b, a ^ b, ~a, np.bitwise_and(b, a), np.invert(b), (a ^ b) & ~(a | b)


BITWISE = nx.jit(_bitwise)


@pytest.mark.parametrize("dtype", INTS + ["bool"])
def test_bitwise(rng, dtype):
    ha, hb = rand(rng, dtype), rand(rng, dtype)
    a, b = nx.asarray(ha), nx.asarray(hb)
    want = _bitwise(ha, hb)
    poison(N, dtype)
    check_all(BITWISE(a, b), want, f"jit {dtype}")
    check_all(_bitwise(a, b), want, f"eager {dtype}")
    # eagerly with Python scalars (NumPy 2: the array's dtype is kept)
    s1, s2 = (True, False) if dtype == "bool" else (0x5A, 3)
    check_all((a & s1, s2 ^ b), (ha & s1, s2 ^ hb), f"eager scalars {dtype}")


# -- logical functions and comparisons ---------------------------------------------------------------
def _logic(a, b):
    return (
        np.logical_and(a, b),
        np.logical_or(a, b),
        np.logical_not(a),
        np.logical_xor(a, b),
        a != b,
        a <= b,
        a < b,
        a >= b,
        a == b,
        a > b,
        np.logical_and(a > b, np.logical_not(b)),
    )


LOGIC = nx.jit(_logic)


@pytest.mark.parametrize("dtype", ["int8", "uint64", "float32", "bool"])
def test_logical_and_comparisons(rng, dtype):
    # few distinct values: many ties (==, <=) and zeros (the logical functions)
    ha, hb = (
        (rand(rng, dtype) for _ in range(2))
        if dtype == "bool"
        else (rng.integers(0, 4, N).astype(dtype) for _ in range(2))
    )
    if dtype.startswith("float"):
        ha[::5] = -0.0  # -0.0 == 0.0 and is false
        ha[1::7] = np.nan  # NaN compares unequal to everything, and is true
    a, b = nx.asarray(ha), nx.asarray(hb)
    want = _logic(ha, hb)
    poison(N, "bool")
    check_all(LOGIC(a, b), want, f"jit {dtype}")
    check_all(_logic(a, b), want, f"eager {dtype}")


def _compare_scalars(a):
    return a < 2, a >= 2, a == 3, a != 0, np.logical_and(a > 0, a <= 3)


COMPARE_SCALARS = nx.jit(_compare_scalars)


@pytest.mark.parametrize("dtype", ["int8", "uint32", "uint64", "float32"])
def test_comparisons_with_python_int_literals(rng, dtype):
    h = rng.integers(0, 6, N).astype(dtype)
    x = nx.asarray(h)
    want = _compare_scalars(h)  # plain Numba agrees (booleans; uint64 against int64 compares as float64)
    check_all(COMPARE_SCALARS(x), want, f"jit {dtype}")
    check_all(_compare_scalars(x), want, f"eager {dtype}")


# -- math functions ---------------------------------------------------------------------------------
def _math(a, pos, unit, b):
    return (
        np.expm1(a),
        np.log2(pos),
        np.log10(pos),
        np.tan(a),
        np.arcsin(unit),
        np.arccos(unit),
        np.arctan(a),
        np.arctan2(a, b),
        np.sinh(a),
        np.cosh(a),
        np.tanh(a),
        np.hypot(a, b),
        np.floor(a),
        np.ceil(a),
        np.trunc(a),
    )


MATH = nx.jit(_math)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_math_functions(rng, dtype):
    hs = [
        (rng.standard_normal(N) * 2).astype(dtype),  # any value (tan away from the poles: |a| < ~1.5 mostly)
        rng.uniform(1e-3, 1e3, N).astype(dtype),  # log2 / log10: positive
        rng.uniform(-1, 1, N).astype(dtype),  # arcsin / arccos: [-1, 1]
        (rng.standard_normal(N) * 2).astype(dtype),
    ]
    hs[0][:4] = [0.5, -0.5, 2.5, -2.5]  # floor / ceil / trunc of halves
    hs[0][4:6] = -0.0, 0.0
    xs = [nx.asarray(h) for h in hs]
    want = _math(*hs)
    poison(N, dtype)
    check_all(MATH(*xs), want, f"jit {dtype}")
    check_all(_math(*xs), want, f"eager {dtype}")
    # sign of zero kept by floor/ceil/trunc (-0.5 -> -0.0 for ceil and trunc)
    for g, w in zip(MATH(*xs)[12:], want[12:]):
        np.testing.assert_array_equal(np.signbit(nx.asnumpy(g)), np.signbit(w))


# -- floor division and remainder -------------------------------------------------------------------
def _divmod(a, b):
    return a // b, a % b, np.floor_divide(a, b), np.remainder(a, b)


DIVMOD = nx.jit(_divmod)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "int32", "int64", "uint64"])
def test_floordiv_and_mod(rng, dtype):
    dt = np.dtype(dtype)
    if dt.kind == "f":
        ha = (rng.standard_normal(N) * 10).astype(dt)
        hb = (rng.standard_normal(N) * 3).astype(dt)
        mask = np.ones(N, bool)
    else:
        info = np.iinfo(dt)
        ha = rand(rng, dt, lo=info.min + 1)  # not MIN // -1 (overflows)
        small = rng.integers(max(info.min, -9), 10, N).astype(dt)
        large = rand(rng, dt, lo=info.min + 1)
        hb = np.where(rng.random(N) < 0.7, small, large)  # divisors of both signs, small and large
        hb[:3] = 0  # NumPy: 0 (with a warning); compared on the nonzero divisors only
        mask = hb != 0
    a, b = nx.asarray(ha), nx.asarray(hb)
    want = host_reference(_divmod, ha, hb)
    if dt.kind != "f":
        assert (ha[mask] < 0).any() or dt.kind == "u"
    for what, got in (
        ("jit", DIVMOD(a, b)),
        ("eager", (a // b, a % b, np.floor_divide(a, b), np.remainder(a, b))),
    ):
        for k, (g, w) in enumerate(zip(got, want)):
            assert isinstance(g, nx.ndarray) and g.dtype == w.dtype, (what, k, g.dtype, w.dtype)
            host = nx.asnumpy(g)
            if dt.kind == "f":
                rtol, atol = tol(dt)
                np.testing.assert_allclose(
                    host, w, rtol=rtol, atol=atol * 10, err_msg=f"{what} {dtype} [{k}]"
                )
            else:
                np.testing.assert_array_equal(host[mask], w[mask], err_msg=f"{what} {dtype} [{k}]")


# -- integer powers ---------------------------------------------------------------------------------
def _power(a, b):
    return a**b, np.power(a, b)


@nx.jit
def power_jit(a, b):
    # int literals are int64 in jitted code (Numba's typing): int64 results, float64 with uint64
    return a**b, np.power(a, b), a**2, a**3, a**0, np.power(a, 5)


@pytest.mark.parametrize("dtype", INTS)
def test_integer_power(rng, dtype):
    ha = rand(rng, dtype)  # the whole range: powers wrap around as in NumPy
    ha[:4] = [0, 1, 2, 3]
    hb = rng.integers(0, 7, N).astype(dtype)  # small non-negative exponents
    a, b = nx.asarray(ha), nx.asarray(hb)
    want = _power(ha, hb)
    assert want[0].dtype == np.dtype(dtype)
    wide = ha.astype(np.result_type(dtype, np.int64))  # Numba: uint64 with int64 -> float64
    want_jit = want + (wide**2, wide**3, wide**0, np.power(wide, 5))
    poison(N, dtype, wide.dtype)
    check_all(power_jit(a, b), want_jit, f"jit {dtype}")
    check_all(_power(a, b), want, f"eager {dtype}")
    # eagerly with Python-int exponents: NumPy 2 keeps the dtype
    check_all(
        (a**2, a**3, np.power(a, 0), np.power(a, 5)),
        (ha**2, ha**3, np.power(ha, 0), np.power(ha, 5)),
        f"eager literal {dtype}",
    )


# -- np.clip / np.where with Python-scalar bounds ----------------------------------------------------
def _clip_where(a):
    return (
        np.clip(a, 2, 5),
        np.clip(a, 1.5, 4.5),
        np.where(a > 3, a, 1),
        np.where(a > 3, 0, a),
        np.where(a > 3, a, 0.5),
        np.clip(a, 0, 100),
    )


CLIP_WHERE = nx.jit(_clip_where)


@pytest.mark.parametrize("dtype", ["float32", "int8", "uint16", "int64"])
def test_clip_and_where_with_python_scalars(rng, dtype):
    h = rng.uniform(0, 9, N).astype(dtype)  # float32: fractional values; ints: ties with the bounds
    want = _clip_where(h)
    # NumPy 2: int scalars keep the array's dtype, float scalars make integer arrays float64
    assert want[0].dtype == np.dtype(dtype) and want[2].dtype == np.dtype(dtype)
    assert want[1].dtype == (np.dtype(dtype) if dtype == "float32" else np.float64)
    poison(N, dtype, "float64")
    check_all(CLIP_WHERE(nx.asarray(h)), want, f"jit {dtype}")


@pytest.mark.parametrize("dtype,lo,hi", [("int8", 0, 200), ("int8", -300, 50), ("uint16", -5, 3)])
def test_clip_with_python_bounds_outside_the_dtype_range(rng, dtype, lo, hi):
    # NumPy 2 keeps the array's dtype and clips as if the bound were not cast (it saturates)
    h = rng.integers(-100, 101, N).astype(dtype) if dtype == "int8" else rng.integers(0, 9, N).astype(dtype)
    want = np.clip(h, lo, hi)
    assert want.dtype == np.dtype(dtype)
    check(nx.jit(lambda a: np.clip(a, lo, hi))(nx.asarray(h)), want, f"{dtype} clip({lo}, {hi})")


# -- astype -----------------------------------------------------------------------------------------
def _astype(f, i, b):
    return (
        f.astype(np.int32),
        f.astype(np.int8),
        np.abs(f).astype(np.uint8),
        f.astype(np.int64),
        f.astype(np.float32),
        i.astype(np.float32),
        i.astype(np.float64),
        i.astype(np.int8),
        i.astype(np.uint16),
        f.astype(np.bool_),
        i.astype(np.bool_),
        b.astype(np.int64),
        b.astype(np.uint8),
        b.astype(np.float32),
        b.astype(np.int16),
    )


ASTYPE = nx.jit(_astype)


def test_astype(rng):
    hf = np.round(rng.uniform(-120, 120, N), 1)  # in range of every target; fractions truncate toward 0
    hf[::9] = 0.0
    hi = rng.integers(-1000, 70000, N).astype(np.int32)  # int8 / uint16 casts wrap as in NumPy
    hi[::7] = 0
    hb = rng.random(N) < 0.5
    f, i, b = nx.asarray(hf), nx.asarray(hi), nx.asarray(hb)
    check_all(ASTYPE(f, i, b), _astype(hf, hi, hb), "jit")
    # eagerly (a copy with a cast)
    casts = [
        (f, np.int32),
        (f, np.int8),
        (f, np.int64),
        (f, np.float32),
        (i, np.float32),
        (i, np.int8),
        (i, np.uint16),
        (f, np.bool_),
        (i, np.bool_),
        (b, np.int64),
        (b, np.float32),
        (b, np.uint8),
    ]
    host = {id(f): hf, id(i): hi, id(b): hb}
    check_all([x.astype(t) for x, t in casts], [host[id(x)].astype(t) for x, t in casts], "eager")


# -- mixed-dtype promotion --------------------------------------------------------------------------
def _mixed(i8, u8, u64, i64, i32, f32):
    return i8 + u8, u64 + i64, i32 + f32, f32 + 2.5, i8 * u8, u64 - i64, i32 * f32


def _mixed_jit(i8, u8, u64, i64, i32, f32):
    return i8 + u8, u64 + i64, i32 + f32, f32 + 2.5, i8 * u8, u64 - i64, i32 * f32, u8 + 300


MIXED = nx.jit(_mixed_jit)


def test_mixed_dtype_promotion(rng):
    hs = [
        rand(rng, "int8"),
        rand(rng, "uint8"),
        rand(rng, "uint64", hi=2**63),
        rand(rng, "int64"),
        rand(rng, "int32", lo=-(10**6), hi=10**6),
        rand(rng, "float32"),
    ]
    xs = [nx.asarray(h) for h in hs]
    # eagerly: NumPy 2's rules (int8+uint8 -> int16, uint64+int64 -> float64, int32+float32 -> float64,
    # float32 + Python float -> float32); NumPy refuses uint8 + 300, so the eager set leaves it out
    want = _mixed(*hs)
    assert [w.dtype for w in want] == [
        np.int16,
        np.float64,
        np.float64,
        np.float32,
        np.int16,
        np.float64,
        np.float64,
    ]
    check_all(_mixed(*xs), want, "eager")
    # jitted: Numba's typing (int32+float32 -> float32, float32 + Python float -> float64, uint8 + int
    # literal -> int64), with NumPy's values in those dtypes (plain Numba itself converts uint64 values
    # >= 2**63 to float wrongly)
    i8, u8, u64, i64, i32, f32 = hs
    f64, wide = f32.astype(np.float64), u8.astype(np.int64)
    want_jit = (
        i8 + u8,
        u64 + i64,
        i32.astype(np.float32) + f32,
        f64 + 2.5,
        i8 * u8,
        u64 - i64,
        i32.astype(np.float32) * f32,
        wide + 300,
    )
    assert [w.dtype for w in want_jit] == [
        np.int16,
        np.float64,
        np.float32,
        np.float64,
        np.int16,
        np.float64,
        np.float32,
        np.int64,
    ]  # plain Numba's types
    check_all(MIXED(*xs), want_jit, "jit")


@pytest.mark.parametrize(
    "dtypes",
    [
        ("int8", "int8"),
        ("uint16", "uint16"),
        ("int16", "int8"),
        ("int32", "float32"),
        ("int64", "float32"),
        ("uint8", "float32"),
    ],
)
def test_eager_int_float_loops(rng, dtypes):
    # NumPy computes int8 / int8 and int32 + float32 in float64; the values must be float64's, not
    # float32's converted to float64
    ha = rand(rng, dtypes[0], lo=-(10**6), hi=10**6)
    hb = (
        rand(rng, dtypes[1], lo=1, hi=10**6)
        if dtypes[1] != "float32"
        else rng.uniform(0.1, 9, N).astype("float32")
    )
    a, b = nx.asarray(ha), nx.asarray(hb)
    check_all((a / b, a + b, a * b), (ha / hb, ha + hb, ha * hb), f"eager {dtypes}")


def test_eager_numpy_and_bool_scalars(rng):
    # NumPy scalars are 'strong' in NumPy 2 (they take part in the promotion), Python bools are weak
    hf, hi, hb = rand(rng, "float32"), rand(rng, "int16"), rng.random(N) < 0.5
    f, i, b = nx.asarray(hf), nx.asarray(hi), nx.asarray(hb)
    cases = [
        (lambda x, y, z: x * np.float64(2.5), "f64 scalar"),
        (lambda x, y, z: np.float32(1.5) + x, "f32 scalar"),
        (lambda x, y, z: y < np.int64(3), "i64 scalar"),
        (lambda x, y, z: np.int64(3) > y, "i64 scalar on the left"),
        (lambda x, y, z: y + np.int8(3), "i8 scalar"),
        (lambda x, y, z: z & True, "Python bool"),
        (lambda x, y, z: y + True, "bool with int"),
        (lambda x, y, z: z | np.bool_(False), "np.bool_"),
    ]
    failures = []
    for op, what in cases:  # every case, then one report
        try:
            check(op(f, i, b), op(hf, hi, hb), what)
        except Exception as e:
            failures.append(f"{what}: {type(e).__name__}: {str(e).strip().splitlines()[0][:160]}")
    assert not failures, "\n".join(failures)


# -- erf / erfc -------------------------------------------------------------------------------------
ERF = nx.jit(lambda a: (nx.erf(a), nx.erfc(a), nx.erf(a) * nx.erfc(-a)))


@nx.jit
def erf_loop(x, out):
    for i in prange(x.shape[0]):
        out[i] = math.erf(x[i]) - 2.0 * math.erfc(x[i] * 0.5)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_erf_erfc(rng, dtype):
    h = (rng.standard_normal(N) * 1.5).astype(dtype)
    x = nx.asarray(h)
    verf, verfc = np.vectorize(math.erf, otypes=[np.float64]), np.vectorize(math.erfc, otypes=[np.float64])
    want = [verf(h).astype(dtype), verfc(h).astype(dtype), (verf(h) * verfc(-h)).astype(dtype)]
    check_all((nx.erf(x), nx.erfc(x)), want[:2], f"eager {dtype}")
    check_all(ERF(x), want, f"jit {dtype}")
    out = nx.full(N, np.nan, dtype=dtype)
    erf_loop(x, out)
    check(out, (verf(h) - 2.0 * verfc(h * np.asarray(0.5, dtype))).astype(dtype), f"prange {dtype}")


# -- unary minus and abs of signed integers ----------------------------------------------------------
def _neg_abs(a):
    return -a, np.abs(a), np.negative(a), np.absolute(a), -np.abs(a)


NEG_ABS = nx.jit(_neg_abs)


@pytest.mark.parametrize("dtype", SIGNED)
def test_negative_and_abs_of_signed_ints(rng, dtype):
    h = rand(rng, dtype)
    h[:3] = [np.iinfo(dtype).min, np.iinfo(dtype).max, 0]  # -MIN and abs(MIN) wrap to MIN, as in NumPy
    x = nx.asarray(h)
    want = host_reference(_neg_abs, h)
    check_all(NEG_ABS(x), want, f"jit {dtype}")
    check_all(host_reference(_neg_abs, x), want, f"eager {dtype}")


# -- integer arithmetic wraps around -----------------------------------------------------------------
def _arith(a, b):
    return a + b, a - b, a * b, np.minimum(a, b), np.maximum(a, b), a * a - b


ARITH = nx.jit(_arith)


@pytest.mark.parametrize("dtype", ["int8", "int16", "uint16", "uint32", "uint64"])
def test_integer_arithmetic_wraps(rng, dtype):
    ha, hb = rand(rng, dtype), rand(rng, dtype)
    a, b = nx.asarray(ha), nx.asarray(hb)
    want = host_reference(_arith, ha, hb)
    poison(N, dtype)
    check_all(ARITH(a, b), want, f"jit {dtype}")
    check_all(host_reference(_arith, a, b), want, f"eager {dtype}")
