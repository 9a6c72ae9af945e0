"""The ``numba_ext.jit`` helpers that compute reductions and ``np.dot`` on USM arrays, one per
(operation, rank, result dtype, USM type). Each factory below returns a closure over compile-time
constants (the NumPy function or scalar type to use, NumPy's error message, the USM type of the
result, the element access of the array's rank from ``reduction_parts``), which Numba freezes into
the compiled code; ``numba_ext.jit`` compiles it with the offload pipeline, so its ``prange`` loops
become device kernels: one flat loop, one work-item per element or per output element.

An axis reduction moves the (run-time) axis last with a transposed view and runs one work-item per
output element with a sequential loop along it, reading through the strides, so slices with steps,
negative strides and transposes work; one compilation per input type serves every axis. Jitted code
(through the overloads in ``reductions``) and the eager methods call the same helpers.

Owns: the helpers (``whole_function``, ``axis_reducer``, ``dot_function`` and the factories behind
them).
"""

from __future__ import annotations

import functools

import numpy as np
from numba import prange

from .. import arrays
from ..ir import complex_lowering
from .jit_function import JitFunction, jit
from .products_tiled import in_tiles
from .reduction_parts import (
    add,
    as_flat,
    axis_access,
    axis_last,
    element_reader,
    empty_check,
    greater,
    inline,
    is_zero,
    less,
    mean_of,
    mul,
    nonzero,
    total,
    unchanged,
    whole_view,
)
from .reduction_rules import BOOL_EXTREMES, EMPTY_MESSAGES, check_dot_ndims, result_dtype


# -- reductions over all elements ------------------------------------------------------------------
def whole_function(op: str, ndim: int, dtype, contiguous: bool) -> JitFunction:
    """The numba_ext.jit function computing `np.<op>(a)` over all elements of an `ndim`-d array of
    `dtype`: a scalar, raising NumPy's ValueError for min/max/argmin/argmax of nothing. C-contiguous
    arrays (`contiguous`) are read as one flat run, which saves unravelling N-D indices."""
    complex_lowering.check_ordered(op, dtype)
    if np.dtype(dtype) == np.float16 and op in ("min", "max", "argmin", "argmax"):
        return half_extreme(op, ndim, contiguous)
    boolean = np.dtype(dtype) == np.bool_
    flat = contiguous and ndim > 1
    if op.startswith("arg"):
        return arg_reducer(op[3:], 1 if flat else ndim, boolean, flat)
    empty_message = EMPTY_MESSAGES.get(op)  # NumPy's error for min/max of nothing, booleans too
    op = BOOL_EXTREMES.get(op, op) if boolean else op
    if op in ("any", "all"):
        return anyall_reducer(op, 1 if flat else ndim, flat, empty_message)
    if op == "mean":
        return mean_reducer(result_dtype("mean", dtype).name, 1 if flat else ndim, flat)
    return whole_reducer(op, EMPTY_MESSAGES.get(op), flat, result_dtype(op, dtype).name)


@functools.cache
def half_extreme(op: str, ndim: int, contiguous: bool) -> JitFunction:
    """np.min / np.max / np.argmin / np.argmax of float16 data: Numba's own implementations do not
    compile for float16 (no float16 NaN test in host code), so the data is reduced as float32 (every
    half is a float32, so the extreme and its index are the same); min and max return float16."""
    inner = whole_function(op, ndim, np.dtype(np.float32), contiguous)._dispatcher
    back = unchanged if op.startswith("arg") else np.float16

    def reduce_half(a):
        return back(inner(a.astype(np.float32)))

    return jit(reduce_half)


@functools.cache
def whole_reducer(op: str, empty_message: str | None, flat: bool, out_dtype: str) -> JitFunction:
    """np.<op>(a) for sum, prod, min and max, which Numba's parfor pass turns into a device loop,
    as a scalar of NumPy's result dtype `out_dtype`: some Numba versions sum unsigned integers of
    less than 64 bits in int64, whose bits are those of the uint64 sum NumPy gives."""
    check, reduce = empty_check(empty_message), getattr(np, op)
    view = as_flat if flat else unchanged
    out_type = getattr(np, out_dtype)

    def reduce_all(a):
        check(a)
        return out_type(reduce(view(a)))

    return jit(reduce_all)


@functools.cache
def mean_reducer(out_dtype: str, ndim: int, flat: bool) -> JitFunction:
    """np.mean(a) of an `ndim`-d array: a device sum over the size, in NumPy's result type. As NumPy,
    integers are summed in float64 (an int64 sum would wrap), float32 in float32 and complex values in
    their own type; an empty array
    gives NaN (where Numba's own mean divides by zero)."""
    out_type = getattr(np, out_dtype)
    acc = out_type  # float32, float64 or a complex type: NumPy's result type
    view, rank = whole_view(ndim, flat)
    elem = element_reader(rank)

    def reduce_mean(a):
        if a.size == 0:
            return out_type(np.nan)
        x = view(a)
        s = acc(0)
        for t in prange(x.size):
            s += acc(elem(x, t))
        return out_type(s / a.size)

    return jit(reduce_mean)


