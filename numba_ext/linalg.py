"""The array API's linear algebra extension (``numba_ext.linalg``) on numba_ext arrays: the products,
norms, traces, diagonals, cross products and matrix powers, each composed from the eager
operations; the solvers on LU and Cholesky factorizations (``det``, ``slogdet``, ``solve``,
``inv``, ``cholesky``, negative ``matrix_power``), the symmetric eigensolvers (``eigh``,
``eigvalsh``), ``qr`` and the singular values (``svd``, ``svdvals``, ``matrix_rank``, ``pinv``, the
spectral ``matrix_norm``) on the Householder and Jacobi kernels of ``numba_ext.decompositions``; all
computed on the arrays' queue. Singular or non-positive-definite matrices raise NumPy's
``LinAlgError``. Complex matrices: ``det``, ``slogdet``, ``solve``, ``inv``, ``cholesky`` and
``qr`` (the LU, Cholesky and Householder factorizations take them), ``eigvalsh``, ``svdvals``,
``matrix_rank``, ``pinv`` and the spectral norms (through the real form ``[[B, -C], [C, B]]`` of
``B + iC``); the eigenvectors and singular vectors of complex matrices (``eigh``, ``svd``) have no
device implementation yet: ``UnsupportedError``, rather than computing on the host behind the
caller's back.

May import: ``numba_ext.array_api``, ``numba_ext.decompositions`` and the layers below them.
"""

from __future__ import annotations

import math
from typing import Any, Literal, NamedTuple

import numpy as np

from . import array_api as xp
from . import decompositions
from .array_api import matmul, matrix_transpose, tensordot, vecdot
from .arrays import ndarray
from .arrays.dtypes import default_float
from .errors import UnsupportedError

_np: Any = np  # NumPy's functions, untyped: on numba_ext arrays they dispatch to the eager library


def _floating(fn: str, x: ndarray) -> ndarray:
    x = xp._array(fn, x)
    if x.dtype.kind not in "fc":
        raise TypeError(f"numba_ext.linalg.{fn}(): x must have a floating-point dtype, not {x.dtype}")
    return x


def _matrices(fn: str, x: ndarray) -> ndarray:
    x = xp._array(fn, x)
    if x.ndim < 2:
        raise ValueError(f"numba_ext.linalg.{fn}(): x must have at least 2 dimensions, not {x.ndim}")
    return x


def cross(x1: ndarray, x2: ndarray, /, *, axis: int = -1) -> ndarray:
    """The cross product of 3-element vectors along `axis` of the broadcast operands."""
    a, b = xp._array("cross", x1, "x1"), xp._array("cross", x2, "x2")
    try:
        shape = np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise ValueError(
            f"numba_ext.linalg.cross(): x1 of shape {a.shape} and x2 of shape {b.shape} do not broadcast"
        ) from None
    a, b = xp.broadcast_to(a, shape), xp.broadcast_to(b, shape)
    axis = xp._axis(axis)
    if not -a.ndim <= axis < a.ndim:
        raise ValueError(f"numba_ext.linalg.cross(): axis {axis} is out of range for rank {a.ndim}")
    if a.shape[axis] != 3 or b.shape[axis] != 3:
        raise ValueError("numba_ext.linalg.cross(): the vectors along axis must have 3 elements")
    a, b = _np.moveaxis(a, axis, -1), _np.moveaxis(b, axis, -1)
    parts = [
        _np.subtract(_np.multiply(a[..., i], b[..., j]), _np.multiply(a[..., j], b[..., i]))
        for i, j in ((1, 2), (2, 0), (0, 1))
    ]
    result: ndarray = _np.moveaxis(xp.stack(parts, axis=-1), -1, axis)
    return result


def diagonal(x: ndarray, /, *, offset: int = 0) -> ndarray:
    """The `offset`-th diagonal of each matrix (the last two axes): a view."""
    x = _matrices("diagonal", x)
    result: ndarray = _np.diagonal(x, offset, -2, -1)
    return result


