"""The Python array API standard's namespace (``x.__array_namespace__()``, the module
``numba_ext`` itself): its functions, data types, constants and inspection, on numba_ext arrays.

Every function computes on the queue compute follows data infers from its array arguments and
returns arrays there, through the eager library: elementwise functions are NumPy's ufuncs of these
arrays, reductions their reductions, and the manipulation, searching, sorting, set and indexing
functions NumPy's functions of them (``library.functions.ARRAY_FUNCTIONS``) or compositions of
those (``tril``, ``tile``, ``unique_all``, ``tensordot``, ...). Arguments that are arrays must be
numba_ext arrays; NumPy arrays are refused with a ``TypeError`` that says how to move them.

The top-level package answers these names on first use (``numba_ext.sum``, ``numba_ext.float32``),
so programs written against ``dpnp``, ``cupy`` or ``array_api_strict`` run with the import changed.

May import: ``numba_ext.library``, ``numba_ext.placement``, ``numba_ext.arrays``,
``numba_ext.devices``, ``numba_ext.errors``.
"""

from __future__ import annotations

import builtins
import math
import operator
from collections.abc import Callable, Sequence
from typing import Any, Literal, NamedTuple

import numpy as np

from . import library
from .arrays import (
    arange,
    asarray,
    empty,
    empty_like,
    eye,
    from_dlpack,
    full,
    full_like,
    linspace,
    ndarray,
    ones,
    ones_like,
    zeros,
    zeros_like,
)
from .arrays.dtypes import SUPPORTED_DTYPES
from .devices import Device, default_queue, get_devices
from .library import composed, sets
from .library.functions import tensordot as library_tensordot
from .placement import execution_queue

#: NumPy's functions, untyped: called on numba_ext arrays, they dispatch to the eager library
_np: Any = np

#: the newest revision of the standard this namespace follows
__array_api_version__ = "2024.12"
#: the revisions ``__array_namespace__(api_version=...)`` accepts
API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12")

# -- data types and constants ----------------------------------------------------------------------
bool = np.bool_
int8, int16, int32, int64 = np.int8, np.int16, np.int32, np.int64
uint8, uint16, uint32, uint64 = np.uint8, np.uint16, np.uint32, np.uint64
float32, float64 = np.float32, np.float64
complex64, complex128 = np.complex64, np.complex128
e, inf, nan, pi = math.e, math.inf, math.nan, math.pi
newaxis = None

#: the standard's data types by name: every dtype of the arrays but float16, which it lacks
_DTYPES: dict[str, Any] = {dt.name: dt.type for dt in SUPPORTED_DTYPES if dt.kind != "f" or dt.itemsize > 2}
_SCALARS = (int, float, complex)  # bool derives from int


def _array(fn: str, x: object, name: str = "x") -> ndarray:
    """`x`, a numba_ext array, or the ``TypeError`` naming the function and argument."""
    if isinstance(x, ndarray):
        return x
    hint = (
        "; copy it to a device with numba_ext.asarray(x)"
        if isinstance(x, np.ndarray)
        else "; make an array with numba_ext.asarray(x)"
    )
    raise TypeError(f"numba_ext.{fn}(): {name} must be a numba_ext.ndarray, not {type(x).__name__}{hint}")


def _array_or_scalar(fn: str, x: object, name: str) -> object:
    if isinstance(x, _SCALARS) or isinstance(x, ndarray):
        return x
    return _array(fn, x, name)


def _axis(axis: object) -> int:
    if isinstance(axis, (builtins.bool, np.bool_)):
        raise TypeError("an integer is required for the axis")
    return operator.index(axis)  # type: ignore[arg-type]


# -- elementwise functions: NumPy's ufuncs of these arrays --------------------------------------------
def _unary(name: str, ufunc: Callable[..., Any]) -> Callable[[ndarray], ndarray]:
    def fn(x: ndarray, /) -> ndarray:
        result: ndarray = ufunc(_array(name, x))
        return result

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"The array API's ``{name}``: ``np.{getattr(ufunc, '__name__', name)}`` elementwise."
    return fn


