"""``__sycl_usm_array_interface__`` import: foreign USM arrays wrapped without a copy, after the
interface dictionary is checked field by field (version, required keys, typestr, shape, strides,
offset, data, syclobj): a malformed one is an ``ArrayInterfaceError`` naming the field and its value,
never memory read at a wrong address."""

from __future__ import annotations

import operator
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..devices import Queue, is_dpctl_queue, queue_from_dpctl
from ..errors import ArrayInterfaceError
from .dtypes import SUPPORTED_DTYPE_SET, SUPPORTED_DTYPES, check_precision, check_usm_type
from .ndarray import ndarray

#: the protocol versions understood (dpctl's ``usm_ndarray`` exports version 1, as numba_ext does)
SUPPORTED_VERSIONS = (1,)
REQUIRED_KEYS = ("data", "shape", "typestr", "version", "syclobj")


class _InterfaceHolder:
    """Keeps the foreign object alive and gives NumPy the address, shape and strides."""

    def __init__(self, obj: Any, array_interface: dict) -> None:
        self.obj = obj
        self.__array_interface__ = array_interface


def from_usm_interface(obj: Any, iface: object) -> ndarray:
    """Wrap an object exposing ``__sycl_usm_array_interface__`` with no copy (its queue must be ours,
    or a ``dpctl.SyclQueue``, whose OpenCL context numba_ext then adopts: the pointer stays valid)."""
    what = f"{type(obj).__name__}.__sycl_usm_array_interface__"
    q, dt, shape, strides, (ptr, readonly), offset = validate_interface(what, iface)
    desc = np.asarray(
        _InterfaceHolder(
            obj,
            {
                "data": (ptr + offset * dt.itemsize, readonly),
                "shape": shape,
                "strides": None if strides is None else tuple(s * dt.itemsize for s in strides),
                "typestr": dt.str,
                "version": 3,
            },
        )
    )
    usm_type = getattr(obj, "usm_type", "device")
    return ndarray._wrap(desc, q, check_usm_type(usm_type), ptr)


def validate_interface(
    what: str, iface: object
) -> tuple[Queue, np.dtype, tuple[int, ...], tuple[int, ...] | None, tuple[int, bool], int]:
    """The checked fields of a USM array interface `iface` (described as `what` in errors): queue,
    dtype, shape, strides (in elements, or None for C-contiguous), (data pointer, read-only), offset
    (in elements)."""
    if not isinstance(iface, Mapping):
        raise ArrayInterfaceError(f"{what} must be a dict, got {type(iface).__name__} {iface!r}")
    missing = [k for k in REQUIRED_KEYS if k not in iface]
    if missing:
        raise ArrayInterfaceError(
            f"{what} lacks the required key{'s' if len(missing) > 1 else ''} "
            f"{', '.join(repr(k) for k in missing)} (it needs {', '.join(repr(k) for k in REQUIRED_KEYS)})"
        )
    version = iface["version"]
    if type(version) is not int or version not in SUPPORTED_VERSIONS:
        raise ArrayInterfaceError(
            f"{what} has version={version!r}; numba_ext reads version "
            f"{' or '.join(map(str, SUPPORTED_VERSIONS))} of the protocol"
        )
    q = _queue(what, iface["syclobj"])
    dt = _dtype(what, iface["typestr"])
    check_precision(dt, q)
    shape = _ints(what, "shape", iface["shape"])
    if any(n < 0 for n in shape):
        raise ArrayInterfaceError(f"{what} has shape={iface['shape']!r} with a negative extent")
    strides = _strides(what, iface.get("strides"), len(shape))
    offset = _offset(what, iface.get("offset", 0))
    data = _data(what, iface["data"])
    if data[0] == 0 and 0 not in shape:
        raise ArrayInterfaceError(f"{what} has data={iface['data']!r}: a null pointer for a non-empty array")
    _check_extent(what, shape, strides, offset)
    return q, dt, shape, strides, data, offset


