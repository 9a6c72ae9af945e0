"""Devices, selectors, contexts, queues and queue equivalence."""

import os
import subprocess
import sys

import pytest

import numba_ext
from numba_ext import Context, Device, Queue

from ..conftest import DEV, require_device_in_child_process


def test_devices_are_discovered_with_filter_strings():
    devs = numba_ext.get_devices()
    assert devs
    for d in devs:
        assert d.filter_string.startswith(f"opencl:{d.device_type}:")
        assert d.name and d.vendor
    d = Device(DEV)
    assert d.target == "spirv" or d.target.startswith("ptx:sm_")
    assert d.memory_backend in ("usm", "buffer") and d.has_usm == (d.memory_backend == "usm")
    forced = os.environ.get("NUMBA_EXT_FORCE_BUFFERS", "0") not in ("", "0")
    if forced or d.vendor.lower().startswith("nvidia"):
        assert d.memory_backend == "buffer"  # NVIDIA's OpenCL has no USM; the switch forces buffers


@pytest.mark.needs_cpu
def test_intel_cpu_runtime_is_registered():
    cpu = [d for d in numba_ext.get_devices() if d.device_type == "cpu"]
    assert cpu, "the Intel OpenCL CPU runtime must be registered by numba_ext itself"
    assert cpu[0].target == "spirv"


@pytest.mark.needs_cpu
@pytest.mark.parametrize("selector", ["", "cpu", "opencl:cpu", "opencl:cpu:0", "opencl", "OPENCL:CPU:0"])
def test_selectors(selector):
    d = Device(selector)
    if selector:
        assert d.device_type == "cpu"
    assert d == Device(d.filter_string)


def test_default_device_and_queue():
    q = numba_ext.default_queue()
    assert q.device == Device()
    assert q is numba_ext.default_queue()


@pytest.mark.needs_cpu
@pytest.mark.parametrize("selector", ["opencl:cpu:7", "tpu", "opencl:cpu:x", "level_zero:gpu", "cpu:cpu"])
def test_unknown_selector_lists_devices(selector):
    with pytest.raises(numba_ext.errors.DeviceSelectorError) as ei:  # a ValueError too
        Device(selector)
    with pytest.raises(numba_ext.errors.DeviceSelectorError):
        numba_ext.Queue(selector)
    assert isinstance(ei.value, ValueError)
    msg = str(ei.value)
    assert selector in msg
    assert "opencl:cpu:0" in msg  # the available devices are listed


def test_gpu_selector_without_gpu_is_clear():
    if any(d.device_type == "gpu" for d in numba_ext.get_devices()):
        assert Device("gpu").device_type == "gpu"
    else:
        with pytest.raises(numba_ext.errors.DeviceSelectorError, match="matches no device"):
            Device("gpu")


def test_device_properties():
    d = Device(DEV)
    assert isinstance(d.has_fp64, bool)
    assert d.max_work_group_size >= 1
    assert d.max_compute_units >= 1
    assert DEV in repr(d)
    assert hash(d) == hash(Device(DEV))


def test_queues_share_the_default_context_and_are_equivalent():
    d = Device(DEV)
    q1, q2 = Queue(d), Queue(DEV)
    assert q1 != q2  # distinct queue objects
    assert q1.context == q2.context  # one default context per root device
    assert q1.equivalent(q2) and q2.equivalent(q1)
    assert q1.device == d and q1.in_order
    q1.wait()


def test_equivalence_needs_same_context_device_and_properties():
    d = Device(DEV)
    base = Queue(d)
    other_ctx = Queue(d, context=Context([d]))
    assert other_ctx.context != base.context
    assert not base.equivalent(other_ctx)
    ooo = Queue(d, in_order=False)
    assert not ooo.in_order
    assert not base.equivalent(ooo)
    ctx = Context(d)
    a, b = Queue(d, context=ctx), Queue(context=ctx)
    assert a.equivalent(b)
    assert a.context.devices == [d]


@pytest.mark.needs_cpu  # sub-devices: the CPU runtime partitions, NVIDIA's OpenCL does not
def test_queue_with_device_outside_context():
    d = Device("cpu")
    subs = d.create_sub_devices(partition=1)
    ctx = Context(subs[:1])
    with pytest.raises(ValueError, match="not part of the given context"):
        Queue(d, context=ctx)


def test_bad_queue_arguments():
    with pytest.raises(TypeError):
        Queue(3.5)
    with pytest.raises(TypeError):
        Context([1, 2])


def test_module_lists_devices():
    require_device_in_child_process()
    out = subprocess.run(
        [sys.executable, "-m", "numba_ext"], capture_output=True, text=True, check=True
    ).stdout
    for d in numba_ext.get_devices():
        assert d.filter_string in out


def test_icd_registration_needs_no_environment():
    # a fresh interpreter with no OpenCL variables finds the default device (the Intel CPU runtime
    # from PyPI, or NVIDIA's driver: numba_ext registers both with the ICD loader itself)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OCL_", "OPENCL"))}
    code = "import numba_ext; print([d.filter_string for d in numba_ext.get_devices()])"
    require_device_in_child_process()
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout
    assert DEV in out
