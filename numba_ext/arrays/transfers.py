"""Copies between host memory and numba_ext arrays of any strides."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import _core

if TYPE_CHECKING:
    from .ndarray import ndarray


def byte_span(d: np.ndarray) -> tuple[int, int]:
    """Byte range [lo, hi) relative to the first element that a strided array touches."""
    lo = sum(min(0, (n - 1) * s) for n, s in zip(d.shape, d.strides))
    hi = sum(max(0, (n - 1) * s) for n, s in zip(d.shape, d.strides)) + d.itemsize
    return lo, hi


def upload_into(dst: ndarray, host: np.ndarray) -> None:
    """Copy host data (same shape) into `dst` (any strides)."""
    if dst.size == 0:
        return
    if dst._desc.flags.c_contiguous:
        src = np.ascontiguousarray(host, dtype=dst.dtype)
        _core.memcpy(dst._queue, dst._data_ptr, src.ctypes.data, dst.nbytes)
        return
    lo, hi = byte_span(dst._desc)
    staging = np.empty(hi - lo, np.uint8)
    _core.memcpy(dst._queue, staging.ctypes.data, dst._data_ptr + lo, hi - lo)  # keep gaps intact
    view = np.ndarray(dst.shape, dst.dtype, buffer=staging, offset=-lo, strides=dst.strides)
    view[...] = host
    _core.memcpy(dst._queue, dst._data_ptr + lo, staging.ctypes.data, hi - lo)


def copy_to_host(x: ndarray) -> np.ndarray:
    """Copy a numba_ext array (any strides) into a new C-contiguous NumPy array."""
    d = x._desc
    out = np.empty(d.shape, d.dtype)
    if d.size == 0:
        return out
    if d.flags.c_contiguous:
        _core.memcpy(x._queue, out.ctypes.data, d.ctypes.data, d.nbytes)
        return out
    lo, hi = byte_span(d)
    staging = np.empty(hi - lo, np.uint8)
    _core.memcpy(x._queue, staging.ctypes.data, d.ctypes.data + lo, hi - lo)
    out[...] = np.ndarray(d.shape, d.dtype, buffer=staging, offset=-lo, strides=d.strides)
    return out
