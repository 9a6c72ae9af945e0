"""NumPy functions on numba_ext arrays (``__array_function__``).

np.where, np.clip and np.dot compute on the arrays' queue (where/clip as one elementwise kernel, or
for complex values and out-of-range Python ints through a jitted function; dot through the
reductions' dot); np.cumsum and np.cumprod of real and bool arrays (flattened, or along an axis,
with dtype= too) run the kernels of ``ir.scans``, and of other dtypes (flattened) the scans jitted
code uses, which import the compiler layer, and Numba, on their first call; the *_like functions
allocate on the queue; np.copy copies there. Every other NumPy function runs NumPy's own
implementation, which uses the array's methods (np.sum(x) -> x.sum(), np.reshape, np.transpose) or
refuses the implicit conversion to a NumPy array (ndarray.__array__)."""

from __future__ import annotations

import functools
import math
import operator
import threading
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Literal, cast

import numpy as np

from .. import _core, arrays
from ..arrays import ShapeLike, ndarray, scans
from ..devices import Device
from ..errors import UnsupportedError
from ..ir.reductions import normalize_axis
from ..ir.scans import (
    axis_scan_function,
    block_prefix_function,
    block_scan_function,
    block_totals_function,
    scan_dtype,
)
from . import elementwise
from .composed import COMPOSED_FUNCTIONS
from .convolution import CONVOLUTION_FUNCTIONS
from .einsum import EINSUM_FUNCTIONS
from .fft import FFT_FUNCTIONS
from .gather import GATHER_FUNCTIONS, nonzero
from .histogram import HISTOGRAM_FUNCTIONS
from .manipulation import MANIPULATION_FUNCTIONS
from .nanfunctions import NAN_FUNCTIONS
from .reductions import COMPLEX_DTYPES, DIRECT_DTYPES, dot
from .sets import SET_FUNCTIONS
from .sorting import SORTING_FUNCTIONS
from .statistics import STATISTICS_FUNCTIONS

if TYPE_CHECKING:
    from numpy._globals import _NoValueType  # the type of np._NoValue, NumPy's "not given" default
    from numpy.typing import ArrayLike, DTypeLike

    from ..compiler import JitFunction


def _numpy_result_dtype(values: Iterable[ndarray | ArrayLike]) -> np.dtype:
    """NumPy 2's result dtype of these operands: arrays and NumPy scalars by their dtype, Python
    scalars as weak."""
    probe = [v.dtype if isinstance(v, (ndarray, np.ndarray, np.generic)) else v for v in values]
    return np.result_type(*probe)


def _in_dtype(v: object, dt: np.dtype) -> object:
    """`v` made to compute in `dt` (numba_ext arrays cast on their queue, NumPy scalars converted;
    Python scalars stay weak; anything else is left for compute follows data to judge)."""
    if isinstance(v, ndarray):
        return v if v.dtype == dt else v.astype(dt)
    if isinstance(v, np.generic):
        return dt.type(v)
    return v


def _direct(dt: np.dtype, values: Iterable[object]) -> bool:
    """Whether np.where / np.clip of `values` in `dt` runs as one elementwise kernel: real and bool
    dtypes, every Python int a value of `dt` (NumPy 2 compares and clips an integer array with an
    int outside its range by value, as the jitted helpers do)."""
    if dt.kind == "c":
        return False
    if dt.kind not in "iu":
        return True
    info = np.iinfo(dt)
    return all(info.min <= v <= info.max for v in values if type(v) is int)


@functools.cache
def _jitted_function(name: str) -> JitFunction:
    from ..compiler import jit  # Numba's import waits for the first call that needs it

    return jit(
        {"where": lambda c, a, b: np.where(c, a, b), "clip": lambda a, lo, hi: np.clip(a, lo, hi)}[name]
    )