def matrix_norm(
    x: ndarray, /, *, keepdims: bool = False, ord: float | Literal["fro", "nuc"] | None = "fro"
) -> ndarray:
    """The norm of each matrix (the last two axes): Frobenius, or the largest (smallest) sum of
    absolute values over columns (1, -1) or rows (inf, -inf)."""
    x = _matrices("matrix_norm", _floating("matrix_norm", x))
    magnitude = _np.absolute(x)
    if ord == "fro" or ord is None:
        result: ndarray = _np.sqrt(
            _np.sum(_np.multiply(magnitude, magnitude), axis=(-2, -1), keepdims=keepdims)
        )
        return result
    if ord in (1, -1, math.inf, -math.inf):
        along = -2 if ord in (1, -1) else -1
        sums = _np.sum(magnitude, axis=along, keepdims=True)
        pick = _np.max if ord in (1, math.inf) else _np.min
        result = pick(sums, axis=-1 if along == -2 else -2, keepdims=True)
        return result if keepdims else result[..., 0, 0]
    if ord in (2, -2, "nuc"):
        sigma = svdvals(x)
        if ord == "nuc":
            result = _np.sum(sigma, axis=-1)
        else:
            result = sigma[..., 0] if ord == 2 else sigma[..., -1]
        return result[..., None, None] if keepdims else result
    raise ValueError(f"numba_ext.linalg.matrix_norm(): invalid ord {ord!r}")


def matrix_power(x: ndarray, n: int, /) -> ndarray:
    """Each square matrix (the last two axes) to the integer power `n` >= 0, by repeated squaring."""
    x = _matrices("matrix_power", x)
    if x.shape[-1] != x.shape[-2]:
        raise ValueError(f"numba_ext.linalg.matrix_power(): matrices must be square, not {x.shape[-2:]}")
    n = int(n)
    if n < 0:
        x, n = inv(x), -n
    size = x.shape[-1]
    eye = xp.eye(size, dtype=x.dtype, sycl_queue=x.sycl_queue, usm_type=x.usm_type)
    result = xp.broadcast_to(eye, x.shape).copy()
    square = x
    while n:
        if n & 1:
            result = matmul(result, square)
        n >>= 1
        if n:
            square = matmul(square, square)
    return result


# -- solvers on factorizations --------------------------------------------------------------------
def _square(fn: str, x: ndarray, complex_ok: bool = False) -> tuple[ndarray, np.dtype]:
    """`x` checked as a stack of square matrices, and the dtype its factorization computes in
    (its own floating dtype; integers and bools in the device's default float, as NumPy's float64);
    complex matrices only where `complex_ok` (the LU and Cholesky factorizations take them)."""
    x = _matrices(fn, x)
    if x.shape[-1] != x.shape[-2]:
        raise np.linalg.LinAlgError(
            f"numba_ext.linalg.{fn}(): the last two dimensions must be square, not {x.shape[-2:]}"
        )
    if x.dtype.kind == "c" and not complex_ok:
        raise UnsupportedError(
            f"numba_ext.linalg.{fn}() of complex matrices has no device implementation yet"
        )
    return x, _float_dtype(x)


def _lu_diagonal(f: decompositions.LU) -> ndarray:
    diag: ndarray = _np.diagonal(f.lu, 0, -2, -1)
    return diag


def _permutation_signs(f: decompositions.LU) -> ndarray:
    """+1 or -1 per matrix: the parity of its row swaps."""
    n = f.piv.shape[-1]
    steps = xp.arange(n, dtype=np.int64, sycl_queue=f.piv.sycl_queue)
    swaps = _np.sum(_np.not_equal(f.piv, steps), axis=-1)
    signs: ndarray = _np.subtract(1, _np.multiply(2, _np.remainder(swaps, 2)))
    return signs


def det(x: ndarray, /) -> ndarray:
    """The determinant of each square matrix (the last two axes), from its LU factorization."""
    x, dt = _square("det", x, complex_ok=True)
    f = decompositions.lu_factor(x, dt)
    if x.shape[-1] == 0:
        return xp.ones(x.shape[:-2], dtype=dt, sycl_queue=x.sycl_queue, usm_type=x.usm_type)
    d = _np.multiply(_np.prod(_lu_diagonal(f), axis=-1), _permutation_signs(f))
    result: ndarray = d.astype(dt, copy=False).reshape(x.shape[:-2])
    return result


class SlogdetResult(NamedTuple):
    sign: ndarray
    logabsdet: ndarray


