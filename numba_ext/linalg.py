"""The array API's linear algebra extension (``numba_ext.linalg``) on numba_ext arrays: the products,
norms, traces, diagonals, cross products and matrix powers, each composed from the eager
operations; the solvers on LU and Cholesky factorizations (``det``, ``slogdet``, ``solve``,
``inv``, ``cholesky``, negative ``matrix_power``), the symmetric eigensolvers (``eigh``,
``eigvalsh``), ``qr`` and the singular values (``svd``, ``svdvals``, ``matrix_rank``, ``pinv``, the
spectral ``matrix_norm``) on the kernels of ``numba_ext.decompositions`` (Householder reflections,
the QL and QR methods on tridiagonal and bidiagonal forms, Jacobi rotations); all computed on the
arrays' queue. Singular or non-positive-definite matrices raise NumPy's ``LinAlgError``. Complex
matrices take every one of them: the factorizations' kernels serve real and complex stacks alike
(LAPACK's reflectors, which leave real tridiagonal and bidiagonal forms; Jacobi rotations with a
phase, as ``zgesvj``'s).

May import: ``numba_ext.array_api``, ``numba_ext.decompositions`` and the layers below them.
"""

from __future__ import annotations

import math
import operator
from typing import Any, Literal, NamedTuple, cast

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
    if x.ndim < 2:  # NumPy's kind (a ValueError, as the array API asks)
        raise np.linalg.LinAlgError(
            f"numba_ext.linalg.{fn}(): x must have at least 2 dimensions, not {x.ndim}"
        )
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
        raise np.linalg.LinAlgError(
            f"numba_ext.linalg.matrix_power(): matrices must be square, not {x.shape[-2:]}"
        )
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"numba_ext.linalg.matrix_power(): exponent must be an integer, not {n!r}") from None
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
def _square(fn: str, x: ndarray) -> tuple[ndarray, np.dtype]:
    """`x` checked as a stack of square matrices, and the dtype its factorization computes in
    (its own floating dtype; integers and bools in the device's default float, as NumPy's float64)."""
    x = _matrices(fn, x)
    if x.shape[-1] != x.shape[-2]:
        raise np.linalg.LinAlgError(
            f"numba_ext.linalg.{fn}(): the last two dimensions must be square, not {x.shape[-2:]}"
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
    """The determinant of each square matrix (the last two axes), from its LU factorization: sign
    times exp(log|det|), as NumPy's, so pivots near 1e-200 and 1e200 do not underflow or overflow
    a product that is in range."""
    sign, logabs = slogdet(x)
    result: ndarray = _np.multiply(sign, _np.exp(logabs)).astype(sign.dtype, copy=False)
    return result


class SlogdetResult(NamedTuple):
    sign: ndarray
    logabsdet: ndarray


def slogdet(x: ndarray, /) -> SlogdetResult:
    """The sign and the natural log of the absolute value of each matrix's determinant (sign 0 and
    log -inf for a singular matrix)."""
    x, dt = _square("slogdet", x)
    shape = x.shape[:-2]
    if x.shape[-1] == 0:
        one = xp.ones(shape, dtype=dt, sycl_queue=x.sycl_queue, usm_type=x.usm_type)
        return SlogdetResult(
            one, xp.zeros(shape, dtype=_real_of(dt), sycl_queue=x.sycl_queue, usm_type=x.usm_type)
        )
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
    a, dt = _square("solve", x1)
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
    out_dt = np.result_type(
        dt, b.dtype if b.dtype.kind in "fc" else np.float64
    )  # NumPy's: integers as double
    f = _factored("solve", a, out_dt)
    x = decompositions.lu_solve(f, b.reshape(count, m, k) if count else b.reshape(0, m, k))
    result: ndarray = x.reshape(batch + (m, k))
    return result[..., 0] if vector else result


def inv(x: ndarray, /) -> ndarray:
    """The inverse of each square matrix (the last two axes)."""
    a, dt = _square("inv", x)
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
    a, dt = _square("cholesky", x)
    factor, info = decompositions.cholesky_factor(a, dt)
    if decompositions.any_nonzero(info):
        raise np.linalg.LinAlgError("Matrix is not positive definite")
    result = factor.reshape(a.shape)
    if not upper:
        return result
    return _adjoint(result)


# -- eigenvalues and singular values ----------------------------------------------------------------
class EighResult(NamedTuple):
    eigenvalues: ndarray
    eigenvectors: ndarray


def eigh(x: ndarray, /) -> EighResult:
    """The eigenvalues (ascending; real) and eigenvectors (columns) of each real symmetric or
    complex Hermitian matrix (its lower triangle is read)."""
    a, dt = _square("eigh", x)
    values, found = decompositions.eigh(a, dt, True)
    vectors: Any = found
    order = _np.argsort(values, axis=-1, kind="stable")
    columns = xp.broadcast_to(order[:, None, :], vectors.shape)
    return EighResult(
        _np.take_along_axis(values, order, axis=-1).reshape(a.shape[:-1]),
        _np.take_along_axis(vectors, columns, axis=-1).reshape(a.shape),
    )


def eigvalsh(x: ndarray, /) -> ndarray:
    """The eigenvalues (ascending; real) of each real symmetric or complex Hermitian matrix (its
    lower triangle is read)."""
    a, dt = _square("eigvalsh", x)
    values, _ = decompositions.eigh(a, dt, False)
    result: ndarray = _np.sort(values, axis=-1).reshape(a.shape[:-1])
    return result


def _rotated(fn: str, x: ndarray, vectors: bool = True) -> tuple[Any, Any, ndarray, Any, bool, np.dtype]:
    """The singular value decomposition of each matrix, or of its conjugate transpose when it is
    wide, as the one-sided Jacobi method leaves it: the columns W (sigma_p u_p) and V where
    `vectors` is set (else None), the singular values (unsorted), U's columns where the method
    gives them (else None) and whether it was transposed."""
    x = _matrices(fn, x)
    dt = _float_dtype(x)
    wide = x.shape[-2] < x.shape[-1]
    w, v, sigma, u = decompositions.svd(_adjoint(x) if wide else x, dt, vectors)
    return w, v, sigma, u, wide, dt


def _real_of(dt: np.dtype) -> np.dtype:
    """The real dtype of `dt`'s values' magnitudes (float64 for complex128)."""
    return np.dtype(dt.char.lower())


def _adjoint(x: ndarray) -> ndarray:
    """The conjugate transpose of each matrix (the transpose of real ones)."""
    t = matrix_transpose(x)
    result: ndarray = _np.conjugate(t) if x.dtype.kind == "c" else t
    return result


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
    descending: bidiagonalization or one-sided Jacobi give S, V and the columns S_i u_i; the u_i,
    completed to an orthonormal basis where S has zeros (or ``full_matrices`` asks for it), come
    from a Householder QR of them."""
    x = _matrices("svd", x)
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
        return SVDResult(u.copy(), xp.zeros(stack + (0,), dtype=_real_of(dt), **placed), vh.copy())
    w, v, sigma, u, wide, dt = _rotated("svd", x)
    big, k = w.shape[1], w.shape[2]  # the rotated matrix is big x k, big >= k
    order = _np.argsort(_np.negative(sigma), axis=-1, kind="stable")
    sigma = _np.take_along_axis(sigma, order, axis=-1)
    v = _np.take_along_axis(v, xp.broadcast_to(order[:, None, :], v.shape), axis=-1)
    if u is not None:  # U's columns themselves (bidiagonalization), orthonormal where sigma is 0 too
        u_hat = _np.take_along_axis(u, xp.broadcast_to(order[:, None, :], u.shape), axis=-1)
    else:
        w = _np.take_along_axis(w, xp.broadcast_to(order[:, None, :], w.shape), axis=-1)
        positive = _np.greater(sigma, 0)
        u_hat = _np.where(
            positive[:, None, :], _np.true_divide(w, _np.where(positive, sigma, 1)[:, None, :]), 0
        )
    if u is not None and (big == k or not full_matrices):
        u_big = u_hat
    else:  # complete the columns to an orthonormal basis (and fill those of zero singular values)
        q, r = decompositions.householder_qr(u_hat, dt, full_matrices)
        signs = _np.sign(_np.diagonal(r[:, :k, :k], 0, -2, -1))
        signs = _np.where(_np.equal(signs, 0), 1, signs).astype(dt, copy=False)
        first = _np.multiply(q[:, :, :k], signs[:, None, :])
        u_big = xp.concat([first, q[:, :, k:]], axis=-1) if q.shape[-1] > k else first
    s_out = sigma.astype(_real_of(dt), copy=False).reshape(stack + (k,))
    if wide:  # x^H = u_big S v^H, so x = v S u_big^H
        return SVDResult(
            v.reshape(stack + (m, m)), s_out, _adjoint(u_big).reshape(stack + (u_big.shape[-1], big))
        )
    return SVDResult(
        u_big.reshape(stack + (big, u_big.shape[-1])), s_out, _adjoint(v).reshape(stack + (n, n))
    )


def svdvals(x: ndarray, /) -> ndarray:
    """The singular values of each matrix, in descending order."""
    x = _matrices("svdvals", x)
    k = min(x.shape[-2:])
    if k == 0:
        return xp.zeros(x.shape[:-2] + (0,), dtype=_real_of(_float_dtype(x)), sycl_queue=x.sycl_queue)
    _, _, sigma, _, _, _ = _rotated("svdvals", x, vectors=False)
    result: ndarray = _np.negative(_np.sort(_np.negative(sigma), axis=-1))
    return result.reshape(x.shape[:-2] + (k,))


def _float_dtype(x: ndarray) -> np.dtype:
    """The dtype `x`'s decompositions compute in: its own floating dtype, integers and bools in the
    device's default float (float64, as NumPy's, where the device has it); half precision is
    refused, as NumPy's factorizations refuse it."""
    if x.dtype == np.float16:
        raise TypeError("numba_ext.linalg: array type float16 is unsupported in linalg")
    return x.dtype if x.dtype.kind in "fc" else default_float(x.sycl_queue)


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
    w, v, sigma, u, wide, dt = _rotated("pinv", x)
    top = _np.max(sigma, axis=-1, keepdims=True)  # (batch, 1): the stack flattened
    if isinstance(rtol, ndarray):
        rtol = xp.broadcast_to(rtol, x.shape[:-2]).reshape(-1)
    cutoff = _cutoff(x, top, rtol)
    keep = _np.greater(sigma, cutoff)
    scale = _np.where(keep, _np.true_divide(1.0, _np.where(keep, sigma, 1.0)), 0.0)
    if u is None:  # U from the rotated columns, each divided by its singular value (not 1/s^2:
        u = _np.multiply(w, scale[:, None, :])  # that leaves the range for s near 1e-160 or 1e160)
    inverse = matmul(_np.multiply(v, scale[:, None, :]), _adjoint(u))  # V diag(1/s) U^H
    inverse = inverse.astype(dt, copy=False)
    result = _adjoint(inverse) if wide else inverse
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
    a = _matrices("eigh", a)  # the rank first, as NumPy checks it
    uplo = uplo.upper() if isinstance(uplo, str) else uplo  # NumPy's: either case
    if uplo not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    if uplo == "L":
        return a
    return _adjoint(a)


