"""RAMBO phase-space generator: four-momenta of ``nout`` massless particles per event (dpbench
``rambo``), output (nevts, nout, 4).

numba_ext cannot store into strided output slices on the device yet, so ``numba_ext_jit`` is n/a.
``numba_ext_jit_planar`` computes the same four components as four (nevts, nout) device arrays;
interleaving them into (nevts, nout, 4) happens only for validation, untimed.
"""

import math

import numba
import numpy as np

import numba_ext
from harness import Variant

SIZES = {"S": {"nevts": 1 << 14, "nout": 4}, "M": {"nevts": 1 << 18, "nout": 4},
         "L": {"nevts": 1 << 21, "nout": 4}}


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


VARIANTS = [
    Variant("numpy", rambo),
    Variant("numba_parallel", rambo_prange),
    Variant.unavailable("numba_ext_jit", "strided output stores/kernels"),
    Variant("numba_ext_jit_planar", numba_ext.jit(_components), device=True,
            adapt=lambda comps: np.stack(comps, axis=-1),
            note="four planar (nevts, nout) results; interleaving for validation is untimed"),
]
