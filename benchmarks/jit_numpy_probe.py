"""Time NumPy functions of numba_ext arrays called from jitted code (the compiled code calls the
eager library, holding the GIL) against the same eager call from Python and against the peer: CuPy
where it is installed, else NumPy on the host. Small arrays show the call's own cost (boxing the
arguments, typing-free dispatch, unboxing the result); large ones the operation. Each time is the
best of 3 rounds, each round's mean over `reps` calls with the device waited for at the end.

    python benchmarks/jit_numpy_probe.py [--scale 1.0]
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from statistics_probe import best_ms  # the same timing as the other device probes

import numba_ext as nx

CASES: dict[str, Callable[..., Any]] = {
    "sort": lambda v, m: np.sort(v),
    "median": lambda v, m: np.median(v),
    "concatenate": lambda v, m: np.concatenate((v, v)),
    "roll": lambda v, m: np.roll(v, 3),
    "linalg.solve": lambda v, m: np.linalg.solve(m, m[0]),
    "linalg.det": lambda v, m: np.linalg.det(m),
}


def run(conv: Any, sync: Callable[[], Any], n: int, side: int, jit: bool) -> dict[str, float]:
    rng = np.random.default_rng(0)
    v = conv.asarray(rng.standard_normal(n))
    m = conv.asarray(rng.standard_normal((side, side)) / side**0.5 + np.eye(side))
    out = {}
    for name, fn in CASES.items():
        f = numba.njit(fn) if jit else fn
        out[name] = best_ms(lambda f=f: f(v, m), sync, reps=20)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scale", type=float, default=1.0, help="the large sizes times this (default 1)")
    args = p.parse_args()
    try:
        import cupy as cp
    except ImportError:
        cp = None
    sync = nx.default_queue().wait
    print(f"device: {nx.default_queue().device.name}")
    for label, n, side in (
        ("small", 1000, 16),
        ("large", max(1000, int((1 << 22) * args.scale)), max(16, int(512 * args.scale**0.5))),
    ):
        jitted, eager = run(nx, sync, n, side, True), run(nx, sync, n, side, False)
        if cp is not None:
            name, peer = "cupy", run(cp, cp.cuda.Device().synchronize, n, side, False)
        else:
            name, peer = "numpy", run(np, lambda: None, n, side, False)
        print(f"-- {label}: vectors of {n}, matrices {side}x{side}")
        for k in CASES:
            print(f"{k:14s} jitted {jitted[k]:9.3f} ms   eager {eager[k]:9.3f} ms   {name} {peer[k]:9.3f} ms")


if __name__ == "__main__":
    main()
