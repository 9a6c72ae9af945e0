"""Weighted pair counts (dpbench ``gpairs``): for every squared radius r2[k], the sum of w1[i] * w2[j]
over pairs of points (one from each set) with squared distance <= r2[k]. O(n^2) pairs."""

import numba
import numpy as np

from harness import Variant
from workloads import NEEDS_KERNELS

SIZES = {"S": {"n": 1024, "nbins": 20}, "M": {"n": 4096, "nbins": 20}, "L": {"n": 16384, "nbins": 20}}
CHUNK_PAIRS = 1 << 21  # pairs per NumPy block (bounds the temporaries)


def make_inputs(rng, n, nbins):
    x1, y1, z1, x2, y2, z2 = (rng.random(n) for _ in range(6))
    w1, w2 = rng.uniform(0.5, 1.5, n), rng.uniform(0.5, 1.5, n)
    rbins_sq = np.logspace(np.log10(0.001), np.log10(0.5), nbins) ** 2
    return x1, y1, z1, w1, x2, y2, z2, w2, rbins_sq


def gpairs(x1, y1, z1, w1, x2, y2, z2, w2, rbins_sq):
    nbins = rbins_sq.shape[0]
    hist = np.zeros(nbins + 1)
    step = max(1, CHUNK_PAIRS // x2.shape[0])
    for i in range(0, x1.shape[0], step):
        s = slice(i, i + step)
        dx, dy, dz = x1[s, None] - x2, y1[s, None] - y2, z1[s, None] - z2
        dsq = dx * dx + dy * dy + dz * dz
        first = np.searchsorted(rbins_sq, dsq.ravel(), side="left")  # first bin with dsq <= r2
        hist += np.bincount(first, weights=(w1[s, None] * w2).ravel(), minlength=nbins + 1)
    return np.cumsum(hist)[:nbins]


reference = gpairs


@numba.njit(parallel=True)
def gpairs_prange(x1, y1, z1, w1, x2, y2, z2, w2, rbins_sq):
    n1, n2, nbins = x1.shape[0], x2.shape[0], rbins_sq.shape[0]
    rows = np.zeros((n1, nbins + 1))
    for i in numba.prange(n1):
        for j in range(n2):
            dx, dy, dz = x1[i] - x2[j], y1[i] - y2[j], z1[i] - z2[j]
            dsq = dx * dx + dy * dy + dz * dz
            k = 0
            while k < nbins and rbins_sq[k] < dsq:
                k += 1
            rows[i, k] += w1[i] * w2[j]
    return np.cumsum(rows.sum(axis=0))[:nbins]


VARIANTS = [
    Variant("numpy", gpairs),
    Variant("numba_parallel", gpairs_prange),
    Variant.unavailable("numba_ext_jit", NEEDS_KERNELS),
]
