"""Diagnostics for the GPU check (scripts/gpu_check.sh): whether child processes see the same OpenCL
devices as a parent that already uses the GPU (several tests start Python subprocesses)."""

import os
import subprocess
import sys

import numpy as np

import numba_ext as nx


def child(label, code, **kw):
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, **kw)
    print(f"-- child ({label}): rc={r.returncode} stdout={r.stdout.strip()[-300:]!r}")
    if r.returncode or r.stderr.strip():
        print("   stderr:", r.stderr.strip()[-1500:])


LIST = "import numba_ext as nx; print([d.filter_string for d in nx.get_devices()])"
print(
    "OCL_ICD_VENDORS",
    os.environ.get("OCL_ICD_VENDORS"),
    "OCL_ICD_FILENAMES",
    os.environ.get("OCL_ICD_FILENAMES"),
)
env = {k: v for k, v in os.environ.items() if not k.startswith(("OCL_", "OPENCL"))}
# numba_ext registers NVIDIA's driver itself: a fresh process with no OpenCL variables sees the GPU
child("no OCL_ variables, before the parent uses the GPU", LIST, env=env)
PROBE = (
    "import os, ctypes, numba_ext.devices.drivers as i; f = os.environ.get('OCL_ICD_VENDORS'); "
    "print('registered', f, os.environ.get('OCL_ICD_FILENAMES'), "
    "sorted(os.listdir(f)) if f else None, [open(os.path.join(f, n)).read().strip() for n in "
    "os.listdir(f)] if f else None); "
    "lib = ctypes.CDLL('libOpenCL.so.1'); n = ctypes.c_uint(0); "
    "print('clGetPlatformIDs', lib.clGetPlatformIDs(0, None, ctypes.byref(n)), n.value)"
)
child("no OCL_ variables: registration and raw platform count", PROBE, env=env)
child(
    "no OCL_ variables, OCL_ICD_VENDORS given",
    PROBE,
    env={**env, "OCL_ICD_VENDORS": os.environ.get("OCL_ICD_VENDORS", "")},
)
print("env keys dropped:", sorted(k for k in os.environ if k.startswith(("OCL_", "OPENCL"))))
child("before the parent uses the GPU", LIST)
# is the GPU one process at a time for any API? a CUDA (CuPy) process starting an OpenCL child
child(
    "a CuPy process, then its OpenCL child",
    "import cupy, subprocess, sys; cupy.arange(4).sum().item(); "
    f"print(subprocess.run([sys.executable, '-c', {LIST!r}], capture_output=True, text=True).stdout.strip())",
)
x = nx.asarray(np.arange(10.0))
print("parent:", nx.default_queue().device.filter_string, nx.asnumpy(x * 2.0)[:3])
child("parent holds the GPU", LIST)
child("parent holds the GPU, cwd=/tmp", LIST, cwd="/tmp")
child("no OCL_ variables", LIST, env=env)
child("python -m numba_ext", "import runpy; runpy.run_module('numba_ext', run_name='__main__')")
