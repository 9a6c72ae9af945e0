"""Where the time of the stepped SVD goes on the default device: the bidiagonalization, forming
U and V, the logged QR passes and the application of their rotations, each phase waited for.

    python benchmarks/svd_phases_probe.py [--cases 1x1024]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import numba_ext as nx
from numba_ext import decompositions as dc


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cases", nargs="+", default=["1x256", "1x1024"])
    args = p.parse_args()
    q = nx.default_queue()
    rng = np.random.default_rng(0)
    spent: dict[str, float] = {}
    own = {name: getattr(dc, name) for name in dir(dc) if name.endswith("_kernel")}

    class Timed:
        def __init__(self, name: str) -> None:
            self.name = name

        def __getitem__(self, launch: object) -> object:
            inner = own[self.name][launch]

            def call(*a: object) -> None:
                q.wait()
                t = time.perf_counter()
                inner(*a)
                q.wait()
                spent[self.name] = spent.get(self.name, 0.0) + time.perf_counter() - t

            return call

    for case in args.cases:
        batch, n = (int(v) for v in case.split("x"))
        h = nx.asarray(rng.standard_normal((batch, n, n)))
        dc._svd_form = lambda d, b, k: "stepped"
        np.linalg.svd(h)  # compiled
        for name in own:
            setattr(dc, name, Timed(name))
        spent.clear()
        q.wait()
        t = time.perf_counter()
        np.linalg.svd(h)
        q.wait()
        total = (time.perf_counter() - t) * 1e3
        for name in own:
            setattr(dc, name, own[name])
        parts = sorted(spent.items(), key=lambda kv: -kv[1])
        print(
            f"{case}: {total:.1f} ms with a wait after each launch; "
            + ", ".join(f"{k} {v * 1e3:.1f}" for k, v in parts)
        )


if __name__ == "__main__":
    main()
