"""Where a jitted function's first call in a new process spends its time, phase by phase: import,
Numba compilation (typing and lowering) with the device-code generation inside it (numba_ext's
kernel compiles: graph, LLVM, SPIR-V/PTX), the first run (the driver's program build, from source or
from the program cache, plus the run) and a warm call. Each configuration runs in its own process:

* ``cold``: no Numba cache, an empty program cache;
* ``programs``: no Numba cache, the program cache filled by an earlier process;
* ``disk``: ``jit(cache=True)`` with Numba's cache and the program cache filled by an earlier process.

``import numba_ext`` does not import Numba; the probe loads it (with the compiler layer) as its own
phase, which a program's first jitted call, eager operation or kernel pays.

    python benchmarks/first_call_probe.py [--workloads l2_norm,black_scholes] [--preset S]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve()
SOURCES = {"l2_norm": "l2_norm", "black_scholes": "black_scholes"}


def timed_call(fn, args) -> float:
    """Seconds for one call of `fn`, up to its (first) result being ready on the device."""
    t = time.perf_counter()
    out = fn(*args)
    first = out[0] if isinstance(out, tuple) else out
    if hasattr(first, "sycl_queue"):
        first.sycl_queue.wait()
    return time.perf_counter() - t


def child(workload: str, preset: str, cache: bool) -> dict:
    t0 = time.perf_counter()
    import numpy as np

    import numba_ext
    from numba_ext import _core

    t_import = time.perf_counter() - t0
    # Numba and the compiler layer load on first use (the first jitted call would pay it)
    t0 = time.perf_counter()
    import numba_ext.compiler

    t_numba = time.perf_counter() - t0
    sys.path.insert(0, str(HERE.parent))
    from workloads import black_scholes, l2_norm

    mod = {"l2_norm": l2_norm, "black_scholes": black_scholes}[workload]
    spent = {"codegen_s": 0.0, "kernels": 0}
    for name in ("compile_kernel", "compile_function"):
        real = getattr(_core, name)

        def timed(*a, _real=real):
            t = time.perf_counter()
            try:
                return _real(*a)
            finally:
                spent["codegen_s"] += time.perf_counter() - t
                spent["kernels"] += 1

        setattr(_core, name, timed)
    inputs = mod.make_inputs(np.random.default_rng(0), **mod.SIZES[preset])
    args = [numba_ext.asarray(a) if isinstance(a, np.ndarray) else a for a in inputs]
    fn = numba_ext.jit(getattr(mod, workload), cache=cache)
    t = time.perf_counter()
    fn._compile_result(tuple(args), {})  # typing, lowering and device code, no run
    t_compile = time.perf_counter() - t
    t_first, t_second = timed_call(fn, args), timed_call(fn, args)
    info = _core.program_cache_info()
    return {
        "import_s": t_import,
        "numba_import_s": t_numba,
        "compile_s": t_compile,
        **spent,
        "first_run_s": t_first,
        "warm_call_s": t_second,
        "driver_builds": info["misses"],
        "program_cache_hits": info["hits"],
        "device": numba_ext.default_queue().device.name,
    }


def run(workload: str, preset: str, mode: str, env: dict) -> dict:
    cmd = [sys.executable, str(HERE), "--child", workload, preset, "1" if mode == "disk" else "0"]
    p = subprocess.run(cmd, env={**os.environ, **env}, capture_output=True, text=True, timeout=900)
    if p.returncode != 0:
        raise RuntimeError(p.stderr[-2000:])
    return json.loads(p.stdout.strip().splitlines()[-1])


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        workload, preset, cache = sys.argv[2], sys.argv[3], sys.argv[4] == "1"
        print(json.dumps(child(workload, preset, cache)))
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--workloads", default="l2_norm,black_scholes")
    ap.add_argument("--preset", default="S")
    opts = ap.parse_args()
    for workload in opts.workloads.split(","):
        with tempfile.TemporaryDirectory() as d:
            env = {"NUMBA_CACHE_DIR": f"{d}/numba", "NUMBA_EXT_CACHE_DIR": f"{d}/programs"}
            rows = [("cold", run(workload, opts.preset, "cold", env))]
            rows.append(("programs", run(workload, opts.preset, "programs", env)))
            run(workload, opts.preset, "disk", env)  # fills Numba's cache
            rows.append(("disk", run(workload, opts.preset, "disk", env)))
        for mode, r in rows:
            print(
                f"{workload:14s} {mode:9s} import {r['import_s'] * 1e3:7.1f} ms  "
                f"Numba on first use {r['numba_import_s'] * 1e3:7.1f} ms  "
                f"compile {r['compile_s'] * 1e3:7.1f} ms "
                f"(device code {r['codegen_s'] * 1e3:6.1f} ms, {r['kernels']} kernels)  first run "
                f"{r['first_run_s'] * 1e3:7.1f} ms (driver builds {r['driver_builds']}, program cache hits "
                f"{r['program_cache_hits']})  warm call {r['warm_call_s'] * 1e3:6.2f} ms  [{r['device']}]"
            )


if __name__ == "__main__":
    main()
