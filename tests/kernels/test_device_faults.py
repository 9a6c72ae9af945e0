"""What follows a kernel that faults on the device: the queue is marked (``Queue.faulted``) and
refused from then on (every launch and copy raises DeviceFaultError naming the fault and the queue),
and other queues keep working. A real fault cannot be caused on purpose on every device (the CPU
driver ends the process on an access to unmapped memory), so the queue is marked the way the launch's
wait marks it on a failure (``rust/src/runtime/launch.rs``)."""

import pytest

import numba_ext as nx
from numba_ext import errors
from tests.checks import check


@nx.kernel
def scale(a, s):
    i = nx.get_global_id(0)
    a[i] = a[i] * s


_FAULT = "kernel 'scale_0123' failed on the device (OpenCL error -9999 (CL_UNKNOWN_ERROR) in clWaitForEvents)"


def test_a_faulted_queue_is_refused_and_others_keep_working(rng):
    h = rng.standard_normal(32)
    bad = nx.Queue(nx.default_queue().device)
    x = nx.asarray(h, sycl_queue=bad)
    scale[32](x, 2.0)
    check(x, h * 2.0)
    assert bad.faulted is None
    bad._mark_faulted(_FAULT)
    assert bad.faulted == _FAULT
    with pytest.raises(
        errors.DeviceFaultError, match=r"Queue\(.*\) is no longer usable: kernel 'scale_0123'"
    ) as e:
        scale[32](x, 2.0)
    assert isinstance(e.value, errors.LaunchError) and "create a new queue" in str(e.value)
    with pytest.raises(errors.DeviceFaultError, match="no longer usable"):
        nx.asnumpy(x)  # copies are refused too
    with pytest.raises(errors.DeviceFaultError, match="no longer usable"):
        nx.asarray(h, sycl_queue=bad)

    good = nx.Queue(nx.default_queue().device)  # a new queue on the same device works
    y = nx.asarray(h, sycl_queue=good)
    scale[32](y, 3.0)
    check(y, h * 3.0)
    assert good.faulted is None and nx.default_queue().faulted is None


def test_device_fault_error_is_exported():
    assert nx.DeviceFaultError is errors.DeviceFaultError
    assert issubclass(errors.DeviceFaultError, RuntimeError) and issubclass(
        errors.DeviceFaultError, ValueError
    )