def slogdet(x: ndarray, /) -> SlogdetResult:
    """The sign and the natural log of the absolute value of each matrix's determinant (sign 0 and
    log -inf for a singular matrix)."""
    x, dt = _square("slogdet", x, complex_ok=True)
    shape = x.shape[:-2]
    if x.shape[-1] == 0:
        one = xp.ones(shape, dtype=dt, sycl_queue=x.sycl_queue, usm_type=x.usm_type)
        return SlogdetResult(one, xp.zeros_like(one))
    f = decompositions.lu_factor(x, dt)
    diag = _lu_diagonal(f)
    magnitude = _np.absolute(diag)
    if dt.kind == "c":  # the phase of each pivot (0 for a zero pivot: a singular matrix's sign)
        units = _np.divide(diag, _np.where(_np.equal(magnitude, 0), 1, magnitude))
    else:
        units = _np.sign(diag)
    sign = _np.multiply(_np.prod(units, axis=-1), _permutation_signs(f)).astype(dt, copy=False)
    logabs = _np.sum(_np.log(magnitude), axis=-1)
    return SlogdetResult(sign.reshape(shape), logabs.reshape(shape))


def _factored(fn: str, x: ndarray, dt: np.dtype) -> decompositions.LU:
    f = decompositions.lu_factor(x, dt)
    if decompositions.any_nonzero(f.info):
        raise np.linalg.LinAlgError("Singular matrix")
    return f


def solve(x1: ndarray, x2: ndarray, /) -> ndarray:
    """The solution of ``x1 @ result == x2`` for each square matrix of `x1`; `x2` holds matrices
    (..., M, K), or one vector of shape (M,) for every matrix. Batch dimensions broadcast."""
    a, dt = _square("solve", x1, complex_ok=True)
    b = xp._array("solve", x2, "x2")
    m = a.shape[-1]
    vector = b.ndim == 1
    if vector:
        if b.shape[0] != m:
            raise ValueError(f"numba_ext.linalg.solve(): x2 of shape {b.shape} does not match x1's {a.shape}")
        b = b[:, None]
    elif b.shape[-2] != m:
        raise ValueError(f"numba_ext.linalg.solve(): x2 of shape {b.shape} does not match x1's {a.shape}")
    try:
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError:
        raise ValueError(
            f"numba_ext.linalg.solve(): the stacks of x1 {a.shape} and x2 {x2.shape} do not broadcast"
        ) from None
    k = b.shape[-1]
    a = xp.broadcast_to(a, batch + (m, m))
    b = xp.broadcast_to(b, batch + (m, k))
    count = math.prod(batch)
    out_dt = np.result_type(dt, b.dtype) if b.dtype.kind in "fc" else dt
    f = _factored("solve", a, out_dt)
    x = decompositions.lu_solve(f, b.reshape(count, m, k) if count else b.reshape(0, m, k))
    result: ndarray = x.reshape(batch + (m, k))
    return result[..., 0] if vector else result


def inv(x: ndarray, /) -> ndarray:
    """The inverse of each square matrix (the last two axes)."""
    a, dt = _square("inv", x, complex_ok=True)
    n = a.shape[-1]
    eye = xp.eye(n, dtype=dt, sycl_queue=a.sycl_queue, usm_type=a.usm_type)
    count = math.prod(a.shape[:-2])
    f = _factored("inv", a, dt)
    rhs = xp.broadcast_to(eye, (count, n, n))
    result: ndarray = decompositions.lu_solve(f, rhs).reshape(a.shape)
    return result


def cholesky(x: ndarray, /, *, upper: bool = False) -> ndarray:
    """The lower (or, with `upper`, upper: its conjugate transpose) Cholesky factor of each
    symmetric (Hermitian) positive-definite matrix (only the lower triangle of `x` is read)."""
    a, dt = _square("cholesky", x, complex_ok=True)
    factor, info = decompositions.cholesky_factor(a, dt)
    if decompositions.any_nonzero(info):
        raise np.linalg.LinAlgError("Matrix is not positive definite")
    result = factor.reshape(a.shape)
    if not upper:
        return result
    upper_factor = matrix_transpose(result)
    conj: ndarray = _np.conjugate(upper_factor) if dt.kind == "c" else upper_factor
    return conj


# -- eigenvalues and singular values (Jacobi rotations) ---------------------------------------------
class EighResult(NamedTuple):
    eigenvalues: ndarray
    eigenvectors: ndarray


def eigh(x: ndarray, /) -> EighResult:
    """The eigenvalues (ascending) and eigenvectors (columns) of each real symmetric matrix (its
    lower triangle is read)."""
    a, dt = _square("eigh", x)
    values, vectors = decompositions.eigh_jacobi(a, dt)
    order = _np.argsort(values, axis=-1, kind="stable")
    columns = xp.broadcast_to(order[:, None, :], vectors.shape)
    return EighResult(
        _np.take_along_axis(values, order, axis=-1).reshape(a.shape[:-1]),
        _np.take_along_axis(vectors, columns, axis=-1).reshape(a.shape),
    )