def _numpy_eigh(a: ndarray, UPLO: str = "L") -> EighResult:
    return eigh(_lower_of(a, UPLO))


def _numpy_eigvalsh(a: ndarray, UPLO: str = "L") -> ndarray:
    return eigvalsh(_lower_of(a, UPLO))


def _numpy_qr(a: ndarray, mode: str = "reduced") -> Any:
    """np.linalg.qr's modes: "reduced", "complete", and "r" (R alone); LAPACK's packed "raw"
    form has no device counterpart."""
    if mode == "r":
        return qr(a, mode="reduced").R
    if mode == "raw":
        raise UnsupportedError(
            "numba_ext.linalg.qr(): mode='raw' (LAPACK's packed reflectors) is not available on the "
            "device; use mode='reduced', 'complete' or 'r'"
        )
    return qr(a, mode=cast(Any, mode))


def _numpy_cholesky(a: ndarray, /, *, upper: bool = False) -> ndarray:
    return cholesky(a, upper=upper)


def _hermitian_svd(a: ndarray, compute_uv: bool) -> SVDResult | ndarray:
    """NumPy's ``svd(a, hermitian=True)``: from the eigendecomposition of the Hermitian matrices
    (their lower triangles), the singular values the eigenvalues' magnitudes, descending, their
    signs moved into Vh."""
    if not compute_uv:
        descending: ndarray = _np.flip(_np.sort(_np.abs(eigvalsh(a)), axis=-1), axis=-1)
        return descending
    w, u = eigh(a)
    sign = _np.copysign(1.0, w)
    order = _np.flip(_np.argsort(_np.abs(w), axis=-1, kind="stable"), axis=-1)
    s = _np.take_along_axis(_np.abs(w), order, axis=-1)
    sign = _np.take_along_axis(sign, order, axis=-1)
    u = _np.take_along_axis(u, xp.broadcast_to(order[..., None, :], u.shape), axis=-1)
    vh = _adjoint(_np.multiply(u, sign[..., None, :].astype(u.dtype)))
    return SVDResult(u, s, vh)