def _binary(name: str, ufunc: Callable[..., Any]) -> Callable[[Any, Any], ndarray]:
    def fn(x1: Any, x2: Any, /) -> ndarray:
        a = _array_or_scalar(name, x1, "x1")
        b = _array_or_scalar(name, x2, "x2")
        if not isinstance(a, ndarray) and not isinstance(b, ndarray):
            raise TypeError(f"numba_ext.{name}(): at least one of x1 and x2 must be a numba_ext.ndarray")
        result: ndarray = ufunc(a, b)
        return result

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (
        f"The array API's ``{name}``: ``np.{getattr(ufunc, '__name__', name)}`` elementwise, of two arrays "
        "or an array and a Python scalar."
    )
    return fn


def _integral_kept(name: str, ufunc: Callable[..., Any]) -> Callable[[ndarray], ndarray]:
    """``ceil``, ``floor``, ``trunc``, ``round``: integers come back as a copy of their dtype."""
    fn_float = _unary(name, ufunc)

    def fn(x: ndarray, /) -> ndarray:
        if _array(name, x).dtype.kind in "iu":
            return x.copy()
        return fn_float(x)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (
        f"The array API's ``{name}``: integers unchanged (a copy), floating values rounded "
        "(complex ones part by part)."
    )
    return fn


abs = _unary("abs", np.absolute)
acos = _unary("acos", np.arccos)
acosh = _unary("acosh", np.arccosh)
add = _binary("add", np.add)
asin = _unary("asin", np.arcsin)
asinh = _unary("asinh", np.arcsinh)
atan = _unary("atan", np.arctan)
atan2 = _binary("atan2", np.arctan2)
atanh = _unary("atanh", np.arctanh)
bitwise_and = _binary("bitwise_and", np.bitwise_and)
bitwise_left_shift = _binary("bitwise_left_shift", np.left_shift)
bitwise_invert = _unary("bitwise_invert", np.invert)
bitwise_or = _binary("bitwise_or", np.bitwise_or)
bitwise_right_shift = _binary("bitwise_right_shift", np.right_shift)
bitwise_xor = _binary("bitwise_xor", np.bitwise_xor)
ceil = _integral_kept("ceil", np.ceil)
conj = _unary("conj", np.conjugate)
copysign = _binary("copysign", np.copysign)
cos = _unary("cos", np.cos)
cosh = _unary("cosh", np.cosh)
divide = _binary("divide", np.true_divide)
equal = _binary("equal", np.equal)
exp = _unary("exp", np.exp)
expm1 = _unary("expm1", np.expm1)
floor = _integral_kept("floor", np.floor)
floor_divide = _binary("floor_divide", np.floor_divide)
greater = _binary("greater", np.greater)
greater_equal = _binary("greater_equal", np.greater_equal)
hypot = _binary("hypot", np.hypot)
isfinite = _unary("isfinite", np.isfinite)
isinf = _unary("isinf", np.isinf)
isnan = _unary("isnan", np.isnan)
less = _binary("less", np.less)
less_equal = _binary("less_equal", np.less_equal)
log = _unary("log", np.log)
log1p = _unary("log1p", np.log1p)
log2 = _unary("log2", np.log2)
log10 = _unary("log10", np.log10)
logaddexp = _binary("logaddexp", np.logaddexp)
logical_and = _binary("logical_and", np.logical_and)
logical_not = _unary("logical_not", np.logical_not)
logical_or = _binary("logical_or", np.logical_or)
logical_xor = _binary("logical_xor", np.logical_xor)
maximum = _binary("maximum", np.maximum)
minimum = _binary("minimum", np.minimum)
multiply = _binary("multiply", np.multiply)
negative = _unary("negative", np.negative)
nextafter = _binary("nextafter", np.nextafter)
not_equal = _binary("not_equal", np.not_equal)
positive = _unary("positive", np.positive)
pow = _binary("pow", np.power)
reciprocal = _unary("reciprocal", np.reciprocal)
remainder = _binary("remainder", np.remainder)
round = _integral_kept("round", np.round)
sign = _unary("sign", np.sign)
signbit = _unary("signbit", np.signbit)
sin = _unary("sin", np.sin)
sinh = _unary("sinh", np.sinh)
square = _unary("square", np.square)
sqrt = _unary("sqrt", np.sqrt)
subtract = _binary("subtract", np.subtract)
tan = _unary("tan", np.tan)
tanh = _unary("tanh", np.tanh)
trunc = _integral_kept("trunc", np.trunc)


def real(x: ndarray, /) -> ndarray:
    """The real part (of a real array: a copy)."""
    x = _array("real", x)
    return x.real if x.dtype.kind == "c" else x.copy()