def eigvalsh(x: ndarray, /) -> ndarray:
    """The eigenvalues (ascending) of each real symmetric matrix (its lower triangle is read)."""
    a, dt = _square("eigvalsh", x, complex_ok=True)
    if dt.kind == "c":  # each eigenvalue twice in the real form, sorted: every other one
        twice = eigvalsh(_real_form(_hermitian_lower(a)))
        pairs: ndarray = twice[..., ::2].copy()
        return pairs
    values, _ = decompositions.eigh_jacobi(a, dt)
    result: ndarray = _np.sort(values, axis=-1).reshape(a.shape[:-1])
    return result


def _rotated(fn: str, x: ndarray) -> tuple[ndarray, ndarray, ndarray, bool, np.dtype]:
    """One-sided Jacobi of each matrix, or of its transpose when it is wide: the rotated columns
    W (sigma_p u_p), V, the singular values (unsorted) and whether it was transposed."""
    x = _matrices(fn, x)
    if x.dtype.kind == "c":
        raise UnsupportedError(
            f"numba_ext.linalg.{fn}() of complex matrices has no device implementation yet"
        )
    dt = _float_dtype(x)
    wide = x.shape[-2] < x.shape[-1]
    w, v = decompositions.svd_jacobi(matrix_transpose(x) if wide else x, dt)
    sigma = _np.sqrt(_np.sum(_np.multiply(w, w), axis=-2))
    return w, v, sigma, wide, dt


class QRResult(NamedTuple):
    Q: ndarray
    R: ndarray


def qr(x: ndarray, /, *, mode: Literal["reduced", "complete"] = "reduced") -> QRResult:
    """The QR decomposition of each matrix by Householder reflections (LAPACK's signs: R's
    diagonal is the negated sign of the pivot column's leading element's real part times its
    norm; real for complex matrices too)."""
    x = _matrices("qr", x)
    if mode not in ("reduced", "complete"):
        raise ValueError(f"numba_ext.linalg.qr(): mode must be 'reduced' or 'complete', not {mode!r}")
    q, r = decompositions.householder_qr(x, _float_dtype(x), mode == "complete")
    stack = x.shape[:-2]
    return QRResult(q.reshape(stack + q.shape[1:]), r.reshape(stack + r.shape[1:]))


class SVDResult(NamedTuple):
    U: ndarray
    S: ndarray
    Vh: ndarray


def svd(x: ndarray, /, *, full_matrices: bool = True) -> SVDResult:
    """The singular value decomposition ``x = U @ diag(S) @ Vh`` of each matrix, singular values
    descending: one-sided Jacobi gives S, V and the columns S_i u_i; the u_i, completed to an
    orthonormal basis where S has zeros (or ``full_matrices`` asks for it), come from a
    Householder QR of them."""
    x = _matrices("svd", x)
    if x.dtype.kind == "c":
        raise UnsupportedError("numba_ext.linalg.svd() of complex matrices has no device implementation yet")
    m, n = x.shape[-2:]
    stack, dt = x.shape[:-2], _float_dtype(x)
    placed = {"sycl_queue": x.sycl_queue, "usm_type": x.usm_type}
    if min(m, n) == 0:
        u = xp.broadcast_to(
            xp.eye(m, m if full_matrices else 0, dtype=dt, **placed), stack + (m, m if full_matrices else 0)
        )
        vh = xp.broadcast_to(
            xp.eye(n if full_matrices else 0, n, dtype=dt, **placed), stack + (n if full_matrices else 0, n)
        )
        return SVDResult(u.copy(), xp.zeros(stack + (0,), dtype=dt, **placed), vh.copy())
    w, v, sigma, wide, dt = _rotated("svd", x)
    big, k = w.shape[1], w.shape[2]  # the rotated matrix is big x k, big >= k
    order = _np.argsort(_np.negative(sigma), axis=-1, kind="stable")
    sigma = _np.take_along_axis(sigma, order, axis=-1)
    w = _np.take_along_axis(w, xp.broadcast_to(order[:, None, :], w.shape), axis=-1)
    v = _np.take_along_axis(v, xp.broadcast_to(order[:, None, :], v.shape), axis=-1)
    positive = _np.greater(sigma, 0)
    u_hat = _np.where(positive[:, None, :], _np.true_divide(w, _np.where(positive, sigma, 1)[:, None, :]), 0)
    q, r = decompositions.householder_qr(u_hat, dt, full_matrices)
    signs = _np.sign(_np.diagonal(r[:, :k, :k], 0, -2, -1))
    signs = _np.where(_np.equal(signs, 0), 1, signs).astype(dt, copy=False)
    first = _np.multiply(q[:, :, :k], signs[:, None, :])
    u_big = xp.concat([first, q[:, :, k:]], axis=-1) if q.shape[-1] > k else first
    s_out = sigma.astype(dt, copy=False).reshape(stack + (k,))
    if wide:  # x^T = u_big S v^T, so x = v S u_big^T
        return SVDResult(
            v.reshape(stack + (m, m)), s_out, matrix_transpose(u_big).reshape(stack + (u_big.shape[-1], big))
        )
    return SVDResult(
        u_big.reshape(stack + (big, u_big.shape[-1])), s_out, matrix_transpose(v).reshape(stack + (n, n))
    )


