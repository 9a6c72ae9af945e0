"""STREAM triad, a = b + s * c: memory bandwidth bound.

``numba_ext_kernel`` is an explicit ``@numba_ext.kernel``, one work-item per element, writing into a
result allocated per call on the inputs' queue (like ``numba_ext_jit``)."""

import numba
import numpy as np

import numba_ext
import numba_ext as nx
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


@nx.kernel
def _triad_kernel(b, c, s, a):
    i = nx.get_global_id(0)
    a[i] = b[i] + s * c[i]


def triad_kernel(b, c, s):
    a = nx.empty(b.shape, dtype=b.dtype, sycl_queue=b.sycl_queue)
    _triad_kernel[b.shape[0]](b, c, s, a)
    return a


VARIANTS = [
    Variant("numpy", triad),
    Variant("numba_parallel", triad_prange),
    Variant("numba_ext_jit", numba_ext.jit(triad), device=True),
    Variant("numba_ext_kernel", triad_kernel, device=True),
]
