"""Test configuration: every device test runs on the default device (the Intel OpenCL CPU runtime in
CI). A missing device is a failure, never a silent skip."""

import os
import shutil
import subprocess

import numpy as np
import pytest

import numba_ext


def pytest_report_header(config):
    q = numba_ext.default_queue()
    return f"numba_ext default device: {q.device.name} [{q.device.filter_string}] target={q.device.target}"


@pytest.fixture(scope="session", autouse=True)
def _device_available():
    devs = numba_ext.get_devices()
    assert devs, "no OpenCL device found: the test setup must install intel-opencl-rt (make test does)"
    assert numba_ext.default_queue().device.target is not None, "the default device cannot run our code"


@pytest.fixture
def queue():
    return numba_ext.default_queue()


@pytest.fixture
def rng():
    # fresh random inputs every run; the seed is printed on failure through the fixture value
    seed = int.from_bytes(os.urandom(4), "little")
    return np.random.default_rng(seed)


@pytest.fixture
def fp64(queue):
    return queue.device.has_fp64


def spirv_val(binary: bytes, tmp_path=None) -> None:
    import tempfile

    tool = shutil.which("spirv-val")
    assert tool, "spirv-val is required (Debian package spirv-tools; make test installs it)"
    with tempfile.NamedTemporaryFile(suffix=".spv", dir=tmp_path) as f:
        f.write(binary)
        f.flush()
        r = subprocess.run([tool, f.name], capture_output=True, text=True)
    assert r.returncode == 0, f"spirv-val rejected the module: {r.stdout}{r.stderr}"