def imag(x: ndarray, /) -> ndarray:
    """The imaginary part (of a complex array)."""
    return _array("imag", x).imag


def clip(x: ndarray, /, min: Any = None, max: Any = None) -> ndarray:
    """`x` limited to [`min`, `max`] (either None: no limit), in `x`'s dtype."""
    x = _array("clip", x)
    if min is None and max is None:
        return x.copy()
    out: ndarray = _np.clip(x, min, max)
    return out if out.dtype == x.dtype else out.astype(x.dtype)


# -- creation ----------------------------------------------------------------------------------------
def tril(x: ndarray, /, *, k: int = 0) -> ndarray:
    """The lower triangle of the last two axes (elements above the `k`-th diagonal zeroed)."""
    return _triangle("tril", x, k, lower=True)


def triu(x: ndarray, /, *, k: int = 0) -> ndarray:
    """The upper triangle of the last two axes (elements below the `k`-th diagonal zeroed)."""
    return _triangle("triu", x, k, lower=False)


def _triangle(fn: str, x: ndarray, k: int, lower: builtins.bool) -> ndarray:
    x = _array(fn, x)
    if x.ndim < 2:
        raise ValueError(f"numba_ext.{fn}(): x must have at least 2 dimensions, not {x.ndim}")
    return composed.tril(x, k) if lower else composed.triu(x, k)


def meshgrid(*arrays: ndarray, indexing: Literal["xy", "ij"] = "xy") -> list[ndarray]:
    """Coordinate arrays from 1-d arrays (``indexing`` 'xy': the first two axes swapped), each a
    new array of the broadcast shape."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"numba_ext.meshgrid(): indexing must be 'xy' or 'ij', not {indexing!r}")
    arrs = [_array("meshgrid", a, f"arrays[{i}]") for i, a in enumerate(arrays)]
    for i, a in enumerate(arrs):
        if a.ndim != 1:
            raise ValueError(f"numba_ext.meshgrid(): arrays[{i}] must be 1-d, not {a.ndim}-d")
    return list(composed.meshgrid(*arrs, indexing=indexing))


# -- data type functions -------------------------------------------------------------------------------
def astype(x: ndarray, dtype: Any, /, *, copy: builtins.bool = True, device: Any = None) -> ndarray:
    """`x` as `dtype` (a copy unless `copy` is False and the dtype matches), on `device` if given."""
    x = _array("astype", x)
    out = x.astype(dtype, copy=copy)
    return out if device is None else out.to_device(device)


def _dtype_of(x: object) -> Any:
    return x.dtype if isinstance(x, ndarray) else x


def can_cast(from_: Any, to: Any, /) -> builtins.bool:
    """Whether `from_` (a dtype or an array) casts to `to` by the standard's promotion rules."""
    return builtins.bool(np.can_cast(_dtype_of(from_), to))


class finfo_object(NamedTuple):
    """Machine limits of a floating dtype, as Python numbers."""

    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: np.dtype


def finfo(type: Any, /) -> finfo_object:
    """Machine limits of a floating dtype (or an array's); a complex dtype gives its parts'."""
    info = np.finfo(_dtype_of(type))
    return finfo_object(
        int(info.bits),
        float(info.eps),
        float(info.max),
        float(info.min),
        float(info.smallest_normal),
        np.dtype(info.dtype),
    )


def iinfo(type: Any, /) -> Any:
    """Machine limits of an integer dtype (or an array's)."""
    return np.iinfo(_dtype_of(type))


def isdtype(dtype: Any, kind: Any) -> builtins.bool:
    """Whether `dtype` is of `kind` (a dtype, a kind name such as 'real floating', or a tuple)."""
    return builtins.bool(np.isdtype(np.dtype(dtype), kind))


def result_type(*arrays_and_dtypes: Any) -> Any:
    """The dtype promotion gives the arrays, dtypes and Python scalars."""
    if not arrays_and_dtypes:
        raise ValueError("numba_ext.result_type() needs at least one array or dtype")
    values = [_dtype_of(v) for v in arrays_and_dtypes]
    if builtins.all(isinstance(v, _SCALARS) for v in values):
        raise ValueError("numba_ext.result_type() needs at least one array or dtype, not only Python scalars")
    return np.result_type(*values).type


