"""Random numbers and the linear algebra solvers on the default device, against NumPy on the host
and, where installed, CuPy on its GPU: median ms of 5 after a warm-up (numba_ext's results are read
back one element, so the device has finished; CuPy's are synchronised).

Run: python benchmarks/linalg_random_probe.py [--quick]"""

from __future__ import annotations

import sys
import time

import numpy as np

import numba_ext as nx
import numba_ext.linalg as la
import numba_ext.random as nr

try:
    import cupy as cp
except ImportError:  # CuPy is a peer only where it is installed
    cp = None


def med(fn, k=5):
    fn()
    ts = []
    for _ in range(k):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return sorted(ts)[k // 2] * 1e3


def done(v):
    first = v[0] if isinstance(v, tuple) else v
    if first.size:
        nx.asnumpy(first.reshape(-1)[:1])
    return v


def cupy_done(v):
    cp.cuda.Stream.null.synchronize()
    return v


def row(name, numpy_ms, ours_ms, cupy_ms):
    c = f"{cupy_ms:10.3f}" if cupy_ms is not None else f"{'':>10}"
    print(f"{name:44s} {numpy_ms:10.3f} {ours_ms:10.3f} {c}")


def main() -> None:
    quick = "--quick" in sys.argv
    dev = nx.default_queue().device
    cupy_version = cp.__version__ if cp else "-"
    print(f"device {dev.filter_string} ({dev.name}); NumPy {np.__version__}; CuPy {cupy_version}")
    print(f"{'':44s} {'NumPy':>10} {'numba_ext':>10} {'CuPy':>10}")
    n = 1 << (20 if quick else 24)
    g, h = nr.default_rng(1), np.random.default_rng(1)
    cg = cp.random.default_rng(1) if cp else None
    row(
        f"random float64, 2^{n.bit_length() - 1}",
        med(lambda: h.random(n)),
        med(lambda: done(g.random(n))),
        med(lambda: cupy_done(cg.random(n))) if cg else None,
    )
    row(
        f"standard_normal float64, 2^{n.bit_length() - 1}",
        med(lambda: h.standard_normal(n)),
        med(lambda: done(g.standard_normal(n))),
        med(lambda: cupy_done(cg.standard_normal(n))) if cg else None,
    )
    row(
        f"integers [0, 1000) int64, 2^{n.bit_length() - 1}",
        med(lambda: h.integers(0, 1000, n)),
        med(lambda: done(g.integers(0, 1000, n))),
        med(lambda: cupy_done(cg.integers(0, 1000, n))) if cg else None,
    )

    rng = np.random.default_rng(0)
    cases = [
        ("solve", (2000, 16, 16), lambda m: m),
        ("det", (2000, 16, 16), lambda m: m),
        ("inv", (256, 64, 64), lambda m: m),
        ("cholesky", (1000, 32, 32), lambda m: m @ np.swapaxes(m, -1, -2) + 32 * np.eye(32)),
        ("eigh", (256, 16, 16), lambda m: m + np.swapaxes(m, -1, -2)),
        ("svdvals", (256, 16, 16), lambda m: m),
        ("qr", (256, 32, 16), lambda m: m),
        ("svd", (256, 16, 16), lambda m: m),
        ("solve", (1, 256, 256), lambda m: m),
    ]
    if quick:
        cases = [(f, (s[0] // 8 or 1, *s[1:]), mk) for f, s, mk in cases]
    for fn, shape, make in cases:
        host = make(rng.standard_normal(shape) + shape[-1] * 0.5 * np.eye(*shape[-2:]))
        numpy_ms, ours_ms, cupy_ms = time_case(fn, host, rng.standard_normal(shape[:-1]))
        row(f"{fn} {shape}", numpy_ms, ours_ms, cupy_ms)


def time_case(fn: str, host: np.ndarray, rhs: np.ndarray) -> tuple[float, float, float | None]:
    """NumPy's, numba_ext's and CuPy's time of one linear algebra function of `host`."""
    x, b = nx.asarray(host), nx.asarray(rhs)
    numpy_fn = {
        "solve": lambda: np.linalg.solve(host, rhs[..., None]),
        "det": lambda: np.linalg.det(host),
        "inv": lambda: np.linalg.inv(host),
        "cholesky": lambda: np.linalg.cholesky(host),
        "eigh": lambda: np.linalg.eigh(host),
        "svdvals": lambda: np.linalg.svd(host, compute_uv=False),
        "qr": lambda: np.linalg.qr(host),
        "svd": lambda: np.linalg.svd(host),
    }[fn]
    ours = {
        "solve": lambda: done(la.solve(x, b[..., None])),
        "det": lambda: done(la.det(x)),
        "inv": lambda: done(la.inv(x)),
        "cholesky": lambda: done(la.cholesky(x)),
        "eigh": lambda: done(la.eigh(x)),
        "svdvals": lambda: done(la.svdvals(x)),
        "qr": lambda: done(la.qr(x)),
        "svd": lambda: done(la.svd(x)),
    }[fn]
    cupy_ms = None
    if cp is not None:
        ch, cr = cp.asarray(host), cp.asarray(rhs)
        cupy_fn = {
            "solve": lambda: cp.linalg.solve(ch, cr[..., None]),
            "det": lambda: cp.linalg.det(ch),
            "inv": lambda: cp.linalg.inv(ch),
            "cholesky": lambda: cp.linalg.cholesky(ch),
            "eigh": lambda: cp.linalg.eigh(ch),
            "svdvals": lambda: cp.linalg.svd(ch, compute_uv=False),
            "qr": lambda: cp.linalg.qr(ch),
            "svd": lambda: cp.linalg.svd(ch),
        }[fn]
        cupy_ms = med(lambda: cupy_done(cupy_fn()))
    return med(numpy_fn), med(ours), cupy_ms


if __name__ == "__main__":
    main()