def _numpy_matrix_rank(A: ndarray, tol: Any = None, hermitian: bool = False, *, rtol: Any = None) -> ndarray:
    if tol is not None and rtol is not None:
        raise ValueError("`tol` and `rtol` can't be both set.")
    if getattr(A, "ndim", 2) < 2:  # NumPy's: whether any element is nonzero
        nonzero: ndarray = _np.any(_np.not_equal(xp._array("matrix_rank", A), 0)).astype(np.int64)
        return nonzero
    if tol is None and not hermitian:
        return matrix_rank(A, rtol=rtol)
    x = _matrices("matrix_rank", A)
    if min(x.shape[-2:]) == 0:
        return matrix_rank(x)
    sigma: Any = _hermitian_svd(x, False) if hermitian else svdvals(x)
    cutoff = tol[..., None] if isinstance(tol, ndarray) else tol
    if tol is None:
        cutoff = _cutoff(x, sigma[..., :1], rtol)
    result: ndarray = _np.sum(_np.greater(sigma, cutoff), axis=-1)
    return result


def _numpy_pinv(
    a: ndarray, rcond: Any = None, hermitian: bool = False, *, rtol: Any = np._NoValue
) -> ndarray:
    if rcond is not None and rtol is not np._NoValue:
        raise ValueError("`rtol` and `rcond` can't be both set.")
    if rtol is np._NoValue:
        rtol = 1e-15 if rcond is None else rcond  # NumPy's pinv default, not the array API's
    x = _matrices("pinv", a)
    if not hermitian or min(x.shape[-2:]) == 0:
        return pinv(x, rtol=rtol)
    u, s, vh = _hermitian_svd(_np.conjugate(x) if x.dtype.kind == "c" else x, True)
    cutoff = _np.multiply(
        _np.max(s, axis=-1, keepdims=True), rtol[..., None] if isinstance(rtol, ndarray) else rtol
    )
    large = _np.greater(s, cutoff)
    inverse = _np.where(large, _np.true_divide(1, _np.where(large, s, 1)), 0).astype(u.dtype)
    result: ndarray = matmul(matrix_transpose(vh), _np.multiply(inverse[..., None], matrix_transpose(u)))
    return result


