"""Time the library's compositions on the default device against CuPy (where it is installed) on
the same data: ``np.median``, ``np.quantile`` along an axis, ``np.einsum`` (a matrix product and a
row sum), assignment through an integer array (``x[idx] = v``, repeated positions resolved as
NumPy resolves them), ``np.interp``, ``np.cov``, a product of stacks of small matrices
(``np.matmul``) and ``np.convolve``. Each time is the best of 3 rounds, each round's
mean over `reps` calls with the device waited for at the end.

    python benchmarks/statistics_probe.py [--scale 1.0]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import numba_ext as nx


def best_ms(f: Callable[[], Any], sync: Callable[[], Any], reps: int = 10) -> float:
    f()
    sync()
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(reps):
            f()
        sync()
        best = min(best, (time.perf_counter() - start) / reps)
    return best * 1e3


def run(conv: Any, xp: Any, sync: Callable[[], Any], scale: float) -> dict[str, float]:
    rng = np.random.default_rng(0)
    n, rows, side = int((1 << 22) * scale), max(1, int(1024 * scale)), max(2, int(1024 * scale**0.5))
    h, h2, a = rng.standard_normal(n), rng.standard_normal((rows, 4096)), rng.standard_normal((side, side))
    idx, v = rng.integers(0, n, n // 4), rng.standard_normal(n // 4)
    x, x2, m, i, w = (conv.asarray(z) for z in (h, h2, a, idx, v))
    stack = max(1, int(4096 * scale))
    s1, s2 = (conv.asarray(rng.standard_normal((stack, 16, 16))) for _ in range(2))
    kernel31 = conv.asarray(rng.standard_normal(31))
    qs = conv.asarray(np.array([0.1, 0.5, 0.9])) if xp is not np else [0.1, 0.5, 0.9]
    y = x.copy()

    def assign() -> None:
        y[i] = w

    return {
        f"median of {n}": best_ms(lambda: xp.median(x), sync),
        f"quantile x3 of ({rows}, 4096), axis 1": best_ms(lambda: xp.quantile(x2, qs, axis=1), sync),
        f"einsum ij,jk->ik ({side})": best_ms(lambda: xp.einsum("ij,jk->ik", m, m), sync),
        f"einsum ij->i ({side})": best_ms(lambda: xp.einsum("ij->i", m), sync),
        f"x[idx] = v, {n // 4} of {n}": best_ms(assign, sync),
        f"interp of {n} on {side} points": best_ms(lambda: xp.interp(x, xp.sort(m[0]), m[1]), sync),
        f"cov ({side}, {side})": best_ms(lambda: xp.cov(m), sync, reps=3),
        f"matmul of ({stack}, 16, 16) stacks": best_ms(lambda: xp.matmul(s1, s2), sync),
        f"convolve {n} by 31": best_ms(lambda: xp.convolve(x, kernel31), sync, reps=3),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scale", type=float, default=1.0, help="sizes times this (default 1)")
    args = p.parse_args()
    ours = run(nx, np, nx.default_queue().wait, args.scale)  # NumPy's functions dispatch on our arrays
    try:
        import cupy as cp
    except ImportError:
        cp = None
    if cp is not None:  # the GPU's peer; without CuPy, NumPy on the host
        name, peer = "cupy", run(cp, cp, cp.cuda.Device().synchronize, args.scale)
    else:
        name, peer = "numpy", run(np, np, lambda: None, args.scale)
    print(f"device: {nx.default_queue().device.name}")
    for k, ms in ours.items():
        other = f"   {name} {peer[k]:9.3f} ms" if k in peer else ""
        print(f"{k:44s} numba_ext {ms:9.3f} ms{other}")


if __name__ == "__main__":
    main()
