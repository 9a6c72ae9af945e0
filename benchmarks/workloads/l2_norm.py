"""Row-wise L2 norm of an (n, dims) array, d = sqrt(sum(a * a, axis=1)) (dpbench ``l2_norm``).

``numba_ext_jit`` is the NumPy source under ``@numba_ext.jit`` (axis reductions run on the device since
commit df623e8). ``numba_ext_jit_hybrid``, the stop-gap from before that, squares on the device (one
kernel) and finishes on the host: the timed region includes copying the squares back and NumPy's row
sums and sqrt.

``numba_ext_kernel`` is an explicit ``@numba_ext.kernel``, all on the device: one work-item per row
sums its ``dims`` squares in a loop and writes the square root (the reduction is along a row, so no
cross-work-item reduction is needed).
"""

import math

import numba
import numpy as np

import numba_ext
import numba_ext as nx
from harness import Variant

SIZES = {"S": {"n": 1 << 16, "dims": 3}, "M": {"n": 1 << 20, "dims": 3}, "L": {"n": 1 << 23, "dims": 3}}


def make_inputs(rng, n, dims):
    return (rng.random((n, dims)),)


def l2_norm(a):
    return np.sqrt(np.sum(np.square(a), axis=1))


reference = l2_norm


@numba.njit(parallel=True)
def l2_norm_prange(a):
    n, dims = a.shape
    d = np.empty(n)
    for i in numba.prange(n):
        s = 0.0
        for k in range(dims):
            s += a[i, k] * a[i, k]
        d[i] = math.sqrt(s)
    return d


@numba_ext.jit
def _square(a):
    return a * a


def l2_norm_hybrid(a):
    return np.sqrt(numba_ext.asnumpy(_square(a)).sum(axis=1))


@nx.kernel
def _l2_norm_kernel(a, d):
    i = nx.get_global_id(0)
    s = 0.0
    for k in range(a.shape[1]):
        s += a[i, k] * a[i, k]
    d[i] = math.sqrt(s)


def l2_norm_kernel(a):
    d = nx.empty(a.shape[0], dtype=a.dtype, sycl_queue=a.sycl_queue)
    _l2_norm_kernel[a.shape[0]](a, d)
    return d


VARIANTS = [
    Variant("numpy", l2_norm),
    Variant("numba_parallel", l2_norm_prange),
    Variant("numba_ext_jit", numba_ext.jit(l2_norm), device=True),
    Variant("numba_ext_jit_hybrid", l2_norm_hybrid, device=True,
            note="device a*a, then copy back and host row sums + sqrt (all timed)"),
    Variant("numba_ext_kernel", l2_norm_kernel, device=True),
]
