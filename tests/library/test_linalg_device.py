"""numba_ext.linalg's solvers and decompositions on the device, against NumPy: det, slogdet, solve,
inv, cholesky and negative matrix powers (LU with partial pivoting, Cholesky), eigh and eigvalsh
(tridiagonalization and the QL method, or Jacobi rotations), svdvals, matrix_rank, pinv and the
spectral matrix norms (one-sided Jacobi), qr (Householder) and svd (both), for stacks of
matrices."""

import numpy as np
import pytest

import numba_ext
import numba_ext.linalg as la

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


@pytest.mark.parametrize("form", ["stepped", "group", "serial"])
@pytest.mark.parametrize("shape", [(1, 1), (9, 9), (2, 40, 40), (130, 130)], ids=str)
def test_lu_in_each_form(rng, shape, dtype, form, monkeypatch):
    # each device's way, forced here: two launches per column and a work-group per right-hand side
    # (GPUs, a few large matrices), a work-group per matrix (GPUs), a work-item per matrix (CPUs)
    from numba_ext import decompositions

    monkeypatch.setattr(decompositions, "_lu_form", lambda device, batch, n: form)
    h = _well_conditioned(rng, shape, dtype)
    h[..., 0, :] = 0.0  # a zero leading entry: the first step swaps rows
    h[..., 0, -1] = 1.0
    v = rng.standard_normal(shape[:-1]).astype(dtype)
    x = numba_ext.asarray(h)
    sign, logdet = la.slogdet(x)  # (det itself overflows float32 here)
    want = np.linalg.slogdet(h)
    np.testing.assert_array_equal(numba_ext.asnumpy(sign), want.sign)
    np.testing.assert_allclose(numba_ext.asnumpy(logdet), want.logabsdet, **_tol(dtype))
    np.testing.assert_allclose(numba_ext.asnumpy(la.inv(x)), np.linalg.inv(h), **_tol(dtype))
    got = numba_ext.asnumpy(la.solve(x, numba_ext.asarray(v[..., None])))
    np.testing.assert_allclose(got, np.linalg.solve(h, v[..., None]), **_tol(dtype))
    singular = np.array(h)
    singular[..., -1, :] = 0.0  # a zero row: an exactly zero pivot at the last step
    sign, logdet = la.slogdet(numba_ext.asarray(singular))
    assert (numba_ext.asnumpy(sign) == 0.0).all() and (numba_ext.asnumpy(logdet) == -np.inf).all()
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        la.inv(numba_ext.asarray(singular))


@pytest.fixture(params=["device", "group", "serial", "stepped"])
def factor_form(request, monkeypatch):
    """The device's own way of factoring (LU, Cholesky, QR), or one forced: a work-group per
    matrix (GPUs), a work-item per matrix (CPU devices), a few launches per column (GPUs, a few
    large matrices; Cholesky then takes the work-group form)."""
    if request.param != "device":
        from numba_ext import decompositions

        monkeypatch.setattr(decompositions, "_lu_form", lambda device, batch, n: request.param)
    return request.param


@pytest.mark.parametrize("shape", [(1, 1), (6, 6), (2, 3, 9, 9), (100, 100)], ids=str)
def test_cholesky(rng, shape, dtype, factor_form):
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
    bound = np.prod(np.linalg.norm(h, axis=1))  # Hadamard's: a near-singular draw has a tiny det
    np.testing.assert_allclose(float(d), np.linalg.det(h), rtol=1e-5, atol=1e-6 * bound)


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


def _adjoint(a):
    return np.conj(np.swapaxes(a, -1, -2))


def _orthonormal_columns(q, tol):
    k = q.shape[-1]
    np.testing.assert_allclose(_adjoint(q) @ q, np.broadcast_to(np.eye(k), q.shape[:-2] + (k, k)), **tol)


def _force_forms(monkeypatch, form, which=("_svd_form", "_eigh_form")):
    from numba_ext import decompositions

    for name in which:
        monkeypatch.setattr(decompositions, name, lambda device, batch, n: form)


def _count_launches(monkeypatch, name):
    """The launch ranges of the decompositions' kernel `name` from now on, in a list."""
    from numba_ext import decompositions

    launches = []
    own = getattr(decompositions, name)

    class Counted:
        def __getitem__(self, launch_range):
            launches.append(launch_range)
            return own[launch_range]

    monkeypatch.setattr(decompositions, name, Counted())
    return launches


@pytest.fixture(params=["device", "group", "serial", "stepped"])
def jacobi_form(request, monkeypatch):
    """The device's own way of eigh and svd, or one forced: a work-group per matrix (GPUs: Jacobi
    rotations), a work-item per matrix (CPU devices: eigh by tridiagonalization and the QL
    method, svd by bidiagonalization and the QR method), a few launches per column (GPUs: the
    tridiagonal and bidiagonal reductions, the rotations logged and applied)."""
    if request.param != "device":
        _force_forms(monkeypatch, request.param)
    return request.param


@pytest.mark.parametrize("form", ["group", "serial", "stepped"])
@pytest.mark.parametrize("dt", ["float32", "complex64"])
def test_single_precision_values_whose_squares_overflow(rng, form, dt, monkeypatch):
    """qr, svd and eigh of float32 / complex64 matrices of entries near 1e19 (their squares and
    products overflow single precision; LAPACK's scaled norms do not), in each form: NumPy's
    results, not inf or nan."""
    _force_forms(monkeypatch, form, ("_svd_form", "_eigh_form", "_lu_form"))
    g = rng.standard_normal((2, 5, 4)) + (1j * rng.standard_normal((2, 5, 4)) if dt == "complex64" else 0)
    h = (3e19 * g).astype(dt)
    tol = {"rtol": 1e-4, "atol": 1e-4 * float(np.abs(h).max())}
    q, r = (numba_ext.asnumpy(t) for t in np.linalg.qr(numba_ext.asarray(h)))
    np.testing.assert_allclose(np.abs(r), np.abs(np.linalg.qr(h).R), **tol)
    np.testing.assert_allclose(q.astype(np.complex128) @ r, h, **tol)
    sigma = numba_ext.asnumpy(np.linalg.svd(numba_ext.asarray(h), compute_uv=False))
    np.testing.assert_allclose(sigma, np.linalg.svd(h, compute_uv=False), **tol)
    s = h[:, :4, :] / np.float32(4)  # Hermitian of entries near 1e19
    s = s + np.conj(np.swapaxes(s, -1, -2))
    values = numba_ext.asnumpy(np.linalg.eigvalsh(numba_ext.asarray(s)))
    np.testing.assert_allclose(values, np.linalg.eigvalsh(s), rtol=1e-4, atol=1e-4 * float(np.abs(s).max()))


