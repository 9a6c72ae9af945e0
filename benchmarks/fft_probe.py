"""Time the Fourier transforms on the default device against CuPy (where it is installed) and
NumPy (on the host) on the same data: a long complex transform, batches of rows, a 2-D transform,
a real transform and a prime length (Bluestein's algorithm). Each time is the best of 3 rounds,
each round's mean over `reps` calls with the device waited for at the end.

    python benchmarks/fft_probe.py [--scale 1.0]
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

import numpy as np
from statistics_probe import best_ms  # the same timing: best of 3 rounds of a mean over reps

import numba_ext as nx


def run(conv: Any, xp: Any, sync: Callable[[], Any], scale: float) -> dict[str, float]:
    rng = np.random.default_rng(0)
    n, rows, side = max(16, int((1 << 22) * scale)), max(1, int(1024 * scale)), max(8, int(2048 * scale**0.5))
    prime = 1_000_003 if scale >= 0.5 else 100_003

    def cplx(*shape: int) -> Any:
        return conv.asarray(rng.standard_normal(shape) + 1j * rng.standard_normal(shape))

    long, batch, square, real, odd = (
        cplx(n),
        cplx(rows, 4096),
        cplx(side, side),
        conv.asarray(rng.standard_normal(n)),
        cplx(prime),
    )
    return {
        f"fft of {n} complex128": best_ms(lambda: xp.fft.fft(long), sync),
        f"fft of ({rows}, 4096) rows": best_ms(lambda: xp.fft.fft(batch), sync),
        f"fft2 of ({side}, {side})": best_ms(lambda: xp.fft.fft2(square), sync),
        f"rfft of {n} float64": best_ms(lambda: xp.fft.rfft(real), sync),
        f"fft of {prime} (prime)": best_ms(lambda: xp.fft.fft(odd), sync),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scale", type=float, default=1.0, help="sizes times this (default 1)")
    args = p.parse_args()
    ours = run(nx, np, nx.default_queue().wait, args.scale)  # np.fft dispatches on our arrays
    host = run(np, np, lambda: None, args.scale)
    try:
        import cupy as cp
    except ImportError:
        cp = None
    peer = run(cp, cp, cp.cuda.Device().synchronize, args.scale) if cp is not None else {}
    print(f"device: {nx.default_queue().device.name}")
    for k, ms in ours.items():
        other = f"   cupy {peer[k]:9.3f} ms" if k in peer else ""
        print(f"{k:34s} numba_ext {ms:9.3f} ms   numpy {host[k]:9.3f} ms{other}")


if __name__ == "__main__":
    main()
