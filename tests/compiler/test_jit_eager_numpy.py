"""NumPy functions that Numba runs on the host (or not at all for our arrays) called on numba_ext
arrays inside @numba_ext.jit and plain @numba.njit: the eager library computes them on the arrays'
queue. Checked against NumPy on fresh random data, with the results used by later array
expressions of the same function; keyword and list arguments, run-time (non-literal) arguments,
tuple results, USM types of the results, and the errors: NumPy arrays mixed in, NumPy's own
refusals, run-time errors of the eager call. NumPy arrays keep Numba's implementations. Runs on
both memory back ends (nothing reads elements on the host)."""

import numba
import numpy as np
import pytest

import numba_ext as nx
from numba_ext.compiler.eager_numpy import FUNCTIONS
from numba_ext.errors import ExecutionPlacementError, MixedUSMTypeWarning, UnsupportedError
from tests.checks import poison


def _data(rng):
    m = rng.standard_normal((5, 5))
    return {
        "m": m + 5 * np.eye(5),  # well conditioned
        "s": m @ m.T + np.eye(5),  # symmetric positive definite
        "v": rng.standard_normal(9),
        "w": rng.standard_normal(9),
        "i": rng.integers(0, 9, 7),
        "x": np.sort(rng.uniform(-2, 2, 8)),
        "c": rng.standard_normal(9) > 0,
    }


def _tol(dtype):
    return (
        {"rtol": 2e-4, "atol": 2e-5}
        if np.dtype(dtype) in (np.float32, np.complex64)
        else {"rtol": 1e-10, "atol": 1e-12}
    )


def _same(got, want, where):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), (where, got)
        for g, w in zip(got, want):
            _same(g, w, where)
        return
    want = np.asarray(want)
    if want.ndim:
        assert isinstance(got, nx.ndarray), (where, type(got))
        got = nx.asnumpy(got)
    elif isinstance(got, (bool, int, float, complex)):  # a scalar result comes back as Python's
        got = want.dtype.type(got)
    got = np.asarray(got)
    assert got.shape == want.shape and got.dtype == want.dtype, (
        where,
        got.shape,
        want.shape,
        got.dtype,
        want.dtype,
    )
    np.testing.assert_allclose(got, want, equal_nan=True, err_msg=where, **_tol(want.dtype))


