"""Eager elementwise operations on numba_ext arrays outside jitted code (``a + b``, ``-a``,
``np.sqrt(a)``): the same KernelSpec builder and Rust compiler as jitted code, with NumPy's
broadcasting and its type rules for Python scalars, launched on the queue chosen by compute follows
data. Each distinct (operation, operand kinds, dtypes, layout, device) is compiled once."""

from __future__ import annotations

import functools
import threading
import warnings

import numpy as np

from . import _core
from .array import ndarray
from .cfd import coerce_usm_types, execution_queue
from .creation import _allocate
from .errors import ExecutionPlacementError, UnsupportedError
from .numba.kernelspec import _UFUNC_OPS, SpecBuilder

_cache_lock = threading.Lock()
_cache: dict = {}


def _scalar_bits(value, dtype: np.dtype) -> int:
    return int(np.asarray(value, dtype=dtype).reshape(1).view(np.dtype(f"u{dtype.itemsize}"))[0])


def _resolve(ufunc, operands):
    """NumPy's loop dtypes for these operands (Python scalars are 'weak', as in NumPy 2)."""
    probe = []
    for o in operands:
        if isinstance(o, ndarray):
            probe.append(o.dtype)
        elif type(o) in (int, float):  # Python numbers are weak; NumPy scalars and bools are not
            probe.append(type(o))
        else:
            probe.append(np.asarray(o).dtype)
    try:
        return [np.dtype(d) for d in ufunc.resolve_dtypes(tuple(probe) + (None,) * ufunc.nout)]
    except Exception as e:
        raise UnsupportedError(f"np.{ufunc.__name__} is not supported for {probe}: {e}") from None


def apply(ufunc, *operands, name=None) -> ndarray:
    """`ufunc(*operands)` on the execution queue of the array operands (`name` overrides the ufunc's
    name, for ufuncs made with numba.vectorize)."""
    name = name or ufunc.__name__
    if ufunc.nout != 1 or name not in _UFUNC_OPS:
        raise UnsupportedError(f"np.{name} cannot be offloaded yet")
    # NumPy hands scalars on the left of an operator over as 0-d arrays (np.int64(3) > x): scalars
    operands = tuple(o[()] if isinstance(o, np.ndarray) and o.ndim == 0 else o for o in operands)
    arrays = [o for o in operands if isinstance(o, ndarray)]
    first = arrays[0]
    if all(
        a._queue is first._queue and a._usm_type == first._usm_type and a._desc.shape == first._desc.shape
        for a in arrays
    ) and not any(isinstance(o, (np.ndarray, list, tuple)) for o in operands):
        queue, usm_type, shape = first._queue, first._usm_type, first._desc.shape  # the common case
    else:
        named = [(f"operand {i}", o) for i, o in enumerate(operands) if isinstance(o, ndarray)]
        foreign = [i for i, o in enumerate(operands) if isinstance(o, (np.ndarray, list, tuple))]
        if foreign:
            raise ExecutionPlacementError(
                f"np.{name} mixes numba_ext arrays with host data (operand(s) {foreign}); the queue of host "
                "data cannot be inferred (compute follows data). Convert it first with "
                "numba_ext.asarray(x, sycl_queue=<the array's queue>)"
            )
        queue = execution_queue(named)
        usm_type = coerce_usm_types([a.usm_type for _, a in named])
        shape = np.broadcast_shapes(*[a.shape for a in arrays])
    dts = _resolve(ufunc, operands)
    in_dts, out_dt = dts[: ufunc.nin], dts[-1]

    layout = tuple(
        (o._desc.dtype, o._desc.ndim, o._desc.flags.c_contiguous and o._desc.shape == shape)
        if isinstance(o, ndarray)
        else ("scalar", dt)
        for o, dt in zip(operands, in_dts)
    )
    key = (name, layout, len(shape), out_dt, queue.device)
    with _cache_lock:
        kernel = _cache.get(key)
    if kernel is None:
        kernel = _compile(ufunc, name, layout, in_dts, len(shape), out_dt, queue.device)
        with _cache_lock:
            _cache[key] = kernel

    out = _allocate(shape, out_dt, queue, usm_type)
    slots = []
    for o, (kind, *rest), dt in zip(operands, layout, in_dts):
        if isinstance(kind, str):
            slots.append(_scalar_bits(o, dt))
            continue
        slots.append(o._data_ptr)
        if not rest[1]:  # strided/broadcast: byte strides over the iteration space
            pad = len(shape) - o.ndim
            strides = [0] * pad + [
                0 if n == 1 and m != 1 else s for n, s, m in zip(o.shape, o.strides, shape[pad:])
            ]
            slots.extend(s & 0xFFFFFFFFFFFFFFFF for s in strides)
    slots.append(out._data_ptr)
    slots.extend(shape)
    slots.append(out.size)
    if out.size:
        kernel.launch(queue, slots)
    return out


