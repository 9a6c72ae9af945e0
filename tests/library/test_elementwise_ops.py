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
from numba_ext.library import elementwise as eager

from ..conftest import DEV

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
SIGNED = ["int8", "int16", "int32", "int64"]
N = 97  # not a multiple of any vector width


def _rand(rng, dtype, n=N, lo=None, hi=None):
    """Random values of `dtype`: integers over the whole range (or [lo, hi]), floats ~ N(0, 3)."""
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.random(n) < 0.5
    if dt.kind == "f":
        return (rng.standard_normal(n) * 3).astype(dt)
    info = np.iinfo(dt)
    lo = info.min if lo is None else max(lo, info.min)
    hi = info.max if hi is None else min(hi, info.max)
    return rng.integers(lo, hi, n, dtype=dt, endpoint=True)


def _poison(n, *dtypes, copies=6):
    """Free blocks of the results' sizes filled with garbage: the next allocations of those sizes
    reuse them, so an element a kernel forgets to write cannot look right by accident."""
    for size in {n * np.dtype(d).itemsize for d in dtypes}:
        if size:
            blocks = [nx.full(size, 0xA5, dtype=np.uint8) for _ in range(copies)]
            del blocks


def _tol(dtype):
    return (1e-5, 1e-6) if np.dtype(dtype) == np.float32 else (1e-12, 1e-14)


def _check(got, want, what="", rtol=None, atol=None):
    """`got` (a numba_ext array) equals `want` (NumPy): dtype, shape and values; floats within
    dtype-appropriate tolerances, integers and booleans exactly."""
    want = np.asarray(want)
    assert isinstance(got, nx.ndarray), (what, type(got))
    host = nx.asnumpy(got)
    assert host.dtype == want.dtype, (what, host.dtype, want.dtype)
    assert host.shape == want.shape, (what, host.shape, want.shape)
    if want.dtype.kind == "f":
        r, a = _tol(want.dtype)
        np.testing.assert_allclose(
            host, want, rtol=rtol or r, atol=atol if atol is not None else a, err_msg=what
        )
    else:
        np.testing.assert_array_equal(host, want, err_msg=what)


def _check_all(gots, wants, what=""):
    assert len(gots) == len(wants)
    for k, (g, w) in enumerate(zip(gots, wants)):
        _check(g, w, f"{what}[{k}]")


def _host(f, *hs):
    with np.errstate(all="ignore"):
        return f(*hs)


# -- bitwise operators ------------------------------------------------------------------------------
def _bitwise(a, b):
    return a & b, a | b, a ^ b, ~a, np.bitwise_and(b, a), np.invert(b), (a ^ b) & ~(a | b)


BITWISE = nx.jit(_bitwise)


@pytest.mark.parametrize("dtype", INTS + ["bool"])
def test_bitwise(rng, dtype):
    ha, hb = _rand(rng, dtype), _rand(rng, dtype)
    a, b = nx.asarray(ha), nx.asarray(hb)
    want = _bitwise(ha, hb)
    _poison(N, dtype)
    _check_all(BITWISE(a, b), want, f"jit {dtype}")
    _check_all(_bitwise(a, b), want, f"eager {dtype}")
    # eagerly with Python scalars (NumPy 2: the array's dtype is kept)
    s1, s2 = (True, False) if dtype == "bool" else (0x5A, 3)
    _check_all((a & s1, s2 ^ b), (ha & s1, s2 ^ hb), f"eager scalars {dtype}")


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
        (_rand(rng, dtype) for _ in range(2))
        if dtype == "bool"
        else (rng.integers(0, 4, N).astype(dtype) for _ in range(2))
    )
    if dtype.startswith("float"):
        ha[::5] = -0.0  # -0.0 == 0.0 and is false
        ha[1::7] = np.nan  # NaN compares unequal to everything, and is true
    a, b = nx.asarray(ha), nx.asarray(hb)
    want = _logic(ha, hb)
    _poison(N, "bool")
    _check_all(LOGIC(a, b), want, f"jit {dtype}")
    _check_all(_logic(a, b), want, f"eager {dtype}")


