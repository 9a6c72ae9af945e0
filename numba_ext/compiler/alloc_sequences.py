"""``numba_ext.arange``, ``linspace``, ``eye`` and ``asarray`` (of a numba_ext array) in jitted code.

The rewrite in ``alloc_calls`` turns each call into one of its ``nx_*`` functions with every
parameter in a fixed order and the function's arguments last. Their overloads (here) allocate with
``usm_alloc`` (so ``device=``, ``sycl_queue=``, ``usm_type=`` and ``order=`` mean what they mean for
``numba_ext.empty``) and compute the values on the device in a ``numba_ext.jit`` helper (a prange
loop, one kernel on the result's queue), so they work where the host cannot address the memory."""

from __future__ import annotations

import functools
import math

import numpy as np
from numba import prange
from numba.core import types
from numba.extending import overload, register_jitable
from numba.np import numpy_support

from ..errors import UnsupportedError
from .alloc import usm_alloc
from .alloc_calls import nx_arange, nx_asarray, nx_eye, nx_linspace
from .alloc_target import default_float, given, resolve_target
from .elementwise import dtype_arg
from .jit_function import jit
from .types import USMArrayType


def _np_dtype(t, default):
    if not given(t):
        return np.dtype(numpy_support.as_dtype(default))
    dt = dtype_arg(t)
    if dt is None:
        raise UnsupportedError(f"dtype {t} is not supported by numba_ext allocation in jitted code")
    return np.dtype(numpy_support.as_dtype(dt))


def _number(t, what: str) -> None:
    if not isinstance(t, (types.Integer, types.Float, types.Boolean)):
        raise UnsupportedError(f"numba_ext.{what}() in jitted code takes real numbers, got {t}")


# -- the device loops ------------------------------------------------------------------------------------
@functools.cache
def _arange_fill():
    def fill(out, start, step):
        for i in prange(out.shape[0]):
            out[i] = start + i * step

    return jit(fill)._dispatcher


@functools.cache
def _linspace_fill(floor: bool):
    def fill(out, start, step, stop, last):
        for i in prange(out.shape[0]):
            v = start + i * step
            if i == last:
                v = stop
            out[i] = math.floor(v) if floor else v

    return jit(fill)._dispatcher


@functools.cache
def _eye_fill():
    def fill(out, k):
        for i in prange(out.shape[0]):
            for j in range(out.shape[1]):
                out[i, j] = 1 if j - i == k else 0

    return jit(fill)._dispatcher


def _copy_body(ndim: int):
    def copy1(out, a):
        for i in prange(a.shape[0]):
            out[i] = a[i]

    def copy2(out, a):
        for i in prange(a.shape[0]):
            for j in range(a.shape[1]):
                out[i, j] = a[i, j]

    def copy3(out, a):
        for i in prange(a.shape[0]):
            for j in range(a.shape[1]):
                for m in range(a.shape[2]):
                    out[i, j, m] = a[i, j, m]

    return {1: copy1, 2: copy2, 3: copy3}[ndim]


@functools.cache
def _copy(ndim: int):
    return jit(_copy_body(ndim))._dispatcher


@register_jitable
def _arange_length(start, stop, step):
    if step == 0:
        raise ValueError("numba_ext.arange(): step must not be zero")
    return max(int(math.ceil((stop - start) / step)), 0)


# -- the overloads --------------------------------------------------------------------------------------
@overload(nx_arange, prefer_literal=True)
def _ov_arange(start, stop, step, dtype, usm_type, device, sycl_queue, sources):
    for t in (start, stop, step):
        if given(t):
            _number(t, "arange")
    target = resolve_target(device, sycl_queue, sources)
    ints = all(isinstance(t, (types.Integer, types.Boolean)) for t in (start, stop, step) if given(t))
    dt = _np_dtype(dtype, types.int64 if ints else default_float(target))
    fill, no_stop = _arange_fill(), not given(stop)

    def impl(start, stop, step, dtype, usm_type, device, sycl_queue, sources):
        lo, hi = (0, start) if no_stop else (start, stop)
        out = usm_alloc(_arange_length(lo, hi, step), dt, usm_type, device, sycl_queue, None, None, sources)
        fill(out, lo, step)
        return out

    return impl


@overload(nx_linspace, prefer_literal=True)
def _ov_linspace(start, stop, num, endpoint, dtype, usm_type, device, sycl_queue, sources):
    for t in (start, stop):
        _number(t, "linspace")
    if not isinstance(num, types.Integer):
        raise UnsupportedError(f"numba_ext.linspace() in jitted code takes an integer num, got {num}")
    dt = _np_dtype(dtype, default_float(resolve_target(device, sycl_queue, sources)))
    fill = _linspace_fill(dt.kind in "iu")

    def impl(start, stop, num, endpoint, dtype, usm_type, device, sycl_queue, sources):
        if num < 0:
            raise ValueError("numba_ext.linspace(): the number of samples must be non-negative")
        div = num - 1 if endpoint else num
        step = (stop - start) / div if div > 0 else 0.0
        last = num - 1 if endpoint and num > 1 else -1
        out = usm_alloc(num, dt, usm_type, device, sycl_queue, None, None, sources)
        fill(out, float(start), step, float(stop), last)
        return out

    return impl


@overload(nx_eye, prefer_literal=True)
def _ov_eye(N, M, k, dtype, order, usm_type, device, sycl_queue, sources):
    for t in (N, M, k):
        if given(t) and not isinstance(t, types.Integer):
            raise UnsupportedError(f"numba_ext.eye() in jitted code takes integers N, M and k, got {t}")
    dt = _np_dtype(dtype, default_float(resolve_target(device, sycl_queue, sources)))
    fill, square = _eye_fill(), not given(M)

    def impl(N, M, k, dtype, order, usm_type, device, sycl_queue, sources):
        cols = N if square else M
        out = usm_alloc((N, cols), dt, usm_type, device, sycl_queue, order, None, sources)
        fill(out, k)
        return out

    return impl


@overload(nx_asarray, prefer_literal=True)
def _ov_asarray(a, dtype, order, usm_type, device, sycl_queue, copy, sources):
    if not isinstance(a, USMArrayType):
        raise UnsupportedError(
            f"numba_ext.asarray() in jitted code takes a numba_ext array, got {a}: convert NumPy data "
            "with numba_ext.asarray() before the call"
        )
    target = resolve_target(device, sycl_queue, types.Tuple((a,)))
    dt = _np_dtype(dtype, a.dtype)
    usm = usm_type.literal_value if isinstance(usm_type, types.StringLiteral) else a.usm_type
    want_copy = isinstance(copy, types.BooleanLiteral) and copy.literal_value
    no_copy = isinstance(copy, types.BooleanLiteral) and not copy.literal_value
    same = target.kind == "source" and dt == numpy_support.as_dtype(a.dtype) and usm == a.usm_type
    if same and not want_copy and not (given(order) and a.ndim > 1 and order.literal_value != a.layout):
        return lambda a, dtype, order, usm_type, device, sycl_queue, copy, sources: a
    if no_copy:
        raise UnsupportedError("numba_ext.asarray(copy=False) in jitted code: this conversion needs a copy")
    if not 1 <= a.ndim <= 3:
        raise UnsupportedError(
            f"numba_ext.asarray() in jitted code copies arrays of 1 to 3 dimensions, not {a.ndim}"
        )
    fill = _copy(a.ndim)

    def impl(a, dtype, order, usm_type, device, sycl_queue, copy, sources):
        out = usm_alloc(a.shape, dt, usm, device, sycl_queue, order, None, (a,))
        fill(out, a)
        return out

    return impl