def _compile(ufunc, name, layout, in_dts, ndim, out_dt, device):
    """The kernel of one eager operation. Operands are cast to NumPy's loop dtypes `in_dts` first
    (NumPy's choice, e.g. float64 for int32 + float32, where Numba's own loop selection would
    compute in float32)."""
    b = SpecBuilder(ndim)
    vals = []
    for i, ((kind, *rest), want) in enumerate(zip(layout, in_dts)):
        if isinstance(kind, str):  # ("scalar", dtype)
            dt = rest[0].name
            p = b.param((f"s{i}", "scalar", dt))
            vals.append((b.node(("scalar", dt, p)), dt))
        else:  # (dtype, ndim, contiguous)
            p = b.param((f"x{i}", "array", kind.name, ndim, rest[1]))
            vals.append((b.cast(b.node(("load", kind.name, p)), kind.name, want.name), want.name))
    val, dt = b.apply_ufunc(ufunc, vals, name=name)
    out = b.param(("out", "array", out_dt.name, ndim, True))
    b.node(("store", out_dt.name, out, b.cast(val, dt, out_dt.name)))
    return _core.compile_kernel(b.spec(), device)


def _check_unsupported(what: str, **given) -> None:
    bad = [f"{k}={v!r}" for k, v in given.items() if v is not None and v is not False]
    if bad:
        raise UnsupportedError(f"{what}({', '.join(bad)}) on numba_ext arrays is not supported")


def reduce(name: str, x: ndarray, axis=None, *, dtype=None, out=None, keepdims=False):
    """`x.<name>(axis=axis)` (sum prod min max mean any all argmin argmax), computed by a kernel on
    `x`'s queue: a NumPy scalar of NumPy's result dtype over all elements, else a numba_ext array on the same queue."""
    from .numba import reductions as R

    _check_unsupported(f"{name}", dtype=dtype, out=out, keepdims=keepdims)
    if axis is not None:
        if isinstance(axis, tuple):
            raise UnsupportedError(
                f"{name}(axis=<tuple>) on numba_ext arrays is not supported; reduce one axis at a time"
            )
        if x.ndim == 0:
            raise np.exceptions.AxisError(axis, 0)
        axis = R.normalize_axis(axis, x.ndim)
        if x.ndim == 1:
            axis = None
    if name == "mean" and (x.size if axis is None else x.shape[axis]) == 0:
        warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=3)  # as NumPy; the result is NaN
    if axis is None:
        x = x if x.ndim else x.reshape(1)
        value = R.whole_function(name, x.ndim, x.dtype, x.flags.c_contiguous)(x)
        return R.result_dtype(name, x.dtype).type(value)  # NumPy's scalar type (np.float32 for float32 data)
    return R.axis_reducer(name, x.ndim, R.result_dtype(name, x.dtype).name, x.usm_type)(x, axis)


def dot(a: ndarray, b: ndarray, what: str = "np.dot") -> ndarray:
    """`np.dot(a, b)` / `a @ b` of 1-D and 2-D numba_ext arrays, computed on their queue."""
    from .numba import reductions as R

    if not (isinstance(a, ndarray) and isinstance(b, ndarray)):
        other = b if isinstance(a, ndarray) else a
        if np.ndim(other) == 0 and not isinstance(other, (np.ndarray, list, tuple)):
            raise UnsupportedError(f"{what} of a numba_ext array and a scalar is not supported: use *")
        other = type(other).__name__
        raise ExecutionPlacementError(
            f"{what} of a numba_ext array and a {other}: the queue of the other operand cannot be inferred "
            "(compute follows data); convert it with numba_ext.asarray(x, sycl_queue=<the array's queue>)"
        )
    R.check_dot_ndims(a.ndim, b.ndim, what)
    return R.dot_function(
        a.ndim, b.ndim, R.dot_dtype(a.dtype, b.dtype).name, coerce_usm_types([a.usm_type, b.usm_type])
    )(a, b)


