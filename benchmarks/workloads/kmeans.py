"""Lloyd's k-means, fixed number of iterations, first points as initial centroids (dpbench
``kmeans``). Result: the centroids and the labels of the last assignment step.

``numba_ext_kernel`` runs everything on the device with explicit ``@numba_ext.kernel`` launches: one
to copy the initial centroids, then per iteration one Lloyd step as in the other variants, in two
launches: assignment (labels; the work-group's labels in local memory, then per-group sums and counts
written to a (groups, nclusters, dims + 1) array) and update (one work-item per cluster adds the
groups' partials and divides; empty clusters keep their centroid). No atomics, so the summation order
is fixed and results are reproducible. (A version with local-memory float64 atomics merged into
global sums with atomics, as in tests/kernels/test_kernels_workloads.py, validated too but took about
twice as long at M.) ``numba_ext_kernel_item`` is the same three kernels in numba-dpex's item style
(``Item`` and ``NdItem`` arguments, the labels in a ``LocalAccessor``, ``group_barrier``, launches with
``call_kernel`` over a ``Range`` or an ``NdRange``): the same code, but a ``LocalAccessor`` argument
sends each assignment launch through the Python launch path (about 0.1 ms more per launch on the
2-core CPU device, so about 2x the OpenCL style's time at preset S, 1.2x at M).
``numba_cuda`` is the same three kernels under ``numba.cuda.jit``.

``numba_parallel`` and ``numba_ext_prange`` run the same prange source: per iteration a prange over the
points (assignment) and a prange over the clusters (update: each cluster scans all labels, so the
update does nclusters times the work of a serial pass but runs in parallel and on the device), inside
the host loop over iterations (1 + 2 * niters kernels for ``numba_ext_prange``). ``numba_ext_jit``
runs the NumPy source under ``@numba_ext.jit`` (broadcast differences, an axis sum, argmin along an
axis, ``np.bincount`` with and without weights, all on the device) with two changes: ``sums`` from
``numba_ext.empty``, and the update of the filled clusters written with ``np.where`` instead of boolean
mask indexing (``centroids[filled] = ...``), which numba_ext does not offload.
"""

import numba
import numpy as np
from harness import Variant, backend_module, eager_variant, kapi, namespace_variant, nx, with_globals

SIZES = {
    "S": {"n": 1 << 12, "dims": 2, "nclusters": 4, "niters": 20},
    "M": {"n": 1 << 16, "dims": 2, "nclusters": 4, "niters": 30},
    "L": {"n": 1 << 20, "dims": 2, "nclusters": 4, "niters": 30},
}
WG = 256  # kernel work-group size (64 and 128 were slower on the 2-core OpenCL CPU device)
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


def kmeans_array(points, nclusters, niters):
    # the NumPy source with ``sums`` from ``empty`` (numba_ext_jit binds it to numba_ext.empty) and
    # the masked update as np.where
    dims = points.shape[1]
    centroids = points[:nclusters].copy()
    sums = empty((nclusters, dims))
    for _ in range(niters):
        diff = points[:, None, :] - centroids[None, :, :]
        labels = np.sum(diff * diff, axis=2).argmin(axis=1)
        counts = np.bincount(labels, minlength=nclusters)
        for k in range(dims):
            sums[:, k] = np.bincount(labels, weights=points[:, k], minlength=nclusters)
        filled = counts > 0
        centroids = np.where(filled[:, None], sums / np.maximum(counts, 1)[:, None], centroids)
    return centroids, labels


empty = np.empty  # numba_ext_prange binds ``empty`` to numba_ext.empty


def _kmeans_prange(points, nclusters, niters):
    n, dims = points.shape
    centroids = empty((nclusters, dims))
    labels = empty(n, np.int64)
    for c in numba.prange(nclusters):
        for k in range(dims):
            centroids[c, k] = points[c, k]
    for _ in range(niters):
        for i in numba.prange(n):  # assignment
            best = 0
            best_d = INF
            for c in range(nclusters):
                d = 0.0
                for k in range(dims):
                    t = points[i, k] - centroids[c, k]
                    d += t * t
                if d < best_d:
                    best = c
                    best_d = d
            labels[i] = best
        for c in numba.prange(nclusters):  # update: each cluster scans the labels in order
            cnt = 0
            for i in range(n):
                if labels[i] == c:
                    cnt += 1
            if cnt > 0:
                for k in range(dims):
                    s = 0.0
                    for i in range(n):
                        if labels[i] == c:
                            s += points[i, k]
                    centroids[c, k] = s / cnt
    return centroids, labels