@functools.cache
def anyall_reducer(op: str, ndim: int, flat: bool, empty_message: str | None = None) -> JitFunction:
    """np.any / np.all of an `ndim`-d array of any layout as one prange max / min reduction: Numba's
    parfor pass leaves np.any / np.all to host code, which must not read device memory. (Also
    min / max of booleans, which raise `empty_message` for an empty array.)"""
    check = empty_check(empty_message)
    start, fold = (0, max) if op == "any" else (1, min)
    view, rank = whole_view(ndim, flat)
    elem = element_reader(rank)

    def reduce_anyall(a):
        check(a)
        x = view(a)
        s = start
        for t in prange(x.size):
            s = fold(s, 1 if elem(x, t) != 0 else 0)
        return s > 0

    return jit(reduce_anyall)


@functools.cache
def arg_reducer(kind: str, ndim: int, boolean: bool, flat: bool) -> JitFunction:
    """np.arg<kind>(a) of an `ndim`-d array of any layout (`flat`: a C-contiguous one, reshaped to
    1-D): the flat C-order index of the first extreme element (or of the first NaN, as NumPy)."""
    message = EMPTY_MESSAGES["arg" + kind]
    extreme = getattr(np, BOOL_EXTREMES[kind] if boolean else kind)
    view, rank = whole_view(ndim, flat)
    elem = element_reader(rank)

    def arg_reduce(a):
        size = a.size
        if size == 0:
            raise ValueError(message)
        x = view(a)
        m = extreme(x)
        nan = m != m  # NumPy returns the first NaN
        best = size
        for t in prange(size):  # `t` is the flat C-order index of the element
            v = elem(x, t)
            hit = (v != v) if nan else (v == m)
            if hit:
                best = min(best, t)
        return best

    return jit(arg_reduce)


# -- reductions along an axis ----------------------------------------------------------------------
@functools.cache
def axis_reducer(op: str, ndim: int, out_dtype: str, usm_type: str) -> JitFunction:
    """`np.<op>(a, axis=axis)` for an `ndim`-d array (ndim >= 2) of any layout, as a numba_ext.jit
    function of (a, axis) with 0 <= axis < ndim a run-time value: a view with `axis` moved last
    (a transpose: no copy), then one work-item per output element and a sequential loop along it.
    One compilation per input type serves every axis."""
    complex_lowering.check_ordered(op, out_dtype)
    out_type, access = getattr(np, out_dtype), axis_access(ndim)
    if op in ("sum", "prod", "mean"):
        return jit(_axis_fold(op, out_type, usm_type, *access))
    if op in ("min", "max"):
        return jit(_axis_extreme(op, out_type, usm_type, *access))
    if op in ("argmin", "argmax"):
        return jit(_axis_arg(op, out_type, usm_type, *access))
    return jit(_axis_test(op, out_type, usm_type, *access))


def _axis_fold(op: str, out_type, usm_type: str, rows, outer, take):
    """sum, prod and mean along the axis: accumulated in the result type, as NumPy does."""
    combine, start = (mul, 1) if op == "prod" else (add, 0)
    finish = mean_of if op == "mean" else total

    def reduce_axis(a, axis):
        v = axis_last(a, axis)
        n = v.shape[-1]
        out = arrays.empty(v.shape[:-1], out_type, usm_type=usm_type)
        o = as_flat(out)
        x = rows(v, out.size)
        for t in prange(out.size):
            i = outer(x, t)
            s = out_type(start)
            for k in range(n):
                s = combine(s, take(x, i, k))
            o[t] = finish(s, n)
        return out

    return reduce_axis


def _axis_extreme(op: str, out_type, usm_type: str, rows, outer, take):
    """min and max along the axis (NaN propagates); an empty axis raises NumPy's ValueError."""
    message, better = EMPTY_MESSAGES[op], less if op == "min" else greater

    def reduce_axis(a, axis):
        v = axis_last(a, axis)
        n = v.shape[-1]
        if n == 0:
            raise ValueError(message)
        out = arrays.empty(v.shape[:-1], out_type, usm_type=usm_type)
        o = as_flat(out)
        x = rows(v, out.size)
        for t in prange(out.size):
            i = outer(x, t)
            s = take(x, i, 0)
            for k in range(1, n):
                e = take(x, i, k)
                if better(e, s) | (e != e):
                    s = e
            o[t] = s
        return out

    return reduce_axis