def svdvals(x: ndarray, /) -> ndarray:
    """The singular values of each matrix, in descending order."""
    x = _matrices("svdvals", x)
    k = min(x.shape[-2:])
    if k == 0:
        return xp.zeros(x.shape[:-2] + (0,), dtype=_float_dtype(x).char.lower(), sycl_queue=x.sycl_queue)
    if x.dtype.kind == "c":  # each singular value twice in the real form, sorted: every other one
        pairs: ndarray = svdvals(_real_form(x))[..., ::2].copy()
        return pairs
    _, _, sigma, _, _ = _rotated("svdvals", x)
    result: ndarray = _np.negative(_np.sort(_np.negative(sigma), axis=-1))
    return result.reshape(x.shape[:-2] + (k,))


def _float_dtype(x: ndarray) -> np.dtype:
    """The dtype `x`'s decompositions compute in: its own floating dtype, integers and bools in the
    device's default float (float64, as NumPy's, where the device has it)."""
    return x.dtype if x.dtype.kind in "fc" else default_float(x.sycl_queue)


def _real_form(x: ndarray) -> ndarray:
    """The real matrix ``[[B, -C], [C, B]]`` (..., 2m, 2n) of each complex matrix ``B + iC`` of
    `x`: the map is a homomorphism of products and (conjugate) transposes, so the real form's
    singular values are each of the complex matrix's twice, its pseudo-inverse is the real form of
    the pseudo-inverse, and a Hermitian matrix's real form is symmetric with each eigenvalue twice."""
    re, im = x.real, x.imag
    top = xp.concat([re, _np.negative(im)], axis=-1)
    bottom = xp.concat([im, re], axis=-1)
    form: ndarray = xp.concat([top, bottom], axis=-2)
    return form


def _hermitian_lower(a: ndarray) -> ndarray:
    """The Hermitian matrices whose lower triangles are `a`'s (the diagonal's real part), as
    LAPACK reads a Hermitian matrix from one triangle."""
    lower = _np.tril(a, -1)
    diagonal = _np.multiply(xp.eye(a.shape[-1], dtype=a.real.dtype, sycl_queue=a.sycl_queue), a.real)
    full: ndarray = _np.add(_np.add(lower, _np.conjugate(matrix_transpose(lower))), diagonal)
    return full


def _cutoff(x: ndarray, sigma_max: ndarray, rtol: Any) -> ndarray:
    """The singular values at or below which a matrix is rank deficient: `rtol` (default
    max(M, N) times the dtype's epsilon) times the largest singular value."""
    if rtol is None:
        rtol = max(x.shape[-2:]) * float(np.finfo(sigma_max.dtype).eps)
    elif isinstance(rtol, ndarray):
        rtol = rtol[..., None]
    result: ndarray = _np.multiply(sigma_max, rtol)
    return result


def matrix_rank(x: ndarray, /, *, rtol: Any = None) -> ndarray:
    """The rank of each matrix: how many singular values exceed `rtol` times the largest."""
    x = _matrices("matrix_rank", x)
    if min(x.shape[-2:]) == 0:
        return xp.zeros(x.shape[:-2], dtype=np.int64, sycl_queue=x.sycl_queue)
    sigma = svdvals(x)
    cutoff = _cutoff(x, sigma[..., :1], rtol)
    result: ndarray = _np.sum(_np.greater(sigma, cutoff), axis=-1)
    return result


