"""``np.cumsum`` / ``np.cumprod`` of numba_ext arrays (flattened in C order, NumPy's result dtype), in
jitted code and eagerly: a blocked scan of three device loops on the array's queue.

1. one work-item per block computes its block's total (reading the input once, writing nothing);
2. one work-item turns the block totals into exclusive prefixes (there are at most ``BLOCKS``);
3. one work-item per block scans its block sequentially, starting from its prefix, into the result.

Three passes over memory (read, read, write), against NumPy's two.

The association order differs from NumPy's strictly sequential loop (floating-point results agree
within rounding). ``axis=``, ``dtype=`` and ``out=`` are not offloaded."""

from __future__ import annotations

import functools

import numpy as np
from numba import prange
from numba.extending import overload
from numba.np import numpy_support

from .. import arrays
from ..ir.scans import BLOCKS, scan_dtype
from .jit_function import jit
from .redirects import host_cumprod, host_cumsum, nx_cumprod, nx_cumsum
from .types import USMArrayType

_OPS = {"cumsum": ("+", 0), "cumprod": ("*", 1)}


@functools.cache
def scan_function(op: str, out_dtype: str, usm_type: str):
    """The numba_ext.jit function computing `np.<op>(a)` into a new 1-D array of `out_dtype` and
    `usm_type` on `a`'s queue."""
    out_t = np.dtype(out_dtype).type
    identity = out_t(_OPS[op][1])
    multiply = op == "cumprod"
    blocks = BLOCKS

    def scan(a):
        n = a.size
        v = np.ascontiguousarray(a).reshape(n)
        out = arrays.empty(n, out_t, usm_type=usm_type)
        if n == 0:
            return out
        chunk = (n + blocks - 1) // blocks
        nb = (n + chunk - 1) // chunk
        part = arrays.empty(nb, out_t, usm_type=usm_type)
        for b in prange(nb):  # phase 1: block totals
            lo = b * chunk
            hi = min(n, lo + chunk)
            s = identity
            for i in range(lo, hi):
                s = s * v[i] if multiply else s + v[i]
            part[b] = s
        for _ in prange(1):  # phase 2: exclusive prefixes of the blocks
            s = identity
            for b in range(nb):
                x = part[b]
                part[b] = s
                s = s * x if multiply else s + x
        for b in prange(nb):  # phase 3: each block from its prefix
            lo = b * chunk
            hi = min(n, lo + chunk)
            s = part[b]
            for i in range(lo, hi):
                s = s * v[i] if multiply else s + v[i]
                out[i] = s
        return out

    return jit(scan)


def _overload_scan(stub, op, numpy_impl):
    @overload(stub)
    def _ov(a):
        if isinstance(a, USMArrayType):
            dispatcher = scan_function(
                op, scan_dtype(op, numpy_support.as_dtype(a.dtype)).name, a.usm_type
            )._dispatcher
            if a.ndim == 0:
                return lambda a: dispatcher(a.reshape(1))
            return lambda a: dispatcher(a)
        return numpy_impl


_overload_scan(nx_cumsum, "cumsum", host_cumsum)
_overload_scan(nx_cumprod, "cumprod", host_cumprod)
