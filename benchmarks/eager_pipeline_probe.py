"""What leaving eager kernels running saves: NumPy-style code on numba_ext arrays, run with every
launch waited for (``NUMBA_EXT_LAUNCH_BLOCKING=1``) and as it runs by default (each kernel enqueued
on the in-order queue and left running; the copy of a result to the host waits). Each mode runs in
a child process of its own (the setting is read once per process); CuPy, where it is installed, runs
the same source in this process. Times are the best of 7 rounds, each round's mean over enough
calls to fill about 20 ms, with the result waited for at the end of every call (``per call``) or
only after a whole round (``stream``: the device keeps up with Python or not).

    python benchmarks/eager_pipeline_probe.py [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import types
from collections.abc import Callable
from typing import Any

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from workloads.expressions import black_scholes  # noqa: E402

MODES = {"wait for each launch": {"NUMBA_EXT_LAUNCH_BLOCKING": "1"}, "left running": {}}


def bs(price: Any, strike: Any, t: Any, xp: Any) -> Any:
    """The workloads' Black-Scholes source with ``np`` bound to `xp`."""
    f = types.FunctionType(black_scholes.__code__, {**black_scholes.__globals__, "np": xp})
    return f(price, strike, t, 0.1, 0.2)


def add(a: Any, b: Any, xp: Any) -> Any:
    return a + b


def chain(x: Any, xp: Any) -> Any:
    """Sixteen elementwise kernels."""
    for _ in range(4):
        x = xp.sin(x) * 1.5 + xp.cos(x)
    return x


def l2_norm(x: Any, xp: Any) -> Any:
    return xp.sqrt(xp.sum(x * x, axis=1))


def pairwise(x: Any, xp: Any) -> Any:
    sq = xp.sum(x * x, axis=1)
    return xp.sqrt(xp.maximum(sq[:, None] + sq[None, :] - 2.0 * (x @ x.T), 0.0))


def cases(rng: np.random.Generator) -> dict[str, tuple[Callable[..., Any], tuple[np.ndarray, ...], bool]]:
    """name: (function of (arrays..., xp), host inputs, stream): `stream` cases wait once a round."""
    options = (rng.uniform(10, 50, 1 << 22), rng.uniform(10, 50, 1 << 22), rng.uniform(1, 2, 1 << 22))
    return {
        "a + b, 16 float64 (us per call, stream)": (add, (rng.random(16), rng.random(16)), True),
        "16 elementwise kernels, 2^20 float64 (stream)": (chain, (rng.random(1 << 20),), True),
        "16 elementwise kernels, 2^20 float64 (per call)": (chain, (rng.random(1 << 20),), False),
        "black_scholes, 2^22 (per call)": (bs, options, False),
        "l2_norm, 2^20 x 3 (per call)": (l2_norm, (rng.random((1 << 20, 3)),), False),
        "pairwise_distance, 2048 x 3 (per call)": (pairwise, (rng.random((2048, 3)),), False),
    }


def best(call: Callable[[], Any], done: Callable[[Any], None], stream: bool) -> float:
    def once() -> Any:
        r = call()
        if not stream:
            done(r)
        return r

    done(once())
    t = time.perf_counter()
    done(once())
    reps = max(1, int(0.02 / max(time.perf_counter() - t, 1e-6)))
    rounds = []
    for _ in range(7):
        t = time.perf_counter()
        for _ in range(reps):
            r = once()
        done(r)
        rounds.append((time.perf_counter() - t) / reps)
    return min(rounds) * 1e3


def measure(xp: Any, to_device: Callable[[np.ndarray], Any], done: Callable[[Any], None]) -> dict[str, float]:
    out = {}
    for name, (f, host, stream) in cases(np.random.default_rng(0)).items():
        args = [to_device(h) for h in host]
        ms = best(lambda f=f, args=args: f(*args, xp), done, stream)
        out[name] = ms * 1e3 if name.startswith("a + b") else ms
    return out


def _last(r: Any) -> Any:
    return r[-1] if isinstance(r, tuple) else r


def child() -> None:
    import numba_ext as nx

    print(json.dumps(measure(np, nx.asarray, lambda r: _last(r).sycl_queue.wait())))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--json", help="write the numbers here")
    a = ap.parse_args()
    if a.child:
        return child()
    import numba_ext as nx

    columns: dict[str, dict[str, float]] = {}
    for mode, env in MODES.items():
        r = subprocess.run(
            [sys.executable, __file__, "--child"],
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            check=True,
        )
        columns[mode] = json.loads(r.stdout.strip().splitlines()[-1])
    try:
        import cupy

        sync = cupy.cuda.Device().synchronize
        columns["CuPy " + cupy.__version__] = measure(cupy, cupy.asarray, lambda r: sync())
    except ImportError:
        pass
    columns["NumPy"] = measure(np, lambda h: h, lambda r: None)
    device = nx.default_queue().device
    print(f"device: {device.name} [{device.filter_string}]; best of 7 rounds; ms, or us where marked")
    print("| case | " + " | ".join(columns) + " |")
    print("|---|" + "---|" * len(columns))
    for case in next(iter(columns.values())):
        print(f"| {case} | " + " | ".join(f"{c[case]:.3f}" for c in columns.values()) + " |")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"device": device.filter_string, "columns": columns}, f, indent=1)


if __name__ == "__main__":
    main()
