"""Memory kept per compiled-then-dropped function: compiles N distinct jitted functions (each with
its own device kernel), calls and drops each, and reports the growth of the process's resident
memory and the device kernels still alive: ``numba_ext.jit`` as it serves an array-expression
function (compiled from its source, no Numba), the same function compiled by Numba
(``NUMBA_EXT_HOT_CALLS=0``), ``@numba_ext.kernel`` kernels (typed by Numba, compiled by numba_ext:
no host code), plain ``numba.njit`` on numba_ext arrays, and on NumPy arrays (Numba's own cost per
compiled function, with numba_ext's hooks installed: most of it is what each run of an llvmlite pass
builder leaves behind, about 80 kB, five runs per compiled function, and the module Numba's JIT
keeps; numba_ext's host libraries avoid both for the functions that handle its types).

    python benchmarks/function_memory.py [--n 200]
"""

from __future__ import annotations

import argparse
import gc
import os

import numba
import numpy as np

import numba_ext


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def make(c: float):
    def f(a):
        return np.sqrt(a) * 2.0 + c

    return f


def make_kernel(c: float):
    def k(a, out):
        i = numba_ext.get_global_id(0)
        out[i] = a[i] * 2.0 + c

    return k


def _launch(c: float, x, out) -> None:
    numba_ext.kernel(make_kernel(c))[x.shape[0]](x, out)
    out.sycl_queue.wait()


def _by_numba(f, *args):
    os.environ["NUMBA_EXT_HOT_CALLS"] = "0"  # Numba from the first call
    try:
        return numba_ext.jit(f)(*args)
    finally:
        del os.environ["NUMBA_EXT_HOT_CALLS"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200)
    n = ap.parse_args().n
    x, xn = numba_ext.asarray(np.arange(100.0)), np.arange(100.0)
    out = numba_ext.empty_like(x)
    runs = {
        "numba_ext.jit on numba_ext arrays (from the source)": lambda c: numba_ext.jit(make(c))(x),
        "numba_ext.jit on numba_ext arrays, compiled by Numba": lambda c: _by_numba(make(c), x),
        "numba_ext.kernel on numba_ext arrays": lambda c: _launch(c, x, out),
        "numba.njit on numba_ext arrays": lambda c: numba.njit(make(c))(x),
        "numba.njit on NumPy arrays": lambda c: numba.njit(make(c))(xn),
    }
    for name, once in runs.items():
        for i in range(20):  # warm-up: first compiles, pools, caches
            once(1000.0 + i)
        gc.collect()
        before = rss_mb()
        for i in range(n):
            once(float(i))
        gc.collect()
        grown = rss_mb() - before
        print(
            f"{name}: {n} functions, +{grown:.1f} MB ({grown / n * 1024:.0f} kB each); "
            f"device kernels alive: {numba_ext._core._live_kernels()}"
        )


if __name__ == "__main__":
    main()
