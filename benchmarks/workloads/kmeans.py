"""Lloyd's k-means, fixed number of iterations, first points as initial centroids (dpbench
``kmeans``). Result: the centroids and the labels of the last assignment step."""

import numba
import numpy as np

from harness import Variant
from workloads import NEEDS_KERNELS

SIZES = {"S": {"n": 1 << 12, "dims": 2, "nclusters": 4, "niters": 20},
         "M": {"n": 1 << 16, "dims": 2, "nclusters": 4, "niters": 30},
         "L": {"n": 1 << 20, "dims": 2, "nclusters": 4, "niters": 30}}


def make_inputs(rng, n, dims, nclusters, niters):
    return rng.random((n, dims)), nclusters, niters


def kmeans(points, nclusters, niters):
    dims = points.shape[1]
    centroids = points[:nclusters].copy()
    sums = np.empty((nclusters, dims))
    for _ in range(niters):
        diff = points[:, None, :] - centroids[None, :, :]
        labels = np.sum(diff * diff, axis=2).argmin(axis=1)
        counts = np.bincount(labels, minlength=nclusters)
        for k in range(dims):
            sums[:, k] = np.bincount(labels, weights=points[:, k], minlength=nclusters)
        filled = counts > 0
        centroids[filled] = sums[filled] / counts[filled, None]
    return centroids, labels


reference = kmeans


@numba.njit(parallel=True)
def kmeans_prange(points, nclusters, niters):
    n, dims = points.shape
    centroids = points[:nclusters].copy()
    labels = np.empty(n, np.int64)
    for _ in range(niters):
        for i in numba.prange(n):  # assignment: parallel
            best, best_d = 0, np.inf
            for c in range(nclusters):
                d = 0.0
                for k in range(dims):
                    t = points[i, k] - centroids[c, k]
                    d += t * t
                if d < best_d:
                    best, best_d = c, d
            labels[i] = best
        sums = np.zeros((nclusters, dims))  # update: serial (O(n * dims))
        counts = np.zeros(nclusters, np.int64)
        for i in range(n):
            counts[labels[i]] += 1
            for k in range(dims):
                sums[labels[i], k] += points[i, k]
        for c in range(nclusters):
            if counts[c] > 0:
                for k in range(dims):
                    centroids[c, k] = sums[c, k] / counts[c]
    return centroids, labels


VARIANTS = [
    Variant("numpy", kmeans),
    Variant("numba_parallel", kmeans_prange),
    Variant.unavailable("numba_ext_jit", NEEDS_KERNELS),
]
