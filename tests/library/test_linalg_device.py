"""numba_ext.linalg's solvers and decompositions on the device, against NumPy: det, slogdet, solve,
inv, cholesky and negative matrix powers (LU with partial pivoting, Cholesky), eigh and eigvalsh
(Jacobi rotations), svdvals, matrix_rank, pinv and the spectral matrix norms (one-sided Jacobi),
for stacks of matrices."""

import numpy as np
import pytest

import numba_ext
import numba_ext.linalg as la
from numba_ext.errors import UnsupportedError

SHAPES = [(1, 1), (3, 3), (7, 7), (2, 5, 5), (2, 3, 4, 4), (130, 130)]


def _tol(dtype):
    return {"rtol": 2e-3, "atol": 2e-3} if dtype == np.float32 else {"rtol": 1e-9, "atol": 1e-9}


def _well_conditioned(rng, shape, dtype):
    n = shape[-1]
    return (rng.standard_normal(shape) + n * np.eye(n) * 0.5).astype(dtype)


@pytest.fixture(params=[np.float32, np.float64], ids=["float32", "float64"])
def dtype(request, fp64):
    if request.param == np.float64 and not fp64:
        pytest.skip("float64 needs a device with fp64")
    return request.param


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_det_and_slogdet(rng, shape, dtype):
    h = _well_conditioned(rng, shape, dtype)
    x = numba_ext.asarray(h)
    d = la.det(x)
    assert d.shape == shape[:-2] and d.dtype == dtype
    sign, logabs = np.linalg.slogdet(h.astype(np.float64))
    got_sign, got_log = la.slogdet(x)
    np.testing.assert_array_equal(numba_ext.asnumpy(got_sign), sign)
    np.testing.assert_allclose(numba_ext.asnumpy(got_log), logabs, **_tol(dtype))
    np.testing.assert_allclose(
        numba_ext.asnumpy(np.log(np.abs(d))) if shape[-1] < 100 else numba_ext.asnumpy(got_log),
        logabs,
        **_tol(dtype),
    )


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_inv_and_solve(rng, shape, dtype):
    h = _well_conditioned(rng, shape, dtype)
    x = numba_ext.asarray(h)
    inverse = la.inv(x)
    assert inverse.dtype == dtype and inverse.shape == shape
    np.testing.assert_allclose(numba_ext.asnumpy(inverse), np.linalg.inv(h), **_tol(dtype))
    b = rng.standard_normal(shape[:-1] + (3,)).astype(dtype)
    got = la.solve(x, numba_ext.asarray(b))
    np.testing.assert_allclose(numba_ext.asnumpy(got), np.linalg.solve(h, b), **_tol(dtype))
    v = rng.standard_normal(shape[-1]).astype(dtype)
    got = la.solve(x, numba_ext.asarray(v))
    assert got.shape == shape[:-1]
    np.testing.assert_allclose(numba_ext.asnumpy(got), np.linalg.solve(h, v[:, None])[..., 0], **_tol(dtype))


def test_solve_broadcasts_stacks(rng):
    a = _well_conditioned(rng, (3, 1, 4, 4), np.float64)
    b = rng.standard_normal((2, 4, 5))
    got = la.solve(numba_ext.asarray(a), numba_ext.asarray(b))
    assert got.shape == (3, 2, 4, 5)
    np.testing.assert_allclose(numba_ext.asnumpy(got), np.linalg.solve(a, b), rtol=1e-9, atol=1e-9)