def where(
    condition: ndarray | ArrayLike, x: ndarray | ArrayLike | None = None, y: ndarray | ArrayLike | None = None
) -> Any:
    """np.where(condition, x, y) on the queue of the numba_ext operands (NumPy's result dtype);
    np.where(condition) is np.nonzero(condition)."""
    if x is None and y is None and isinstance(condition, ndarray):
        return nonzero(condition)
    if x is None or y is None:
        raise ValueError("either both or neither of x and y should be given")
    dt = _numpy_result_dtype([x, y])
    if _direct(dt, (x, y)):
        return elementwise.where(condition, x, y, dt)
    # a Python int beyond an integer dtype: NumPy's OverflowError where this NumPy raises one (2.5
    # does; earlier versions convert it with wrap-around, as the jitted helper does)
    np.where(True, *(np.zeros(1, v.dtype) if isinstance(v, ndarray) else v for v in (x, y)))
    return _jitted_function("where")(condition, _in_dtype(x, dt), _in_dtype(y, dt))


def clip(
    a: ndarray | ArrayLike,
    a_min: ndarray | ArrayLike | None | _NoValueType = np._NoValue,
    a_max: ndarray | ArrayLike | None | _NoValueType = np._NoValue,
    out: ndarray | None = None,
    *,
    min: ndarray | ArrayLike | None | _NoValueType = np._NoValue,
    max: ndarray | ArrayLike | None | _NoValueType = np._NoValue,
    **kwargs: Any,
) -> ndarray:
    """np.clip(a, a_min, a_max) (or min=/max=) on the queue of the numba_ext operands."""
    if out is not None or kwargs:
        raise UnsupportedError(
            f"np.clip on numba_ext arrays takes no out= or ufunc keywords ({sorted(kwargs)})"
        )
    lo = min if a_min is np._NoValue else a_min
    hi = max if a_max is np._NoValue else a_max
    # (the cast: mypy does not narrow `v is np._NoValue`)
    lo, hi = (None if v is np._NoValue else cast("ndarray | ArrayLike", v) for v in (lo, hi))
    if lo is None and hi is None:
        raise ValueError("np.clip: at least one of a_min and a_max must be given")
    dt = _numpy_result_dtype([v for v in (a, lo, hi) if v is not None])
    if lo is None or hi is None:  # an open bound: the dtype's extreme
        ext = (
            (-np.inf, np.inf)
            if dt.kind == "f"
            else ((np.iinfo(dt).min, np.iinfo(dt).max) if dt.kind in "iu" else (False, True))
        )
        lo = dt.type(ext[0]) if lo is None else lo
        hi = dt.type(ext[1]) if hi is None else hi
    if _direct(dt, (a, lo, hi)):
        return elementwise.clip(a, lo, hi, dt)
    return _jitted_function("clip")(_in_dtype(a, dt), _in_dtype(lo, dt), _in_dtype(hi, dt))


def _like_function(kind: str) -> Callable[..., ndarray]:
    make = getattr(arrays, f"{kind}_like")

    # subok= needs nothing: results are numba_ext arrays
    def check(what: str, device: str | None) -> None:
        if device is not None:
            raise UnsupportedError(
                f"np.{kind}_like({what}) of a numba_ext array takes no device= (NumPy's host device); "
                f"use numba_ext.{kind}_like(x, device=...) or x.to_device(...)"
            )

    def full_like(
        a: ndarray | ArrayLike,
        fill_value: ArrayLike,
        dtype: DTypeLike | None = None,
        order: Literal["K", "A", "C", "F"] | None = "K",
        subok: bool = True,
        shape: ShapeLike | None = None,
        *,
        device: str | None = None,
    ) -> ndarray:
        check("a, fill_value", device)
        return make(a, fill_value, dtype, order, shape=shape)

    def like(
        a: ndarray | ArrayLike,
        dtype: DTypeLike | None = None,
        order: Literal["K", "A", "C", "F"] | None = "K",
        subok: bool = True,
        shape: ShapeLike | None = None,
        *,
        device: str | None = None,
    ) -> ndarray:
        check("a", device)
        return make(a, dtype, order, shape=shape)

    if kind == "full":
        return full_like
    like.__name__ = f"{kind}_like"
    return like