kmeans_prange = numba.njit(parallel=True)(_kmeans_prange)


@nx.kernel
def _km_init(points, centroids):
    c = nx.get_global_id(0)
    for k in range(points.shape[1]):
        centroids[c, k] = points[c, k]


@nx.kernel
def _km_assign(points, centroids, labels, partial):
    # assignment, then per work-group sums: partial[group, c, k] (k < dims) and counts (k == dims)
    gid = nx.get_global_id(0)
    lid = nx.get_local_id(0)
    nclusters = centroids.shape[0]
    dims = points.shape[1]
    lab = nx.local.array(WG, np.int64)
    best = -1
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
    lab[lid] = best
    nx.barrier(nx.LOCAL_MEM_FENCE)
    if lid < nclusters * (dims + 1):  # one work-item per (cluster, component): the group's points in order
        c = lid // (dims + 1)
        k = lid % (dims + 1)
        first = gid - lid
        s = 0.0
        for m in range(WG):
            if lab[m] == c:
                if k == dims:
                    s += 1.0
                else:
                    s += points[first + m, k]
        partial[nx.get_group_id(0), c, k] = s


@nx.kernel
def _km_update(centroids, partial):
    # one work-item per cluster sums the groups' partials in group order; empty clusters keep their centroid
    c = nx.get_global_id(0)
    dims = centroids.shape[1]
    cnt = 0.0
    for g in range(partial.shape[0]):
        cnt += partial[g, c, dims]
    if cnt > 0.0:
        for k in range(dims):
            s = 0.0
            for g in range(partial.shape[0]):
                s += partial[g, c, k]
            centroids[c, k] = s / cnt


def _kernel_arrays(points, nclusters):
    """The number of work-groups and the arrays of the kernel variants: centroids, per-group
    partial sums and counts, labels."""
    n, dims = points.shape
    if nclusters * (dims + 1) > WG:
        raise ValueError(f"kmeans kernel: nclusters * (dims + 1) = {nclusters * (dims + 1)} > WG = {WG}")
    q = points.sycl_queue
    groups = (n + WG - 1) // WG
    centroids = nx.empty((nclusters, dims), dtype=points.dtype, sycl_queue=q)
    partial = nx.empty((groups, nclusters, dims + 1), dtype=points.dtype, sycl_queue=q)
    return groups, centroids, partial, nx.empty(n, dtype="int64", sycl_queue=q)


def kmeans_kernel(points, nclusters, niters):
    groups, centroids, partial, labels = _kernel_arrays(points, nclusters)
    _km_init[nclusters](points, centroids)
    for _ in range(niters):
        _km_assign[groups * WG, WG](points, centroids, labels, partial)
        _km_update[nclusters](centroids, partial)
    return centroids, labels


@nx.kernel
def _km_init_item(item: kapi.Item, points, centroids):
    c = item.get_id(0)
    for k in range(points.shape[1]):
        centroids[c, k] = points[c, k]


@nx.kernel
def _km_assign_item(it: kapi.NdItem, points, centroids, labels, partial, lab):
    # _km_assign with the work-group's labels in `lab`, a LocalAccessor of WG int64
    gid = it.get_global_id(0)
    lid = it.get_local_id(0)
    nclusters = centroids.shape[0]
    dims = points.shape[1]
    best = -1
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
    lab[lid] = best
    kapi.group_barrier(it.get_group())
    if lid < nclusters * (dims + 1):
        c = lid // (dims + 1)
        k = lid % (dims + 1)
        first = gid - lid
        s = 0.0
        for m in range(WG):
            if lab[m] == c:
                if k == dims:
                    s += 1.0
                else:
                    s += points[first + m, k]
        partial[it.get_group().get_group_id(0), c, k] = s


@nx.kernel
def _km_update_item(item: kapi.Item, centroids, partial):
    c = item.get_id(0)
    dims = centroids.shape[1]
    cnt = 0.0
    for g in range(partial.shape[0]):
        cnt += partial[g, c, dims]
    if cnt > 0.0:
        for k in range(dims):
            s = 0.0
            for g in range(partial.shape[0]):
                s += partial[g, c, k]
            centroids[c, k] = s / cnt