def _axis_arg(op: str, out_type, usm_type: str, rows, outer, take):
    """argmin and argmax along the axis: strict comparisons keep the first of equal values, and once
    the extreme is NaN it stays (the first NaN). An empty axis raises NumPy's ValueError."""
    message, better = EMPTY_MESSAGES[op], less if op == "argmin" else greater

    def reduce_axis(a, axis):
        v = axis_last(a, axis)
        n = v.shape[-1]
        if n == 0:
            raise ValueError(message)
        out = arrays.empty(v.shape[:-1], out_type, usm_type=usm_type)
        o = as_flat(out)
        x = rows(v, out.size)
        for t in prange(out.size):
            i = outer(x, t)
            s = take(x, i, 0)
            b = 0
            for k in range(1, n):
                e = take(x, i, k)
                if (better(e, s) | (e != e)) & (s == s):
                    s = e
                    b = k
            o[t] = b
        return out

    return reduce_axis


def _axis_test(op: str, out_type, usm_type: str, rows, outer, take):
    """any and all along the axis."""
    initial, test, found = (False, nonzero, True) if op == "any" else (True, is_zero, False)

    def reduce_axis(a, axis):
        v = axis_last(a, axis)
        n = v.shape[-1]
        out = arrays.empty(v.shape[:-1], out_type, usm_type=usm_type)
        o = as_flat(out)
        x = rows(v, out.size)
        for t in prange(out.size):
            i = outer(x, t)
            s = initial
            for k in range(n):
                if test(take(x, i, k)):
                    s = found
            o[t] = s
        return out

    return reduce_axis


# -- np.dot ----------------------------------------------------------------------------------------
@inline
def _shape_text(shape):
    """A shape as NumPy prints it: '(3,4)', '(5,)'."""
    text = "("
    for d in range(len(shape)):
        text += ("," if d else "") + str(shape[d])
    return text + ("," if len(shape) == 1 else "") + ")"


@functools.cache
def dot_function(ndim_a: int, ndim_b: int, out_dtype: str, usm_type: str) -> JitFunction:
    """`np.dot(a, b)` of 1-D/2-D arrays as a numba_ext.jit function. Vector . vector is a
    whole-array sum of the product; C-contiguous matrices of one real dtype with enough result
    columns take the eager products' tiles (``products_tiled.in_tiles``); otherwise one work-item
    per output element loops over the shared dimension. Products accumulate in the result type
    (integers wrap as in NumPy); booleans count, then test."""
    check_dot_ndims(ndim_a, ndim_b)
    boolean = out_dtype == "bool"
    out_type = getattr(np, out_dtype)
    check = _alignment_check(ndim_a - 1)
    if ndim_a == ndim_b == 1:
        return jit(_dot_vectors(check, nonzero if boolean else out_type))
    acc, finish = (np.int64, nonzero) if boolean else (out_type, unchanged)
    if ndim_b == 1:
        return jit(_dot_matrix_vector(check, acc, finish, out_type, usm_type))
    if ndim_a == 1:
        return jit(_dot_vector_matrix(check, acc, finish, out_type, usm_type))
    return jit(_dot_matrices(check, acc, finish, out_type, usm_type))


@functools.cache
def _alignment_check(k: int):
    """check(a, b): NumPy's ValueError where dimension `k` of `a` and dimension 0 of `b` differ."""
    not_aligned = f" (dim {k}) != "

    @inline
    def check(a, b):
        if a.shape[k] != b.shape[0]:
            raise ValueError(
                "shapes "
                + _shape_text(a.shape)
                + " and "
                + _shape_text(b.shape)
                + " not aligned: "
                + str(a.shape[k])
                + not_aligned
                + str(b.shape[0])
                + " (dim 0)"
            )

    return check


def _dot_vectors(check, result):
    """vector . vector: the whole-array sum of the product, as `result` (the result type, or a test
    for booleans)."""

    def dot(a, b):
        check(a, b)
        return result(np.sum(a * b))

    return dot


def _dot_matrix_vector(check, acc, finish, out_type, usm_type: str):
    def dot(a, b):
        check(a, b)
        out = arrays.empty((a.shape[0],), out_type, usm_type=usm_type)
        for i in prange(a.shape[0]):
            s = acc(0)
            for p in range(a.shape[1]):
                s += a[i, p] * b[p]
            out[i] = finish(s)
        return out

    return dot


def _dot_vector_matrix(check, acc, finish, out_type, usm_type: str):
    def dot(a, b):
        check(a, b)
        out = arrays.empty((b.shape[1],), out_type, usm_type=usm_type)
        for j in prange(b.shape[1]):
            s = acc(0)
            for p in range(a.shape[0]):
                s += a[p] * b[p, j]
            out[j] = finish(s)
        return out

    return dot


def _dot_matrices(check, acc, finish, out_type, usm_type: str):
    def dot(a, b):
        check(a, b)
        out = arrays.empty((a.shape[0], b.shape[1]), out_type, usm_type=usm_type)
        if in_tiles(a, b, out):  # C-contiguous matrices of one real dtype, as eager products
            return out
        n1 = b.shape[1]
        for t in prange(a.shape[0] * n1):
            i = t // n1
            j = t % n1
            s = acc(0)
            for p in range(a.shape[1]):
                s += a[i, p] * b[p, j]
            out[i, j] = finish(s)
        return out

    return dot
