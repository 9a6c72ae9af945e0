"""``__sycl_usm_array_interface__`` import: foreign USM arrays wrapped without a copy."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..devices import Queue
from .dtypes import check_dtype, check_usm_type
from .ndarray import ndarray


class _InterfaceHolder:
    """Keeps the foreign object alive and gives NumPy the address, shape and strides."""

    def __init__(self, obj: Any, array_interface: dict) -> None:
        self.obj = obj
        self.__array_interface__ = array_interface


def from_usm_interface(obj: Any, iface: dict) -> ndarray:
    """Wrap an object exposing ``__sycl_usm_array_interface__`` with no copy (its queue must be ours)."""
    q = iface.get("syclobj")
    if not isinstance(q, Queue):
        raise TypeError(
            f"{type(obj).__name__} exposes __sycl_usm_array_interface__ with syclobj={q!r}, which is "
            "not a numba_ext.Queue; its memory belongs to another runtime. Copy it through the host "
            "(e.g. numba_ext.asarray(<to-numpy>(x)))"
        )
    ptr, readonly = iface["data"]
    dt = check_dtype(np.dtype(iface["typestr"]))
    shape = tuple(iface["shape"])
    strides = iface.get("strides")
    offset = int(iface.get("offset", 0) or 0)
    desc = np.asarray(
        _InterfaceHolder(
            obj,
            {
                "data": (ptr + offset * dt.itemsize, bool(readonly)),
                "shape": shape,
                "strides": None if strides is None else tuple(s * dt.itemsize for s in strides),
                "typestr": dt.str,
                "version": 3,
            },
        )
    )
    usm_type = getattr(obj, "usm_type", "device")
    return ndarray._wrap(desc, q, check_usm_type(usm_type), ptr)
