"""``np.dot(a, b, out)`` and ``np.matmul(a, b, out=out)`` of 1-D and 2-D numba_ext arrays, in jitted
code (through the dispatch functions of ``numpy_calls``) and eagerly: the product of
``reduction_helpers.dot_function`` on the arrays' queue, then one device loop storing it into
``out`` (so ``out`` may alias an operand, as in NumPy) and returning ``out``.

As in NumPy, ``np.dot`` needs ``out`` of exactly the result's dtype, ``np.matmul`` casts the result
to ``out``'s dtype where the cast is ``same_kind``; both need ``out`` of the result's shape."""

from __future__ import annotations

import functools

import numpy as np
from numba import prange
from numba.core import types
from numba.extending import overload
from numba.np import numpy_support

from ..errors import ExecutionPlacementError, UnsupportedError
from ..placement import coerce_usm_types
from .jit_function import JitFunction, jit
from .numpy_calls import NOT_REWRITTEN, nx_dot_out, nx_matmul_out
from .reduction_helpers import dot_function
from .reduction_rules import check_dot_ndims, dot_dtype
from .types import USMArrayType

DOT_OUT_MESSAGE = (
    "output array is not acceptable (must have the right datatype, number of dimensions, and be a C-Array)"
)
SHAPE_MESSAGE = "output array has the wrong shape for the product"


def product_out_ndim(ndim_a: int, ndim_b: int) -> int:
    return ndim_a + ndim_b - 2


def check_out_dtype(what: str, result: np.dtype, out: np.dtype) -> bool:
    """NumPy's dtype rule for `out` of np.dot (exactly the result's: False where it differs, NumPy's
    ValueError) or np.matmul (a same_kind cast: UnsupportedError otherwise)."""
    if what == "np.dot":
        return result == out
    if not np.can_cast(result, out, "same_kind"):
        raise UnsupportedError(
            f"{what}: cannot cast the product's dtype {result} to out's dtype {out} "
            "(casting rule 'same_kind')"
        )
    return True


@functools.cache
def product_into_function(ndim_a: int, ndim_b: int, dtype: str, usm_type: str, out_dtype: str) -> JitFunction:
    """The numba_ext.jit function of (a, b, out): np.dot(a, b) (of `dtype`) stored into `out`, cast
    to `out_dtype`; returns `out`."""
    check_dot_ndims(ndim_a, ndim_b)
    dot = dot_function(ndim_a, ndim_b, dtype, usm_type)._dispatcher
    out_t = getattr(np, out_dtype)
    return jit(_STORES[product_out_ndim(ndim_a, ndim_b)](dot, out_t))


def _store_scalar(dot, out_t):
    def product_into(a, b, out):
        s = out_t(dot(a, b))
        o = out.reshape(1)
        for i in prange(1):
            o[i] = s
        return out

    return product_into


def _store_vector(dot, out_t):
    def product_into(a, b, out):
        r = dot(a, b)
        if out.shape[0] != r.shape[0]:
            raise ValueError(SHAPE_MESSAGE)
        for i in prange(r.shape[0]):
            out[i] = out_t(r[i])
        return out

    return product_into


def _store_matrix(dot, out_t):
    def product_into(a, b, out):
        r = dot(a, b)
        if out.shape[0] != r.shape[0] or out.shape[1] != r.shape[1]:
            raise ValueError(SHAPE_MESSAGE)
        n1 = r.shape[1]
        for t in prange(r.size):
            out[t // n1, t % n1] = out_t(r[t // n1, t % n1])
        return out

    return product_into


_STORES = {0: _store_scalar, 1: _store_vector, 2: _store_matrix}


def _host_dot_out(a, b, out):
    return np.dot(a, b, out)


def _wrong_out(a, b, out):
    raise ValueError(DOT_OUT_MESSAGE)


NOT_REWRITTEN.add(_host_dot_out)


def _product_out_overload(what: str, host_impl):
    def ov(a, b, out):
        if not any(isinstance(t, USMArrayType) for t in (a, b, out)):
            return host_impl
        if not all(isinstance(t, types.Array) for t in (a, b, out)):
            raise UnsupportedError(
                f"{what}(a, b, out) on numba_ext arrays needs three arrays, got {a}, {b}, {out}"
            )
        if not all(isinstance(t, USMArrayType) for t in (a, b, out)):
            raise ExecutionPlacementError(
                f"{what}(a, b, out) mixes numba_ext arrays with NumPy arrays; the queue of the NumPy data "
                "cannot be inferred (compute follows data)"
            )
        if len({a.device, b.device, out.device}) > 1:
            raise ExecutionPlacementError(f"{what}(a, b, out) combines arrays on different devices")
        check_dot_ndims(a.ndim, b.ndim, what)
        result = dot_dtype(numpy_support.as_dtype(a.dtype), numpy_support.as_dtype(b.dtype))
        if out.ndim != product_out_ndim(a.ndim, b.ndim):
            raise UnsupportedError(
                f"{what}: out has {out.ndim} dimensions, the product of {a.ndim}-D and {b.ndim}-D arrays "
                f"has {product_out_ndim(a.ndim, b.ndim)}"
            )
        if not check_out_dtype(what, result, numpy_support.as_dtype(out.dtype)):
            return _wrong_out
        h = product_into_function(
            a.ndim,
            b.ndim,
            result.name,
            coerce_usm_types([a.usm_type, b.usm_type]),
            numpy_support.as_dtype(out.dtype).name,
        )._dispatcher
        return lambda a, b, out: h(a, b, out)

    return ov


overload(nx_dot_out)(_product_out_overload("np.dot", _host_dot_out))
overload(nx_matmul_out)(_product_out_overload("np.matmul", _host_dot_out))
