"""Matrix products in the work-group form (``ir.products.group_tiled_function``, the GPU form) at
other tile shapes than the library's: for each ``SIDE,BLOCK,STEP`` given (work-group side, result
block per work-group, shared-dimension step through local memory) the module's constants are set,
the library's product kernels dropped, and ``a @ b`` of two ``N x N`` random matrices is checked
against NumPy and timed (``direct_kernels_probe.best_ms``), next to CuPy's cuBLAS where CuPy and a
CUDA GPU are there. A tuning aid: the library itself always takes the module's constants.

    python benchmarks/tile_shape_probe.py [--n 4096] [--dtypes float32,float64] 16,64,16 8,64,16 ...
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

import numba_ext as nx
from numba_ext.ir import products
from numba_ext.library import reductions as library_reductions

sys.path.insert(0, os.path.dirname(__file__))
from direct_kernels_probe import best_ms
from products_probe import _cupy


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("shapes", nargs="+", help="SIDE,BLOCK,STEP (BLOCK a multiple of SIDE)")
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--dtypes", default="float32,float64")
    opts = ap.parse_args()
    rng, cupy = np.random.default_rng(0), _cupy()
    print(f"device: {nx.default_queue().device.name}")
    saved = products.GROUP_SIDE, products.GROUP_BLOCK, products.GROUP_STEP
    for dtype in opts.dtypes.split(","):
        ha, hb = (rng.standard_normal((opts.n, opts.n)).astype(dtype) for _ in range(2))
        a, b = nx.asarray(ha), nx.asarray(hb)
        want = ha.astype(np.float64) @ hb.astype(np.float64)
        for shape in opts.shapes:
            products.GROUP_SIDE, products.GROUP_BLOCK, products.GROUP_STEP = map(int, shape.split(","))
            library_reductions._products.clear()
            try:
                error = float(np.abs(nx.asnumpy(a @ b) - want).max() / np.abs(want).max())
                ms = best_ms(lambda: a @ b)  # noqa: B023 (this pass)
                print(f"{dtype} {opts.n} side,block,step {shape}: {ms:.2f} ms (max error {error:.1e})")
            except Exception as e:  # a shape the device cannot take: its error, and on
                print(f"{dtype} {opts.n} side,block,step {shape}: {type(e).__name__}: {str(e)[:200]}")
            finally:
                products.GROUP_SIDE, products.GROUP_BLOCK, products.GROUP_STEP = saved
                library_reductions._products.clear()
        if cupy is not None:
            ca, cb = cupy.asarray(ha), cupy.asarray(hb)

            def cupy_mm():
                ca @ cb  # noqa: B023
                cupy.cuda.Device().synchronize()

            print(f"{dtype} {opts.n} CuPy: {best_ms(cupy_mm):.2f} ms")


if __name__ == "__main__":
    main()
