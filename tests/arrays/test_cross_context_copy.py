"""Moving an array to a queue of another context (or to another USM type): one copy from USM to USM
where the memory allows it (within a context always; across contexts where one side's memory is
host-addressable), never a round trip through a NumPy staging array there."""

import pytest

import numba_ext
import numba_ext.arrays.transfers as transfers
from numba_ext import Context, Queue
from tests.checks import check, poison


@pytest.fixture
def no_host_staging(monkeypatch, queue):
    """Fail any staging of array data through host memory where the device has USM (the cl_mem
    buffer back end stages, and is checked for values only)."""
    if queue.device.memory_backend == "usm":

        def staged(x):
            raise AssertionError("the copy went through host memory")

        monkeypatch.setattr(transfers, "copy_to_host", staged)


@pytest.mark.parametrize("dtype", ["float64", "int32", "complex64"])
def test_to_another_context(rng, queue, dtype, no_host_staging):
    h = (rng.standard_normal((7, 13)) * 100).astype(dtype)
    x = numba_ext.asarray(h)
    other = Queue(queue.device, context=Context(queue.device))
    poison(h.size, dtype)
    z = _moved(x, other)
    assert z.queue is other and z._data_ptr != x._data_ptr
    check(z, h)
    back = _moved(z, queue)
    assert back.queue is queue
    check(back, h)


def _moved(x, q):
    return numba_ext.asarray(x, sycl_queue=q)


@pytest.mark.parametrize("usm_type", ["shared", "host"])
def test_to_another_usm_type(rng, queue, usm_type, no_host_staging):
    h = rng.standard_normal(101)
    x = numba_ext.asarray(h)
    y = numba_ext.asarray(x, usm_type=usm_type)
    assert y.usm_type == usm_type and y._data_ptr != x._data_ptr
    x[0] = 1e300  # a copy, not a view
    h_now = h.copy()
    check(y, h_now)


def test_strided_source_still_correct(rng, queue):
    h = rng.standard_normal((8, 10))
    x = numba_ext.asarray(h)[:, ::3]
    other = Queue(queue.device, context=Context(queue.device))
    check(numba_ext.asarray(x, sycl_queue=other), h[:, ::3])
