"""What the driver round trips of one eager ``argmax`` cost on the default device: its two kernels
(the extreme, then its first index; the GPU form) over 2**20 float64 launched three ways, each best
of 7 rounds of repeated calls (``direct_kernels_probe.best_ms``):

* each accumulator filled, then each kernel launched, every command waited for (4 waits);
* each kernel launched with its fill (``Kernel.launch_nd(..., fill=...)``: 2 waits);
* both in one ``_core.launch_chain`` (1 wait), as eager ``argmax`` launches them.

    python benchmarks/launch_waits_probe.py [--size 1048576]
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

import numba_ext as nx
from numba_ext import _core
from numba_ext.arrays.reductions import NO_INDEX_BYTES, launch_work_items
from numba_ext.ir.reductions import first_index_function, whole_function

sys.path.insert(0, os.path.dirname(__file__))
from direct_kernels_probe import best_ms


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=1 << 20)
    n = ap.parse_args().size
    queue = nx.default_queue()
    device = queue.device
    h = np.random.default_rng(0).standard_normal(n)
    x = nx.asarray(h)
    acc, index = nx.empty(1, dtype="float64"), nx.empty(1, dtype="int64")
    extreme = _core.compile_function(whole_function("max", "float64", 1), device)
    first = _core.compile_function(first_index_function("float64", 1), device)
    work_items, local = launch_work_items(n, device)
    if device.device_type == "cpu":  # the strided form, as a GPU launches it
        work_items, local = min(n, 1 << 14), None
    a, i = acc._data_ptr, index._data_ptr
    extreme_slots, first_slots = [x._data_ptr, n, 8, a, 1, 0], [x._data_ptr, n, 8, a, 1, 0, i, 1, 0]
    lowest = np.array(-np.inf).tobytes()

    def four_waits() -> None:
        _core.fill(queue, a, lowest, 8)
        extreme.launch_nd(queue, extreme_slots, [work_items], local)
        _core.fill(queue, i, NO_INDEX_BYTES, 8)
        first.launch_nd(queue, first_slots, [work_items], local)

    def two_waits() -> None:
        extreme.launch_nd(queue, extreme_slots, [work_items], local, (a, lowest, 8))
        first.launch_nd(queue, first_slots, [work_items], local, (i, NO_INDEX_BYTES, 8))

    def one_wait() -> None:
        _core.launch_chain(
            queue,
            [
                (extreme, extreme_slots, [work_items], local, (a, lowest, 8)),
                (first, first_slots, [work_items], local, (i, NO_INDEX_BYTES, 8)),
            ],
        )

    for f in (four_waits, two_waits, one_wait):
        index[...] = -1
        f()
        assert int(index[0]) == h.argmax(), f.__name__
    print(f"device: {device.name}; argmax's two kernels over {n} float64, per call")
    for _ in range(2):
        print(
            f"4 waits {best_ms(four_waits) * 1e3:7.1f} us   "
            f"2 waits (fill=) {best_ms(two_waits) * 1e3:7.1f} us   "
            f"1 wait (launch_chain) {best_ms(one_wait) * 1e3:7.1f} us"
        )


if __name__ == "__main__":
    main()
