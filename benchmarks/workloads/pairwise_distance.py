"""Euclidean distances between two point sets, D[i, j] = |X1[i] - X2[j]| (dpbench
``pairwise_distance``). NumPy uses dpbench's form |x|^2 - 2 x.y + |y|^2 through a matrix product.

``numba_ext_jit`` runs the array-expression form without a matrix product:
``np.sqrt(np.sum(diff * diff, axis=2))`` with ``diff = x1[:, None, :] - x2[None, :, :]`` (broadcasting
and an axis reduction on the device, 2 kernels per call). ``numba_ext_jit_matmul`` runs the NumPy
source without ``out=`` (as dpnp does) under ``@numba_ext.jit``: the matrix product, the axis sums and
the in-place additions that broadcast all on the device. ``numba_ext_prange``
is the prange loop of ``numba_parallel`` under ``@numba_ext.jit`` (result from ``numba_ext.empty``).
``numba_ext_kernel`` is an explicit ``@numba_ext.kernel`` over a 2-D range (one work-item per output
element, the prange loop's body; range dimension 0, the fastest-varying, runs along rows of the
result), writing into a result allocated per call; ``numba_ext_kernel_item`` is that kernel in
numba-dpex's item style (an ``Item`` argument, ``call_kernel`` over the same 2-D ``Range``: in
numba_ext dimension 0 varies fastest in both styles). ``dpnp`` and ``cupy`` run
the NumPy source (matmul form; dpnp without the ``out=`` arguments). ``cupy_fused`` is a
``cupy.ElementwiseKernel`` with one thread per output element (the kernel body: a loop over ``dims``,
no matmul), writing into a result allocated per call."""

import math

import numba
import numpy as np
from harness import Variant, backend_module, eager_variant, kapi, namespace_variant, nx, with_globals

SIZES = {"S": {"n": 512, "dims": 3}, "M": {"n": 2048, "dims": 3}, "L": {"n": 4096, "dims": 3}}


def BYTES(n, dims):
    return 8 * (n * n + 2 * n * dims)  # the result dominates


def make_inputs(rng, n, dims):
    return rng.random((n, dims)), rng.random((n, dims))


def pairwise_distance(x1, x2):
    d = -2.0 * (x1 @ x2.T)
    d += np.sum(np.square(x1), axis=1)[:, None]
    d += np.sum(np.square(x2), axis=1)[None, :]
    return np.sqrt(np.maximum(d, 0.0, out=d), out=d)


reference = pairwise_distance


def pairwise_distance_no_out(x1, x2):
    # the NumPy source without out= (dpnp 0.20 raises "binary function does not have a dedicated
    # in-place implementation" for np.maximum(d, 0.0, out=d))
    d = -2.0 * (x1 @ x2.T)
    d += np.sum(np.square(x1), axis=1)[:, None]
    d += np.sum(np.square(x2), axis=1)[None, :]
    return np.sqrt(np.maximum(d, 0.0))


def pairwise_distance_bcast(x1, x2):
    # the array form without a matrix product: broadcast differences, sum over the last axis
    diff = x1[:, None, :] - x2[None, :, :]
    return np.sqrt(np.sum(diff * diff, axis=2))


empty = np.empty  # numba_ext_prange binds ``empty`` to numba_ext.empty


def _pairwise_distance_prange(x1, x2):
    n1, dims = x1.shape
    n2 = x2.shape[0]
    d = empty((n1, n2))
    for i in numba.prange(n1):
        for j in range(n2):
            s = 0.0
            for k in range(dims):
                t = x1[i, k] - x2[j, k]
                s += t * t
            d[i, j] = math.sqrt(s)
    return d


pairwise_distance_prange = numba.njit(parallel=True)(_pairwise_distance_prange)


@nx.kernel
def _pairwise_distance_kernel(x1, x2, d):
    # dimension 0 varies fastest between neighbouring work-items: give it the contiguous axis of d,
    # so that a work-group's stores are adjacent (coalesced on GPUs)
    j = nx.get_global_id(0)
    i = nx.get_global_id(1)
    s = 0.0
    for k in range(x1.shape[1]):
        t = x1[i, k] - x2[j, k]
        s += t * t
    d[i, j] = math.sqrt(s)


