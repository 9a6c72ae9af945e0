"""The parts the reduction and ``np.dot`` helpers (``reduction_helpers``) are built from: how their
``prange`` loops read arrays, and the scalar steps of those loops.

Kernels index an array with one explicit index per dimension, so element access is written once
per rank, for ranks 2 to ``MAX_RANK``: ``outer<r>`` unravels the C-order position of the first r - 1
dimensions with ``%`` and ``//`` (as the flat loops of the helpers run: one work-item per element, or
per output element), ``take<r>`` reads an element at those indices and at an index along the last
dimension. Each is a small function that Numba inlines where it is called (``inline``), so the
kernels see plain indexing. C-contiguous arrays are read as one flat run; arrays of ranks above
``MAX_RANK`` through a C-contiguous copy, read as a 1-D or 2-D view.

The scalar steps (``add``, ``less``, ``nonzero``, ``mean_of``, ...) are the pieces in which the loops
of one operation differ from another's; the helpers pick them per operation.

Owns: the per-rank access functions (``element_reader``), the views the helpers read through
(``whole_view``, ``as_flat``, ``axis_access``, ``axis_last``), the scalar steps, the empty-array
check (``empty_check``) and ``inline``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba.core import cgutils, types
from numba.core.imputils import impl_ret_borrowed
from numba.extending import intrinsic
from numba.np import arrayobj

#: decorator: Numba inlines the function into the code calling it, before its loops become kernels
inline = numba.njit(inline="always")


# -- element access, per rank ----------------------------------------------------------------------
# For a rank-r array `v`: outer<r>(v, s) is the tuple of the indices of its first r - 1 dimensions at
# their C-order position `s`, take<r>(v, i, k) its element at those indices `i` and at `k` in the last
# dimension.
@inline
def _outer2(v, s):
    return (s,)


@inline
def _outer3(v, s):
    n1 = v.shape[1]
    return (s // n1, s % n1)


@inline
def _outer4(v, s):
    n1 = v.shape[1]
    n2 = v.shape[2]
    q = s // n2
    return (q // n1, q % n1, s % n2)


@inline
def _take2(v, i, k):
    return v[i[0], k]


@inline
def _take3(v, i, k):
    return v[i[0], i[1], k]


@inline
def _take4(v, i, k):
    return v[i[0], i[1], i[2], k]


_RANKS = {2: (_outer2, _take2), 3: (_outer3, _take3), 4: (_outer4, _take4)}
#: the highest rank read in place (higher ranks are read through a C-contiguous copy)
MAX_RANK = max(_RANKS)


@inline
def _elem1(a, t):
    return a[t]


def element_reader(ndim: int) -> Callable[..., Any]:
    """elem(a, t): the element of the `ndim`-d array `a` (1 <= ndim <= MAX_RANK) at the flat
    C-order index `t`."""
    if ndim == 1:
        return _elem1
    outer, take = _RANKS[ndim]

    @inline
    def elem(a, t):
        n = a.shape[-1]
        return take(a, outer(a, t // n), t % n)

    return elem


# -- views ---------------------------------------------------------------------------------------------
@inline
def _as_is(a):
    return a


@intrinsic
def as_flat(typingctx, a):
    """A C-contiguous array as a 1-D view (no copy; built from the size, without the general
    reshape's checks and their compilation)."""
    if not isinstance(a, types.Array) or a.layout != "C":
        return None

    def codegen(context, builder, sig, args):
        aryty, ret_ty = sig.args[0], sig.return_type
        ary = arrayobj.make_array(aryty)(context, builder, args[0])
        size = context.get_constant(types.intp, 1)
        for d in cgutils.unpack_tuple(builder, ary.shape, aryty.ndim):
            size = builder.mul(size, d)
        out = arrayobj.make_array(ret_ty)(context, builder)
        arrayobj.populate_array(  # the module's (wrapped: views keep their queue)
            out,
            data=ary.data,
            shape=cgutils.pack_array(builder, [size]),
            strides=cgutils.pack_array(builder, [ary.itemsize]),
            itemsize=ary.itemsize,
            meminfo=ary.meminfo,
            parent=ary.parent,
        )
        return impl_ret_borrowed(context, builder, ret_ty, out._getvalue())

    return a.copy(ndim=1, layout="C")(a), codegen


@inline
def _contiguous_flat(a):
    c = np.ascontiguousarray(a)
    return c.reshape(c.size)


def whole_view(ndim: int, flat: bool) -> tuple[Callable[..., Any], int]:
    """How a reduction over all elements reads an `ndim`-d array: (view(a), the rank of the view).
    C-contiguous arrays (`flat`) and 0-d arrays as one flat run (a reshape, no copy), arrays of
    ranks above MAX_RANK as a flat C-contiguous copy, the others as they are."""
    if flat or ndim == 0:
        return as_flat, 1
    if ndim > MAX_RANK:
        return _contiguous_flat, 1
    return _as_is, ndim


@intrinsic
def axis_last(typingctx, a, axis):
    """A view of `a` with `axis` (0 <= axis < a.ndim) moved last; the other axes keep their order.
    (Built here from the shape and strides: Numba's ``transpose`` with a tuple compiles its general
    permutation check and error messages, seconds of compilation per reduction.)"""
    if not isinstance(a, types.Array) or not isinstance(axis, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        aryty, ret_ty = sig.args[0], sig.return_type
        ary = arrayobj.make_array(aryty)(context, builder, args[0])
        n = aryty.ndim
        ax = context.cast(builder, args[1], sig.args[1], types.intp)
        shape = cgutils.unpack_tuple(builder, ary.shape, n)
        strides = cgutils.unpack_tuple(builder, ary.strides, n)
        intp = context.get_value_type(types.intp)
        out_shape, out_strides = [], []
        for j in range(n - 1):  # position j takes axis j before `axis`, axis j + 1 from it on
            before = builder.icmp_signed("<", intp(j), ax)
            out_shape.append(builder.select(before, shape[j], shape[j + 1]))
            out_strides.append(builder.select(before, strides[j], strides[j + 1]))
        last_shape, last_stride = shape[0], strides[0]
        for j in range(1, n):
            at = builder.icmp_signed("==", intp(j), ax)
            last_shape = builder.select(at, shape[j], last_shape)
            last_stride = builder.select(at, strides[j], last_stride)
        out = arrayobj.make_array(ret_ty)(context, builder)
        arrayobj.populate_array(  # the module's (wrapped: views keep their queue)
            out,
            data=ary.data,
            shape=cgutils.pack_array(builder, [*out_shape, last_shape]),
            strides=cgutils.pack_array(builder, [*out_strides, last_stride]),
            itemsize=ary.itemsize,
            meminfo=ary.meminfo,
            parent=ary.parent,
        )
        return impl_ret_borrowed(context, builder, ret_ty, out._getvalue())

    return a.copy(layout="A")(a, axis), codegen


#: the views above and the argument each aliases (registered with Numba's alias analysis, so that
#: parfors writing through a view are not removed as dead code)
VIEWS = ((as_flat, 0), (axis_last, 0))


@inline
def _rows_as_is(v, rows):
    return v


@inline
def _contiguous_rows(v, rows):
    return np.ascontiguousarray(v).reshape((rows, v.shape[-1]))


def axis_access(ndim: int) -> tuple[Callable[..., Any], Callable[..., Any], Callable[..., Any]]:
    """How an axis reduction reads the view `v` of an `ndim`-d array (ndim >= 2) with the axis moved
    last: (rows(v, number of rows), outer, take), where rows gives the array that outer and take
    read: `v` itself, or for ranks above MAX_RANK a C-contiguous copy of it as a 2-D array."""
    if ndim > MAX_RANK:
        return (_contiguous_rows, *_RANKS[2])
    return (_rows_as_is, *_RANKS[ndim])


# -- the scalar steps of the loops -----------------------------------------------------------------
@inline
def add(s, x):
    return s + x


@inline
def mul(s, x):
    return s * x


@inline
def less(x, s):
    return x < s


@inline
def greater(x, s):
    return x > s


@inline
def nonzero(x):
    return x != 0


@inline
def is_zero(x):
    return x == 0


@inline
def unchanged(s):
    return s


@inline
def total(s, n):
    """The result of a sum or product of `n` terms: the accumulator."""
    return s


@inline
def mean_of(s, n):
    """The mean of `n` terms summing to `s` (NaN for none)."""
    return s / n if n != 0 else np.nan


@inline
def _no_check(a):
    pass


@functools.cache
def empty_check(message: str | None) -> Callable[..., Any]:
    """check(a): raises ValueError(`message`) for an array of no elements (no check without one)."""
    if message is None:
        return _no_check

    @inline
    def check(a):
        if a.size == 0:
            raise ValueError(message)

    return check