# -- linear algebra ------------------------------------------------------------------------------------
def matmul(x1: ndarray, x2: ndarray, /) -> ndarray:
    """The matrix product (``x1 @ x2``); operands of more than two dimensions are stacks of
    matrices, broadcast together (``np.matmul`` of numba_ext arrays: one kernel for real stacks)."""
    a, b = _array("matmul", x1, "x1"), _array("matmul", x2, "x2")
    if a.ndim <= 2 and b.ndim <= 2:
        result: ndarray = _np.matmul(a, b)
        return result
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("numba_ext.matmul(): operands must have at least one dimension")
    a2 = a if a.ndim > 1 else a.reshape(1, -1)
    b2 = b if b.ndim > 1 else b.reshape(-1, 1)
    if a2.shape[-1] != b2.shape[-2]:
        raise ValueError(
            f"numba_ext.matmul(): x1's last axis has {a2.shape[-1]} elements and x2's second-last "
            f"{b2.shape[-2]}"
        )
    try:
        np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2])
    except ValueError:
        raise ValueError(
            f"numba_ext.matmul(): the stacks of matrices of x1 {a.shape} and x2 {b.shape} do not broadcast"
        ) from None
    execution_queue([("x1", a), ("x2", b)])  # the namespace's message for queues that differ
    stacked: ndarray = _np.matmul(a, b)
    return stacked


def matrix_transpose(x: ndarray, /) -> ndarray:
    """The last two axes swapped (a view)."""
    x = _array("matrix_transpose", x)
    if x.ndim < 2:
        raise ValueError(f"numba_ext.matrix_transpose(): x must have at least 2 dimensions, not {x.ndim}")
    return x.mT


def tensordot(x1: ndarray, x2: ndarray, /, *, axes: int | tuple[Sequence[int], Sequence[int]] = 2) -> ndarray:
    """The sum of products over `axes` (the last `axes` of `x1` with the first of `x2`, or the two
    sequences of axes), as a matrix product of the operands' transposed and reshaped forms."""
    a, b = _array("tensordot", x1, "x1"), _array("tensordot", x2, "x2")
    if not isinstance(axes, tuple) and _axis(axes) < 0:
        raise ValueError(f"numba_ext.tensordot(): axes must be >= 0, not {axes}")
    return library_tensordot(a, b, axes, what="numba_ext.tensordot()")


def vecdot(x1: ndarray, x2: ndarray, /, *, axis: int = -1) -> ndarray:
    """The dot product of vectors along `axis` of the broadcast operands (the first conjugated)."""
    a, b = _array("vecdot", x1, "x1"), _array("vecdot", x2, "x2")
    shape = np.broadcast_shapes(a.shape, b.shape)
    axis = _axis(axis)
    if not -len(shape) <= axis < len(shape) or a.ndim == 0 or b.ndim == 0:
        raise ValueError(f"numba_ext.vecdot(): axis {axis} is out of range for the broadcast shape {shape}")
    if a.shape[axis - a.ndim if axis >= 0 else axis] != b.shape[axis - b.ndim if axis >= 0 else axis]:
        raise ValueError("numba_ext.vecdot(): x1 and x2 differ in length along the axis")
    products = _np.multiply(_np.conjugate(a) if a.dtype.kind == "c" else a, b)
    return sum(products, axis=axis, dtype=products.dtype)


# -- manipulation --------------------------------------------------------------------------------------
def broadcast_arrays(*arrays: ndarray) -> list[ndarray]:
    """The arrays broadcast to one shape (read-only views)."""
    arrs = [_array("broadcast_arrays", a, f"arrays[{i}]") for i, a in enumerate(arrays)]
    shape = np.broadcast_shapes(*(a.shape for a in arrs))
    return [broadcast_to(a, shape) for a in arrs]


def broadcast_to(x: ndarray, /, shape: tuple[int, ...]) -> ndarray:
    """`x` broadcast to `shape` (a read-only view)."""
    result: ndarray = _np.broadcast_to(_array("broadcast_to", x), shape)
    return result


def concat(arrays: Sequence[ndarray], /, *, axis: int | None = 0) -> ndarray:
    """The arrays joined along `axis` (None: flattened first)."""
    result: ndarray = _np.concatenate(
        [_array("concat", a, f"arrays[{i}]") for i, a in enumerate(arrays)], axis=axis
    )
    return result


