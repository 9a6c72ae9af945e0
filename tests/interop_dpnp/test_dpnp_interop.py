"""dpctl and dpnp with numba_ext on one OpenCL device, both ways. Zero copy wherever the memory
stays in one OpenCL context (same data pointer, writes visible on both sides); dpnp.asarray of a
numba_ext array is dpnp's own device copy inside the shared context."""

import os
import subprocess
import sys

import dpctl
import dpnp
import dpnp.tensor as dpt
import numpy as np
import pytest

import numba_ext
import numba_ext.arrays.transfers as transfers
from numba_ext.devices import dpctl_queue_of, queue_from_dpctl
from numba_ext.errors import ExecutionPlacementError, InteropError
from tests.checks import check


def ptr(x):
    return x.__sycl_usm_array_interface__["data"][0]


def native_context(q):
    return queue_from_dpctl(q).context._native


def test_dpnp_array_into_asarray_zero_copy(rng):
    h = rng.standard_normal(37)
    x = dpnp.asarray(h)
    a = numba_ext.asarray(x)
    assert ptr(a) == ptr(x)
    assert a.sycl_queue is x.sycl_queue  # the dpctl queue it came from
    assert isinstance(a.queue, numba_ext.Queue)
    check(a, h)
    a[3] = 7.5  # writes through numba_ext land in dpnp's memory
    h[3] = 7.5
    np.testing.assert_array_equal(dpnp.asnumpy(x), h)


def test_dpnp_and_tensor_arrays_into_jit(rng):
    h1, h2 = rng.standard_normal(50), rng.standard_normal(50)
    x, y = dpnp.asarray(h1), dpt.asarray(h2, sycl_queue=dpnp.asarray(h1).sycl_queue)

    @numba_ext.jit
    def f(a, b):
        return np.sin(a) * b + 1.0

    r = f(x, y)
    assert r.sycl_queue is x.sycl_queue  # the queue inferred from the dpnp array
    check(r, np.sin(h1) * h2 + 1.0)


def test_jit_writes_into_dpnp_array(rng):
    h = rng.standard_normal(64)
    x = dpnp.asarray(h)
    out = dpnp.full(64, np.nan)

    @numba_ext.jit
    def g(a, o):
        o[:] = a * 2.0

    g(x, out)
    np.testing.assert_allclose(dpnp.asnumpy(out), h * 2.0, rtol=1e-12, atol=0)


def test_dpnp_arrays_into_kernel(rng):
    h = rng.standard_normal(128)
    x = dpnp.asarray(h)
    out = dpnp.full(128, np.nan)

    @numba_ext.kernel
    def k(a, b):
        i = numba_ext.get_global_id(0)
        b[i] = a[i] * 3.0 - 1.0

    numba_ext.call_kernel(k, numba_ext.Range(128), x, out)
    np.testing.assert_allclose(dpnp.asnumpy(out), h * 3.0 - 1.0, rtol=1e-12, atol=1e-14)


def test_dpnp_sees_pending_writes_of_dpnp(rng):
    # dpnp submits asynchronously; numba_ext waits for the dpctl queue before using the memory
    h = rng.standard_normal(1 << 16)
    x = dpnp.asarray(h) * 2.0 + 1.0
    check(numba_ext.asarray(x), h * 2.0 + 1.0)


def test_ours_into_dpnp_tensor_zero_copy(rng):
    h = rng.standard_normal(41)
    a = numba_ext.asarray(h)
    t = dpt.asarray(a)
    assert ptr(t) == ptr(a)
    assert native_context(t.sycl_queue) == a.queue.context._native
    np.testing.assert_array_equal(dpt.asnumpy(t), h)
    d = dpnp.asarray(t)  # a dpnp array over the same memory
    assert ptr(d) == ptr(a)
    d[0] = -3.0
    h[0] = -3.0
    check(a, h)


def test_ours_into_dpnp_asarray(rng):
    h = rng.standard_normal(29)
    a = numba_ext.asarray(h)
    d = dpnp.asarray(a)
    np.testing.assert_array_equal(dpnp.asnumpy(d), h)
    # dpnp.asarray copies any __sycl_usm_array_interface__ object (a SYCL copy on the device, in the
    # one context both share): the copy lives in numba_ext's OpenCL context
    assert ptr(d) != ptr(a)
    assert native_context(d.sycl_queue) == a.queue.context._native
    np.testing.assert_allclose(dpnp.asnumpy(d * 2.0), h * 2.0, rtol=1e-12, atol=0)


def test_empty_on_dpctl_queue(rng, dq):
    e = numba_ext.empty(8, sycl_queue=dq)
    assert e.sycl_queue is dq
    assert e.queue is queue_from_dpctl(dq)
    assert e.queue.context._native == native_context(dq)
    h = rng.standard_normal(8)
    e[...] = h
    d = dpnp.asarray(dpt.asarray(e))
    assert ptr(d) == ptr(e) and d.sycl_queue == dq
    assert numba_ext.asarray(d).queue is e.queue  # dpctl's copy of the queue object: the same queue
    np.testing.assert_array_equal(dpnp.asnumpy(d), h)


def test_dpctl_queue_and_device_keywords(rng, dq):
    h = rng.standard_normal(16)
    a = numba_ext.asarray(h, device=dq)
    z = numba_ext.zeros(16, device=dq.sycl_device)  # a device: numba_ext's queue for that device
    assert a.queue is queue_from_dpctl(dq)
    assert z.device == a.device and z.queue is numba_ext.asarray(h, device=a.device).queue
    check(a * 2.0, h * 2.0)
    check(z, np.zeros(16))
    with numba_ext.offload_to(dq) as q:
        assert q is queue_from_dpctl(dq)
        r = numba_ext.jit(lambda v: v * 2.0)(h)
    np.testing.assert_allclose(r, h * 2.0, rtol=1e-12, atol=0)


