"""Integer arithmetic, in @numba_ext.jit code and eagerly: // and % (both signs, zero divisors),
integer powers, unary minus and abs of signed integers (MIN wraps), wraparound of + - *. Inputs are
fresh random values, results are checked value by value (and dtype by dtype) against NumPy.

Reference for the dtype of jitted code: NumPy where NumPy and Numba agree (array operands of one
dtype), plain Numba on NumPy arrays where they differ (Python-int literals are int64 in Numba).
Eager operations follow NumPy 2 exactly (Python scalars are 'weak')."""

import numpy as np
import pytest

import numba_ext as nx

from ..checks import INTS, N, check_all, host_reference, poison, rand, tol

SIGNED = ["int8", "int16", "int32", "int64"]


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
