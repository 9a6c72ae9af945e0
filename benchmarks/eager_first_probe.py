"""The first eager operations of a new process: ``import numba_ext``, creating two arrays, then the
first call of each operation below (its kernel compiled or loaded, then run), each process with an
empty on-disk cache (``cold``) and then with the cache an earlier process filled (``warm``). Also
says whether Numba was imported by the end (the operations listed never need it). ``s @ s.T`` is a
(100, 1000) by (1000, 100) product; ``z`` is a complex128 array of `n` elements, ``zm`` its
(n / 1000, 1000) view.

    python benchmarks/eager_first_probe.py [--n 1000000] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve()
OPERATIONS = [
    "a + b",
    "a * 2.5 - b",
    "np.sqrt(a)",
    "a < b",
    "a.sum()",
    "a.max()",
    "m.mean(axis=0)",
    "a.astype(f32)",
    "np.where(a > b, a, b)",
    "np.clip(a, 0.2, 0.8)",
    "(a > 0.5).any()",
    "np.dot(a, b)",
    "s @ s.T",
    "a.argmax()",
    "np.cumsum(a)",
    "z.sum()",
    "zm.mean(axis=0)",
    "np.cumsum(z)",
]


def child(n: int) -> dict:
    t0 = time.perf_counter()
    import numpy as np

    import numba_ext

    t_import = time.perf_counter() - t0
    rng = np.random.default_rng(1)
    t0 = time.perf_counter()
    a = numba_ext.asarray(rng.random(n))
    b = numba_ext.asarray(rng.random(n))
    m = a.reshape(n // 1000, 1000)
    s = m[:100]
    z = numba_ext.asarray(rng.random(n) + 1j * rng.random(n))
    zm = z.reshape(n // 1000, 1000)
    a.sycl_queue.wait()
    t_create = time.perf_counter() - t0
    env = {"np": np, "a": a, "b": b, "m": m, "s": s, "z": z, "zm": zm, "f32": np.float32}
    times = {}
    for op in OPERATIONS:
        t0 = time.perf_counter()
        r = eval(op, env)
        if hasattr(r, "sycl_queue"):
            r.sycl_queue.wait()
        times[op] = time.perf_counter() - t0
    info = numba_ext._core.program_cache_info()
    return {
        "import_s": t_import,
        "create_s": t_create,
        "ops_s": times,
        "numba_imported": "numba" in sys.modules,
        "code_hits": info["code_hits"],
        "program_hits": info["hits"],
        "device": numba_ext.default_queue().device.name,
    }


def run(n: int, cache_dir: str) -> dict:
    env = {**os.environ, "NUMBA_EXT_CACHE_DIR": cache_dir}
    cmd = [sys.executable, str(HERE), "--child", str(n)]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(p.stderr[-2000:])
    return json.loads(p.stdout.strip().splitlines()[-1])


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        print(json.dumps(child(int(sys.argv[2]))))
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=3)
    opts = ap.parse_args()
    rows: dict[str, list[dict]] = {"cold": [], "warm": []}
    for _ in range(opts.runs):
        with tempfile.TemporaryDirectory() as d:
            rows["cold"].append(run(opts.n, d))
            rows["warm"].append(run(opts.n, d))
    print(f"device: {rows['cold'][0]['device']}, n = {opts.n}, median of {opts.runs} processes per mode")
    for mode, rs in rows.items():

        def med(f, rs=rs):
            return statistics.median(f(r) for r in rs) * 1e3

        total = med(lambda r: sum(r["ops_s"].values()))
        print(
            f"{mode}: import {med(lambda r: r['import_s']):.1f} ms, "
            f"three arrays {med(lambda r: r['create_s']):.1f} ms, "
            f"all {len(OPERATIONS)} first operations {total:.1f} ms, Numba imported: "
            f"{any(r['numba_imported'] for r in rs)}, code from disk {rs[-1]['code_hits']}, "
            f"programs from disk {rs[-1]['program_hits']}"
        )
        for op in OPERATIONS:
            print(f"  {op:16s} {statistics.median(r['ops_s'][op] for r in rs) * 1e3:8.2f} ms")


if __name__ == "__main__":
    main()