# -- NumPy functions on numba_ext arrays (``__array_function__``) ----------------------------------------
#
# np.where, np.clip and np.dot compute on the arrays' queue (where/clip through a jitted function, so
# jitted and eager code share one implementation; dot through the reductions' dot; np.cumsum and
# np.cumprod through numba/scans.py, as in jitted code); the *_like
# functions allocate on it; np.copy copies there. Every other NumPy function runs NumPy's own
# implementation, which uses the array's methods (np.sum(x) -> x.sum(), np.reshape, np.transpose) or
# refuses the implicit conversion to a NumPy array (ndarray.__array__).


def _numpy_result_dtype(values) -> np.dtype:
    """NumPy 2's result dtype of these operands: arrays and NumPy scalars by their dtype, Python
    scalars as weak."""
    probe = [v.dtype if isinstance(v, (ndarray, np.ndarray, np.generic)) else v for v in values]
    return np.result_type(*probe)


def _in_dtype(v, dt: np.dtype):
    """`v` made to compute in `dt` (numba_ext arrays cast on their queue, NumPy scalars converted;
    Python scalars stay weak; anything else is left for compute follows data to judge)."""
    if isinstance(v, ndarray):
        return v if v.dtype == dt else v.astype(dt)
    if isinstance(v, np.generic):
        return dt.type(v)
    return v


@functools.cache
def _jitted_function(name: str):
    from .jit import jit

    return jit(
        {"where": lambda c, a, b: np.where(c, a, b), "clip": lambda a, lo, hi: np.clip(a, lo, hi)}[name]
    )


def where(condition, x=None, y=None):
    """np.where(condition, x, y) on the queue of the numba_ext operands (NumPy's result dtype)."""
    if x is None or y is None:
        raise UnsupportedError(
            "np.where(condition) with one argument (np.nonzero) is not supported on "
            "numba_ext arrays; give x and y"
        )
    dt = _numpy_result_dtype([x, y])
    return _jitted_function("where")(condition, _in_dtype(x, dt), _in_dtype(y, dt))


def clip(a, a_min=np._NoValue, a_max=np._NoValue, out=None, *, min=np._NoValue, max=np._NoValue, **kwargs):
    """np.clip(a, a_min, a_max) (or min=/max=) on the queue of the numba_ext operands."""
    if out is not None or kwargs:
        raise UnsupportedError(
            f"np.clip on numba_ext arrays takes no out= or ufunc keywords ({sorted(kwargs)})"
        )
    lo = min if a_min is np._NoValue else a_min
    hi = max if a_max is np._NoValue else a_max
    lo, hi = (None if v is np._NoValue else v for v in (lo, hi))
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
    return _jitted_function("clip")(_in_dtype(a, dt), _in_dtype(lo, dt), _in_dtype(hi, dt))


def _like_function(kind: str):
    from . import creation

    make = getattr(creation, f"{kind}_like")

    def check(what, shape, device):  # order= and subok= need nothing: results are C-contiguous ndarrays
        if shape is not None or device is not None:
            raise UnsupportedError(
                f"np.{kind}_like({what}) of a numba_ext array takes no shape= or device=; use "
                f"numba_ext.{kind}(shape, dtype, sycl_queue=x.sycl_queue)"
            )

    if kind == "full":

        def like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
            check("a, fill_value", shape, device)
            return make(a, fill_value, dtype)
    else:

        def like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
            check("a", shape, device)
            return make(a, dtype)

    like.__name__ = f"{kind}_like"
    return like


def _dot(a, b, out=None):
    if out is not None:
        raise UnsupportedError("np.dot(out=) is not supported on numba_ext arrays")
    return dot(a, b)


def _copy(a, order="K", subok=False):
    return a.copy() if isinstance(a, ndarray) else np.copy(a, order=order, subok=subok)


def _scan_function(op: str):
    def scan(a, axis=None, dtype=None, out=None):
        from .numba import scans

        if axis is not None or dtype is not None or out is not None:
            raise UnsupportedError(
                f"np.{op}(axis=, dtype=, out=) of numba_ext arrays is not supported; "
                f"np.{op}(x) scans the flattened array"
            )
        if a.ndim == 0:
            a = a.reshape(1)
        return scans.scan_function(op, scans.scan_dtype(op, a.dtype).name, a.usm_type)(a)

    scan.__name__ = op
    return scan


ARRAY_FUNCTIONS = {
    np.cumsum: _scan_function("cumsum"),
    np.cumprod: _scan_function("cumprod"),
    np.where: where,
    np.clip: clip,
    np.dot: _dot,
    np.copy: _copy,
    **{getattr(np, f"{k}_like"): _like_function(k) for k in ("empty", "zeros", "ones", "full")},
}
