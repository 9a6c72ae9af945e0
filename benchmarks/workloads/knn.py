"""k-nearest-neighbours classification, majority vote of the k nearest training points (Euclidean),
ties to the smallest class (dpbench ``knn``).

``numba_parallel`` and ``numba_ext_prange`` run the same prange source, one iteration per test point:
the k best distances and labels (insertion) and the votes live in rows of (n_test, k) and
(n_test, classes) scratch arrays allocated with the result (a prange body cannot allocate device
memory of its own). ``numba_ext_jit`` stays n/a (argpartition and ``np.add.at`` in the NumPy source).

``numba_ext_kernel`` is an explicit ``@numba_ext.kernel``, one work-item per test point, with the same
algorithm in private arrays (compile-time size, so k <= MAXK and classes <= MAXCLASSES);
``numba_ext_kernel_item`` is that kernel in numba-dpex's item style (an ``Item`` argument,
``PrivateArray`` memory, ``call_kernel`` over a ``Range``); ``numba_cuda`` is that kernel under
``numba.cuda.jit`` (``cuda.local.array``)."""

import numba
import numpy as np
from harness import Variant, backend_module, eager_variant, kapi, namespace_variant, nx, with_globals

SIZES = {
    "S": {"n_train": 1024, "n_test": 256, "dims": 16, "k": 5, "classes": 3},
    "M": {"n_train": 4096, "n_test": 2048, "dims": 16, "k": 5, "classes": 3},
    "L": {"n_train": 16384, "n_test": 4096, "dims": 16, "k": 5, "classes": 3},
}
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
        diff = x_test[s : s + step, None, :] - x_train[None, :, :]
        near = np.argpartition(np.sum(diff * diff, axis=2), k - 1, axis=1)[:, :k]
        votes = np.zeros((near.shape[0], classes), np.int64)
        np.add.at(votes, (np.arange(near.shape[0])[:, None], y_train[near]), 1)
        out[s : s + step] = votes.argmax(axis=1)
    return out


reference = knn


def knn_array(x_train, y_train, x_test, k, classes):
    # the NumPy source with its three allocations from ``empty``, ``zeros`` and ``arange``
    # (numba_ext_eager binds them to numba_ext's)
    out = empty(x_test.shape[0], np.int64)
    step = max(1, CHUNK_ELEMS // x_train.size)
    for s in range(0, x_test.shape[0], step):
        diff = x_test[s : s + step, None, :] - x_train[None, :, :]
        near = np.argpartition(np.sum(diff * diff, axis=2), k - 1, axis=1)[:, :k]
        votes = zeros((near.shape[0], classes), np.int64)
        np.add.at(votes, (arange(near.shape[0])[:, None], y_train[near]), 1)
        out[s : s + step] = votes.argmax(axis=1)
    return out


zeros, arange = np.zeros, np.arange


empty = np.empty  # numba_ext_prange binds ``empty`` to numba_ext.empty


def _knn_prange(x_train, y_train, x_test, k, classes):
    n_train, dims = x_train.shape
    n_test = x_test.shape[0]
    out = empty(n_test, np.int64)
    best_d = empty((n_test, k))  # scratch rows, one per test point
    best_l = empty((n_test, k), np.int64)
    votes = empty((n_test, classes), np.int64)
    for i in numba.prange(n_test):
        for p in range(k):
            best_d[i, p] = INF
            best_l[i, p] = 0
        for j in range(n_train):
            d = 0.0
            for m in range(dims):
                t = x_test[i, m] - x_train[j, m]
                d += t * t
            if d < best_d[i, k - 1]:  # insertion into the sorted k best
                p = k - 1
                while p > 0 and best_d[i, p - 1] > d:
                    best_d[i, p] = best_d[i, p - 1]
                    best_l[i, p] = best_l[i, p - 1]
                    p -= 1
                best_d[i, p] = d
                best_l[i, p] = y_train[j]
        for c in range(classes):
            votes[i, c] = 0
        for p in range(k):
            votes[i, best_l[i, p]] += 1
        best = 0
        for c in range(1, classes):
            if votes[i, c] > votes[i, best]:
                best = c
        out[i] = best
    return out


knn_prange = numba.njit(parallel=True)(_knn_prange)


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


@nx.kernel
def _knn_item(item: kapi.Item, x_train, y_train, x_test, k, classes, out):
    i = item.get_id(0)
    best_d = kapi.PrivateArray(MAXK, np.float64)
    best_l = kapi.PrivateArray(MAXK, np.int64)
    votes = kapi.PrivateArray(MAXCLASSES, np.int64)
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


def knn_kernel_item(x_train, y_train, x_test, k, classes):
    if k > MAXK or classes > MAXCLASSES:
        raise ValueError(f"knn kernel: k {k} > {MAXK} or classes {classes} > {MAXCLASSES}")
    n = x_test.shape[0]
    out = nx.empty(n, dtype="int64", sycl_queue=x_test.sycl_queue)
    nx.call_kernel(_knn_item, kapi.Range(n), x_train, y_train, x_test, k, classes, out)
    return out


def make_cuda(*args):
    cuda = backend_module("numba_cuda")

    @cuda.jit
    def kern(x_train, y_train, x_test, k, classes, out):
        i = cuda.grid(1)
        if i >= x_test.shape[0]:
            return
        best_d = cuda.local.array(MAXK, numba.float64)
        best_l = cuda.local.array(MAXK, numba.int64)
        votes = cuda.local.array(MAXCLASSES, numba.int64)
        for p in range(k):
            best_d[p] = INF
            best_l[p] = 0
        for j in range(x_train.shape[0]):
            d = 0.0
            for m in range(x_train.shape[1]):
                t = x_test[i, m] - x_train[j, m]
                d += t * t
            if d < best_d[k - 1]:
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

    def run(x_train, y_train, x_test, k, classes):
        if k > MAXK or classes > MAXCLASSES:
            raise ValueError(f"knn kernel: k {k} > {MAXK} or classes {classes} > {MAXCLASSES}")
        n = x_test.shape[0]
        out = cuda.device_array(n, np.int64)
        kern[(n + 127) // 128, 128](x_train, y_train, x_test, k, classes, out)
        return out

    return run


VARIANTS = [
    Variant("numpy", knn),
    eager_variant(
        with_globals(knn_array, empty=nx.empty, zeros=nx.zeros, arange=nx.arange),
        note="the NumPy source with its allocations from numba_ext; argpartition (a stable device sort) "
        "and np.add.at (a weighted bincount) on the device",
    ),
    Variant("numba_parallel", knn_prange),
    Variant.unavailable("numba_ext_jit", "argpartition and np.add.at in @numba_ext.jit", backend="numba_ext"),
    Variant("numba_ext_prange", nx.jit(with_globals(_knn_prange, empty=nx.empty)), backend="numba_ext"),
    Variant("numba_ext_kernel", knn_kernel, backend="numba_ext"),
    Variant(
        "numba_ext_kernel_item",
        knn_kernel_item,
        backend="numba_ext",
        note="the numba_ext_kernel algorithm in item style: PrivateArray memory, call_kernel over a Range",
    ),
    Variant.unavailable("dpnp", "argpartition and add.at, which dpnp 0.20 lacks", backend="dpnp"),
    namespace_variant("cupy", knn, "cupy"),
    Variant(
        "numba_cuda",
        backend="numba_cuda",
        make=make_cuda,
        note="the numba_ext_kernel algorithm, 128 threads per block",
    ),
]
