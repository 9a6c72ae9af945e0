"""Time LU-based solvers of one large matrix on the default device against the peer (CuPy where it
is installed, else NumPy on the host): ``np.linalg.det``, ``np.linalg.solve`` of one right-hand
side and ``np.linalg.inv``. Each time is the best of 3 rounds of `reps` calls, the device waited
for at the end of each.

    python benchmarks/lu_probe.py [--sizes 256 1024]
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

import numpy as np
from statistics_probe import best_ms  # the same timing as the other device probes

import numba_ext as nx


def run(conv: Any, sync: Callable[[], Any], n: int) -> dict[str, float]:
    rng = np.random.default_rng(0)
    h = rng.standard_normal((n, n)) / n**0.5 + np.eye(n)
    a, b = conv.asarray(h), conv.asarray(rng.standard_normal(n))
    return {
        "det": best_ms(lambda: conv.linalg.det(a), sync, reps=3),
        "solve": best_ms(lambda: conv.linalg.solve(a, b), sync, reps=3),
        "inv": best_ms(lambda: conv.linalg.inv(a), sync, reps=3),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[256, 1024])
    args = p.parse_args()
    try:
        import cupy as cp
    except ImportError:
        cp = None
    print(f"device: {nx.default_queue().device.name}")

    class Ours:  # np.linalg's functions dispatch on numba_ext arrays
        asarray = staticmethod(nx.asarray)
        linalg = np.linalg

    for n in args.sizes:
        ours = run(Ours, nx.default_queue().wait, n)
        if cp is not None:
            name, peer = "cupy", run(cp, cp.cuda.Device().synchronize, n)
        else:
            name, peer = "numpy", run(np, lambda: None, n)
        for k, ms in ours.items():
            print(f"{k:6s} n={n:5d}   numba_ext {ms:9.3f} ms   {name} {peer[k]:9.3f} ms")


if __name__ == "__main__":
    main()
