"""Sorting, gathering and compaction of float64 data on the default device: numba_ext's eager
np.sort / np.argsort / np.searchsorted / np.take / x[mask] / np.nonzero against NumPy on the host and,
where installed, CuPy on its GPU (medians of 7 after a warm-up; numba_ext's operations wait for their
kernels, CuPy's are synchronised). Run: python benchmarks/sorting_probe.py [log2 sizes, default 20 24]"""

import sys
import time

import numpy as np

import numba_ext as nx

try:
    import cupy as cp
except ImportError:  # CuPy is a peer only where it is installed
    cp = None


def med(fn, k=7):
    fn()
    ts = []
    for _ in range(k):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return sorted(ts)[k // 2] * 1e3


def sync(v):
    if cp is not None:
        cp.cuda.Stream.null.synchronize()
    return v


def finished(v):
    """`v` once the device has written it: one element read back (a copy waits for the queue)."""
    first = v[0] if isinstance(v, tuple) else v
    if first.size:
        nx.asnumpy(first.reshape(-1)[:1])
    return v


def cases(mod, x, idx, mask, needles):
    return {
        "sort": lambda: mod.sort(x),
        "argsort (stable)": lambda: mod.argsort(x, kind="stable"),
        "searchsorted 2^16 needles": lambda: mod.searchsorted(x, needles),
        "take 2^k random": lambda: mod.take(x, idx),
        "x[mask] (half)": lambda: x[mask],
        "nonzero (half)": lambda: mod.nonzero(mask),
    }


def main():
    sizes = [int(a) for a in sys.argv[1:]] or [20, 24]
    print(f"device: {nx.default_queue().device.name}; CuPy: {cp.__version__ if cp else 'not installed'}")
    print("| case | n | NumPy ms | numba_ext ms | CuPy ms |")
    print("|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    for k in sizes:
        n = 1 << k
        h = rng.random(n)
        hidx = rng.integers(0, n, n)
        hmask = rng.random(n) < 0.5
        hneedles = rng.random(1 << 16)
        hs = np.sort(h)
        host = cases(np, h, hidx, hmask, hneedles)
        host["searchsorted 2^16 needles"] = lambda hs=hs, v=hneedles: np.searchsorted(hs, v)
        dev_args = [nx.asarray(v) for v in (h, hidx, hmask, hneedles)]
        ds = nx.asarray(hs)
        dev = cases(np, *dev_args)  # NumPy's functions of numba_ext arrays run on the device
        dev["searchsorted 2^16 needles"] = lambda ds=ds, v=dev_args[3]: np.searchsorted(ds, v)
        peer = {}
        if cp is not None:
            cargs = [cp.asarray(v) for v in (h, hidx, hmask, hneedles)]
            cs = cp.asarray(hs)
            peer = cases(cp, *cargs)
            peer["searchsorted 2^16 needles"] = lambda cs=cs, v=cargs[3]: cp.searchsorted(cs, v)
        for name in host:
            got = dev[name]()
            want = host[name]()
            for g, w in zip(
                got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)
            ):
                if not np.array_equal(nx.asnumpy(g), w):
                    raise SystemExit(f"{name}: numba_ext differs from NumPy")
            t_np = med(host[name])
            t_nx = med(lambda f=dev[name]: finished(f()))
            t_cp = f"{med(lambda f=peer[name]: sync(f())):.3f}" if peer else "n/a"
            print(f"| {name} | 2^{k} | {t_np:.3f} | {t_nx:.3f} | {t_cp} |")


if __name__ == "__main__":
    main()