def expand_dims(x: ndarray, /, axis: int = 0) -> ndarray:
    """`x` with a new axis of length one at `axis` (a view)."""
    result: ndarray = _np.expand_dims(_array("expand_dims", x), _axis(axis))
    return result


def flip(x: ndarray, /, *, axis: int | tuple[int, ...] | None = None) -> ndarray:
    """`x` with the order of elements reversed along `axis` (all axes when None): a view."""
    x = _array("flip", x)
    if axis is None:
        axes = set(range(x.ndim))
    else:
        given = axis if isinstance(axis, tuple) else (axis,)
        axes = {int(np.lib.array_utils.normalize_axis_index(_axis(a), x.ndim)) for a in given}
    return x[tuple(slice(None, None, -1) if i in axes else slice(None) for i in range(x.ndim))]


def moveaxis(x: ndarray, source: int | tuple[int, ...], destination: int | tuple[int, ...], /) -> ndarray:
    """`x` with axes moved (a view)."""
    result: ndarray = _np.moveaxis(_array("moveaxis", x), source, destination)
    return result


def permute_dims(x: ndarray, /, axes: tuple[int, ...]) -> ndarray:
    """`x` with its axes permuted (a view)."""
    return _array("permute_dims", x).transpose(tuple(axes))


def repeat(x: ndarray, repeats: int | ndarray, /, *, axis: int | None = None) -> ndarray:
    """Each element repeated `repeats` times (an int, or an array of counts) along `axis`."""
    result: ndarray = _np.repeat(_array("repeat", x), repeats, axis=axis)
    return result


def reshape(x: ndarray, /, shape: tuple[int, ...], *, copy: builtins.bool | None = None) -> ndarray:
    """`x` in `shape`: a view where possible (`copy` False: a view or a ``ValueError``; True: a copy)."""
    return _array("reshape", x).reshape(tuple(shape), copy=copy)


def roll(
    x: ndarray, /, shift: int | tuple[int, ...], *, axis: int | tuple[int, ...] | None = None
) -> ndarray:
    """The elements shifted along `axis` (flattened when None), wrapping around."""
    result: ndarray = _np.roll(_array("roll", x), shift, axis=axis)
    return result


def squeeze(x: ndarray, /, axis: int | tuple[int, ...]) -> ndarray:
    """`x` without the axes of length one named by `axis` (a view)."""
    x = _array("squeeze", x)
    axes = axis if isinstance(axis, tuple) else (axis,)
    for a in axes:
        i = int(np.lib.array_utils.normalize_axis_index(_axis(a), x.ndim))
        if x.shape[i] != 1:
            raise ValueError(f"numba_ext.squeeze(): axis {a} has length {x.shape[i]}, not 1")
    return x.squeeze(axis)


def stack(arrays: Sequence[ndarray], /, *, axis: int = 0) -> ndarray:
    """The arrays (of one shape) joined along a new axis."""
    result: ndarray = _np.stack([_array("stack", a, f"arrays[{i}]") for i, a in enumerate(arrays)], axis=axis)
    return result


def tile(x: ndarray, repetitions: tuple[int, ...], /) -> ndarray:
    """`x` repeated `repetitions` times along each axis: a broadcast view copied on the device."""
    x = _array("tile", x)
    reps = tuple(operator.index(r) for r in repetitions)
    if builtins.any(r < 0 for r in reps):
        raise ValueError(f"numba_ext.tile(): repetitions must be non-negative, not {reps}")
    return composed.tile(x, reps)


def unstack(x: ndarray, /, *, axis: int = 0) -> tuple[ndarray, ...]:
    """The views of `x` along `axis`."""
    x = _array("unstack", x)
    if x.ndim == 0:
        raise ValueError("numba_ext.unstack(): x must have at least one dimension")
    moved = _np.moveaxis(x, _axis(axis), 0)
    return tuple(moved[i] for i in range(moved.shape[0]))


# -- searching -------------------------------------------------------------------------------------------
def argmax(x: ndarray, /, *, axis: int | None = None, keepdims: builtins.bool = False) -> ndarray:
    """The index of the first largest element (along `axis`)."""
    result: ndarray = _np.argmax(_array("argmax", x), axis=axis, keepdims=keepdims)
    return result


def argmin(x: ndarray, /, *, axis: int | None = None, keepdims: builtins.bool = False) -> ndarray:
    """The index of the first smallest element (along `axis`)."""
    result: ndarray = _np.argmin(_array("argmin", x), axis=axis, keepdims=keepdims)
    return result


