"""``numba_ext.ndarray``: an N-D array in USM memory bound to a queue.

Representation: ``_desc`` is a NumPy array *describing* the memory (address, shape, strides, dtype),
whose base chain owns it (a ``USMAllocation``, the native image of an array made in jitted code,
or a foreign object exposing ``__sycl_usm_array_interface__``). The descriptor is never read on the
host: NumPy only does the index arithmetic for views (slicing, transposes, reshapes). ``_queue`` is
the queue the array is bound to, ``_usm_type`` its kind.

For compiled code an array also has a *native image* ``_nx`` (``_core.NativeArray``: the words of
Numba's array struct plus a meminfo owning the memory and recording the queue), which unboxing
copies, and its Numba type ``_numba_type_`` (read by Numba's dispatcher without calling back into
Python). Both are made on first use. Arrays returned from compiled code start with only ``_nx``
and make their queue object, USM type, Numba type and descriptor from it on first use. Slots left
unset are filled by ``__getattr__``.

Owns: the class ``ndarray``: its storage and native image, its attributes, the USM array interface
it exports, views (basic indexing, reshapes, transposes; an integer for every axis gives a 0-d
view, as dpnp's), element assignment, its layout (``flags``, ``copy(order=)``) and conversions (to
another device, dtype or memory order; 0-d arrays to Python numbers: ``float``, ``int``, ``item``,
``format``; ``repr`` and ``str``). Its NumPy operations (operators, ufuncs,
reductions) come from its base class ``operators.ArrayOperators``.
"""

from __future__ import annotations

import importlib
import operator
from collections.abc import Iterator, Sequence
from types import EllipsisType, ModuleType
from typing import TYPE_CHECKING, Any, Literal, NoReturn, SupportsIndex, cast, overload

import numpy as np

from .. import _core
from ..devices import Context, Device, DeviceArg, Queue, default_queue, resolve_queue, sycl_view
from . import allocation, hooks
from .allocation import OrderLike, ShapeLike, allocate, allocate_in_order, normalize_shape, order_axes
from .conversions import astyped, reshaped
from .dlpack_export import dlpack_device, export_dlpack
from .dtypes import check_usm_type, default_float
from .flags import Flags
from .operators import ArrayOperators
from .transfers import convert, copy_to_host, upload_into

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, DTypeLike

_register_queue = _core._register_queue

_BasicIndexItem = SupportsIndex | slice | EllipsisType | None
#: a basic index (the only kind ``numba_ext.ndarray`` supports): integers, slices, ``...`` and ``None``,
#: alone or in a tuple
BasicIndex = _BasicIndexItem | tuple[_BasicIndexItem, ...]
#: the revisions of the Python array API standard the namespace (the module ``numba_ext``) follows
_API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12")


def _is_basic_index(key: object) -> bool:
    items = key if isinstance(key, tuple) else (key,)
    return all(
        isinstance(k, (int, np.integer, slice)) or k is Ellipsis or k is None for k in items
    ) and not any(isinstance(k, (bool, np.bool_)) for k in items)


def _is_integer_0d(k: object) -> bool:
    return isinstance(k, ndarray) and k.ndim == 0 and k.dtype.kind in "iu"


