"""Dtypes of elementwise results, in @numba_ext.jit code and eagerly: np.clip / np.where with Python
scalars, astype, mixed-dtype promotion, integer/float loops and NumPy or bool scalars. Inputs are
fresh random values, results are checked value by value (and dtype by dtype) against NumPy.

Reference for the dtype of jitted code: NumPy where NumPy and Numba agree (array operands of one
dtype), plain Numba on NumPy arrays where they differ (Python-int literals are int64 in Numba).
Eager operations follow NumPy 2 exactly (Python scalars are 'weak')."""

import numpy as np
import pytest

import numba_ext as nx

from ..checks import N, check, check_all, poison, rand


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
