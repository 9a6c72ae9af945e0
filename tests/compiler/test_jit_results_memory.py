"""The memory of jitted results: fresh allocations (inputs untouched), freed when the results go,
copies and contiguous copies on the input's queue, allocations on the host refused."""

import numpy as np
import pytest

import numba_ext


def test_result_is_fresh_memory_and_inputs_untouched(rng):
    ha = rng.standard_normal(64)
    a = numba_ext.asarray(ha)
    out = numba_ext.jit(lambda x: x * 2.0)(a)
    assert out._data_ptr != a._data_ptr
    np.testing.assert_array_equal(numba_ext.asnumpy(a), ha)
    np.testing.assert_array_equal(numba_ext.asnumpy(out), ha * 2.0)


def test_jit_results_are_freed(rng):
    import gc

    from numba_ext import _core

    a = numba_ext.asarray(rng.standard_normal(100))
    f = numba_ext.jit(lambda x: x + 1.0)
    f(a)
    gc.collect()
    before = _core._live_allocations()
    outs = [f(a) for _ in range(10)]
    assert _core._live_allocations() == before + 10
    del outs
    gc.collect()
    assert _core._live_allocations() == before


def test_copy_and_host_allocation_errors(rng):
    h = rng.standard_normal(64)
    b = numba_ext.asarray(h)
    c, d = numba_ext.jit(lambda b: (b.copy(), np.copy(b) * 2))(b)
    assert c._data_ptr != b._data_ptr and c.sycl_queue is b.sycl_queue
    np.testing.assert_array_equal(numba_ext.asnumpy(c), h)
    np.testing.assert_array_equal(numba_ext.asnumpy(d), 2 * h)
    with pytest.raises(numba_ext.UnsupportedError, match="numba_ext.empty"):
        numba_ext.jit(lambda b: b[b > 0.0])(b)  # boolean indexing would allocate on the host


def test_ascontiguousarray_aliases_or_copies_on_the_queue(rng):
    h = rng.standard_normal((5, 8))
    b = numba_ext.asarray(h, usm_type="shared")
    same = numba_ext.jit(lambda b: np.ascontiguousarray(b))(b)
    assert same._data_ptr == b._data_ptr  # already C-contiguous: the array itself, as NumPy
    t, s = numba_ext.jit(lambda b: (np.ascontiguousarray(b.T), np.ascontiguousarray(b[::-2, 1::3]) + 1.0))(b)
    for got, want in ((t, h.T), (s, h[::-2, 1::3] + 1.0)):
        assert got.sycl_queue is b.sycl_queue and got.usm_type == "shared" and got.flags.c_contiguous
        assert got._data_ptr != b._data_ptr
        np.testing.assert_array_equal(numba_ext.asnumpy(got), want)
