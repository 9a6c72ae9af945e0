"""Allocation of new C-contiguous arrays (the extension allocates and wraps them)."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, SupportsIndex

import numpy as np
from numpy.typing import DTypeLike

from .. import _core
from ..devices import Queue
from ..errors import UnsupportedError
from . import hooks
from .dtypes import SUPPORTED_DTYPE_SET, check_dtype, check_usm_type

if TYPE_CHECKING:
    from .ndarray import ndarray

#: a shape: an int or a sequence of ints (Python or NumPy integers)
ShapeLike = SupportsIndex | Sequence[SupportsIndex]


def normalize_shape(shape: Any) -> tuple[int, ...]:
    """`shape` (an int or a sequence of ints) as a tuple of non-negative ints."""
    if isinstance(shape, (numbers.Integral, np.integer)):
        shape = (int(shape),)
    try:
        shape = tuple(int(s) for s in shape)
    except TypeError:
        raise TypeError(f"shape must be an int or a sequence of ints, got {shape!r}") from None
    if any(s < 0 for s in shape):
        raise ValueError(f"negative dimensions are not allowed: {shape}")
    return shape


# (dtype, ndim, usm_type, device filter string) -> ArrayInfo of new C-contiguous arrays
_infos: dict[tuple[np.dtype, int, str, str], _core.ArrayInfo] = {}


def fp64_error(dt: np.dtype, queue: Queue) -> UnsupportedError:
    """The error for float64 or complex128 data on a device without fp64, naming the dtype, the
    device and the single-precision dtype to use instead."""
    single = "complex64" if dt.kind == "c" else "float32"
    return UnsupportedError(
        f"{dt.name} data needs fp64, but device {queue.device.filter_string} ({queue.device.name}) "
        f"has no fp64 support; use {single} (x.astype(np.{single}) on the host, or dtype=np.{single})"
    )


def allocate(shape: ShapeLike, dtype: DTypeLike, queue: Queue, usm_type: str) -> ndarray:
    """A new C-contiguous ``numba_ext.ndarray``: allocated and wrapped by the extension
    (``_core.empty``), which returns an array holding only its native image, as compiled code's
    results do."""
    dt = dtype if type(dtype) is np.dtype and dtype in SUPPORTED_DTYPE_SET else check_dtype(dtype)
    if type(shape) is not tuple or (shape and min(shape) < 0):
        shape = normalize_shape(shape)
    key = (dt, len(shape), usm_type, queue.device.filter_string)
    info = _infos.get(key)
    if info is None:
        check_usm_type(usm_type)
        if dt.char in "dD" and not queue.device.has_fp64:
            raise fp64_error(dt, queue)
        info = _infos[key] = hooks.typing.new_array_info(dt, len(shape), usm_type, key[3])
    return _core.empty(queue, shape, dt.itemsize, info)