@pytest.mark.parametrize("form", ["group", "serial", "stepped"])
@pytest.mark.parametrize("dt", ["float64", "complex128"])
def test_jacobi_of_more_than_two_hundred_fifty_six_rows(rng, form, dt, monkeypatch):
    """eigh and svd of an odd order above the work-group's pair slots (a pair schedule over a
    dummy index; the pairs once overran the work-group's local memory and crashed the CPU
    driver), in each form; nearly diagonal, so that a few sweeps do."""
    _force_forms(monkeypatch, form)
    n = 257
    g = rng.standard_normal((n, n)) + (1j * rng.standard_normal((n, n)) if dt == "complex128" else 0)
    h = (np.diag(np.arange(n, dtype=float)) + 1e-3 * (g + _adjoint(g))).astype(dt)
    values, vectors = (numba_ext.asnumpy(t) for t in np.linalg.eigh(numba_ext.asarray(h)))
    np.testing.assert_allclose(values, np.linalg.eigvalsh(h), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(h @ vectors, vectors * values, atol=1e-10)
    _orthonormal_columns(vectors, {"rtol": 1e-12, "atol": 1e-12})
    tall = h[:, : n - 2]  # one-sided rotations of n - 2 columns
    sigma = numba_ext.asnumpy(np.linalg.svd(numba_ext.asarray(tall), compute_uv=False))
    np.testing.assert_allclose(sigma, np.linalg.svd(tall, compute_uv=False), rtol=1e-12, atol=1e-12)


def _structured_hermitian(rng, n, dt):
    """A stack of Hermitian matrices on which the eigensolvers' special paths run: diagonal and
    zero (every reflector the identity), a multiple of the identity (one eigenvalue n times),
    tridiagonal already (complex subdiagonal: only phases to remove), two blocks with no coupling
    (the tridiagonal form splits), eigenvalues clustered within 1e-9, rank one, and entries
    graded over twelve orders of magnitude."""
    cplx = np.dtype(dt).kind == "c"

    def draw(*shape):
        return rng.standard_normal(shape) + (1j * rng.standard_normal(shape) if cplx else 0)

    g = draw(n, n)
    h = (g + _adjoint(g)) / 2
    sub = draw(n - 1)
    blocks = np.zeros_like(h)
    blocks[: n // 2, : n // 2] = h[: n // 2, : n // 2]
    blocks[n // 2 :, n // 2 :] = h[n // 2 :, n // 2 :]
    v = draw(n, 1)
    grade = np.diag(10.0 ** np.linspace(-6, 6, n))
    stack = [
        np.diag(rng.standard_normal(n)),
        np.zeros((n, n)),
        3 * np.eye(n),
        np.diag(rng.standard_normal(n)) + np.diag(sub, -1) + np.diag(np.conj(sub), 1),
        blocks,
        np.eye(n) + 1e-9 * h,
        v @ _adjoint(v),
        grade @ h @ grade,
    ]
    return np.stack(stack).astype(dt)


@pytest.mark.parametrize("form", ["group", "serial", "stepped"])
@pytest.mark.parametrize("dt", ["float64", "complex128", "float32"])
def test_eigh_of_structured_matrices(rng, form, dt, monkeypatch):
    """eigh and eigvalsh of :func:`_structured_hermitian`'s matrices in each form: NumPy's
    eigenvalues (to a tolerance relative to each matrix's norm), A v = w v, orthonormal vectors."""
    _force_forms(monkeypatch, form)
    h = _structured_hermitian(rng, 12, dt)
    eps = float(np.finfo(np.dtype(dt).char.lower()).eps)
    scale = np.linalg.norm(h.astype(np.complex128), ord=2, axis=(-2, -1))[:, None] + 1e-300
    want = np.linalg.eigvalsh(h.astype(np.complex128))
    values, vectors = (numba_ext.asnumpy(t) for t in np.linalg.eigh(numba_ext.asarray(h)))
    only = numba_ext.asnumpy(np.linalg.eigvalsh(numba_ext.asarray(h)))
    for got in (values, only):
        assert np.all(np.abs(got - want) <= 200 * eps * scale), np.max(np.abs(got - want) / scale, axis=1)
    v = vectors.astype(np.complex128)
    residual = np.abs(h.astype(np.complex128) @ v - v * values[:, None, :]).max(axis=(1, 2))
    assert np.all(residual <= 200 * eps * scale[:, 0]), residual / scale[:, 0]
    _orthonormal_columns(v, {"rtol": 0, "atol": 200 * eps})


@pytest.mark.parametrize("memory", ["local", "global"])
def test_stepped_eigh_in_several_passes(rng, memory, monkeypatch):
    """The stepped form logs the QL method's rotations a number of sweeps at a time and applies
    them between passes: room for one sweep per pass takes many passes, and gives the same
    eigenpairs; with the tridiagonal matrix in local memory and, above the order that fits
    there, in global memory."""
    from numba_ext import decompositions

    _force_forms(monkeypatch, "stepped")
    monkeypatch.setattr(decompositions, "QL_LOG_SWEEPS", 1)
    name = "_ql_log_kernel"
    if memory == "global":  # orders above 8 (the local kernel is never compiled with that size)
        monkeypatch.setattr(decompositions, "QL_LOCAL_N", 8)
        name = "_ql_log_global_kernel"
    launches = _count_launches(monkeypatch, name)
    g = rng.standard_normal((3, 40, 40))
    h = g + np.swapaxes(g, -1, -2)
    values, vectors = (numba_ext.asnumpy(t) for t in np.linalg.eigh(numba_ext.asarray(h)))
    assert len(launches) > 10, len(launches)
    np.testing.assert_allclose(values, np.linalg.eigvalsh(h), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(h @ vectors, vectors * values[:, None, :], atol=1e-11)
    _orthonormal_columns(vectors, {"rtol": 1e-12, "atol": 1e-12})


@pytest.mark.parametrize("form", ["group", "serial", "stepped"])
@pytest.mark.parametrize("dt", ["float64", "complex128"])
def test_eigh_of_low_rank_matrices(rng, form, dt, monkeypatch):
    """eigh and eigvalsh of positive semidefinite matrices of low rank (G G^H, G of 2 to 7
    columns): most eigenvalues are zero, and the QL method's subdiagonal entries among them stay
    at rounding size, negligible against the matrix's norm though not against their zero
    neighbours (the method once stalled there and raised LinAlgError); NumPy's eigenvalues,
    A v = w v."""
    _force_forms(monkeypatch, form)
    for n, r in ((37, 5), (54, 7), (40, 2)):
        g = rng.standard_normal((2, n, r)) + (
            1j * rng.standard_normal((2, n, r)) if dt == "complex128" else 0
        )
        h = g @ _adjoint(g)
        want = np.linalg.eigvalsh(h)
        scale = np.abs(want).max(axis=-1, keepdims=True)
        w, v = (numba_ext.asnumpy(t) for t in np.linalg.eigh(numba_ext.asarray(h)))
        only = numba_ext.asnumpy(np.linalg.eigvalsh(numba_ext.asarray(h)))
        for got in (w, only):
            assert np.all(np.abs(got - want) <= 1e-12 * scale), np.max(np.abs(got - want) / scale, axis=-1)
        assert np.all(np.abs(h @ v - v * w[:, None, :]) <= 1e-12 * scale[:, None])


@pytest.mark.parametrize("dt", ["float64", "complex128", "float32"])
def test_values_alone_by_bisection(rng, dt, monkeypatch):
    """The stepped forms find eigenvalues alone (eigvalsh) and singular values alone (svdvals,
    and the norms and ranks built on them) by bisection of the tridiagonal matrix and of the
    bidiagonal one's Golub-Kahan matrix, every value at once: NumPy's values, among them a
    repeated one, an exact zero and a cluster, and one launch of the bisection kernel each."""

    _force_forms(monkeypatch, "stepped")
    launches = _count_launches(monkeypatch, "_bisection_kernel")
    cplx = np.dtype(dt).kind == "c"
    n = 40
    g = rng.standard_normal((3, n, n)) + (1j * rng.standard_normal((3, n, n)) if cplx else 0)
    q = np.linalg.qr(g)[0]
    spectrum = np.stack(
        [
            np.linspace(-3, 5, n),
            np.r_[np.zeros(5), np.full(5, 2.0), np.arange(30.0)],
            np.r_[1 + 1e-9 * np.arange(n)],
        ]
    )
    h = ((q * spectrum[:, None, :]) @ _adjoint(q)).astype(dt)
    eps = float(np.finfo(np.dtype(dt).char.lower()).eps)
    want = np.linalg.eigvalsh(h.astype(np.complex128))
    got = numba_ext.asnumpy(np.linalg.eigvalsh(numba_ext.asarray(h)))
    scale = np.abs(want).max(axis=1, keepdims=True)
    assert np.all(np.abs(got - want) <= 50 * n * eps * scale), np.max(np.abs(got - want) / scale, axis=1)
    tall = (q[:, :, : n - 8] * spectrum[:, None, : n - 8]) @ _adjoint(q[:, : n - 8, : n - 8])
    tall = tall.astype(dt)
    want_s = np.linalg.svd(tall.astype(np.complex128), compute_uv=False)
    got_s = numba_ext.asnumpy(np.linalg.svd(numba_ext.asarray(tall), compute_uv=False))
    scale_s = want_s[:, :1]
    assert np.all(np.abs(got_s - want_s) <= 50 * n * eps * scale_s), np.max(
        np.abs(got_s - want_s) / scale_s, axis=1
    )
    assert len(launches) == 2, launches


@pytest.mark.parametrize("form", ["serial", "stepped"])
def test_eigh_that_does_not_converge_raises(rng, form, monkeypatch):
    """An eigenvalue the QL method does not reach within its iterations is NumPy's LinAlgError
    (here with no iterations allowed), for eigh and, where the QL method finds them (CPU devices;
    GPUs find eigenvalues alone by bisection), eigvalsh; a NaN in the matrix gives NaN
    eigenvalues, not an error (LAPACK's are unspecified there: NumPy's of this one are finite)."""
    from numba_ext import decompositions

    _force_forms(monkeypatch, form)
    g = rng.standard_normal((2, 6, 6))
    x = numba_ext.asarray(g + np.swapaxes(g, -1, -2))
    with monkeypatch.context() as m:
        m.setattr(decompositions, "MAX_QL_ITERATIONS", 0)
        for fn in (np.linalg.eigh, np.linalg.eigvalsh)[: 2 if form == "serial" else 1]:
            with pytest.raises(np.linalg.LinAlgError, match="did not converge"):
                fn(x)
    h = np.diag([np.nan, 1.0, 2.0])
    assert np.isnan(numba_ext.asnumpy(np.linalg.eigvalsh(numba_ext.asarray(h)))).any()


def _structured_rectangular(rng, m, n, dt):
    """A stack of m x n matrices on which the SVD's special paths run: zero, a zero first column
    and a zero middle column (zero diagonal entries of the bidiagonal form, chased out by
    rotations), rank one, two equal columns, orthogonal columns of one length (a singular value
    n times), columns graded over twelve orders of magnitude, and an identity block."""
    cplx = np.dtype(dt).kind == "c"

    def draw(*shape):
        return rng.standard_normal(shape) + (1j * rng.standard_normal(shape) if cplx else 0)

    g = draw(m, n)
    first, middle, twins = g.copy(), g.copy(), g.copy()
    first[:, 0] = 0
    middle[:, n // 2] = 0
    twins[:, 1] = twins[:, 0]
    q = np.linalg.qr(draw(m, n))[0]
    stack = [
        np.zeros((m, n)),
        first,
        middle,
        draw(m, 1) @ draw(1, n),
        twins,
        5 * q,
        g * 10.0 ** np.linspace(-6, 6, n),
        np.eye(m, n),
    ]
    return np.stack(stack).astype(dt)


@pytest.mark.parametrize("form", ["group", "serial", "stepped"])
@pytest.mark.parametrize("dt", ["float64", "complex128", "float32"])
@pytest.mark.parametrize("mn", [(9, 6), (6, 9)], ids=str)
def test_svd_of_structured_matrices(rng, form, dt, mn, monkeypatch):
    """svd and svdvals of :func:`_structured_rectangular`'s matrices, tall and wide, in each form:
    NumPy's singular values (to a tolerance relative to each matrix's norm), U S Vh = A, U and V
    orthonormal, and NumPy's ranks."""
    _force_forms(monkeypatch, form)
    h = (
        _structured_rectangular(rng, *mn, dt)
        if mn[0] >= mn[1]
        else _adjoint(_structured_rectangular(rng, *mn[::-1], dt))
    )
    eps = float(np.finfo(np.dtype(dt).char.lower()).eps)
    want = np.linalg.svd(h.astype(np.complex128), compute_uv=False)
    scale = want[:, :1] + 1e-300
    x = numba_ext.asarray(h)
    u, s, vh = (numba_ext.asnumpy(t).astype(np.complex128) for t in np.linalg.svd(x))
    only = numba_ext.asnumpy(np.linalg.svd(x, compute_uv=False))
    for got in (s.real, only):
        assert np.all(np.abs(got - want) <= 200 * eps * scale), np.max(np.abs(got - want) / scale, axis=1)
    k = min(mn)
    residual = np.abs((u[..., :k] * s[:, None, :]) @ vh[..., :k, :] - h).max(axis=(1, 2))
    assert np.all(residual <= 200 * eps * scale[:, 0]), residual / scale[:, 0]
    _orthonormal_columns(u, {"rtol": 0, "atol": 200 * eps})
    _orthonormal_columns(_adjoint(vh), {"rtol": 0, "atol": 200 * eps})
    if dt != "float32":  # single precision's cutoff lies near the graded matrix's smallest values
        np.testing.assert_array_equal(
            numba_ext.asnumpy(np.linalg.matrix_rank(x)), np.linalg.matrix_rank(h.astype(np.complex128))
        )


@pytest.mark.parametrize("memory", ["local", "global"])
@pytest.mark.parametrize("dt", ["float64", "complex128"])
def test_stepped_svd_in_several_passes(rng, memory, dt, monkeypatch):
    """The stepped SVD logs the bidiagonal QR method's rotations of U and V a number of sweeps at
    a time and applies them between passes: room for one sweep per pass takes many passes, and
    gives NumPy's singular values with vectors that rebuild the matrix; with the bidiagonal
    matrix in local memory and, above the order that fits there, in global memory."""
    from numba_ext import decompositions

    _force_forms(monkeypatch, "stepped")
    monkeypatch.setattr(decompositions, "QL_LOG_SWEEPS", 1)
    name = "_bidiagonal_qr_log_kernel"
    if memory == "global":  # orders above 8 (the local kernel is never compiled with that size)
        monkeypatch.setattr(decompositions, "QL_LOCAL_N", 8)
        name = "_bidiagonal_qr_log_global_kernel"
    launches = _count_launches(monkeypatch, name)
    g = rng.standard_normal((3, 45, 40)) + (
        1j * rng.standard_normal((3, 45, 40)) if dt == "complex128" else 0
    )
    u, s, vh = (numba_ext.asnumpy(t) for t in np.linalg.svd(numba_ext.asarray(g), full_matrices=False))
    assert len(launches) > 10, len(launches)
    np.testing.assert_allclose(s, np.linalg.svd(g, compute_uv=False), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose((u * s[:, None, :]) @ vh, g, atol=1e-11)
    _orthonormal_columns(u, {"rtol": 1e-12, "atol": 1e-12})
    _orthonormal_columns(_adjoint(vh), {"rtol": 1e-12, "atol": 1e-12})


@pytest.mark.parametrize("form", ["serial", "stepped"])
def test_svd_that_does_not_converge_raises(rng, form, monkeypatch):
    """A singular value the bidiagonal QR method does not reach within its iterations is NumPy's
    LinAlgError (here with none allowed), for svd and, where the QR method finds them (CPU
    devices; GPUs find singular values alone by bisection), svdvals; a NaN gives NaN singular
    values."""
    from numba_ext import decompositions

    _force_forms(monkeypatch, form)
    x = numba_ext.asarray(rng.standard_normal((2, 7, 5)))
    with monkeypatch.context() as m:
        m.setattr(decompositions, "MAX_QL_ITERATIONS", 0)
        both = (np.linalg.svd, lambda a: np.linalg.svd(a, compute_uv=False))
        for fn in both[: 2 if form == "serial" else 1]:
            with pytest.raises(np.linalg.LinAlgError, match="did not converge"):
                fn(x)
    h = rng.standard_normal((4, 3))
    h[1, 1] = np.nan
    assert np.isnan(numba_ext.asnumpy(np.linalg.svd(numba_ext.asarray(h), compute_uv=False))).any()


@pytest.mark.parametrize("form", ["group", "serial", "stepped"])
@pytest.mark.parametrize("dt", ["float64", "complex128"])
@pytest.mark.parametrize("magnitude", [1e200, 1e90, 1e-90, 1e-200])
def test_decompositions_of_extreme_magnitudes(rng, form, dt, magnitude, monkeypatch):
    """eigh, svd and qr of matrices of entries near 1e200 and 1e-200, whose squares leave double
    precision's range (LAPACK's drivers scale such matrices; so do these), and near 1e90 and 1e-90,
    within the range left unscaled (where the one-sided Jacobi test's product of two squared
    column norms once overflowed), in each form: NumPy's values, not inf, nan or zero."""
    from numba_ext import decompositions

    _force_forms(monkeypatch, form, ("_svd_form", "_eigh_form", "_lu_form"))
    if form != "serial":  # the largest magnitudes found by a work-group per matrix, as on GPUs
        monkeypatch.setattr(decompositions, "SERIAL_DEVICES", ())
    g = rng.standard_normal((3, 6, 5)) + (1j * rng.standard_normal((3, 6, 5)) if dt == "complex128" else 0)
    h = (magnitude * g).astype(dt)
    if magnitude > 1:  # the largest magnitude lies elsewhere: found by the reduction, not the first
        h[:, 0, 0] = 1.0
    big = float(np.abs(h).max())
    x = numba_ext.asarray(h)
    np.testing.assert_allclose(
        numba_ext.asnumpy(np.linalg.svd(x, compute_uv=False)), np.linalg.svd(h, compute_uv=False), rtol=1e-12
    )
    u, s, vh = (numba_ext.asnumpy(t) for t in np.linalg.svd(x, full_matrices=False))
    np.testing.assert_allclose((u * s[:, None, :]) @ vh, h, rtol=0, atol=1e-12 * big)
    q, r = (numba_ext.asnumpy(t) for t in np.linalg.qr(x))
    np.testing.assert_allclose(np.abs(r), np.abs(np.linalg.qr(h).R), rtol=0, atol=1e-12 * big)
    np.testing.assert_allclose(q @ r, h, rtol=0, atol=1e-12 * big)
    sym = h[:, :5, :] + _adjoint(h[:, :5, :])
    sym[:, 0, 4] = 1e300  # the upper triangle is not read: it does not set the scale
    want = np.linalg.eigvalsh(sym)
    values, vectors = (numba_ext.asnumpy(t) for t in np.linalg.eigh(numba_ext.asarray(sym)))
    np.testing.assert_allclose(values, want, rtol=0, atol=1e-12 * float(np.abs(want).max()))
    lower = np.tril(sym) + _adjoint(np.tril(sym, -1))
    np.testing.assert_allclose(lower @ vectors, vectors * values[:, None, :], rtol=0, atol=1e-11 * big)


@pytest.mark.parametrize("form", ["group", "serial", "stepped"])
def test_tiny_complex_entries_beside_large_ones(form, monkeypatch):
    """A complex entry whose square underflows, beside ones of order 1 (no scaling applies), and
    the array API suite's case of 1 beside 1e146: its reflector only removes a phase, which once
    divided by zero; now finite values within rounding (eps times the norm) of NumPy's."""
    _force_forms(monkeypatch, form, ("_svd_form", "_eigh_form", "_lu_form"))
    h = np.diag([1.0, 1e-170j, 2.0])
    x = numba_ext.asarray(h)
    sigma = numba_ext.asnumpy(np.linalg.svd(x, compute_uv=False))
    np.testing.assert_allclose(sigma, [2, 1, 1e-170], rtol=1e-12, atol=4e-16)  # to within eps |A|
    q, r = (numba_ext.asnumpy(t) for t in np.linalg.qr(x))
    np.testing.assert_allclose(q @ r, h, rtol=0, atol=1e-15)
    np.testing.assert_allclose(numba_ext.asnumpy(np.linalg.eigvalsh(x)), [0, 1, 2], rtol=0, atol=1e-15)
    g = np.zeros((3, 6), complex)
    g[0, 4], g[0, 5], g[1, 0], g[2, 4] = 1, 1j, 1j, 1.0750138877750824e146
    sigma = numba_ext.asnumpy(np.linalg.svd(numba_ext.asarray(g), compute_uv=False))
    assert np.all(np.isfinite(sigma)) and np.all(np.diff(sigma) <= 0), sigma
    np.testing.assert_allclose(sigma, np.linalg.svd(g, compute_uv=False), rtol=0, atol=1e-15 * 1.1e146)


@pytest.mark.parametrize("shape", [(0, 3, 3), (2, 0, 0), (0, 4, 2), (3, 0, 2)], ids=str)
def test_decompositions_of_empty_stacks(shape):
    """eigh, eigvalsh, svd and svdvals of stacks with no matrices or empty ones: NumPy's shapes."""
    h = np.zeros(shape)
    x = numba_ext.asarray(h)
    if shape[-1] == shape[-2]:
        assert [t.shape for t in np.linalg.eigh(x)] == [t.shape for t in np.linalg.eigh(h)]
        assert np.linalg.eigvalsh(x).shape == np.linalg.eigvalsh(h).shape
    assert [t.shape for t in np.linalg.svd(x)] == [t.shape for t in np.linalg.svd(h)]
    assert np.linalg.svd(x, compute_uv=False).shape == np.linalg.svd(h, compute_uv=False).shape


@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (5, 5), (2, 3, 6, 6), (33, 33)], ids=str)
def test_complex_eigh(rng, shape, cdt, jacobi_form):
    """eigh of Hermitian matrices (rotations with a phase): real eigenvalues as NumPy's, the
    vectors orthonormal and A v = w v, one triangle read (the diagonal's imaginary part ignored),
    also where eigenvalues repeat."""
    h = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(cdt)
    tol = {"rtol": 2e-3, "atol": 2e-3} if cdt == "complex64" else {"rtol": 1e-9, "atol": 1e-9}
    real = np.dtype(cdt).char.lower()
    for uplo in ("L", "U"):
        want = np.linalg.eigvalsh(h, UPLO=uplo)
        values, vectors = np.linalg.eigh(numba_ext.asarray(h), UPLO=uplo)
        assert values.dtype == real and vectors.dtype == cdt and vectors.shape == shape
        np.testing.assert_allclose(numba_ext.asnumpy(values), want, **tol)
        v = numba_ext.asnumpy(vectors).astype(np.complex128)
        tri = np.tril(h, -1) if uplo == "L" else _adjoint(np.triu(h, 1))
        full = tri + _adjoint(tri) + np.real(h) * np.eye(shape[-1])
        scaled = {k: 10 * t for k, t in tol.items()}
        np.testing.assert_allclose(full @ v, v * want[..., None, :], **scaled)
        _orthonormal_columns(v, tol)
    n = shape[-1]  # eigenvalues 2 (n // 2 times) and -1: a unitary basis of each eigenspace
    q = np.linalg.qr(rng.standard_normal((n, n)) + 1j * rng.standard_normal((n, n)))[0]
    d = np.where(np.arange(n) < n // 2, 2.0, -1.0)
    repeated = ((q * d) @ _adjoint(q)).astype(cdt)
    values, vectors = la.eigh(numba_ext.asarray(repeated))
    np.testing.assert_allclose(numba_ext.asnumpy(values), np.sort(d), **tol)
    v = numba_ext.asnumpy(vectors).astype(np.complex128)
    _orthonormal_columns(v, tol)
    np.testing.assert_allclose(repeated @ v, v * np.sort(d), **tol)


@pytest.mark.parametrize("shape", [(1, 1), (4, 4), (3, 5, 3), (2, 3, 6), (20, 20), (2, 9, 30)], ids=str)
def test_complex_svd(rng, shape, cdt, jacobi_form):
    """svd of complex matrices (one-sided rotations with a phase): NumPy's singular values, U and
    Vh with orthonormal columns and rows that rebuild the matrix, both full_matrices forms, tall,
    wide and rank-deficient matrices."""
    h = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(cdt)
    h[..., :, 0] = 0  # a zero singular value: U completed to a basis
    tol = {"rtol": 2e-3, "atol": 2e-3} if cdt == "complex64" else {"rtol": 1e-9, "atol": 1e-9}
    m, n = shape[-2:]
    k = min(m, n)
    for full in (True, False):
        u, s, vh = (numba_ext.asnumpy(t) for t in np.linalg.svd(numba_ext.asarray(h), full_matrices=full))
        want = np.linalg.svd(h, full_matrices=full)
        assert (u.shape, s.shape, vh.shape) == (want.U.shape, want.S.shape, want.Vh.shape)
        assert u.dtype == cdt and vh.dtype == cdt and s.dtype == np.dtype(cdt).char.lower()
        np.testing.assert_allclose(s, want.S, **tol)
        _orthonormal_columns(u.astype(np.complex128), tol)
        _orthonormal_columns(_adjoint(vh.astype(np.complex128)), tol)
        rebuilt = (u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :]
        np.testing.assert_allclose(rebuilt, h, **tol)


def _same_as(cdt):
    """A check of a result against NumPy's (dtype, shape, values within `cdt`'s precision)."""
    tol = {"rtol": 2e-3, "atol": 2e-3} if cdt == "complex64" else {"rtol": 1e-9, "atol": 1e-9}

    def same(got, want):
        got = numba_ext.asnumpy(got)
        assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype, got.shape)
        np.testing.assert_allclose(got, want, **tol)

    return same


@pytest.mark.parametrize("shape", [(1, 1), (4, 4), (2, 3, 6, 6), (40, 40)], ids=str)
def test_complex_lu_and_cholesky(rng, shape, cdt, factor_form):
    """det, slogdet, solve, inv, cholesky and qr of complex matrices (LU, L L^H and Householder
    reflections on the device)."""
    n = shape[-1]
    h = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape) + n * np.eye(n) * 0.5).astype(cdt)
    x = numba_ext.asarray(h)
    same = _same_as(cdt)

    if n <= 6:  # larger determinants overflow complex64 (slogdet below covers them)
        same(la.det(x), np.linalg.det(h))
        same(np.linalg.det(x), np.linalg.det(h))
    sign, logabs = la.slogdet(x)
    want = np.linalg.slogdet(h)
    same(sign, want.sign)
    same(logabs, want.logabsdet)
    same(la.inv(x), np.linalg.inv(h))
    b = (rng.standard_normal(shape[:-1] + (3,)) + 1j).astype(cdt)
    same(la.solve(x, numba_ext.asarray(b)), np.linalg.solve(h, b))
    real_a = rng.standard_normal((n, n)) + n * np.eye(n)
    vec = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    same(la.solve(numba_ext.asarray(real_a), numba_ext.asarray(vec)), np.linalg.solve(real_a, vec))
    hermitian = (h @ np.conj(np.swapaxes(h, -1, -2)) + n * np.eye(n)).astype(cdt)
    hx = numba_ext.asarray(hermitian)
    same(la.cholesky(hx), np.linalg.cholesky(hermitian))
    same(la.cholesky(hx, upper=True), np.linalg.cholesky(hermitian, upper=True))
    for mode in ("reduced", "complete"):  # R's diagonal real, as LAPACK's zgeqrf
        for m in (
            x,
            numba_ext.asarray(h[..., :, : max(1, n // 2)]),
            numba_ext.asarray(h[..., : max(1, n // 2), :]),
        ):
            got, want = la.qr(m, mode=mode), np.linalg.qr(numba_ext.asnumpy(m), mode=mode)
            same(got.Q, want.Q)
            same(got.R, want.R)
    singular = numba_ext.asarray(np.zeros((3, 3), dtype=cdt))
    sign, logabs = la.slogdet(singular)
    assert numba_ext.asnumpy(sign) == 0 and numba_ext.asnumpy(logabs) == -np.inf
    with pytest.raises(np.linalg.LinAlgError, match="Singular"):
        la.inv(singular)
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        la.cholesky(numba_ext.asarray(-np.eye(3, dtype=cdt)))


@pytest.mark.parametrize("shape", [(1, 1), (4, 4), (3, 5, 3), (2, 3, 6), (20, 20)], ids=str)
def test_complex_singular_values_and_eigenvalues(rng, shape, cdt):
    """svdvals, matrix_rank, pinv, the spectral norms and eigvalsh of complex matrices."""
    h = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(cdt)
    x = numba_ext.asarray(h)
    same = _same_as(cdt)

    same(la.svdvals(x), np.linalg.svd(h, compute_uv=False))
    same(la.pinv(x), np.linalg.pinv(h))
    same(np.linalg.pinv(x), np.linalg.pinv(h))
    for order in (2, -2, "nuc"):
        same(la.matrix_norm(x, ord=order), np.linalg.matrix_norm(h, ord=order))
    low_rank = (h[..., :, :1] @ h[..., :1, :]).astype(cdt)  # rank one
    np.testing.assert_array_equal(
        numba_ext.asnumpy(la.matrix_rank(numba_ext.asarray(low_rank))), np.linalg.matrix_rank(low_rank)
    )
    if shape[-1] == shape[-2]:
        for uplo in ("L", "U"):  # one triangle read, the diagonal's imaginary part ignored
            same(np.linalg.eigvalsh(x, UPLO=uplo), np.linalg.eigvalsh(h, UPLO=uplo))
        same(la.eigvalsh(x), np.linalg.eigvalsh(h))


@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (5, 5), (2, 3, 6, 6), (33, 33)], ids=str)
def test_eigh_and_eigvalsh(rng, shape, dtype, jacobi_form):
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
def test_singular_values_rank_pinv_and_norms(rng, shape, dtype, jacobi_form):
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
    with pytest.raises(TypeError, match=r"np.linalg.eig\(\) is not offloaded"):
        np.linalg.eig(x)
    with pytest.raises(ValueError, match="UPLO"):
        np.linalg.eigh(x, UPLO="X")


@pytest.mark.parametrize(
    "shape,bshape,deficient",
    [
        ((9, 4), (9,), False),
        ((9, 4), (9, 3), False),
        ((4, 9), (4,), False),
        ((6, 6), (6, 2), True),
        ((5, 5), (5,), False),
    ],
)
@pytest.mark.parametrize("dt", ["float64", "complex128"])
def test_lstsq(rng, shape, bshape, deficient, dt):
    a, b = rng.standard_normal(shape), rng.standard_normal(bshape)
    if dt == "complex128":
        a, b = a + 1j * rng.standard_normal(shape), b + 1j * rng.standard_normal(bshape)
    if deficient:
        a[:, -1] = a[:, 0]  # rank one less: the minimum-norm solution, no residuals
    got = np.linalg.lstsq(numba_ext.asarray(a), numba_ext.asarray(b))
    want = np.linalg.lstsq(a, b)
    for k, (g, w) in enumerate(zip(got, want)):
        g = numba_ext.asnumpy(g) if isinstance(g, numba_ext.ndarray) else g
        assert np.shape(g) == np.shape(w) and np.asarray(g).dtype == np.asarray(w).dtype, (
            k,
            np.shape(g),
            np.shape(w),
        )
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-9, err_msg=f"part {k}")
    with pytest.raises(np.linalg.LinAlgError, match="rows"):
        np.linalg.lstsq(numba_ext.asarray(a), numba_ext.asarray(b[:-1]))


@pytest.mark.parametrize("p", [None, 2, -2, 1, -1, np.inf, -np.inf, "fro", "nuc"])
def test_cond(rng, p):
    h = rng.standard_normal((3, 5, 5))
    got = np.linalg.cond(numba_ext.asarray(h), p)
    np.testing.assert_allclose(numba_ext.asnumpy(got), np.linalg.cond(h, p), rtol=1e-9)


@pytest.mark.parametrize("dt", ["float32", "float64", "complex64", "complex128"])
def test_numpys_hermitian_forms(rng, dt):
    """np.linalg.svd, matrix_rank and pinv with hermitian=True: NumPy's way, from the
    eigendecomposition of the lower triangle (singular values the eigenvalues' magnitudes, their
    signs in Vh), rank-deficient matrices included."""
    shape = (2, 6, 6)
    h = rng.standard_normal(shape) + (1j * rng.standard_normal(shape) if dt.startswith("complex") else 0)
    h = h + np.conj(np.swapaxes(h, -1, -2))
    h[1, 0, :] = h[1, :, 0] = 0  # rank 5
    h = h.astype(dt)
    h[0, 0, 5] = 100  # the upper triangle is not read
    x = numba_ext.asarray(h)
    tol = {"rtol": 2e-3, "atol": 2e-3} if dt in ("float32", "complex64") else {"rtol": 1e-9, "atol": 1e-9}
    u, s, vh = (numba_ext.asnumpy(t) for t in np.linalg.svd(x, hermitian=True))
    want = np.linalg.svd(h, hermitian=True)
    assert (u.dtype, s.dtype, vh.dtype) == (want.U.dtype, want.S.dtype, want.Vh.dtype)
    np.testing.assert_allclose(s, want.S, **tol)
    np.testing.assert_allclose((u * s[..., None, :]) @ vh, (want.U * want.S[..., None, :]) @ want.Vh, **tol)
    got = np.linalg.svd(x, hermitian=True, compute_uv=False)
    np.testing.assert_allclose(
        numba_ext.asnumpy(got), np.linalg.svd(h, hermitian=True, compute_uv=False), **tol
    )
    rank = np.linalg.matrix_rank(x, hermitian=True)
    np.testing.assert_array_equal(numba_ext.asnumpy(rank), np.linalg.matrix_rank(h, hermitian=True))
    rank = np.linalg.matrix_rank(x, tol=1.0, hermitian=True)
    np.testing.assert_array_equal(numba_ext.asnumpy(rank), np.linalg.matrix_rank(h, tol=1.0, hermitian=True))
    for rcond in (1e-6, 0.2):
        got = numba_ext.asnumpy(np.linalg.pinv(x, rcond=rcond, hermitian=True))
        want_inverse = np.linalg.pinv(h, rcond=rcond, hermitian=True)
        assert got.dtype == want_inverse.dtype
        np.testing.assert_allclose(got, want_inverse, **{k: 10 * t for k, t in tol.items()})


QR_SVD_SHAPES = [(1, 1), (3, 3), (6, 4), (4, 6), (2, 3, 7, 5), (2, 5, 3), (0, 3), (3, 0), (40, 25)]


@pytest.mark.parametrize("shape", QR_SVD_SHAPES, ids=str)
@pytest.mark.parametrize("mode", ["reduced", "complete"])
def test_qr(rng, shape, mode, dtype, factor_form):
    h = rng.standard_normal(shape).astype(dtype)
    q, r = la.qr(numba_ext.asarray(h), mode=mode)
    want_q, want_r = np.linalg.qr(h, mode=mode)
    assert q.shape == want_q.shape and r.shape == want_r.shape and q.dtype == dtype
    q, r = numba_ext.asnumpy(q).astype(np.float64), numba_ext.asnumpy(r).astype(np.float64)
    tol = _tol(dtype)
    np.testing.assert_allclose(q @ r, h, **tol)
    np.testing.assert_allclose(
        np.swapaxes(q, -1, -2) @ q,
        np.broadcast_to(np.eye(q.shape[-1]), q.shape[:-2] + (q.shape[-1],) * 2),
        **tol,
    )
    np.testing.assert_array_equal(r, np.triu(r))
    np.testing.assert_allclose(np.abs(r), np.abs(want_r), **tol)  # R up to the signs of its rows


@pytest.mark.parametrize("shape", QR_SVD_SHAPES, ids=str)
@pytest.mark.parametrize("full_matrices", [True, False])
def test_svd(rng, shape, full_matrices, dtype):
    h = rng.standard_normal(shape).astype(dtype)
    u, s, vh = la.svd(numba_ext.asarray(h), full_matrices=full_matrices)
    want_u, want_s, want_vh = np.linalg.svd(h, full_matrices=full_matrices)
    assert (u.shape, s.shape, vh.shape) == (want_u.shape, want_s.shape, want_vh.shape)
    assert u.dtype == s.dtype == vh.dtype == dtype
    u, s, vh = (numba_ext.asnumpy(v).astype(np.float64) for v in (u, s, vh))
    tol = _tol(dtype)
    np.testing.assert_allclose(s, want_s, **tol)
    k = s.shape[-1]
    np.testing.assert_allclose((u[..., :k] * s[..., None, :]) @ vh[..., :k, :], h, **tol)
    for m in (u, np.swapaxes(vh, -1, -2)):
        np.testing.assert_allclose(
            np.swapaxes(m, -1, -2) @ m,
            np.broadcast_to(np.eye(m.shape[-1]), m.shape[:-2] + (m.shape[-1],) * 2),
            **tol,
        )


def test_svd_of_rank_deficient_matrices_completes_the_bases(rng):
    h = rng.standard_normal((2, 7, 2)) @ rng.standard_normal((2, 2, 5))  # rank 2
    for x in (h, np.swapaxes(h, -1, -2).copy()):
        u, s, vh = (numba_ext.asnumpy(v) for v in la.svd(numba_ext.asarray(x)))
        assert np.sum(s > 1e-9, axis=-1).tolist() == [2, 2]
        np.testing.assert_allclose(
            np.swapaxes(u, -1, -2) @ u, np.broadcast_to(np.eye(u.shape[-1]), u.shape), atol=1e-9
        )
        np.testing.assert_allclose(
            (u[..., :5] * s[..., None, :]) @ vh[..., :5, :]
            if x.shape[-1] == 5
            else (u * s[..., None, :]) @ vh[..., :5, :],
            x,
            atol=1e-9,
        )
    got = numba_ext.asnumpy(np.linalg.svd(numba_ext.asarray(h), compute_uv=False))
    np.testing.assert_allclose(got, np.linalg.svd(h, compute_uv=False), atol=1e-9)
    np.testing.assert_allclose(
        numba_ext.asnumpy(np.linalg.qr(numba_ext.asarray(h)).R), np.linalg.qr(h).R, atol=1e-9
    )


def test_numpy_conventions_of_inputs_and_result_dtypes():
    """np.linalg's rules on the edges of its inputs, as NumPy's: fewer than two dimensions is
    LinAlgError (a ValueError), half precision a TypeError, matrix_rank of a vector whether it has
    a nonzero element, solve with an integer or bool right-hand side computes in double, and the
    log-determinant of an empty complex stack is real."""
    vector = numba_ext.asarray(np.array([0.0, 2.0, 0.0]))
    for fn in (np.linalg.inv, np.linalg.det, np.linalg.svd, np.linalg.eigh, np.linalg.qr, np.linalg.cholesky):
        with pytest.raises(np.linalg.LinAlgError, match="at least 2 dimensions"):
            fn(vector)
    with pytest.raises(TypeError, match="float16"):
        np.linalg.svd(numba_ext.asarray(np.eye(3, dtype=np.float16)))
    assert int(numba_ext.asnumpy(np.linalg.matrix_rank(vector))) == np.linalg.matrix_rank(
        np.array([0.0, 2.0, 0.0])
    )
    assert int(numba_ext.asnumpy(np.linalg.matrix_rank(numba_ext.zeros(3)))) == 0
    a = np.array([[2.0, 1.0], [1.0, 3.0]], dtype=np.float32)
    for bt in ("int8", "bool", "int64", "float32"):
        b = np.array([1, 1], dtype=bt)
        got = np.linalg.solve(numba_ext.asarray(a), numba_ext.asarray(b))
        assert got.dtype == np.linalg.solve(a, b).dtype, bt
        np.testing.assert_allclose(numba_ext.asnumpy(got), np.linalg.solve(a, b), rtol=1e-6)
    empty = np.zeros((2, 0, 0), dtype=np.complex64)
    sign, logabs = np.linalg.slogdet(numba_ext.asarray(empty))
    want_sign, want_logabs = np.linalg.slogdet(empty)
    assert (sign.dtype, logabs.dtype) == (want_sign.dtype, want_logabs.dtype)
    np.testing.assert_array_equal(numba_ext.asnumpy(logabs), want_logabs)


def test_numpy_qr_modes_and_uplo_case():
    """np.linalg.qr's mode "r" gives R alone and "raw" is refused by name; UPLO is taken in either
    case, as NumPy's."""
    a = np.random.default_rng(5).standard_normal((5, 3))
    x = numba_ext.asarray(a)
    np.testing.assert_allclose(
        numba_ext.asnumpy(np.linalg.qr(x, mode="r")), np.linalg.qr(a, mode="r"), atol=1e-12
    )
    with pytest.raises(numba_ext.errors.UnsupportedError, match="raw"):
        np.linalg.qr(x, mode="raw")
    h = a.T @ a
    for uplo in ("l", "u"):
        np.testing.assert_allclose(
            numba_ext.asnumpy(np.linalg.eigvalsh(numba_ext.asarray(h), UPLO=uplo)),
            np.linalg.eigvalsh(h, UPLO=uplo),
        )


def test_numpy_matrix_power_and_cond_errors():
    """matrix_power of non-square matrices is LinAlgError and of a non-integer exponent a
    TypeError, cond of empty matrices LinAlgError (an empty stack of matrices gives an empty
    result), as NumPy's."""
    with pytest.raises(np.linalg.LinAlgError, match="square"):
        np.linalg.matrix_power(numba_ext.ones((2, 3)), 2)
    with pytest.raises(TypeError, match="integer"):
        np.linalg.matrix_power(numba_ext.asarray(np.eye(2)), 2.0)
    np.testing.assert_array_equal(
        numba_ext.asnumpy(np.linalg.matrix_power(numba_ext.asarray(2 * np.eye(2)), np.int64(3))),
        8 * np.eye(2),
    )
    with pytest.raises(np.linalg.LinAlgError, match="empty"):
        np.linalg.cond(numba_ext.asarray(np.ones((0, 0))))
    assert numba_ext.asnumpy(np.linalg.cond(numba_ext.asarray(np.ones((0, 3, 3))))).shape == (0,)


@pytest.mark.parametrize("form", ["group", "serial", "stepped"])
@pytest.mark.parametrize(
    ("dt", "magnitude"), [("float64", 1e-200), ("float64", 1e200), ("float32", 1e-30), ("float32", 1e30)]
)
def test_pseudo_inverse_of_extreme_magnitudes(rng, form, dt, magnitude, monkeypatch):
    """pinv and lstsq of matrices of entries near 1e-200 and 1e200 (1e-30 and 1e30 in single
    precision): 1 / s stays in range where 1 / s^2 does not (the pseudo-inverse once gave NaN
    there); NumPy's results, tall and wide."""
    _force_forms(monkeypatch, form)
    tol = 1e-5 if dt == "float32" else 1e-12
    for shape in ((7, 5), (4, 6)):
        a = (rng.standard_normal(shape) * magnitude).astype(dt)
        b = rng.standard_normal(shape[0]).astype(dt)
        want = np.linalg.pinv(a.astype(np.float64))
        got = numba_ext.asnumpy(np.linalg.pinv(numba_ext.asarray(a)))
        np.testing.assert_allclose(got, want, rtol=0, atol=tol * np.abs(want).max())
        x = numba_ext.asnumpy(np.linalg.lstsq(numba_ext.asarray(a), numba_ext.asarray(b))[0])
        want_x = np.linalg.lstsq(a.astype(np.float64), b.astype(np.float64))[0]
        np.testing.assert_allclose(x, want_x, rtol=0, atol=tol * np.abs(want_x).max())


def test_det_of_pivots_beyond_the_range_of_their_product():
    """det is sign times exp(log|det|), as NumPy's: pivots near 1e-200 and 1e200 whose product is
    1, and a singular matrix with large pivots (0, not NaN)."""
    got = numba_ext.asnumpy(np.linalg.det(numba_ext.asarray(np.diag([1e-200] * 3 + [1e200] * 3))))
    np.testing.assert_allclose(got, 1.0, rtol=1e-12)
    assert numba_ext.asnumpy(np.linalg.det(numba_ext.asarray(np.diag([1e200, 1e200, 0.0])))) == 0.0


@pytest.mark.parametrize("form", ["group", "serial", "stepped"])
def test_svd_of_unitary_matrices(rng, form, monkeypatch):
    """The singular values of random unitary matrices are all 1: their bidiagonal form is diagonal
    up to rounding, and the QR method must take entries of rounding size as negligible (at one
    epsilon times the norm it once did not converge for some)."""
    _force_forms(monkeypatch, form)
    g = rng.standard_normal((12, 48, 48)) + 1j * rng.standard_normal((12, 48, 48))
    q = np.linalg.qr(g)[0]
    s = numba_ext.asnumpy(np.linalg.svd(numba_ext.asarray(q), compute_uv=False))
    np.testing.assert_allclose(s, 1.0, atol=1e-13)


@pytest.mark.parametrize("form", ["group", "serial", "stepped"])
@pytest.mark.parametrize("scale", [1.0, 1e-30])
def test_single_precision_columns_that_vanish(form, scale, monkeypatch):
    """eigh, svd and qr of float32 matrices of equal entries (and of entries near 1e-30): after the
    first reflector the columns left are of rounding, even subnormal, size, whose reflector's
    scale leaves single precision's range (it is taken in double; NaN before)."""
    _force_forms(monkeypatch, form, ("_svd_form", "_eigh_form", "_lu_form"))
    for n in (9, 20, 33):
        h = np.full((n, n), scale, dtype=np.float32)
        w = numba_ext.asnumpy(np.linalg.eigvalsh(numba_ext.asarray(h)))
        np.testing.assert_allclose(np.sort(w), np.r_[np.zeros(n - 1), n * scale], atol=2e-5 * n * scale)
        s = numba_ext.asnumpy(np.linalg.svd(numba_ext.asarray(h), compute_uv=False))
        np.testing.assert_allclose(np.sort(s)[::-1], np.r_[n * scale, np.zeros(n - 1)], atol=2e-5 * n * scale)
        q, r = (numba_ext.asnumpy(t) for t in np.linalg.qr(numba_ext.asarray(h)))
        assert np.isfinite(q).all() and np.isfinite(r).all()
        np.testing.assert_allclose(q @ r, h, atol=2e-5 * n * scale)


def test_numpy_lstsq_arguments_and_cond_of_singular_matrices():
    """np.linalg.lstsq as NumPy's: both operands in their common type, rcond outside (0, 1)
    meaning machine precision (LAPACK's gelsd), a Python list as b placed with a, anything that
    is not a vector or matrix of as many rows a LinAlgError and a NumPy b beside a device a the
    library's TypeError that says to copy it; cond of a singular matrix in a p-norm is infinite,
    not an error."""
    a = np.eye(4, 2, dtype=np.float32)
    b = np.ones(4)
    got = np.linalg.lstsq(numba_ext.asarray(a), numba_ext.asarray(b))
    want = np.linalg.lstsq(a, b)
    assert [t.dtype for t in (got[0], got[1], got[3])] == [t.dtype for t in (want[0], want[1], want[3])]
    ones, ramp = np.ones((4, 2)), np.arange(4.0)
    for rcond in (-1, 2.0, np.nan):
        x = numba_ext.asnumpy(
            np.linalg.lstsq(numba_ext.asarray(ones), numba_ext.asarray(ramp), rcond=rcond)[0]
        )
        np.testing.assert_allclose(x, np.linalg.lstsq(ones, ramp, rcond=-1)[0], rtol=1e-12)
    x = numba_ext.asnumpy(np.linalg.lstsq(numba_ext.asarray(ones[:3]), [1.0, 2.0, 3.0])[0])
    np.testing.assert_allclose(x, np.linalg.lstsq(ones[:3], [1.0, 2.0, 3.0])[0], rtol=1e-12)
    for bad in (1.5, None, "x", [1.0, 2.0]):
        with pytest.raises(np.linalg.LinAlgError):
            np.linalg.lstsq(numba_ext.asarray(ones[:3]), bad)
    with pytest.raises(TypeError, match="numba_ext.asarray"):
        np.linalg.lstsq(numba_ext.asarray(ones), ramp)
    h = np.stack([np.zeros((3, 3)), 2 * np.eye(3) + 0.1])
    np.testing.assert_allclose(
        numba_ext.asnumpy(np.linalg.cond(numba_ext.asarray(h), 1)), np.linalg.cond(h, 1)
    )