def _dot(a: ndarray, b: ndarray, out: ndarray | None = None) -> ndarray:
    return dot(a, b, out=out)


def _tensordot_axis(axis: object) -> int:
    if isinstance(axis, (bool, np.bool_)):
        raise TypeError("an integer is required for the axis")
    return operator.index(axis)  # type: ignore[arg-type]


def tensordot(a: ndarray, b: ndarray, axes: Any = 2, *, what: str = "np.tensordot()") -> ndarray:
    """The sum of products over `axes` (the last `axes` of `a` with the first of `b`, or a pair of
    axis sequences or axes), as one matrix product of the operands' transposed and reshaped forms
    on their queue."""
    if isinstance(axes, (tuple, list)):
        if len(axes) != 2:
            raise ValueError(f"{what}: axes must be an int or a pair of axis sequences, got {axes!r}")
        ax_a = [_tensordot_axis(i) for i in (axes[0] if isinstance(axes[0], (tuple, list)) else [axes[0]])]
        ax_b = [_tensordot_axis(i) for i in (axes[1] if isinstance(axes[1], (tuple, list)) else [axes[1]])]
    else:
        count = _tensordot_axis(axes)
        if count > min(a.ndim, b.ndim):
            raise ValueError(f"{what}: axes={count} is out of range for ranks {a.ndim} and {b.ndim}")
        ax_a = list(range(a.ndim - count, a.ndim)) if count > 0 else []  # NumPy: none for count <= 0
        ax_b = list(range(count))
    if len(ax_a) != len(ax_b):
        raise ValueError(f"{what}: the two sequences of axes differ in length")
    ax_a = [normalize_axis(i, a.ndim) for i in ax_a]
    ax_b = [normalize_axis(i, b.ndim) for i in ax_b]
    for i, j in zip(ax_a, ax_b):
        if a.shape[i] != b.shape[j]:
            raise ValueError(
                f"{what}: shape mismatch, the first operand's axis {i} has {a.shape[i]} elements and "
                f"the second's axis {j} has {b.shape[j]}"
            )
    free_a = [i for i in range(a.ndim) if i not in ax_a]
    free_b = [j for j in range(b.ndim) if j not in ax_b]
    k = math.prod(a.shape[i] for i in ax_a)
    left = a.transpose(free_a + ax_a).reshape(math.prod(a.shape[i] for i in free_a), k)
    right = b.transpose(ax_b + free_b).reshape(k, math.prod(b.shape[j] for j in free_b))
    dt = np.result_type(a.dtype, b.dtype)
    product = dot(left.astype(dt, copy=False), right.astype(dt, copy=False))
    return product.reshape(tuple(a.shape[i] for i in free_a) + tuple(b.shape[j] for j in free_b))


def _copy(a: ndarray, order: Literal["K", "A", "C", "F"] | None = "K", subok: bool = False) -> ndarray:
    return a.copy(order=order) if isinstance(a, ndarray) else np.copy(a, order=order, subok=subok)