def test_dpnp_and_ours_together_on_one_context(rng):
    h1, h2 = rng.standard_normal(33), rng.standard_normal(33)
    x = dpnp.asarray(h1)
    a = numba_ext.asarray(h2, sycl_queue=x.sycl_queue)  # ours, in dpnp's context
    check(numba_ext.jit(lambda p, q: p - q)(x, a), h1 - h2)


def test_dpnp_and_ours_on_different_contexts_refused(rng):
    x = dpnp.asarray(rng.standard_normal(8))
    a = numba_ext.asarray(rng.standard_normal(8))  # numba_ext's default context, not dpnp's
    with pytest.raises(ExecutionPlacementError, match="non-equivalent queues"):
        numba_ext.jit(lambda p, q: p + q)(x, a)


def test_queue_round_trip(dq):
    q = queue_from_dpctl(dq)
    assert queue_from_dpctl(dq) is q and dpctl_queue_of(q) is dq
    ours = numba_ext.default_queue()
    dq2 = dpctl_queue_of(ours)
    assert isinstance(dq2, dpctl.SyclQueue) and dpctl_queue_of(ours) is dq2
    assert queue_from_dpctl(dq2).context == ours.context
    assert queue_from_dpctl(dq2).equivalent(ours)


def test_sycl_queue_of_ours_is_dpctl(rng):
    a = numba_ext.arange(5.0)
    assert isinstance(a.sycl_queue, dpctl.SyclQueue)
    assert isinstance(a.queue, numba_ext.Queue)
    b = numba_ext.ones(5, sycl_queue=a.sycl_queue)  # numba_ext takes it back: the same queue
    assert b.queue is a.queue
    check(a + b, np.arange(5.0) + 1.0)


# DLPack, both ways: needs numba_ext.from_dlpack and ndarray.__dlpack__ (arrays/dlpack.py).
def test_from_dlpack_dpnp_into_ours(rng):
    h = rng.standard_normal(19)
    x = dpnp.asarray(h)
    a = numba_ext.from_dlpack(x)
    check(a, h)
    assert ptr(a) == ptr(x)


def test_from_dlpack_ours_into_dpnp(rng):
    h = rng.standard_normal(23)
    a = numba_ext.asarray(h, sycl_queue=dpnp.asarray(h).sycl_queue)  # in dpctl's default context
    d = dpnp.from_dlpack(a)
    np.testing.assert_array_equal(dpnp.asnumpy(d), h)
    assert ptr(d) == ptr(a)


def test_explicit_move_between_dpnp_and_ours_is_one_copy(rng, monkeypatch):
    def staged(x):
        raise AssertionError("the copy went through host memory")

    monkeypatch.setattr(transfers, "copy_to_host", staged)
    h = rng.standard_normal(300)
    x = dpnp.asarray(h)
    a = numba_ext.asarray(x, sycl_queue=numba_ext.default_queue())  # dpnp's context -> ours
    assert a.queue is numba_ext.default_queue() and ptr(a) != ptr(x)
    b = numba_ext.asarray(a, sycl_queue=x.sycl_queue)  # and back
    assert b.sycl_queue is x.sycl_queue
    monkeypatch.undo()
    check(a, h)
    np.testing.assert_array_equal(dpnp.asnumpy(dpnp.asarray(dpt.asarray(b))), h)


def test_get_execution_queue_takes_dpctl_queues(rng):
    x = dpnp.asarray(rng.standard_normal(4))
    a = numba_ext.asarray(rng.standard_normal(4), sycl_queue=x.sycl_queue)
    assert numba_ext.utils.get_execution_queue([x.sycl_queue, a.sycl_queue]) is x.sycl_queue
    assert numba_ext.utils.get_execution_queue([x.sycl_queue, numba_ext.arange(2.0).sycl_queue]) is None


def test_sub_device_queue_stays_ours(rng):
    # dpctl does not list numba_ext's sub-devices, so their contexts are not handed to SYCL
    sub = numba_ext.default_queue().device.create_sub_devices(partition=1)[0]
    q = numba_ext.Queue(sub)
    h = rng.standard_normal(6)
    a = numba_ext.asarray(h, sycl_queue=q)
    assert a.sycl_queue is q and a.__sycl_usm_array_interface__["syclobj"] is q
    check(a, h)


def test_level_zero_queue_refused():
    gpus = [d for d in dpctl.get_devices() if d.backend.name != "opencl"]
    if not gpus:
        pytest.skip("no non-OpenCL SYCL device here (ONEAPI_DEVICE_SELECTOR=opencl:cpu)")
    with pytest.raises(InteropError, match="OpenCL devices only"):
        numba_ext.empty(3, sycl_queue=dpctl.SyclQueue(gpus[0]))


def test_buffer_back_end_refuses_dpctl_memory():
    # a child process: the back end is chosen when numba_ext starts
    code = (
        "import dpnp, numba_ext\n"
        "from numba_ext.errors import InteropError\n"
        "try:\n"
        "    numba_ext.asarray(dpnp.arange(4.0))\n"
        "except InteropError as e:\n"
        "    print('refused:', e)\n"
    )
    env = dict(os.environ, NUMBA_EXT_FORCE_BUFFERS="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert "refused:" in out.stdout and "cl_mem buffers" in out.stdout, out.stdout + out.stderr