# (name, source over m s v w i x c): array results come back through `* 2`, so later array
# expressions in the same function use them
CALLS = [
    ("sort", "np.sort(v) * 2"),
    ("sort_axis", "np.sort(m, axis=0) * 2"),
    ("argsort", "np.argsort(v)"),
    ("unique", "np.unique(i)"),
    ("nonzero", "np.nonzero(c)"),
    ("flatnonzero", "np.flatnonzero(c)"),
    ("argwhere", "np.argwhere(m > 0)"),
    ("where_one", "np.where(c)"),
    ("count_nonzero", "np.count_nonzero(c)"),
    ("median", "np.median(v)"),
    ("median_axis", "np.median(m, axis=1) * 2"),
    ("percentile", "np.percentile(v, 30.0)"),
    ("percentile_method", "np.percentile(v, 30.0, method='nearest')"),
    ("quantile_axis", "np.quantile(m, 0.25, axis=0) * 2"),
    ("nanmean", "np.nanmean(v)"),
    ("nanmax_axis", "np.nanmax(m, axis=0) * 2"),
    ("nanstd", "np.nanstd(v)"),
    ("nanmedian", "np.nanmedian(v)"),
    ("nancumsum", "np.nancumsum(v) * 2"),
    ("std_axis", "np.std(m, axis=0) * 2"),
    ("var_ddof", "np.var(v, ddof=1)"),
    ("average_weights", "np.average(v, weights=w * w)"),
    ("concatenate_tuple", "np.concatenate((v, w)) * 2"),
    ("concatenate_list", "np.concatenate([v, w, v])"),
    ("stack", "np.stack((v, w), axis=1) * 2"),
    ("column_stack", "np.column_stack((v, w))"),
    ("append", "np.append(v, w)"),
    ("roll", "np.roll(v, 3) * 2"),
    ("roll_axis", "np.roll(m, shift=-2, axis=1)"),
    ("repeat", "np.repeat(v, 2)"),
    ("tile", "np.tile(v, 2)"),
    ("diff", "np.diff(v) * 2"),
    ("diff_n_axis", "np.diff(m, n=2, axis=0)"),
    ("ediff1d", "np.ediff1d(v)"),
    ("gradient", "np.gradient(v)"),
    ("triu", "np.triu(m) * 2"),
    ("tril_k", "np.tril(m, -1)"),
    ("diag", "np.diag(m)"),
    ("diagflat", "np.diagflat(v)"),
    ("diagonal", "np.diagonal(m, 1)"),
    ("trace", "np.trace(m)"),
    ("ravel_copy", "np.ravel(m[:, ::2])"),
    ("take", "np.take(v, i) * 2"),
    ("take_along_axis", "np.take_along_axis(v, i, 0)"),
    ("compress", "np.compress(c, v)"),
    ("extract", "np.extract(c, v)"),
    ("select", "np.select([v > 0, v < -1], [v, w], 7.0)"),
    ("convolve", "np.convolve(v, w) * 2"),
    ("convolve_same", "np.convolve(v, w[:4], mode='same')"),
    ("correlate", "np.correlate(v, w, 'full')"),
    ("interp", "np.interp(v, x, x * x) * 2"),
    ("digitize", "np.digitize(v, x)"),
    ("polyval", "np.polyval(w[:4], v)"),
    ("vander", "np.vander(v[:4])"),
    ("kron", "np.kron(m[:2, :2], m)"),
    ("outer", "np.outer(v, w) * 2"),
    ("inner", "np.inner(v, w)"),
    ("vdot", "np.vdot(v, w)"),
    ("tensordot", "np.tensordot(m, s, 1)"),
    ("einsum", "np.einsum('ij,jk->ik', m, s)"),
    ("cross", "np.cross(v[:3], w[:3])"),
    ("cov", "np.cov(m) * 2"),
    ("corrcoef", "np.corrcoef(m)"),
    ("isclose", "np.isclose(v, v + 1e-12)"),
    ("allclose", "np.allclose(v, v + 1e-12)"),
    ("array_equal", "np.array_equal(v, w)"),
    ("around", "np.around(v, 2)"),
    ("round", "np.round(v, 1) * 2"),
    ("nan_to_num", "np.nan_to_num(v / (v > 0))"),
    ("sinc", "np.sinc(v)"),
    ("angle", "np.angle(v)"),
    ("solve", "np.linalg.solve(m, v[:5]) * 2"),
    ("inv", "np.linalg.inv(m) @ m"),
    ("det", "np.linalg.det(m)"),
    ("slogdet", "np.linalg.slogdet(m)"),
    ("cholesky", "np.linalg.cholesky(s)"),
    ("eigvalsh", "np.linalg.eigvalsh(s)"),
    ("matrix_power", "np.linalg.matrix_power(m, 3)"),
    ("matrix_rank", "np.linalg.matrix_rank(m)"),
    ("norm", "np.linalg.norm(m)"),
    ("norm_vector", "np.linalg.norm(v)"),
    ("norm_axis", "np.linalg.norm(m, axis=1) * 2"),
    ("norm_orders", "np.linalg.norm(m, 1) + np.linalg.norm(m, 2) + np.linalg.norm(m, -np.inf)"),
    ("cond", "np.linalg.cond(m)"),
    ("lstsq", "np.linalg.lstsq(m[:, :3], v[:5])"),
    ("pinv", "np.linalg.pinv(m)"),
    ("svd_values", "np.linalg.svd(m, compute_uv=False)"),
]


@pytest.mark.parametrize("name,source", CALLS, ids=[c[0] for c in CALLS])
def test_calls_against_numpy(rng, name, source):
    h = _data(rng)
    if name == "nan_to_num":
        h["v"][::3] = 0.0  # divisions by zero: infinities and NaN
    with np.errstate(all="ignore"):
        want = eval("lambda m, s, v, w, i, x, c: " + source)(**h)
    poison(np.asarray(want[0] if isinstance(want, tuple) else want).size, "float64", "int64")
    d = {k: nx.asarray(a) for k, a in h.items()}
    fn = eval("lambda m, s, v, w, i, x, c: " + source)
    got = nx.jit(fn)(**d)
    _same(got, want, name)
    first = got[0] if isinstance(got, tuple) else got
    if isinstance(first, nx.ndarray):
        assert first.sycl_queue is d["v"].sycl_queue and first.usm_type == "device"


def test_every_function_listed_is_numpys():
    for name, fn in FUNCTIONS.items():
        owner = np.linalg if name.startswith("linalg.") else np
        assert getattr(owner, name.removeprefix("linalg.")) is fn


