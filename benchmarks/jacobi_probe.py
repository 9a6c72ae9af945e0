"""Time the eigensolver (``np.linalg.eigh``: tridiagonalization and the QL method, or Jacobi
rotations), the SVD (``np.linalg.svd``: bidiagonalization and the QR method, or one-sided Jacobi
rotations) and Householder QR of stacks of matrices
on the default device, in each of the forms a device can take (a work-item per matrix, a few
launches per step, a work-group per matrix), against the
peer (CuPy where it is installed, else NumPy on the host); each result is checked against NumPy's
first. Each time is the best of 2 rounds of one call, the device waited for at the end of each.

    python benchmarks/jacobi_probe.py [--cases 1x256 4096x8] [--forms serial stepped group] [--values]
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np
from statistics_probe import best_ms  # the same timing as the other device probes

import numba_ext as nx
from numba_ext import decompositions


def _check(name: str, got: Any, want: np.ndarray, scale: float) -> None:
    err = float(np.abs(nx.asnumpy(got) - want).max()) / scale
    if not err < 1e-10:
        raise SystemExit(f"{name}: relative error {err:.1e}")


def _times(linalg: Any, sync: Any, sym: Any, gen: Any, qr: bool = True, values: bool = False) -> str:
    """eigh of `sym`, svd and qr of `gen` by `linalg`, each the best of 2 rounds; with `values`,
    also eigvalsh and svdvals (``svd(compute_uv=False)``)."""
    t_eigh = best_ms(lambda: linalg.eigh(sym), sync, reps=1)
    t_svd = best_ms(lambda: linalg.svd(gen), sync, reps=1)
    t_qr = best_ms(lambda: linalg.qr(gen), sync, reps=1) if qr else float("nan")
    line = f"eigh {t_eigh:10.2f} ms  svd {t_svd:10.2f} ms  qr {t_qr:9.2f} ms"
    if values:
        t_w = best_ms(lambda: linalg.eigvalsh(sym), sync, reps=1)
        t_s = best_ms(lambda: linalg.svd(gen, compute_uv=False), sync, reps=1)
        line += f"  eigvalsh {t_w:9.2f} ms  svdvals {t_s:9.2f} ms"
    return line


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cases", nargs="+", default=["1x64", "1x256", "1x1024", "16x64", "4096x8"])
    p.add_argument("--forms", nargs="+", default=["device"], choices=["device", "serial", "stepped", "group"])
    p.add_argument("--values", action="store_true", help="also time eigvalsh and svdvals")
    args = p.parse_args()
    try:
        import cupy as cp
    except ImportError:
        cp = None
    q = nx.default_queue()
    own, own_qr, own_eigh = decompositions._svd_form, decompositions._lu_form, decompositions._eigh_form
    print(f"device: {q.device.name}")
    rng = np.random.default_rng(0)
    for case in args.cases:
        batch, n = (int(v) for v in case.split("x"))
        h = rng.standard_normal((batch, n, n))
        s = h @ np.swapaxes(h, -1, -2)
        ref_w, ref_s = np.linalg.eigvalsh(s), np.linalg.svd(h, compute_uv=False)
        x, hx = nx.asarray(s), nx.asarray(h)
        for form in args.forms:
            forced = lambda d, b, k, f=form: f
            decompositions._svd_form = own if form == "device" else forced
            decompositions._lu_form = own_qr if form == "device" else forced  # QR's form
            decompositions._eigh_form = own_eigh if form == "device" else forced
            _check("eigh", np.linalg.eigh(x)[0], ref_w, float(np.abs(ref_w).max()))
            _check("svd", np.linalg.svd(hx, compute_uv=False), ref_s, float(ref_s.max()))
            print(
                f"{batch:5d}x{n:<5d} {form:8s} {_times(np.linalg, q.wait, x, hx, values=args.values)}",
                flush=True,
            )
        decompositions._svd_form, decompositions._lu_form, decompositions._eigh_form = (
            own,
            own_qr,
            own_eigh,
        )
        if cp is not None:  # CuPy's qr takes single matrices only
            peer = _times(
                cp.linalg, cp.cuda.Device().synchronize, cp.asarray(s), cp.asarray(h), batch == 1, args.values
            )
            print(f"{batch:5d}x{n:<5d} cupy     {peer}", flush=True)
        else:
            print(
                f"{batch:5d}x{n:<5d} numpy    {_times(np.linalg, lambda: None, s, h, values=args.values)}",
                flush=True,
            )


if __name__ == "__main__":
    main()
