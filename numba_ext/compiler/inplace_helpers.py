"""The overloads of the in-place dispatch functions of ``inplace_broadcast``: for a numba_ext array
target, a ``numba_ext.jit`` helper per ufunc computing ``ufunc(d, x)`` as an array expression (one
kernel, broadcasting as NumPy does) and storing it into ``d`` in a second device loop."""

from __future__ import annotations

import functools

import numpy as np
from numba import prange
from numba.extending import overload

from .inplace_broadcast import DISPATCH, MAX_RANK
from .jit_function import JitFunction, jit
from .reduction_parts import inline
from .types import USMArrayType

SHAPE_MESSAGE = "non-broadcastable output operand: the broadcast shape differs from the array's shape"


# store<r>(d, s, x): write x into the rank-r array d at the C-order position s
@inline
def _store1(d, s, x):
    d[s] = x


@inline
def _store2(d, s, x):
    n1 = d.shape[1]
    d[s // n1, s % n1] = x


@inline
def _store3(d, s, x):
    n1 = d.shape[1]
    n2 = d.shape[2]
    q = s // n2
    d[q // n1, q % n1, s % n2] = x


@inline
def _store4(d, s, x):
    n1 = d.shape[1]
    n2 = d.shape[2]
    n3 = d.shape[3]
    q = s // n3
    r = q // n2
    d[r // n1, r % n1, q % n2, s % n3] = x


_STORES = {1: _store1, 2: _store2, 3: _store3, 4: _store4}
assert max(_STORES) == MAX_RANK


@functools.cache
def inplace_function(ufunc_name: str, ndim: int) -> JitFunction:
    """inplace(d, x) for an `ndim`-d d: d[...] = ufunc(d, x) on the device; returns d."""
    ufunc, store = getattr(np, ufunc_name), _STORES[ndim]

    def inplace(d, x):
        t = ufunc(d, x)
        if t.shape != d.shape:
            raise ValueError(SHAPE_MESSAGE)
        v = t.reshape(t.size)
        for i in prange(v.size):
            store(d, i, v[i])
        return d

    return jit(inplace)


def _overload(ufunc_name: str, dispatch):
    def ov(d, x):
        if not isinstance(d, USMArrayType):
            return None
        h = inplace_function(ufunc_name, d.ndim)._dispatcher
        return lambda d, x: h(d, x)

    overload(dispatch)(ov)


for _name, _dispatch in DISPATCH.items():
    _overload(_name, _dispatch)