def _queue(what: str, q: object) -> Queue:
    if is_dpctl_queue(q):
        # dpctl/dpnp submit asynchronously: their writes must be done before numba_ext reads the
        # memory, through its own queue on the same (adopted) OpenCL context
        q.wait()  # type: ignore[attr-defined]
        return queue_from_dpctl(q)
    if not isinstance(q, Queue):
        raise ArrayInterfaceError(
            f"{what} has syclobj={q!r}, which is not a numba_ext.Queue (nor a dpctl.SyclQueue); its "
            "memory belongs to another runtime. Copy it through the host "
            "(e.g. numba_ext.asarray(<to-numpy>(x)))"
        )
    return q


def _dtype(what: str, typestr: object) -> np.dtype:
    if not isinstance(typestr, str):
        raise ArrayInterfaceError(
            f"{what} has typestr={typestr!r}; it must be a NumPy type string such as '<f8'"
        )
    try:
        dt = np.dtype(typestr)
    except TypeError:
        raise ArrayInterfaceError(
            f"{what} has typestr={typestr!r}, which is not a NumPy type string (such as '<f8')"
        ) from None
    if not dt.isnative:
        raise ArrayInterfaceError(
            f"{what} has typestr={typestr!r}, in non-native byte order; USM data is in the device's "
            f"(native) order, {dt.newbyteorder('=').str!r}"
        )
    if dt.newbyteorder("=") not in SUPPORTED_DTYPE_SET:
        names = ", ".join(d.name for d in SUPPORTED_DTYPES)
        raise ArrayInterfaceError(f"{what} has typestr={typestr!r} ({dt}); numba_ext arrays hold {names}")
    return dt.newbyteorder("=")


def _ints(what: str, field: str, value: object) -> tuple[int, ...]:
    if not isinstance(value, (tuple, list)):
        raise ArrayInterfaceError(f"{what} has {field}={value!r}; it must be a tuple of integers")
    try:
        if any(isinstance(v, (bool, np.bool_)) for v in value):
            raise TypeError
        return tuple(operator.index(v) for v in value)
    except TypeError:
        raise ArrayInterfaceError(f"{what} has {field}={value!r}; it must be a tuple of integers") from None


def _strides(what: str, value: object, ndim: int) -> tuple[int, ...] | None:
    if value is None:
        return None
    strides = _ints(what, "strides", value)
    if len(strides) != ndim:
        raise ArrayInterfaceError(
            f"{what} has strides={value!r} for {ndim} dimension{'s' if ndim != 1 else ''}; it needs one "
            "stride per dimension (in elements), or None for a C-contiguous array"
        )
    return strides


def _offset(what: str, value: object) -> int:
    if value is None:
        return 0
    try:
        if isinstance(value, (bool, np.bool_)):
            raise TypeError
        offset = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise ArrayInterfaceError(
            f"{what} has offset={value!r}; it must be an integer (in elements)"
        ) from None
    if offset < 0:
        raise ArrayInterfaceError(f"{what} has offset={value!r}; it must not be negative")
    return offset


def _data(what: str, value: object) -> tuple[int, bool]:
    if isinstance(value, (tuple, list)) and len(value) == 2:
        ptr, readonly = value[0], value[1]
        if (
            isinstance(ptr, (int, np.integer))
            and not isinstance(ptr, (bool, np.bool_))
            and ptr >= 0
            and isinstance(readonly, (bool, np.bool_))
        ):
            return int(ptr), bool(readonly)
    raise ArrayInterfaceError(
        f"{what} has data={value!r}; it must be a tuple (pointer, read-only) of a non-negative "
        "integer address and a bool"
    )


def _check_extent(what: str, shape: tuple[int, ...], strides: tuple[int, ...] | None, offset: int) -> None:
    """No element may lie before the allocation the data pointer gives (strides are in elements)."""
    if strides is None or 0 in shape:
        return
    lowest = offset + sum((n - 1) * s for n, s in zip(shape, strides) if s < 0)
    if lowest < 0:
        raise ArrayInterfaceError(
            f"{what} has strides={strides!r} and offset={offset} for shape={shape!r}: elements would "
            f"lie {-lowest} elements before the data pointer (strides and offset are in elements)"
        )
