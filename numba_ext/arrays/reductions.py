"""Reductions of arrays on their device with the kernels of ``ir.reductions``, shared by jitted
functions served from their source (``functions.staged``) and eager reductions (``library``): along
one axis into a new array (one work-item per result element), or over every element into a scalar
of NumPy's result dtype (capped work-items, a private partial each, combined with an atomic into a
one-element accumulator filled with the identity on the device). The caller gives the compiled
kernel for a rank and a device (``kernel_for``), so that each caller keeps its own cache."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from .. import _core
from ..devices import Device, Queue
from ..ir.kernel_ir import Function
from ..ir.products import (
    TILE_FEWEST_COLUMNS,
    accumulation_dtype,
    tile_launch,
)
from ..ir.reductions import (
    ARG_OPS,
    COMBINE,
    CPU_UNROLL,
    EMPTY_MESSAGES,
    GROUP,
    NO_INDEX,
    WORK_ITEMS,
    accumulator_dtype,
    arg_rows_function,
    axis_group_function,
    identity,
    result_dtype,
    whole_function,
)
from .allocation import allocate

if TYPE_CHECKING:
    from .ndarray import ndarray

#: byte strides as the unsigned 64-bit kernel slots take them
MASK = 0xFFFF_FFFF_FFFF_FFFF
#: the compiled kernel of a reduction for an operand rank on a device
KernelFor = Callable[[int, Device], _core.Kernel]
_PTX: dict[Device, bool] = {}
#: whether a device is a CPU, by device
_CPU: dict[Device, bool] = {}
#: on a CPU, the work-items of a reduction over every element per compute unit (at most), and the
#: fewest elements each reduces: each reads one contiguous run (``ir.reductions.flat_loop``'s blocked
#: form) in a work-group of its own, so a few per compute unit keep the cores busy and balanced
CPU_WORK_ITEMS_PER_UNIT = 8
CPU_ELEMENTS_PER_WORK_ITEM = 2048
#: on a CPU, the result elements each work-item of a reduction along an axis computes (neighbours,
#: in one loop along the axis, in work-groups of one)
CPU_AXIS_LANES = 8
#: on a CPU, the result elements per work-item of a reduction along an axis where the result's
#: last dimension is contiguous in the operand and the result holds at least ``CPU_WIDE_RESULT``
#: elements (see :func:`wide`)
CPU_WIDE_LANES = 16
CPU_WIDE_RESULT = 1024
#: on a CPU, the shortest contiguous axis along which argmin / argmax scan one row per work-item
#: (shorter rows, and other reductions: neighbouring result elements per work-item)
CPU_ROW_LENGTH = 64
#: on a GPU, the shortest contiguous axis reduced by a work-group per result element (shorter ones:
#: a work-item per result element)
GPU_GROUP_LENGTH = 128
#: the index accumulator's start (no index found yet), as the fill before the launch takes it
NO_INDEX_BYTES = np.array(NO_INDEX, np.int64).tobytes()


def layout(x: ndarray) -> tuple[int, tuple[int, ...], Sequence[int], str]:
    """An array's data address, shape, byte strides and USM type (from its native image where it
    has one and no NumPy descriptor yet: the results of earlier steps)."""
    image = x._nx_if_set()
    if image is not None:
        return image.data, tuple(image.shape), image.strides, image.usm_type
    d = x._desc
    return x._data_ptr, d.shape, d.strides, x._usm_type


def c_contiguous(shape: tuple[int, ...], strides: Sequence[int], itemsize: int) -> bool:
    expected = itemsize
    for n, s in zip(reversed(shape), reversed(strides)):
        if n != 1 and s != expected:
            return False
        expected *= n
    return True


def operand(x: ndarray, itemsize: int | None = None) -> tuple[list[int], int, int]:
    """A kernel operand: its slots (data address, extents, byte strides as the unsigned slots take
    them), its number of elements and the rank its kernel reads; given `itemsize`, a C-contiguous
    `x` is one flat run of rank 1 (as reductions and scans over every element read it)."""
    ptr, shape, strides, _ = layout(x)
    size = math.prod(shape)
    if itemsize is not None and c_contiguous(shape, strides, itemsize):
        shape, strides = (size,), (itemsize,)
    return [ptr, *shape, *(s & MASK for s in strides)], size, len(shape)


def _cpu(device: Device) -> bool:
    found = _CPU.get(device)
    if found is None:
        found = _CPU[device] = device.device_type == "cpu"
    return found


def ptx(device: Device) -> bool:
    """Whether the device runs PTX (NVIDIA's OpenCL), whose launches take whole work-groups."""
    found = _PTX.get(device)
    if found is None:
        found = _PTX[device] = str(device.target).startswith("ptx")
    return found


class WholeReduction:
    """`op` (sum, prod, mean, min, max) over every element of arrays of `dtype`."""

    def __init__(self, op: str, dtype: str) -> None:
        self.op, self.dtype = op, dtype
        self.out_dtype = out = result_dtype(op, dtype)
        self.empty_message = EMPTY_MESSAGES.get(op)
        self.itemsize = np.dtype(dtype).itemsize
        self.acc_dtype = np.dtype(accumulator_dtype(out.name))
        start = identity(COMBINE[op], out.name)
        nan = complex(np.nan, np.nan) if out.kind == "c" else np.nan  # NumPy's mean of nothing
        self.empty_value = out.type(nan if op == "mean" else start)
        self.start = np.array(start, self.acc_dtype).tobytes()  # the accumulator's fill pattern
        #: whether the accumulator holds the result as it is (not for a mean, nor narrow integers)
        self.device_result = op != "mean" and self.acc_dtype == out

    def function(self, ndim: int, device: Device) -> Function:
        """The kernel's description for operands of rank `ndim` (a C-contiguous one is read as 1-d)
        on `device`."""
        return whole_function(self.op, self.dtype, ndim, unroll(device))

    def __call__(
        self, x: ndarray, queue: Queue, kernel_for: KernelFor, used: list[_core.Kernel] | None = None
    ) -> np.generic:
        """The reduction of `x` on `queue`: a NumPy scalar of the result dtype (`used` collects the
        kernel, launched or not)."""
        size, acc = self.on_device(x, queue, kernel_for, used)
        if acc is None:  # nothing to combine: the identity, or a mean's NaN
            return self.empty_value
        acc_dtype = self.acc_dtype
        host = np.empty(1, acc_dtype)
        _core.memcpy(queue, host.ctypes.data, acc._data_ptr, acc_dtype.itemsize)  # behind the kernel
        value = host[0].astype(self.out_dtype)  # narrow integers: truncated, as the compiled form
        if self.op == "mean" and self.out_dtype.kind == "c":  # as NumPy's complex division by a real
            return self.out_dtype.type(np.complex128(value) * (1.0 / size))
        if self.op == "mean":  # the sum over the size, divided in float64
            return self.out_dtype.type(np.float64(value) / np.float64(size))
        return value

    def on_device(
        self,
        x: ndarray,
        queue: Queue,
        kernel_for: KernelFor,
        used: list[_core.Kernel] | None = None,
        usm_type: str = "device",
        shape: tuple[int, ...] = (1,),
    ) -> tuple[int, ndarray | None]:
        """The number of elements of `x` and the one-element array of ``acc_dtype``, `usm_type` and
        `shape` ((1,) or ()) its reduction is launched into on `queue` (None for no elements, where
        the operation has a value without them). Where ``device_result`` holds, that array is the
        result, and nothing is copied to the host."""
        source, size, ndim = operand(x, self.itemsize)
        if size == 0 and self.empty_message is not None:
            raise ValueError(self.empty_message)
        device = queue.device
        if used is not None:
            used.append(kernel_for(ndim, device))
        if size == 0:
            return 0, None
        acc_dtype = self.acc_dtype
        acc = allocate(shape, acc_dtype, queue, usm_type)
        acc_ptr = acc._data_ptr
        work_items, local = launch_work_items(size, device)
        fill = (acc_ptr, self.start, acc_dtype.itemsize)  # the identity, just before the kernel
        launch = kernel_for(ndim, device).launch_nd
        launch(queue, [*source, acc_ptr, 1, 0], [work_items], local, fill, wait=False)
        return size, acc


def first_extreme(
    op: str,
    x: ndarray,
    extreme: WholeReduction,
    queue: Queue,
    extreme_for: KernelFor,
    index_for: KernelFor,
    usm_type: str,
) -> ndarray:
    """``argmin`` / ``argmax`` (`op`) over every element of `x` (real or bool) on `queue` in
    ``whole_function``'s strided form (GPUs), as a 0-d int64 array of `usm_type` there: the extreme
    by `extreme` (the minimum or maximum of `x`'s dtype; for bools all or any) with its kernel
    (`extreme_for`), then the first flat index holding it by
    ``ir.reductions.first_index_function``'s kernel (`index_for`), launched in turn and left
    running (the in-order queue keeps later commands behind them); nothing copied to the host."""
    source, size, ndim = operand(x, extreme.itemsize)
    if size == 0:
        raise ValueError(EMPTY_MESSAGES[op])
    device = queue.device
    acc_dtype = extreme.acc_dtype
    acc = allocate((1,), acc_dtype, queue, "device")
    index = allocate((), np.dtype(np.int64), queue, usm_type)
    work_items, local = launch_work_items(size, device)
    acc_ptr, index_ptr = acc._data_ptr, index._data_ptr
    _core.launch_chain(
        queue,
        [
            (
                extreme_for(ndim, device),
                [*source, acc_ptr, 1, 0],
                [work_items],
                local,
                (acc_ptr, extreme.start, acc_dtype.itemsize),
            ),
            (
                index_for(ndim, device),
                [*source, acc_ptr, 1, 0, index_ptr, 1, 0],
                [work_items],
                local,
                (index_ptr, NO_INDEX_BYTES, 8),
            ),
        ],
        wait=False,
    )
    return index


def first_extreme_in_runs(
    op: str, x: ndarray, queue: Queue, runs_for: KernelFor, combine: _core.Kernel, usm_type: str
) -> ndarray:
    """``argmin`` / ``argmax`` (`op`) over every element of `x` (real or bool) on `queue` in one pass
    (CPUs), as a 0-d int64 array of `usm_type` there: each work-item's run gives its best value and
    index (``ir.reductions.arg_runs_function``'s kernel, `runs_for`), which `combine`
    (``arg_combine_function``'s) reduces in order, launched in turn and left running; nothing
    copied to the host."""
    itemsize = x.dtype.itemsize
    source, size, ndim = operand(x, itemsize)
    if size == 0:
        raise ValueError(EMPTY_MESSAGES[op])
    work_items, local = launch_work_items(size, queue.device)
    # the runs' indices, then their values, in one block
    runs = allocate((work_items * (8 + itemsize),), np.dtype(np.uint8), queue, "device")
    indices = runs._data_ptr
    values = indices + 8 * work_items
    index = allocate((), np.dtype(np.int64), queue, usm_type)
    run_slots = [values, work_items, itemsize, indices, work_items, 8]
    _core.launch_chain(
        queue,
        [
            (runs_for(ndim, queue.device), [*source, *run_slots], [work_items], local, None),
            (combine, [*run_slots, index._data_ptr, 1, 0], [1], [1], None),
        ],
        wait=False,
    )
    return index


def reduce_axis(
    op: str,
    x: ndarray,
    axis: int,
    out_dtype: np.dtype,
    queue: Queue,
    kernel_for: KernelFor,
    used: list[_core.Kernel] | None = None,
    contiguous_for: KernelFor | None = None,
    wide_for: KernelFor | None = None,
) -> ndarray:
    """`op` along `axis` (0 <= axis < ndim, ndim >= 2) of `x` on `queue`: a new C-contiguous array
    of `out_dtype` with `x`'s USM type (`kernel_for`'s rank: `x`'s; its kernel computes
    ``axis_lanes(device)`` result elements per work-item). `contiguous_for`: the kernel for a long
    contiguous axis (see :func:`contiguous_form`), taken where that form applies; `wide_for`: the
    kernel computing ``CPU_WIDE_LANES`` result elements per work-item, taken where :func:`wide`
    holds."""
    ptr, shape, strides, usm_type = layout(x)
    if shape[axis] == 0 and op in EMPTY_MESSAGES:
        raise ValueError(EMPTY_MESSAGES[op])
    out_shape = shape[:axis] + shape[axis + 1 :]
    out = allocate(out_shape, out_dtype, queue, usm_type)
    size = math.prod(out_shape)
    device, itemsize = queue.device, x.dtype.itemsize
    lanes, form = axis_lanes(device), None
    if contiguous_for is not None and strides[axis] == itemsize:
        form = contiguous_form(op, x.dtype, shape[axis], device)
    if form is not None and contiguous_for is not None:
        kernel_for = contiguous_for
    elif wide_for is not None and wide(lanes, strides, axis, size, itemsize):
        kernel_for, lanes = wide_for, CPU_WIDE_LANES
    if size or used is not None:
        kernel = kernel_for(len(shape), device)
        if used is not None:
            used.append(kernel)
        if size:
            # the result is C-contiguous: its kernel parameter computes its strides (any here)
            slots = [ptr, *shape, *(s & MASK for s in strides), out._nx.data, *out_shape]
            slots += [0] * len(out_shape)
            if form is not None:  # a work-group per result element, or a work-item in a group of one
                kernel.launch_nd(queue, slots, [size * form], [form], wait=False)
            else:
                kernel.launch_nd(queue, slots, [-(-size // lanes)], [1] if lanes > 1 else None, wait=False)
    return out


def wide(lanes: int, strides: Sequence[int], axis: int, size: int, itemsize: int) -> bool:
    """Whether a reduction along `axis` of an operand of byte `strides` (two or more dimensions)
    into `size` result elements, whose device takes `lanes` result elements per work-item, takes
    ``CPU_WIDE_LANES`` instead: on CPUs (8 lanes), where the result's last dimension is contiguous
    in the operand (each step of a work-item then reads two cache lines of one row, where 8 lanes
    read one) and the result holds at least ``CPU_WIDE_RESULT`` elements (shorter ones lose more
    to the lanes past their end)."""
    last = len(strides) - 1 if axis != len(strides) - 1 else len(strides) - 2
    return lanes == CPU_AXIS_LANES and strides[last] == itemsize and size >= CPU_WIDE_RESULT


def contiguous_form(op: str, dtype: np.dtype, length: int, device: Device) -> int | None:
    """The work-group size of `op` along a contiguous axis of `length` elements of `dtype` on
    `device` in its own form, or None where the other forms serve: on CPUs ``argmin`` / ``argmax``
    along at least ``CPU_ROW_LENGTH`` elements, one row per work-item in a group of one
    (``ir.reductions.arg_rows_function``); on GPUs every real reduction along at least
    ``GPU_GROUP_LENGTH`` elements, a work-group of ``ir.reductions.GROUP`` work-items per row
    (``axis_group_function``)."""
    if _cpu(device):
        return 1 if op in ARG_OPS and length >= CPU_ROW_LENGTH else None
    return GROUP if length >= GPU_GROUP_LENGTH and dtype.kind != "c" else None


def contiguous_function(op: str, dtype: str, ndim: int, axis: int, device: Device) -> Function:
    """The kernel's description of :func:`contiguous_form`'s form of `op` along `axis` of `ndim`-d
    arrays of `dtype` on `device`."""
    if _cpu(device):
        return arg_rows_function(op, dtype, ndim, axis, unroll(device))
    return axis_group_function(op, dtype, ndim, axis, GROUP)


def unroll(device: Device) -> int:
    """The form of the reductions over every element on `device` (``ir.reductions.flat_loop``'s
    `unroll`): blocked on CPUs, strided elsewhere."""
    return CPU_UNROLL if _cpu(device) else 1


def axis_lanes(device: Device) -> int:
    """The result elements each work-item of a reduction along an axis computes on `device`
    (``ir.reductions.axis_function``'s `lanes`): ``CPU_AXIS_LANES`` on CPUs, else 1."""
    return CPU_AXIS_LANES if _cpu(device) else 1


def launch_work_items(size: int, device: Device) -> tuple[int, list[int] | None]:
    """The global and local sizes of a reduction over `size` elements in the form ``unroll(device)``
    gives: on a CPU at most ``CPU_WORK_ITEMS_PER_UNIT`` per compute unit, each over at least
    ``CPU_ELEMENTS_PER_WORK_ITEM`` elements, in work-groups of one; elsewhere at most
    ``WORK_ITEMS``."""
    if _cpu(device):
        most = CPU_WORK_ITEMS_PER_UNIT * device.max_compute_units
        return max(min(-(-size // CPU_ELEMENTS_PER_WORK_ITEM), most), 1), [1]
    return whole_groups(min(size, WORK_ITEMS), device)


def whole_groups(work_items: int, device: Device) -> tuple[int, list[int] | None]:
    """The global and local sizes of a launch of at least `work_items` work-items: on PTX devices
    whole work-groups of the compiled form's size (the kernels skip the extra work-items)."""
    if ptx(device):
        wg = _core.NVIDIA_WORK_GROUP
        return -(-work_items // wg) * wg, [wg]
    return work_items, None


def dot_vectors(a: ndarray, b: ndarray, dtype: np.dtype, queue: Queue, kernel: _core.Kernel) -> np.generic:
    """``np.dot`` of two vectors of `dtype` and one length on `queue` with `kernel`
    (``ir.products.vector_function``'s): a NumPy scalar of `dtype`."""
    acc = dot_vectors_on_device(a, b, dtype, queue, kernel)
    if acc is None:
        return dtype.type(0)
    acc_dtype = acc.dtype
    host = np.empty(1, acc_dtype)
    _core.memcpy(queue, host.ctypes.data, acc._data_ptr, acc_dtype.itemsize)  # behind the kernel
    if dtype == np.bool_:
        return np.bool_(host[0] != 0)
    return host[0].astype(dtype)  # narrow integers: truncated, as the compiled form


def dot_accumulator(dtype: np.dtype) -> np.dtype:
    """The dtype of the device accumulator of a dot of two vectors of `dtype` (the result itself
    where they are the same: floats, 32- and 64-bit integers)."""
    return np.dtype(accumulator_dtype(accumulation_dtype(dtype.name)))


def dot_vectors_on_device(
    a: ndarray,
    b: ndarray,
    dtype: np.dtype,
    queue: Queue,
    kernel: _core.Kernel,
    usm_type: str = "device",
    shape: tuple[int, ...] = (1,),
) -> ndarray | None:
    """The one-element array of ``dot_accumulator(dtype)``, `usm_type` and `shape` ((1,) or ())
    that the dot of two vectors of `dtype` on `queue` is launched into with `kernel` (None for
    empty vectors); nothing is copied to the host."""
    n = a.shape[0]
    if n == 0:
        return None
    acc_dtype = dot_accumulator(dtype)
    acc = allocate(shape, acc_dtype, queue, usm_type)
    slots = [*operand(a)[0], *operand(b)[0], acc._data_ptr, 1, 0]
    work_items, local = launch_work_items(n, queue.device)
    zero = (acc._data_ptr, bytes(acc_dtype.itemsize), acc_dtype.itemsize)
    kernel.launch_nd(queue, slots, [work_items], local, zero, wait=False)
    return acc


def product(
    a: ndarray, b: ndarray, dtype: np.dtype, queue: Queue, usm_type: str, kernel: _core.Kernel
) -> ndarray:
    """``np.dot`` of a matrix with a matrix or a vector, or of a vector with a matrix, or the products
    of two 3-d stacks of matrices, all of `dtype`, on `queue` with `kernel`
    (``ir.products.product_function``'s, with ``axis_lanes`` result elements per work-item): a new
    C-contiguous array of `dtype` and `usm_type`."""
    stacks = a.ndim == b.ndim == 3  # out[s] = a[s] @ b[s]
    out_shape = (*a.shape[:-1], b.shape[2]) if stacks else a.shape[:-1] + b.shape[1:]
    out = allocate(out_shape, dtype, queue, usm_type)
    size = math.prod(out_shape)
    if size:
        slots = [*operand(a)[0], *operand(b)[0], out._data_ptr, *out_shape, *([0] * len(out_shape))]
        lanes = axis_lanes(queue.device)
        if lanes > 1:  # neighbouring result elements per work-item, in work-groups of one
            kernel.launch_nd(queue, slots, [-(-size // lanes)], [1], wait=False)
        else:
            work_items, local = whole_groups(size, queue.device)
            kernel.launch_nd(queue, slots, [work_items], local, wait=False)
    return out


def tiled(n: int, device: Device) -> bool:
    """Whether a product of C-contiguous matrices with `n` result columns on `device` takes tiles:
    on GPUs by work-groups (``ir.products.group_tiled_function``, any shape), elsewhere the vector
    form (``ir.products.tiled_function``, at least ``TILE_FEWEST_COLUMNS`` columns)."""
    return n >= TILE_FEWEST_COLUMNS or not _cpu(device)


def tile_groups(device: Device) -> bool:
    """Whether products in tiles on `device` take work-groups (GPUs) rather than vector lanes."""
    return not _cpu(device)


def tiled_product(
    a: ndarray, b: ndarray, dtype: np.dtype, queue: Queue, usm_type: str, kernel: _core.Kernel
) -> ndarray:
    """``a @ b`` of C-contiguous matrices of `dtype` (:func:`tiled` for their result) on `queue`
    with `kernel` (``ir.products.group_tiled_function``'s where :func:`tile_groups`, else
    ``tiled_function``'s), or of two C-contiguous 3-d stacks of matrices (``out[s] = a[s] @
    b[s]``) with ``tiled_function(dtype, stacked=True)``'s: a new C-contiguous array of `dtype` and
    `usm_type`."""
    lead = a.shape[:-2]
    m, n = a.shape[-2], b.shape[-1]
    out = allocate((*lead, m, n), dtype, queue, usm_type)
    if m and n and math.prod(lead):
        zeros = [0] * (len(lead) + 2)
        slots = [
            layout(a)[0],
            *a.shape,
            *zeros,
            layout(b)[0],
            *b.shape,
            *zeros,
            out._data_ptr,
            *out.shape,
            *zeros,
        ]
        extents, local = tile_launch(tile_groups(queue.device))
        sizes = [e.of(m, n) for e in extents]
        if lead:  # the stack along the third dimension, its strips in turn (CPUs' vector form only)
            sizes[2] = lead[0]
        kernel.launch_nd(queue, slots, sizes, list(local), wait=False)
    return out
