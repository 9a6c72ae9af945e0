"""``python -m numba_ext`` (versions, platforms, devices, the default device) and ``--check`` (a
kernel and a jitted expression per device, compared with NumPy), as the README tells users to run
them after installing."""

import os
import pathlib
import subprocess
import sys
import types

import numba
import numpy as np
import pytest

import numba_ext as nx
from numba_ext import selfcheck

from ..checks import tol
from ..conftest import DEV, require_device_in_child_process

ROOT = pathlib.Path(__file__).resolve().parents[2]


def run_cli(*args, **env):
    """`python -m numba_ext *args` in a child process (skipped, with the reason, where the device is
    one process's at a time)."""
    require_device_in_child_process()
    environ = dict(os.environ, **env)
    environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), environ.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-m", "numba_ext", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=environ,
        timeout=300,
    )


def test_report_names_versions_platform_and_default_device():
    r = run_cli()
    assert r.returncode == 0, r.stderr
    dev = nx.default_queue().device
    lines = r.stdout.splitlines()
    assert f"numba:           {numba.__version__}" in lines
    assert f"numpy:           {np.__version__}" in lines
    assert any(line.startswith("core LLVM:") and "libLLVM" in line for line in lines), r.stdout
    assert any(line.startswith("OpenCL platform: ") for line in lines), r.stdout
    assert f"  {DEV}: {dev.name}  (default)" in lines, r.stdout
    assert f"default device: {DEV} {dev.name} (target {dev.target})" in lines
    backend = f"memory back end {dev.memory_backend}"
    assert any(backend in line for line in lines), r.stdout
    assert "Traceback" not in r.stderr


def test_check_passes_on_every_device():
    r = run_cli("--check")
    assert r.returncode == 0, r.stdout + r.stderr
    dev = nx.default_queue().device
    passed = [line for line in r.stdout.splitlines() if line.startswith(f"  {DEV} {dev.name}: pass (kernel ")]
    assert len(passed) == 1, r.stdout
    assert "compile+first run" in passed[0] and " ms warm" in passed[0]
    n = len(nx.get_devices())
    assert r.stdout.rstrip().endswith(f"check: pass ({n} of {n} devices passed)")


def test_check_fails_without_traceback_when_the_default_device_is_unknown():
    r = run_cli("--check", NUMBA_EXT_DEVICE="opencl:accelerator:7")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "default device: FAIL (DeviceSelectorError: NUMBA_EXT_DEVICE='opencl:accelerator:7'" in r.stdout
    assert "check: FAIL" in r.stdout and "Traceback" not in r.stdout + r.stderr


def test_cache_subcommand_still_reports_the_program_cache():
    r = run_cli("cache")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("program cache: ") and "entries: " in r.stdout


def test_unusable_device_is_a_fail_line_with_its_message(monkeypatch, capsys):
    def no_queue(*args, **kwargs):
        raise RuntimeError("the driver refused\nto create a queue")

    monkeypatch.setattr(nx, "Queue", no_queue)
    assert selfcheck.run() == 1
    out = capsys.readouterr().out
    dev = nx.default_queue().device
    fail = f"  {DEV} {dev.name}: FAIL (RuntimeError: the driver refused to create a queue)"
    assert fail in out.splitlines()
    assert f"  default device: FAIL ({DEV} failed above)" in out.splitlines()
    assert "Traceback" not in out


def test_devices_numba_ext_cannot_compile_for_are_listed_not_failed(monkeypatch, capsys):
    real = nx.default_queue().device
    other = types.SimpleNamespace(filter_string="opencl:accelerator:0", name="No IL Device", target=None)
    monkeypatch.setattr(nx, "get_devices", lambda: [real, other])
    assert selfcheck.run() == 0
    lines = capsys.readouterr().out.splitlines()
    assert f"  opencl:accelerator:0 No IL Device: {selfcheck.UNSUPPORTED}" in lines
    assert lines[-1] == "check: pass (1 of 1 devices passed, 1 not checked)"


@nx.kernel
def wrong_axpy(a, x, y, out):
    i = nx.get_global_id(0)
    if i < out.shape[0]:
        out[i] = a * x[i] - y[i]


def test_wrong_results_fail_the_check(monkeypatch, rng):
    monkeypatch.setattr(selfcheck, "axpy", wrong_axpy)
    outcome = selfcheck.check_device(nx.default_queue().device, rng)
    assert not outcome.ok
    assert outcome.error.startswith("AssertionError: kernel a * x + y: "), outcome.error
    assert "values differ from NumPy" in outcome.error


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_check_tolerances_follow_the_numerics_policy(dtype):
    assert selfcheck.tolerances(np.dtype(dtype)) == tol(dtype)
