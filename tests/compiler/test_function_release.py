"""Dropping a jitted function or kernel releases its device kernels (their binaries and built
programs): the process-wide compile cache refers to kernels weakly, compiled code refers to them
through its environment, and the extension's caller objects show the garbage collector what they
hold (a jitted function and its dispatcher refer to each other)."""

import gc

import numpy as np

import numba_ext
from numba_ext import _core


def make_function(c):
    def f(a):
        return np.sqrt(a) * 2.0 + c

    return f


def make_kernel(c):
    def k(a, out):
        i = numba_ext.get_global_id(0)
        out[i] = a[i] * c

    return k


def test_dropped_functions_and_kernels_release_their_kernels(rng):
    x_np = rng.random(50)
    x = numba_ext.asarray(x_np)
    gc.collect()
    before = _core._live_kernels()
    for i in range(12):  # each a distinct kernel (the constant is part of it)
        c = float(i) + 0.5
        f = numba_ext.jit(make_function(c))
        np.testing.assert_allclose(numba_ext.asnumpy(f(x)), np.sqrt(x_np) * 2.0 + c, rtol=1e-12)
        k = numba_ext.kernel(make_kernel(c))
        out = numba_ext.full(50, np.nan)
        k[50](x, out)
        np.testing.assert_allclose(numba_ext.asnumpy(out), x_np * c, rtol=1e-12)
    assert _core._live_kernels() >= before + 2  # the last function's and kernel's are alive
    del f, k
    gc.collect()
    assert _core._live_kernels() == before
