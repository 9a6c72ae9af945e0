"""Workloads written with the kernel API, checked against NumPy on random inputs: pairwise distances
(a 2-D range), an l2 norm reduced per work-group in local memory, a private histogram merged with
float64 atomics (gpairs), a k-means step and a matrix product with local tiles."""

import math

import numpy as np

import numba_ext as nx

from .conftest import WG, l2_norm_partial


# -- workloads ----------------------------------------------------------------------------------------
@nx.kernel
def pairwise_distance(x1, x2, out):
    i = nx.get_global_id(0)
    j = nx.get_global_id(1)
    d = 0.0
    for k in range(x1.shape[1]):
        t = x1[i, k] - x2[j, k]
        d += t * t
    out[i, j] = math.sqrt(d)


def test_pairwise_distance_2d_range(rng):
    a, b = rng.standard_normal((37, 3)), rng.standard_normal((29, 3))
    out = nx.empty((37, 29))
    # k[a, b] means (global, local); a 2-D global range alone is a Range
    pairwise_distance[nx.Range(37, 29)](nx.asarray(a), nx.asarray(b), out)
    want = np.sqrt(((a[:, None, :] - b[None, :, :]) ** 2).sum(-1))
    np.testing.assert_allclose(nx.asnumpy(out), want, rtol=1e-12, atol=1e-14)


def test_l2_norm_with_work_group_reduction(rng):
    n = 1000
    h = rng.standard_normal((n, 3))
    groups = (n + WG - 1) // WG
    partial = nx.zeros(groups)
    l2_norm_partial[groups * WG, WG](nx.asarray(h), partial)
    np.testing.assert_allclose(nx.asnumpy(partial).sum(), (h * h).sum(), rtol=1e-12, atol=1e-14)
    # per-group values too
    sq = np.concatenate([(h * h).sum(1), np.zeros(groups * WG - n)]).reshape(groups, WG).sum(1)
    np.testing.assert_allclose(nx.asnumpy(partial), sq, rtol=1e-12, atol=1e-14)


NBINS = 20


@nx.kernel
def gpairs(x1, x2, w1, w2, rbins_sq, hist):
    i = nx.get_global_id(0)
    local_hist = nx.private.array(20, np.float64)
    for b in range(20):
        local_hist[b] = 0.0
    for j in range(x2.shape[0]):
        dx = x1[i, 0] - x2[j, 0]
        dy = x1[i, 1] - x2[j, 1]
        dz = x1[i, 2] - x2[j, 2]
        dsq = dx * dx + dy * dy + dz * dz
        k = 20 - 1
        while k >= 0 and dsq <= rbins_sq[k]:
            local_hist[k] += w1[i] * w2[j]
            k -= 1
    for b in range(20):
        nx.atomic.add(hist, b, local_hist[b])


def test_gpairs_private_histogram_and_float64_atomics(rng):
    n = 128
    x1, x2 = rng.uniform(0, 1, (n, 3)), rng.uniform(0, 1, (n, 3))
    w1, w2 = rng.uniform(0.5, 1.5, n), rng.uniform(0.5, 1.5, n)
    rbins = np.linspace(0.05, 1.0, NBINS)
    hist = nx.zeros(NBINS)
    gpairs[n](nx.asarray(x1), nx.asarray(x2), nx.asarray(w1), nx.asarray(w2), nx.asarray(rbins**2), hist)
    dsq = ((x1[:, None, :] - x2[None, :, :]) ** 2).sum(-1)
    ww = w1[:, None] * w2[None, :]
    want = np.array([(ww * (dsq <= r * r)).sum() for r in rbins])
    np.testing.assert_allclose(nx.asnumpy(hist), want, rtol=1e-10)


K = 4


@nx.kernel
def kmeans_step(points, centroids, new_sums, counts):
    # one Lloyd step: assign to the nearest centroid, accumulate per work-group in local memory,
    # then merge into global sums with atomics
    gid = nx.get_global_id(0)
    lid = nx.get_local_id(0)
    sums = nx.local.array((4, 2), np.float64)
    cnt = nx.local.array(4, np.int32)
    if lid < 4:
        sums[lid, 0] = 0.0
        sums[lid, 1] = 0.0
        cnt[lid] = 0
    nx.barrier(nx.LOCAL_MEM_FENCE)
    if gid < points.shape[0]:
        best = 0
        best_d = 1e300
        for c in range(4):
            dx = points[gid, 0] - centroids[c, 0]
            dy = points[gid, 1] - centroids[c, 1]
            d = dx * dx + dy * dy
            if d < best_d:
                best_d = d
                best = c
        nx.atomic.add(sums, (best, 0), points[gid, 0])
        nx.atomic.add(sums, (best, 1), points[gid, 1])
        nx.atomic.add(cnt, best, 1)
    nx.barrier(nx.LOCAL_MEM_FENCE)
    if lid < 4:
        nx.atomic.add(new_sums, (lid, 0), sums[lid, 0])
        nx.atomic.add(new_sums, (lid, 1), sums[lid, 1])
        nx.atomic.add(counts, lid, cnt[lid])


def test_kmeans_lloyd_step(rng):
    n = 1000
    pts = rng.standard_normal((n, 2))
    cents = pts[:K].copy()
    sums, counts = nx.zeros((K, 2)), nx.zeros(K, dtype="int32")
    kmeans_step[1024, 64](nx.asarray(pts), nx.asarray(cents), sums, counts)
    d = ((pts[:, None, :] - cents[None, :, :]) ** 2).sum(-1)
    lab = d.argmin(1)
    want_counts = np.bincount(lab, minlength=K)
    want_sums = np.stack([pts[lab == c].sum(0) for c in range(K)])
    np.testing.assert_array_equal(nx.asnumpy(counts), want_counts)
    np.testing.assert_allclose(nx.asnumpy(sums), want_sums, rtol=1e-10, atol=1e-12)


TILE = 8


@nx.kernel
def matmul_tiled(a, b, c):
    row = nx.get_global_id(0)
    col = nx.get_global_id(1)
    lr = nx.get_local_id(0)
    lc = nx.get_local_id(1)
    ta = nx.local.array((8, 8), np.float32)
    tb = nx.local.array((8, 8), np.float32)
    acc = np.float32(0.0)
    for t in range(a.shape[1] // 8):
        ta[lr, lc] = a[row, t * 8 + lc]
        tb[lr, lc] = b[t * 8 + lr, col]
        nx.barrier(nx.LOCAL_MEM_FENCE)
        for k in range(8):
            acc += ta[lr, k] * tb[k, lc]
        nx.barrier(nx.LOCAL_MEM_FENCE)
    c[row, col] = acc


def test_matmul_with_local_tiles(rng):
    m, k, n = 32, 48, 40
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c = nx.empty((m, n), dtype="float32")
    matmul_tiled[nx.NdRange((m, n), (TILE, TILE))](nx.asarray(a), nx.asarray(b), c)
    np.testing.assert_allclose(nx.asnumpy(c), a @ b, rtol=1e-4, atol=1e-4)