def pinv(x: ndarray, /, *, rtol: Any = None) -> ndarray:
    """The Moore-Penrose pseudo-inverse of each matrix, from its singular value decomposition;
    singular values at or below `rtol` times the largest count as zero."""
    x = _matrices("pinv", x)
    m, n = x.shape[-2:]
    if min(m, n) == 0:
        return xp.zeros(x.shape[:-2] + (n, m), dtype=_float_dtype(x), sycl_queue=x.sycl_queue)
    if x.dtype.kind == "c":  # the real form's pseudo-inverse is the real form of the pseudo-inverse
        if rtol is None:  # the complex matrix's default, not the twice larger real form's
            rtol = max(m, n) * float(np.finfo(x.dtype).eps)
        form = pinv(_real_form(x), rtol=rtol)
        result_c: ndarray = _np.add(form[..., :n, :m], _np.multiply(form[..., n:, :m], 1j)).astype(x.dtype)
        return result_c
    w, v, sigma, wide, dt = _rotated("pinv", x)
    top = _np.max(sigma, axis=-1, keepdims=True)  # (batch, 1): the stack flattened
    if isinstance(rtol, ndarray):
        rtol = xp.broadcast_to(rtol, x.shape[:-2]).reshape(-1)
    cutoff = _cutoff(x, top, rtol)
    keep = _np.greater(sigma, cutoff)
    scale = _np.where(keep, _np.true_divide(1.0, _np.where(keep, _np.multiply(sigma, sigma), 1.0)), 0.0)
    inverse = matmul(_np.multiply(v, scale[:, None, :]), matrix_transpose(w))  # V diag(1/s^2) W^T
    inverse = inverse.astype(dt, copy=False)
    result = matrix_transpose(inverse) if wide else inverse
    return result.reshape(x.shape[:-2] + (n, m))


def outer(x1: ndarray, x2: ndarray, /) -> ndarray:
    """The outer product of two 1-d arrays."""
    a, b = xp._array("outer", x1, "x1"), xp._array("outer", x2, "x2")
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError(f"numba_ext.linalg.outer(): x1 and x2 must be 1-d, not {a.ndim}-d and {b.ndim}-d")
    result: ndarray = _np.multiply(a[:, None], b[None, :])
    return result


def trace(x: ndarray, /, *, offset: int = 0, dtype: Any = None) -> ndarray:
    """The sum along the `offset`-th diagonal of each matrix (the last two axes)."""
    x = _matrices("trace", x)
    d = _np.diagonal(x, offset, -2, -1)
    if dtype is None and d.dtype.kind in "fc":
        dtype = d.dtype  # floating values keep their precision
    result: ndarray = _np.sum(d, axis=-1, dtype=dtype)
    return result


def vector_norm(
    x: ndarray,
    /,
    *,
    axis: int | tuple[int, ...] | None = None,
    keepdims: bool = False,
    ord: float = 2,
) -> ndarray:
    """The `ord`-norm of the vectors along `axis` (all elements when None): inf, -inf (the largest,
    smallest magnitude), 0 (the count of non-zeros), or the sum of magnitudes to the power `ord`."""
    x = _floating("vector_norm", x)
    magnitude = _np.absolute(x)
    real = magnitude.dtype
    if ord == math.inf:
        result: ndarray = _np.max(magnitude, axis=axis, keepdims=keepdims)
    elif ord == -math.inf:
        result = _np.min(magnitude, axis=axis, keepdims=keepdims)
    elif ord == 0:
        result = _np.sum(_np.not_equal(magnitude, 0), axis=axis, keepdims=keepdims, dtype=real)
    elif ord == 1:
        result = _np.sum(magnitude, axis=axis, keepdims=keepdims)
    elif ord == 2:
        result = _np.sqrt(_np.sum(_np.multiply(magnitude, magnitude), axis=axis, keepdims=keepdims))
    else:
        powered = _np.power(magnitude, real.type(ord))
        result = _np.power(_np.sum(powered, axis=axis, keepdims=keepdims), real.type(1.0 / ord))
    return result


# -- NumPy's np.linalg signatures on these arrays (np.linalg.solve(x, b) of numba_ext arrays) ----------
def _as_float(x: Any) -> Any:
    """Integer and bool arrays in the default float, as NumPy's linalg computes them."""
    if isinstance(x, ndarray) and x.dtype.kind not in "fc":
        return x.astype(_float_dtype(x))
    return x


