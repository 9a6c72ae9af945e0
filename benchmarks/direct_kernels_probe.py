"""Eager ``np.dot`` / ``@``, ``sum``, ``argmax`` and ``np.cumsum`` per call (warm: compiled, then the
best of 7 rounds of repeated calls), through the direct kernels of ``ir.products``,
``ir.reductions`` and ``ir.scans`` and through the Numba-compiled helpers they replaced
(``compiler.reduction_helpers``, ``compiler.scans``), on the default device.

    python benchmarks/direct_kernels_probe.py [--sizes 256,1024] [--no-products]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import numba_ext as nx
from numba_ext.compiler import reduction_helpers, scans


def best_ms(f) -> float:
    """The best of 7 rounds of the mean time of one call, each round as many calls as fill about
    20 ms (short calls on a shared CPU vary too much one at a time)."""

    def call():
        r = f()
        if hasattr(r, "sycl_queue"):
            r.sycl_queue.wait()

    call()
    t = time.perf_counter()
    call()
    reps = max(1, int(0.02 / max(time.perf_counter() - t, 1e-6)))
    rounds = []
    for _ in range(7):
        t = time.perf_counter()
        for _ in range(reps):
            call()
        rounds.append((time.perf_counter() - t) / reps)
    return min(rounds) * 1e3


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="256,1024")
    ap.add_argument("--no-products", action="store_true", help="skip the matrix products (slow on CPUs)")
    opts = ap.parse_args()
    rng = np.random.default_rng(0)
    print(f"device: {nx.default_queue().device.name}")
    for n in map(int, opts.sizes.split(",")):
        a, b = nx.asarray(rng.standard_normal((n, n))), nx.asarray(rng.standard_normal((n, n)))
        v = nx.asarray(rng.standard_normal(n * n))
        mm = reduction_helpers.dot_function(2, 2, "float64", "device")
        vv = reduction_helpers.dot_function(1, 1, "float64", "device")
        products = [(f"({n},{n}) @ ({n},{n})", lambda: a @ b, lambda: mm(a, b))]  # noqa: B023 (this pass)
        for what, direct, helper in (
            *([] if opts.no_products else products),
            (f"dot of two {n * n}-vectors", lambda: float(np.dot(v, v)), lambda: float(vv(v, v))),  # noqa: B023
        ):
            print(f"{what:32s} direct {best_ms(direct):9.2f} ms   helper {best_ms(helper):9.2f} ms")
        whole = reduction_helpers.whole_function("argmax", 1, v.dtype, True)
        along = reduction_helpers.axis_reducer("argmax", 2, "int64", "device")
        total = reduction_helpers.whole_function("sum", 1, v.dtype, True)
        for what, direct, helper in (
            (f"sum of {n * n} elements", lambda: float(v.sum()), lambda: float(total(v))),  # noqa: B023
            (f"argmax of {n * n} elements", lambda: int(v.argmax()), lambda: int(whole(v))),  # noqa: B023
            (f"argmax(axis=1) of ({n},{n})", lambda: a.argmax(axis=1), lambda: along(a, 1)),  # noqa: B023
        ):
            print(f"{what:32s} direct {best_ms(direct):9.2f} ms   helper {best_ms(helper):9.2f} ms")
        scan = scans.scan_function("cumsum", "float64", "device")
        what = f"cumsum of {n * n} elements"
        direct_ms, helper_ms = best_ms(lambda: np.cumsum(v)), best_ms(lambda: scan(v))  # noqa: B023
        print(f"{what:32s} direct {direct_ms:9.2f} ms   helper {helper_ms:9.2f} ms")


if __name__ == "__main__":
    main()
