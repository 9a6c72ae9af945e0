"""Time of ``x.astype(dtype)`` on the default device for a few conversions of a 1-d array (best of 7
after one warm-up, until the result is ready), next to the same conversion through the host (copy
to the host, NumPy's ``astype``, copy back: what ``astype`` did before it converted on the device)
and NumPy's ``astype`` of the host copy alone. Milliseconds.

    python benchmarks/astype_probe.py [--n 10000000]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import numba_ext

CONVERSIONS = [("float64", "float32"), ("float32", "float64"), ("float64", "int32"), ("int64", "float64")]


def best_ms(fn, wait) -> float:
    fn()
    wait()
    best = float("inf")
    for _ in range(7):
        t = time.perf_counter()
        fn()
        wait()
        best = min(best, time.perf_counter() - t)
    return best * 1e3


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10_000_000)
    opts = ap.parse_args()
    rng = np.random.default_rng(0)
    q = numba_ext.default_queue()
    print(f"device: {q.device.name}, n = {opts.n}")
    print("| conversion | on the device | through the host | NumPy on the host |")
    print("|---|---|---|---|")
    for src, dst in CONVERSIONS:
        h = (rng.standard_normal(opts.n) * 1000).astype(src)
        a = numba_ext.asarray(h)
        np.testing.assert_array_equal(numba_ext.asnumpy(a.astype(dst)), h.astype(dst))
        device = best_ms(lambda a=a, dst=dst: a.astype(dst), q.wait)
        host = best_ms(lambda a=a, dst=dst: numba_ext.asarray(numba_ext.asnumpy(a).astype(dst)), q.wait)
        numpy = best_ms(lambda h=h, dst=dst: h.astype(dst), lambda: None)
        print(f"| {src} -> {dst} | {device:.2f} | {host:.2f} | {numpy:.2f} |")


if __name__ == "__main__":
    main()
