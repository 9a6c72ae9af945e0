"""Allocation of new arrays (the extension allocates and wraps C-contiguous ones; other memory orders
are views of those) and the ``order=`` argument of the creation functions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, SupportsIndex

import numpy as np

from .. import _core
from ..devices import Queue
from ..errors import UnsupportedError
from . import hooks
from .arguments import as_shape, order_letter
from .dtypes import SUPPORTED_DTYPE_SET, check_dtype, check_precision, check_usm_type
from .flags import layout_order

if TYPE_CHECKING:
    from numpy.typing import DTypeLike

    from .ndarray import ndarray

#: a shape: an int or a sequence of ints (Python or NumPy integers)
ShapeLike = SupportsIndex | Sequence[SupportsIndex]


def normalize_shape(shape: Any) -> tuple[int, ...]:
    """`shape` (an int or a sequence of ints, read as NumPy reads shapes) as a tuple of
    non-negative ints: TypeError and ValueError as NumPy's."""
    dims = as_shape(shape)
    if any(s < 0 for s in dims):
        raise ValueError("negative dimensions are not allowed")
    return dims


# (dtype, ndim, usm_type, device filter string) -> ArrayInfo of new C-contiguous arrays
_infos: dict[tuple[np.dtype, int, str, str], _core.ArrayInfo] = {}
#: the same, made before the compiler layer loads (naming no Numba type)
_untyped_infos: dict[tuple[np.dtype, int, str, str], _core.ArrayInfo] = {}
#: the array class (``ndarray`` sets it: it imports this module)
array_class: type | None = None


def _new_array_info(dt: np.dtype, ndim: int, usm_type: str, device: str) -> _core.ArrayInfo:
    """The ArrayInfo of new C-contiguous arrays, cached. Until the compiler layer is imported (the
    first jitted call, eager operation or Numba type asked for) it names no Numba type: an array
    made then computes its type when first asked (``ndarray._numba_type_``)."""
    key = (dt, ndim, usm_type, device)
    info = _infos.get(key)
    if info is None:
        if not hooks.typing_loaded():
            info = _untyped_infos.get(key)
            if info is None:
                assert array_class is not None
                info = _untyped_infos[key] = _core.ArrayInfo(array_class, usm_type, None, dt.str, False)
            return info
        info = _infos[key] = hooks.typing.new_array_info(dt, ndim, usm_type, device)
    return info


def untyped_array_info(dt: np.dtype, usm_type: str, readonly: bool) -> _core.ArrayInfo:
    """The ArrayInfo of an array of `dt` and `usm_type`, any layout, that names no Numba type (the
    array's native image computes it when first asked): for images made before the compiler layer
    is imported."""
    key = (dt, usm_type, readonly)
    info = _view_infos.get(key)
    if info is None:
        assert array_class is not None
        info = _view_infos[key] = _core.ArrayInfo(array_class, usm_type, None, dt.str, readonly)
    return info


_view_infos: dict[tuple[np.dtype, str, bool], _core.ArrayInfo] = {}


def fp64_error(dt: np.dtype, queue: Queue) -> UnsupportedError:
    """The error for float64 or complex128 data on a device without fp64, naming the dtype, the
    device and the single-precision dtype to use instead."""
    single = "complex64" if dt.kind == "c" else "float32"
    return UnsupportedError(
        f"{dt.name} data needs fp64, but device {queue.device.filter_string} ({queue.device.name}) "
        f"has no fp64 support; use {single} (x.astype(np.{single}) on the host, or dtype=np.{single})"
    )


def array_info(dt: np.dtype, ndim: int, queue: Queue, usm_type: str) -> _core.ArrayInfo:
    """The ``_core.ArrayInfo`` of new C-contiguous arrays of a supported dtype `dt` (what
    ``_core.empty`` takes), after the checks of the dtype against the queue's device."""
    key = (dt, ndim, check_usm_type(usm_type), queue.device.filter_string)
    info = _infos.get(key)
    if info is None:
        if dt.char in "dD" and not queue.device.has_fp64:
            raise fp64_error(dt, queue)
        check_precision(dt, queue)
        info = _new_array_info(*key)
    return info


def allocate(shape: ShapeLike, dtype: DTypeLike, queue: Queue, usm_type: str) -> ndarray:
    """A new C-contiguous ``numba_ext.ndarray``: allocated and wrapped by the extension
    (``_core.empty``), which returns an array holding only its native image, as compiled code's
    results do."""
    dt = dtype if type(dtype) is np.dtype and dtype in SUPPORTED_DTYPE_SET else check_dtype(dtype)
    if type(shape) is not tuple or (shape and min(shape) < 0):
        shape = normalize_shape(shape)
    return _core.empty(queue, shape, dt.itemsize, array_info(dt, len(shape), queue, usm_type))


#: a memory order: NumPy's ``order=`` letters ('K' and 'A' follow another array's layout)
OrderLike = Literal["C", "F", "A", "K"] | None


def order_axes(
    order: OrderLike, ndim: int, like: np.ndarray | None = None, allowed: str = "CFAK"
) -> tuple[int, ...]:
    """The axis order (from the slowest-varying axis to the fastest) of a new `ndim`-d array of
    memory order `order`: 'C' row-major, 'F' column-major, 'A' column-major when `like` is
    F-contiguous and not C-contiguous, 'K' `like`'s own layout (``flags.layout_order``); None
    means 'K' where `allowed` has it, else 'C'."""
    key = order_letter(order, "K" if "K" in allowed else "C")  # NumPy's TypeError and ValueError
    if key not in tuple(allowed):
        names = " or ".join(repr(c) for c in allowed)
        raise ValueError(f"order must be one of {names}, got {order!r}")
    identity = tuple(range(ndim))
    if key == "F" or (key == "A" and like is not None and like.flags.fnc):
        return identity[::-1]
    if key == "K" and like is not None and not like.flags.c_contiguous:
        return layout_order(like.shape, like.strides)
    return identity


def allocate_in_order(
    shape: ShapeLike, dtype: DTypeLike, queue: Queue, usm_type: str, axes: Sequence[int]
) -> ndarray:
    """A new dense ``numba_ext.ndarray`` whose axes run in memory in the order `axes` (slowest first;
    ``order_axes`` gives them): a C-contiguous allocation of the permuted shape, viewed through the
    inverse transpose (an F-contiguous array for reversed axes)."""
    axes = tuple(axes)
    if axes == tuple(range(len(axes))):
        return allocate(shape, dtype, queue, usm_type)
    shape = normalize_shape(shape)
    base = allocate(tuple(shape[a] for a in axes), dtype, queue, usm_type)
    return base.transpose(tuple(int(i) for i in np.argsort(axes)))
