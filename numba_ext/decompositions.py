"""Matrix factorizations on the device, for stacks of matrices: LU with partial pivoting and
Cholesky with the triangular solves that use them, Householder QR, the symmetric eigenproblem by
Householder tridiagonalization and the implicit QL method (or, for stacks of small matrices on
GPUs, the cyclic Jacobi method) and singular values by Householder bidiagonalization and the
implicit QR method (or, for stacks of small matrices on GPUs, the one-sided Jacobi method).
``numba_ext.linalg`` builds its solvers and decompositions on them.

Each factorization is one kernel launch for the whole stack: one work-group of
:data:`GROUP` work-items per matrix, which walks the columns in order (the unblocked right-looking
algorithm of LAPACK's ``getf2``/``potf2``) and shares each step between its work-items: the pivot
search is a reduction in local memory, the row swap, the column scaling and the rank-1 update of
the trailing matrix are split across the work-items, with a barrier between steps. The solves
give one work-item to each right-hand side column: the row swaps, then forward and back
substitution. The Jacobi methods rotate n // 2 disjoint index pairs at once per round (a
round-robin schedule), sweep until no rotation is needed (or :data:`MAX_SWEEPS`), and check that
within the work-group.

These are the classic algorithms, not blocked ones: their cost is that of ``n**3 / 3`` operations
per matrix spread over one work-group, which suits stacks of small and medium matrices; a large
single matrix keeps only one compute unit busy. On GPUs, LU of fewer matrices than half the
compute units (of order 128 or more) takes two launches per column instead: the pivot step by one
work-group per matrix, then the rank-1 update by one work-item per trailing element, so the whole
device works on the update. On CPU devices LU, Cholesky, QR, the tridiagonal eigensolver and the
bidiagonal SVD give each matrix one work-item (barriers cost more there than the steps they
separate: 28x faster for one 256x256 LU). On GPUs, matrices of order 32 or more are reduced to
tridiagonal (eigh) or bidiagonal (svd) form by a few launches per column; the QL or QR method
then runs on a work-item per matrix, which logs its rotations, and work-groups apply them to the
columns of the vectors. The Jacobi methods' pairs of a round, their cosines and sines live in
global scratch arrays of the stack's size, so no order is limited by local memory.

May import: ``numba_ext.kernels``, ``numba_ext.compiler`` (the kernel intrinsics) and the layers
below them.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from .arrays import asarray, asnumpy, empty, ndarray, zeros
from .compiler.intrinsics import (
    GLOBAL_MEM_FENCE,
    LOCAL_MEM_FENCE,
    barrier,
    get_global_id,
    get_group_id,
    get_local_id,
    local_array,
)
from .kernels import NdRange, Range, func, kernel

#: work-items per matrix in the factorization kernels (a power of two)
GROUP = 128
_HALF = GROUP // 2
_TWO_GROUPS = 2 * GROUP  # local arrays' sizes must be constants
_FENCES = GLOBAL_MEM_FENCE | LOCAL_MEM_FENCE
#: the order from which LU factors fewer matrices than half the device's compute units by two
#: launches per column (the whole device busy) rather than one work-group per matrix
STEPPED_N = 128
_UPDATE_GROUP = 256  # work-items per work-group of those updates
#: the device types that factor that way, and those that factor each matrix by one work-item
STEPPED_DEVICES: tuple[str, ...] = ("gpu",)
SERIAL_DEVICES: tuple[str, ...] = ("cpu",)


@func
def _abs2(x):
    """|x|^2 in float64 (a float32 or complex64 value's square can overflow its own type where
    LAPACK's scaled norms do not)."""
    re = x.real * 1.0
    im = x.imag * 1.0
    return re * re + im * im


@func
def _reflector_beta(alpha, below):
    """``zlarfg``'s beta: -sign(Re alpha) sqrt(|alpha|^2 + below) (below: the rest's sum of
    squares), with |alpha| for the root where the squares underflow to 0 (a tiny complex alpha:
    a phase to remove; the rest, below 1e-154, is then negligible beside the matrix, which the
    drivers scale to a norm of at least 1e-100)."""
    norm = np.sqrt(_abs2(alpha) + below)
    if norm == 0.0:
        norm = math.hypot(alpha.real, alpha.imag)
    if alpha.real >= 0.0:
        norm = -norm
    return norm


@func
def _pythag(f, g):
    """sqrt(f^2 + g^2) of two reals by the plain formula where its squares stay in range (a
    dependent chain of these is the serial part of the rotation methods: ``hypot``'s scaling
    costs more on GPUs), else by ``math.hypot``."""
    r = math.sqrt(f * f + g * g)
    if not (1e-150 <= r <= 1e150):
        r = math.hypot(f, g)
    return r


@func
def _group_sum(values, t):
    """values[0] = the sum of values[:GROUP], each written by its work-item t (a tree in local
    memory; every work-item of the group calls it)."""
    barrier(LOCAL_MEM_FENCE)
    s2 = np.int64(_HALF)  # a variable, not a literal, since it halves
    while s2 > 0:
        if t < s2:
            values[t] = values[t] + values[t + s2]
        barrier(LOCAL_MEM_FENCE)
        s2 = s2 // 2


@func
def _lu_pivot(a, piv, info, n, k, b, t, best_val, best_idx):
    """Step k of matrix b's factorization by its work-group (work-item t), up to the update: the
    pivot search in column k (a reduction in local memory), the row swap and the column's
    scaling."""
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


@kernel
def _lu_kernel(a, piv, info, n):
    """Factor each a[b] (n x n, in place) into P L U: L unit lower, U upper, piv[b, k] the row
    swapped with row k at step k; info[b] = 1 + the first zero pivot's step (0: none)."""
    b = get_group_id(0)
    t = get_local_id(0)
    best_val = local_array((GROUP,), np.float64)
    best_idx = local_array((GROUP,), np.int64)
    for k in range(n):
        _lu_pivot(a, piv, info, n, k, b, t, best_val, best_idx)
        m = n - k - 1
        idx = t
        while idx < m * m:
            r = k + 1 + idx // m
            c = k + 1 + idx % m
            a[b, r, c] = a[b, r, c] - a[b, r, k] * a[b, k, c]
            idx += GROUP
        barrier(_FENCES)


@kernel
def _lu_serial_kernel(a, piv, info, n):
    """As :func:`_lu_kernel`, one work-item per matrix (CPU devices, where a work-group's barriers
    cost more than the steps they separate): the row update runs along contiguous rows."""
    b = get_global_id(0)
    for k in range(n):
        p = k
        best = abs(a[b, k, k])
        for r in range(k + 1, n):
            v = abs(a[b, r, k])
            if v > best:
                best = v
                p = r
        piv[b, k] = p
        if best == 0.0 and info[b] == 0:
            info[b] = k + 1
        if p != k:
            for c in range(n):
                tmp = a[b, k, c]
                a[b, k, c] = a[b, p, c]
                a[b, p, c] = tmp
        pivot = a[b, k, k]
        if pivot != 0.0:
            for r in range(k + 1, n):
                f = a[b, r, k] / pivot
                a[b, r, k] = f
                for c in range(k + 1, n):
                    a[b, r, c] = a[b, r, c] - f * a[b, k, c]


@kernel
def _lu_pivot_kernel(a, piv, info, n, k):
    """Step k of each a[b]'s factorization up to the update (``_lu_pivot``), one work-group per
    matrix: with :func:`_lu_update_kernel`, the factorization of a few large matrices by two
    launches per column, the update spread over the whole device."""
    best_val = local_array((GROUP,), np.float64)
    best_idx = local_array((GROUP,), np.int64)
    _lu_pivot(a, piv, info, n, k, get_group_id(0), get_local_id(0), best_val, best_idx)


@kernel
def _lu_update_kernel(a, n, k, total):
    """The rank-1 update of step k of each a[b]'s factorization: one work-item per element of the
    trailing (n - k - 1)^2 matrices (`total` of them; the launch is padded to whole work-groups),
    consecutive work-items along a row, so their accesses coalesce."""
    g = get_global_id(0)
    if g < total:
        m = n - k - 1
        b = g // (m * m)
        e = g - b * (m * m)
        i = e // m
        r = k + 1 + i
        c = k + 1 + e - i * m
        a[b, r, c] = a[b, r, c] - a[b, r, k] * a[b, k, c]


@kernel
def _cholesky_kernel(a, info, n):
    """Factor each symmetric or Hermitian a[b] into L L^H in place (the lower triangle; the upper
    one set to zero); info[b] = 1 + the first step whose pivot is not positive (0: none). One
    kernel for real and complex stacks: ``.real`` and ``.conjugate()`` of a real value are the
    value."""
    b = get_group_id(0)
    t = get_local_id(0)
    for k in range(n):
        if t == 0:
            d = a[b, k, k].real
            if not d > 0.0 and info[b] == 0:
                info[b] = k + 1
            a[b, k, k] = np.sqrt(d)
        barrier(_FENCES)
        d = a[b, k, k].real
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
                a[b, r, c] = a[b, r, c] - a[b, r, k] * a[b, c, k].conjugate()
            idx += GROUP
        barrier(_FENCES)


@kernel
def _cholesky_serial_kernel(a, info, n):
    """As :func:`_cholesky_kernel`, one work-item per matrix (CPU devices, as for LU)."""
    b = get_global_id(0)
    for k in range(n):
        d = a[b, k, k].real
        if not d > 0.0 and info[b] == 0:
            info[b] = k + 1
        a[b, k, k] = np.sqrt(d)
        d = a[b, k, k].real
        for r in range(k + 1, n):
            a[b, r, k] = a[b, r, k] / d
            a[b, k, r] = 0.0
        for r in range(k + 1, n):
            f = a[b, r, k]
            for c in range(k + 1, r + 1):
                a[b, r, c] = a[b, r, c] - f * a[b, c, k].conjugate()


@func
def _row_swaps(piv, x, n, b, j):
    """The row swaps of matrix b's factorization applied to column j of x, in order."""
    for k in range(n):
        p = piv[b, k]
        if p != k:
            tmp = x[b, k, j]
            x[b, k, j] = x[b, p, j]
            x[b, p, j] = tmp


@kernel
def _lu_solve_kernel(lu, piv, x, n, nrhs):
    """x[b, :, j] = A[b]^-1 x[b, :, j] for A[b] = P L U given by (lu, piv), one work-item per
    (b, j)."""
    g = get_global_id(0)
    b = g // nrhs
    j = g % nrhs
    _row_swaps(piv, x, n, b, j)
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


@kernel
def _lu_solve_group_kernel(lu, piv, x, n, nrhs):
    """As :func:`_lu_solve_kernel`, one work-group per (b, j): the substitutions by columns, each
    known unknown taken out of the rows after (before) it by the whole work-group at once."""
    g = get_group_id(0)
    b = g // nrhs
    j = g % nrhs
    t = get_local_id(0)
    if t == 0:
        _row_swaps(piv, x, n, b, j)
    barrier(GLOBAL_MEM_FENCE)
    for c in range(n - 1):
        known = x[b, c, j]
        r = c + 1 + t
        while r < n:
            x[b, r, j] -= lu[b, r, c] * known
            r += GROUP
        barrier(GLOBAL_MEM_FENCE)
    for c in range(n - 1, -1, -1):
        if t == 0:
            x[b, c, j] = x[b, c, j] / lu[b, c, c]
        barrier(GLOBAL_MEM_FENCE)
        known = x[b, c, j]
        r = t
        while r < c:
            x[b, r, j] -= lu[b, r, c] * known
            r += GROUP
        barrier(GLOBAL_MEM_FENCE)


class LU(NamedTuple):
    """A stack of LU factorizations: `lu` (batch, n, n), `piv` (batch, n) and `info` (batch,)."""

    lu: ndarray
    piv: ndarray
    info: ndarray


def _stack(a: ndarray, dtype: np.dtype) -> ndarray:
    """A C-contiguous (batch, m, n) copy of the stack of matrices `a` in `dtype` (the working
    array the kernels factor in place)."""
    m, n = a.shape[-2:]
    batch = int(np.prod(a.shape[:-2], dtype=np.int64))
    work = asarray(a, dtype=dtype, order="C", copy=True).reshape(batch, m, n)
    return work


def _lu_form(device: Any, batch: int, n: int) -> str:
    """How LU factors `batch` matrices of order `n` on `device`, and how the solves go: "serial"
    on CPU devices (a work-item per matrix, a work-item per right-hand side; a work-group's
    barriers cost more there than the steps they separate), "stepped" on GPUs for fewer matrices
    than half the compute units of order :data:`STEPPED_N` or more (two launches per column, a
    work-group per right-hand side: one work-group per matrix would leave most of the device
    idle), else "group" (a work-group per matrix, a work-item per right-hand side)."""
    return _device_form(device, batch, n, STEPPED_N)


def _device_form(device: Any, batch: int, n: int, stepped_from: int) -> str:
    """The form of a factorization of `batch` matrices of order `n` on `device`: "serial" on CPU
    devices, "stepped" on GPUs for fewer matrices than half the compute units of order
    `stepped_from` or more, else "group"."""
    kind = str(device.device_type)
    if kind in SERIAL_DEVICES:
        return "serial"
    if kind in STEPPED_DEVICES and n >= stepped_from and 2 * batch < device.max_compute_units:
        return "stepped"
    return "group"


def lu_factor(a: ndarray, dtype: np.dtype) -> LU:
    """The LU factorizations (with partial pivoting) of the stack `a` (..., n, n), in `dtype`."""
    work = _stack(a, dtype)
    batch, n = work.shape[0], work.shape[-1]
    q, usm = work.sycl_queue, work.usm_type
    piv = empty((batch, n), dtype=np.int64, sycl_queue=q, usm_type=usm)
    info = zeros((batch,), dtype=np.int64, sycl_queue=q, usm_type=usm)
    form = _lu_form(q.device, batch, n) if batch and n else "none"
    if form == "serial":
        _lu_serial_kernel[Range(batch)](work, piv, info, n)
    elif form == "stepped":
        for k in range(n):  # a few large matrices: two launches per column (see _lu_pivot_kernel)
            _lu_pivot_kernel[NdRange((batch * GROUP,), (GROUP,))](work, piv, info, n, k)
            total = batch * (n - k - 1) ** 2
            if total:
                padded = -(-total // _UPDATE_GROUP) * _UPDATE_GROUP
                _lu_update_kernel[NdRange((padded,), (_UPDATE_GROUP,))](work, n, k, total)
    elif form == "group":
        _lu_kernel[NdRange((batch * GROUP,), (GROUP,))](work, piv, info, n)
    return LU(work, piv, info)


def cholesky_factor(a: ndarray, dtype: np.dtype) -> tuple[ndarray, ndarray]:
    """The lower Cholesky factors of the stack `a` (..., n, n) in `dtype` (real or complex:
    ``L L^H``), as (batch, n, n), and each matrix's info (0: positive definite)."""
    work = _stack(a, dtype)
    batch, n = work.shape[0], work.shape[-1]
    info = zeros((batch,), dtype=np.int64, sycl_queue=work.sycl_queue, usm_type=work.usm_type)
    if batch and n and _lu_form(work.sycl_queue.device, batch, n) == "serial":
        _cholesky_serial_kernel[Range(batch)](work, info, n)
    elif batch and n:
        _cholesky_kernel[NdRange((batch * GROUP,), (GROUP,))](work, info, n)
    return work, info


def lu_solve(f: LU, rhs: ndarray) -> ndarray:
    """A^-1 rhs for each factored A: `rhs` is (batch, n, nrhs); a new array of its shape."""
    x = asarray(rhs, dtype=f.lu.dtype, order="C", copy=True)
    batch, n, nrhs = x.shape
    if batch and n and nrhs and _lu_form(x.sycl_queue.device, 0, n) == "stepped":  # a work-group per column
        _lu_solve_group_kernel[NdRange((batch * nrhs * GROUP,), (GROUP,))](f.lu, f.piv, x, n, nrhs)
    elif batch and n and nrhs:
        _lu_solve_kernel[Range(batch * nrhs)](f.lu, f.piv, x, n, nrhs)
    return x


def any_nonzero(info: ndarray) -> bool:
    """Whether any factorization reported a failure (one read of the device)."""
    flag: Any = np.any(info)
    return bool(flag)


# -- symmetric eigenvalues: parallel cyclic Jacobi ------------------------------------------------
#: sweeps the Jacobi kernels make at most (each sweep pairs every two indices once; ten suffice
#: in double precision for matrices of a few thousand rows, quadratic convergence)
MAX_SWEEPS = 30
#: the order from which GPUs find singular values by bidiagonalization, launches per column,
#: rather than by one-sided Jacobi rotations in a work-group per matrix
SVD_STEPPED_N = 32


def _svd_form(device: Any, batch: int, n: int) -> str:
    """How the singular values of `batch` matrices of `n` columns are found on `device`: by
    bidiagonalization and the QR method, a work-item per matrix on CPU devices ("serial": a
    work-group's barriers, or a launch per step, cost more there than the steps they separate)
    and by launches per column on GPUs for :data:`SVD_STEPPED_N` columns or more ("stepped");
    else by one-sided Jacobi rotations, a work-group per matrix ("group": for stacks of small
    matrices on a GPU, a launch per step would cost more than the steps)."""
    kind = str(device.device_type)
    if kind in SERIAL_DEVICES:
        return "serial"
    if kind in STEPPED_DEVICES and n >= SVD_STEPPED_N:
        return "stepped"
    return "group"


@func
def _round_pair(pq, b, r, i, players):
    """pq[b, 2i], pq[b, 2i + 1] = the pair (p, q), p < q, that pair slot i rotates in round r of
    the round-robin schedule over `players` indices (index `players - 1` is a dummy where n is
    odd)."""
    k1 = players - 1 - i
    p = 0 if i == 0 else (r + i - 1) % (players - 1) + 1
    q = 0 if k1 == 0 else (r + k1 - 1) % (players - 1) + 1
    pq[b, 2 * i] = min(p, q)
    pq[b, 2 * i + 1] = max(p, q)


@func
def _eigh_rotation(a, b, p, q, n, cs, se, i):
    """cs[b, i], se[b, i] = c, s e of the Jacobi rotation that zeroes a[b, p, q] (the identity
    where q is the dummy index or a[b, p, q] is 0); e is its phase, real or complex as the
    matrix."""
    cth = 1.0
    sth = a[b, 0, 0] * 0.0
    if q < n:
        apq = a[b, p, q]
        g = abs(apq)
        if g != 0.0:
            theta = (a[b, q, q].real - a[b, p, p].real) / (2.0 * g)
            tt = 1.0 / (abs(theta) + np.sqrt(theta * theta + 1.0))
            if theta < 0.0:
                tt = -tt
            cth = 1.0 / np.sqrt(tt * tt + 1.0)
            sth = (tt * cth) * (apq / g)
    cs[b, i] = cth
    se[b, i] = sth


@func
def _svd_parameters(alpha, beta, gamma, tol, cs, se, b, i):
    """cs[b, i], se[b, i] = c, s e of the one-sided Jacobi rotation of two columns whose squared
    norms are alpha and beta and inner product gamma (the identity where they are orthogonal to
    within `tol`); whether it is not the identity."""
    g = abs(gamma)
    if g > tol * np.sqrt(alpha) * np.sqrt(beta):  # their product would overflow past 1e154
        zeta = (beta - alpha) / (2.0 * g)
        tt = 1.0 / (abs(zeta) + np.sqrt(1.0 + zeta * zeta))
        if zeta < 0.0:
            tt = -tt
        cth = 1.0 / np.sqrt(1.0 + tt * tt)
        cs[b, i] = cth
        se[b, i] = (cth * tt) * (gamma / g)
        return True
    cs[b, i] = 1.0
    se[b, i] = 0.0
    return False


@func
def _svd_rotation(a, b, p, q, m, n, tol, cs, se, i):
    """cs[b, i], se[b, i] = c, s e of the one-sided Jacobi rotation that makes columns p and q
    of a[b] orthogonal (the identity where they are to within `tol` or q is the dummy); whether
    it is not the identity."""
    if q >= n:
        cs[b, i] = 1.0
        se[b, i] = 0.0
        return False
    alpha = 0.0
    beta = 0.0
    gamma = (a[b, 0, p] * 1.0).conjugate() * (a[b, 0, q] * 1.0)  # in double precision
    for k in range(m):
        x = a[b, k, p] * 1.0
        y = a[b, k, q] * 1.0
        alpha += _abs2(x)
        beta += _abs2(y)
        if k > 0:
            gamma += x.conjugate() * y
    return _svd_parameters(alpha, beta, gamma, tol, cs, se, b, i)


@func
def _rotate_columns(x, b, k, p, q, cth, sth):
    """Columns p and q of row k of x[b] times the rotation ``[[c, s e], [-s conj(e), c]]``."""
    xp = x[b, k, p]
    xq = x[b, k, q]
    x[b, k, p] = cth * xp - sth.conjugate() * xq
    x[b, k, q] = sth * xp + cth * xq


@func
def _hermitian_start(a, v, b, idx, n):
    """Element idx of a[b]'s and v[b]'s set-up: v = I; a's upper triangle mirrors its lower one
    (LAPACK reads the lower), its diagonal made real."""
    row = idx // n
    col = idx % n
    v[b, row, col] = 1.0 if row == col else 0.0
    if row < col:
        a[b, row, col] = a[b, col, row].conjugate()
    elif row == col:
        a[b, row, col] = a[b, row, col].real


@kernel
def _jacobi_eigh_kernel(a, v, pq, cs, se, n, tol):
    """Diagonalize each symmetric or Hermitian a[b] in place by Jacobi rotations (a[b] -> V^H
    a[b] V), one work-group per matrix; v[b] ends holding the eigenvectors as columns. Each round
    rotates n // 2 disjoint pairs of indices at once (a round-robin schedule over n + n % 2
    indices), the pairs in pq[b], their c in cs[b] and s e in se[b] (e the phase of a[b, p, q]:
    its sign for real matrices, so one kernel serves both)."""
    b = get_group_id(0)
    t = get_local_id(0)
    partial = local_array((GROUP,), np.float64)
    whole = local_array((GROUP,), np.float64)
    idx = t
    while idx < n * n:
        _hermitian_start(a, v, b, idx, n)
        idx += GROUP
    barrier(_FENCES)
    players = n + n % 2
    half = players // 2
    sweep = 0
    converged = False
    while sweep < MAX_SWEEPS and not converged:
        for r in range(players - 1):
            i = t
            while i < half:
                _round_pair(pq, b, r, i, players)
                _eigh_rotation(a, b, pq[b, 2 * i], pq[b, 2 * i + 1], n, cs, se, i)
                i += GROUP
            barrier(_FENCES)
            idx = t  # columns: a <- a J, v <- v J
            while idx < half * n:
                i = idx // n
                q = pq[b, 2 * i + 1]
                if q < n:
                    _rotate_columns(a, b, idx % n, pq[b, 2 * i], q, cs[b, i], se[b, i])
                    _rotate_columns(v, b, idx % n, pq[b, 2 * i], q, cs[b, i], se[b, i])
                idx += GROUP
            barrier(_FENCES)
            idx = t  # rows: a <- J^H a
            while idx < half * n:
                i = idx // n
                k = idx % n
                q = pq[b, 2 * i + 1]
                if q < n:
                    p = pq[b, 2 * i]
                    cth = cs[b, i]
                    sth = se[b, i]
                    apk = a[b, p, k]
                    aqk = a[b, q, k]
                    a[b, p, k] = cth * apk - sth * aqk
                    a[b, q, k] = sth.conjugate() * apk + cth * aqk
                idx += GROUP
            barrier(_FENCES)
        # convergence: the off-diagonal sum of squares against the whole matrix's
        off = 0.0
        total = 0.0
        idx = t
        while idx < n * n:
            x = a[b, idx // n, idx % n]
            x2 = _abs2(x)
            total += x2
            if idx // n != idx % n:
                off += x2
            idx += GROUP
        partial[t] = off
        whole[t] = total
        barrier(LOCAL_MEM_FENCE)
        s2 = np.int64(_HALF)
        while s2 > 0:
            if t < s2:
                partial[t] = partial[t] + partial[t + s2]
                whole[t] = whole[t] + whole[t + s2]
            barrier(LOCAL_MEM_FENCE)
            s2 = s2 // 2
        converged = not partial[0] > tol * tol * whole[0]
        barrier(LOCAL_MEM_FENCE)
        sweep += 1


def eigh_jacobi(a: ndarray, dtype: np.dtype) -> tuple[ndarray, ndarray]:
    """Eigenvalues (batch, n; real), unsorted, and eigenvectors (batch, n, n; columns) of the
    symmetric or Hermitian stack `a` (..., n, n) in `dtype` by Jacobi rotations, a work-group per
    matrix (the lower triangle is mirrored, conjugated, to the upper first and the diagonal's
    imaginary part dropped, as LAPACK reads only one triangle)."""
    work = _stack(a, dtype)
    batch, n = work.shape[0], work.shape[-1]
    placed = {"sycl_queue": work.sycl_queue, "usm_type": work.usm_type}
    v = empty((batch, n, n), dtype=dtype, **placed)
    tol = float(np.finfo(dtype).eps)
    half = (n + 1) // 2
    pq = empty((batch, 2 * half), dtype=np.int64, **placed)
    cs = empty((batch, half), dtype=np.float64, **placed)
    se = empty((batch, half), dtype=dtype, **placed)
    if batch and n:
        _jacobi_eigh_kernel[NdRange((batch * GROUP,), (GROUP,))](work, v, pq, cs, se, n, tol)
    diagonal: Any = np.diagonal
    values: ndarray = diagonal(work, 0, -2, -1).real.copy()
    return values, v


# -- symmetric eigenvalues: Householder tridiagonalization and implicit QL ------------------------
#: iterations of the QL method per eigenvalue at most (LAPACK's ``steqr`` allows 30; two or three
#: are the rule with Wilkinson's shift)
MAX_QL_ITERATIONS = 30
#: sweeps of the QL method whose rotations the stepped form logs before applying them (None: the
#: matrices' order; a sweep rotates n - 1 times at most, and two or three sweeps per eigenvalue
#: are the rule, so a few passes do)
QL_LOG_SWEEPS: int | None = None
#: the order from which GPUs solve eigenproblems by tridiagonalization, a few launches per
#: column, rather than by Jacobi rotations in a work-group per matrix
EIGH_STEPPED_N = 32


@func
def _tridiagonal_reduce(a, tau, u, w, d, e, b, n):
    """Reduce the Hermitian a[b] (both triangles set) to real symmetric tridiagonal form T = Q^H
    a[b] Q, as LAPACK's ``sytd2`` / ``hetd2`` with the lower triangle: d[b] and e[b] get T's
    diagonal and subdiagonal, Q = H_0 ... H_{n-2} with ``H_j = I - tau[b, j] v v^H`` acting on
    indices j + 1 onwards (v's first element 1, the rest in a[b, j + 2:, j]); ``zlarfg``'s
    reflectors, so the subdiagonal is real. u[b] (v, contiguous) and w[b] are scratch."""
    for j in range(n - 1):
        below = 0.0
        for r in range(j + 2, n):
            x = a[b, r, j]
            below += _abs2(x)
        alpha = a[b, j + 1, j]
        if below == 0.0 and alpha.imag == 0.0:
            tau[b, j] = 0.0
            e[b, j] = alpha.real
        else:
            beta = _reflector_beta(alpha, below)
            tj = (beta - alpha) / beta
            tau[b, j] = tj
            scale = 1.0 / (alpha - beta)
            u[b, j + 1] = 1.0
            for r in range(j + 2, n):
                vr = a[b, r, j] * scale
                a[b, r, j] = vr
                u[b, r] = vr
            e[b, j] = beta
            # y = tau A v, then w = y - tau (y^H v) v / 2, then A -= v w^H + w v^H
            for r in range(j + 1, n):
                acc = a[b, r, j + 1]
                for c in range(j + 2, n):
                    acc += a[b, r, c] * u[b, c]
                w[b, r] = tj * acc
            dot = w[b, j + 1].conjugate()
            for r in range(j + 2, n):
                dot += w[b, r].conjugate() * u[b, r]
            half = -0.5 * tj * dot
            for r in range(j + 1, n):
                w[b, r] = w[b, r] + half * u[b, r]
            for r in range(j + 1, n):
                vr = u[b, r]
                wr = w[b, r]
                for c in range(j + 1, n):
                    a[b, r, c] = a[b, r, c] - vr * w[b, c].conjugate() - wr * u[b, c].conjugate()
        d[b, j] = a[b, j, j].real
    d[b, n - 1] = a[b, n - 1, n - 1].real
    e[b, n - 1] = 0.0


@func
def _tridiagonal_q(a, tau, zt, b, n):
    """zt[b] = Q^T (rows: Q's columns) from the reflectors :func:`_tridiagonal_reduce` left,
    accumulated backwards (LAPACK's ``orgtr``)."""
    for r in range(n):
        for c in range(n):
            zt[b, r, c] = 1.0 if r == c else 0.0
    for jj in range(n - 1):
        j = n - 2 - jj
        tj = tau[b, j]
        for c in range(j + 1, n):  # Q's column c: q_c -= tau v (v^H q_c)
            acc = zt[b, c, j + 1]
            for r in range(j + 2, n):
                acc += a[b, r, j].conjugate() * zt[b, c, r]
            f = tj * acc
            zt[b, c, j + 1] = zt[b, c, j + 1] - f
            for r in range(j + 2, n):
                zt[b, c, r] = zt[b, c, r] - f * a[b, r, j]


@func
def _rotate_rows(zt, b, i, k, c, s):
    """Rows i and i + 1 of zt[b] at column k times the plane rotation (c, s) of the QL method."""
    zi = zt[b, i, k]
    zn = zt[b, i + 1, k]
    zt[b, i + 1, k] = s * zi + c * zn
    zt[b, i, k] = c * zi - s * zn


@func
def _ql_implicit(d, e, db, zt, b, n, mode, eps, limit, state, log_i, log_cs, cap):
    """The eigenvalues of the symmetric tridiagonal matrix of diagonal d[db] and subdiagonal
    e[db] into d[db] by the QL method with implicit Wilkinson shifts (LAPACK's ``steqr``,
    EISPACK's ``tql2``; d and e are the stack's arrays, db = b, or a local copy). The rotations
    are dropped (`mode` 0), applied to the rows of zt[b] (1) or logged (2) by
    :func:`_log_rotation` into log_i and log_cs, for at most `cap` of them; the method then
    stops before a sweep that would pass that and goes on from there in the next call (state[b]
    = (the eigenvalue it is at, its iterations, rotations logged); state[b, 0] == n when done).
    Whether every eigenvalue converged within `limit` iterations (:data:`MAX_QL_ITERATIONS`)."""
    ok = True
    l0 = state[b, 0]
    count = 0
    norm = 0.0  # a subdiagonal entry within eps of the matrix's norm is negligible too (EISPACK's
    for i in range(n):  # test: a cluster of zero eigenvalues leaves entries of rounding size)
        norm = max(norm, abs(d[db, i]) + abs(e[db, i]))
    for lo in range(l0, n):
        it = state[b, 1] if lo == l0 else 0
        while True:
            m = lo
            while m < n - 1:
                em = abs(e[db, m])
                if em <= eps * (abs(d[db, m]) + abs(d[db, m + 1])) or em <= eps * norm:
                    break
                m += 1
            if m == lo:
                break
            if it == limit:
                ok = False
                break
            if mode == 2 and count + m - lo > cap:
                state[b, 0] = lo
                state[b, 1] = it
                state[b, 2] = count
                return ok
            it += 1
            g = (d[db, lo + 1] - d[db, lo]) / (2.0 * e[db, lo])
            r = math.hypot(g, 1.0)
            g = d[db, m] - d[db, lo] + e[db, lo] / (g + (r if g >= 0.0 else -r))
            s = 1.0
            c = 1.0
            p = 0.0
            i = m - 1
            split = False
            while i >= lo:
                f = s * e[db, i]
                h = c * e[db, i]
                r = _pythag(f, g)
                e[db, i + 1] = r
                if r == 0.0:  # an underflow splits the matrix: start again from lo
                    d[db, i + 1] = d[db, i + 1] - p
                    e[db, m] = 0.0
                    split = True
                    break
                inv = 1.0 / r
                s = f * inv
                c = g * inv
                g = d[db, i + 1] - p
                r = (d[db, i] - g) * s + 2.0 * c * h
                p = s * r
                d[db, i + 1] = g + p
                g = c * r - h
                if mode == 1:
                    for k in range(n):
                        _rotate_rows(zt, b, i, k, c, s)
                elif mode == 2:
                    _log_rotation(log_i, log_cs, b, count, i, i + 1, c, -s)
                    count += 1
                i -= 1
            if not split:
                d[db, lo] = d[db, lo] - p
                e[db, lo] = g
                e[db, m] = 0.0
    state[b, 0] = n
    state[b, 2] = count
    return ok


@kernel
def _tridiagonal_eigh_serial_kernel(a, zt, tau, u, w, d, e, info, state, log_i, n, mode, eps, limit):
    """Eigenvalues (into d[b]) and, where `mode` is 1, eigenvectors (the rows of zt[b]) of each
    symmetric or Hermitian a[b] (its lower triangle read), one work-item per matrix (CPU devices):
    :func:`_tridiagonal_reduce`, :func:`_tridiagonal_q` where vectors are wanted, then
    :func:`_ql_implicit`; info[b] is 1 where an eigenvalue did not converge (log_i: a
    placeholder)."""
    b = get_global_id(0)
    for r in range(n):  # the upper triangle mirrors the lower one, the diagonal made real
        a[b, r, r] = a[b, r, r].real
        for c in range(r + 1, n):
            a[b, r, c] = a[b, c, r].conjugate()
    _tridiagonal_reduce(a, tau, u, w, d, e, b, n)
    if mode != 0:
        _tridiagonal_q(a, tau, zt, b, n)
    if not _ql_implicit(d, e, b, zt, b, n, mode, eps, limit, state, log_i, zt, 0):
        info[b] = 1


#: the largest order whose QL iterations run on a copy of the tridiagonal matrix in local memory
#: (stepped form: a GPU thread's dependent reads of global memory cost several times more)
QL_LOCAL_N = 2048


@kernel
def _ql_log_kernel(d, e, info, state, log_i, log_cs, n, eps, limit, cap, mode):
    """:func:`_ql_implicit` of each matrix from where it stopped, logging up to `cap` rotations
    (`mode` 2) or none (0), a work-group of one work-item per matrix; the diagonals are copied to
    local memory for it (n <= :data:`QL_LOCAL_N`) and back."""
    b = get_group_id(0)
    dl = local_array((1, QL_LOCAL_N), np.float64)
    el = local_array((1, QL_LOCAL_N), np.float64)
    for i in range(n):
        dl[0, i] = d[b, i]
        el[0, i] = e[b, i]
    if not _ql_implicit(dl, el, 0, log_cs, b, n, mode, eps, limit, state, log_i, log_cs, cap):
        info[b] = 1
    for i in range(n):
        d[b, i] = dl[0, i]
        e[b, i] = el[0, i]


@kernel
def _ql_log_global_kernel(d, e, info, state, log_i, log_cs, n, eps, limit, cap, mode):
    """:func:`_ql_log_kernel` for orders above :data:`QL_LOCAL_N`, in global memory, a work-item
    per matrix."""
    b = get_global_id(0)
    if not _ql_implicit(d, e, b, log_cs, b, n, mode, eps, limit, state, log_i, log_cs, cap):
        info[b] = 1


@kernel
def _mirror_lower_kernel(a, n):
    """a[b]'s upper triangle set to its lower one's conjugate, the diagonal made real (LAPACK
    reads the lower), a work-item per element."""
    g = get_global_id(0)
    b = g // (n * n)
    row = (g // n) % n
    col = g % n
    if row < col:
        a[b, row, col] = a[b, col, row].conjugate()
    elif row == col:
        a[b, row, col] = a[b, row, col].real


@kernel
def _tridiagonal_rank2_kernel(a, tau, y, n, j):
    """y[b] += h v over the trailing rows with h = -tau (y^H v) / 2, so that the step's update is
    ``A -= v y^H + y v^H``; a work-group per matrix. h is real: y^H v = conj(tau) v^H A v, and
    v^H A v = Re(y^H v) / Re(tau) (the real part of ``zlarfg``'s tau lies in [1, 2])."""
    b = get_group_id(0)
    t = get_local_id(0)
    partial = local_array((GROUP,), np.float64)
    acc = 0.0
    r = j + 1 + t
    while r < n:
        v = 1.0 if r == j + 1 else a[b, r, j]
        acc += (y[b, r].conjugate() * v).real
        r += GROUP
    partial[t] = acc
    _group_sum(partial, t)
    tj = tau[b, j]
    half = 0.0
    if tj != 0.0:
        half = -0.5 * _abs2(tj) * partial[0] / tj.real
    r = j + 1 + t
    while r < n:
        v = 1.0 if r == j + 1 else a[b, r, j]
        y[b, r] = y[b, r] + half * v
        r += GROUP


@kernel
def _tridiagonal_update_kernel(a, y, n, j, total):
    """a[b, r, c] -= v_r conj(y_c) + y_r conj(v_c) over the trailing block r, c > j, a work-item
    per element (`total` of them; the launch is padded to whole work-groups)."""
    g = get_global_id(0)
    if g < total:
        m = n - j - 1
        b = g // (m * m)
        e = g % (m * m)
        r = j + 1 + e // m
        c = j + 1 + e % m
        vr = 1.0 if r == j + 1 else a[b, r, j]
        vc = 1.0 if c == j + 1 else a[b, c, j]
        a[b, r, c] = a[b, r, c] - vr * y[b, c].conjugate() - y[b, r] * vc.conjugate()


@kernel
def _tridiagonal_diagonals_kernel(a, d, e, n):
    """d[b], e[b] = the diagonal and subdiagonal (real) that the stepped reduction left in a[b],
    a work-item per element."""
    g = get_global_id(0)
    b = g // n
    i = g % n
    d[b, i] = a[b, i, i].real
    e[b, i] = a[b, i + 1, i].real if i < n - 1 else 0.0


def _tridiagonal_stepped(work: ndarray, tau: ndarray, d: ndarray, e: ndarray, q: ndarray | None) -> None:
    """Tridiagonalization of a few large Hermitian matrices by four launches per column (GPUs):
    the reflector by a work-group per matrix, y = tau A v by a work-item per row, its correction by
    a work-group and the rank-2 update by a work-item per element; then, where `q` is given, Q
    into it as QR forms it."""
    batch, n = work.shape[0], work.shape[-1]
    placed = {"sycl_queue": work.sycl_queue, "usm_type": work.usm_type}
    scale, y = (empty((batch, n), dtype=work.dtype, **placed) for _ in range(2))
    iu = _imaginary_unit(work)
    _mirror_lower_kernel[Range(batch * n * n)](work, n)
    groups = NdRange((batch * GROUP,), (GROUP,))
    for j in range(n - 1):
        rows = n - j - 1
        _reflector_kernel[groups](work, tau, scale, n, j + 1, j)
        _row_products_kernel[NdRange((batch * rows * GROUP,), (GROUP,))](work, tau, y, n, n, j, iu, 0)
        _tridiagonal_rank2_kernel[groups](work, tau, y, n, j)
        total = batch * rows * rows
        _tridiagonal_update_kernel[_padded(total)](work, y, n, j, total)
    _tridiagonal_diagonals_kernel[Range(batch * n)](work, d, e, n)
    if q is None:
        return
    _identity_rows_kernel[Range(batch * n * n)](q, n, n)
    for jj in range(n - 1):
        j = n - 2 - jj
        cols = n - j - 1
        _dots(q, work, y, iu, j + 1, j, j + 1, cols)
        total = batch * cols * cols
        _reflector_apply_kernel[_padded(total)](q, work, tau, y, n, j + 1, j, j + 1, cols, total, 0)


def _eigh_form(device: Any, batch: int, n: int) -> str:
    """How `batch` symmetric eigenproblems of order `n` are solved on `device`: by
    tridiagonalization and the QL method, a work-item per matrix on CPU devices ("serial"), by a
    few launches per column on GPUs for orders of :data:`EIGH_STEPPED_N` or more ("stepped"); else
    by Jacobi rotations, a work-group per matrix ("group": for stacks of small matrices on a GPU,
    a launch per step would cost more than the steps)."""
    kind = str(device.device_type)
    if kind in SERIAL_DEVICES:
        return "serial"
    if kind in STEPPED_DEVICES and n >= EIGH_STEPPED_N:
        return "stepped"
    return "group"


def eigh_tridiagonal(
    a: ndarray, dtype: np.dtype, vectors: bool, form: str
) -> tuple[ndarray, ndarray | None, ndarray]:
    """Eigenvalues (batch, n; real), unsorted, and where `vectors` is set eigenvectors (batch, n,
    n; columns) of the symmetric or Hermitian stack `a` (..., n, n) in `dtype`, by Householder
    tridiagonalization and the implicit QL method (the lower triangle is read, as LAPACK does),
    and each matrix's info (1: an eigenvalue did not converge). `form` "serial": a work-item per
    matrix for the whole of it; "stepped": the reduction by a few launches per column, the QL
    method by a work-item per matrix that logs its rotations, which a work-item per column of the
    vectors applies."""
    work = _stack(a, dtype)
    batch, n = work.shape[0], work.shape[-1]
    placed = {"sycl_queue": work.sycl_queue, "usm_type": work.usm_type}
    tau = empty((batch, n), dtype=dtype, **placed)
    d, e = (empty((batch, n), dtype=np.float64, **placed) for _ in range(2))
    info = zeros((batch,), dtype=np.int64, **placed)
    state = zeros((batch, 3), dtype=np.int64, **placed)
    eps = float(np.finfo(np.float64).eps)
    limit = MAX_QL_ITERATIONS
    zt = empty((batch, n, n) if vectors else (1, 1, 1), dtype=dtype, **placed)
    if batch and n and form == "serial":
        u, w = (empty((batch, n), dtype=dtype, **placed) for _ in range(2))
        mode = 1 if vectors else 0
        log_i = empty((1, 1, 2), dtype=np.int64, **placed)
        _tridiagonal_eigh_serial_kernel[Range(batch)](
            work, zt, tau, u, w, d, e, info, state, log_i, n, mode, eps, limit
        )
    elif batch and n and not vectors:  # every eigenvalue at once
        _tridiagonal_stepped(work, tau, d, e, None)
        d = _bisection(d, e, 0)
    elif batch and n:
        q = empty((batch, n, n), dtype=dtype, **placed) if vectors else None
        _tridiagonal_stepped(work, tau, d, e, q)
        if q is not None:
            swap: Any = np.swapaxes
            zt = asarray(swap(q, -1, -2), order="C", copy=True)  # Q^T: its rows rotate
        cap = (n + 1) * (QL_LOG_SWEEPS or n) if vectors else 1  # a sweep rotates n - 1 times at most
        log_i = empty((batch, cap, 2), dtype=np.int64, **placed)
        log_cs = empty((batch, cap, 2), dtype=np.float64, **placed)
        for _ in range(n * limit + 1):  # a pass ends the method or logs a sweep at least
            args = (d, e, info, state, log_i, log_cs, n, eps, limit, cap, 2 if vectors else 0)
            if n <= QL_LOCAL_N:  # a work-group of one per matrix, its diagonals in local memory
                _ql_log_kernel[NdRange((batch,), (1,))](*args)
            else:
                _ql_log_global_kernel[Range(batch)](*args)
            if vectors:
                _rotations(zt, log_i, log_cs, state)
            at: Any = state[:, 0]
            done: Any = np.all(at == n)
            if bool(done):
                break
        else:
            raise np.linalg.LinAlgError("Eigenvalues did not converge")
    values: ndarray = d.astype(np.dtype(dtype.char.lower()))
    if not vectors:
        return values, None, info
    transpose: Any = np.swapaxes
    result: ndarray = transpose(zt, -1, -2)
    return values, result, info


# -- eigenvalues and singular values alone on GPUs: bisection ------------------------------------
@func
def _off_diagonal(d, e, b, j, tgk):
    """T[j + 1, j] of the symmetric tridiagonal matrix of matrix b: the subdiagonal e[b] (`tgk`
    0; its diagonal is d[b]), or the Golub-Kahan matrix of the upper bidiagonal B of diagonal d[b]
    and superdiagonal e[b] (e[b, i] is B[i - 1, i]; `tgk` 1): zero diagonal, off-diagonal d0, e1,
    d1, e2, ..., whose eigenvalues are B's singular values and their negatives."""
    if tgk == 0:
        return e[b, j]
    if j % 2 == 0:
        return d[b, j // 2]
    return e[b, j // 2 + 1]


@func
def _sturm_count(d, e, b, order, tgk, x, pivmin):
    """How many eigenvalues of :func:`_off_diagonal`'s matrix (of `order` rows) lie below
    `x`: the negative pivots of T - x I's LDL^T factorization (Sturm's sequence), a pivot of
    magnitude below `pivmin` taken as -pivmin (LAPACK's ``dlaebz``)."""
    count = 0
    q = 1.0
    off = 0.0
    for j in range(order):
        a = d[b, j] if tgk == 0 else 0.0
        below = _off_diagonal(d, e, b, j, tgk) if j < order - 1 else 0.0
        q = (a - x) - (off * off / q if j > 0 else 0.0)
        if abs(q) < pivmin:
            q = -pivmin
        if q < 0.0:
            count += 1
        off = below
    return count


@kernel
def _bisection_kernel(d, e, w, n, tgk, eps):
    """w[b, k] = the k-th smallest eigenvalue (`tgk` 0) of the symmetric tridiagonal matrix of
    diagonal d[b] and subdiagonal e[b], or the k-th smallest singular value (`tgk` 1) of the
    upper bidiagonal matrix of diagonal d[b] and superdiagonal e[b] (the eigenvalue n + k of its
    Golub-Kahan matrix), by bisection of Gershgorin's interval on Sturm counts to within `eps`
    times the matrix's norm (LAPACK's ``stebz``, ``bdsvdx``); a work-item per (k, b), so every
    value of every matrix is found at once. NaN where the matrix holds one."""
    k = get_global_id(0)
    b = get_global_id(1)
    order = n * (1 + tgk)
    lo = math.inf
    hi = -math.inf
    big = 0.0
    prev = 0.0
    for j in range(order):
        a = d[b, j] if tgk == 0 else 0.0
        below = _off_diagonal(d, e, b, j, tgk) if j < order - 1 else 0.0
        radius = abs(prev) + abs(below)
        lo = min(lo, a - radius)
        hi = max(hi, a + radius)
        big = max(big, below * below)
        prev = below
    if not (lo <= hi):  # a NaN
        w[b, k] = math.nan
        return
    norm = max(abs(lo), abs(hi))
    pivmin = 2.2250738585072014e-308 * max(1.0, big)
    tol = eps * norm
    lo = lo - 2.0 * tol - pivmin
    hi = hi + 2.0 * tol + pivmin
    want = k + n * tgk
    for _ in range(2200):  # halving from 1e308 to the smallest interval takes fewer
        if hi - lo <= max(tol, 2.0 * eps * max(abs(lo), abs(hi))) or hi - lo <= pivmin:
            break
        mid = 0.5 * (lo + hi)
        if _sturm_count(d, e, b, order, tgk, mid, pivmin) > want:
            hi = mid
        else:
            lo = mid
    mid = 0.5 * (lo + hi)
    w[b, k] = mid if abs(mid) > pivmin else 0.0  # a zero matrix's values are zeros


def _bisection(d: ndarray, e: ndarray, tgk: int) -> ndarray:
    """:func:`_bisection_kernel`'s values (batch, n) of the stack's diagonals d and e."""
    batch, n = d.shape
    out = empty((batch, n), dtype=np.float64, sycl_queue=d.sycl_queue, usm_type=d.usm_type)
    if batch and n:
        _bisection_kernel[Range(n, batch)](d, e, out, n, tgk, float(np.finfo(np.float64).eps))
    return out


#: the range of a float64 stack's largest magnitudes outside which the decompositions that square
#: entries (Householder reflectors, the shifts) scale each matrix to 1 first, as LAPACK's drivers
#: do: the squares and products then stay within range (single precision is squared in double)
SCALE_RANGE = (1e-100, 1e100)


@kernel
def _largest_kernel(a, top, m, n, lower, step):
    """top[b] = the largest magnitude of a[b] (of its lower triangle where `lower` is 1; NaN where
    one is), a work-group of `step` work-items per matrix (1 on CPU devices, else GROUP)."""
    b = get_group_id(0)
    t = get_local_id(0)
    best = local_array((GROUP,), np.float64)
    mine = 0.0
    idx = t
    while idx < m * n:
        r = idx // n
        c = idx % n
        if lower == 0 or c <= r:
            x = abs(a[b, r, c]) * 1.0
            if not x <= mine:  # a NaN wins
                mine = x
        idx += step
    best[t] = mine
    barrier(LOCAL_MEM_FENCE)
    s2 = step // 2
    while s2 > 0:
        if t < s2 and not best[t + s2] <= best[t]:
            best[t] = best[t + s2]
        barrier(LOCAL_MEM_FENCE)
        s2 = s2 // 2
    if t == 0:
        top[b] = best[0]


def _scaled(a: ndarray, dtype: np.dtype, lower: bool = False) -> tuple[ndarray, Any]:
    """`a` (..., m, n) with each matrix divided by its largest magnitude (that of its lower
    triangle where `lower`) where some matrix's lies outside :data:`SCALE_RANGE`, and those
    magnitudes (batch,); else `a` and None (one kernel and one read of the device)."""
    if dtype.char.lower() != "d" or a.size == 0:
        return a, None
    m, n = a.shape[-2:]
    stack = a.reshape(-1, m, n)
    batch = stack.shape[0]
    top = empty((batch,), dtype=np.float64, sycl_queue=a.sycl_queue)
    step = 1 if str(a.sycl_queue.device.device_type) in SERIAL_DEVICES else GROUP
    _largest_kernel[NdRange((batch * step,), (step,))](stack, top, m, n, int(lower), step)
    magnitudes = np.asarray(asnumpy(top))
    low, high = SCALE_RANGE
    if not np.any((magnitudes > high) | ((magnitudes < low) & (magnitudes > 0))):
        return a, None
    fine = np.isfinite(magnitudes) & (magnitudes > 0)
    divisors = asarray(np.where(fine, magnitudes, 1.0), sycl_queue=a.sycl_queue)
    xp: Any = np
    scaled: ndarray = xp.true_divide(stack, divisors[:, None, None]).astype(dtype)
    return scaled, divisors


def eigh(a: ndarray, dtype: np.dtype, vectors: bool) -> tuple[ndarray, ndarray | None]:
    """Eigenvalues (batch, n; real), unsorted, and where `vectors` is set eigenvectors (batch, n,
    n; columns) of the symmetric or Hermitian stack `a` (..., n, n) in `dtype` (its lower triangle
    read), in the device's form (:func:`_eigh_form`)."""
    n = a.shape[-1]
    batch = int(np.prod(a.shape[:-2], dtype=np.int64))
    form = _eigh_form(a.sycl_queue.device, batch, n)
    a, top = _scaled(a, dtype, lower=True)
    found: ndarray | None
    if form == "group":
        values, found = eigh_jacobi(a, dtype)
    else:
        values, found, info = eigh_tridiagonal(a, dtype, vectors, form)
        if any_nonzero(info) and bool(np.all(np.isfinite(values))):  # NaNs stay NaNs
            raise np.linalg.LinAlgError("Eigenvalues did not converge")
    if top is not None:
        values = np.multiply(values, top[:, None]).astype(values.dtype)
    return values, found if vectors else None


# -- singular values: one-sided (Hestenes) Jacobi -------------------------------------------------
@kernel
def _jacobi_svd_kernel(a, v, pq, cs, se, m, n, tol):
    """Orthogonalize the n columns of each a[b] (m x n, m >= n) by plane rotations from the right
    (a[b] -> a[b] V), one work-group per matrix; v[b] ends holding V. The columns' norms are then
    the singular values, and column p of a[b] is sigma_p u_p. The rotation of columns (p, q) is
    ``[[c, s e], [-s conj(e), c]]`` with e the phase of their inner product ``a_p^H a_q`` (its
    sign for real matrices); the pairs in pq[b], c in cs[b], s e in se[b]."""
    b = get_group_id(0)
    t = get_local_id(0)
    rotated = local_array((GROUP,), np.int64)
    idx = t
    while idx < n * n:
        v[b, idx // n, idx % n] = 1.0 if idx // n == idx % n else 0.0
        idx += GROUP
    barrier(_FENCES)
    players = n + n % 2
    half = players // 2
    sweep = 0
    converged = False
    while sweep < MAX_SWEEPS and not converged:
        mine = np.int64(0)
        for r in range(players - 1):
            i = t
            while i < half:
                _round_pair(pq, b, r, i, players)
                if _svd_rotation(a, b, pq[b, 2 * i], pq[b, 2 * i + 1], m, n, tol, cs, se, i):
                    mine = np.int64(1)
                i += GROUP
            barrier(_FENCES)
            idx = t
            while idx < half * (m + n):
                i = idx // (m + n)
                k = idx % (m + n)
                q = pq[b, 2 * i + 1]
                if q < n and k < m:
                    _rotate_columns(a, b, k, pq[b, 2 * i], q, cs[b, i], se[b, i])
                elif q < n:
                    _rotate_columns(v, b, k - m, pq[b, 2 * i], q, cs[b, i], se[b, i])
                idx += GROUP
            barrier(_FENCES)
        rotated[t] = mine
        _group_sum(rotated, t)
        converged = rotated[0] == 0
        barrier(LOCAL_MEM_FENCE)
        sweep += 1


def svd_jacobi(a: ndarray, dtype: np.dtype) -> tuple[ndarray, ndarray]:
    """The rotated columns (batch, m, n; column p is sigma_p u_p, unsorted) and V (batch, n, n)
    of the stack `a` (..., m, n) with m >= n, in `dtype`, a work-group per matrix (GPUs' stacks
    of small matrices)."""
    work = _stack(a, dtype)
    batch, m, n = work.shape
    placed = {"sycl_queue": work.sycl_queue, "usm_type": work.usm_type}
    v = empty((batch, n, n), dtype=dtype, **placed)
    tol = float(np.finfo(dtype).eps) * max(m, 1)
    half = (n + 1) // 2
    pq = empty((batch, 2 * half), dtype=np.int64, **placed)
    cs = empty((batch, half), dtype=np.float64, **placed)
    se = empty((batch, half), dtype=dtype, **placed)
    if batch and n and m:
        _jacobi_svd_kernel[NdRange((batch * GROUP,), (GROUP,))](work, v, pq, cs, se, m, n, tol)
    return work, v


#: the bidiagonal QR method's negligible entries: this many double-precision epsilons times the
#: matrix's norm (LAPACK's ``bdsqr`` takes 10 to 100; at one, entries of rounding size, as a
#: unitary matrix's bidiagonal form has, could keep it from converging)
BIDIAGONAL_TOL = 16


# -- singular values: Householder bidiagonalization and implicit QR -------------------------------
@func
def _log_rotation(log_pq, log_cs, b, t, p, q, c, s):
    """Entry t of matrix b's log: rows p and q turned by (c, s) as
    :func:`_logged_rotations_kernel` applies it."""
    log_pq[b, t, 0] = p
    log_pq[b, t, 1] = q
    log_cs[b, t, 0] = c
    log_cs[b, t, 1] = s


@func
def _bidiagonal_qr(d, e, db, ut, vt, b, m, n, mode, tol, limit, state, log_u, cs_u, log_v, cs_v, cap):
    """The singular values of the real upper bidiagonal matrix of diagonal d[db] and
    superdiagonal e[db] (e[db, i] is B[i - 1, i], e[db, 0] is 0) into d[db], signed (the caller
    takes their magnitudes and keeps the signs with U's columns), by the implicit QR method with
    Wilkinson shifts (Golub and Kahan; the EISPACK ``svd`` iteration); entries within `tol` of
    zero are negligible. d and e are the stack's arrays (db = b) or a local copy. The rotations
    are dropped (`mode` 0), applied to the rows of ut[b] (U's columns) and vt[b] (V's) (1) or
    logged (2) by :func:`_log_rotation`, U's in log_u and cs_u, V's in log_v and cs_v, for at
    most `cap` entries each; the method then stops before an iteration that could pass that and
    goes on from there in the next call (state[b] = (the singular value it is at, counting down
    from n - 1, its iterations, U's entries, V's entries); state[b, 0] is -1 when done). Whether
    every value converged within `limit` iterations."""
    ok = True
    k0 = state[b, 0]
    count = 0
    count_v = 0
    for kk in range(n - 1 - k0, n):
        k = n - 1 - kk
        its = state[b, 1] if k == k0 else 0
        while True:
            # the largest lo <= k with e[lo] negligible (e[0] is 0); d[lo - 1] negligible instead
            # means e[lo] is chased out of row lo - 1 by rotations from the left
            cancel = True
            lo = k
            while lo >= 0:
                if abs(e[db, lo]) <= tol or lo == 0:
                    cancel = False
                    break
                if abs(d[db, lo - 1]) <= tol:
                    break
                lo -= 1
            if mode == 2 and count + 2 * (k - lo + 1) > cap:
                state[b, 0] = k
                state[b, 1] = its
                state[b, 2] = count
                state[b, 3] = count_v
                return ok
            if cancel:
                nm = lo - 1
                co = 0.0
                si = 1.0
                for i in range(lo, k + 1):
                    f = si * e[db, i]
                    e[db, i] = co * e[db, i]
                    if abs(f) <= tol:
                        break
                    g = d[db, i]
                    h = _pythag(f, g)
                    d[db, i] = h
                    inv = 1.0 / h
                    co = g * inv
                    si = -f * inv
                    if mode == 1:
                        for r in range(m):
                            uy = ut[b, nm, r]
                            uz = ut[b, i, r]
                            ut[b, nm, r] = uy * co + uz * si
                            ut[b, i, r] = uz * co - uy * si
                    elif mode == 2:
                        _log_rotation(log_u, cs_u, b, count, nm, i, co, si)
                        count += 1
            if lo == k:  # converged (its sign stays: the caller's)
                break
            if its == limit:
                ok = False
                break
            its += 1
            z = d[db, k]
            x = d[db, lo]  # the shift from the bottom 2x2 minor
            nm = k - 1
            y = d[db, nm]
            g = e[db, nm]
            h = e[db, k]
            f = ((y - z) * (y + z) + (g - h) * (g + h)) / (2.0 * h * y)
            g = math.hypot(f, 1.0)
            f = ((x - z) * (x + z) + h * ((y / (f + (g if f >= 0.0 else -g))) - h)) / x
            co = 1.0
            si = 1.0
            for j in range(lo, nm + 1):  # the QR sweep: rotations from the right, then the left
                i = j + 1
                g = e[db, i]
                y = d[db, i]
                h = si * g
                g = co * g
                z = _pythag(f, h)
                e[db, j] = z
                inv = 1.0 / z
                co = f * inv
                si = h * inv
                f = x * co + g * si
                g = g * co - x * si
                h = y * si
                y = y * co
                if mode == 1:
                    for r in range(n):
                        vp = vt[b, j, r]
                        vq = vt[b, i, r]
                        vt[b, j, r] = vp * co + vq * si
                        vt[b, i, r] = vq * co - vp * si
                elif mode == 2:
                    _log_rotation(log_v, cs_v, b, count_v, j, i, co, si)
                    count_v += 1
                z = _pythag(f, h)
                d[db, j] = z
                if z != 0.0:
                    inv = 1.0 / z
                    co = f * inv
                    si = h * inv
                f = co * g + si * y
                x = co * y - si * g
                if mode == 1:
                    for r in range(m):
                        vp = ut[b, j, r]
                        vq = ut[b, i, r]
                        ut[b, j, r] = vp * co + vq * si
                        ut[b, i, r] = vq * co - vp * si
                elif mode == 2:
                    _log_rotation(log_u, cs_u, b, count, j, i, co, si)
                    count += 1
            e[db, lo] = 0.0
            e[db, k] = f
            d[db, k] = x
    state[b, 0] = -1
    state[b, 2] = count
    state[b, 3] = count_v
    return ok


@kernel
def _bidiagonal_svd_serial_kernel(a, ut, vt, tauq, taup, d, e, info, state, log_pq, m, n, mode, eps, limit):
    """The singular values (into d[b]) of each a[b] (m x n, m >= n) and, where `mode` is 1, the
    vectors: U's first n columns scaled by the singular values into a[b] (column k is sigma_k
    u_k, as the Jacobi methods leave it) and V's columns as the rows of vt[b]; a work-item per
    matrix (CPU devices). LAPACK's ``gebrd`` reduces a[b] to a real upper bidiagonal B = U_Q^H
    a[b] V_Q (``zlarfg``'s reflectors from the left, tauq, and on the conjugated rows from the
    right, taup), then the implicit QR method with Wilkinson shifts (Golub and Kahan; the
    EISPACK ``svd`` iteration, :func:`_bidiagonal_qr`) diagonalizes B, its rotations applied to
    the rows of ut[b] (U's columns) and vt[b]; the singular values stay signed, as U's columns
    scaled by them. e[b, i] is B[i - 1, i]. info[b] is 1 where a singular value did not converge
    within `limit` iterations; state[b] starts at (n - 1, 0, 0, 0) and log_pq is a placeholder."""
    b = get_global_id(0)
    e[b, 0] = 0.0
    for j in range(n):
        alpha = a[b, j, j]  # from the left: column j from row j
        below = 0.0
        for r in range(j + 1, m):
            xv = a[b, r, j]
            below += _abs2(xv)
        if below == 0.0 and alpha.imag == 0.0:
            tauq[b, j] = 0.0
            d[b, j] = alpha.real
        else:
            beta = _reflector_beta(alpha, below)
            tj = (beta - alpha) / beta
            tauq[b, j] = tj
            scale = 1.0 / (alpha - beta)
            for r in range(j + 1, m):
                a[b, r, j] = a[b, r, j] * scale
            d[b, j] = beta
            tc = tj.conjugate()  # H^H on the trailing columns
            for c in range(j + 1, n):
                acc = a[b, j, c]
                for r in range(j + 1, m):
                    acc += a[b, r, j].conjugate() * a[b, r, c]
                fq = tc * acc
                a[b, j, c] = a[b, j, c] - fq
                for r in range(j + 1, m):
                    a[b, r, c] = a[b, r, c] - fq * a[b, r, j]
        if j + 1 < n:  # from the right: row j from column j + 1, conjugated
            alpha = a[b, j, j + 1].conjugate()
            below = 0.0
            for c in range(j + 2, n):
                xv = a[b, j, c]
                below += _abs2(xv)
            if below == 0.0 and alpha.imag == 0.0:
                taup[b, j] = 0.0
                e[b, j + 1] = alpha.real
            else:
                beta = _reflector_beta(alpha, below)
                tj = (beta - alpha) / beta
                taup[b, j] = tj
                scale = 1.0 / (alpha - beta)
                for c in range(j + 2, n):  # u, stored in the row
                    a[b, j, c] = a[b, j, c].conjugate() * scale
                e[b, j + 1] = beta
                for r in range(j + 1, m):  # rows times H = I - tau u u^H
                    acc = a[b, r, j + 1]
                    for c in range(j + 2, n):
                        acc += a[b, r, c] * a[b, j, c]
                    fq = tj * acc
                    a[b, r, j + 1] = a[b, r, j + 1] - fq
                    for c in range(j + 2, n):
                        a[b, r, c] = a[b, r, c] - fq * a[b, j, c].conjugate()
    if mode != 0:
        for r in range(n):  # U_Q's first n columns as rows, backwards: u_c -= tau v (v^H u_c)
            for c in range(m):
                ut[b, r, c] = 1.0 if r == c else 0.0
        for jj in range(n):
            j = n - 1 - jj
            tj = tauq[b, j]
            for c in range(j, n):
                acc = ut[b, c, j]
                for r in range(j + 1, m):
                    acc += a[b, r, j].conjugate() * ut[b, c, r]
                fq = tj * acc
                ut[b, c, j] = ut[b, c, j] - fq
                for r in range(j + 1, m):
                    ut[b, c, r] = ut[b, c, r] - fq * a[b, r, j]
        for r in range(n):  # V_Q's columns as rows, the same way from the right reflectors
            for c in range(n):
                vt[b, r, c] = 1.0 if r == c else 0.0
        for jj in range(n - 1):
            j = n - 2 - jj
            tj = taup[b, j]
            for c in range(j + 1, n):
                acc = vt[b, c, j + 1]
                for r in range(j + 2, n):
                    acc += a[b, j, r].conjugate() * vt[b, c, r]
                fq = tj * acc
                vt[b, c, j + 1] = vt[b, c, j + 1] - fq
                for r in range(j + 2, n):
                    vt[b, c, r] = vt[b, c, r] - fq * a[b, j, r]
    anorm = 0.0
    for i in range(n):
        anorm = max(anorm, abs(d[b, i]) + abs(e[b, i]))
    if not _bidiagonal_qr(
        d, e, b, ut, vt, b, m, n, mode, BIDIAGONAL_TOL * eps * anorm, limit, state, log_pq, ut, log_pq, ut, 0
    ):
        info[b] = 1
    if mode != 0:
        for r in range(m):
            for c in range(n):
                a[b, r, c] = d[b, c] * ut[b, c, r]


@kernel
def _bidiagonal_qr_log_kernel(d, e, info, state, tol, log_u, cs_u, log_v, cs_v, n, limit, cap, mode):
    """:func:`_bidiagonal_qr` of each matrix from where it stopped, logging up to `cap` entries
    (`mode` 2) or none (0), a work-group of one work-item per matrix, on a copy of the diagonals
    in local memory (n <= :data:`QL_LOCAL_N`)."""
    b = get_group_id(0)
    dl = local_array((1, QL_LOCAL_N), np.float64)
    el = local_array((1, QL_LOCAL_N), np.float64)
    for i in range(n):
        dl[0, i] = d[b, i]
        el[0, i] = e[b, i]
    if not _bidiagonal_qr(
        dl, el, 0, cs_u, cs_u, b, n, n, mode, tol[b], limit, state, log_u, cs_u, log_v, cs_v, cap
    ):
        info[b] = 1
    for i in range(n):
        d[b, i] = dl[0, i]
        e[b, i] = el[0, i]


@kernel
def _bidiagonal_qr_log_global_kernel(d, e, info, state, tol, log_u, cs_u, log_v, cs_v, n, limit, cap, mode):
    """:func:`_bidiagonal_qr_log_kernel` for orders above :data:`QL_LOCAL_N`, in global memory,
    a work-item per matrix."""
    b = get_global_id(0)
    if not _bidiagonal_qr(
        d, e, b, cs_u, cs_u, b, n, n, mode, tol[b], limit, state, log_u, cs_u, log_v, cs_v, cap
    ):
        info[b] = 1


#: work-items per work-group of :func:`_logged_rotations_kernel`, and the log entries it reads
#: into local memory at a time
ROTATION_GROUP = 32
ROTATION_CHUNK = 256


@func
def _apply_logged(x, b, k, live, total, log_pq, log_cs, rows, turns, t):
    """The `total` logged rotations of matrix b applied to column k of x[b] (work-item t of the
    work-group; `live`: k is a column), the log read into the local arrays `rows` and `turns`
    :data:`ROTATION_CHUNK` entries at a time."""
    kk = k if live else 0
    h0 = -1  # the rows whose values v0 and v1 hold (written back when they leave)
    h1 = -1
    v0 = x[b, 0, kk] * 0.0
    v1 = v0
    t0 = 0
    while t0 < total:
        here = min(ROTATION_CHUNK, total - t0)
        barrier(LOCAL_MEM_FENCE)
        i = t
        while i < here:
            rows[i, 0] = log_pq[b, t0 + i, 0]
            rows[i, 1] = log_pq[b, t0 + i, 1]
            turns[i, 0] = log_cs[b, t0 + i, 0]
            turns[i, 1] = log_cs[b, t0 + i, 1]
            i += ROTATION_GROUP
        barrier(LOCAL_MEM_FENCE)
        if live:
            for u in range(here):
                p = rows[u, 0]
                q = rows[u, 1]
                c = turns[u, 0]
                s = turns[u, 1]
                if p == h0:
                    xp = v0
                elif p == h1:
                    xp = v1
                else:
                    xp = x[b, p, k]
                if q == h0:
                    xq = v0
                elif q == h1:
                    xq = v1
                else:
                    xq = x[b, q, k]
                if h0 >= 0 and h0 != p and h0 != q:
                    x[b, h0, k] = v0
                if h1 >= 0 and h1 != p and h1 != q:
                    x[b, h1, k] = v1
                h0 = p
                v0 = xp * c + xq * s
                h1 = q
                v1 = xq * c - xp * s
        t0 += ROTATION_CHUNK
    if live and h0 >= 0:
        x[b, h0, k] = v0
    if live and h1 >= 0:
        x[b, h1, k] = v1


@kernel
def _logged_rotations_kernel(x, y, state, log_x, cs_x, log_y, cs_y, cols_x, cols_y):
    """Logged rotations applied in order to the columns of two stacks at once, a work-item per
    column in work-groups of :data:`ROTATION_GROUP` consecutive columns (neighbouring work-items
    touch neighbouring elements): to x[b] state[b, 2] rotations from log_x and cs_x, to y[b]
    state[b, 3] from log_y and cs_y (the rows of x and y are a factor's columns; `cols_y` 0 for
    none). The last two rows turned stay in registers until a rotation no longer takes them (a
    sweep's rotations chain through neighbouring rows), so a rotation costs about one read and
    one write."""
    gx = (cols_x + ROTATION_GROUP - 1) // ROTATION_GROUP
    gy = (cols_y + ROTATION_GROUP - 1) // ROTATION_GROUP
    g = get_group_id(0)
    t = get_local_id(0)
    b = g // (gx + gy)
    r = g % (gx + gy)
    rows = local_array((ROTATION_CHUNK, 2), np.int64)
    turns = local_array((ROTATION_CHUNK, 2), np.float64)
    if r < gx:
        k = r * ROTATION_GROUP + t
        _apply_logged(x, b, k, k < cols_x, state[b, 2], log_x, cs_x, rows, turns, t)
    else:
        k = (r - gx) * ROTATION_GROUP + t
        _apply_logged(y, b, k, k < cols_y, state[b, 3], log_y, cs_y, rows, turns, t)


@kernel
def _row_reflector_kernel(a, tau, w, n, j):
    """The reflector from the right of row j of each a[b] from column j + 1 (``gebrd``'s: of the
    conjugated row), a work-group per matrix: u (its first element 1 implied) written over the
    row from column j + 2, tau[b, j] set, a[b, j, j + 1] = beta (real); w is untouched."""
    b = get_group_id(0)
    t = get_local_id(0)
    partial = local_array((GROUP,), np.float64)
    beta_of = local_array((1,), np.float64)
    acc = 0.0
    c = j + 2 + t
    while c < n:
        x = a[b, j, c]
        acc += _abs2(x)
        c += GROUP
    partial[t] = acc
    _group_sum(partial, t)
    if t == 0:
        below = partial[0]
        alpha = a[b, j, j + 1].conjugate()
        if below == 0.0 and alpha.imag == 0.0:
            tau[b, j] = 0.0
            beta_of[0] = alpha.real
        else:
            beta = _reflector_beta(alpha, below)
            tau[b, j] = (beta - alpha) / beta
            beta_of[0] = beta
    barrier(_FENCES)
    # in double precision, by each work-item (see :func:`_reflector`)
    alpha = a[b, j, j + 1].conjugate() * 1.0
    scale = 1.0 / (alpha - beta_of[0]) if tau[b, j] != 0.0 else alpha * 0.0 + 1.0
    c = j + 2 + t
    while c < n:
        a[b, j, c] = a[b, j, c].conjugate() * scale
        c += GROUP
    barrier(_FENCES)
    if t == 0:
        a[b, j, j + 1] = beta_of[0]


@kernel
def _row_products_kernel(a, tau, y, m, n, j, iu, by_row):
    """y[b, r] = tau[b, j] (row r of a[b] from column j + 1) . v for the rows r > j, v with its
    first element 1 and the rest row j's reflector from column j + 2 (`by_row` 1: the
    bidiagonalization's right step) or column j's from row j + 2 (0: the tridiagonal step's
    y = tau A v); a work-group per row: its work-items read neighbouring elements and sum in
    local memory, the real and imaginary parts apart (`iu[0]` is 1j for complex matrices, else
    0)."""
    rows = m - j - 1
    g = get_group_id(0)
    t = get_local_id(0)
    b = g // rows
    r = j + 1 + g % rows
    re = local_array((GROUP,), np.float64)
    im = local_array((GROUP,), np.float64)
    acc_re = 0.0
    acc_im = 0.0
    c = j + 1 + t
    while c < n:
        v = a[b, j, c] if by_row != 0 else a[b, c, j]
        x = a[b, r, c] if c == j + 1 else a[b, r, c] * v
        acc_re += x.real
        acc_im += x.imag
        c += GROUP
    re[t] = acc_re
    im[t] = acc_im
    _group_sum(re, t)
    _group_sum(im, t)
    if t == 0:
        y[b, r] = tau[b, j] * (re[0] + iu[0] * im[0])


@kernel
def _row_update_kernel(a, y, m, n, j, total):
    """a[b, r, c] -= y[b, r] conj(u_c) over the rows r > j and the columns c > j (the trailing
    rows times row j's reflector), a work-item per element (`total` of them; the launch is padded
    to whole work-groups)."""
    g = get_global_id(0)
    if g < total:
        cols = n - j - 1
        per = (m - j - 1) * cols
        b = g // per
        e = g % per
        r = j + 1 + e // cols
        c = j + 1 + e % cols
        uc = 1.0 if c == j + 1 else a[b, j, c]
        a[b, r, c] = a[b, r, c] - y[b, r] * uc.conjugate()


@kernel
def _bidiagonal_diagonals_kernel(a, d, e, n):
    """d[b], e[b] = the diagonal and the superdiagonal (real; e[b, i] is B[i - 1, i], e[b, 0] is
    0) that the stepped bidiagonalization left in a[b], a work-item per element."""
    g = get_global_id(0)
    b = g // n
    i = g % n
    d[b, i] = a[b, i, i].real
    e[b, i] = a[b, i - 1, i].real if i > 0 else 0.0


def _bidiagonal_stepped(work: ndarray, tauq: ndarray, taup: ndarray, d: ndarray, e: ndarray) -> None:
    """Bidiagonalization of a few large matrices (m >= n) by launches per column (GPUs): the
    reflector from the left as QR's step, then the one from the right on the row by a work-group
    per matrix, the products of the trailing rows with it by a work-group per row and their
    update by a work-item per element; d[b] and e[b] get B's diagonals."""
    batch, m, n = work.shape
    placed = {"sycl_queue": work.sycl_queue, "usm_type": work.usm_type}
    w, y = (empty((batch, max(m, n)), dtype=work.dtype, **placed) for _ in range(2))
    iu = _imaginary_unit(work)
    groups = NdRange((batch * GROUP,), (GROUP,))
    for j in range(n):
        _reflector_kernel[groups](work, tauq, w, m, j, j)
        cols = n - j - 1
        if not cols:
            break
        _dots(work, work, w, iu, j, j, j + 1, cols)
        total = batch * (m - j) * cols
        _reflector_apply_kernel[_padded(total)](work, work, tauq, w, m, j, j, j + 1, cols, total, 1)
        _row_reflector_kernel[groups](work, taup, w, n, j)
        rows = m - j - 1
        _row_products_kernel[NdRange((batch * rows * GROUP,), (GROUP,))](work, taup, y, m, n, j, iu, 1)
        total = batch * rows * cols
        _row_update_kernel[_padded(total)](work, y, m, n, j, total)
    _bidiagonal_diagonals_kernel[Range(batch * n)](work, d, e, n)


def _bidiagonal_vectors(work: ndarray, tauq: ndarray, taup: ndarray) -> tuple[ndarray, ndarray]:
    """U's first n columns as rows (batch, n, m) and V's columns as rows (batch, n, n) from the
    reflectors :func:`_bidiagonal_stepped` left in `work`, formed backwards as QR forms Q (the
    right reflectors copied to columns first)."""
    batch, m, n = work.shape
    placed = {"sycl_queue": work.sycl_queue, "usm_type": work.usm_type}
    w = empty((batch, max(m, n)), dtype=work.dtype, **placed)
    iu = _imaginary_unit(work)
    swap: Any = np.swapaxes
    q = empty((batch, m, n), dtype=work.dtype, **placed)
    _identity_rows_kernel[Range(batch * m * n)](q, m, n)
    for jj in range(n):
        j = n - 1 - jj
        cols = n - j
        _dots(q, work, w, iu, j, j, j, cols)
        total = batch * (m - j) * cols
        _reflector_apply_kernel[_padded(total)](q, work, tauq, w, m, j, j, j, cols, total, 0)
    right = asarray(swap(work[:, :n, :], -1, -2), order="C", copy=True)  # row j's reflector as column j
    qv = empty((batch, n, n), dtype=work.dtype, **placed)
    _identity_rows_kernel[Range(batch * n * n)](qv, n, n)
    for jj in range(n - 1):
        j = n - 2 - jj
        cols = n - j - 1
        _dots(qv, right, w, iu, j + 1, j, j + 1, cols)
        total = batch * cols * cols
        _reflector_apply_kernel[_padded(total)](qv, right, taup, w, n, j + 1, j, j + 1, cols, total, 0)
    ut = asarray(swap(q, -1, -2), order="C", copy=True)
    vt = asarray(swap(qv, -1, -2), order="C", copy=True)
    return ut, vt


def _rotations(
    x: ndarray,
    log_x: ndarray,
    cs_x: ndarray,
    state: ndarray,
    y: ndarray | None = None,
    log_y: Any = None,
    cs_y: Any = None,
) -> None:
    """:func:`_logged_rotations_kernel` over the stack `x` and, where given, `y` in the same launch."""
    batch = x.shape[0]
    cols_y = 0 if y is None else y.shape[-1]
    groups = -(-x.shape[-1] // ROTATION_GROUP) - (-cols_y // ROTATION_GROUP)
    launch = NdRange((batch * groups * ROTATION_GROUP,), (ROTATION_GROUP,))
    if y is None:
        y, log_y, cs_y = x, log_x, cs_x
    _logged_rotations_kernel[launch](x, y, state, log_x, cs_x, log_y, cs_y, x.shape[-1], cols_y)


def svd_bidiagonal(
    a: ndarray, dtype: np.dtype, vectors: bool, form: str = "serial"
) -> tuple[ndarray | None, ndarray | None, ndarray, ndarray | None]:
    """As :func:`svd_jacobi` (where `vectors` is set), the singular values (batch, n; real,
    unsorted) and U's first n columns (batch, m, n; column p is the rotated column p over sigma_p,
    also where sigma_p is 0), by Householder bidiagonalization and the implicit QR method: a work-item per
    matrix for the whole of it (`form` "serial", CPU devices), or the reduction and the vectors
    by launches per column, the QR method by a work-item per matrix that logs its rotations,
    which a work-item per column of U^T and of V^T applies ("stepped", GPUs)."""
    work = _stack(a, dtype)
    batch, m, n = work.shape
    placed = {"sycl_queue": work.sycl_queue, "usm_type": work.usm_type}
    tauq, taup = (empty((batch, n), dtype=dtype, **placed) for _ in range(2))
    d, e = (empty((batch, n), dtype=np.float64, **placed) for _ in range(2))
    info = zeros((batch,), dtype=np.int64, **placed)
    state = zeros((batch, 4), dtype=np.int64, **placed)
    state[:, 0] = n - 1
    eps = float(np.finfo(np.float64).eps)
    limit = MAX_QL_ITERATIONS
    mode = int(vectors)
    xp: Any = np
    ut = empty((batch, n, m) if vectors else (1, 1, 1), dtype=dtype, **placed)
    vt = empty((batch, n, n) if vectors else (1, 1, 1), dtype=dtype, **placed)
    if batch and n and form == "serial":
        log_pq = empty((1, 1, 2), dtype=np.int64, **placed)
        serial = _bidiagonal_svd_serial_kernel[Range(batch)]
        serial(work, ut, vt, tauq, taup, d, e, info, state, log_pq, m, n, mode, eps, limit)
    elif batch and n and not vectors:  # every singular value at once
        _bidiagonal_stepped(work, tauq, taup, d, e)
        d = _bisection(d, e, 1)
    elif batch and n:
        _bidiagonal_stepped(work, tauq, taup, d, e)
        if vectors:
            ut, vt = _bidiagonal_vectors(work, tauq, taup)
        tol = xp.multiply(xp.max(xp.add(xp.abs(d), xp.abs(e)), axis=-1), BIDIAGONAL_TOL * eps)
        cap = 2 * (n + 1) * (QL_LOG_SWEEPS or n) if vectors else 1  # a sweep turns U 2 n times at most
        log_u, log_v = (empty((batch, cap, 2), dtype=np.int64, **placed) for _ in range(2))
        cs_u, cs_v = (empty((batch, cap, 2), dtype=np.float64, **placed) for _ in range(2))
        for _ in range(n * limit + 1):  # a pass ends the method or logs a sweep at least
            args = (d, e, info, state, tol, log_u, cs_u, log_v, cs_v, n, limit, cap, 2 if vectors else 0)
            if n <= QL_LOCAL_N:
                _bidiagonal_qr_log_kernel[NdRange((batch,), (1,))](*args)
            else:
                _bidiagonal_qr_log_global_kernel[Range(batch)](*args)
            if vectors:
                _rotations(ut, log_u, cs_u, state, vt, log_v, cs_v)
            at: Any = state[:, 0]
            done: Any = np.all(at < 0)
            if bool(done):
                break
        else:
            raise np.linalg.LinAlgError("SVD did not converge")
    if any_nonzero(info) and bool(np.all(np.isfinite(d))):
        raise np.linalg.LinAlgError("SVD did not converge")
    sigma: ndarray = xp.abs(d).astype(np.dtype(dtype.char.lower()))
    if not vectors:
        return None, None, sigma, None
    v: ndarray = xp.swapaxes(vt, -1, -2)
    signs = xp.where(xp.less(d, 0), -1.0, 1.0)[:, None, :]
    u: ndarray = xp.multiply(xp.swapaxes(ut, -1, -2), signs).astype(dtype)
    if form == "serial":
        return work, v, sigma, u
    scaled: ndarray = xp.multiply(xp.swapaxes(ut, -1, -2), d[:, None, :]).astype(dtype)
    return scaled, v, sigma, u


def svd(
    a: ndarray, dtype: np.dtype, vectors: bool
) -> tuple[ndarray | None, ndarray | None, ndarray, ndarray | None]:
    """The rotated columns (column p is sigma_p u_p) and V of the stack `a` (..., m, n), m >= n,
    in `dtype` where `vectors` is set, the singular values (batch, n; unsorted) and, where the
    method gives them, U's first n columns (else None): by bidiagonalization on CPU devices and
    for GPUs' larger matrices (:func:`svd_bidiagonal`), else by one-sided Jacobi rotations
    (:func:`svd_jacobi`; the singular values are the norms of the rotated columns)."""
    n = a.shape[-1]
    batch = int(np.prod(a.shape[:-2], dtype=np.int64))
    form = _svd_form(a.sycl_queue.device, batch, n)
    a, top = _scaled(a, dtype)
    xp: Any = np
    u = None
    if form in ("serial", "stepped"):
        w, v, sigma, u = svd_bidiagonal(a, dtype, vectors, form)
    else:
        w, v = svd_jacobi(a, dtype)
        wd = w.astype(np.result_type(dtype, np.float64), copy=False)  # squares of float32 overflow
        squares = xp.add(xp.square(wd.real), xp.square(wd.imag)) if dtype.kind == "c" else xp.square(wd)
        sigma = xp.sqrt(xp.sum(squares, axis=-2)).astype(np.dtype(dtype.char.lower()), copy=False)
    if top is not None:
        sigma = xp.multiply(sigma, top[:, None]).astype(sigma.dtype)
    if top is not None and w is not None:
        w = xp.multiply(w, top[:, None, None]).astype(w.dtype)
    return w, v, sigma, u


# -- QR: Householder reflections ------------------------------------------------------------------
@kernel
def _form_q_kernel(a, tau, q, w, m, n, k, qcols):
    """Q[b] (m x qcols) = H_0 ... H_{k-1} (``H = I - tau v v^H``) applied to the first qcols
    columns of the identity, from the reflectors the Householder kernel left in a[b] (LAPACK's
    ``org2r`` / ``zung2r``), then a[b] below its diagonal set to zero (leaving R); w[b] is
    scratch."""
    b = get_group_id(0)
    t = get_local_id(0)
    idx = t
    while idx < m * qcols:
        q[b, idx // qcols, idx % qcols] = 1.0 if idx // qcols == idx % qcols else 0.0
        idx += GROUP
    barrier(_FENCES)
    for jj in range(k):
        j = k - 1 - jj
        tj = tau[b, j]
        c = j + t
        while c < qcols:
            acc = q[b, j, c]
            for r2 in range(j + 1, m):
                acc += a[b, r2, j].conjugate() * q[b, r2, c]
            w[b, c] = acc
            c += GROUP
        barrier(_FENCES)
        cols = qcols - j
        idx = t
        while idx < (m - j) * cols:
            r = j + idx // cols
            c = j + idx % cols
            vr = 1.0 if r == j else a[b, r, j]
            q[b, r, c] = q[b, r, c] - tj * vr * w[b, c]
            idx += GROUP
        barrier(_FENCES)
    idx = t
    while idx < m * n:
        if idx // n > idx % n:
            a[b, idx // n, idx % n] = 0.0
        idx += GROUP


@func
def _reflector(a, tau, w, m, r0, j, b, t, partial, beta_of):
    """The reflector of column j of matrix b from row r0 by its work-group (work-item t): the
    column below row r0 scaled to v (its first element 1 implied), tau[b, j] set and a[b, r0, j]
    written with beta (real, ``zlarfg``'s: R's diagonal entry for QR, where r0 is j); w is the
    step's other work's scratch, untouched here; `partial` and `beta_of` are the work-group's
    local arrays."""
    acc = 0.0
    r = r0 + 1 + t
    while r < m:
        x = a[b, r, j]
        acc += _abs2(x)
        r += GROUP
    partial[t] = acc
    _group_sum(partial, t)
    if t == 0:
        below = partial[0]
        alpha = a[b, r0, j]
        re = alpha.real
        im = alpha.imag
        if below == 0.0 and im == 0.0:
            tau[b, j] = 0.0
            beta_of[0] = re
        else:
            beta = _reflector_beta(alpha, below)
            tau[b, j] = (beta - alpha) / beta
            beta_of[0] = beta
    barrier(_FENCES)
    # the scale in double precision, by each work-item: a single-precision column of subnormal
    # size has a scale beyond single precision's range, though the scaled column is not
    scale = 1.0 / (a[b, r0, j] * 1.0 - beta_of[0]) if tau[b, j] != 0.0 else a[b, r0, j] * 0.0 + 1.0
    r = r0 + 1 + t
    while r < m:
        a[b, r, j] = a[b, r, j] * scale
        r += GROUP
    barrier(_FENCES)
    if t == 0:
        a[b, r0, j] = beta_of[0]


@kernel
def _householder_kernel(a, tau, w, m, n):
    """Factor each a[b] (m x n) in place as LAPACK's ``geqr2`` / ``zgeqr2`` do: R on and above the
    diagonal (a real diagonal, ``zlarfg``'s beta), the reflectors ``H = I - tau v v^H`` below it
    (unit first element implied), their scales in tau[b], ``H^H`` applied to the trailing columns;
    w[b] (length max(m, n)) is scratch. One kernel for real and complex stacks: ``.real``,
    ``.imag`` and ``.conjugate()`` of a real value are the value, 0 and the value."""
    b = get_group_id(0)
    t = get_local_id(0)
    partial = local_array((GROUP,), np.float64)
    beta_of = local_array((1,), np.float64)
    k = min(m, n)
    for j in range(k):
        _reflector(a, tau, w, m, j, j, b, t, partial, beta_of)
        tj = tau[b, j].conjugate()  # H^H
        c = j + 1 + t
        while c < n:  # w_c = v^H a[j:, c]
            acc2 = a[b, j, c]
            for r2 in range(j + 1, m):
                acc2 += a[b, r2, j].conjugate() * a[b, r2, c]
            w[b, c] = acc2
            c += GROUP
        barrier(_FENCES)
        cols = n - j - 1
        idx = t
        while idx < (m - j) * cols:
            r = j + idx // cols
            c = j + 1 + idx % cols
            if r == j:
                a[b, r, c] = a[b, r, c] - tj * w[b, c]
            else:
                a[b, r, c] = a[b, r, c] - tj * a[b, r, j] * w[b, c]
            idx += GROUP
        barrier(_FENCES)


@kernel
def _householder_serial_kernel(a, tau, q, w, m, n, qcols):
    """:func:`_householder_kernel` then :func:`_form_q_kernel`, one work-item per matrix (CPU
    devices, where a work-group's barriers cost more than the steps they separate)."""
    b = get_global_id(0)
    k = min(m, n)
    for j in range(k):
        below = 0.0
        for r in range(j + 1, m):
            x = a[b, r, j]
            below += _abs2(x)
        alpha = a[b, j, j]
        if below == 0.0 and alpha.imag == 0.0:
            tau[b, j] = 0.0
            continue
        beta = _reflector_beta(alpha, below)
        tau[b, j] = (beta - alpha) / beta
        scale = 1.0 / (alpha - beta)
        for r in range(j + 1, m):
            a[b, r, j] = a[b, r, j] * scale
        a[b, j, j] = beta
        tj = tau[b, j].conjugate()  # H^H applied to the trailing columns, row by row
        for c in range(j + 1, n):
            w[b, c] = a[b, j, c]
        for r in range(j + 1, m):
            vr = a[b, r, j].conjugate()
            for c in range(j + 1, n):
                w[b, c] = w[b, c] + vr * a[b, r, c]
        for c in range(j + 1, n):
            a[b, j, c] = a[b, j, c] - tj * w[b, c]
        for r in range(j + 1, m):
            f = tj * a[b, r, j]
            for c in range(j + 1, n):
                a[b, r, c] = a[b, r, c] - f * w[b, c]
    for r in range(m):
        for c in range(qcols):
            q[b, r, c] = 1.0 if r == c else 0.0
    for jj in range(k):
        j = k - 1 - jj
        tj = tau[b, j]
        for c in range(j, qcols):
            w[b, c] = q[b, j, c]
        for r in range(j + 1, m):
            vr = a[b, r, j].conjugate()
            for c in range(j, qcols):
                w[b, c] = w[b, c] + vr * q[b, r, c]
        for c in range(j, qcols):
            q[b, j, c] = q[b, j, c] - tj * w[b, c]
        for r in range(j + 1, m):
            f = tj * a[b, r, j]
            for c in range(j, qcols):
                q[b, r, c] = q[b, r, c] - f * w[b, c]
    for r in range(1, m):
        for c in range(min(r, n)):
            a[b, r, c] = 0.0


@kernel
def _reflector_kernel(a, tau, w, m, r0, j):
    """The reflector of column j from row r0 of each a[b] (the stepped forms: one work-group per
    matrix), :func:`_reflector`."""
    b = get_group_id(0)
    t = get_local_id(0)
    partial = local_array((GROUP,), np.float64)
    beta_of = local_array((1,), np.float64)
    _reflector(a, tau, w, m, r0, j, b, t, partial, beta_of)


#: columns per work-group of :func:`_reflector_dots_kernel` (its work-items split the rows among
#: GROUP // _DOT_COLUMNS slices: the 16 columns of a row are one coalesced read)
_DOT_COLUMNS = 16


@kernel
def _reflector_dots_kernel(x, a, w, iu, m, r0, j, c0, cols):
    """w[b, c] = v^H x[b, r0:, c] for the `cols` columns c from c0 of each x[b] (v: column j of
    a[b] below row r0, its first element 1), a work-group per :data:`_DOT_COLUMNS` columns: its
    work-items read neighbouring elements of a row, take every GROUP // _DOT_COLUMNS-th row and
    sum in local memory, the real and imaginary parts apart (`iu[0]` is 1j for complex matrices,
    else 0)."""
    blocks = (cols + _DOT_COLUMNS - 1) // _DOT_COLUMNS
    g = get_group_id(0)
    t = get_local_id(0)
    b = g // blocks
    c = c0 + (g % blocks) * _DOT_COLUMNS + t % _DOT_COLUMNS
    re = local_array((GROUP,), np.float64)
    im = local_array((GROUP,), np.float64)
    acc_re = 0.0
    acc_im = 0.0
    if c < c0 + cols:
        r = r0 + t // _DOT_COLUMNS
        while r < m:
            p = x[b, r, c] if r == r0 else a[b, r, j].conjugate() * x[b, r, c]
            acc_re += p.real
            acc_im += p.imag
            r += GROUP // _DOT_COLUMNS
    re[t] = acc_re
    im[t] = acc_im
    barrier(LOCAL_MEM_FENCE)
    if t < _DOT_COLUMNS and c < c0 + cols:
        sum_re = 0.0
        sum_im = 0.0
        for k in range(GROUP // _DOT_COLUMNS):
            sum_re += re[t + k * _DOT_COLUMNS]
            sum_im += im[t + k * _DOT_COLUMNS]
        w[b, c] = sum_re + iu[0] * sum_im


def _imaginary_unit(x: ndarray) -> ndarray:
    """[1j] for a complex `x`, else [0], in its dtype on its queue (the kernels that sum real and
    imaginary parts apart put them together with it)."""
    return asarray(np.array([1j if x.dtype.kind == "c" else 0], dtype=x.dtype), sycl_queue=x.sycl_queue)


def _dots(x: ndarray, a: ndarray, w: ndarray, iu: ndarray, r0: int, j: int, c0: int, cols: int) -> None:
    """:func:`_reflector_dots_kernel` over the stack."""
    batch, m = x.shape[0], x.shape[1]
    blocks = -(-cols // _DOT_COLUMNS)
    _reflector_dots_kernel[NdRange((batch * blocks * GROUP,), (GROUP,))](x, a, w, iu, m, r0, j, c0, cols)


@kernel
def _reflector_apply_kernel(x, a, tau, w, m, r0, j, c0, cols, total, adjoint):
    """x[b, r0:, c] -= t v w[b, c] for those columns (t = conj(tau[b, j]) where `adjoint` is 1,
    H^H; else tau[b, j]), a work-item per element (`total` of them; the launch is padded to whole
    work-groups)."""
    g = get_global_id(0)
    if g < total:
        per = (m - r0) * cols
        b = g // per
        e = g % per
        r = r0 + e // cols
        c = c0 + e % cols
        tj = tau[b, j]
        if adjoint != 0:
            tj = tau[b, j].conjugate()
        if r == r0:
            x[b, r, c] = x[b, r, c] - tj * w[b, c]
        else:
            x[b, r, c] = x[b, r, c] - tj * a[b, r, j] * w[b, c]


@kernel
def _identity_rows_kernel(q, rows, cols):
    """q[b] (rows x cols) = the first `cols` columns of the identity, a work-item per element."""
    g = get_global_id(0)
    e = g % (rows * cols)
    q[g // (rows * cols), e // cols, e % cols] = 1.0 if e // cols == e % cols else 0.0


@kernel
def _zero_below_kernel(a, m, n):
    """a[b] below its diagonal set to zero, a work-item per element."""
    g = get_global_id(0)
    e = g % (m * n)
    if e // n > e % n:
        a[g // (m * n), e // n, e % n] = 0.0


def _padded(total: int) -> NdRange:
    """An NdRange of `total` work-items padded to whole work-groups of :data:`_UPDATE_GROUP`."""
    return NdRange((-(-total // _UPDATE_GROUP) * _UPDATE_GROUP,), (_UPDATE_GROUP,))


def _householder_stepped(work: ndarray, tau: ndarray, q: ndarray, w: ndarray, q_cols: int) -> None:
    """Householder QR of a few large matrices by a few launches per column (GPUs): the reflector
    by a work-group per matrix, the products with the trailing columns by a work-group per 16
    columns and their update by a work-item per element, so the whole device works on them; then
    Q the same way, backwards."""
    batch, m, n = work.shape
    k = min(m, n)
    iu = _imaginary_unit(work)
    for j in range(k):
        _reflector_kernel[NdRange((batch * GROUP,), (GROUP,))](work, tau, w, m, j, j)
        cols = n - j - 1
        if cols:
            _dots(work, work, w, iu, j, j, j + 1, cols)
            total = batch * (m - j) * cols
            _reflector_apply_kernel[_padded(total)](work, work, tau, w, m, j, j, j + 1, cols, total, 1)
    _identity_rows_kernel[Range(batch * m * q_cols)](q, m, q_cols)
    for jj in range(k):
        j = k - 1 - jj
        cols = q_cols - j
        if cols > 0:
            _dots(q, work, w, iu, j, j, j, cols)
            total = batch * (m - j) * cols
            _reflector_apply_kernel[_padded(total)](q, work, tau, w, m, j, j, j, cols, total, 0)
    _zero_below_kernel[Range(batch * m * n)](work, m, n)


def householder_qr(a: ndarray, dtype: np.dtype, complete: bool) -> tuple[ndarray, ndarray]:
    """Q (batch, m, m or k) and R (batch, m or k, n) of the stack `a` (..., m, n) in `dtype` (real,
    or complex as LAPACK's ``zgeqrf``: R's diagonal real), k = min(m, n); `complete` gives the
    square Q."""
    a, top = _scaled(a, dtype)
    work = _stack(a, dtype)
    batch, m, n = work.shape
    k = min(m, n)
    q_cols = m if complete else k
    placed = {"sycl_queue": work.sycl_queue, "usm_type": work.usm_type}
    tau = zeros((batch, max(k, 1)), dtype=dtype, **placed)
    scratch = empty((batch, max(n, m, 1)), dtype=dtype, **placed)
    q = empty((batch, m, q_cols), dtype=dtype, **placed)
    form = _lu_form(work.sycl_queue.device, batch, max(m, n)) if batch and m else "none"
    if form == "serial":
        _householder_serial_kernel[Range(batch)](work, tau, q, scratch, m, n, q_cols)
    elif form == "stepped":
        _householder_stepped(work, tau, q, scratch, q_cols)
    if form == "group" and n:
        _householder_kernel[NdRange((batch * GROUP,), (GROUP,))](work, tau, scratch, m, n)
    if form == "group":
        _form_q_kernel[NdRange((batch * GROUP,), (GROUP,))](work, tau, q, scratch, m, n, k, q_cols)
    r: ndarray = work[:, : m if complete else k, :]
    if top is not None:
        r = np.multiply(r, top[:, None, None]).astype(dtype)
    return q, r


__all__ = [
    "GROUP",
    "LU",
    "MAX_SWEEPS",
    "any_nonzero",
    "cholesky_factor",
    "eigh",
    "eigh_jacobi",
    "eigh_tridiagonal",
    "lu_factor",
    "lu_solve",
    "svd",
    "svd_bidiagonal",
    "svd_jacobi",
]
