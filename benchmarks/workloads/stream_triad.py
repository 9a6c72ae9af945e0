"""STREAM triad, a = b + s * c: memory bandwidth bound."""

import numba
import numpy as np

import numba_ext
from harness import Variant

SIZES = {"S": {"n": 1 << 18}, "M": {"n": 1 << 22}, "L": {"n": 1 << 25}}
SCALAR = 3.0


def make_inputs(rng, n):
    return rng.random(n), rng.random(n), SCALAR


def triad(b, c, s):
    return b + s * c


reference = triad


@numba.njit(parallel=True)
def triad_prange(b, c, s):
    a = np.empty_like(b)
    for i in numba.prange(b.shape[0]):
        a[i] = b[i] + s * c[i]
    return a


VARIANTS = [
    Variant("numpy", triad),
    Variant("numba_parallel", triad_prange),
    Variant("numba_ext_jit", numba_ext.jit(triad), device=True),
]