def _compare_scalars(a):
    return a < 2, a >= 2, a == 3, a != 0, np.logical_and(a > 0, a <= 3)


COMPARE_SCALARS = nx.jit(_compare_scalars)


@pytest.mark.parametrize("dtype", ["int8", "uint32", "uint64", "float32"])
def test_comparisons_with_python_int_literals(rng, dtype):
    h = rng.integers(0, 6, N).astype(dtype)
    x = nx.asarray(h)
    want = _compare_scalars(h)  # plain Numba agrees (booleans; uint64 against int64 compares as float64)
    _check_all(COMPARE_SCALARS(x), want, f"jit {dtype}")
    _check_all(_compare_scalars(x), want, f"eager {dtype}")


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
    _poison(N, dtype)
    _check_all(MATH(*xs), want, f"jit {dtype}")
    _check_all(_math(*xs), want, f"eager {dtype}")
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
        ha = _rand(rng, dt, lo=info.min + 1)  # not MIN // -1 (overflows)
        small = rng.integers(max(info.min, -9), 10, N).astype(dt)
        large = _rand(rng, dt, lo=info.min + 1)
        hb = np.where(rng.random(N) < 0.7, small, large)  # divisors of both signs, small and large
        hb[:3] = 0  # NumPy: 0 (with a warning); compared on the nonzero divisors only
        mask = hb != 0
    a, b = nx.asarray(ha), nx.asarray(hb)
    want = _host(_divmod, ha, hb)
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
                rtol, atol = _tol(dt)
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
    ha = _rand(rng, dtype)  # the whole range: powers wrap around as in NumPy
    ha[:4] = [0, 1, 2, 3]
    hb = rng.integers(0, 7, N).astype(dtype)  # small non-negative exponents
    a, b = nx.asarray(ha), nx.asarray(hb)
    want = _power(ha, hb)
    assert want[0].dtype == np.dtype(dtype)
    wide = ha.astype(np.result_type(dtype, np.int64))  # Numba: uint64 with int64 -> float64
    want_jit = want + (wide**2, wide**3, wide**0, np.power(wide, 5))
    _poison(N, dtype, wide.dtype)
    _check_all(power_jit(a, b), want_jit, f"jit {dtype}")
    _check_all(_power(a, b), want, f"eager {dtype}")
    # eagerly with Python-int exponents: NumPy 2 keeps the dtype
    _check_all(
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
    _poison(N, dtype, "float64")
    _check_all(CLIP_WHERE(nx.asarray(h)), want, f"jit {dtype}")


@pytest.mark.parametrize("dtype,lo,hi", [("int8", 0, 200), ("int8", -300, 50), ("uint16", -5, 3)])
def test_clip_with_python_bounds_outside_the_dtype_range(rng, dtype, lo, hi):
    # NumPy 2 keeps the array's dtype and clips as if the bound were not cast (it saturates)
    h = rng.integers(-100, 101, N).astype(dtype) if dtype == "int8" else rng.integers(0, 9, N).astype(dtype)
    want = np.clip(h, lo, hi)
    assert want.dtype == np.dtype(dtype)
    _check(nx.jit(lambda a: np.clip(a, lo, hi))(nx.asarray(h)), want, f"{dtype} clip({lo}, {hi})")


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
    _check_all(ASTYPE(f, i, b), _astype(hf, hi, hb), "jit")
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
    _check_all([x.astype(t) for x, t in casts], [host[id(x)].astype(t) for x, t in casts], "eager")


# -- mixed-dtype promotion --------------------------------------------------------------------------
def _mixed(i8, u8, u64, i64, i32, f32):
    return i8 + u8, u64 + i64, i32 + f32, f32 + 2.5, i8 * u8, u64 - i64, i32 * f32


def _mixed_jit(i8, u8, u64, i64, i32, f32):
    return i8 + u8, u64 + i64, i32 + f32, f32 + 2.5, i8 * u8, u64 - i64, i32 * f32, u8 + 300


MIXED = nx.jit(_mixed_jit)


def test_mixed_dtype_promotion(rng):
    hs = [
        _rand(rng, "int8"),
        _rand(rng, "uint8"),
        _rand(rng, "uint64", hi=2**63),
        _rand(rng, "int64"),
        _rand(rng, "int32", lo=-(10**6), hi=10**6),
        _rand(rng, "float32"),
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
    _check_all(_mixed(*xs), want, "eager")
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
    _check_all(MIXED(*xs), want_jit, "jit")


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
    ha = _rand(rng, dtypes[0], lo=-(10**6), hi=10**6)
    hb = (
        _rand(rng, dtypes[1], lo=1, hi=10**6)
        if dtypes[1] != "float32"
        else rng.uniform(0.1, 9, N).astype("float32")
    )
    a, b = nx.asarray(ha), nx.asarray(hb)
    _check_all((a / b, a + b, a * b), (ha / hb, ha + hb, ha * hb), f"eager {dtypes}")


def test_eager_numpy_and_bool_scalars(rng):
    # NumPy scalars are 'strong' in NumPy 2 (they take part in the promotion), Python bools are weak
    hf, hi, hb = _rand(rng, "float32"), _rand(rng, "int16"), rng.random(N) < 0.5
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
            _check(op(f, i, b), op(hf, hi, hb), what)
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
    _check_all((nx.erf(x), nx.erfc(x)), want[:2], f"eager {dtype}")
    _check_all(ERF(x), want, f"jit {dtype}")
    out = nx.full(N, np.nan, dtype=dtype)
    erf_loop(x, out)
    _check(out, (verf(h) - 2.0 * verfc(h * np.asarray(0.5, dtype))).astype(dtype), f"prange {dtype}")


# -- unary minus and abs of signed integers ----------------------------------------------------------
def _neg_abs(a):
    return -a, np.abs(a), np.negative(a), np.absolute(a), -np.abs(a)


NEG_ABS = nx.jit(_neg_abs)


@pytest.mark.parametrize("dtype", SIGNED)
def test_negative_and_abs_of_signed_ints(rng, dtype):
    h = _rand(rng, dtype)
    h[:3] = [np.iinfo(dtype).min, np.iinfo(dtype).max, 0]  # -MIN and abs(MIN) wrap to MIN, as in NumPy
    x = nx.asarray(h)
    want = _host(_neg_abs, h)
    _check_all(NEG_ABS(x), want, f"jit {dtype}")
    _check_all(_host(_neg_abs, x), want, f"eager {dtype}")


# -- integer arithmetic wraps around -----------------------------------------------------------------
def _arith(a, b):
    return a + b, a - b, a * b, np.minimum(a, b), np.maximum(a, b), a * a - b


ARITH = nx.jit(_arith)


@pytest.mark.parametrize("dtype", ["int8", "int16", "uint16", "uint32", "uint64"])
def test_integer_arithmetic_wraps(rng, dtype):
    ha, hb = _rand(rng, dtype), _rand(rng, dtype)
    a, b = nx.asarray(ha), nx.asarray(hb)
    want = _host(_arith, ha, hb)
    _poison(N, dtype)
    _check_all(ARITH(a, b), want, f"jit {dtype}")
    _check_all(_host(_arith, a, b), want, f"eager {dtype}")


# -- eager operations on edge shapes and views --------------------------------------------------------
def test_eager_zero_d(rng):
    hf, hi = np.float64(rng.standard_normal()), np.int32(rng.integers(-50, 50))
    hv = rng.standard_normal(5)
    f, i, v = nx.asarray(hf), nx.asarray(hi), nx.asarray(hv)
    assert f.shape == () and i.shape == ()
    cases = [
        (f + i, hf + hi),
        (f * f - 1.0, hf * hf - 1.0),
        (np.sqrt(np.abs(f)), np.sqrt(np.abs(hf))),
        (-i, -hi),
        (i // 3, hi // 3),
        (i % 7, hi % 7),
        (f > 0, hf > 0),
        (~i, ~hi),
        (i**2, hi**2),
        (f + v, hf + hv),
        (v * i, hv * hi),
    ]
    for k, (got, want) in enumerate(cases):
        _check(got, np.asarray(want), f"case {k}")


def test_eager_empty_and_broadcasting_with_empty(rng):
    e1, e2, col = nx.empty(0), nx.empty((3, 0)), nx.asarray(rng.standard_normal((3, 1)))
    ie = nx.empty((3, 0), dtype=np.int16)
    cases = [
        (e1 + 1.0, (0,), np.float64),
        (e2 * e1, (3, 0), np.float64),
        (col + e1, (3, 0), np.float64),
        (np.sin(e2), (3, 0), np.float64),
        (e2 < e1, (3, 0), np.bool_),
        (ie & 3, (3, 0), np.int16),
        (ie + e1, (3, 0), np.float64),
        (e2.astype(np.int8), (3, 0), np.int8),
        (e2.T - 1, (0, 3), np.float64),
    ]
    for k, (got, shape, dtype) in enumerate(cases):
        _check(got, np.empty(shape, dtype), f"case {k}")
    with pytest.raises(ValueError, match="broadcast"):
        nx.empty((2, 0)) + nx.empty(3)


@pytest.mark.parametrize("dtype", ["float64", "int16"])
def test_eager_negative_strides_and_transposes(rng, dtype):
    h = _rand(rng, dtype, 12 * 10).reshape(12, 10) if dtype != "float64" else rng.standard_normal((12, 10))
    g = _rand(rng, dtype, 10 * 12).reshape(10, 12) if dtype != "float64" else rng.standard_normal((10, 12))
    x, y = nx.asarray(h), nx.asarray(g)
    v = nx.asarray(h[0])
    views = [
        (lambda a, b, r: a[::-2] * 3 - a[1::2], (x, y, v), (h, g, h[0])),
        (lambda a, b, r: a.T + b, (x, y, v), (h, g, h[0])),
        (lambda a, b, r: a[:, ::-1] - b.T[::-1], (x, y, v), (h, g, h[0])),
        (lambda a, b, r: np.maximum(a[::-3, ::-2], r[::-2]), (x, y, v), (h, g, h[0])),
        (lambda a, b, r: r[::-2] + r[::-2], (x, y, v), (h, g, h[0])),
        (
            lambda a, b, r: a.T[2:7, ::-4] ^ 5 if a.dtype.kind == "i" else a.T[2:7, ::-4] ** 2,
            (x, y, v),
            (h, g, h[0]),
        ),
    ]
    for k, (op, dev, host) in enumerate(views):
        _check(op(*dev), _host(op, *host), f"view {k}")
    # the views' data is untouched
    np.testing.assert_array_equal(nx.asnumpy(x), h)


# -- prange bodies in float32 -------------------------------------------------------------------------
@nx.jit
def float32_body(x, y, out):
    for i in prange(x.shape[0]):
        v = x[i]
        w = y[i]
        out[i] = (
            math.log(v)
            + math.sin(v) * math.cos(w)
            - math.atan2(w, v)
            + math.floor(v * np.float32(3.0))
            + math.fabs(w)
            + math.pow(v, np.float32(1.5))
        )
    return out


def test_prange_float32_math_body_writes_into_the_argument(rng):
    q = nx.Queue(DEV)
    hx = rng.uniform(0.05, 4.0, 1001).astype(np.float32)
    hy = rng.standard_normal(1001).astype(np.float32)
    x, y = nx.asarray(hx, sycl_queue=q), nx.asarray(hy, sycl_queue=q)
    out = nx.full(1001, np.nan, dtype=np.float32, sycl_queue=q)
    res = float32_body(x, y, out)
    assert res.sycl_queue == x.sycl_queue and out.sycl_queue == x.sycl_queue
    assert res._data_ptr == out._data_ptr and res.dtype == np.float32
    want = (
        np.log(hx)
        + np.sin(hx) * np.cos(hy)
        - np.arctan2(hy, hx)
        + np.floor(hx * np.float32(3.0))
        + np.abs(hy)
        + np.power(hx, np.float32(1.5))
    )
    assert want.dtype == np.float32
    np.testing.assert_allclose(nx.asnumpy(out), want, rtol=1e-5, atol=1e-5)


# -- allocation inside jitted code ---------------------------------------------------------------------
@nx.jit
def allocate_on_device(n, v):
    return (
        nx.zeros(n, np.int16, device=DEV),
        nx.ones((2, n), np.float32, device=DEV),
        nx.full(n, v, np.uint8, device=DEV),
        nx.zeros((n, 2), device=DEV),
        nx.full(n, v, device=DEV),
        nx.ones(n, np.bool_, device=DEV),
        nx.full((n, 1), -v, np.int64, device=DEV),
    )


@nx.jit
def allocate_like_args(x, v):
    a = nx.zeros(x.shape[0], np.uint32)
    b = nx.full(x.shape, v, np.float32)
    c = nx.ones(3, np.int8)
    for i in prange(x.shape[0]):
        a[i] = x[i] * 2
    return a, b, c


def test_allocation_inside_jit(rng):
    n, v = int(rng.integers(3, 9)), int(rng.integers(1, 100))
    got = allocate_on_device(n, v)
    want = [
        np.zeros(n, np.int16),
        np.ones((2, n), np.float32),
        np.full(n, v, np.uint8),
        np.zeros((n, 2)),
        np.full(n, v),
        np.ones(n, np.bool_),
        np.full((n, 1), -v, np.int64),
    ]  # [4]: int64, as np.full
    for k, (g, w) in enumerate(zip(got, want)):
        assert g.device == nx.Device(DEV), k
        _check(g, w, f"device= [{k}]")
    q = nx.Queue(DEV)
    h = rng.integers(0, 1000, n).astype(np.uint32)
    a, b, c = allocate_like_args(nx.asarray(h, sycl_queue=q), float(v) + 0.5)
    assert a.sycl_queue is q and b.sycl_queue is q and c.sycl_queue is q
    _check_all((a, b, c), (h * 2, np.full(n, v + 0.5, np.float32), np.ones(3, np.int8)), "like arguments")


def test_full_without_dtype_inside_jit_takes_the_fill_values_dtype(rng):
    # eager numba_ext.full, np.full and Numba's np.full: the dtype of the fill value
    n = int(rng.integers(2, 6))
    f = nx.jit(lambda n: (nx.full(n, 7), nx.full(n, True), nx.full(n, 2.5)))
    want = (np.full(n, 7), np.full(n, True), np.full(n, 2.5))
    assert [nx.full(n, w[0]).dtype for w in want] == [w.dtype for w in want]  # eagerly
    _check_all(f(n), want, "jit")


# -- *_like allocations: numba_ext's and NumPy's, eagerly and in jitted code ------------------------------
def test_like_allocations_eagerly(rng):
    q = nx.Queue(DEV)
    h = rng.standard_normal((3, 5)).astype(np.float32)
    x = nx.asarray(h, sycl_queue=q, usm_type="shared")
    v = float(rng.integers(2, 50))
    got = [
        nx.empty_like(x),
        nx.zeros_like(x),
        nx.ones_like(x, dtype=np.int32),
        nx.full_like(x, v),
        nx.full_like(x, -v, dtype=np.int16, usm_type="host"),
    ]
    for k, g in enumerate(got):
        assert g.shape == h.shape and g.sycl_queue is q, k
        assert g.usm_type == ("host" if k == 4 else "shared"), k
    assert got[0].dtype == np.float32
    _check_all(
        got[1:],
        (np.zeros_like(h), np.ones_like(h, np.int32), np.full_like(h, v), np.full_like(h, -v, np.int16)),
        "eager *_like",
    )
    # NumPy input: its shape and dtype, on the default queue, device USM
    z = nx.zeros_like(h.astype(np.int8))
    assert (
        z.dtype == np.int8
        and z.shape == h.shape
        and z.usm_type == "device"
        and z.sycl_queue == nx.default_queue()
    )
    assert not nx.asnumpy(z).any()


@nx.jit
def like_in_jit(a, v):
    out = np.empty_like(a)
    for i in prange(a.shape[0]):
        for j in range(a.shape[1]):
            out[i, j] = a[i, j] * 2.0 + j
    return (
        out,
        np.zeros_like(a),
        np.ones_like(a, np.int32),
        np.full_like(a, v),
        nx.zeros_like(a, usm_type="host"),
        nx.full_like(a, -v, dtype=np.int16),
        nx.empty_like(a, np.uint8),
    )


def test_like_allocations_in_jit_follow_the_array(rng):
    q = nx.Queue(DEV)
    h = rng.standard_normal((4, 6)).astype(np.float32)
    v = float(rng.integers(2, 50))
    for usm in ("shared", "device"):
        x = nx.asarray(h, sycl_queue=q, usm_type=usm)
        got = like_in_jit(x, v)
        for k, g in enumerate(got):  # compute follows data: x's queue, x's USM type unless given
            assert g.sycl_queue is q and g.shape == h.shape, k
            assert g.usm_type == ("host" if k == 4 else usm), (k, usm)
        assert got[6].dtype == np.uint8
        want = (
            h * np.float32(2.0) + np.arange(6, dtype=np.float32),
            np.zeros_like(h),
            np.ones_like(h, np.int32),
            np.full_like(h, v),
            np.zeros_like(h),
            np.full_like(h, -v, np.int16),
        )
        _check_all(got[:6], want, f"jit *_like ({usm})")
    # the same function on NumPy arrays in plain Numba: NumPy's *_like (NumPy arrays)
    import numba

    @numba.njit
    def numpy_like(a, v):
        return np.zeros_like(a), np.full_like(a, v), np.ones_like(a, np.int8)

    for g, w in zip(numpy_like(h, v), (np.zeros_like(h), np.full_like(h, v), np.ones_like(h, np.int8))):
        assert type(g) is np.ndarray and g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


def test_like_allocation_between_prange_loops_still_fuses(rng):
    @nx.jit
    def f(a):
        t = np.empty_like(a)
        for i in prange(a.shape[0]):
            t[i] = a[i] * 3.0
        out = nx.empty_like(a)
        for i in prange(a.shape[0]):
            out[i] = t[i] - 1.0
        return out

    h = rng.standard_normal(777)
    x = nx.asarray(h, device=DEV)
    np.testing.assert_allclose(nx.asnumpy(f(x)), h * 3.0 - 1.0, rtol=1e-14, atol=1e-14)
    assert len(f.inspect_kernels(x)) == 1


def test_host_functions_returning_numpy_arrays_are_refused_at_compile_time(rng):
    # np.unique / np.concatenate are not offloaded; their NumPy result would leave the queue silently
    x = nx.asarray(rng.standard_normal(16), device=DEV)
    for fn, name in [
        (lambda a: np.unique(a), "np.unique"),
        (lambda a: np.concatenate((a, a)) + 1.0, "np.concatenate"),
    ]:
        with pytest.raises(nx.UnsupportedError, match=rf"{name}\(\) is not offloaded.*line"):
            nx.jit(fn)(x)
    with pytest.raises(nx.UnsupportedError, match="boolean/fancy indexing.*line"):
        nx.jit(lambda a: a[a > 0.0])(x)


# -- NumPy functions of numba_ext arrays outside jitted code (__array_function__) ---------------------------
def test_numpy_functions_eagerly_compute_on_the_queue(rng):
    q = nx.Queue(DEV)
    hf = rng.standard_normal((5, 7)).astype(np.float32)
    hi = rng.integers(-100, 100, (5, 7)).astype(np.int8)
    hv = rng.standard_normal(33)
    f, i, v = (nx.asarray(h, sycl_queue=q, usm_type="shared") for h in (hf, hi, hv))
    cases = [  # (numba_ext result, NumPy's): NumPy 2's dtypes (weak Python scalars, strong NumPy ones)
        (np.where(f > 0.1, f, 0.5), np.where(hf > 0.1, hf, 0.5)),
        (np.where(f > 0.1, f, np.float64(0.5)), np.where(hf > 0.1, hf, np.float64(0.5))),
        (np.where(i > 0, i, f), np.where(hi > 0, hi, hf)),
        (np.where(i < 0, 7, i), np.where(hi < 0, 7, hi)),
        (np.clip(f, -0.5, 0.25), np.clip(hf, -0.5, 0.25)),
        (np.clip(i, -5, 500), np.clip(hi, -5, 500)),
        (np.clip(i, None, 3), np.clip(hi, None, 3)),
        (np.clip(f, min=0.0), np.clip(hf, min=0.0)),
        (np.clip(i, 2.5, 3), np.clip(hi, 2.5, 3)),
        (np.clip(f, None, f[0]), np.clip(hf, None, hf[0])),  # an array bound with an open one
        (np.zeros_like(i), np.zeros_like(hi)),
        (np.ones_like(f, dtype=np.int16), np.ones_like(hf, dtype=np.int16)),
        (np.full_like(i, 9), np.full_like(hi, 9)),
        (np.copy(f), hf.copy()),
    ]
    for k, (got, want) in enumerate(cases):
        assert got.sycl_queue is q and got.usm_type == "shared", k
        _check(got, want, f"eager NumPy function [{k}]")
    e = np.empty_like(f)
    assert (e.shape, e.dtype, e.sycl_queue, e.usm_type) == (hf.shape, hf.dtype, q, "shared")
    assert np.dot(v, v) == pytest.approx(float(hv @ hv), rel=1e-12)
    np.testing.assert_allclose(nx.asnumpy(np.dot(f, f.T)), hf @ hf.T, rtol=1e-5)
    assert np.sum(v) == pytest.approx(hv.sum()) and np.reshape(f, (7, 5)).shape == (7, 5)  # via methods


def test_numpy_functions_eagerly_keep_the_cfd_rules(rng):
    h = rng.standard_normal(8)
    x = nx.asarray(h, device=DEV)
    with pytest.raises(nx.ExecutionPlacementError):
        np.where(x > 0, x, h)  # a NumPy array: its queue cannot be inferred
    with pytest.raises(TypeError, match=r"np.unique\(\) is not offloaded.*asnumpy"):
        np.unique(x)
    with pytest.raises(nx.UnsupportedError, match="np.where\\(condition\\)"):
        np.where(x > 0)
    with pytest.raises(nx.UnsupportedError, match="shape="):
        np.zeros_like(x, shape=(3,))


# -- the eager compiler compiles each (operation, dtypes, layout) once -----------------------------------
def test_eager_operations_compile_once(rng, monkeypatch):
    monkeypatch.setattr(eager, "_cache", {})  # an empty cache for this test, restored afterwards
    compiled = []
    real = eager._compile
    monkeypatch.setattr(eager, "_compile", lambda *a: compiled.append(a[1]) or real(*a))
    h, g = rng.standard_normal(64), rng.standard_normal(64)
    x, y = nx.asarray(h), nx.asarray(g)

    def run(op, want, grows):
        before = len(eager._cache)
        got = op()
        assert len(eager._cache) == before + grows, (len(eager._cache), before, grows)
        _check(got, want)

    run(lambda: x + y, h + g, 1)
    run(lambda: x + y, h + g, 0)  # a repeat
    run(lambda: y + x, g + h, 0)  # other arrays of the same kind
    run(lambda: x + 2.0, h + 2.0, 1)  # a scalar operand: another layout
    run(lambda: x + 3.5, h + 3.5, 0)  # another value of the scalar
    run(lambda: x + 3, h + 3, 0)  # a Python int: the same float64 operand (NumPy 2)
    run(lambda: x * y, h * g, 1)  # another operation
    run(
        lambda: nx.asarray(h.astype(np.float32)) + nx.asarray(g.astype(np.float32)),
        h.astype(np.float32) + g.astype(np.float32),
        1,
    )  # another dtype
    run(lambda: x[::2] + y[::2], h[::2] + g[::2], 1)  # a strided layout
    run(lambda: x[1::2] + y[::2], h[1::2] + g[::2], 0)
    assert compiled == ["add", "add", "multiply", "add", "add"]


def test_builtin_abs_of_arrays_in_jit(rng):
    # Python's abs() of a numba_ext array is np.abs (plain Numba types no abs() of arrays)
    h = rng.integers(-50, 50, N).astype(np.int16)
    g = rng.standard_normal(N)
    f = nx.jit(lambda a, b: (abs(a), abs(b * 2.0) - 1.0))
    got = f(nx.asarray(h), nx.asarray(g))
    _check_all(got, (np.abs(h), np.abs(g * 2.0) - 1.0), "jit abs")
