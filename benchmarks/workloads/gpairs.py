"""Weighted pair counts (dpbench ``gpairs``): for every squared radius r2[k], the sum of w1[i] * w2[j]
over pairs of points (one from each set) with squared distance <= r2[k]. O(n^2) pairs.

``numba_ext_kernel`` is an explicit ``@numba_ext.kernel``, all on the device in one launch: one
work-item per point of the first set keeps a private histogram (the prange loop's linear bin search),
turns it into cumulative counts, the work-group sums those in local memory, and one work-item per bin
adds the group's sum into the result with a float64 atomic (one atomic per group and bin)."""

import numba
import numpy as np

import numba_ext as nx
from harness import Variant

SIZES = {"S": {"n": 1024, "nbins": 20}, "M": {"n": 4096, "nbins": 20}, "L": {"n": 16384, "nbins": 20}}
CHUNK_PAIRS = 1 << 21  # pairs per NumPy block (bounds the temporaries)
WG = 64  # kernel work-group size
MAXBINS = 32  # capacity of the kernel's private and local histograms (nbins + 1 <= MAXBINS)


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


@nx.kernel
def _gpairs_kernel(x1, y1, z1, w1, x2, y2, z2, w2, rbins_sq, hist):
    i = nx.get_global_id(0)
    lid = nx.get_local_id(0)
    nbins = rbins_sq.shape[0]
    part = nx.local.array((WG, MAXBINS), np.float64)
    h = nx.private.array(MAXBINS, np.float64)
    for b in range(nbins + 1):
        h[b] = 0.0
    if i < x1.shape[0]:
        px = x1[i]
        py = y1[i]
        pz = z1[i]
        pw = w1[i]
        for j in range(x2.shape[0]):
            dx = px - x2[j]
            dy = py - y2[j]
            dz = pz - z2[j]
            dsq = dx * dx + dy * dy + dz * dz
            k = 0
            while k < nbins and rbins_sq[k] < dsq:
                k += 1
            h[k] += pw * w2[j]
    acc = 0.0
    for b in range(nbins):  # cumulative: pairs with dsq <= rbins_sq[b]
        acc += h[b]
        part[lid, b] = acc
    nx.barrier(nx.LOCAL_MEM_FENCE)
    if lid < nbins:
        t = 0.0
        for m in range(WG):
            t += part[m, lid]
        nx.atomic.add(hist, lid, t)


def gpairs_kernel(x1, y1, z1, w1, x2, y2, z2, w2, rbins_sq):
    nbins = rbins_sq.shape[0]
    if nbins + 1 > MAXBINS or nbins > WG:
        raise ValueError(f"gpairs kernel: nbins {nbins} exceeds MAXBINS - 1 = {MAXBINS - 1} or WG = {WG}")
    hist = nx.zeros(nbins, dtype=x1.dtype, sycl_queue=x1.sycl_queue)
    groups = (x1.shape[0] + WG - 1) // WG
    _gpairs_kernel[groups * WG, WG](x1, y1, z1, w1, x2, y2, z2, w2, rbins_sq, hist)
    return hist


VARIANTS = [
    Variant("numpy", gpairs),
    Variant("numba_parallel", gpairs_prange),
    Variant.unavailable("numba_ext_jit", "broadcasting, searchsorted/bincount in @jit"),
    Variant("numba_ext_kernel", gpairs_kernel, device=True),
]
