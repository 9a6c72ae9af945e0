"""Reductions along an axis and matrix products on a CPU with 8 and with 16 neighbouring result
elements per work-item everywhere (``arrays.reductions.CPU_AXIS_LANES``), and with the lanes chosen
per launch (``arrays.reductions.wide``: 16 where the result's last dimension is contiguous in the
operand and the result is long, else 8), in the same process, next to NumPy. Warm: compiled, then
the best of 7 rounds of repeated calls (``direct_kernels_probe.best_ms``).

    python benchmarks/axis_lanes_probe.py
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable

import numpy as np

import numba_ext as nx
from numba_ext.arrays import reductions as arrays_reductions
from numba_ext.library import reductions as library_reductions

sys.path.insert(0, os.path.dirname(__file__))
from direct_kernels_probe import best_ms


def main() -> None:
    argparse.ArgumentParser().parse_args()
    #: (column, lanes everywhere, the per-launch choice on)
    settings = [("8 lanes", 8, False), ("16 lanes", 16, False), ("chosen", 8, True)]
    rng = np.random.default_rng(0)
    hosts = {
        "3000x3000": rng.standard_normal((3000, 3000)),
        "10**6x3": rng.standard_normal((10**6, 3)),
        "200x20000": rng.standard_normal((200, 20000)),
        "500x500": rng.standard_normal((500, 500)),
    }
    arrays = {k: nx.asarray(h) for k, h in hosts.items()}
    cases: list[tuple[str, Callable[[dict], object]]] = [
        ("3000x3000 sum(axis=0)", lambda a: a["3000x3000"].sum(axis=0)),
        ("3000x3000 sum(axis=1)", lambda a: a["3000x3000"].sum(axis=1)),
        ("3000x3000 max(axis=0)", lambda a: a["3000x3000"].max(axis=0)),
        ("3000x3000 argmax(axis=0)", lambda a: a["3000x3000"].argmax(axis=0)),
        ("10**6x3 sum(axis=1)", lambda a: a["10**6x3"].sum(axis=1)),
        ("10**6x3 sum(axis=0)", lambda a: a["10**6x3"].sum(axis=0)),
        ("200x20000 sum(axis=0)", lambda a: a["200x20000"].sum(axis=0)),
        ("500x500 @ 500x500", lambda a: a["500x500"] @ a["500x500"]),
    ]
    print(f"device: {nx.default_queue().device.name}")
    print(f"{'':28s}" + "".join(f"{name:>12s}" for name, _, _ in settings) + f"{'NumPy':>12s}")
    saved = arrays_reductions.CPU_AXIS_LANES, arrays_reductions.CPU_WIDE_RESULT
    try:
        rows: dict[str, list[float]] = {what: [] for what, _ in cases}
        for _, lanes, chosen in settings:
            arrays_reductions.CPU_AXIS_LANES = lanes
            arrays_reductions.CPU_WIDE_RESULT = saved[1] if chosen else sys.maxsize
            library_reductions._kernels.clear()
            library_reductions._products.clear()
            for what, f in cases:
                rows[what].append(best_ms(lambda f=f: f(arrays)))
        for what, f in cases:
            peer = best_ms(lambda f=f: f(hosts))
            print(f"{what:28s}" + "".join(f"{t:9.2f} ms" for t in rows[what]) + f"{peer:9.2f} ms")
    finally:
        arrays_reductions.CPU_AXIS_LANES, arrays_reductions.CPU_WIDE_RESULT = saved


if __name__ == "__main__":
    main()
