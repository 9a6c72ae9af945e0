"""Reductions and products per call on the default device in the form the device gets (on a CPU:
blocked runs and neighbouring result elements per work-item; on a GPU, along a long contiguous axis,
a work-group per result element) and, in the same process, in the strided form GPUs got before
(one element per work-item, grid-stride runs; one work-item per result element along an axis),
next to NumPy and, for a ``prange`` sum, Numba's ``parallel=True`` on the host. Warm: compiled,
then the best of 7 rounds of repeated calls (``direct_kernels_probe.best_ms``).

    python benchmarks/reduction_forms_probe.py [--size 10000000] [--side 3000]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable, Iterator

import numba
import numpy as np
from numba import prange

import numba_ext as nx
from numba_ext.arrays import reductions as arrays_reductions
from numba_ext.compiler import parfor_offload
from numba_ext.devices import Device
from numba_ext.library import reductions as library_reductions

sys.path.insert(0, os.path.dirname(__file__))
from direct_kernels_probe import best_ms


@contextlib.contextmanager
def strided() -> Iterator[None]:
    """The GPU forms on any device, launched as CPUs launched them before their own forms (at most
    512 work-items per compute unit, each over at least 16 elements); the compiled kernels of the
    eager reductions are dropped on the way in and out, as each form has its own."""
    saved = (arrays_reductions.unroll, arrays_reductions.axis_lanes, parfor_offload.reduction_unroll)
    saved_library = library_reductions.unroll
    saved_group = arrays_reductions.GPU_GROUP_LENGTH
    saved_launch = arrays_reductions.launch_work_items

    def launch(size: int, device: Device) -> tuple[int, list[int] | None]:
        if device.device_type != "cpu":
            return saved_launch(size, device)
        return max(min(-(-size // 16), 512 * device.max_compute_units), 1), None

    def one(device: Device) -> int:
        return 1

    arrays_reductions.unroll = arrays_reductions.axis_lanes = parfor_offload.reduction_unroll = one
    library_reductions.unroll = one  # argmin / argmax: the extreme, then its first index
    arrays_reductions.GPU_GROUP_LENGTH = sys.maxsize  # GPUs: a work-item per result element
    arrays_reductions.launch_work_items = launch
    library_reductions._kernels.clear()
    library_reductions._products.clear()
    try:
        yield
    finally:
        arrays_reductions.unroll, arrays_reductions.axis_lanes, parfor_offload.reduction_unroll = saved
        library_reductions.unroll = saved_library
        arrays_reductions.GPU_GROUP_LENGTH = saved_group
        arrays_reductions.launch_work_items = saved_launch
        library_reductions._kernels.clear()
        library_reductions._products.clear()


def prange_sum(a):
    s = 0.0
    for i in prange(a.shape[0]):
        s += a[i]
    return s


def row_norms(a):
    return np.sqrt(np.sum(a * a, axis=1))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=10_000_000)
    ap.add_argument("--side", type=int, default=3000)
    opts = ap.parse_args()
    rng = np.random.default_rng(0)
    n, m = opts.size, opts.side
    hv, hi = rng.standard_normal(n), rng.integers(-1000, 1000, n)
    hc = hv[: n // 2] + 1j * hv[n // 2 :]
    hs = np.sort(hv)  # argmax: every chunk beats the ones before
    hm, hx = rng.standard_normal((m, m)), rng.standard_normal(m)
    v, i, c, s, mat, x = (nx.asarray(h) for h in (hv, hi, hc, hs, hm, hx))
    host_prange = numba.njit(parallel=True)(prange_sum)
    jit_norms = nx.jit(row_norms)  # served from its source: the product, then the reduction
    cases: list[tuple[str, Callable[[], object], Callable[[], object] | None]] = [
        (f"sum of {n} float64", lambda: float(v.sum()), lambda: hv.sum()),
        (f"max of {n} float64", lambda: float(v.max()), lambda: hv.max()),
        (f"argmax of {n} float64", lambda: int(v.argmax()), lambda: hv.argmax()),
        (f"sum of {n} int64", lambda: int(i.sum()), lambda: hi.sum()),
        (f"max of {n} int64", lambda: int(i.max()), lambda: hi.max()),
        (f"argmax of {n} int64", lambda: int(i.argmax()), lambda: hi.argmax()),
        (f"argmin of sorted {n} float64", lambda: int(s.argmin()), lambda: hs.argmin()),
        (f"argmax of sorted {n} float64", lambda: int(s.argmax()), lambda: hs.argmax()),
        (f"dot of two {n}-vectors", lambda: float(np.dot(v, v)), lambda: np.dot(hv, hv)),
        (f"sum of {n // 2} complex128", lambda: complex(c.sum()), lambda: hc.sum()),
        (f"({m},{m}).sum(axis=0)", lambda: mat.sum(axis=0), lambda: hm.sum(axis=0)),
        (f"({m},{m}).sum(axis=1)", lambda: mat.sum(axis=1), lambda: hm.sum(axis=1)),
        (f"({m},{m}).max(axis=1)", lambda: mat.max(axis=1), lambda: hm.max(axis=1)),
        (f"({m},{m}).argmax(axis=1)", lambda: mat.argmax(axis=1), lambda: hm.argmax(axis=1)),
        (f"({m},{m}) @ ({m},)", lambda: mat @ x, lambda: hm @ hx),
        (f"jit row norms of ({m},{m})", lambda: jit_norms(mat), lambda: row_norms(hm)),
        (f"prange sum of {n} float64", None, lambda: host_prange(hv)),
    ]
    print(f"device: {nx.default_queue().device.name}")
    print(f"{'':34s} {'own form':>10s} {'strided':>10s} {'NumPy':>10s}")
    for what, ours, peer in cases:
        if ours is None:  # the prange sum: a new jitted function per form (each compiles for its form)
            own = nx.jit(prange_sum)
            mine = best_ms(lambda: own(v))  # noqa: B023 (used in this pass)
            with strided():
                other_fn = nx.jit(prange_sum)
                other = best_ms(lambda: other_fn(v))  # noqa: B023
            print(f"{what:34s} {mine:8.2f} ms {other:8.2f} ms {best_ms(peer):8.2f} ms (Numba parallel=True)")
            continue
        mine = best_ms(ours)
        with strided():
            other = best_ms(ours)
        print(f"{what:34s} {mine:8.2f} ms {other:8.2f} ms {best_ms(peer):8.2f} ms")


if __name__ == "__main__":
    main()
