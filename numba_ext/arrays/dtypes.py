"""The element types and USM kinds numba_ext arrays hold, and their validation."""

from __future__ import annotations

import numpy as np

from ..devices import Queue
from ..errors import UnsupportedError

SUPPORTED_DTYPES: tuple[np.dtype, ...] = tuple(
    np.dtype(t)
    for t in (
        "bool",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "float16",
        "float32",
        "float64",
        "complex64",
        "complex128",
    )
)
SUPPORTED_DTYPE_SET = frozenset(SUPPORTED_DTYPES)
USM_TYPES = ("device", "shared", "host")


def check_usm_type(usm_type: str) -> str:
    """`usm_type` if it names a USM kind, else ValueError."""
    if not isinstance(usm_type, str) or usm_type not in USM_TYPES:
        raise ValueError(f"unknown usm_type {usm_type!r}: expected one of 'device', 'shared', 'host'")
    return usm_type


def check_dtype(dtype: object) -> np.dtype:
    """`dtype` as a native-byte-order NumPy dtype numba_ext arrays can hold (a byte-swapped dtype gives
    its native form); TypeError for what is no dtype (as NumPy's), UnsupportedError (a TypeError) for
    a NumPy dtype numba_ext arrays cannot hold."""
    try:
        dt = np.dtype(dtype)  # type: ignore[call-overload]
    except TypeError as e:
        raise TypeError(f"unsupported dtype {dtype!r}: {e}") from None
    if not dt.isnative:
        dt = dt.newbyteorder("=")  # arrays hold native-order data: the same values
    if dt not in SUPPORTED_DTYPE_SET:
        names = ", ".join(d.name for d in SUPPORTED_DTYPES)
        raise UnsupportedError(f"unsupported dtype {dt}: numba_ext arrays hold {names}")
    return dt


def fp16_error(queue: Queue) -> UnsupportedError:
    """The error for float16 data on a device without half precision (``has_aspect_fp16``: the
    OpenCL extension cl_khr_fp16), naming the device and the dtype to use instead.

    float16 arrays hold IEEE half values (2 bytes each); code on them computes in float32 and
    rounds every float16 result to half precision, as NumPy's float16 loops do."""
    return UnsupportedError(
        f"float16 data needs half precision, but device {queue.device.filter_string} "
        f"({queue.device.name}) does not report it (Device.has_aspect_fp16 is False: no cl_khr_fp16); "
        "use float32 (x.astype(np.float32) on the host, or dtype=np.float32)"
    )


def check_precision(dt: np.dtype, queue: Queue) -> None:
    """UnsupportedError where `queue`'s device cannot hold `dt`: float16 without half precision.
    (float64 and complex128 without fp64: ``allocation.fp64_error``.)"""
    if dt.char == "e" and not queue.device.has_aspect_fp16:
        raise fp16_error(queue)


def default_float(queue: Queue) -> np.dtype:
    """The floating-point dtype of new arrays on `queue`: float64 where the device has fp64."""
    return np.dtype("float64" if queue.device.has_fp64 else "float32")
