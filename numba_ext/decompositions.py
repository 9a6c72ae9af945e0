"""Matrix factorizations on the device, for stacks of square matrices: LU with partial pivoting
and Cholesky, and the triangular solves that use them. ``numba_ext.linalg`` builds ``det``,
``slogdet``, ``solve``, ``inv`` and ``cholesky`` on them.

Each factorization is one kernel launch for the whole stack: one work-group of
:data:`GROUP` work-items per matrix, which walks the columns in order (the unblocked right-looking
algorithm of LAPACK's ``getf2``/``potf2``) and shares each step between its work-items: the pivot
search is a reduction in local memory, the row swap, the column scaling and the rank-1 update of
the trailing matrix are split across the work-items, with a barrier between steps. The solves
give one work-item to each right-hand side column: the row swaps, then forward and back
substitution.

These are the classic algorithms, not blocked ones: their cost is that of ``n**3 / 3`` operations
per matrix spread over one work-group, which suits stacks of small and medium matrices; a large
single matrix keeps only one compute unit busy.

May import: ``numba_ext.kernels``, ``numba_ext.compiler`` (the kernel intrinsics) and the layers
below them.
"""

from __future__ import annotations

import threading
from typing import Any, NamedTuple

import numpy as np

from .arrays import asarray, empty, ndarray, zeros
from .compiler.intrinsics import (
    GLOBAL_MEM_FENCE,
    LOCAL_MEM_FENCE,
    barrier,
    get_global_id,
    get_group_id,
    get_local_id,
    local_array,
)
from .kernels import NdRange, Range, kernel

#: work-items per matrix in the factorization kernels (a power of two)
GROUP = 128
_HALF = GROUP // 2
_FENCES = GLOBAL_MEM_FENCE | LOCAL_MEM_FENCE


@kernel
def _lu_kernel(a, piv, info, n):
    """Factor each a[b] (n x n, in place) into P L U: L unit lower, U upper, piv[b, k] the row
    swapped with row k at step k; info[b] = 1 + the first zero pivot's step (0: none)."""
    b = get_group_id(0)
    t = get_local_id(0)
    best_val = local_array((GROUP,), np.float64)
    best_idx = local_array((GROUP,), np.int64)
    for k in range(n):
        bv = -1.0
        bi = k
        r = k + t
        while r < n:
            v = abs(a[b, r, k])
            if v > bv:
                bv = v
                bi = r
            r += GROUP
        best_val[t] = bv
        best_idx[t] = bi
        barrier(LOCAL_MEM_FENCE)
        s = np.int64(_HALF)  # a variable, not a literal, since it halves
        while s > 0:
            if t < s:
                ov = best_val[t + s]
                oi = best_idx[t + s]
                if ov > best_val[t] or (ov == best_val[t] and oi < best_idx[t]):
                    best_val[t] = ov
                    best_idx[t] = oi
            barrier(LOCAL_MEM_FENCE)
            s = s // 2
        p = best_idx[0]
        if t == 0:
            piv[b, k] = p
            if best_val[0] == 0.0 and info[b] == 0:
                info[b] = k + 1
        if p != k:
            c = t
            while c < n:
                tmp = a[b, k, c]
                a[b, k, c] = a[b, p, c]
                a[b, p, c] = tmp
                c += GROUP
        barrier(_FENCES)
        pivot = a[b, k, k]
        if pivot != 0.0:
            r = k + 1 + t
            while r < n:
                a[b, r, k] = a[b, r, k] / pivot
                r += GROUP
        barrier(_FENCES)
        m = n - k - 1
        idx = t
        while idx < m * m:
            r = k + 1 + idx // m
            c = k + 1 + idx % m
            a[b, r, c] = a[b, r, c] - a[b, r, k] * a[b, k, c]
            idx += GROUP
        barrier(_FENCES)


