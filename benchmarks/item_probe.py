"""Item style against OpenCL style, interleaved: for each kernel workload, its ``numba_ext_kernel`` and
``numba_ext_kernel_item`` variants run in alternation on the same device inputs (so drift of the
machine or the device hits both alike), and the median of the per-round time ratios is reported.
Sequential runs of the suite cannot resolve a few percent on a shared machine; this can.

    .venv/bin/python benchmarks/item_probe.py [--preset S] [--rounds 200] [--workloads a,b]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import nx, sync, to_device
from workloads import load

KERNEL_WORKLOADS = (
    "black_scholes",
    "stream_triad",
    "stream_copy",
    "l2_norm",
    "pairwise_distance",
    "rambo",
    "gpairs",
    "kmeans",
    "knn",
)


def probe(name: str, preset: str, rounds: int) -> tuple[float, float, float]:
    """(median OpenCL-style ms, median item-style ms, median of the per-round ratios item/OpenCL)."""
    mod = load(name)
    variants = {v.name: v for v in mod.VARIANTS}
    cl, item = variants["numba_ext_kernel"], variants["numba_ext_kernel_item"]
    args = mod.make_inputs(np.random.default_rng(0), **mod.SIZES[preset])
    dev = to_device(tuple(args))
    fns = [v.make(*dev) if v.make else v.fn for v in (cl, item)]
    for f in fns:  # compile and warm up
        for _ in range(3):
            sync(f(*dev))
    times = np.empty((rounds, 2))
    for r in range(rounds):
        for k in (0, 1) if r % 2 == 0 else (1, 0):  # alternate which goes first
            t = time.perf_counter()
            sync(fns[k](*dev))
            times[r, k] = time.perf_counter() - t
    med = np.median(times, axis=0) * 1e3
    return float(med[0]), float(med[1]), float(np.median(times[:, 1] / times[:, 0]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="S")
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--workloads", default=",".join(KERNEL_WORKLOADS))
    a = ap.parse_args()
    q = nx.default_queue()
    print(f"device {q.device.filter_string} ({q.device.name}), preset {a.preset}, {a.rounds} rounds")
    print("| workload | OpenCL style ms | item style ms | item/OpenCL (median of rounds) |")
    print("|---|---|---|---|")
    for name in a.workloads.split(","):
        rounds = a.rounds if name not in ("gpairs", "knn", "kmeans") else max(20, a.rounds // 5)
        c, i, ratio = probe(name, a.preset, rounds)
        print(f"| {name} | {c:.4g} | {i:.4g} | {ratio:.3f} |", flush=True)


if __name__ == "__main__":
    main()
