"""First-call time in a fresh process (compilation + one call) against a disk-cache hit in a new
process. Each sample starts a new Python process (this file run as a script), which imports the
libraries, copies the inputs to the device (untimed) and times the first call of Black-Scholes (the
``black_scholes`` workload's sources) on 1024 options, up to the synchronised result; the result comes
back through a file and is validated like any other. Process start and imports are not in the time.

* ``numba_parallel``: ``numba.njit(parallel=True)`` prange source, compiled in the child;
* ``numba_parallel_cache_hit``: the same with ``cache=True``, loaded from a cache directory that an
  untimed child filled first (under ``$BENCH_OUT_DIR`` or benchmarks/out/, removed afterwards);
* ``numba_ext_jit`` / ``numba_ext_prange``: the array-expression and prange sources under
  ``@numba_ext.jit``, cold: Numba's compilation plus the device kernels (SPIR-V/PTX generation and the
  OpenCL driver's build, with an empty program cache);
* ``numba_ext_jit_cache_hit`` / ``numba_ext_prange_cache_hit``: the same with ``cache=True``, loaded
  from Numba's cache directory and numba_ext's program cache that an untimed child filled first;
* ``numba_ext_jit_warm_memory``: the second call in the same process (compiled code in memory).

Only the first sample of a variant differs from the others in the OS file cache; all are first calls.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve()
if __name__ != "__main__":
    from harness import OUT_DIR, Variant

    from workloads import black_scholes as bs

SIZES = {preset: {"n": 1024} for preset in ("S", "M", "L")}
MAX_REPS = 3  # every sample is a new process
WARMUP = 0
KINDS = (
    "numba_parallel",
    "numba_parallel_cache",
    "numba_ext_jit",
    "numba_ext_prange",
    "numba_ext_jit_cache",
    "numba_ext_prange_cache",
    "numba_ext_jit_second",
)


def make_inputs(rng, n):
    return bs.make_inputs(rng, n)


def reference(*args):
    return bs.reference(*args)


def _child(kind: str, args: tuple, env: dict | None = None) -> tuple[float, tuple]:
    with tempfile.TemporaryDirectory(prefix="first_call_") as d:
        np.savez(os.path.join(d, "in.npz"), *args)
        proc = subprocess.run(
            [sys.executable, str(HERE), kind, d],
            capture_output=True,
            text=True,
            env={**os.environ, **(env or {})},
            timeout=600,
        )
        if proc.returncode != 0:
            tail = (proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"])[-1]
            raise RuntimeError(f"child process ({kind}) failed with status {proc.returncode}: {tail}")
        info = json.loads(proc.stdout.strip().splitlines()[-1])
        with np.load(os.path.join(d, "out.npz")) as out:
            result = (out["call"], out["put"])
    return info["first_call_s"], result


def _runner(kind: str, env: dict | None = None):
    def run(*args):
        return _child(kind, args, env)

    return run


def _temp_dir(prefix: str) -> Path:
    import atexit

    d = Path(tempfile.mkdtemp(prefix=prefix, dir=_cache_root()))
    atexit.register(shutil.rmtree, d, True)
    return d


def make_cold(kind: str):
    """A runner whose every process starts with an empty program cache (nothing built before)."""

    def run(*args):
        return _child(kind, args, {"NUMBA_EXT_CACHE_DIR": str(_temp_dir("programs-"))})

    return run


def make_cache_hit(kind: str):
    def make(*args):
        cache = _temp_dir("numba-cache-")
        env = {"NUMBA_CACHE_DIR": str(cache / "numba"), "NUMBA_EXT_CACHE_DIR": str(cache / "programs")}
        _child(kind, args, env)  # fills the caches (untimed, part of "first call")
        run = _runner(kind, env)
        run.cache_dir = cache
        return run

    return make


def _cache_root() -> Path:
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    return OUT_DIR


if __name__ != "__main__":
    VARIANTS = [
        Variant(
            "numba_parallel",
            make=lambda *a: _runner("numba_parallel"),
            self_timed=True,
            note="numba.njit(parallel=True), first call in a new process",
        ),
        Variant(
            "numba_parallel_cache_hit",
            make=make_cache_hit("numba_parallel_cache"),
            self_timed=True,
            note="numba.njit(parallel=True, cache=True), first call in a new process with a warm disk cache",
        ),
        Variant(
            "numba_ext_jit",
            make=lambda *a: make_cold("numba_ext_jit"),
            self_timed=True,
            requires="numba_ext",
            note="@numba_ext.jit array expressions, first call in a new process, empty program cache",
        ),
        Variant(
            "numba_ext_prange",
            make=lambda *a: make_cold("numba_ext_prange"),
            self_timed=True,
            requires="numba_ext",
            note="@numba_ext.jit prange loop, first call in a new process, empty program cache",
        ),
        Variant(
            "numba_ext_jit_cache_hit",
            make=make_cache_hit("numba_ext_jit_cache"),
            self_timed=True,
            requires="numba_ext",
            note="@numba_ext.jit(cache=True) array expressions, first call in a new process, warm caches",
        ),
        Variant(
            "numba_ext_prange_cache_hit",
            make=make_cache_hit("numba_ext_prange_cache"),
            self_timed=True,
            requires="numba_ext",
            note="@numba_ext.jit(cache=True) prange loop, first call in a new process, warm disk caches",
        ),
        Variant(
            "numba_ext_jit_warm_memory",
            make=lambda *a: _runner("numba_ext_jit_second"),
            self_timed=True,
            requires="numba_ext",
            note="@numba_ext.jit array expressions, second call in the process (compiled code in memory)",
        ),
    ]


def _child_main(kind: str, d: str) -> None:
    sys.path.insert(0, str(HERE.parent.parent))  # benchmarks/
    with np.load(os.path.join(d, "in.npz")) as f:
        args = [f[f"arr_{i}"] for i in range(len(f.files))]
    args = [a if a.ndim else float(a) for a in args]
    import numba

    from workloads import black_scholes as bsm

    if kind.startswith("numba_ext"):
        import numba_ext

        args = [numba_ext.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
        args[0].sycl_queue.wait()
        cache = kind.endswith("_cache")
        if kind.startswith("numba_ext_jit"):
            fn = numba_ext.jit(bsm.black_scholes, cache=cache)
        else:
            fn = numba_ext.jit(bsm.black_scholes_nx_prange.py_func, cache=cache)
        if kind.endswith("_second"):
            fn(*args)[0].sycl_queue.wait()
    else:
        fn = numba.njit(parallel=True, cache=kind == "numba_parallel_cache")(bsm._black_scholes_prange)
    t0 = time.perf_counter()
    call, put = fn(*args)
    if kind.startswith("numba_ext"):
        call.sycl_queue.wait()
    elapsed = time.perf_counter() - t0
    if kind.startswith("numba_ext"):
        call, put = numba_ext.asnumpy(call), numba_ext.asnumpy(put)
    np.savez(os.path.join(d, "out.npz"), call=call, put=put)
    print(json.dumps({"kind": kind, "first_call_s": elapsed}))


if __name__ == "__main__":
    _child_main(sys.argv[1], sys.argv[2])
