"""Bitwise and logical operators and comparisons on every dtype, in @numba_ext.jit code and eagerly
(outside jitted code), with Python scalars and Python-int literals. Inputs are fresh random values,
results are checked value by value (and dtype by dtype) against NumPy.

Reference for the dtype of jitted code: NumPy where NumPy and Numba agree (array operands of one
dtype), plain Numba on NumPy arrays where they differ (Python-int literals are int64 in Numba).
Eager operations follow NumPy 2 exactly (Python scalars are 'weak')."""

import numpy as np
import pytest

import numba_ext as nx

from ..checks import INTS, N, check_all, poison, rand


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
