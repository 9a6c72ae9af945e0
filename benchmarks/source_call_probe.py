"""Per-call cost of a function served from its source (``numba_ext.jit`` of ``a + b``, kept off Numba
with ``NUMBA_EXT_HOT_CALLS=-1``) for three argument layouts: two arrays of one shape (16 elements),
strided views (every other element of 32) and a row broadcast over a 16x16 array. Best of 7 samples
of --calls calls each (then one wait), in microseconds per call. Run it with two builds in turn
(``PYTHONPATH=<tree>``) to compare them on the same machine.

    python benchmarks/source_call_probe.py [--calls 2000] [--label after]
"""

from __future__ import annotations

import argparse
import os
import time

os.environ["NUMBA_EXT_HOT_CALLS"] = "-1"

import numpy as np

import numba_ext


def add(a, b):
    return a + b


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--label", default="")
    opts = ap.parse_args()
    f = numba_ext.jit(add)
    rng = np.random.default_rng(1)
    a, b = numba_ext.asarray(rng.random(16)), numba_ext.asarray(rng.random(16))
    wide = numba_ext.asarray(rng.random(32))
    square, row = numba_ext.asarray(rng.random((16, 16))), numba_ext.asarray(rng.random(16))
    q = a.sycl_queue

    def per_call(x, y) -> float:
        np.testing.assert_allclose(numba_ext.asnumpy(f(x, y)), numba_ext.asnumpy(x) + numba_ext.asnumpy(y))
        q.wait()
        best = float("inf")
        for _ in range(7):
            t = time.perf_counter()
            for _ in range(opts.calls):
                f(x, y)
            q.wait()
            best = min(best, (time.perf_counter() - t) / opts.calls * 1e6)
        return best

    same, strided, broadcast = per_call(a, b), per_call(wide[::2], wide[1::2]), per_call(square, row)
    print(f"{opts.label} same shape {same:.2f} us, strided views {strided:.2f} us, ", end="")
    print(f"broadcast row {broadcast:.2f} us")


if __name__ == "__main__":
    main()
