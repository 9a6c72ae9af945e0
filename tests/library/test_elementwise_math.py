"""The math functions (exp/log/trigonometric/hyperbolic, hypot, floor/ceil/trunc) and erf/erfc on
float32 and float64, in @numba_ext.jit code, eagerly and in prange loops. Inputs are fresh random
values, results are checked value by value (and dtype by dtype) against NumPy.

Reference for the dtype of jitted code: NumPy where NumPy and Numba agree (array operands of one
dtype), plain Numba on NumPy arrays where they differ (Python-int literals are int64 in Numba).
Eager operations follow NumPy 2 exactly (Python scalars are 'weak')."""

import math

import numpy as np
import pytest
from numba import prange

import numba_ext as nx

from ..checks import N, check, check_all, poison


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
