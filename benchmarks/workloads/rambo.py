"""RAMBO phase-space generator: four-momenta of ``nout`` massless particles per event (dpbench
``rambo``), output (nevts, nout, 4).

``numba_ext_jit`` is the NumPy source under ``@numba_ext.jit`` with the result allocated by
``numba_ext.empty`` (stores into the strided slices ``out[:, :, k]`` run on the device now).
``numba_ext_jit_planar``, the earlier stop-gap, computes the same four components as four
(nevts, nout) device arrays; interleaving them into (nevts, nout, 4) happens only for validation,
untimed. ``numba_ext_prange`` is the prange loop of ``numba_parallel`` under ``@numba_ext.jit``.

``numba_ext_kernel`` is an explicit ``@numba_ext.kernel`` over a 2-D (nevts, nout) range that stores
the four components straight into the interleaved (nevts, nout, 4) result, like the prange loop;
``numba_ext_kernel_item`` is that kernel in numba-dpex's item style (an ``Item`` argument,
``call_kernel`` over the same 2-D ``Range``).
"""

import math

import numba
import numpy as np
from harness import Variant, backend_module, eager_variant, kapi, namespace_variant, nx, with_globals

SIZES = {
    "S": {"nevts": 1 << 14, "nout": 4},
    "M": {"nevts": 1 << 18, "nout": 4},
    "L": {"nevts": 1 << 21, "nout": 4},
}


TWO_PI = 2.0 * math.pi  # the same rounding as NumPy's 2.0 * np.pi * f1


def BYTES(nevts, nout):
    return 8 * nevts * nout * 7  # three inputs, four output components


def make_inputs(rng, nevts, nout):
    return rng.random((nevts, nout)), rng.random((nevts, nout)), rng.random((nevts, nout))


def _components(c1, f1, q1):
    c = 2.0 * c1 - 1.0
    s = np.sqrt(1.0 - c * c)
    f = 2.0 * np.pi * f1
    q = -np.log(q1)
    return q, q * s * np.sin(f), q * s * np.cos(f), q * c


def rambo(c1, f1, q1):
    out = np.empty(c1.shape + (4,))
    for k, comp in enumerate(_components(c1, f1, q1)):
        out[:, :, k] = comp
    return out


reference = rambo


def rambo_jit(c1, f1, q1):
    # the NumPy source with numba_ext.empty, the components written out (tuple iteration with
    # enumerate over array expressions is not needed to show the device stores)
    out = nx.empty(c1.shape + (4,))
    c = 2.0 * c1 - 1.0
    s = np.sqrt(1.0 - c * c)
    f = 2.0 * np.pi * f1
    q = -np.log(q1)
    out[:, :, 0] = q
    out[:, :, 1] = q * s * np.sin(f)
    out[:, :, 2] = q * s * np.cos(f)
    out[:, :, 3] = q * c
    return out


empty = np.empty  # numba_ext_prange binds ``empty`` to numba_ext.empty


def _rambo_prange(c1, f1, q1):
    nevts, nout = c1.shape
    out = empty((nevts, nout, 4))
    for i in numba.prange(nevts):
        for j in range(nout):
            c = 2.0 * c1[i, j] - 1.0
            s = math.sqrt(1.0 - c * c)
            f = 2.0 * math.pi * f1[i, j]
            q = -math.log(q1[i, j])
            out[i, j, 0] = q
            out[i, j, 1] = q * s * math.sin(f)
            out[i, j, 2] = q * s * math.cos(f)
            out[i, j, 3] = q * c
    return out


rambo_prange = numba.njit(parallel=True)(_rambo_prange)


@nx.kernel
def _rambo_kernel(c1, f1, q1, out):
    i = nx.get_global_id(0)
    j = nx.get_global_id(1)
    c = 2.0 * c1[i, j] - 1.0
    s = math.sqrt(1.0 - c * c)
    f = TWO_PI * f1[i, j]
    q = -math.log(q1[i, j])
    out[i, j, 0] = q
    out[i, j, 1] = q * s * math.sin(f)
    out[i, j, 2] = q * s * math.cos(f)
    out[i, j, 3] = q * c


def rambo_kernel(c1, f1, q1):
    nevts, nout = c1.shape
    out = nx.empty((nevts, nout, 4), dtype=c1.dtype, sycl_queue=c1.sycl_queue)
    _rambo_kernel[nx.Range(nevts, nout)](c1, f1, q1, out)
    return out


@nx.kernel
def _rambo_item(item: kapi.Item, c1, f1, q1, out):
    i = item.get_id(0)
    j = item.get_id(1)
    c = 2.0 * c1[i, j] - 1.0
    s = math.sqrt(1.0 - c * c)
    f = TWO_PI * f1[i, j]
    q = -math.log(q1[i, j])
    out[i, j, 0] = q
    out[i, j, 1] = q * s * math.sin(f)
    out[i, j, 2] = q * s * math.cos(f)
    out[i, j, 3] = q * c


def rambo_kernel_item(c1, f1, q1):
    nevts, nout = c1.shape
    out = nx.empty((nevts, nout, 4), dtype=c1.dtype, sycl_queue=c1.sycl_queue)
    nx.call_kernel(_rambo_item, kapi.Range(nevts, nout), c1, f1, q1, out)
    return out


def make_cuda(*args):
    cuda = backend_module("numba_cuda")

    @cuda.jit
    def kern(c1, f1, q1, out):
        i, j = cuda.grid(2)
        if i < c1.shape[0] and j < c1.shape[1]:
            c = 2.0 * c1[i, j] - 1.0
            s = math.sqrt(1.0 - c * c)
            f = TWO_PI * f1[i, j]
            q = -math.log(q1[i, j])
            out[i, j, 0] = q
            out[i, j, 1] = q * s * math.sin(f)
            out[i, j, 2] = q * s * math.cos(f)
            out[i, j, 3] = q * c

    def run(c1, f1, q1):
        nevts, nout = c1.shape
        out = cuda.device_array((nevts, nout, 4))
        kern[((nevts + 63) // 64, (nout + 3) // 4), (64, 4)](c1, f1, q1, out)
        return out

    return run


VARIANTS = [
    Variant("numpy", rambo),
    eager_variant(
        rambo_jit,
        note="numba_ext_jit's source (the result from numba_ext.empty, filled by assignment) run eagerly",
    ),
    Variant("numba_parallel", rambo_prange),
    Variant(
        "numba_ext_jit",
        nx.jit(rambo_jit),
        backend="numba_ext",
        note="the NumPy source with numba_ext.empty; the four strided stores written out",
    ),
    Variant("numba_ext_prange", nx.jit(with_globals(_rambo_prange, empty=nx.empty)), backend="numba_ext"),
    Variant(
        "numba_ext_jit_planar",
        nx.jit(_components),
        backend="numba_ext",
        adapt=lambda comps: np.stack(comps, axis=-1),
        note="four planar (nevts, nout) results; interleaving for validation is untimed",
    ),
    Variant("numba_ext_kernel", rambo_kernel, backend="numba_ext"),
    Variant(
        "numba_ext_kernel_item",
        rambo_kernel_item,
        backend="numba_ext",
        note="the numba_ext_kernel body in item style: call_kernel over the same 2-D Range",
    ),
    namespace_variant("dpnp", rambo, "dpnp", helpers=("_components",)),
    namespace_variant("cupy", rambo, "cupy", helpers=("_components",)),
    Variant("numba_cuda", backend="numba_cuda", make=make_cuda, note="2-D grid, 64x4 threads per block"),
]
