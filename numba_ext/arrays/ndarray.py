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
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from types import EllipsisType
from typing import TYPE_CHECKING, Any, Literal, NoReturn, SupportsIndex, TypeAlias, overload

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from .. import _core
from ..devices import Context, Device, DeviceArg, Queue, default_queue, resolve_queue
from . import hooks
from .allocation import ShapeLike, allocate
from .dtypes import check_dtype, check_usm_type, default_float
from .transfers import copy_to_host, upload_into

if TYPE_CHECKING:
    from numpy._core.multiarray import flagsobj  # the type of ndarray.flags (NumPy names it only here)

_register_queue = _core._register_queue

_BasicIndexItem = SupportsIndex | slice | EllipsisType | None
#: a basic index (the only kind ``numba_ext.ndarray`` supports): integers, slices, ``...`` and ``None``,
#: alone or in a tuple
BasicIndex = _BasicIndexItem | tuple[_BasicIndexItem, ...]
#: what the reductions return: a NumPy scalar when they reduce every element, else an array
ReductionResult: TypeAlias = "np.generic | ndarray"


def _is_basic_index(key: object) -> bool:
    items = key if isinstance(key, tuple) else (key,)
    return all(
        isinstance(k, (int, np.integer, slice)) or k is Ellipsis or k is None for k in items
    ) and not any(isinstance(k, (bool, np.bool_)) for k in items)


