"""RAMBO phase-space generator: four-momenta of ``nout`` massless particles per event (dpbench
``rambo``), output (nevts, nout, 4).

numba_ext cannot store into strided output slices on the device yet, so ``numba_ext_jit`` is n/a.
``numba_ext_jit_planar`` computes the same four components as four (nevts, nout) device arrays;
interleaving them into (nevts, nout, 4) happens only for validation, untimed.

``numba_ext_kernel`` is an explicit ``@numba_ext.kernel`` over a 2-D (nevts, nout) range that stores
the four components straight into the interleaved (nevts, nout, 4) result, like the prange loop.
"""

import math

import numba
import numpy as np

import numba_ext
import numba_ext as nx
from harness import Variant

SIZES = {"S": {"nevts": 1 << 14, "nout": 4}, "M": {"nevts": 1 << 18, "nout": 4},
         "L": {"nevts": 1 << 21, "nout": 4}}


TWO_PI = 2.0 * math.pi  # the same rounding as NumPy's 2.0 * np.pi * f1


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


@numba.njit(parallel=True)
def rambo_prange(c1, f1, q1):
    nevts, nout = c1.shape
    out = np.empty((nevts, nout, 4))
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


VARIANTS = [
    Variant("numpy", rambo),
    Variant("numba_parallel", rambo_prange),
    Variant.unavailable("numba_ext_jit", "strided output stores in @jit"),
    Variant("numba_ext_jit_planar", numba_ext.jit(_components), device=True,
            adapt=lambda comps: np.stack(comps, axis=-1),
            note="four planar (nevts, nout) results; interleaving for validation is untimed"),
    Variant("numba_ext_kernel", rambo_kernel, device=True),
]