def test_pivoting_handles_zero_leading_entries(rng):
    h = np.array([[0.0, 2.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 3.0]])
    x = numba_ext.asarray(h)
    np.testing.assert_allclose(numba_ext.asnumpy(la.det(x)), np.linalg.det(h), rtol=1e-12)
    np.testing.assert_allclose(numba_ext.asnumpy(la.inv(x)), np.linalg.inv(h), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("shape", [(1, 1), (6, 6), (2, 3, 9, 9), (100, 100)], ids=str)
def test_cholesky(rng, shape, dtype):
    g = rng.standard_normal(shape)
    spd = (g @ np.swapaxes(g, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(dtype)
    x = numba_ext.asarray(spd)
    lower = la.cholesky(x)
    assert lower.dtype == dtype
    np.testing.assert_allclose(numba_ext.asnumpy(lower), np.linalg.cholesky(spd), **_tol(dtype))
    np.testing.assert_allclose(
        numba_ext.asnumpy(la.cholesky(x, upper=True)), np.linalg.cholesky(spd, upper=True), **_tol(dtype)
    )


@pytest.mark.parametrize("n", [-1, -2, -5])
def test_negative_matrix_power(rng, n):
    h = _well_conditioned(rng, (2, 4, 4), np.float64)
    got = la.matrix_power(numba_ext.asarray(h), n)
    np.testing.assert_allclose(numba_ext.asnumpy(got), np.linalg.matrix_power(h, n), rtol=1e-8, atol=1e-10)


def test_integer_matrices_compute_in_the_default_float(rng):
    h = rng.integers(-4, 5, (3, 3)) + 6 * np.eye(3, dtype=np.int64)
    d = la.det(numba_ext.asarray(h))
    assert d.dtype == (np.float64 if numba_ext.default_queue().device.has_fp64 else np.float32)
    np.testing.assert_allclose(float(d), np.linalg.det(h), rtol=1e-5)


def test_empty_stacks_and_matrices():
    assert numba_ext.asnumpy(la.det(numba_ext.zeros((0, 0)))).tolist() == 1.0
    assert numba_ext.asnumpy(la.det(numba_ext.zeros((2, 0, 0)))).tolist() == [1.0, 1.0]
    assert la.inv(numba_ext.zeros((0, 3, 3))).shape == (0, 3, 3)


def test_singular_matrices(rng):
    h = np.ones((2, 3, 3))
    h[0] = _well_conditioned(rng, (3, 3), np.float64)
    x = numba_ext.asarray(h)
    assert numba_ext.asnumpy(la.det(x))[1] == 0.0
    sign, logabs = la.slogdet(x)
    assert numba_ext.asnumpy(sign)[1] == 0.0 and numba_ext.asnumpy(logabs)[1] == -np.inf
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        la.inv(x)
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        la.solve(x, numba_ext.ones((2, 3, 1)))


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: la.cholesky(numba_ext.asarray(-np.eye(3))), np.linalg.LinAlgError, "not positive definite"),
        (lambda: la.inv(numba_ext.ones((2, 3))), np.linalg.LinAlgError, "square"),
        (lambda: la.det(numba_ext.ones(3)), ValueError, "at least 2 dimensions"),
        (lambda: la.solve(numba_ext.eye(3), numba_ext.ones(4)), ValueError, "does not match"),
        (lambda: la.solve(numba_ext.ones((2, 3, 3)), numba_ext.ones((4, 3, 1))), ValueError, "broadcast"),
        (lambda: la.inv(np.eye(3)), TypeError, "numba_ext"),
    ],
)
def test_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_complex_matrices_are_named_as_missing(cdt):
    with pytest.raises(UnsupportedError, match="complex"):
        la.det(numba_ext.asarray(np.eye(2, dtype=cdt)))


@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (5, 5), (2, 3, 6, 6), (33, 33)], ids=str)
def test_eigh_and_eigvalsh(rng, shape, dtype):
    h = rng.standard_normal(shape).astype(dtype)  # not symmetric: both read the lower triangle
    x = numba_ext.asarray(h)
    want_values, want_vectors = np.linalg.eigh(h.astype(np.float64))
    values, vectors = la.eigh(x)
    assert values.dtype == dtype and vectors.dtype == dtype and vectors.shape == shape
    tol = _tol(dtype)
    np.testing.assert_allclose(numba_ext.asnumpy(values), want_values, **tol)
    np.testing.assert_allclose(numba_ext.asnumpy(la.eigvalsh(x)), want_values, **tol)
    v = numba_ext.asnumpy(vectors).astype(np.float64)
    sym = np.tril(h) + np.swapaxes(np.tril(h, -1), -1, -2)
    np.testing.assert_allclose(sym @ v, v * want_values[..., None, :], **{k: 10 * t for k, t in tol.items()})
    np.testing.assert_allclose(np.swapaxes(v, -1, -2) @ v, np.broadcast_to(np.eye(shape[-1]), shape), **tol)