class ndarray:
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

    def __init__(
        self,
        shape: ShapeLike,
        dtype: DTypeLike | None = "float64",
        *,
        device: DeviceArg = None,
        usm_type: str = "device",
        sycl_queue: Queue | None = None,
    ) -> None:
        q = resolve_queue(device, sycl_queue) or default_queue()
        other = allocate(shape, dtype if dtype is not None else default_float(q), q, check_usm_type(usm_type))
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
            value = _core.NativeArray(
                d,
                self._queue,
                self._data_ptr,
                d.shape,
                d.strides,
                d.itemsize,
                hooks.typing.array_info(self._numba_type_),
            )
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
    def sycl_queue(self) -> Queue:
        """The queue the array is bound to."""
        return self._queue

    queue = sycl_queue

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
    def flags(self) -> flagsobj:
        return self._desc.flags

    @property
    def T(self) -> ndarray:
        return self._view(self._desc.T)

    @property
    def __sycl_usm_array_interface__(self) -> dict[str, Any]:
        d = self._desc
        offset_bytes = d.ctypes.data - self._base_ptr
        return {
            "data": (self._base_ptr, not d.flags.writeable),
            "shape": d.shape,
            "strides": None if d.flags.c_contiguous else tuple(s // d.itemsize for s in d.strides),
            "typestr": d.dtype.str,
            "offset": offset_bytes // d.itemsize,
            "version": 1,
            "syclobj": self._queue,
        }

    # -- views ------------------------------------------------------------------------------------
    def _view(self, desc: np.ndarray) -> ndarray:
        return ndarray._wrap(desc, self._queue, self._usm_type, self._base_ptr)

    def __getitem__(self, key: BasicIndex) -> ndarray:
        if isinstance(key, ndarray) or not _is_basic_index(key):
            raise IndexError(
                "numba_ext.ndarray supports basic indexing (integers, slices, ..., None); "
                "index with NumPy on numba_ext.asnumpy(x) for advanced indexing"
            )
        return self._view(self._desc[key])

    def __setitem__(self, key: BasicIndex, value: ndarray | ArrayLike) -> None:
        view = self[key]
        host = copy_to_host(value) if isinstance(value, ndarray) else np.asarray(value)
        staged = np.empty(view.shape, view.dtype)
        staged[...] = host
        upload_into(view, staged)

    @overload
    def reshape(
        self, shape: Sequence[SupportsIndex], /, *, order: Literal["C", "F", "A"] = "C"
    ) -> ndarray: ...
    @overload
    def reshape(self, *shape: SupportsIndex, order: Literal["C", "F", "A"] = "C") -> ndarray: ...
    def reshape(self, *shape: Any, order: Literal["C", "F", "A"] = "C") -> ndarray:
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        try:
            desc = self._desc.reshape(shape, order=order, copy=False)
        except ValueError as e:
            raise ValueError(f"cannot reshape this array without a copy ({e}); copy it first") from None
        return self._view(desc)

    @overload
    def transpose(self, axes: Sequence[SupportsIndex] | None, /) -> ndarray: ...
    @overload
    def transpose(self, *axes: SupportsIndex) -> ndarray: ...
    def transpose(self, *axes: Any) -> ndarray:
        return self._view(self._desc.transpose(*axes))

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-d array")
        return self.shape[0]

    # -- conversions ------------------------------------------------------------------------------
    def to_device(self, device: DeviceArg) -> ndarray:
        """This array on `device` (a Queue, Device or selector): no copy when the queue shares
        this array's context, a copy otherwise."""
        q = device if isinstance(device, Queue) else resolve_queue(device)
        return convert(self, q, None, None, None)

    def copy(self) -> ndarray:
        return convert(self, None, None, None, True)

    def astype(self, dtype: DTypeLike) -> ndarray:
        return convert(self, None, dtype, None, True)

    def __array__(self, dtype: DTypeLike | None = None, copy: bool | None = None) -> NoReturn:
        raise TypeError(
            "implicit conversion of a numba_ext.ndarray to a NumPy array is not allowed; "
            "use numba_ext.asnumpy(x) to copy it to the host"
        )

    def _scalar(self) -> bool | int | float:
        if self.size != 1:
            raise TypeError("only arrays of one element can be converted to Python scalars")
        return copy_to_host(self).reshape(()).item()

    def __float__(self) -> float:
        return float(self._scalar())

    def __int__(self) -> int:
        return int(self._scalar())

    def __bool__(self) -> bool:
        return bool(self._scalar())

    def __index__(self) -> int:
        if self.dtype.kind not in "iu":
            raise TypeError("only integer arrays can be used as an index")
        return int(self._scalar())

    def __repr__(self) -> str:
        body = np.array2string(copy_to_host(self), separator=", ", prefix="numba_ext.ndarray(")
        return (
            f"numba_ext.ndarray({body}, dtype={self.dtype}, usm_type={self._usm_type!r}, "
            f"device={self.device.filter_string!r})"
        )

    __str__ = __repr__

    # -- eager elementwise operations (compute follows data) ------------------------------------
    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if method != "__call__" or kwargs:
            return NotImplemented
        if ufunc is np.matmul:
            return hooks.operations.dot(inputs[0], inputs[1], what="matmul")  # np.matmul has two inputs
        return hooks.operations.apply(ufunc, *inputs)

    def __array_function__(
        self,
        func: Callable[..., Any],
        types: Collection[type],
        args: Sequence[Any],
        kwargs: dict[str, Any],
    ) -> Any:
        """NumPy functions of numba_ext arrays: np.where, np.clip, np.dot, np.copy and the *_like
        functions compute or allocate on the arrays' queue (hooks.operations.ARRAY_FUNCTIONS); the others run
        NumPy's implementation, which uses the array's methods (np.sum, np.reshape, ...) or refuses
        the implicit conversion to a NumPy array."""
        if not all(issubclass(t, (ndarray, np.ndarray)) for t in types):
            return NotImplemented
        impl = hooks.operations.array_functions.get(func)
        if impl is not None:
            return impl(*args, **kwargs)
        numpy_impl = getattr(func, "_implementation", None)
        if numpy_impl is None:
            return NotImplemented  # NumPy then raises its TypeError naming the function
        try:
            return numpy_impl(*args, **kwargs)
        except TypeError as e:
            if not str(e).startswith("implicit conversion of a numba_ext.ndarray"):
                raise
            name = getattr(func, "__name__", str(func))
            raise TypeError(
                f"np.{name}() is not offloaded by numba_ext and would need an implicit conversion of a "
                "numba_ext.ndarray to a NumPy array, which is not allowed; copy the data to the host with "
                "numba_ext.asnumpy(x) first"
            ) from None

    __hash__ = None  # type: ignore[assignment]  # comparisons are elementwise, as for NumPy arrays

    # -- eager reductions (a kernel on the array's queue) -------------------------------------------
    def sum(
        self,
        axis: int | None = None,
        dtype: DTypeLike | None = None,
        out: ndarray | None = None,
        keepdims: bool = False,
    ) -> ReductionResult:
        return hooks.operations.reduce("sum", self, axis, dtype=dtype, out=out, keepdims=keepdims)

    def prod(
        self,
        axis: int | None = None,
        dtype: DTypeLike | None = None,
        out: ndarray | None = None,
        keepdims: bool = False,
    ) -> ReductionResult:
        return hooks.operations.reduce("prod", self, axis, dtype=dtype, out=out, keepdims=keepdims)

    def min(
        self, axis: int | None = None, out: ndarray | None = None, keepdims: bool = False
    ) -> ReductionResult:
        return hooks.operations.reduce("min", self, axis, out=out, keepdims=keepdims)

    def max(
        self, axis: int | None = None, out: ndarray | None = None, keepdims: bool = False
    ) -> ReductionResult:
        return hooks.operations.reduce("max", self, axis, out=out, keepdims=keepdims)

    def mean(
        self,
        axis: int | None = None,
        dtype: DTypeLike | None = None,
        out: ndarray | None = None,
        keepdims: bool = False,
    ) -> ReductionResult:
        return hooks.operations.reduce("mean", self, axis, dtype=dtype, out=out, keepdims=keepdims)

    def any(
        self, axis: int | None = None, out: ndarray | None = None, keepdims: bool = False
    ) -> ReductionResult:
        return hooks.operations.reduce("any", self, axis, out=out, keepdims=keepdims)

    def all(
        self, axis: int | None = None, out: ndarray | None = None, keepdims: bool = False
    ) -> ReductionResult:
        return hooks.operations.reduce("all", self, axis, out=out, keepdims=keepdims)

    def argmin(
        self, axis: int | None = None, out: ndarray | None = None, keepdims: bool = False
    ) -> ReductionResult:
        return hooks.operations.reduce("argmin", self, axis, out=out, keepdims=keepdims)

    def argmax(
        self, axis: int | None = None, out: ndarray | None = None, keepdims: bool = False
    ) -> ReductionResult:
        return hooks.operations.reduce("argmax", self, axis, out=out, keepdims=keepdims)

    def dot(self, other: ndarray) -> ndarray:
        return hooks.operations.dot(self, other)

    def __matmul__(self, other: ndarray) -> ndarray:
        return hooks.operations.dot(self, other, "matmul")

    def __rmatmul__(self, other: ndarray) -> ndarray:
        return hooks.operations.dot(other, self, "matmul")


def _binary(ufunc: np.ufunc, reflected: bool = False) -> Callable[[ndarray, Any], ndarray]:
    def op(self: ndarray, other: Any) -> ndarray:
        return (
            hooks.operations.apply(ufunc, other, self)
            if reflected
            else hooks.operations.apply(ufunc, self, other)
        )

    return op


def _unary(ufunc: np.ufunc) -> Callable[[ndarray], ndarray]:
    def op(self: ndarray) -> ndarray:
        return hooks.operations.apply(ufunc, self)

    return op


for _name, _uf in {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "truediv": np.true_divide,
    "floordiv": np.floor_divide,
    "mod": np.remainder,
    "pow": np.power,
    "and": np.bitwise_and,
    "or": np.bitwise_or,
    "xor": np.bitwise_xor,
}.items():
    setattr(ndarray, f"__{_name}__", _binary(_uf))
    setattr(ndarray, f"__r{_name}__", _binary(_uf, reflected=True))
for _name, _uf in {
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
    "eq": np.equal,
    "ne": np.not_equal,
}.items():
    setattr(ndarray, f"__{_name}__", _binary(_uf))
for _name, _uf1 in {"neg": np.negative, "pos": np.positive, "abs": np.absolute, "invert": np.invert}.items():
    setattr(ndarray, f"__{_name}__", _unary(_uf1))


def convert(
    x: ndarray, queue: Queue | None, dtype: DTypeLike | None, usm_type: str | None, copy: bool | None
) -> ndarray:
    """`x` on `queue` (default: its own) with `dtype` and `usm_type` (default: its own).

    No copy when nothing changes, or when only the queue does and it shares `x`'s context (USM
    memory belongs to the context); `copy=True` always copies; `copy=False` raises ValueError if a
    copy would be needed."""
    q = queue or x._queue
    want_dtype = check_dtype(dtype) if dtype is not None else x.dtype
    want_usm = check_usm_type(usm_type) if usm_type is not None else x.usm_type
    same_memory_ok = q.context == x._queue.context and want_dtype == x.dtype and want_usm == x.usm_type
    if same_memory_ok and not copy:
        if q == x._queue:
            return x
        return ndarray._wrap(x._desc, q, x._usm_type, x._base_ptr)
    if copy is False:
        raise ValueError(
            f"asarray(copy=False): a copy is needed (from {x._queue!r}/{x.usm_type}/{x.dtype} "
            f"to {q!r}/{want_usm}/{want_dtype})"
        )
    host = copy_to_host(x).astype(want_dtype, copy=False)
    out = allocate(host.shape, want_dtype, q, want_usm)
    upload_into(out, host)
    return out