def _numpy_svd(
    a: ndarray, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False
) -> SVDResult | ndarray:
    if hermitian:
        return _hermitian_svd(_matrices("svd", a), compute_uv)
    return svd(a, full_matrices=full_matrices) if compute_uv else svdvals(a)


def _numpy_lstsq(a: ndarray, b: ndarray, rcond: Any = None) -> tuple[ndarray, ndarray, Any, ndarray]:
    """np.linalg.lstsq: the minimum-norm least-squares solution (the pseudo-inverse's, singular
    values at or below `rcond` times the largest counting as zero, by default machine precision
    times the larger dimension), the sums of squared residuals (empty unless the matrix has full
    column rank and more rows than columns), the rank and the singular values."""
    a = _as_float(xp._array("lstsq", a, "a"))
    if not isinstance(b, ndarray) and isinstance(b, (int, float, complex, list, tuple)):
        b = xp.asarray(b, sycl_queue=a.sycl_queue)  # Python values go where a is
    elif isinstance(b, np.ndarray):
        b = xp._array("lstsq", b, "b")  # a NumPy array beside a device one: the placement error
    if not isinstance(b, ndarray) or a.ndim != 2 or b.ndim not in (1, 2) or b.shape[0] != a.shape[0]:
        raise np.linalg.LinAlgError(
            "np.linalg.lstsq(): a must be a matrix and b a vector or matrix of as many rows, not "
            f"{a.shape}, {getattr(b, 'shape', type(b).__name__)}"
        )
    b = _as_float(xp._array("lstsq", b, "b"))
    common = np.result_type(a.dtype, b.dtype)  # NumPy's: both in their common type
    a, b = a.astype(common, copy=False), b.astype(common, copy=False)
    m, n = a.shape
    eps = np.finfo(_real_of(_float_dtype(a))).eps
    if rcond is None:
        rcond = eps * max(m, n)
    elif not 0 < float(rcond) < 1:  # LAPACK's gelsd: machine precision outside (0, 1), NaN too
        rcond = eps
    sigma = svdvals(a)
    rank = int(_np.sum(_np.greater(sigma, rcond * _np.max(sigma)))) if min(m, n) else 0
    x = matmul(_numpy_pinv(a, rcond), b)
    if rank == n and m > n:
        r = _np.subtract(b, matmul(a, x))
        squares = _np.multiply(r, _np.conjugate(r)).real if r.dtype.kind == "c" else _np.multiply(r, r)
        residuals = _np.sum(squares, axis=0).reshape(-1)
    else:
        residuals = xp.zeros((0,), dtype=sigma.dtype, sycl_queue=a.sycl_queue)
    return x, residuals, np.int32(rank), sigma


