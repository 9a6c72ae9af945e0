"""Launches that fill their accumulator first (``Kernel.launch_nd(..., fill=...)``) and chains of
launches waited for once (``_core.launch_chain``): on an in-order queue a fill or a launch is not
waited for on its own, the next command follows it; on an out-of-order queue each is waited for in
turn. Either way the results are those of the launches in order, and every fill has landed when the
call returns, also where nothing is launched (an empty range) or a launch is refused."""

import numpy as np
import pytest

import numba_ext as nx
from numba_ext import _core
from numba_ext.arrays.reductions import NO_INDEX_BYTES
from numba_ext.devices import Queue, device_by_filter
from numba_ext.ir.reductions import first_index_function, whole_function

from ..conftest import DEV


def _sum_kernel(queue):
    return _core.compile_function(whole_function("sum", "float64", 1), queue.device)


@pytest.mark.parametrize("in_order", [True, False])
def test_fill_then_sum(rng, in_order):
    queue = Queue(device_by_filter(DEV), in_order=in_order)
    kernel = _sum_kernel(queue)
    for n in (1, 1000, 100_003):
        h = rng.standard_normal(n)
        x = nx.asarray(h, sycl_queue=queue)
        acc = nx.asarray(np.array([np.nan, -7.0]), sycl_queue=queue)  # poisoned; the second stays
        start = rng.standard_normal()
        pattern = np.array(start).tobytes()
        kernel.launch_nd(
            queue, [x._data_ptr, n, 8, acc._data_ptr, 1, 0], [min(n, 64)], None, (acc._data_ptr, pattern, 8)
        )
        got = nx.asnumpy(acc)
        np.testing.assert_allclose(got[0], start + h.sum(), rtol=1e-12, atol=1e-12)
        assert got[1] == -7.0


@pytest.mark.parametrize("in_order", [True, False])
def test_fill_lands_without_a_launch(in_order):
    queue = Queue(device_by_filter(DEV), in_order=in_order)
    kernel = _sum_kernel(queue)
    x = nx.asarray(np.ones(4), sycl_queue=queue)
    acc = nx.asarray(np.full(3, np.nan), sycl_queue=queue)
    slots = [x._data_ptr, 4, 8, acc._data_ptr, 1, 0]
    kernel.launch_nd(queue, slots, [0], None, (acc._data_ptr, np.array(2.5).tobytes(), 16))  # empty range
    np.testing.assert_array_equal(nx.asnumpy(acc), [2.5, 2.5, np.nan])
    with pytest.raises(Exception, match="argument slots"):  # refused after the fill was enqueued
        kernel.launch_nd(queue, slots[:-1], [4], None, (acc._data_ptr, np.array(1.5).tobytes(), 8))
    np.testing.assert_array_equal(nx.asnumpy(acc), [1.5, 2.5, np.nan])


@pytest.mark.parametrize("in_order", [True, False])
def test_chain_of_launches(rng, in_order):
    """The extreme, then its first index (the second kernel reads the first's result), waited for
    once: NumPy's argmax; a chain ending in a fill without a launch leaves the fill done."""
    queue = Queue(device_by_filter(DEV), in_order=in_order)
    device = queue.device
    extreme = _core.compile_function(whole_function("max", "float64", 1), device)
    first = _core.compile_function(first_index_function("float64", 1), device)
    for n in (1, 777, 100_003):
        h = rng.standard_normal(n)
        x = nx.asarray(h, sycl_queue=queue)
        acc = nx.asarray(np.array([np.nan]), sycl_queue=queue)
        index = nx.asarray(np.array([-5, -6]), sycl_queue=queue)
        source = [x._data_ptr, n, 8]
        a, i = acc._data_ptr, index._data_ptr
        steps = [
            (extreme, [*source, a, 1, 0], [min(n, 64)], None, (a, np.array(-np.inf).tobytes(), 8)),
            (first, [*source, a, 1, 0, i, 1, 0], [min(n, 64)], None, (i, NO_INDEX_BYTES, 8)),
            (first, [*source, a, 1, 0, i, 1, 0], [0], None, (i + 8, np.array(3, np.int64).tobytes(), 8)),
        ]
        _core.launch_chain(queue, steps)
        assert nx.asnumpy(acc)[0] == h.max()
        assert list(nx.asnumpy(index)) == [h.argmax(), 3]


def test_chain_checks_every_step_before_launching():
    queue = Queue(device_by_filter(DEV))
    kernel = _sum_kernel(queue)
    x = nx.asarray(np.ones(8), sycl_queue=queue)
    acc = nx.asarray(np.array([-1.0]), sycl_queue=queue)
    good = (kernel, [x._data_ptr, 8, 8, acc._data_ptr, 1, 0], [8], None, (acc._data_ptr, bytes(8), 8))
    bad = (kernel, [x._data_ptr, 8, 8], [8], None, None)
    with pytest.raises(Exception, match="argument slots"):
        _core.launch_chain(queue, [good, bad])
    assert nx.asnumpy(acc)[0] == -1.0  # nothing was filled or launched
    _core.launch_chain(queue, [good])
    assert nx.asnumpy(acc)[0] == 8.0
