"""Scans of arrays on their device with the kernels of ``ir.scans`` (eager ``np.cumsum`` and
``np.cumprod``): of the flattened array, the block totals, their exclusive prefixes and the blocks'
scans, launched in turn on the array's queue into a new 1-d array (left running, as every eager
kernel: the in-order queue keeps later commands behind them); along an axis,
one kernel with a work-item per line. The caller gives the compiled kernels, so that it keeps its
own cache."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from .. import _core
from ..devices import Device, Queue
from ..ir.scans import block_count
from .allocation import allocate
from .reductions import layout, operand, whole_groups

if TYPE_CHECKING:
    from .ndarray import ndarray

#: the compiled kernel of a scan's step ("totals", "prefixes" or "blocks") for an operand rank
#: (of the input; the prefixes' kernel is asked with rank 1) on a device
ScanKernelFor = Callable[[str, int, Device], _core.Kernel]


def scan(x: ndarray, out_dtype: np.dtype, queue: Queue, kernel_for: ScanKernelFor) -> ndarray:
    """The scan of `x` flattened in C order on `queue`: a new 1-d C-contiguous array of
    `out_dtype` (the scan's result dtype) with `x`'s USM type."""
    source, n, ndim = operand(x, x.dtype.itemsize)
    out = allocate((n,), out_dtype, queue, layout(x)[3])
    if n == 0:
        return out
    device = queue.device
    # a work-item per block (up to ``ir.scans.BLOCKS``)
    blocks = block_count(n)
    totals = allocate((blocks,), out_dtype, queue, "device")
    work_items, local = whole_groups(blocks, device)
    one, one_local = whole_groups(1, device)
    slots = [*source, totals._data_ptr, blocks, 0, out._data_ptr, n, 0]
    _core.launch_chain(  # in turn, left running
        queue,
        [
            (
                kernel_for("totals", ndim, device),
                [*source, totals._data_ptr, blocks, 0],
                [work_items],
                local,
                None,
            ),
            (kernel_for("prefixes", 1, device), [totals._data_ptr, blocks, 0], [one], one_local, None),
            (kernel_for("blocks", ndim, device), slots, [work_items], local, None),
        ],
        wait=False,
    )
    return out


def scan_axis(x: ndarray, axis: int, out_dtype: np.dtype, queue: Queue, kernel: _core.Kernel) -> ndarray:
    """The scan of `x` (ndim >= 2) along `axis` on `queue` with `kernel`
    (``ir.scans.axis_scan_function``'s): a new C-contiguous array of `x`'s shape, `out_dtype` and
    USM type."""
    _, shape, _, usm_type = layout(x)
    out = allocate(shape, out_dtype, queue, usm_type)
    lines = math.prod(shape) // shape[axis] if shape[axis] else 0
    if lines:
        slots = [*operand(x)[0], out._data_ptr, *shape, *([0] * len(shape))]
        work_items, local = whole_groups(lines, queue.device)
        kernel.launch_nd(queue, slots, [work_items], local, wait=False)
    return out
