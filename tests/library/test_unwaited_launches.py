"""Eager operations return once their kernels are enqueued on an in-order queue (the queue is left
unsettled, as CuPy's launches leave a stream); whatever needs the values waits first: later
commands of the same queue follow in order, a command on another queue of the context finishes the
unsettled queue before it is enqueued, and host access (copies to the host, DLPack and
``__sycl_usm_array_interface__`` consumers, compiled host code) waits for every unsettled queue.
Each test makes the device busy for milliseconds right before the access, so that reading too
early would see stale or poisoned memory."""

import ctypes
import os
import subprocess
import sys

import numba
import numpy as np
import pytest

import numba_ext as nx
from numba_ext import _core

from ..conftest import DEV

N = 1 << 20


def heavy(x):
    """Eight elementwise kernels over `x` (milliseconds each on the CPU device)."""
    for _ in range(4):
        x = np.sin(x) * 1.5 + np.cos(x)
    return x


def poisoned_pool(queue, usm_type="device"):
    """Leave a freed block of N float64 NaNs in the pool, which the next result of that size takes."""
    nx.full(N, np.nan, sycl_queue=queue, usm_type=usm_type)


def test_chained_operations_compute_numpys_values(rng):
    v = rng.random(N)
    x = nx.asarray(v)
    poisoned_pool(x.sycl_queue)
    got = heavy(x)
    assert _core._unsettled_queues() >= 1  # returned before the device finished
    np.testing.assert_allclose(nx.asnumpy(got), heavy(v), rtol=1e-12)


def test_wait_settles_the_queue(rng):
    x = nx.asarray(rng.random(N))
    _core.settle_all()
    assert _core._unsettled_queues() == 0
    y = heavy(x)
    assert _core._unsettled_queues() == 1
    y.sycl_queue.wait()
    assert _core._unsettled_queues() == 0


def test_out_of_order_queues_wait_for_each_launch(rng):
    q = nx.Queue(DEV, in_order=False)
    v = rng.random(N)
    x = nx.asarray(v, sycl_queue=q)
    _core.settle_all()
    y = heavy(x)
    assert _core._unsettled_queues() == 0
    np.testing.assert_allclose(nx.asnumpy(y), heavy(v), rtol=1e-12)


@pytest.mark.parametrize("same_queue", [True, False])
def test_a_freed_result_block_is_reused_only_after_its_kernel(rng, same_queue):
    q1 = nx.Queue(DEV)
    q2 = q1 if same_queue else nx.Queue(DEV, context=q1.context)
    assert q2.equivalent(q1)
    x = nx.asarray(rng.random(N), sycl_queue=q1)
    for _ in range(3):
        y = heavy(x)
        del y  # its block goes back to the pool while its last kernel may still write it
        z = nx.full(N, 7.0, sycl_queue=q2)  # the same block, filled on q2
        np.testing.assert_array_equal(nx.asnumpy(z), np.full(N, 7.0))


def test_another_queue_of_the_context_settles_first(rng):
    q1 = nx.Queue(DEV)
    q2 = nx.Queue(DEV, context=q1.context)
    v = rng.random(N)
    x = nx.asarray(v, sycl_queue=q1)
    _core.settle_all()
    y = heavy(x)
    assert _core._unsettled_queues() == 1
    # y is read by a kernel on q2 (an equivalent queue): q1 finishes before it is enqueued
    out = nx.empty(N, sycl_queue=q2)
    out[...] = y
    np.testing.assert_allclose(nx.asnumpy(out), heavy(v), rtol=1e-12)


def busy_result(rng, usm_type):
    """NumPy's values of `heavy`, and numba_ext's result of `usm_type` with its kernels still queued
    (into a block the pool held poisoned)."""
    v = rng.random(N)
    want = heavy(v)
    x = nx.asarray(v, usm_type=usm_type)
    poisoned_pool(x.sycl_queue, usm_type)
    return want, heavy(x)


@pytest.mark.needs_host_access
def test_dlpack_consumer_reads_finished_values(rng):
    want, y = busy_result(rng, "host")
    got = np.from_dlpack(y, device="cpu").copy()  # a NumPy view of the host memory, read at once
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.needs_host_access
def test_usm_interface_consumer_reads_finished_values(rng):
    want, y = busy_result(rng, "shared")
    iface = y.__sycl_usm_array_interface__
    ptr = iface["data"][0] + iface["offset"] * 8
    got = np.ctypeslib.as_array((ctypes.c_double * N).from_address(ptr)).copy()  # read at once
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.needs_host_access
def test_compiled_host_code_reads_finished_values(rng):
    @numba.njit
    def total(a):  # sequential element reads: host code
        s = 0.0
        for i in range(a.shape[0]):
            s += a[i]
        return s

    v = rng.random(N)
    want = heavy(v)
    x = nx.asarray(v)
    total(x)  # compiled before the device gets busy
    poisoned_pool(x.sycl_queue)
    y = heavy(x)
    assert total(y) == pytest.approx(want.sum(), rel=1e-9)


def _child(code: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=300,
    )


CHILD = f"""
import numpy as np, numba_ext as nx
from numba_ext import _core
x = nx.asarray(np.random.default_rng(1).random({N}))
for _ in range(4):
    x = np.sin(x) * 1.5 + np.cos(x)
print(_core._unsettled_queues())
"""


def test_launch_blocking_makes_every_launch_wait():
    left = _child(CHILD)
    blocking = _child(CHILD, NUMBA_EXT_LAUNCH_BLOCKING="1")
    assert (left.returncode, left.stdout.strip()) == (0, "1"), left.stderr
    assert (blocking.returncode, blocking.stdout.strip()) == (0, "0"), blocking.stderr


def test_exit_with_kernels_running_is_clean():
    # the process ends right after enqueueing: the kernels finish before the runtime goes
    r = _child(CHILD)
    assert r.returncode == 0 and r.stderr == "", r.stderr