def _numpy_cond(x: ndarray, p: Any = None) -> Any:
    """np.linalg.cond: the ratio of the largest to the smallest singular value (p None, 2; -2 the
    inverse), else the `p`-norm of each matrix times that of its inverse."""
    x = _matrices("cond", _as_float(x))
    if math.prod(x.shape[-2:]) == 0:  # NumPy's: empty matrices (an empty stack gives an empty result)
        raise np.linalg.LinAlgError("numba_ext.linalg.cond(): cond is not defined on empty arrays")
    if p in (None, 2, -2):
        sigma = svdvals(x)
        big, small = sigma[..., 0], sigma[..., -1]
        return _np.true_divide(big, small) if p != -2 else _np.true_divide(small, big)
    f = decompositions.lu_factor(x, _float_dtype(x))
    singular = _np.not_equal(f.info, 0).reshape(x.shape[:-2])
    if bool(_np.any(singular)):  # NumPy's: infinite for singular matrices, the others as ever
        eye = xp.eye(x.shape[-1], dtype=x.dtype, sycl_queue=x.sycl_queue)
        safe = _np.where(singular[..., None, None], eye, x)
        ratio = _np.multiply(_numpy_norm(x, p, axis=(-2, -1)), _numpy_norm(inv(safe), p, axis=(-2, -1)))
        return _np.where(singular, np.inf, ratio)
    return _np.multiply(_numpy_norm(x, p, axis=(-2, -1)), _numpy_norm(inv(x), p, axis=(-2, -1)))


def _numpy_norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Any:
    """np.linalg.norm with every order NumPy takes: a vector norm of a vector (or along one axis),
    a matrix norm of a matrix (or over two axes), the Frobenius norm of all elements by default."""
    x = _as_float(x)
    if axis is None:
        if ord is None:
            return vector_norm(x, keepdims=keepdims)
        if x.ndim not in (1, 2):
            raise ValueError("Improper number of dimensions to norm.")
        axis = tuple(range(x.ndim))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    axes = tuple(int(a) + x.ndim if int(a) < 0 else int(a) for a in axes)
    if any(not 0 <= a < x.ndim for a in axes) or len(set(axes)) != len(axes):
        raise ValueError(f"np.linalg.norm(): invalid axis {axis!r} for an array of {x.ndim} dimensions")
    if len(axes) == 1:
        if isinstance(ord, str):
            raise ValueError(f"Invalid norm order '{ord}' for vectors")
        return vector_norm(x, axis=axes[0], keepdims=keepdims, ord=2 if ord is None else ord)
    if len(axes) != 2:
        raise ValueError("Improper number of dimensions to norm.")
    if ord not in (None, "fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf):
        raise ValueError("Invalid norm order for matrices.")
    result = matrix_norm(_np.moveaxis(x, axes, (-2, -1)), ord=ord)
    if keepdims:
        result = _np.expand_dims(result, tuple(sorted(axes)))
    return result


#: np.linalg's functions of numba_ext arrays, by name, in NumPy's signatures (the package routes
#: ``np.linalg.<name>(x)`` of a numba_ext array here)
NUMPY_FUNCTIONS: dict[str, Any] = {
    "cholesky": _numpy_cholesky,
    "cond": _numpy_cond,
    "cross": lambda a, b, /, *, axis=-1: cross(a, b, axis=axis),
    "det": lambda a: det(a),
    "diagonal": lambda x, /, *, offset=0: diagonal(x, offset=offset),
    "eigh": _numpy_eigh,
    "eigvalsh": _numpy_eigvalsh,
    "inv": lambda a: inv(a),
    "lstsq": _numpy_lstsq,
    "matrix_norm": lambda x, /, *, keepdims=False, ord="fro": matrix_norm(
        _as_float(x), keepdims=keepdims, ord=ord
    ),
    "matrix_power": lambda a, n: matrix_power(a, n),
    "matrix_rank": _numpy_matrix_rank,
    "norm": _numpy_norm,
    "outer": lambda x1, x2, /: outer(x1, x2),
    "pinv": _numpy_pinv,
    "slogdet": lambda a: slogdet(a),
    "solve": lambda a, b: solve(a, b),
    "svdvals": lambda x, /: svdvals(x),
    "qr": lambda a, mode="reduced": _numpy_qr(a, mode),
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
