"""Where a jitted function's first call in a new process spends its time: import, the first call
(compilation and the first run), and a warm call, for the NumPy sources of ``workloads/expressions.py``
(a module that imports only NumPy), each configuration in its own process:

* ``cold``: an empty program cache, no disk cache;
* ``programs``: the program cache filled by an earlier process (no code generation, no driver build;
  no ``cache=True``);
* ``disk``: ``jit(cache=True)`` with its disk cache and the program cache filled by an earlier process.

Each runs twice: as ``numba_ext.jit`` serves it (``path`` ``source``: array-expression functions,
and those reducing along an axis as l2_norm does or over every element as standardize does, compiled
from their source without Numba;
``numba`` where the function needs Numba) and with ``NUMBA_EXT_HOT_CALLS=0`` (Numba from the first
call). Within the first
call, ``numba load`` is the import of Numba and the compiler layer (0 when the call did not need
them) and ``device code`` the time in numba_ext's kernel compiles (graph, LLVM, SPIR-V/PTX).

    python benchmarks/first_call_probe.py [--workloads l2_norm,black_scholes,laplace,standardize] [--preset S]
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
SIZES = {
    "l2_norm": {"S": (1 << 16, 3)},
    "black_scholes": {"S": 1 << 16},
    "laplace": {"S": (512, 512)},
    "standardize": {"S": 1 << 20},
}


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
    sys.path.insert(0, str(HERE.parent))
    from workloads import expressions

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
    rng = np.random.default_rng(0)
    if workload == "black_scholes":
        n = SIZES[workload][preset]
        host = [rng.uniform(10.0, 50.0, n), rng.uniform(10.0, 50.0, n), rng.uniform(1.0, 2.0, n), 0.1, 0.2]
    else:
        host = [rng.random(SIZES[workload][preset])]
    args = [numba_ext.asarray(a) if isinstance(a, np.ndarray) else a for a in host]
    args[0].sycl_queue.wait()
    fn = numba_ext.jit(getattr(expressions, workload), cache=cache)
    loaded_before = "numba_ext.compiler" in sys.modules
    t_numba = 0.0
    if os.environ.get("NUMBA_EXT_HOT_CALLS") == "0":  # the Numba path: its load as a phase of its own
        t0 = time.perf_counter()
        import numba_ext.compiler

        t_numba = time.perf_counter() - t0
    t_first = timed_call(fn, args)
    t_second = timed_call(fn, args)
    info = _core.program_cache_info()
    return {
        "import_s": t_import,
        "path": "source" if fn._impl is None else "numba",
        "numba_loaded_before": loaded_before,
        "numba_load_s": t_numba,
        "first_call_s": t_first,
        **spent,
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
        rows = []
        for numba_first in (False, True):
            with tempfile.TemporaryDirectory() as d:
                env = {"NUMBA_CACHE_DIR": f"{d}/numba", "NUMBA_EXT_CACHE_DIR": f"{d}/programs"}
                if numba_first:
                    env["NUMBA_EXT_HOT_CALLS"] = "0"
                rows.append(("cold", run(workload, opts.preset, "cold", env)))
                rows.append(("programs", run(workload, opts.preset, "programs", env)))
                run(workload, opts.preset, "disk", env)  # fills the disk caches
                rows.append(("disk", run(workload, opts.preset, "disk", env)))
        for mode, r in rows:
            numba = r["numba_load_s"] * 1e3
            print(
                f"{workload:14s} {mode:9s} {r['path']:6s} import {r['import_s'] * 1e3:6.1f} ms  "
                f"first call {(r['first_call_s'] + r['numba_load_s']) * 1e3:7.1f} ms (numba load "
                f"{numba:6.1f} ms, device code {r['codegen_s'] * 1e3:6.1f} ms in {r['kernels']} kernels, "
                f"driver builds {r['driver_builds']}, program cache hits {r['program_cache_hits']})  "
                f"warm call {r['warm_call_s'] * 1e3:6.2f} ms  [{r['device']}]"
            )


if __name__ == "__main__":
    main()