def _scan_function(op: str) -> Callable[..., ndarray]:
    def scan(
        a: ndarray,
        axis: int | None = None,
        dtype: DTypeLike | None = None,
        out: ndarray | None = None,
    ) -> ndarray:
        if out is not None:
            raise UnsupportedError(
                f"np.{op}(out=) of numba_ext arrays is not supported; use the array np.{op}(x) returns"
            )
        if axis is not None:
            if isinstance(axis, (bool, np.bool_)):
                raise TypeError("an integer is required for the axis")  # NumPy's
            axis = normalize_axis(operator.index(axis), max(a.ndim, 1))  # a 0-d array scans as 1-d
            if a.ndim <= 1:
                axis = None
        out_dtype = scan_dtype(op, a.dtype) if dtype is None else np.dtype(dtype)
        scannable = DIRECT_DTYPES | COMPLEX_DTYPES
        direct = a.dtype in scannable and out_dtype in scannable and out_dtype != np.bool_
        direct = direct and not (a.dtype.kind == "c" and out_dtype.kind != "c")  # NumPy warns, drops .imag
        if not direct and (axis is not None or dtype is not None):
            raise UnsupportedError(
                f"np.{op}(axis=, dtype=) of numba_ext arrays is supported for real, complex and bool data "
                f"into real or complex results, not {a.dtype} into {out_dtype}; np.{op}(x) scans any "
                "dtype flattened"
            )
        if direct:
            kernels = _scan_kernels_of(op, a.dtype, out_dtype)
            if axis is None:
                return scans.scan(a, out_dtype, a._queue, kernels)
            return scans.scan_axis(
                a, axis, out_dtype, a._queue, kernels(f"axis{axis}", a.ndim, a._queue.device)
            )
        if a.ndim == 0:
            a = a.reshape(1)
        from ..compiler import scans as jitted  # Numba's import waits for the first such scan

        return jitted.scan_function(op, out_dtype.name, a.usm_type)(a)

    scan.__name__ = op
    return scan


_lock = threading.Lock()
#: compiled scan kernels by (operation, dtype, result dtype, step, rank, device)
_scan_kernels: dict[tuple[str, str, str, str, int, Device], _core.Kernel] = {}


_scans_of: dict[tuple[str, np.dtype, np.dtype], _ScanKernels] = {}


def _scan_kernels_of(op: str, dtype: np.dtype, out: np.dtype) -> _ScanKernels:
    """The kernels of scans of arrays of `dtype` into `out` (made once: no dtype names per call)."""
    found = _scans_of.get((op, dtype, out))
    if found is None:
        found = _scans_of[op, dtype, out] = _ScanKernels(op, dtype.name, out.name)
    return found


class _ScanKernels:
    """The kernels of a scan of arrays of `dtype` into `out`, per step ("totals", "prefixes",
    "blocks" of the flattened array, or "axis<k>" along axis k), rank and device, compiled once."""

    def __init__(self, op: str, dtype: str, out: str) -> None:
        self.op, self.dtype, self.out = op, dtype, out

    def __call__(self, step: str, ndim: int, device: Device) -> _core.Kernel:
        key = (self.op, self.dtype, self.out, step, ndim, device)
        k = _scan_kernels.get(key)
        if k is None:
            if step == "totals":
                function = block_totals_function(self.op, self.dtype, ndim, self.out)
            elif step == "blocks":
                function = block_scan_function(self.op, self.dtype, ndim, self.out)
            elif step == "prefixes":
                function = block_prefix_function(self.op, self.out)
            else:
                function = axis_scan_function(self.op, self.dtype, ndim, int(step[4:]), self.out)
            k = _core.compile_function(function, device)
            with _lock:
                _scan_kernels[key] = k
        return k


ARRAY_FUNCTIONS: dict[Callable[..., Any], Callable[..., Any]] = {
    np.cumsum: _scan_function("cumsum"),
    np.cumprod: _scan_function("cumprod"),
    np.where: where,
    np.clip: clip,
    np.dot: _dot,
    np.tensordot: tensordot,
    np.copy: _copy,
    **{getattr(np, f"{k}_like"): _like_function(k) for k in ("empty", "zeros", "ones", "full")},
    **MANIPULATION_FUNCTIONS,
    **GATHER_FUNCTIONS,
    **SORTING_FUNCTIONS,
    **HISTOGRAM_FUNCTIONS,
    **SET_FUNCTIONS,
    **NAN_FUNCTIONS,
    **STATISTICS_FUNCTIONS,
    **EINSUM_FUNCTIONS,
    **COMPOSED_FUNCTIONS,
    **FFT_FUNCTIONS,
    **CONVOLUTION_FUNCTIONS,
}
