"""The cached call path of @numba_ext.jit (rust/src/python/jit.rs, native.rs): the overload of the
argument types, compute-follows-data checks, results and their memory, recompilation, threads."""

import numba
import numpy as np
import pytest

import numba_ext
from numba_ext import Context, Queue

from ..conftest import DEV


def test_cached_calls_pick_the_overload_of_the_argument_types(rng):
    f = numba_ext.jit(lambda x, s: x * s)
    g = numba_ext.jit(lambda x, s: x * s.real)
    h64 = rng.standard_normal(32)
    a64, a32 = numba_ext.asarray(h64), numba_ext.asarray(h64.astype(np.float32))
    a2d = numba_ext.asarray(h64.reshape(4, 8))
    cases = [(f, a64, 2.0), (f, a32, 2.0), (f, a64, 3), (f, a2d, 0.5), (f, a64, True), (g, a32, 1.5 + 2j)]
    dtypes = {}
    for _ in range(3):  # the first call of each key goes through Numba's dispatcher, later ones not
        for i, (fn, x, s) in enumerate(cases):
            got = fn(x, s)
            assert dtypes.setdefault(i, got.dtype) == got.dtype and got.shape == x.shape
            np.testing.assert_allclose(numba_ext.asnumpy(got), numba_ext.asnumpy(x) * np.real(s), rtol=1e-6)
    assert len(f.signatures) == 5 and len(g.signatures) == 1
    # ints Numba types as uint64 take the dispatcher (which may pick an overload of other types)
    big = numba_ext.jit(lambda x, s: x * s)
    for s in (2**63 + 1, 2**63 + 1, 3, 3):
        np.testing.assert_allclose(numba_ext.asnumpy(big(a64, s)), h64 * float(s))


def test_cached_calls_still_check_compute_follows_data(rng):
    d = numba_ext.Device(DEV)
    q1, q2 = Queue(d), Queue(d, context=Context(d))
    h = rng.standard_normal(8)
    a, b = numba_ext.asarray(h, sycl_queue=q1), numba_ext.asarray(h, sycl_queue=q1)
    c = numba_ext.asarray(h, sycl_queue=q2)
    f = numba_ext.jit(lambda x, y: x + y)
    for _ in range(3):
        f(a, b)
    with pytest.raises(numba_ext.ExecutionPlacementError):  # same Numba types as the cached call
        f(a, c)
    s = numba_ext.asarray(h, sycl_queue=q1, usm_type="shared")
    with pytest.warns(numba_ext.MixedUSMTypeWarning):
        assert f(a, s).usm_type == "device"
    with numba_ext.offload_to(q1):
        np.testing.assert_allclose(f(h, h), 2 * h)  # NumPy data: copied there and back


def test_results_of_cached_calls(rng):
    q = Queue(DEV)
    h = rng.standard_normal((6, 4))
    a = numba_ext.asarray(h, sycl_queue=q, usm_type="shared")
    f = numba_ext.jit(lambda x, y: x + y)
    f(a, a)
    out = f(a, a)
    assert out.sycl_queue is q and out.usm_type == "shared"
    assert (out.shape, out.dtype, out.strides, out.ndim, out.size) == ((6, 4), h.dtype, (32, 8), 2, 24)
    assert numba.typeof(out) == numba.typeof(a)
    iface = out.__sycl_usm_array_interface__
    assert iface["data"] == (out._data_ptr, False) and iface["syclobj"] is q
    np.testing.assert_array_equal(numba_ext.asnumpy(out), 2 * h)
    view = out[1:, ::2]  # a view made in Python keeps the queue and USM type, and runs again
    again = f(view, view)
    assert again.sycl_queue is q and again.usm_type == "shared"
    np.testing.assert_array_equal(numba_ext.asnumpy(again), 4 * h[1:, ::2])
    t = numba_ext.jit(lambda x: x.T)(out)  # a non-C result: its Numba type is made on first use
    assert numba.typeof(t).layout == "F" and t.sycl_queue is q
    np.testing.assert_array_equal(numba_ext.asnumpy(t), 2 * h.T)
    assert "usm_type='shared'" in repr(out)


def test_cached_call_results_are_freed_without_the_cycle_collector(rng):
    from numba_ext import _core

    a = numba_ext.asarray(rng.standard_normal(16))
    f = numba_ext.jit(lambda x: x * 2.0)
    f(a)
    before = _core._live_allocations()
    out = f(a)
    out.shape, out.sycl_queue  # noqa: B018  (lazily made attributes must not keep the memory)
    assert _core._live_allocations() == before + 1
    del out
    assert _core._live_allocations() == before


def test_recompile_drops_cached_entry_points(rng):
    a = numba_ext.asarray(rng.standard_normal(8))
    f = numba_ext.jit(_scaled)
    global _SCALE
    _SCALE = 2.0
    for _ in range(2):
        np.testing.assert_allclose(numba_ext.asnumpy(f(a)), 2.0 * numba_ext.asnumpy(a))
    _SCALE = 3.0
    f._dispatcher.recompile()
    np.testing.assert_allclose(numba_ext.asnumpy(f(a)), 3.0 * numba_ext.asnumpy(a))


_SCALE = 2.0


def _scaled(x):
    return x * _SCALE


def test_cached_calls_from_threads(rng):
    import threading

    from numba_ext import _core

    f = numba_ext.jit(lambda x, y: x - y)
    hs = [rng.standard_normal(64) for _ in range(4)]
    arrays = [(numba_ext.asarray(h), numba_ext.asarray(2 * h)) for h in hs]
    f(*arrays[0])
    before = _core._live_allocations()
    errors = []

    def work(i):
        try:
            x, y = arrays[i]
            for _ in range(200):
                np.testing.assert_array_equal(numba_ext.asnumpy(f(x, y)), -hs[i])
        except Exception as e:
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert _core._live_allocations() == before