@kernel
def _cholesky_kernel(a, info, n):
    """Factor each symmetric a[b] into L L^T in place (the lower triangle; the upper one set to
    zero); info[b] = 1 + the first step whose pivot is not positive (0: none)."""
    b = get_group_id(0)
    t = get_local_id(0)
    for k in range(n):
        if t == 0:
            d = a[b, k, k]
            if not d > 0.0 and info[b] == 0:
                info[b] = k + 1
            a[b, k, k] = np.sqrt(d)
        barrier(_FENCES)
        d = a[b, k, k]
        r = k + 1 + t
        while r < n:
            a[b, r, k] = a[b, r, k] / d
            a[b, k, r] = 0.0
            r += GROUP
        barrier(_FENCES)
        m = n - k - 1
        idx = t
        while idx < m * m:
            r = k + 1 + idx // m
            c = k + 1 + idx % m
            if c <= r:
                a[b, r, c] = a[b, r, c] - a[b, r, k] * a[b, c, k]
            idx += GROUP
        barrier(_FENCES)


@kernel
def _lu_solve_kernel(lu, piv, x, n, nrhs):
    """x[b, :, j] = A[b]^-1 x[b, :, j] for A[b] = P L U given by (lu, piv), one work-item per
    (b, j)."""
    g = get_global_id(0)
    b = g // nrhs
    j = g % nrhs
    for k in range(n):
        p = piv[b, k]
        if p != k:
            tmp = x[b, k, j]
            x[b, k, j] = x[b, p, j]
            x[b, p, j] = tmp
    for r in range(1, n):
        s = x[b, r, j]
        for c in range(r):
            s -= lu[b, r, c] * x[b, c, j]
        x[b, r, j] = s
    for r in range(n - 1, -1, -1):
        s = x[b, r, j]
        for c in range(r + 1, n):
            s -= lu[b, r, c] * x[b, c, j]
        x[b, r, j] = s / lu[b, r, r]


class LU(NamedTuple):
    """A stack of LU factorizations: `lu` (batch, n, n), `piv` (batch, n) and `info` (batch,)."""

    lu: ndarray
    piv: ndarray
    info: ndarray


_launch_lock = threading.Lock()


def _stack(a: ndarray, dtype: np.dtype) -> ndarray:
    """A C-contiguous (batch, n, n) copy of the stack of matrices `a` in `dtype` (the working
    array the kernels factor in place)."""
    n = a.shape[-1]
    batch = int(np.prod(a.shape[:-2], dtype=np.int64))
    work = asarray(a, dtype=dtype, order="C", copy=True).reshape(batch, n, n)
    return work


def lu_factor(a: ndarray, dtype: np.dtype) -> LU:
    """The LU factorizations (with partial pivoting) of the stack `a` (..., n, n), in `dtype`."""
    work = _stack(a, dtype)
    batch, n = work.shape[0], work.shape[-1]
    q, usm = work.sycl_queue, work.usm_type
    piv = empty((batch, n), dtype=np.int64, sycl_queue=q, usm_type=usm)
    info = zeros((batch,), dtype=np.int64, sycl_queue=q, usm_type=usm)
    if batch and n:
        _lu_kernel[NdRange((batch * GROUP,), (GROUP,))](work, piv, info, n)
    return LU(work, piv, info)


def cholesky_factor(a: ndarray, dtype: np.dtype) -> tuple[ndarray, ndarray]:
    """The lower Cholesky factors of the stack `a` (..., n, n) in `dtype`, as (batch, n, n), and
    each matrix's info (0: positive definite)."""
    work = _stack(a, dtype)
    batch, n = work.shape[0], work.shape[-1]
    info = zeros((batch,), dtype=np.int64, sycl_queue=work.sycl_queue, usm_type=work.usm_type)
    if batch and n:
        _cholesky_kernel[NdRange((batch * GROUP,), (GROUP,))](work, info, n)
    return work, info


def lu_solve(f: LU, rhs: ndarray) -> ndarray:
    """A^-1 rhs for each factored A: `rhs` is (batch, n, nrhs); a new array of its shape."""
    x = asarray(rhs, dtype=f.lu.dtype, order="C", copy=True)
    batch, n, nrhs = x.shape
    if batch and n and nrhs:
        _lu_solve_kernel[Range(batch * nrhs)](f.lu, f.piv, x, n, nrhs)
    return x


def any_nonzero(info: ndarray) -> bool:
    """Whether any factorization reported a failure (one read of the device)."""
    flag: Any = np.any(info)
    return bool(flag)


__all__ = ["GROUP", "LU", "any_nonzero", "cholesky_factor", "lu_factor", "lu_solve"]