@pytest.mark.parametrize("shape", [(1, 1), (3, 3), (4, 6), (6, 4), (2, 3, 7, 5), (40, 25)], ids=str)
def test_singular_values_rank_pinv_and_norms(rng, shape, dtype):
    h = rng.standard_normal(shape).astype(dtype)
    x = numba_ext.asarray(h)
    tol = _tol(dtype)
    sigma = la.svdvals(x)
    assert sigma.dtype == dtype and sigma.shape == shape[:-2] + (min(shape[-2:]),)
    np.testing.assert_allclose(numba_ext.asnumpy(sigma), np.linalg.svd(h, compute_uv=False), **tol)
    np.testing.assert_array_equal(numba_ext.asnumpy(la.matrix_rank(x)), np.linalg.matrix_rank(h))
    np.testing.assert_allclose(
        numba_ext.asnumpy(la.pinv(x)), np.linalg.pinv(h), **{k: 10 * t for k, t in tol.items()}
    )
    for ord in (2, -2, "nuc"):
        np.testing.assert_allclose(
            numba_ext.asnumpy(la.matrix_norm(x, ord=ord, keepdims=True)),
            np.linalg.matrix_norm(h, ord=ord, keepdims=True),
            **tol,
        )


def test_rank_deficient_matrices(rng):
    h = rng.standard_normal((2, 7, 3)) @ rng.standard_normal((2, 3, 5))  # rank 3
    x = numba_ext.asarray(h)
    np.testing.assert_array_equal(numba_ext.asnumpy(la.matrix_rank(x)), [3, 3])
    np.testing.assert_allclose(numba_ext.asnumpy(la.pinv(x)), np.linalg.pinv(h), rtol=1e-8, atol=1e-8)
    rtol = numba_ext.asarray(np.array([1e-12, 0.5]))
    np.testing.assert_array_equal(
        numba_ext.asnumpy(la.matrix_rank(x, rtol=rtol)), np.linalg.matrix_rank(h, rtol=np.array([1e-12, 0.5]))
    )
    np.testing.assert_allclose(
        numba_ext.asnumpy(la.pinv(x, rtol=0.5)), np.linalg.pinv(h, rtol=0.5), rtol=1e-8, atol=1e-8
    )
    assert la.svdvals(numba_ext.zeros((3, 0))).shape == (0,)
    assert la.pinv(numba_ext.zeros((3, 0))).shape == (0, 3)


def test_numpys_linalg_functions_of_device_arrays(rng):
    h = rng.standard_normal((3, 4, 4)) + 2 * np.eye(4)
    x = numba_ext.asarray(h)
    v = rng.standard_normal(4)
    spd = h @ np.swapaxes(h, -1, -2) + 4 * np.eye(4)
    cases = [
        (np.linalg.det(x), np.linalg.det(h)),
        (np.linalg.slogdet(x).logabsdet, np.linalg.slogdet(h).logabsdet),
        (np.linalg.solve(x, numba_ext.asarray(v)), np.linalg.solve(h, v)),
        (np.linalg.inv(x), np.linalg.inv(h)),
        (np.linalg.cholesky(numba_ext.asarray(spd), upper=True), np.linalg.cholesky(spd, upper=True)),
        (np.linalg.eigh(x, UPLO="U").eigenvalues, np.linalg.eigh(h, UPLO="U").eigenvalues),
        (np.linalg.eigvalsh(x), np.linalg.eigvalsh(h)),
        (np.linalg.matrix_rank(x, tol=1.0), np.linalg.matrix_rank(h, tol=1.0)),
        (np.linalg.pinv(x, rcond=0.3), np.linalg.pinv(h, rcond=0.3)),
        (np.linalg.matrix_power(x, -2), np.linalg.matrix_power(h, -2)),
        (np.linalg.svdvals(x), np.linalg.svdvals(h)),
        (np.linalg.matrix_norm(x, ord="nuc"), np.linalg.matrix_norm(h, ord="nuc")),
        (np.linalg.vector_norm(numba_ext.arange(6), ord=1), np.linalg.vector_norm(np.arange(6), ord=1)),
        (np.linalg.trace(x, offset=1), np.linalg.trace(h, offset=1)),
    ]
    for got, want in cases:
        assert isinstance(got, numba_ext.ndarray)
        np.testing.assert_allclose(numba_ext.asnumpy(got), want, rtol=1e-9, atol=1e-9)
    with pytest.raises(TypeError, match=r"np.linalg.svd\(\) is not offloaded"):
        np.linalg.svd(x)
    with pytest.raises(UnsupportedError, match="hermitian"):
        np.linalg.pinv(x, hermitian=True)
    with pytest.raises(ValueError, match="UPLO"):
        np.linalg.eigh(x, UPLO="X")
