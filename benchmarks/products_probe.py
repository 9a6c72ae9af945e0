"""Matrix products ``a @ b`` of C-contiguous matrices on the default device: in tiles
(``ir.products.tiled_function``, what eager products take), one result element per work-item (the
form they took before: ``product_function``, forced in the same process), and through the
Numba-compiled helper that jitted code calls (``compiler.reduction_helpers.dot_function``), next to
NumPy's BLAS (on the host) and CuPy's cuBLAS (where CuPy and a CUDA GPU are there). Warm: compiled,
then the best of 7 rounds of repeated calls (``direct_kernels_probe.best_ms``). NumPy runs after
every device timing: its BLAS threads keep spinning after a call and would take the CPU device's
cores.

    python benchmarks/products_probe.py [--sizes 100,500,1000,2000] [--dtypes float64,float32]
        [--no-helper]
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

import numba_ext as nx
from numba_ext.compiler import reduction_helpers
from numba_ext.library import reductions as library_reductions

sys.path.insert(0, os.path.dirname(__file__))
from direct_kernels_probe import best_ms


def _cupy():
    try:
        import cupy

        cupy.cuda.runtime.getDeviceCount()
        return cupy
    except Exception:  # no CuPy, or no CUDA device
        return None


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="100,500,1000,2000")
    ap.add_argument("--dtypes", default="float64,float32")
    ap.add_argument("--no-helper", action="store_true", help="skip the jitted helper (slow on CPUs)")
    opts = ap.parse_args()
    rng = np.random.default_rng(0)
    cupy = _cupy()
    print(f"device: {nx.default_queue().device.name}")
    rows = []
    for dtype in opts.dtypes.split(","):
        for n in map(int, opts.sizes.split(",")):
            ha, hb = (rng.standard_normal((n, n)).astype(dtype) for _ in range(2))
            a, b = nx.asarray(ha), nx.asarray(hb)
            want = ha.astype(np.float64) @ hb.astype(np.float64)
            got = nx.asnumpy(a @ b)
            scale = np.abs(want).max()
            error = float(np.abs(got - want).max() / scale)
            times = {"tiles": best_ms(lambda: a @ b)}  # noqa: B023 (this pass)
            tiled = library_reductions.tiled
            library_reductions.tiled = lambda n, device: False
            try:
                times["element per work-item"] = best_ms(lambda: a @ b)  # noqa: B023
            finally:
                library_reductions.tiled = tiled
            if not opts.no_helper:
                mm = reduction_helpers.dot_function(2, 2, dtype, "device")
                times["jitted helper"] = best_ms(lambda: mm(a, b))  # noqa: B023
            if cupy is not None:
                ca, cb = cupy.asarray(ha), cupy.asarray(hb)

                def cupy_mm():
                    ca @ cb  # noqa: B023
                    cupy.cuda.Device().synchronize()

                times["CuPy"] = best_ms(cupy_mm)
            rows.append((dtype, n, ha, hb, times, error))
    for dtype, n, ha, hb, times, error in rows:
        times["NumPy"] = best_ms(lambda: ha @ hb)  # noqa: B023
        text = "   ".join(f"{k} {v:8.2f} ms" for k, v in times.items())
        print(f"{dtype:8s} ({n},{n}) @ ({n},{n}): {text}   (tiles: max error {error:.1e} of the largest)")


if __name__ == "__main__":
    main()
