"""Reductions along an axis, argmax, any and products in Numba-compiled code (``numba_ext.compiler.jit``,
the path of functions not served from their source, and plain ``numba.njit``), which now run the
eager library's kernels, next to the jitted helpers they ran before (``compiler.reduction_helpers``,
called directly, in the same process) and to the eager calls. Warm: compiled, then the best of 7
rounds of repeated calls (``direct_kernels_probe.best_ms``).

    python benchmarks/compiled_calls_probe.py [--side 2000] [--product 500]
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

import numba_ext as nx
from numba_ext.compiler import reduction_helpers

sys.path.insert(0, os.path.dirname(__file__))
from direct_kernels_probe import best_ms


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--side", type=int, default=2000, help="the reduced matrices' side")
    ap.add_argument("--product", type=int, default=500, help="the multiplied matrices' side")
    opts = ap.parse_args()
    rng = np.random.default_rng(0)
    x = nx.asarray(rng.standard_normal((opts.side, opts.side)))
    ha, hb = (rng.standard_normal((opts.product, opts.product)) for _ in range(2))
    a, b = nx.asarray(ha), nx.asarray(hb)
    # the same values as b in a view that is not C-contiguous: the helper's loop of one work-item
    # per result element (its form before the tiles)
    b_view = nx.asarray(np.hstack([hb, np.zeros((opts.product, 1))]))[:, : opts.product]
    print(f"device: {nx.default_queue().device.name}")
    along = {
        op: reduction_helpers.axis_reducer(op, 2, dt, "device")
        for op, dt in (("sum", "float64"), ("argmax", "int64"))
    }
    row_sum = along["sum"]
    before_norm = nx.compiler.jit(lambda x: np.sqrt(row_sum(x * x, 1)))
    mm = reduction_helpers.dot_function(2, 2, "float64", "device")
    n, p = opts.side, opts.product
    cases = [
        (
            f"({n},{n}).sum(axis=1)",
            nx.compiler.jit(lambda x: x.sum(axis=1)),
            lambda: along["sum"](x, 1),
            lambda: x.sum(axis=1),
            x,
        ),
        (
            f"({n},{n}).sum(axis=0)",
            nx.compiler.jit(lambda x: x.sum(axis=0)),
            lambda: along["sum"](x, 0),
            lambda: x.sum(axis=0),
            x,
        ),
        (
            f"({n},{n}).argmax(axis=1)",
            nx.compiler.jit(lambda x: x.argmax(axis=1)),
            lambda: along["argmax"](x, 1),
            lambda: x.argmax(axis=1),
            x,
        ),
        (
            f"row norms of ({n},{n})",
            nx.compiler.jit(lambda x: np.sqrt((x * x).sum(axis=1))),
            lambda: before_norm(x),
            lambda: np.sqrt((x * x).sum(axis=1)),
            x,
        ),
    ]
    v = nx.asarray(rng.standard_normal(n * n))
    whole_argmax = reduction_helpers.whole_function("argmax", 1, np.dtype(np.float64), True)
    whole_any = reduction_helpers.whole_function("any", 1, np.dtype(np.bool_), True)
    vv = reduction_helpers.dot_function(1, 1, "float64", "device")
    positive = v > 0
    cases += [
        (
            f"argmax of {n * n}",
            nx.compiler.jit(lambda v: v.argmax()),
            lambda: whole_argmax(v),
            lambda: v.argmax(),
            v,
        ),
        (
            f"any of {n * n} bools",
            nx.compiler.jit(lambda v: v.any()),
            lambda: whole_any(positive),
            lambda: positive.any(),
            positive,
        ),
        (
            f"dot of two {n * n}-vectors",
            nx.compiler.jit(lambda v: np.dot(v, v)),
            lambda: vv(v, v),
            lambda: np.dot(v, v),
            v,
        ),
    ]
    for what, compiled, before, eager, arg in cases:
        now_ms = best_ms(lambda: compiled(arg))  # noqa: B023 (this pass)
        print(
            f"{what:28s} compiled now {now_ms:8.2f} ms   jitted helper {best_ms(before):8.2f} ms   "
            f"eager {best_ms(eager):8.2f} ms"
        )
    product = nx.compiler.jit(lambda a, b: a @ b)
    print(
        f"{f'({p},{p}) @ ({p},{p})':28s} compiled now {best_ms(lambda: product(a, b)):8.2f} ms   "
        f"jitted helper {best_ms(lambda: mm(a, b_view)):8.2f} ms   "
        f"eager {best_ms(lambda: a @ b):8.2f} ms"
    )


if __name__ == "__main__":
    main()
