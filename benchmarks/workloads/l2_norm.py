"""Row-wise L2 norm of an (n, dims) array, d = sqrt(sum(a * a, axis=1)) (dpbench ``l2_norm``).

``numba_ext_jit`` is the NumPy source under ``@numba_ext.jit``, served from its source without Numba:
three kernels (the square, the sum along axis 1, the square root), those of its Numba-compiled form.
Before commit 0028265, ``np.sum(..., axis=1)`` ran as host code on the USM memory and returned a
``numpy.ndarray``. ``numba_ext_jit_hybrid``, the older explicit stop-gap,
squares on the device (one kernel) and finishes on the host: the timed region includes copying the
squares back and NumPy's row sums and sqrt. ``numba_ext_prange`` is the prange loop of
``numba_parallel`` under ``@numba_ext.jit`` (result from ``numba_ext.empty``), all on the device.

``numba_ext_kernel`` is an explicit ``@numba_ext.kernel``, all on the device: one work-item per row
sums its ``dims`` squares in a loop and writes the square root (the reduction is along a row, so no
cross-work-item reduction is needed). ``numba_ext_kernel_item`` is that kernel in numba-dpex's item
style (an ``Item`` argument, ``call_kernel`` over a ``Range``).

``cupy_fused`` is one ``cupy.ReductionKernel`` (square, sum along axis 1, square root in one kernel);
the plain ``cupy`` variant runs the NumPy source (a square, a sum and a sqrt kernel).
"""

import math

import numba
import numpy as np
from harness import Variant, backend_module, eager_variant, kapi, namespace_variant, nx, with_globals

from workloads.expressions import l2_norm

SIZES = {"S": {"n": 1 << 16, "dims": 3}, "M": {"n": 1 << 20, "dims": 3}, "L": {"n": 1 << 23, "dims": 3}}


def BYTES(n, dims):
    return 8 * n * (dims + 1)


def make_inputs(rng, n, dims):
    return (rng.random((n, dims)),)


reference = l2_norm


empty = np.empty  # numba_ext_prange binds ``empty`` to numba_ext.empty


def _l2_norm_prange(a):
    n, dims = a.shape
    d = empty(n)
    for i in numba.prange(n):
        s = 0.0
        for k in range(dims):
            s += a[i, k] * a[i, k]
        d[i] = math.sqrt(s)
    return d


l2_norm_prange = numba.njit(parallel=True)(_l2_norm_prange)


@nx.jit
def _square(a):
    return a * a


def l2_norm_hybrid(a):
    return np.sqrt(nx.asnumpy(_square(a)).sum(axis=1))


@nx.kernel
def _l2_norm_kernel(a, d):
    i = nx.get_global_id(0)
    s = 0.0
    for k in range(a.shape[1]):
        s += a[i, k] * a[i, k]
    d[i] = math.sqrt(s)


def l2_norm_kernel(a):
    d = nx.empty(a.shape[0], dtype=a.dtype, sycl_queue=a.sycl_queue)
    _l2_norm_kernel[a.shape[0]](a, d)
    return d


@nx.kernel
def _l2_norm_item(item: kapi.Item, a, d):
    i = item.get_id(0)
    s = 0.0
    for k in range(a.shape[1]):
        s += a[i, k] * a[i, k]
    d[i] = math.sqrt(s)


def l2_norm_kernel_item(a):
    d = nx.empty(a.shape[0], dtype=a.dtype, sycl_queue=a.sycl_queue)
    nx.call_kernel(_l2_norm_item, kapi.Range(a.shape[0]), a, d)
    return d


def make_cuda(*args):
    cuda = backend_module("numba_cuda")

    @cuda.jit
    def kern(a, d):
        i = cuda.grid(1)
        if i < a.shape[0]:
            s = 0.0
            for k in range(a.shape[1]):
                s += a[i, k] * a[i, k]
            d[i] = math.sqrt(s)

    def run(a):
        d = cuda.device_array(a.shape[0])
        kern[(a.shape[0] + 255) // 256, 256](a, d)
        return d

    return run


def make_cupy_fused(*args):
    cp = backend_module("cupy")
    kern = cp.ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "numba_ext_bench_l2_norm")

    def run(a):
        return kern(a, axis=1)

    return run


VARIANTS = [
    Variant("numpy", l2_norm),
    eager_variant(l2_norm),
    Variant("numba_parallel", l2_norm_prange),
    Variant("numba_ext_jit", nx.jit(l2_norm), backend="numba_ext"),
    Variant("numba_ext_prange", nx.jit(with_globals(_l2_norm_prange, empty=nx.empty)), backend="numba_ext"),
    Variant(
        "numba_ext_jit_hybrid",
        l2_norm_hybrid,
        backend="numba_ext",
        host_result=True,
        note="device a*a, then copy back and host row sums + sqrt (all timed)",
    ),
    Variant("numba_ext_kernel", l2_norm_kernel, backend="numba_ext"),
    Variant(
        "numba_ext_kernel_item",
        l2_norm_kernel_item,
        backend="numba_ext",
        note="the numba_ext_kernel body in item style: call_kernel over a Range",
    ),
    namespace_variant("dpnp", l2_norm, "dpnp"),
    namespace_variant("cupy", l2_norm, "cupy"),
    Variant(
        "cupy_fused",
        backend="cupy",
        make=make_cupy_fused,
        note="one cupy.ReductionKernel: x * x, summed along axis 1, sqrt",
    ),
    Variant(
        "numba_cuda", backend="numba_cuda", make=make_cuda, note="one thread per row, 256 threads per block"
    ),
]
