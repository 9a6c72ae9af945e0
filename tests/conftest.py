"""Test configuration: every device test runs on the default device (the Intel OpenCL CPU runtime in
CI). A missing device is a failure, never a silent skip."""

import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import pytest

# The suite's device programs go to a fresh cache directory (shared by the xdist workers, which
# inherit the environment), not the user's: every run compiles for real, and a read-only home
# directory cannot turn the cache's warning into test errors.
os.environ.setdefault("NUMBA_EXT_CACHE_DIR", tempfile.mkdtemp(prefix="numba_ext_test_programs_"))

import numba_ext

# The dpctl / dpnp interop group runs in its own environment (make test-dpnp sets this variable).
collect_ignore = [] if os.environ.get("NUMBA_EXT_DPNP_TESTS") else ["interop_dpnp"]


def pytest_report_header(config):
    q = numba_ext.default_queue()
    return (
        f"numba_ext default device: {q.device.name} [{q.device.filter_string}] target={q.device.target} "
        f"memory={q.device.memory_backend}"
    )


def _default_device():
    return numba_ext.default_queue().device


# The device the tests run on (NUMBA_EXT_DEVICE, else numba_ext's default): tests name it instead of
# "cpu" so that the suite runs unchanged with a GPU as the default device.
DEV = _default_device().filter_string


# Tests that cannot apply to every device say so with a marker; they are skipped with the reason
# (never silently) where they do not apply:
#   needs_host_access: reads numba_ext arrays on the host inside jitted code (sequential loops, 0-d
#       arithmetic), which needs host-addressable device memory (USM on the CPU device), not the
#       cl_mem buffer back end (NVIDIA GPUs, or NUMBA_EXT_FORCE_BUFFERS=1);
#   needs_spirv: checks SPIR-V binaries (the default device must take SPIR-V, not PTX);
#   needs_cpu: checks facts of the CPU runtime (sub-devices, the Intel CPU driver);
#   needs_fp16: computes on float16 data, which needs a device reporting cl_khr_fp16 (elsewhere
#       float16 is refused, which tests/arrays/test_precision_support.py checks on every device).
def pytest_collection_modifyitems(config, items):
    dev = _default_device()
    reasons = {
        "needs_host_access": None
        if dev.memory_backend == "usm"
        else "host-side access to array elements needs host-addressable memory; "
        f"{dev.filter_string} uses cl_mem buffers",
        "needs_spirv": None
        if dev.target == "spirv"
        else f"checks SPIR-V; {dev.filter_string} takes {dev.target}",
        "needs_cpu": None
        if dev.device_type == "cpu"
        else f"checks the CPU device; the default is {dev.filter_string}",
        "needs_fp16": None
        if dev.has_aspect_fp16
        else f"float16 computation; {dev.filter_string} does not report cl_khr_fp16, so float16 is refused "
        "there (checked by test_precision_support.py)",
    }
    for item in items:
        for name, reason in reasons.items():
            if reason and item.get_closest_marker(name):
                item.add_marker(pytest.mark.skip(reason=reason))


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


@pytest.fixture(params=["complex64", "complex128"])
def cdt(request, fp64):
    """Each complex dtype; complex128 on a device without fp64 is a failure (its refusal is tested
    by test_complex128_needs_fp64)."""
    if request.param == "complex128" and not fp64:
        pytest.fail("the default device has no fp64 (complex128 needs it)")
    return request.param


def spirv_val(binary: bytes, tmp_path=None) -> None:
    import tempfile

    tool = shutil.which("spirv-val")
    assert tool, "spirv-val is required (Debian package spirv-tools; make test installs it)"
    with tempfile.NamedTemporaryFile(suffix=".spv", dir=tmp_path) as f:
        f.write(binary)
        f.flush()
        r = subprocess.run([tool, f.name], capture_output=True, text=True)
    assert r.returncode == 0, f"spirv-val rejected the module: {r.stdout}{r.stderr}"


def check_device_binary(fmt: str, binary: bytes, tmp_path=None) -> None:
    """A compiled kernel is valid device code for the default device: SPIR-V passes spirv-val; PTX is
    PTX text with an entry point for the device's SM."""
    target = _default_device().target
    if target == "spirv":
        assert fmt == "spirv"
        spirv_val(binary, tmp_path)
    else:
        assert fmt == "ptx" and target.startswith("ptx:")
        text = binary.decode()
        assert ".entry " in text and f".target {target[4:]}" in text, text[:400]


def require_device_in_child_process() -> None:
    """Skip (with the reason) a test whose subprocess must use the default device, when this machine
    gives that device to one process at a time: NVIDIA's OpenCL driver on the H100 test machine hides
    the GPU from a second process while this one uses it (scripts/gpu_diag.py shows it)."""
    code = "import numba_ext; print([d.filter_string for d in numba_ext.get_devices()])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout
    if DEV not in out:
        pytest.skip(
            f"a second process cannot open {DEV} while the test process uses it (child sees {out.strip()})"
        )