def count_nonzero(
    x: ndarray, /, *, axis: int | tuple[int, ...] | None = None, keepdims: builtins.bool = False
) -> ndarray:
    """The number of non-zero elements (along `axis`), as int64."""
    result: ndarray = _np.count_nonzero(_array("count_nonzero", x), axis=axis, keepdims=keepdims)
    return result


def nonzero(x: ndarray, /) -> tuple[ndarray, ...]:
    """The indices of the non-zero elements, one array per axis."""
    x = _array("nonzero", x)
    if x.ndim == 0:
        raise ValueError("numba_ext.nonzero(): x must have at least one dimension")
    return tuple(_np.nonzero(x))


def searchsorted(
    x1: ndarray, x2: ndarray, /, *, side: Literal["left", "right"] = "left", sorter: ndarray | None = None
) -> ndarray:
    """The indices where the elements of `x2` would be inserted into the sorted 1-d `x1`."""
    if side not in ("left", "right"):
        raise ValueError(f"numba_ext.searchsorted(): side must be 'left' or 'right', not {side!r}")
    result: ndarray = _np.searchsorted(
        _array("searchsorted", x1, "x1"), _array_or_scalar("searchsorted", x2, "x2"), side=side, sorter=sorter
    )
    return result


def where(condition: ndarray, x1: Any, x2: Any, /) -> ndarray:
    """`x1` where `condition` holds, else `x2` (arrays or Python scalars, broadcast together)."""
    cond = _array("where", condition, "condition")
    result: ndarray = _np.where(
        cond, _array_or_scalar("where", x1, "x1"), _array_or_scalar("where", x2, "x2")
    )
    return result


# -- sorting and sets -------------------------------------------------------------------------------------
def sort(
    x: ndarray, /, *, axis: int = -1, descending: builtins.bool = False, stable: builtins.bool = True
) -> ndarray:
    """A sorted copy along `axis` (equal elements keep their order; NaNs last, first when descending)."""
    from .library import sorting

    return sorting.sort(_array("sort", x), _axis(axis), descending=descending, stable=stable)


def argsort(
    x: ndarray, /, *, axis: int = -1, descending: builtins.bool = False, stable: builtins.bool = True
) -> ndarray:
    """The indices that sort `x` along `axis` (equal elements keep their order)."""
    from .library import sorting

    return sorting.argsort(_array("argsort", x), _axis(axis), descending=descending, stable=stable)


class UniqueAllResult(NamedTuple):
    values: ndarray
    indices: ndarray
    inverse_indices: ndarray
    counts: ndarray


class UniqueCountsResult(NamedTuple):
    values: ndarray
    counts: ndarray


class UniqueInverseResult(NamedTuple):
    values: ndarray
    inverse_indices: ndarray


def unique_values(x: ndarray, /) -> ndarray:
    """The distinct elements of `x`, sorted (each NaN distinct)."""
    return sets.unique(_array("unique_values", x), equal_nan=False).values


def unique_counts(x: ndarray, /) -> UniqueCountsResult:
    """The distinct elements of `x` and how often each occurs."""
    found = sets.unique(_array("unique_counts", x), equal_nan=False)
    return UniqueCountsResult(found.values, found.counts)


def unique_inverse(x: ndarray, /) -> UniqueInverseResult:
    """The distinct elements of `x` and, for each element of `x`, the index of its value."""
    found = sets.unique(_array("unique_inverse", x), equal_nan=False)
    return UniqueInverseResult(found.values, found.inverse.reshape(x.shape))


def unique_all(x: ndarray, /) -> UniqueAllResult:
    """The distinct elements of `x`, the index of each one's first occurrence, each element's value
    index and each value's count."""
    found = sets.unique(_array("unique_all", x), equal_nan=False)
    return UniqueAllResult(found.values, found.indices, found.inverse.reshape(x.shape), found.counts)


# -- indexing ----------------------------------------------------------------------------------------------
def take(x: ndarray, indices: ndarray, /, *, axis: int | None = None) -> ndarray:
    """The elements of `x` at `indices` (a 1-d integer array) along `axis` (required for ``x.ndim`` > 1)."""
    x = _array("take", x)
    if axis is None and x.ndim > 1:
        raise ValueError("numba_ext.take(): axis is required for arrays of more than one dimension")
    result: ndarray = _np.take(x, _array("take", indices, "indices"), axis=axis)
    return result


