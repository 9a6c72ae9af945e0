"""The NumPy operations of ``numba_ext.ndarray``, computed eagerly on the array's queue (compute
follows data): Python's operators (``a + b``, ``a < b``, ``-a``, ``a @ b``), NumPy's ufunc and
function protocols (``np.sqrt(a)``, ``np.where(a, ...)``), the reduction methods (``a.sum()``, ...)
and ``a.dot(b)``.

Owns: ``ArrayOperators``, the base class of ``ndarray`` that holds these methods, and
``ReductionResult``, and the memory order of elementwise results (NumPy's ``order='K'``: the layout
of the operands, so F-ordered operands give an F-ordered result). The operations themselves belong
to the library layer: every method hands its operands to the provider registered in
``hooks.operations``, except that an elementwise call of a kind the library has served before
runs first through ``_core.known_call`` (one native step: see ``numba_ext/library/elementwise.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias, cast

import numpy as np

from .. import _core
from ..errors import UnsupportedError
from . import hooks
from .allocation import allocate
from .dtypes import SUPPORTED_DTYPE_SET
from .flags import layout_order
from .transfers import copy_to_host, upload_into

if TYPE_CHECKING:
    from numpy.typing import DTypeLike

    from .ndarray import ndarray

#: what the reductions return: a numba_ext array (0-d when they reduce every element, as dpnp's)
ReductionResult: TypeAlias = "ndarray"

#: operands Python's operators hand to NumPy's ufuncs; others get NotImplemented (Python then asks
#: the other operand, as NumPy arrays do for objects that define the reflected operator)
_SCALARS = (int, float, complex, bool, np.generic, np.ndarray, list, tuple)


def _result_axes(operands: Sequence[Any]) -> tuple[int, ...] | None:
    """The axis order of the result of an elementwise operation (NumPy's 'K' rule): that of the
    array operands of the full result shape (broadcast ones do not vote) when they all agree, else
    None (C order). None also where that is C order anyway."""
    arrays = [cast("ndarray", o) for o in operands if isinstance(o, ArrayOperators)]
    nd = max((a.ndim for a in arrays), default=0)
    if nd < 2 or all(a._desc.flags.c_contiguous for a in arrays):
        return None
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    votes = {layout_order(a.shape, a.strides) for a in arrays if a.shape == shape}
    if len(votes) != 1:
        return None
    axes = votes.pop()
    return None if axes == tuple(range(nd)) else axes


#: the reductions ``ufunc.reduce`` runs, by ufunc
_REDUCTIONS = {
    np.add: "sum",
    np.multiply: "prod",
    np.maximum: "max",
    np.minimum: "min",
    np.logical_and: "all",
    np.logical_or: "any",
}
#: the scans ``ufunc.accumulate`` runs, by ufunc
_ACCUMULATIONS = {np.add: np.cumsum, np.multiply: np.cumprod}


def _ufunc_reduction(ufunc: np.ufunc, method: str, inputs: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``ufunc.reduce(x, axis=0, ...)`` and ``ufunc.accumulate(x, axis=0, ...)`` as the array's
    reductions and scans (``np.add.reduce`` is ``x.sum(axis=0)``, ``np.maximum.reduce`` is
    ``x.max(axis=0)``, ``np.add.accumulate`` is ``np.cumsum``)."""
    table: dict[Any, Any] = _REDUCTIONS if method == "reduce" else _ACCUMULATIONS
    what = f"np.{ufunc.__name__}.{method}"
    if ufunc not in table or len(inputs) != 1 or not isinstance(inputs[0], ArrayOperators):
        names = ", ".join(f"np.{u.__name__}.{method}" for u in table)
        raise UnsupportedError(f"{what} of numba_ext arrays is not supported; {names} are")
    x: Any = inputs[0]
    axis = kwargs.pop("axis", 0)
    dtype = kwargs.pop("dtype", None)
    out = kwargs.pop("out", None)
    out = out[0] if isinstance(out, tuple) and len(out) == 1 else out
    keepdims = bool(kwargs.pop("keepdims", False))
    if (
        kwargs.pop("where", True) is not True
        or kwargs.pop("initial", np._NoValue) is not np._NoValue
        or kwargs
    ):
        given = ", ".join(kwargs) or "initial= or where="
        raise UnsupportedError(f"{what}({given}) of numba_ext arrays is not supported")
    if method == "accumulate":
        return table[ufunc](x, axis=axis, dtype=dtype, out=out)
    name = table[ufunc]
    if dtype is not None and name in ("max", "min", "all", "any"):
        x = x.astype(dtype)  # NumPy computes in the dtype asked
        if name in ("all", "any"):
            return hooks.operations.reduce(name, x, axis, out=out, keepdims=keepdims).astype(dtype)
        dtype = None
    return hooks.operations.reduce(name, x, axis, dtype=dtype, out=out, keepdims=keepdims)


def _apply(ufunc: np.ufunc, *operands: Any) -> Any:
    """`ufunc(*operands)` by the library, the result in the operands' memory order: the operation
    runs on views with the result's slowest axis first (each a C-contiguous view where the operand is
    dense in that order), and its C-ordered result is viewed back."""
    axes = _result_axes(operands)
    if axes is None:
        try:
            return hooks.operations.apply(ufunc, *operands)
        except UnsupportedError:
            fallback = _on_host_0d(ufunc, operands)
            if fallback is None:
                raise
            return fallback
    moved = [_moved(cast("ndarray", o), axes) if isinstance(o, ArrayOperators) else o for o in operands]
    res = hooks.operations.apply(ufunc, *moved)
    back = tuple(int(i) for i in np.argsort(axes))
    return tuple(r.transpose(back) for r in res) if isinstance(res, tuple) else res.transpose(back)


def _on_host_0d(ufunc: np.ufunc, operands: Sequence[Any]) -> ndarray | None:
    """A ufunc the device cannot compute (np.isnan, ...) of 0-d arrays on one queue and Python or
    NumPy scalars: computed by NumPy on their elements, the result a 0-d array on that queue with
    the first array's USM type. None for anything else."""
    arrays = [cast("ndarray", o) for o in operands if isinstance(o, ArrayOperators)]
    if not arrays or any(a.ndim for a in arrays) or any(a._queue != arrays[0]._queue for a in arrays):
        return None
    if any(isinstance(o, (np.ndarray, list, tuple)) and np.ndim(o) for o in operands):
        return None
    with np.errstate(all="ignore"):
        value = np.asarray(
            ufunc(
                *(copy_to_host(cast("ndarray", o)) if isinstance(o, ArrayOperators) else o for o in operands)
            )
        )
    if not isinstance(value, np.ndarray) or value.dtype not in SUPPORTED_DTYPE_SET:
        return None
    out = allocate((), value.dtype, arrays[0]._queue, arrays[0]._usm_type)
    upload_into(out, value)
    return out


def _moved(a: ndarray, axes: tuple[int, ...]) -> ndarray:
    """`a` broadcast to len(axes) dimensions (leading axes of length 1) and transposed by `axes`."""
    nd = len(axes)
    return (a if a.ndim == nd else a[(None,) * (nd - a.ndim) + (Ellipsis,)]).transpose(axes)


#: NumPy's functions, untyped: on these arrays they dispatch to the eager library
_np: Any = np


class ArrayOperators:
    """The eager operations of ``numba_ext.ndarray`` (its only subclass): each a kernel on the
    array's queue, through ``hooks.operations``."""

    __slots__ = ()

    # -- eager elementwise operations (compute follows data) ------------------------------------
    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if method in ("reduce", "accumulate"):
            return _ufunc_reduction(ufunc, method, inputs, kwargs)
        out = kwargs.pop("out", None)  # NumPy hands it over as a tuple, one entry per output
        dtype = kwargs.pop("dtype", None)
        if dtype is not None:  # np.add(a, b, dtype=d): computed in d, as NumPy casts the inputs
            if method != "__call__" or ufunc.nout != 1 or ufunc is np.matmul:
                return NotImplemented
            dt = np.dtype(dtype)
            inputs = tuple(cast(Any, v).astype(dt) if isinstance(v, ArrayOperators) else v for v in inputs)
        if method == "at" and not kwargs and out is None and isinstance(inputs[0], ArrayOperators):
            hooks.operations.ufunc_at(ufunc, *inputs)  # in place: np.add.at(a, indices, b)
            return None
        if method != "__call__" or kwargs:
            return NotImplemented
        if dtype is None and (out is None or len(out) == 1):
            served = _core.known_call(ufunc, inputs, None if out is None else out[0])
            if served is not None:
                return served
        if ufunc is np.matmul:  # two inputs
            out = out[0] if isinstance(out, tuple) and len(out) == 1 else out
            return hooks.operations.dot(inputs[0], inputs[1], what="np.matmul", out=out)
        if out is not None:
            return hooks.operations.apply(ufunc, *inputs, out=out)
        return _apply(ufunc, *inputs)

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
        # ndarray is the one class deriving from ArrayOperators
        if not all(issubclass(t, (ArrayOperators, np.ndarray)) for t in types):
            return NotImplemented
        impl = hooks.operations.array_functions.get(func)
        if impl is not None:
            return impl(*args, **kwargs)
        like_impl = hooks.operations.like_functions.get(func)
        if like_impl is not None:  # np.ones(..., like=self): NumPy leaves `like` out of kwargs
            return like_impl(self, *args, **kwargs)
        upper_impl = hooks.upper_array_functions.get(func)
        if upper_impl is not None:
            return upper_impl(*args, **kwargs)
        numpy_impl = getattr(func, "_implementation", None)
        if numpy_impl is None:
            return NotImplemented  # NumPy then raises its TypeError naming the function
        try:
            return numpy_impl(*args, **kwargs)
        except TypeError as e:
            if not str(e).startswith("implicit conversion of a numba_ext.ndarray"):
                raise
            name = getattr(func, "__name__", str(func))
            if str(getattr(func, "__module__", "")).endswith("linalg"):
                name = f"linalg.{name}"
            raise TypeError(
                f"np.{name}() is not offloaded by numba_ext and would need an implicit conversion of a "
                "numba_ext.ndarray to a NumPy array, which is not allowed; copy the data to the host with "
                "numba_ext.asnumpy(x) first"
            ) from None

    def conj(self) -> ndarray:
        """The complex conjugate, elementwise (a copy of a real array)."""
        result: ndarray = hooks.operations.apply(np.conjugate, self)
        return result

    conjugate = conj

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

    def round(self, decimals: int = 0, out: ndarray | None = None) -> ndarray:
        return cast("ndarray", np.round(self, decimals, out))  # type: ignore[call-overload]

    def clip(self, min: Any = None, max: Any = None, out: ndarray | None = None, **kwargs: Any) -> ndarray:
        return cast("ndarray", np.clip(self, min, max, out, **kwargs))  # type: ignore[call-overload]

    def cumsum(
        self, axis: int | None = None, dtype: DTypeLike | None = None, out: ndarray | None = None
    ) -> ndarray:
        return cast("ndarray", np.cumsum(self, axis, dtype, out))  # type: ignore[call-overload]

    def cumprod(
        self, axis: int | None = None, dtype: DTypeLike | None = None, out: ndarray | None = None
    ) -> ndarray:
        return cast("ndarray", np.cumprod(self, axis, dtype, out))  # type: ignore[call-overload]

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

    def sort(
        self, axis: int = -1, kind: str | None = None, order: None = None, *, stable: bool | None = None
    ) -> None:
        """Sort in place along `axis` (a stable sort on the device, written back)."""
        cast("ndarray", self)[...] = _np.sort(self, axis=axis, kind=kind, order=order, stable=stable)

    def argsort(
        self,
        axis: int | None = -1,
        kind: str | None = None,
        order: None = None,
        *,
        stable: bool | None = None,
    ) -> ndarray:
        """The indices that sort the array along `axis` (np.argsort)."""
        return cast("ndarray", _np.argsort(self, axis=axis, kind=kind, order=order, stable=stable))

    def nonzero(self) -> tuple[ndarray, ...]:
        """The indices of the non-zero elements, one array per axis (np.nonzero)."""
        return cast("tuple[ndarray, ...]", _np.nonzero(self))

    def take(self, indices: Any, axis: int | None = None, out: None = None, mode: str = "raise") -> ndarray:
        """The elements at `indices` along `axis` (np.take)."""
        return cast("ndarray", _np.take(self, indices, axis=axis, out=out, mode=mode))

    def repeat(self, repeats: Any, axis: int | None = None) -> ndarray:
        """Each element repeated (np.repeat)."""
        return cast("ndarray", _np.repeat(self, repeats, axis=axis))

    def dot(self, other: ndarray) -> ndarray:
        return hooks.operations.dot(self, other)

    def __matmul__(self, other: ndarray) -> ndarray:
        return hooks.operations.dot(self, other, "matmul")

    def __rmatmul__(self, other: ndarray) -> ndarray:
        return hooks.operations.dot(other, self, "matmul")


# -- Python's arithmetic, bitwise and comparison operators: NumPy's ufuncs ---------------------------
_ORDERINGS = (np.less, np.less_equal, np.greater, np.greater_equal)


def _binary(ufunc: np.ufunc, reflected: bool = False) -> Callable[[ndarray, Any], ndarray]:
    def op(self: ndarray, other: Any) -> ndarray:
        # a call of a kind the library has served before, in one native step (None otherwise)
        served = _core.known_call(ufunc, (other, self) if reflected else (self, other))
        if served is not None:
            return cast("ndarray", served)
        if not isinstance(other, (ArrayOperators, *_SCALARS)):
            if ufunc in (np.equal, np.not_equal) and _never_equal(other):
                return _filled(self, ufunc is np.not_equal)
            if isinstance(other, (str, bytes)):
                # NumPy's TypeError; NotImplemented would let Python repeat the string by a 0-d array
                raise TypeError(
                    f"ufunc {ufunc.__name__!r} has no loop for a numba_ext array and {type(other).__name__} "
                    "(as in NumPy)"
                )
            if ufunc in _ORDERINGS and self.size == 0 and not isinstance(other, (str, bytes)):
                # NumPy's object loop: no element to compare, an empty result (a TypeError otherwise)
                return _filled(self, False)
            if self.size == 0 and (other is None or type(other) is object):
                # NumPy's object loop gives an empty object array (a TypeError for any element)
                raise UnsupportedError(
                    f"np.{ufunc.__name__} of an empty numba_ext array and {type(other).__name__}: NumPy "
                    "computes it in its object dtype, which numba_ext arrays cannot hold"
                )
            return NotImplemented
        return _apply(ufunc, other, self) if reflected else _apply(ufunc, self, other)

    return op


def _inplace(ufunc: np.ufunc) -> Callable[[ndarray, Any], ndarray]:
    """``a op= b`` as NumPy's: ``ufunc(a, b, out=a)``, the result written into `a`'s memory (views
    of it see it) in `a`'s dtype, cast by the 'same_kind' rule (NumPy's TypeError otherwise)."""

    def op(self: ndarray, other: Any) -> ndarray:
        if _core.known_call(ufunc, (self, other), self) is not None:
            return self
        if not isinstance(other, (ArrayOperators, *_SCALARS)):
            return NotImplemented
        return cast("ndarray", ufunc(self, other, out=(self,)))

    return op


def _imatmul(self: ndarray, other: Any) -> ndarray:
    """``a @= b`` as NumPy's: the product written into `a`, whose shape it must keep."""
    if not isinstance(other, ArrayOperators):
        return NotImplemented
    b = cast("ndarray", other)
    result = hooks.operations.dot(self, b, "matmul")
    if result.shape != self.shape:
        raise ValueError(
            f"matmul: the product of shapes {self.shape} and {b.shape} has shape {result.shape}; "
            f"a @= b needs a result of the shape of a, {self.shape}"
        )
    if not np.can_cast(result.dtype, self.dtype, "same_kind"):
        raise TypeError(
            f"Cannot cast ufunc 'matmul' output from {result.dtype!r} to {self.dtype!r} with casting rule "
            "'same_kind'"
        )
    self[...] = result
    return self


def _statistic(fn: Callable[..., Any]) -> Callable[..., ndarray]:
    """The method form of np.var / np.std (`fn`)."""

    def method(
        self: ndarray,
        axis: int | tuple[int, ...] | None = None,
        dtype: DTypeLike | None = None,
        out: ndarray | None = None,
        ddof: float = 0,
        keepdims: bool = False,
    ) -> ndarray:
        return cast("ndarray", fn(self, axis, dtype, out, ddof, keepdims))

    method.__name__ = fn.__name__
    return method


ArrayOperators.var = _statistic(np.var)  # type: ignore[attr-defined]
ArrayOperators.std = _statistic(np.std)  # type: ignore[attr-defined]


def _never_equal(other: Any) -> bool:
    """Whether `other` equals no element of any array: None, a string, or an object with the identity
    equality of ``object`` (NumPy compares these elementwise: ``x == None`` is False everywhere)."""
    if other is None or isinstance(other, (str, bytes)):
        return True
    eq: Any = type(other).__eq__
    return eq is object.__eq__ and not hasattr(other, "__array__")


def _filled(a: ndarray, value: bool) -> ndarray:
    """A boolean array of `a`'s shape, queue and USM type holding `value` everywhere."""
    out = allocate(a.shape, np.bool_, a._queue, a._usm_type)
    upload_into(out, np.full(a.shape, value))
    return out


def _unary(ufunc: np.ufunc) -> Callable[[ndarray], ndarray]:
    def op(self: ndarray) -> ndarray:
        served = _core.known_call(ufunc, (self,))
        return cast("ndarray", served) if served is not None else _apply(ufunc, self)

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
    "lshift": np.left_shift,
    "rshift": np.right_shift,
    "divmod": np.divmod,
}.items():
    setattr(ArrayOperators, f"__{_name}__", _binary(_uf))
    setattr(ArrayOperators, f"__r{_name}__", _binary(_uf, reflected=True))
    if _name != "divmod":
        setattr(ArrayOperators, f"__i{_name}__", _inplace(_uf))
ArrayOperators.__imatmul__ = _imatmul  # type: ignore[attr-defined]
for _name, _uf in {
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
    "eq": np.equal,
    "ne": np.not_equal,
}.items():
    setattr(ArrayOperators, f"__{_name}__", _binary(_uf))
for _name, _uf1 in {"neg": np.negative, "pos": np.positive, "abs": np.absolute, "invert": np.invert}.items():
    setattr(ArrayOperators, f"__{_name}__", _unary(_uf1))
