"""np.cumsum of 2^22 float64 on the default device: NumPy, numba_ext jit and eager (medians of 7 after
a warm-up; a 1-element copy back synchronises). Run: .venv/bin/python benchmarks/scan_probe.py"""

import time

import numpy as np

import numba_ext as nx

n = 1 << 22
h = np.random.default_rng(0).random(n)
x = nx.asarray(h)
f = nx.jit(lambda a: np.cumsum(a))
t0 = time.perf_counter()
r = f(x)
r._queue.wait() if hasattr(r._queue, "wait") else None
first = time.perf_counter() - t0


def med(fn, k=7):
    ts = []
    for _ in range(k):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return sorted(ts)[k // 2] * 1e3


fn_np = lambda: np.cumsum(h)
fn_jit = lambda: nx.asnumpy(f(x)[:1])  # a 1-element copy back synchronises
fn_eager = lambda: nx.asnumpy(np.cumsum(x)[:1])
fn_np()
fn_jit()
fn_eager()
print(
    f"n={n} float64: numpy {med(fn_np):.2f} ms, numba_ext_jit {med(fn_jit):.2f} ms, numba_ext_eager "
    f"{med(fn_eager):.2f} ms, first jit call {first * 1e3:.0f} ms"
)
print("max rel err", float(np.max(np.abs(nx.asnumpy(f(x)) - np.cumsum(h)) / np.cumsum(h))))