def take_along_axis(x: ndarray, indices: ndarray, /, *, axis: int = -1) -> ndarray:
    """The elements of `x` at `indices` (an array of `x`'s rank) along `axis`."""
    result: ndarray = _np.take_along_axis(
        _array("take_along_axis", x), _array("take_along_axis", indices, "indices"), axis=_axis(axis)
    )
    return result


# -- statistics and utilities --------------------------------------------------------------------------------
_Axes = int | tuple[int, ...] | None


def max(x: ndarray, /, *, axis: _Axes = None, keepdims: builtins.bool = False) -> ndarray:
    """The largest element (along `axis`)."""
    result: ndarray = _np.max(_array("max", x), axis=axis, keepdims=keepdims)
    return result


def min(x: ndarray, /, *, axis: _Axes = None, keepdims: builtins.bool = False) -> ndarray:
    """The smallest element (along `axis`)."""
    result: ndarray = _np.min(_array("min", x), axis=axis, keepdims=keepdims)
    return result


def mean(x: ndarray, /, *, axis: _Axes = None, keepdims: builtins.bool = False) -> ndarray:
    """The arithmetic mean (along `axis`)."""
    result: ndarray = _np.mean(_array("mean", x), axis=axis, keepdims=keepdims)
    return result


def prod(x: ndarray, /, *, axis: _Axes = None, dtype: Any = None, keepdims: builtins.bool = False) -> ndarray:
    """The product (along `axis`); integers accumulate in the default integer dtype."""
    result: ndarray = _np.prod(_array("prod", x), axis=axis, dtype=dtype, keepdims=keepdims)
    return result


def sum(x: ndarray, /, *, axis: _Axes = None, dtype: Any = None, keepdims: builtins.bool = False) -> ndarray:
    """The sum (along `axis`); integers accumulate in the default integer dtype."""
    result: ndarray = _np.sum(_array("sum", x), axis=axis, dtype=dtype, keepdims=keepdims)
    return result


def std(
    x: ndarray, /, *, axis: _Axes = None, correction: float = 0.0, keepdims: builtins.bool = False
) -> ndarray:
    """The standard deviation (along `axis`), with `correction` degrees of freedom removed."""
    result: ndarray = _np.std(_array("std", x), axis=axis, ddof=correction, keepdims=keepdims)
    return result


def var(
    x: ndarray, /, *, axis: _Axes = None, correction: float = 0.0, keepdims: builtins.bool = False
) -> ndarray:
    """The variance (along `axis`), with `correction` degrees of freedom removed."""
    result: ndarray = _np.var(_array("var", x), axis=axis, ddof=correction, keepdims=keepdims)
    return result


def _cumulative(fn: str, scan: Callable[..., Any], identity: int) -> Callable[..., ndarray]:
    def cumulative(
        x: ndarray, /, *, axis: int | None = None, dtype: Any = None, include_initial: builtins.bool = False
    ) -> ndarray:
        x = _array(fn, x)
        if axis is None:
            if x.ndim != 1:
                raise ValueError(f"numba_ext.{fn}(): axis is required for arrays of {x.ndim} dimensions")
            axis = 0
        axis = int(np.lib.array_utils.normalize_axis_index(_axis(axis), x.ndim))
        result: ndarray = scan(x, axis=axis, dtype=dtype)
        if not include_initial:
            return result
        shape = x.shape[:axis] + (1,) + x.shape[axis + 1 :]
        initial = full(shape, identity, dtype=result.dtype, sycl_queue=x.sycl_queue, usm_type=result.usm_type)
        return concat([initial, result], axis=axis)

    cumulative.__name__ = cumulative.__qualname__ = fn
    cumulative.__doc__ = (
        f"The running {fn[11:]} along `axis` (with the identity first when `include_initial`)."
    )
    return cumulative


cumulative_sum = _cumulative("cumulative_sum", np.cumsum, 0)
cumulative_prod = _cumulative("cumulative_prod", np.cumprod, 1)


def all(x: ndarray, /, *, axis: _Axes = None, keepdims: builtins.bool = False) -> ndarray:
    """Whether every element (along `axis`) is true."""
    result: ndarray = _np.all(_array("all", x), axis=axis, keepdims=keepdims)
    return result