def kmeans_kernel_item(points, nclusters, niters):
    groups, centroids, partial, labels = _kernel_arrays(points, nclusters)
    lab, nd = kapi.LocalAccessor(WG, np.int64), kapi.NdRange(groups * WG, WG)
    nx.call_kernel(_km_init_item, kapi.Range(nclusters), points, centroids)
    for _ in range(niters):
        nx.call_kernel(_km_assign_item, nd, points, centroids, labels, partial, lab)
        nx.call_kernel(_km_update_item, kapi.Range(nclusters), centroids, partial)
    return centroids, labels


def make_cuda(*args):
    """The numba_ext_kernel algorithm under ``numba.cuda.jit``: three kernels, the same launches."""
    cuda = backend_module("numba_cuda")
    init, assign, update = _cuda_init(cuda), _cuda_assign(cuda), _cuda_update(cuda)

    def run(points, nclusters, niters):
        n, dims = points.shape
        if nclusters * (dims + 1) > WG:
            raise ValueError(f"kmeans kernel: nclusters * (dims + 1) = {nclusters * (dims + 1)} > WG = {WG}")
        groups = (n + WG - 1) // WG
        centroids = cuda.device_array((nclusters, dims))
        partial = cuda.device_array((groups, nclusters, dims + 1))
        labels = cuda.device_array(n, np.int64)
        init[1, nclusters](points, centroids)
        for _ in range(niters):
            assign[groups, WG](points, centroids, labels, partial)
            update[1, nclusters](centroids, partial)
        return centroids, labels

    return run


def _cuda_init(cuda):
    @cuda.jit
    def init(points, centroids):
        c = cuda.grid(1)
        if c < centroids.shape[0]:
            for k in range(points.shape[1]):
                centroids[c, k] = points[c, k]

    return init


def _cuda_assign(cuda):
    @cuda.jit
    def assign(points, centroids, labels, partial):
        gid = cuda.grid(1)
        lid = cuda.threadIdx.x
        nclusters = centroids.shape[0]
        dims = points.shape[1]
        lab = cuda.shared.array(WG, numba.int64)
        best = -1
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
        lab[lid] = best
        cuda.syncthreads()
        if lid < nclusters * (dims + 1):
            c = lid // (dims + 1)
            k = lid % (dims + 1)
            first = gid - lid
            s = 0.0
            for m in range(WG):
                if lab[m] == c:
                    if k == dims:
                        s += 1.0
                    else:
                        s += points[first + m, k]
            partial[cuda.blockIdx.x, c, k] = s

    return assign


def _cuda_update(cuda):
    @cuda.jit
    def update(centroids, partial):
        c = cuda.grid(1)
        if c >= centroids.shape[0]:
            return
        dims = centroids.shape[1]
        cnt = 0.0
        for g in range(partial.shape[0]):
            cnt += partial[g, c, dims]
        if cnt > 0.0:
            for k in range(dims):
                s = 0.0
                for g in range(partial.shape[0]):
                    s += partial[g, c, k]
                centroids[c, k] = s / cnt

    return update


VARIANTS = [
    Variant("numpy", kmeans),
    eager_variant(
        with_globals(kmeans_array, empty=nx.empty),
        note="numba_ext_jit's source (sums from numba_ext.empty, the masked update as np.where), no jit",
    ),
    Variant("numba_parallel", kmeans_prange),
    Variant(
        "numba_ext_jit",
        nx.jit(with_globals(kmeans_array, empty=nx.empty)),
        backend="numba_ext",
        note="the NumPy source, sums from numba_ext.empty, the masked update as np.where",
    ),
    Variant(
        "numba_ext_prange",
        nx.jit(with_globals(_kmeans_prange, empty=nx.empty)),
        backend="numba_ext",
        note="1 + 2 * niters kernels (init; per iteration: assignment, update over clusters)",
    ),
    Variant(
        "numba_ext_kernel",
        kmeans_kernel,
        backend="numba_ext",
        note="1 + 2 * niters launches (init; per iteration: assignment with per-group partial sums, update)",
    ),
    Variant(
        "numba_ext_kernel_item",
        kmeans_kernel_item,
        backend="numba_ext",
        note="the numba_ext_kernel algorithm in item style: a LocalAccessor, call_kernel over Range/NdRange",
    ),
    namespace_variant("dpnp", kmeans, "dpnp"),
    namespace_variant("cupy", kmeans, "cupy"),
    Variant(
        "numba_cuda",
        backend="numba_cuda",
        make=make_cuda,
        note="the numba_ext_kernel algorithm, 1 + 2 * niters launches",
    ),
]
