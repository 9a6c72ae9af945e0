"""A launch that fills its accumulator first (``Kernel.launch_nd(..., fill=...)``): on an in-order
queue the fill is not waited for on its own, the kernel follows it; on an out-of-order queue it is
waited for before the launch. Either way the result is the reduction from the filled value, and the
fill has landed when the call returns, also where nothing is launched (an empty range) or the launch
is refused."""

import numpy as np
import pytest

import numba_ext as nx
from numba_ext import _core
from numba_ext.devices import Queue, device_by_filter
from numba_ext.ir.reductions import whole_function

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