@pytest.mark.parametrize("dtype", ["float32", "int64", "complex128"])
def test_dtypes(rng, dtype):
    h = (
        (rng.standard_normal(40) * 10).astype(dtype)
        if dtype != "complex128"
        else rng.standard_normal(40) * (1 + 1j)
    )
    x = nx.asarray(h)
    f = nx.jit(lambda a: (np.sort(a), np.roll(a, 2) * 2, np.median(a.real), np.cumsum(np.diff(a))))
    got = f(x)
    want = (np.sort(h), np.roll(h, 2) * 2, np.median(h.real), np.cumsum(np.diff(h)))
    _same(got, want, dtype)


def test_plain_njit_and_runtime_arguments(rng):
    h = rng.standard_normal((6, 6)) + 6 * np.eye(6)
    m = nx.asarray(h)

    @numba.njit
    def f(a, shift, k, q):
        r = np.roll(a, shift, axis=1)  # run-time shift
        t = np.triu(a, k)
        return r + t, np.percentile(a, q), np.linalg.matrix_power(a, k + 2)

    for shift, k, q in ((1, 0, 30.0), (-4, 1, 99.5)):
        got = f(m, shift, k, q)
        want = (
            np.roll(h, shift, axis=1) + np.triu(h, k),
            np.percentile(h, q),
            np.linalg.matrix_power(h, k + 2),
        )
        _same(got, want, f"shift={shift}")


def test_tuple_results(rng):
    h = rng.standard_normal((6, 6))
    s = h @ h.T + np.eye(6)
    a, b = nx.asarray(h), nx.asarray(s)

    @nx.jit
    def f(a, b):
        w, v = np.linalg.eigh(b)
        u, sv, vt = np.linalg.svd(a)
        q, r = np.linalg.qr(a)
        sign, logdet = np.linalg.slogdet(a)
        return v * w @ v.T, (u * sv) @ vt, q @ r, sign * np.exp(logdet), sv

    back_s, back_a, qr, det, sv = f(a, b)
    tol = {"rtol": 1e-9, "atol": 1e-9}
    np.testing.assert_allclose(nx.asnumpy(back_s), s, **tol)
    np.testing.assert_allclose(nx.asnumpy(back_a), h, **tol)
    np.testing.assert_allclose(nx.asnumpy(qr), h, **tol)
    np.testing.assert_allclose(det, np.linalg.det(h), rtol=1e-9)
    np.testing.assert_allclose(nx.asnumpy(sv), np.linalg.svd(h, compute_uv=False), **tol)


def test_partition(rng):
    h = rng.standard_normal(30)
    x = nx.asarray(h)
    p, ip = nx.jit(lambda a: (np.partition(a, 7), np.argpartition(a, 7)))(x)
    p, ip = nx.asnumpy(p), nx.asnumpy(ip)
    k = np.sort(h)[7]
    assert p[7] == k and (p[:7] <= k).all() and (p[8:] >= k).all()
    assert h[ip[7]] == k and sorted(ip) == list(range(30))


def test_result_usm_types(rng):
    h = rng.standard_normal(10)
    q = nx.asarray(h).sycl_queue
    d = nx.asarray(h, usm_type="device", sycl_queue=q)
    s = nx.asarray(h, usm_type="shared", sycl_queue=q)
    f = nx.jit(lambda a, b: np.concatenate((a, b)))
    assert f(d, d).usm_type == "device"
    with pytest.warns(MixedUSMTypeWarning):
        mixed = f(d, s)
    assert mixed.usm_type == "device"  # the precedence device < shared < host: device wins
    np.testing.assert_array_equal(nx.asnumpy(mixed), np.concatenate((h, h)))
    with pytest.warns(MixedUSMTypeWarning):
        assert f(s, nx.asarray(h, usm_type="host", sycl_queue=q)).usm_type == "shared"
    assert f(s, s).usm_type == "shared"


def test_numpy_arrays_keep_numbas_implementation(rng):
    h = rng.standard_normal(12)
    f = numba.njit(lambda a: (np.sort(a), np.roll(a, 2), np.median(a), np.unique(np.round(a))))
    got = f(h)
    assert all(type(g) is np.ndarray for g in (got[0], got[1], got[3]))
    _same_host = [np.sort(h), np.roll(h, 2), np.median(h), np.unique(np.round(h))]
    for g, w in zip(got, _same_host):
        np.testing.assert_allclose(g, w)