def pairwise_distance_kernel(x1, x2):
    n1, n2 = x1.shape[0], x2.shape[0]
    d = nx.empty((n1, n2), dtype=x1.dtype, sycl_queue=x1.sycl_queue)
    _pairwise_distance_kernel[nx.Range(n2, n1)](x1, x2, d)
    return d


@nx.kernel
def _pairwise_distance_item(item: kapi.Item, x1, x2, d):
    # as above: dimension 0 (the fastest-varying) runs along the contiguous axis of d
    j = item.get_id(0)
    i = item.get_id(1)
    s = 0.0
    for k in range(x1.shape[1]):
        t = x1[i, k] - x2[j, k]
        s += t * t
    d[i, j] = math.sqrt(s)


def pairwise_distance_kernel_item(x1, x2):
    n1, n2 = x1.shape[0], x2.shape[0]
    d = nx.empty((n1, n2), dtype=x1.dtype, sycl_queue=x1.sycl_queue)
    nx.call_kernel(_pairwise_distance_item, kapi.Range(n2, n1), x1, x2, d)
    return d


def make_cuda(*args):
    cuda = backend_module("numba_cuda")

    @cuda.jit
    def kern(x1, x2, d):
        i, j = cuda.grid(2)
        if i < d.shape[0] and j < d.shape[1]:
            s = 0.0
            for k in range(x1.shape[1]):
                t = x1[i, k] - x2[j, k]
                s += t * t
            d[i, j] = math.sqrt(s)

    def run(x1, x2):
        n1, n2 = x1.shape[0], x2.shape[0]
        d = cuda.device_array((n1, n2))
        kern[((n1 + 15) // 16, (n2 + 15) // 16), (16, 16)](x1, x2, d)
        return d

    return run


_CUPY_BODY = """
const ptrdiff_t r = i / n2;
const ptrdiff_t c = i % n2;
double s = 0.0;
for (ptrdiff_t k = 0; k < dims; ++k) {
    const double t = x1[r * dims + k] - x2[c * dims + k];
    s += t * t;
}
d = sqrt(s);
"""


def make_cupy_fused(*args):
    cp = backend_module("cupy")
    # raw inputs (indexed by hand), one thread per element of the output
    kern = cp.ElementwiseKernel(
        "raw float64 x1, raw float64 x2, int64 n2, int64 dims",
        "float64 d",
        _CUPY_BODY,
        "numba_ext_bench_pairwise_distance",
    )

    def run(x1, x2):
        n1, dims = x1.shape
        n2 = x2.shape[0]
        d = cp.empty((n1, n2), dtype=cp.float64)
        kern(cp.ascontiguousarray(x1).ravel(), cp.ascontiguousarray(x2).ravel(), n2, dims, d)
        return d

    return run


VARIANTS = [
    Variant("numpy", pairwise_distance),
    eager_variant(pairwise_distance),
    Variant("numba_parallel", pairwise_distance_prange),
    Variant(
        "numba_ext_jit",
        nx.jit(pairwise_distance_bcast),
        backend="numba_ext",
        note="array form without matmul: sqrt(sum((x1[:, None, :] - x2[None, :, :])**2, axis=2))",
    ),
    Variant(
        "numba_ext_jit_matmul",
        nx.jit(pairwise_distance_no_out),
        backend="numba_ext",
        note="the NumPy source without out= (matmul, axis sums, in-place broadcasting) on the device",
    ),
    Variant(
        "numba_ext_prange",
        nx.jit(with_globals(_pairwise_distance_prange, empty=nx.empty)),
        backend="numba_ext",
    ),
    Variant("numba_ext_kernel", pairwise_distance_kernel, backend="numba_ext"),
    Variant(
        "numba_ext_kernel_item",
        pairwise_distance_kernel_item,
        backend="numba_ext",
        note="the numba_ext_kernel body in item style: call_kernel over the same 2-D Range",
    ),
    namespace_variant(
        "dpnp",
        pairwise_distance_no_out,
        "dpnp",
        note="the NumPy source with np = dpnp, np.maximum and np.sqrt without out=",
    ),
    namespace_variant("cupy", pairwise_distance, "cupy"),
    Variant(
        "cupy_fused",
        backend="cupy",
        make=make_cupy_fused,
        note="cupy.ElementwiseKernel, one thread per output element (the kernel body, no matmul)",
    ),
    Variant("numba_cuda", backend="numba_cuda", make=make_cuda, note="2-D grid, 16x16 threads per block"),
]
