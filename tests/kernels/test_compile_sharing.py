"""In memory, code is compiled once per (argument types, device target) and shared by every queue
and context on that device; the programs one kernel keeps built per context are bounded."""

import numpy as np

import numba_ext
from numba_ext import _core

from ..conftest import DEV


def test_one_compile_shared_by_many_contexts_with_bounded_programs(rng, monkeypatch):
    compiles = []
    real = _core.compile_function
    monkeypatch.setattr(_core, "compile_function", lambda *a: compiles.append(1) or real(*a))

    @numba_ext.kernel
    def axpy(a, x, y, out):
        i = numba_ext.get_global_id(0)
        out[i] = a * x[i] + y[i]

    @numba_ext.jit
    def twice(x):
        return x * 2.0 + 1.0

    device = numba_ext.Device(DEV)
    n_contexts = _core.MAX_CONTEXT_PROGRAMS + 4
    for _ in range(n_contexts):
        q = numba_ext.Queue(device, context=numba_ext.Context(device))
        x, y = rng.random(64), rng.random(64)
        xd, yd = numba_ext.asarray(x, sycl_queue=q), numba_ext.asarray(y, sycl_queue=q)
        out = numba_ext.full(64, np.nan, sycl_queue=q)
        axpy[64](1.5, xd, yd, out)
        np.testing.assert_allclose(numba_ext.asnumpy(out), 1.5 * x + y, rtol=1e-12, atol=1e-14)
        r = twice(xd)
        assert r.sycl_queue == q
        np.testing.assert_allclose(numba_ext.asnumpy(r), x * 2.0 + 1.0, rtol=1e-12, atol=1e-14)
    assert len(compiles) == 1  # the kernel: one compile for all contexts
    assert len(twice.signatures) == 1
    (compiled,) = axpy._cache.values()
    assert compiled.kernel.loaded_contexts == _core.MAX_CONTEXT_PROGRAMS
    (jk,) = twice.inspect_kernels(xd)
    assert jk.loaded_contexts == _core.MAX_CONTEXT_PROGRAMS
