"""``__sycl_usm_array_interface__`` import: foreign USM arrays wrapped without a copy, after the
interface dictionary is checked field by field (version, required keys, typestr, shape, strides,
offset, data, syclobj) and its memory against the runtime (``foreign_memory``: the data pointer must
lie in an allocation of the queue's context, and the whole view inside that allocation). A malformed
or out-of-bounds one is an ``ArrayInterfaceError`` naming the field and its value; nothing is read
before every check has passed."""

from __future__ import annotations

import operator
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..devices import Queue
from ..errors import ArrayInterfaceError
from .allocation import allocate
from .dtypes import SUPPORTED_DTYPE_SET, SUPPORTED_DTYPES, check_precision
from .foreign_memory import check_view, find_extent, not_in_context, queue_of, sycl_scope, view_bytes
from .ndarray import ndarray

#: the protocol versions understood (dpctl's ``usm_ndarray`` exports version 1, as numba_ext does)
SUPPORTED_VERSIONS = (1,)
REQUIRED_KEYS = ("data", "shape", "typestr", "version", "syclobj")


@dataclass(frozen=True)
class CheckedInterface:
    """A USM array interface whose fields and memory have been checked: strides and offset are in
    elements; ``usm_type`` is the runtime's answer for the allocation; ``shared`` is False for an
    empty array whose pointer lies in no allocation (it gets memory of its own)."""

    queue: Queue
    dtype: np.dtype
    shape: tuple[int, ...]
    strides: tuple[int, ...] | None
    ptr: int
    readonly: bool
    offset: int
    usm_type: str
    shared: bool


class _InterfaceHolder:
    """Keeps the foreign object alive and gives NumPy the address, shape and strides."""

    def __init__(self, obj: Any, array_interface: dict) -> None:
        self.obj = obj
        self.__array_interface__ = array_interface


def from_usm_interface(obj: Any, iface: object) -> ndarray:
    """Wrap an object exposing ``__sycl_usm_array_interface__`` with no copy (its memory must be an
    allocation of the context of the queue its ``syclobj`` gives; a ``dpctl.SyclQueue``'s OpenCL
    context is adopted, so its pointers stay valid)."""
    what = f"{type(obj).__name__}.__sycl_usm_array_interface__"
    c = validate_interface(what, iface)
    if not c.shared:
        try:
            out = allocate(c.shape, c.dtype, c.queue, c.usm_type)
            _ = out.shape  # the descriptor, made now: NumPy's limits on shapes are reported here
            return out
        except (ValueError, OverflowError) as e:
            raise _too_big(what, c, e) from None
    holder = _InterfaceHolder(
        obj,
        {
            "data": (c.ptr + c.offset * c.dtype.itemsize, c.readonly),
            "shape": c.shape,
            "strides": None if c.strides is None else tuple(s * c.dtype.itemsize for s in c.strides),
            "typestr": c.dtype.str,
            "version": 3,
        },
    )
    try:
        desc = np.asarray(holder)
    except (ValueError, OverflowError) as e:  # e.g. zero strides over more elements than fit
        raise _too_big(what, c, e) from None
    return ndarray._wrap(desc, c.queue, c.usm_type, c.ptr)


def _too_big(what: str, c: CheckedInterface, e: Exception) -> ArrayInterfaceError:
    return ArrayInterfaceError(
        f"{what} has shape={c.shape!r} and strides={c.strides!r}, which NumPy cannot describe: {e}"
    )


def validate_interface(what: str, iface: object) -> CheckedInterface:
    """The checked fields of a USM array interface `iface` (described as `what` in errors), after its
    memory has been found in the runtime (see the module documentation)."""
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
    scope = sycl_scope(what, iface["syclobj"])
    dt = _dtype(what, iface["typestr"])
    shape = _ints(what, "shape", iface["shape"])
    if any(n < 0 for n in shape):
        raise ArrayInterfaceError(f"{what} has shape={iface['shape']!r} with a negative extent")
    strides = _strides(what, iface.get("strides"), len(shape))
    offset = _offset(what, iface.get("offset", 0))
    ptr, readonly = _data(what, iface["data"])
    found = find_extent(scope, ptr)
    queue = queue_of(scope, None if found is None else found[1])
    check_precision(dt, queue)
    if found is None:
        if 0 not in shape:
            raise not_in_context(what, iface["data"], ptr, scope)
        return CheckedInterface(queue, dt, shape, strides, ptr, readonly, offset, "device", False)
    extent = found[0]
    fields = (
        f"shape={iface['shape']!r}, strides={iface.get('strides')!r}, offset={iface.get('offset', 0)!r} "
        f"and typestr={iface['typestr']!r}"
    )
    if 0 not in shape:
        check_view(what, fields, ptr, extent, view_bytes(shape, strides, offset, dt.itemsize))
    else:  # nothing is read, but the array's data pointer (its first element) stays in the allocation
        first = offset * dt.itemsize
        check_view(what, fields, ptr, extent, (first, first))
    return CheckedInterface(queue, dt, shape, strides, ptr, readonly, offset, extent.usm_type, True)


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
    """The offset in elements from the data pointer to the first element (any integer)."""
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
    return offset  # negative is fine while the view stays in the allocation (checked with the memory)


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