def test_mixing_numpy_arrays_is_refused(rng):
    x = nx.asarray(rng.standard_normal(5))
    with pytest.raises(
        ExecutionPlacementError, match=r"np.concatenate\(\) mixes numba_ext arrays with NumPy"
    ):
        nx.jit(lambda a, b: np.concatenate((a, b)))(x, np.ones(5))
    with pytest.raises(ExecutionPlacementError, match=r"np.convolve\(\) mixes"):
        nx.jit(lambda a, b: np.convolve(a, b))(x, np.ones(3))


def test_numpys_refusals_are_compile_errors(rng):
    x = nx.asarray(rng.standard_normal(5))
    with pytest.raises(
        UnsupportedError, match=r"np.linalg.det\(\) of numba_ext arrays in jitted code: NumPy refuses"
    ):
        nx.jit(lambda a: np.linalg.det(a))(x)  # a vector: NumPy refuses it too
    with pytest.raises(ValueError, match="dimension must be 3"):
        nx.jit(lambda a: np.cross(a, a))(x)  # 5-vectors: the shapes are known at run time
    with pytest.raises(numba.core.errors.TypingError, match="squeeze"):
        nx.jit(lambda a: np.squeeze(a))(x)  # its rank depends on the shape: not in jitted code


def test_runtime_errors_propagate(rng):
    singular = nx.asarray(np.ones((4, 4)))
    with pytest.raises(np.linalg.LinAlgError):
        nx.jit(lambda a: np.linalg.inv(a) * 2)(singular)
    x = nx.asarray(rng.standard_normal(5))
    with pytest.raises(ValueError):
        nx.jit(lambda a, n: np.repeat(a, n))(x, -1)


@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128", "int32"])
def test_whole_array_std_var(rng, dtype):
    h = rng.standard_normal(50) * 3
    if dtype == "complex128":
        h = h + 1j * rng.standard_normal(50)
    h = h.astype(dtype)
    x = nx.asarray(h)
    got = nx.jit(lambda a: (np.std(a), np.var(a), a.std(), a.var(ddof=1), a.std(axis=0)))(x)
    want = (np.std(h), np.var(h), np.std(h), np.var(h, ddof=1), np.std(h, axis=0))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=2e-5 if dtype == "float32" else 1e-10)


def test_view_functions(rng):
    h = rng.standard_normal((4, 6))
    x = nx.asarray(h)

    @nx.jit
    def f(a):
        return (
            np.swapaxes(a, 0, 1) * 2,
            np.broadcast_to(a[0], (3, 6)) + 1,
            np.expand_dims(a, 0) * 1,
            np.fliplr(a) + np.flipud(a),
            np.rot90(a) * 1,
            np.moveaxis(np.atleast_3d(a), 2, 0) * 1,
        )

    want = (
        np.swapaxes(h, 0, 1) * 2,
        np.broadcast_to(h[0], (3, 6)) + 1,
        np.expand_dims(h, 0),
        np.fliplr(h) + np.flipud(h),
        np.rot90(h),
        np.moveaxis(np.atleast_3d(h), 2, 0),
    )
    _same(f(x), want, "views")


def test_cached_in_a_new_process(tmp_path):
    import subprocess
    import sys
    import textwrap

    (tmp_path / "cached_eager.py").write_text(
        textwrap.dedent(
            """
            import numpy as np
            import numba_ext as nx

            @nx.jit(cache=True)
            def f(a):
                return np.sort(a) * 2, np.linalg.det(np.diag(a[:3]) + np.outer(a[:3], a[:3]))

            h = np.array([3.0, 1.0, 2.0, 5.0])
            s, d = f(nx.asarray(h))
            assert np.array_equal(nx.asnumpy(s), np.sort(h) * 2)
            assert abs(d - np.linalg.det(np.diag(h[:3]) + np.outer(h[:3], h[:3]))) < 1e-9
            stats = f._dispatcher.stats
            print(sum(stats.cache_hits.values()), sum(stats.cache_misses.values()))
            """
        )
    )
    env = {**__import__("os").environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    runs = [
        subprocess.run(
            [sys.executable, str(tmp_path / "cached_eager.py")],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        for _ in range(2)
    ]
    for r in runs:
        assert r.returncode == 0, r.stderr[-2000:]
    assert runs[0].stdout.split() == ["0", "1"] and runs[1].stdout.split() == ["1", "0"], [
        r.stdout for r in runs
    ]
