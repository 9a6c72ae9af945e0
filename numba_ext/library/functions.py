"""NumPy functions on numba_ext arrays (``__array_function__``).

np.where, np.clip and np.dot compute on the arrays' queue (where/clip through a jitted function, so
jitted and eager code share one implementation; dot through the reductions' dot; np.cumsum and
np.cumprod through the scans jitted code uses); the *_like functions allocate on it; np.copy copies
there. Every other NumPy function runs NumPy's own implementation, which uses the array's methods
(np.sum(x) -> x.sum(), np.reshape, np.transpose) or refuses the implicit conversion to a NumPy array
(ndarray.__array__)."""

from __future__ import annotations

import functools

import numpy as np

from .. import arrays
from ..arrays import ndarray
from ..compiler import jit, scans
from ..errors import UnsupportedError
from .reductions import dot


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
    make = getattr(arrays, f"{kind}_like")

    def check(what, shape, device):  # order= and subok= need nothing: results are C-contiguous ndarrays
        if shape is not None or device is not None:
            raise UnsupportedError(
                f"np.{kind}_like({what}) of a numba_ext array takes no shape= or device=; use "
                f"numba_ext.{kind}(shape, dtype, sycl_queue=x.sycl_queue)"
            )

    def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
        check("a, fill_value", shape, device)
        return make(a, fill_value, dtype)

    def like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
        check("a", shape, device)
        return make(a, dtype)

    if kind == "full":
        return full_like
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
