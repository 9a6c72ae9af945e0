"""A jitted function, a kernel and a device function at module level, for test_pickling.py: their
module holds each under its name, so they pickle by reference."""

import numpy as np

import numba_ext


@numba_ext.jit
def axpy_gauss(a, x, y):
    return a * x + np.exp(-y * y)


@numba_ext.func
def twice(v):
    return v * 2.0


@numba_ext.kernel
def twice_plus(src, dst, shift):
    i = numba_ext.get_global_id(0)
    dst[i] = twice(src[i]) + shift
