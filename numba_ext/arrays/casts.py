"""Dtype conversions on the device: ``astype`` and ``asarray(x, dtype=...)`` of an array into memory
of the same context run one kernel that reads each element, converts it as NumPy's unsafe cast does
and stores it, in whatever layout either array has. No copy goes through the host.

The conversions are the kernels' (the same as in jitted code): integers wrap, floats truncate
toward zero, NaN and nonzero values are true, floats round to the nearest float32 or float16, and a
negative float made unsigned wraps through int64. Values NumPy calls invalid for a conversion (NaN
or infinities made integers, values beyond the target's range) give the device's value without
NumPy's RuntimeWarning. Complex values made real keep NumPy's ComplexWarning: they convert on the
host. The kernel builder and the compiler load on the first conversion (``import numba_ext`` does
not pay for them)."""

from __future__ import annotations

import math
import threading
from typing import TYPE_CHECKING

import numpy as np

from .. import _core
from ..devices import Device

if TYPE_CHECKING:
    from .ndarray import ndarray

_lock = threading.Lock()
#: one kernel per (source dtype, target dtype, rank, contiguity of each, device)
_kernels: dict[tuple[np.dtype, np.dtype, int, bool, bool, Device], _core.Kernel] = {}
_MASK = 0xFFFF_FFFF_FFFF_FFFF


def on_device(src: np.dtype, dst: np.dtype, device: Device) -> bool:
    """Whether the device converts `src` to `dst` (else the host does, as NumPy)."""
    if src.kind not in "biufc" or dst.kind not in "biufc":
        return False
    if src.kind == "c" and dst.kind != "c":
        return False  # NumPy warns that the imaginary part is discarded
    doubles = {np.dtype(np.float64), np.dtype(np.complex128)}
    return device.has_fp64 or not {src, dst} & doubles


def cast_into(out: ndarray, x: ndarray) -> None:
    """``out[...] = x`` converted to `out`'s dtype by one kernel on `out`'s queue: `x` of the same
    shape, in memory that queue's context holds."""
    shape = out.shape
    size = math.prod(shape)
    if size == 0:
        return
    xd, od = x._desc, out._desc
    x_dense, out_dense = xd.flags.c_contiguous, od.flags.c_contiguous
    queue = out._queue
    key = (xd.dtype, od.dtype, len(shape), x_dense, out_dense, queue.device)
    kernel = _kernels.get(key)
    if kernel is None:
        kernel = _compile(*key)
        with _lock:
            _kernels[key] = kernel
    slots = [*_array_slots(x, x_dense), *_array_slots(out, out_dense), *shape, size]
    kernel.launch(queue, slots, wait=False)


def _compile(
    src: np.dtype, dst: np.dtype, ndim: int, src_dense: bool, dst_dense: bool, device: Device
) -> _core.Kernel:
    from ..ir.kernel_ir import Load, Store
    from ..ir.spec_builder import SpecBuilder

    b = SpecBuilder(ndim)
    x = b.array_param("x", src.name, ndim, src_dense)
    out = b.array_param("out", dst.name, ndim, dst_dense)
    value = b.cast(b.node(Load(src.name, x)), src.name, dst.name)
    b.node(Store(dst.name, out, value))
    return _core.compile_kernel(b.spec(), device)


def _array_slots(a: ndarray, dense: bool) -> list[int]:
    """An array's data address and, unless it is C-contiguous, its byte strides."""
    if dense:
        return [a._data_ptr]
    return [a._data_ptr, *(s & _MASK for s in a._desc.strides)]
