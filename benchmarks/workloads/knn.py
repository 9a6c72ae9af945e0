"""k-nearest-neighbours classification, majority vote of the k nearest training points (Euclidean),
ties to the smallest class (dpbench ``knn``).

``numba_ext_kernel`` is an explicit ``@numba_ext.kernel``, one work-item per test point, with the
prange loop's algorithm: the k best distances and labels in private arrays (insertion), then a private
vote count. Private arrays have a compile-time size, so k <= MAXK and classes <= MAXCLASSES."""

import numba
import numpy as np

import numba_ext as nx
from harness import Variant

SIZES = {"S": {"n_train": 1024, "n_test": 256, "dims": 16, "k": 5, "classes": 3},
         "M": {"n_train": 4096, "n_test": 2048, "dims": 16, "k": 5, "classes": 3},
         "L": {"n_train": 16384, "n_test": 4096, "dims": 16, "k": 5, "classes": 3}}
CHUNK_ELEMS = 1 << 22  # elements of the (tests, train, dims) difference block in NumPy
MAXK, MAXCLASSES = 16, 16  # capacity of the kernel's private arrays
INF = np.inf  # a module global: see kmeans.py for why not `np.inf` inside the kernel


def make_inputs(rng, n_train, n_test, dims, k, classes):
    x_train, y_train = rng.random((n_train, dims)), rng.integers(0, classes, n_train)
    return x_train, y_train, rng.random((n_test, dims)), k, classes


def knn(x_train, y_train, x_test, k, classes):
    out = np.empty(x_test.shape[0], np.int64)
    step = max(1, CHUNK_ELEMS // x_train.size)
    for s in range(0, x_test.shape[0], step):
        diff = x_test[s:s + step, None, :] - x_train[None, :, :]
        near = np.argpartition(np.sum(diff * diff, axis=2), k - 1, axis=1)[:, :k]
        votes = np.zeros((near.shape[0], classes), np.int64)
        np.add.at(votes, (np.arange(near.shape[0])[:, None], y_train[near]), 1)
        out[s:s + step] = votes.argmax(axis=1)
    return out


reference = knn


@numba.njit(parallel=True)
def knn_prange(x_train, y_train, x_test, k, classes):
    n_train, dims = x_train.shape
    out = np.empty(x_test.shape[0], np.int64)
    for i in numba.prange(x_test.shape[0]):
        best_d = np.full(k, np.inf)
        best_l = np.zeros(k, np.int64)
        for j in range(n_train):
            d = 0.0
            for m in range(dims):
                t = x_test[i, m] - x_train[j, m]
                d += t * t
            if d < best_d[k - 1]:  # insertion into the sorted k best
                p = k - 1
                while p > 0 and best_d[p - 1] > d:
                    best_d[p], best_l[p] = best_d[p - 1], best_l[p - 1]
                    p -= 1
                best_d[p], best_l[p] = d, y_train[j]
        votes = np.zeros(classes, np.int64)
        for p in range(k):
            votes[best_l[p]] += 1
        out[i] = np.argmax(votes)
    return out


@nx.kernel
def _knn_kernel(x_train, y_train, x_test, k, classes, out):
    i = nx.get_global_id(0)
    best_d = nx.private.array(MAXK, np.float64)
    best_l = nx.private.array(MAXK, np.int64)
    votes = nx.private.array(MAXCLASSES, np.int64)
    for p in range(k):
        best_d[p] = INF
        best_l[p] = 0
    for j in range(x_train.shape[0]):
        d = 0.0
        for m in range(x_train.shape[1]):
            t = x_test[i, m] - x_train[j, m]
            d += t * t
        if d < best_d[k - 1]:  # insertion into the sorted k best
            p = k - 1
            while p > 0 and best_d[p - 1] > d:
                best_d[p] = best_d[p - 1]
                best_l[p] = best_l[p - 1]
                p -= 1
            best_d[p] = d
            best_l[p] = y_train[j]
    for c in range(classes):
        votes[c] = 0
    for p in range(k):
        votes[best_l[p]] += 1
    best = 0
    for c in range(1, classes):
        if votes[c] > votes[best]:
            best = c
    out[i] = best


def knn_kernel(x_train, y_train, x_test, k, classes):
    if k > MAXK or classes > MAXCLASSES:
        raise ValueError(f"knn kernel: k {k} > {MAXK} or classes {classes} > {MAXCLASSES}")
    n = x_test.shape[0]
    out = nx.empty(n, dtype="int64", sycl_queue=x_test.sycl_queue)
    _knn_kernel[n](x_train, y_train, x_test, k, classes, out)
    return out


VARIANTS = [
    Variant("numpy", knn),
    Variant("numba_parallel", knn_prange),
    Variant.unavailable("numba_ext_jit", "argpartition/add.at in @jit"),
    Variant("numba_ext_kernel", knn_kernel, device=True),
]
