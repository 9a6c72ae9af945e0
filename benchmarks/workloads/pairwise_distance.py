"""Euclidean distances between two point sets, D[i, j] = |X1[i] - X2[j]| (dpbench
``pairwise_distance``). NumPy uses dpbench's form |x|^2 - 2 x.y + |y|^2 through a matrix product.

``numba_ext_kernel`` is an explicit ``@numba_ext.kernel`` over a 2-D range (one work-item per output
element, the prange loop's body), writing into a result allocated per call."""

import math

import numba
import numpy as np

import numba_ext as nx
from harness import Variant

SIZES = {"S": {"n": 512, "dims": 3}, "M": {"n": 2048, "dims": 3}, "L": {"n": 4096, "dims": 3}}


def make_inputs(rng, n, dims):
    return rng.random((n, dims)), rng.random((n, dims))


def pairwise_distance(x1, x2):
    d = -2.0 * (x1 @ x2.T)
    d += np.sum(np.square(x1), axis=1)[:, None]
    d += np.sum(np.square(x2), axis=1)[None, :]
    return np.sqrt(np.maximum(d, 0.0, out=d), out=d)


reference = pairwise_distance


@numba.njit(parallel=True)
def pairwise_distance_prange(x1, x2):
    n1, dims = x1.shape
    n2 = x2.shape[0]
    d = np.empty((n1, n2))
    for i in numba.prange(n1):
        for j in range(n2):
            s = 0.0
            for k in range(dims):
                t = x1[i, k] - x2[j, k]
                s += t * t
            d[i, j] = math.sqrt(s)
    return d


@nx.kernel
def _pairwise_distance_kernel(x1, x2, d):
    i = nx.get_global_id(0)
    j = nx.get_global_id(1)
    s = 0.0
    for k in range(x1.shape[1]):
        t = x1[i, k] - x2[j, k]
        s += t * t
    d[i, j] = math.sqrt(s)


def pairwise_distance_kernel(x1, x2):
    n1, n2 = x1.shape[0], x2.shape[0]
    d = nx.empty((n1, n2), dtype=x1.dtype, sycl_queue=x1.sycl_queue)
    _pairwise_distance_kernel[nx.Range(n1, n2)](x1, x2, d)
    return d


VARIANTS = [
    Variant("numpy", pairwise_distance),
    Variant("numba_parallel", pairwise_distance_prange),
    Variant.unavailable("numba_ext_jit", "matmul (SciPy), broadcasting in @jit"),
    Variant("numba_ext_kernel", pairwise_distance_kernel, device=True),
]
