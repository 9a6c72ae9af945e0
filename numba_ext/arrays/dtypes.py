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
    if usm_type not in USM_TYPES:
        raise ValueError(f"unknown usm_type {usm_type!r}: expected one of 'device', 'shared', 'host'")
    return usm_type


def check_dtype(dtype: object) -> np.dtype:
    """`dtype` as a native-byte-order NumPy dtype numba_ext arrays can hold, else TypeError."""
    try:
        dt = np.dtype(dtype)  # type: ignore[call-overload]
    except TypeError as e:
        raise TypeError(f"unsupported dtype {dtype!r}: {e}") from None
    if dt == np.float16:
        raise UnsupportedError(
            "float16 arrays are not supported by numba_ext yet, on any device (Device.has_aspect_fp16 "
            "tells whether a device reports cl_khr_fp16); use float32 (x.astype(np.float32))"
        )
    if dt not in SUPPORTED_DTYPE_SET:
        names = ", ".join(d.name for d in SUPPORTED_DTYPES)
        raise TypeError(f"unsupported dtype {dt}: numba_ext arrays hold {names}")
    return dt.newbyteorder("=") if dt.byteorder not in ("=", "|") else dt


def default_float(queue: Queue) -> np.dtype:
    """The floating-point dtype of new arrays on `queue`: float64 where the device has fp64."""
    return np.dtype("float64" if queue.device.has_fp64 else "float32")