def _lower_of(a: ndarray, uplo: str) -> ndarray:
    """The matrices whose lower triangle is `a`'s `uplo` triangle (NumPy's ``UPLO=``)."""
    if uplo not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    if uplo == "L":
        return a
    transposed = matrix_transpose(a)
    conj: ndarray = _np.conjugate(transposed) if a.dtype.kind == "c" else transposed
    return conj


def _numpy_eigh(a: ndarray, UPLO: str = "L") -> EighResult:
    return eigh(_lower_of(a, UPLO))


def _numpy_eigvalsh(a: ndarray, UPLO: str = "L") -> ndarray:
    return eigvalsh(_lower_of(a, UPLO))


def _numpy_cholesky(a: ndarray, /, *, upper: bool = False) -> ndarray:
    return cholesky(a, upper=upper)


def _refuse_hermitian(fn: str, hermitian: bool) -> None:
    if hermitian:
        raise UnsupportedError(f"np.linalg.{fn}(hermitian=True) of numba_ext arrays is not supported")


def _numpy_matrix_rank(A: ndarray, tol: Any = None, hermitian: bool = False, *, rtol: Any = None) -> ndarray:
    _refuse_hermitian("matrix_rank", hermitian)
    if tol is not None:
        if rtol is not None:
            raise ValueError("`tol` and `rtol` can't be both set.")
        sigma = svdvals(A)
        result: ndarray = _np.sum(_np.greater(sigma, tol), axis=-1)
        return result
    return matrix_rank(A, rtol=rtol)


def _numpy_pinv(
    a: ndarray, rcond: Any = None, hermitian: bool = False, *, rtol: Any = np._NoValue
) -> ndarray:
    _refuse_hermitian("pinv", hermitian)
    if rcond is not None and rtol is not np._NoValue:
        raise ValueError("`rtol` and `rcond` can't be both set.")
    if rtol is np._NoValue:
        rtol = 1e-15 if rcond is None else rcond  # NumPy's pinv default, not the array API's
    return pinv(a, rtol=rtol)


def _numpy_svd(
    a: ndarray, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False
) -> SVDResult | ndarray:
    _refuse_hermitian("svd", hermitian)
    return svd(a, full_matrices=full_matrices) if compute_uv else svdvals(a)


#: np.linalg's functions of numba_ext arrays, by name, in NumPy's signatures (the package routes
#: ``np.linalg.<name>(x)`` of a numba_ext array here)
NUMPY_FUNCTIONS: dict[str, Any] = {
    "cholesky": _numpy_cholesky,
    "cross": lambda a, b, /, *, axis=-1: cross(a, b, axis=axis),
    "det": lambda a: det(a),
    "diagonal": lambda x, /, *, offset=0: diagonal(x, offset=offset),
    "eigh": _numpy_eigh,
    "eigvalsh": _numpy_eigvalsh,
    "inv": lambda a: inv(a),
    "matrix_norm": lambda x, /, *, keepdims=False, ord="fro": matrix_norm(
        _as_float(x), keepdims=keepdims, ord=ord
    ),
    "matrix_power": lambda a, n: matrix_power(a, n),
    "matrix_rank": _numpy_matrix_rank,
    "outer": lambda x1, x2, /: outer(x1, x2),
    "pinv": _numpy_pinv,
    "slogdet": lambda a: slogdet(a),
    "solve": lambda a, b: solve(a, b),
    "svdvals": lambda x, /: svdvals(x),
    "qr": lambda a, mode="reduced": qr(a, mode=mode),
    "svd": _numpy_svd,
    "trace": lambda x, /, *, offset=0, dtype=None: trace(x, offset=offset, dtype=dtype),
    "vector_norm": lambda x, /, *, axis=None, keepdims=False, ord=2: vector_norm(
        _as_float(x), axis=axis, keepdims=keepdims, ord=ord
    ),
}


__all__ = [
    "NUMPY_FUNCTIONS",
    "QRResult",
    "SVDResult",
    "SlogdetResult",
    "cholesky",
    "cross",
    "EighResult",
    "det",
    "diagonal",
    "eigh",
    "eigvalsh",
    "inv",
    "matmul",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "matrix_transpose",
    "outer",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "svd",
    "svdvals",
    "tensordot",
    "trace",
    "vecdot",
    "vector_norm",
]
