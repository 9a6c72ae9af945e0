"""Per-call cost of a function served from its source (``numba_ext.jit`` of ``a + b``, kept off Numba
with ``NUMBA_EXT_HOT_CALLS=-1``) for three argument layouts: two arrays of one shape (16 elements),
strided views (every other element of 32) and a row broadcast over a 16x16 array; and of
``l2_norm`` (``np.sqrt(np.sum(np.square(a), axis=1))``: three kernels) on a 16x3 array, served from
its source and as Numba compiles it (``numba_ext.compiler.jit``), and of ``norm``
(``np.sqrt(np.sum(a * a))``: a reduction over every element, a Python float) on 48 elements, the
same two ways. Best of 7 samples of --calls calls
each (then one wait), in microseconds per call. Run it with two builds in turn (``PYTHONPATH=<tree>``)
to compare them on the same machine.

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


def l2_norm(a):
    return np.sqrt(np.sum(np.square(a), axis=1))


def norm(a):
    return np.sqrt(np.sum(a * a))


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

    def per_call(x, y, fn=f, want=None) -> float:
        want = numba_ext.asnumpy(x) + numba_ext.asnumpy(y[0]) if want is None else want
        np.testing.assert_allclose(numba_ext.asnumpy(fn(x, *y)), want, rtol=1e-12)
        q.wait()
        best = float("inf")
        for _ in range(7):
            t = time.perf_counter()
            for _ in range(opts.calls):
                fn(x, *y)
            q.wait()
            best = min(best, (time.perf_counter() - t) / opts.calls * 1e6)
        return best

    same, strided = per_call(a, (b,)), per_call(wide[::2], (wide[1::2],))
    broadcast = per_call(square, (row,))
    print(f"{opts.label} same shape {same:.2f} us, strided views {strided:.2f} us, ", end="")
    print(f"broadcast row {broadcast:.2f} us")
    m = numba_ext.asarray(rng.random((16, 3)))
    norms = np.sqrt((numba_ext.asnumpy(m) ** 2).sum(axis=1))
    served = per_call(m, (), numba_ext.jit(l2_norm), norms)
    compiled = per_call(m, (), numba_ext.compiler.jit(l2_norm), norms)
    print(f"{opts.label} l2_norm 16x3: from the source {served:.2f} us, compiled by Numba {compiled:.2f} us")
    v = numba_ext.asarray(rng.random(48))
    length = float(np.sqrt((numba_ext.asnumpy(v) ** 2).sum()))

    def scalar_call(fn) -> float:
        np.testing.assert_allclose(fn(v), length, rtol=1e-12)
        best = float("inf")
        for _ in range(7):
            t = time.perf_counter()
            for _ in range(opts.calls):
                fn(v)
            best = min(best, (time.perf_counter() - t) / opts.calls * 1e6)  # a float: already waited
        return best

    served, compiled = scalar_call(numba_ext.jit(norm)), scalar_call(numba_ext.compiler.jit(norm))
    print(f"{opts.label} norm of 48: from the source {served:.2f} us, compiled by Numba {compiled:.2f} us")


if __name__ == "__main__":
    main()