def any(x: ndarray, /, *, axis: _Axes = None, keepdims: builtins.bool = False) -> ndarray:
    """Whether some element (along `axis`) is true."""
    result: ndarray = _np.any(_array("any", x), axis=axis, keepdims=keepdims)
    return result


def diff(
    x: ndarray,
    /,
    *,
    axis: int = -1,
    n: int = 1,
    prepend: ndarray | None = None,
    append: ndarray | None = None,
) -> ndarray:
    """The `n`-th differences of neighbours along `axis` (`prepend`/`append` joined first)."""
    x = _array("diff", x)
    parts = [x]
    if prepend is not None:
        parts.insert(0, _array("diff", prepend, "prepend"))
    if append is not None:
        parts.append(_array("diff", append, "append"))
    if len(parts) > 1:
        x = concat(parts, axis=axis)
    result: ndarray = _np.diff(x, n=n, axis=axis)
    return result


# -- inspection ----------------------------------------------------------------------------------------------
class _Info:
    """What this namespace supports (``__array_namespace_info__()``)."""

    __module__ = "numba_ext"

    def capabilities(self) -> dict[str, Any]:
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 64}

    def default_device(self) -> Device:
        return default_queue().device

    def default_dtypes(self, *, device: Any = None) -> dict[str, Any]:
        return {
            "real floating": np.dtype(float64),
            "complex floating": np.dtype(complex128),
            "integral": np.dtype(int64),
            "indexing": np.dtype(int64),
        }

    def devices(self) -> list[Device]:
        return list(get_devices())

    def dtypes(self, *, device: Any = None, kind: Any = None) -> dict[str, Any]:
        found = {name: np.dtype(t) for name, t in _DTYPES.items()}
        if kind is None:
            return found
        return {name: dt for name, dt in found.items() if np.isdtype(dt, kind)}


def __array_namespace_info__() -> _Info:
    """The namespace's inspection object."""
    return _Info()


_ = library  # the eager operations register with the arrays on import

__all__ = [
    "__array_api_version__",
    "__array_namespace_info__",
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
    "e",
    "inf",
    "nan",
    "pi",
    "newaxis",
    "abs",
    "acos",
    "acosh",
    "add",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "bitwise_and",
    "bitwise_left_shift",
    "bitwise_invert",
    "bitwise_or",
    "bitwise_right_shift",
    "bitwise_xor",
    "ceil",
    "clip",
    "conj",
    "copysign",
    "cos",
    "cosh",
    "divide",
    "equal",
    "exp",
    "expm1",
    "floor",
    "floor_divide",
    "greater",
    "greater_equal",
    "hypot",
    "imag",
    "isfinite",
    "isinf",
    "isnan",
    "less",
    "less_equal",
    "log",
    "log1p",
    "log2",
    "log10",
    "logaddexp",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "maximum",
    "minimum",
    "multiply",
    "negative",
    "nextafter",
    "not_equal",
    "positive",
    "pow",
    "real",
    "reciprocal",
    "remainder",
    "round",
    "sign",
    "signbit",
    "sin",
    "sinh",
    "square",
    "sqrt",
    "subtract",
    "tan",
    "tanh",
    "trunc",
    "arange",
    "asarray",
    "empty",
    "empty_like",
    "eye",
    "from_dlpack",
    "full",
    "full_like",
    "linspace",
    "meshgrid",
    "ones",
    "ones_like",
    "tril",
    "triu",
    "zeros",
    "zeros_like",
    "astype",
    "can_cast",
    "finfo",
    "iinfo",
    "isdtype",
    "result_type",
    "matmul",
    "matrix_transpose",
    "tensordot",
    "vecdot",
    "broadcast_arrays",
    "broadcast_to",
    "concat",
    "expand_dims",
    "flip",
    "moveaxis",
    "permute_dims",
    "repeat",
    "reshape",
    "roll",
    "squeeze",
    "stack",
    "tile",
    "unstack",
    "argmax",
    "argmin",
    "count_nonzero",
    "nonzero",
    "searchsorted",
    "where",
    "unique_all",
    "unique_counts",
    "unique_inverse",
    "unique_values",
    "argsort",
    "sort",
    "take",
    "take_along_axis",
    "cumulative_prod",
    "cumulative_sum",
    "max",
    "mean",
    "min",
    "prod",
    "std",
    "sum",
    "var",
    "all",
    "any",
    "diff",
]
