"""STREAM triad, a = b + s * c: memory bandwidth bound (24 bytes per element: two reads, one write;
the harness reports GB/s, and ``stream_copy`` measures the copy bandwidth the plot compares with).

``numba_ext_jit`` is the NumPy source under ``@numba_ext.jit``; ``numba_ext_prange`` the prange loop of
``numba_parallel`` with the result allocated by ``numba_ext.empty`` inside the jitted function;
``numba_ext_kernel`` an explicit ``@numba_ext.kernel``, one work-item per element, writing into a result
allocated per call on the inputs' queue (like ``numba_ext_jit``); ``numba_ext_kernel_item`` is that
kernel in numba-dpex's item style (an ``Item`` argument, ``call_kernel`` over a ``Range``). The plain
``cupy`` variant runs two kernels (``s * c``, then the sum: 40 bytes per element of traffic);
``cupy_fused`` is the triad as one ``cupy.ElementwiseKernel`` (24 bytes per element), to compare with
``stream_copy``'s ``cupy_memcpy`` (the CUDA device-to-device copy)."""

import numba
import numpy as np
from harness import Variant, backend_module, eager_variant, kapi, namespace_variant, nx, with_globals

SIZES = {"S": {"n": 1 << 18}, "M": {"n": 1 << 22}, "L": {"n": 1 << 25}}
SCALAR = 3.0


def BYTES(n):
    return 3 * 8 * n


def make_inputs(rng, n):
    return rng.random(n), rng.random(n), SCALAR


def triad(b, c, s):
    return b + s * c


reference = triad

empty = np.empty  # numba_ext_prange binds ``empty`` to numba_ext.empty


def _triad_prange(b, c, s):
    a = empty(b.shape[0])
    for i in numba.prange(b.shape[0]):
        a[i] = b[i] + s * c[i]
    return a


triad_prange = numba.njit(parallel=True)(_triad_prange)


@nx.kernel
def _triad_kernel(b, c, s, a):
    i = nx.get_global_id(0)
    a[i] = b[i] + s * c[i]


def triad_kernel(b, c, s, kern=_triad_kernel):
    a = nx.empty(b.shape, dtype=b.dtype, sycl_queue=b.sycl_queue)
    kern[b.shape[0]](b, c, s, a)
    return a


# the same kernel and prange loop with every array access bounds-checked (the cost of the checks)
_triad_kernel_bc = nx.kernel(boundscheck=True)(_triad_kernel.py_func)


def triad_kernel_bc(b, c, s):
    return triad_kernel(b, c, s, _triad_kernel_bc)


@nx.kernel
def _triad_item(item: kapi.Item, b, c, s, a):
    i = item.get_id(0)
    a[i] = b[i] + s * c[i]


def triad_kernel_item(b, c, s):
    a = nx.empty(b.shape, dtype=b.dtype, sycl_queue=b.sycl_queue)
    nx.call_kernel(_triad_item, kapi.Range(b.shape[0]), b, c, s, a)
    return a


def make_cuda(*args):
    cuda = backend_module("numba_cuda")

    @cuda.jit
    def kern(b, c, s, a):
        i = cuda.grid(1)
        if i < a.shape[0]:
            a[i] = b[i] + s * c[i]

    def run(b, c, s):
        a = cuda.device_array(b.shape[0])
        kern[(b.shape[0] + 255) // 256, 256](b, c, s, a)
        return a

    return run


def make_cupy_fused(*args):
    cp = backend_module("cupy")
    kern = cp.ElementwiseKernel(
        "float64 b, float64 c, float64 s", "float64 a", "a = b + s * c", "numba_ext_bench_triad"
    )
    return kern  # kern(b, c, s) allocates a


VARIANTS = [
    Variant("numpy", triad),
    eager_variant(triad),
    Variant("numba_parallel", triad_prange),
    Variant("numba_ext_jit", nx.jit(triad), backend="numba_ext"),
    Variant("numba_ext_prange", nx.jit(with_globals(_triad_prange, empty=nx.empty)), backend="numba_ext"),
    Variant("numba_ext_kernel", triad_kernel, backend="numba_ext"),
    Variant(
        "numba_ext_kernel_item",
        triad_kernel_item,
        backend="numba_ext",
        note="the numba_ext_kernel body in item style: call_kernel over a Range",
    ),
    Variant(
        "numba_ext_prange_bc",
        nx.jit(with_globals(_triad_prange, empty=nx.empty), boundscheck=True),
        backend="numba_ext",
        note="numba_ext_prange with boundscheck=True",
    ),
    Variant(
        "numba_ext_kernel_bc",
        triad_kernel_bc,
        backend="numba_ext",
        note="numba_ext_kernel with boundscheck=True",
    ),
    namespace_variant("dpnp", triad, "dpnp"),
    namespace_variant("cupy", triad, "cupy"),
    Variant(
        "cupy_fused", backend="cupy", make=make_cupy_fused, note="one cupy.ElementwiseKernel: a = b + s * c"
    ),
    Variant(
        "numba_cuda",
        backend="numba_cuda",
        make=make_cuda,
        note="numba.cuda.jit kernel, 256 threads per block",
    ),
]
