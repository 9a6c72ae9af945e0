"""Lloyd's k-means, fixed number of iterations, first points as initial centroids (dpbench
``kmeans``). Result: the centroids and the labels of the last assignment step.

``numba_ext_kernel`` runs everything on the device with explicit ``@numba_ext.kernel`` launches: one
to copy the initial centroids, then per iteration one Lloyd step as in the other variants, in two
launches: assignment (labels, per-work-group partial sums and counts in local memory, merged into
global sums with atomics) and update (centroids of non-empty clusters; resets the sums). Float64
atomics make the order of the sums vary between runs (differences of a few ulps in the centroids).
"""

import numba
import numpy as np

import numba_ext as nx
from harness import Variant
from workloads import NEEDS_KERNELS

SIZES = {"S": {"n": 1 << 12, "dims": 2, "nclusters": 4, "niters": 20},
         "M": {"n": 1 << 16, "dims": 2, "nclusters": 4, "niters": 30},
         "L": {"n": 1 << 20, "dims": 2, "nclusters": 4, "niters": 30}}
WG = 64  # kernel work-group size
MAXC, MAXD = 16, 4  # capacity of the kernel's local partial sums (nclusters <= MAXC, dims <= MAXD)
# A module global, not `np.inf` in the kernel: a kernel variable initialised from a module attribute
# (np.inf, math.pi) keeps that constant even where the variable is reassigned (wrong labels).
INF = np.inf


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


@nx.kernel
def _km_init(points, centroids, sums, counts):
    c = nx.get_global_id(0)
    for k in range(points.shape[1]):
        centroids[c, k] = points[c, k]
        sums[c, k] = 0.0
    counts[c] = 0


@nx.kernel
def _km_assign(points, centroids, labels, sums, counts):
    gid = nx.get_global_id(0)
    lid = nx.get_local_id(0)
    nclusters = centroids.shape[0]
    dims = points.shape[1]
    lsums = nx.local.array((MAXC, MAXD), np.float64)
    lcounts = nx.local.array(MAXC, np.int32)
    if lid < nclusters:
        for k in range(dims):
            lsums[lid, k] = 0.0
        lcounts[lid] = 0
    nx.barrier(nx.LOCAL_MEM_FENCE)
    if gid < points.shape[0]:
        best = 0
        best_d = INF
        for c in range(nclusters):
            d = 0.0
            for k in range(dims):
                t = points[gid, k] - centroids[c, k]
                d += t * t
            if d < best_d:
                best = c
                best_d = d
        labels[gid] = best
        for k in range(dims):
            nx.atomic.add(lsums, (best, k), points[gid, k])
        nx.atomic.add(lcounts, best, 1)
    nx.barrier(nx.LOCAL_MEM_FENCE)
    if lid < nclusters:
        for k in range(dims):
            nx.atomic.add(sums, (lid, k), lsums[lid, k])
        nx.atomic.add(counts, lid, lcounts[lid])


@nx.kernel
def _km_update(centroids, sums, counts):
    c = nx.get_global_id(0)
    if counts[c] > 0:
        for k in range(centroids.shape[1]):
            centroids[c, k] = sums[c, k] / counts[c]
    for k in range(centroids.shape[1]):
        sums[c, k] = 0.0
    counts[c] = 0


def kmeans_kernel(points, nclusters, niters):
    n, dims = points.shape
    if nclusters > min(MAXC, WG) or dims > MAXD:
        raise ValueError(f"kmeans kernel: nclusters {nclusters} > {min(MAXC, WG)} or dims {dims} > {MAXD}")
    q = points.sycl_queue
    centroids = nx.empty((nclusters, dims), dtype=points.dtype, sycl_queue=q)
    sums = nx.empty((nclusters, dims), dtype=points.dtype, sycl_queue=q)
    counts = nx.empty(nclusters, dtype="int32", sycl_queue=q)
    labels = nx.empty(n, dtype="int64", sycl_queue=q)
    _km_init[nclusters](points, centroids, sums, counts)
    groups = (n + WG - 1) // WG
    for _ in range(niters):
        _km_assign[groups * WG, WG](points, centroids, labels, sums, counts)
        _km_update[nclusters](centroids, sums, counts)
    return centroids, labels


VARIANTS = [
    Variant("numpy", kmeans),
    Variant("numba_parallel", kmeans_prange),
    Variant.unavailable("numba_ext_jit", NEEDS_KERNELS),
    Variant("numba_ext_kernel", kmeans_kernel, device=True,
            note="1 + 2 * niters launches (init; assignment with local sums + atomics, update per iteration)"),
]