class ndarray(ArrayOperators):
    """An array in USM memory. Create with :func:`numba_ext.asarray`, :func:`numba_ext.empty`, ...;
    bring back to the host with :func:`numba_ext.asnumpy`."""

    __slots__ = ("_desc", "_queue", "_usm_type", "_base", "_numba_type_", "_ptr", "_nx", "__weakref__")
    _desc: np.ndarray  # NumPy's view of the memory: shape, strides, dtype, flags
    _queue: Queue
    _usm_type: str
    _base: int | None
    _numba_type_: Any
    _ptr: int
    _nx: _core.NativeArray
    __array_priority__ = 1000.0
    __hash__ = None  # type: ignore[assignment]  # comparisons are elementwise, as for NumPy arrays

    def __init__(
        self,
        shape: ShapeLike,
        dtype: DTypeLike | None = "float64",
        *,
        device: DeviceArg = None,
        usm_type: str = "device",
        sycl_queue: Queue | None = None,
        order: Literal["C", "F"] = "C",
    ) -> None:
        q = resolve_queue(device, sycl_queue) or default_queue()
        dt = dtype if dtype is not None else default_float(q)
        axes = order_axes(order, len(normalize_shape(shape)), allowed="CF")
        other = allocate_in_order(shape, dt, q, check_usm_type(usm_type), axes)
        for name in ("_desc", "_queue", "_usm_type", "_base"):
            setattr(self, name, getattr(other, name))

    @classmethod
    def _wrap(cls, desc: np.ndarray, queue: Queue, usm_type: str, base_ptr: int | None = None) -> ndarray:
        self = object.__new__(cls)
        self._desc = desc
        self._queue = queue
        self._usm_type = usm_type
        self._base = base_ptr  # allocation start (for the USM array interface); None: the data pointer
        _register_queue(queue)  # so compiled code returns arrays on this very queue object
        # _ptr, _nx and _numba_type_ are made on first use (__getattr__)
        return self

    def __getattr__(self, name: str) -> Any:
        """Only reached for a slot that is not set yet: make it (see the module documentation)."""
        value: Any
        if name == "_desc":
            nx = self._nx_if_set()
            if nx is None:
                raise AttributeError("numba_ext.ndarray without a descriptor or native image")
            value = np.asarray(nx)  # NumPy keeps the image (and so the memory) alive as the base
        elif name == "_nx":
            d = self._desc
            info = (
                hooks.typing.array_info(self._numba_type_)
                if hooks.typing_loaded()
                # no Numba type yet (the image makes it on first use): eager operations read images
                # without importing Numba
                else allocation.untyped_array_info(d.dtype, self._usm_type, not d.flags.writeable)
            )
            value = _core.NativeArray(d, self._queue, self._data_ptr, d.shape, d.strides, d.itemsize, info)
        elif name == "_numba_type_":
            nx = self._nx_if_set()
            value = nx.numba_type if nx is not None else None
            if value is None:
                value = hooks.typing.numba_type_of(self)
        elif name == "_queue":
            value = self._image("queue")
        elif name == "_usm_type":
            value = self._image("usm_type")
        elif name == "_ptr":
            nx = self._nx_if_set()
            value = nx.data if nx is not None else self._desc.__array_interface__["data"][0]
        elif name == "_base":
            value = None
        else:
            raise AttributeError(f"'numba_ext.ndarray' object has no attribute {name!r}")
        object.__setattr__(self, name, value)
        return value

    def _nx_if_set(self) -> _core.NativeArray | None:
        try:
            return object.__getattribute__(self, "_nx")
        except AttributeError:
            return None

    def _image(self, attr: str) -> Any:
        nx = self._nx_if_set()
        if nx is None:
            raise AttributeError("numba_ext.ndarray without a queue or native image")
        return getattr(nx, attr)

    @property
    def _base_ptr(self) -> int:
        if self._base is None:
            self._base = self._desc.ctypes.data
        return self._base

    # -- attributes -------------------------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        """Tuple of dimensions."""
        return self._desc.shape

    @property
    def dtype(self) -> np.dtype:
        """Element type."""
        return self._desc.dtype

    @property
    def strides(self) -> tuple[int, ...]:
        """Byte strides (NumPy convention)."""
        return self._desc.strides

    @property
    def ndim(self) -> int:
        return self._desc.ndim

    @property
    def size(self) -> int:
        return self._desc.size

    @property
    def itemsize(self) -> int:
        return self._desc.itemsize

    @property
    def nbytes(self) -> int:
        return self._desc.nbytes

    @property
    def queue(self) -> Queue:
        """The numba_ext queue the array is bound to."""
        return self._queue

    @property
    def sycl_queue(self) -> Any:
        """The queue the array is bound to; once dpctl is imported, the ``dpctl.SyclQueue`` on the
        same OpenCL context and device (what dpnp and dpctl accept; numba_ext takes either)."""
        return sycl_view(self._queue)

    @property
    def device(self) -> Device:
        """The device of the array's queue."""
        return self._queue.device

    sycl_device = device

    @property
    def sycl_context(self) -> Context:
        return self._queue.context

    @property
    def usm_type(self) -> str:
        """'device', 'shared' or 'host'."""
        return self._usm_type

    @property
    def _queue_handle(self) -> int:
        return self._queue._handle

    @property
    def _data_ptr(self) -> int:
        return self._ptr

    @property
    def flags(self) -> Flags:
        """The memory layout: ``c_contiguous``, ``f_contiguous``, ``writable`` (also NumPy's
        ``writeable`` and item access, ``a.flags['C_CONTIGUOUS']``)."""
        return Flags(self._desc)

    @property
    def T(self) -> ndarray:
        return self._view(self._desc.T)

    @property
    def real(self) -> ndarray:
        """The real part: for a complex array a strided view of its real components (writes go
        through, as in NumPy), else the array itself as a view."""
        return self._view(self._desc.real)

    @property
    def imag(self) -> ndarray:
        """The imaginary part: for a complex array a strided view of its imaginary components,
        else a new array of zeros on the same queue."""
        if self.dtype.kind == "c":
            return self._view(self._desc.imag)
        out = allocate(self.shape, self.dtype, self._queue, self._usm_type)
        upload_into(out, np.zeros(self.shape, self.dtype))
        return out

    @property
    def __sycl_usm_array_interface__(self) -> dict[str, Any]:
        _core.settle_all()  # the consumer may address the memory at once: running commands finish
        d = self._desc
        base = self._base_ptr
        if d.ctypes.data + sum((n - 1) * s for n, s in zip(d.shape, d.strides) if s < 0) < base:
            # an array from compiled code knows only its data pointer: a reversed one describes its
            # allocation from the start, so that offset and view lie at or after the pointer
            found = _core.allocation_extent(self._queue, d.ctypes.data)
            base = base if found is None else found[0]
        offset_bytes = d.ctypes.data - base
        return {
            "data": (base, not d.flags.writeable),
            "shape": d.shape,
            "strides": None if d.flags.c_contiguous else tuple(s // d.itemsize for s in d.strides),
            "typestr": d.dtype.str,
            "offset": offset_bytes // d.itemsize,
            "version": 1,
            "syclobj": sycl_view(self._queue),
        }

    def __dlpack__(
        self,
        *,
        stream: Queue | None = None,
        max_version: tuple[int, int] | None = None,
        dl_device: tuple[int, int] | None = None,
        copy: bool | None = None,
    ) -> Any:
        """A DLPack capsule of the array (array API 2023.12; see ``arrays/dlpack_export.py``)."""
        return export_dlpack(self, stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)

    def __dlpack_device__(self) -> tuple[int, int]:
        """``(kDLOneAPI, root device index)`` (``(kDLOpenCL, index)`` for ``cl_mem`` buffers)."""
        return dlpack_device(self)

    # -- views ------------------------------------------------------------------------------------
    def _view(self, desc: np.ndarray) -> ndarray:
        return ndarray._wrap(desc, self._queue, self._usm_type, self._base_ptr)

    def __getitem__(self, key: Any) -> ndarray:
        items = key if isinstance(key, tuple) else (key,)
        # 0-d integer arrays index as their value (x[x.argmax()]), as NumPy's do
        items = tuple(operator.index(cast(ndarray, k)) if _is_integer_0d(k) else k for k in items)
        if any(isinstance(k, (ndarray, list, np.ndarray)) for k in items):
            result: ndarray = hooks.operations.getitem(self, items)  # advanced: on the device
            return result
        if not _is_basic_index(items):
            raise IndexError(
                "numba_ext.ndarray takes integers, slices, ..., None, a boolean mask or integer arrays "
                f"as indices, not {', '.join(type(k).__name__ for k in items)}"
            )
        # a view even where every axis gets an integer (a 0-d array, as dpnp gives): `...` last
        # keeps NumPy from reading the element, which lives in device memory
        if Ellipsis not in items:
            items = (*items, Ellipsis)
        return self._view(self._desc[items])

    def __iter__(self) -> Iterator[ndarray]:
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.shape[0]))

    def __setitem__(self, key: Any, value: ndarray | ArrayLike) -> None:
        """Assignment to a basic index: an array on an equivalent queue is copied by a kernel there;
        host values (and arrays NumPy's rules cast otherwise) go through the host. A boolean mask
        selects the elements assigned on the device."""
        items = key if isinstance(key, tuple) else (key,)
        if any(isinstance(k, (ndarray, list, np.ndarray)) and not _is_integer_0d(k) for k in items):
            hooks.operations.setitem(self, key, value)
            return
        view = self[key]
        if type(value) is ndarray and _core.known_call(hooks.ASSIGNMENT, (value,), view) is not None:
            return  # an assignment of a kind served before (writable, apart from the value)
        if not view._desc.flags.writeable:
            raise ValueError("assignment destination is read-only")
        if isinstance(value, ndarray) and hooks.operations.assign(view, value):
            return
        host = copy_to_host(value) if isinstance(value, ndarray) else np.asarray(value)
        staged = np.empty(view.shape, view.dtype)
        staged[...] = host
        upload_into(view, staged)

    @overload
    def reshape(
        self, shape: Sequence[SupportsIndex], /, *, order: OrderLike = "C", copy: bool | None = None
    ) -> ndarray: ...
    @overload
    def reshape(self, *shape: SupportsIndex, order: OrderLike = "C", copy: bool | None = None) -> ndarray: ...
    def reshape(self, *shape: Any, order: OrderLike = "C", copy: bool | None = None) -> ndarray:
        """This array in another shape (NumPy's arguments): a view, or a copy where none is possible."""
        return reshaped(self, shape, order, copy)

    @overload
    def transpose(self, axes: Sequence[SupportsIndex] | None, /) -> ndarray: ...
    @overload
    def transpose(self, *axes: SupportsIndex) -> ndarray: ...
    def transpose(self, *axes: Any) -> ndarray:
        return self._view(self._desc.transpose(*axes))

    def ravel(self, order: OrderLike = "C") -> ndarray:
        """A 1-d view where the layout allows one, else a copy (NumPy's ``ravel``)."""
        return cast(ndarray, np.ravel(self, order=order))

    def flatten(self, order: OrderLike = "C") -> ndarray:
        """A 1-d copy."""
        return self.reshape(-1, order=order, copy=True)

    def squeeze(self, axis: SupportsIndex | tuple[SupportsIndex, ...] | None = None) -> ndarray:
        return self._view(self._desc.squeeze(axis))

    def swapaxes(self, axis1: SupportsIndex, axis2: SupportsIndex) -> ndarray:
        return self._view(self._desc.swapaxes(axis1, axis2))

    def diagonal(
        self, offset: SupportsIndex = 0, axis1: SupportsIndex = 0, axis2: SupportsIndex = 1
    ) -> ndarray:
        """The diagonal as a read-only view, as NumPy's."""
        return self._view(self._desc.diagonal(offset, axis1, axis2))

    @property
    def mT(self) -> ndarray:
        """The last two axes swapped (a view)."""
        return self._view(self._desc.mT)

    def fill(self, value: Any) -> None:
        """Every element set to `value` (cast as NumPy's ``fill`` casts it)."""
        self[...] = value

    def tolist(self) -> Any:
        """The elements as nested Python lists (copied to the host)."""
        return copy_to_host(self).tolist()

    def tobytes(self, order: Literal["C", "F", "A", "K"] = "C") -> bytes:
        """The elements' bytes (copied to the host)."""
        return copy_to_host(self).tobytes(order)

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-d array")
        return self.shape[0]

    # -- the array API ----------------------------------------------------------------------------
    def __array_namespace__(self, /, *, api_version: str | None = None) -> ModuleType:
        """The array API namespace of these arrays: the module ``numba_ext``."""
        if api_version is not None and api_version not in _API_VERSIONS:
            raise ValueError(
                f"numba_ext implements the array API revisions {', '.join(_API_VERSIONS)}, "
                f"not {api_version!r}"
            )
        return importlib.import_module("numba_ext")

    # -- pickling and copies ----------------------------------------------------------------------
    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its elements (copied to the host, in this array's memory order) and its USM
        type. Unpickling puts them on the default queue of the process that loads them
        (``numba_ext.set_default_device``, else ``NUMBA_EXT_DEVICE``, else the default selector):
        the queue they came from may not exist there, as on a Dask worker pinned to another
        device. NumPy's arrays carry their buffer out of band with pickle protocol 5."""
        return (_unpickled_array, (copy_to_host(self), self._usm_type))

    def __copy__(self) -> ndarray:
        """A copy on the same queue, in this array's memory order (``copy.copy``)."""
        return self.copy(order="K")

    def __deepcopy__(self, memo: dict[int, Any]) -> ndarray:
        """A copy on the same queue, in this array's memory order (``copy.deepcopy``)."""
        return self.copy(order="K")

    # -- conversions ------------------------------------------------------------------------------
    def to_device(self, device: DeviceArg, /, *, stream: object = None) -> ndarray:
        """This array on `device` (a Queue, Device or selector): no copy when the queue shares
        this array's context, a copy otherwise."""
        q = device if isinstance(device, Queue) else resolve_queue(device)
        return convert(self, q, None, None, None)

    def view(self, dtype: DTypeLike | None = None) -> ndarray:
        """The same memory read as `dtype` (NumPy's ``ndarray.view``: an element size that differs
        rescales the last axis, which must then be contiguous); no copy, no device work."""
        if dtype is None:
            return self._view(self._desc)
        return self._view(self._desc.view(np.dtype(dtype)))

    def copy(self, order: OrderLike = "C") -> ndarray:
        """A copy on the same queue in memory order `order` ('C' by default, as NumPy; 'F', 'A', 'K')."""
        return convert(self, None, None, None, True, order)

    def astype(
        self, dtype: DTypeLike, order: OrderLike = "K", casting: str = "unsafe", copy: bool = True
    ) -> ndarray:
        """This array as `dtype`, in memory order `order` ('K': this array's layout), on its queue."""
        return astyped(self, dtype, order, casting, copy)

    def __array__(self, dtype: DTypeLike | None = None, copy: bool | None = None) -> NoReturn:
        raise TypeError(
            "implicit conversion of a numba_ext.ndarray to a NumPy array is not allowed; "
            "use numba_ext.asnumpy(x) to copy it to the host"
        )

    # -- 0-d arrays (and arrays of one element) as Python numbers: one copy to the host -------------
    def _host_scalar(self) -> np.generic:
        if self.size != 1:
            raise TypeError("only arrays of one element can be converted to Python scalars")
        return cast(np.generic, copy_to_host(self).reshape(())[()])

    def item(self, *args: Any) -> bool | int | float:
        """The element (of an array of one element, or at a flat index or an index tuple) as a
        Python scalar, copied to the host."""
        if not args:
            return self._host_scalar().item()
        index = args[0] if len(args) == 1 else args
        if not isinstance(index, tuple):
            index = np.unravel_index(operator.index(index), self.shape)
        if len(index) != self.ndim:
            raise ValueError("incorrect number of indices for array")
        return self[tuple(index)]._host_scalar().item()

    def __float__(self) -> float:
        return float(self._host_scalar())

    def __int__(self) -> int:
        return int(self._host_scalar())

    def __complex__(self) -> complex:
        return complex(self._host_scalar())

    def __bool__(self) -> bool:
        return bool(self._host_scalar())

    def __index__(self) -> int:
        if self.dtype.kind not in "iu":
            raise TypeError("only integer scalar arrays can be converted to a scalar index")
        return int(self._host_scalar())

    def __format__(self, spec: str) -> str:
        if self.ndim == 0:
            return format(self._host_scalar(), spec)  # NumPy formats 0-d arrays as their element
        if spec:
            raise TypeError("unsupported format string passed to numba_ext.ndarray.__format__")
        return str(self)

    def __repr__(self) -> str:
        body = np.array2string(copy_to_host(self), separator=", ", prefix="numba_ext.ndarray(")
        return (
            f"numba_ext.ndarray({body}, dtype={self.dtype}, usm_type={self._usm_type!r}, "
            f"device={self.device.filter_string!r})"
        )

    def __str__(self) -> str:
        """NumPy's ``str`` of the data (``1.5`` for a 0-d array, ``[1. 2.]``), as dpnp prints."""
        return str(copy_to_host(self))


allocation.array_class = ndarray


def _unpickled_array(host: np.ndarray, usm_type: str) -> ndarray:
    """An unpickled array: `host`'s elements, in its memory order, on the default queue."""
    out = allocate_in_order(
        host.shape, host.dtype, default_queue(), check_usm_type(usm_type), order_axes("K", host.ndim, host)
    )
    upload_into(out, host)
    return out
