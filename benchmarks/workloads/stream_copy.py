"""STREAM copy, a = b (16 bytes per element: one read, one write): the copy bandwidth that
``plot.py`` draws next to the triad's bandwidth. Like every variant of the suite, each call allocates
its result (so first-touch costs of fresh memory are included, as in ``stream_triad``).

* ``numpy``: ``np.copy`` (a memcpy on the host);
* ``numba_ext_jit``: ``b + 0.0`` under ``@numba_ext.jit``, a one-load-one-store kernel
  (``b.copy()`` and ``np.copy(b)`` do not compile under ``@numba_ext.jit`` yet);
* ``numba_ext_prange``: the prange copy loop of ``numba_parallel``, result from ``numba_ext.empty``;
* ``numba_ext_kernel``: ``a[i] = b[i]``, one work-item per element;
* ``numba_ext_kernel_item``: the same kernel in numba-dpex's item style (``call_kernel`` over a ``Range``);
* ``numba_ext_memcpy``: the OpenCL runtime's USM copy into a fresh ``numba_ext.empty`` array
  (``numba_ext._core.memcpy``, internal: what the driver's own copy achieves, no kernel of ours).

* ``cupy``: ``cupy.copy`` (the NumPy source with ``np = cupy``);
* ``cupy_memcpy``: ``cudaMemcpyAsync`` device to device (``MemoryPointer.copy_from_device_async``) into
  a fresh ``cupy.empty_like`` array: the CUDA device-to-device copy the triad is compared with.

The plot's "device copy bandwidth" is the best of the numba_ext copy variants (named in the legend);
where CuPy or numba-cuda ran, the best of their copies is drawn as the "CUDA copy bandwidth".
"""

import numba
import numpy as np
from harness import Variant, backend_module, eager_variant, kapi, namespace_variant, nx, with_globals

SIZES = {"S": {"n": 1 << 18}, "M": {"n": 1 << 22}, "L": {"n": 1 << 25}}


def BYTES(n):
    return 2 * 8 * n


def make_inputs(rng, n):
    return (rng.random(n),)


def copy(b):
    return np.copy(b)


reference = copy


def plus_zero(b):
    return b + 0.0


empty = np.empty  # numba_ext_prange binds ``empty`` to numba_ext.empty


def _copy_prange(b):
    a = empty(b.shape[0])
    for i in numba.prange(b.shape[0]):
        a[i] = b[i]
    return a


copy_prange = numba.njit(parallel=True)(_copy_prange)


@nx.kernel
def _copy_kernel(b, a):
    i = nx.get_global_id(0)
    a[i] = b[i]


def copy_kernel(b):
    a = nx.empty(b.shape, dtype=b.dtype, sycl_queue=b.sycl_queue)
    _copy_kernel[b.shape[0]](b, a)
    return a


@nx.kernel
def _copy_item(item: kapi.Item, b, a):
    i = item.get_id(0)
    a[i] = b[i]


def copy_kernel_item(b):
    a = nx.empty(b.shape, dtype=b.dtype, sycl_queue=b.sycl_queue)
    nx.call_kernel(_copy_item, kapi.Range(b.shape[0]), b, a)
    return a


def copy_memcpy(b):
    a = nx.empty(b.shape, dtype=b.dtype, sycl_queue=b.sycl_queue)
    nx._core.memcpy(b.sycl_queue, a._data_ptr, b._data_ptr, b.nbytes)
    return a


def make_cuda(*args):
    cuda = backend_module("numba_cuda")

    @cuda.jit
    def kern(b, a):
        i = cuda.grid(1)
        if i < a.shape[0]:
            a[i] = b[i]

    def run(b):
        a = cuda.device_array(b.shape[0])
        kern[(b.shape[0] + 255) // 256, 256](b, a)
        return a

    return run


def make_cupy_memcpy(*args):
    cp = backend_module("cupy")

    def run(b):
        a = cp.empty_like(b)
        a.data.copy_from_device_async(b.data, b.nbytes)  # cudaMemcpyAsync, device to device
        return a

    return run


VARIANTS = [
    Variant("numpy", copy),
    eager_variant(copy),
    Variant("numba_parallel", copy_prange),
    Variant(
        "numba_ext_jit",
        nx.jit(plus_zero),
        backend="numba_ext",
        note="b + 0.0 (a copy kernel: one load, one store)",
    ),
    Variant("numba_ext_prange", nx.jit(with_globals(_copy_prange, empty=nx.empty)), backend="numba_ext"),
    Variant("numba_ext_kernel", copy_kernel, backend="numba_ext"),
    Variant(
        "numba_ext_kernel_item",
        copy_kernel_item,
        backend="numba_ext",
        note="the numba_ext_kernel body in item style: call_kernel over a Range",
    ),
    Variant(
        "numba_ext_memcpy",
        copy_memcpy,
        backend="numba_ext",
        note="the OpenCL runtime's USM copy (numba_ext._core.memcpy) into a fresh array",
    ),
    namespace_variant("dpnp", copy, "dpnp"),
    namespace_variant("cupy", copy, "cupy"),
    Variant(
        "cupy_memcpy",
        backend="cupy",
        make=make_cupy_memcpy,
        note="cudaMemcpyAsync device to device into a fresh cupy.empty_like array",
    ),
    Variant(
        "numba_cuda",
        backend="numba_cuda",
        make=make_cuda,
        note="numba.cuda.jit copy kernel, 256 threads per block",
    ),
]
