"""A kernel variable that Numba types wider than an array element it is given (a float64
accumulator that also takes float32 loads, across loop iterations) loads and converts the element,
as Numba does on the CPU."""

import numpy as np
import pytest

import numba_ext


@numba_ext.kernel
def _reused_accumulator(a, out, n):
    i = numba_ext.get_global_id(0)
    for j in range(n):
        acc = 0.0
        for r in range(n):
            acc += a[r] * a[r]
        out[i] = acc
        acc = a[j]  # the float64 accumulator takes a float32 element
        for r in range(n):
            acc += a[r]
        out[i] = out[i] + acc + i


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64])
def test_a_wider_variable_takes_an_element_load(rng, dtype):
    host = rng.integers(-5, 6, 7).astype(dtype)
    out = numba_ext.empty(7, dtype=np.float64)
    _reused_accumulator[7](numba_ext.asarray(host), out, 7)
    h = host.astype(np.float64)
    want = (h * h).sum() + h[-1] + h.sum() + np.arange(7)
    np.testing.assert_allclose(numba_ext.asnumpy(out), want, rtol=1e-6)
