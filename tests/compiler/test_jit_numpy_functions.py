"""np.searchsorted, np.bincount, np.histogram, np.cumsum, reshape of strided views (and broadcasting
between them), np.dot / np.matmul with out, inside @numba_ext.jit on numba_ext arrays, checked against
NumPy on fresh random data; results stay on the arguments' queue. Runs on both memory back ends
(these are device loops: nothing reads elements on the host)."""

import numpy as np
import pytest
from numba import prange

import numba_ext as nx
from numba_ext.errors import UnsupportedError
from tests.checks import check, poison


def _on_queue(got, like):
    assert isinstance(got, nx.ndarray) and got.sycl_queue is like.sycl_queue, got


# -- searchsorted ----------------------------------------------------------------------------------
SEARCH = nx.jit(lambda a, v: (np.searchsorted(a, v), np.searchsorted(a, v, side="right")))
SEARCH_LEFT_KW = nx.jit(lambda a, v: np.searchsorted(a, v, side="left"))
SEARCH_SCALAR = nx.jit(lambda a, x: (np.searchsorted(a, x), np.searchsorted(a, x, side="right")))


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int32"])
@pytest.mark.parametrize("vshape", [(200,), (7, 9), (0,)])
def test_searchsorted(rng, dtype, vshape):
    if np.dtype(dtype).kind == "f":
        a = np.sort(rng.standard_normal(101)).astype(dtype)
        v = rng.standard_normal(vshape).astype(dtype)
        if v.size:
            v.flat[: min(10, v.size)] = rng.choice(a, min(10, v.size))  # exact hits: the sides differ
    else:
        a = np.sort(rng.integers(-20, 20, 101)).astype(dtype)  # many repeats
        v = rng.integers(-25, 25, vshape).astype(dtype)
    A, V = nx.asarray(a), nx.asarray(v)
    poison(max(v.size, 1), "int64")
    left, right = SEARCH(A, V)
    _on_queue(left, A)
    check(left, np.searchsorted(a, v), "left")
    check(right, np.searchsorted(a, v, side="right"), "right")
    check(SEARCH_LEFT_KW(A, V), np.searchsorted(a, v, side="left"), "side='left'")


def test_searchsorted_strided_and_nan(rng):
    a = np.sort(np.concatenate([rng.standard_normal(60), [np.nan] * 3]))  # NaN sorts last
    v = np.concatenate([rng.standard_normal(40), [np.nan, a[5], a[-4]]])
    A, V = nx.asarray(a), nx.asarray(v)
    left, right = SEARCH(A[::2], V[::-1])
    check(left, np.searchsorted(a[::2], v[::-1]), "left strided")
    check(right, np.searchsorted(a[::2], v[::-1], side="right"), "right strided")


def test_searchsorted_scalar(rng):
    a = np.sort(rng.standard_normal(50))
    A = nx.asarray(a)
    for x in (a[7], float(rng.standard_normal()), -100.0, 100.0):
        assert SEARCH_SCALAR(A, x) == (np.searchsorted(a, x), np.searchsorted(a, x, side="right"))


def test_searchsorted_bad_side():
    f = nx.jit(lambda a, v: np.searchsorted(a, v, side="middle"))
    with pytest.raises(Exception, match="side='left' or 'right'"):
        f(nx.arange(4.0), nx.arange(2.0))


# -- bincount --------------------------------------------------------------------------------------
BINCOUNT = nx.jit(lambda x: np.bincount(x))
BINCOUNT_MIN = nx.jit(lambda x, m: np.bincount(x, minlength=m))
BINCOUNT_W = nx.jit(lambda x, w, m: np.bincount(x, weights=w, minlength=m))


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "int16"])
@pytest.mark.parametrize("n", [1, 97, 20000])
def test_bincount(rng, dtype, n):
    x = rng.integers(0, 40, n).astype(dtype)
    w = rng.standard_normal(n)
    X, W = nx.asarray(x), nx.asarray(w)
    poison(100, "int64", "float64")
    got = BINCOUNT(X)
    _on_queue(got, X)
    check(got, np.bincount(x), "plain")
    for m in (0, 5, 100):
        check(BINCOUNT_MIN(X, m), np.bincount(x, minlength=m), f"minlength={m}")
        # a bin's weights add in any order: a few ulps of their magnitude per term (a bin of 500
        # weights that cancelled to -0.011 came out 2.1e-14 from NumPy's order)
        ulps = 8 * np.finfo(np.float64).eps * (n / 40 + 1) * float(np.abs(w).max(initial=0.0))
        check(
            BINCOUNT_W(X, W, m), np.bincount(x, weights=w, minlength=m), f"weights, minlength={m}", atol=ulps
        )


def test_bincount_many_bins_strided_bool_empty(rng):
    x = rng.integers(0, 300000, 5000)  # more bins than elements: fewer, longer blocks
    X = nx.asarray(x)
    check(BINCOUNT(X), np.bincount(x), "many bins")
    check(BINCOUNT(X[::3]), np.bincount(x[::3]), "strided")
    b = rng.random(77) < 0.4
    check(BINCOUNT(nx.asarray(b)), np.bincount(b), "bool")
    e = np.zeros(0, np.int64)
    check(BINCOUNT_MIN(nx.asarray(e), 4), np.bincount(e, minlength=4), "empty")
    # NumPy gives int64 zeros for empty input even with weights; jitted code has one result type: float64
    check(BINCOUNT_W(nx.asarray(e), nx.asarray(np.zeros(0)), 3), np.zeros(3), "empty w")


def test_bincount_errors(rng):
    with pytest.raises(ValueError, match="negative"):
        BINCOUNT(nx.asarray(np.array([1, -2, 3])))
    with pytest.raises(ValueError, match="minlength"):
        BINCOUNT_MIN(nx.asarray(np.array([1, 2])), -1)
    with pytest.raises(ValueError, match="same length"):
        BINCOUNT_W(nx.asarray(np.array([1, 2])), nx.asarray(np.ones(3)), 0)
    with pytest.raises(Exception, match="cannot cast float64"):
        BINCOUNT(nx.asarray(np.ones(3)))


# -- histogram -------------------------------------------------------------------------------------
HIST_RANGE = nx.jit(lambda a, bins, lo, hi: np.histogram(a, bins, (lo, hi)))
HIST_BINS = nx.jit(lambda a, bins: np.histogram(a, bins=bins))
HIST_EDGES = nx.jit(lambda a, e: np.histogram(a, e))


def _check_hist(got, want, what):
    check(got[0], want[0], what + " counts")
    check(got[1], want[1], what + " edges")


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
def test_histogram_equal_bins(rng, dtype):
    a = (rng.standard_normal(5000) * 10).astype(dtype)
    A = nx.asarray(a)
    poison(30, "int64")
    got = HIST_RANGE(A, 20, -5.0, 7.5)
    _on_queue(got[0], A)
    _check_hist(got, np.histogram(a, 20, (-5.0, 7.5)), "range")
    _check_hist(HIST_BINS(A, 13), np.histogram(a, bins=13), "no range")
    _check_hist(HIST_BINS(A[::2], 1), np.histogram(a[::2], bins=1), "one bin, strided")


def test_histogram_edges_inclusive(rng):
    # values exactly on the edges: every bin is half-open except the last, which includes its right edge
    edges = np.array([-2.0, -0.5, 0.0, 0.25, 1.0, 3.0])
    a = np.concatenate([rng.uniform(-3, 4, 3000), edges, edges, [np.nan]])
    A, E = nx.asarray(a), nx.asarray(edges)
    got = HIST_EDGES(A, E)
    _on_queue(got[0], A)
    _check_hist(got, np.histogram(a[~np.isnan(a)], edges), "edges")
    assert nx.asnumpy(got[0])[-1] == np.sum((a >= 1.0) & (a <= 3.0))
    lo, hi = float(edges[0]), float(edges[-1])
    on_edges = np.concatenate([edges, rng.uniform(lo, hi, 500)])
    _check_hist(
        HIST_RANGE(nx.asarray(on_edges), 5, lo, hi), np.histogram(on_edges, 5, (lo, hi)), "range edges"
    )


def test_histogram_random_edges_2d(rng):
    edges = np.sort(rng.standard_normal(9))
    a = rng.standard_normal((40, 30))
    _check_hist(HIST_EDGES(nx.asarray(a), nx.asarray(edges)), np.histogram(a, edges), "2-D input")
    _check_hist(HIST_EDGES(nx.asarray(a).T, nx.asarray(edges)), np.histogram(a.T, edges), "transposed")


def test_histogram_errors():
    with pytest.raises(ValueError, match="monotonically"):
        HIST_EDGES(nx.arange(5.0), nx.asarray(np.array([0.0, 2.0, 1.0])))
    with pytest.raises(ValueError, match="max must be larger"):
        HIST_RANGE(nx.arange(5.0), 4, 3.0, 1.0)
    with pytest.raises(ValueError, match="positive"):
        HIST_BINS(nx.arange(5.0), 0)


# -- cumsum ----------------------------------------------------------------------------------------
CUMSUM = nx.jit(lambda a: np.cumsum(a))


@pytest.mark.parametrize("dtype", ["float64", "int32", "int64"])
def test_cumsum(rng, dtype):
    a = rng.integers(-50, 50, (33, 7)).astype(dtype) if dtype != "float64" else rng.standard_normal((33, 7))
    A = nx.asarray(a)
    poison(a.size, "float64", "int64")
    got = CUMSUM(A[:, 2])
    _on_queue(got, A)
    check(got, np.cumsum(a[:, 2]), "1-d strided", rtol=1e-10)
    check(CUMSUM(A), np.cumsum(a), "2-d flattened", rtol=1e-10)


# -- reshape of views, broadcasting between views --------------------------------------------------
def _pairwise(x):
    return x[:, 0:1] - x[:, 0].reshape(1, -1)


@pytest.mark.parametrize(
    "name, f",
    [
        ("pairwise", _pairwise),
        ("column as row", lambda x: x[:, 1].reshape(1, -1) * 2.0),
        ("transpose flat (copy)", lambda x: x.T.reshape(-1)),
        ("step rows", lambda x: np.reshape(x[::2], (-1,))),
        ("vararg", lambda x: x[1:, :].reshape(x.shape[1], -1)),
        ("3-d views", lambda x: x[:, None, :] - x[None, :, 1:2].reshape(1, x.shape[0], 1)),
        ("int shape", lambda x: x[::-1, 1].reshape(x.shape[0])),
    ],
)
def test_reshape_views_broadcast(rng, name, f):
    h = rng.standard_normal((12, 4))
    x = nx.asarray(h)
    got = nx.jit(f)(x)
    _on_queue(got, x)
    np.testing.assert_allclose(nx.asnumpy(got), f(h), rtol=1e-12, atol=1e-14, err_msg=name)


@pytest.mark.needs_host_access  # `r[:] = scalar` is a host loop (the prange test below runs everywhere)
def test_reshape_view_aliases_like_numpy(rng):
    # a reshape the strides allow is a view (writes show in the original), as in NumPy
    @nx.jit
    def f(x):
        r = x[:, 0].reshape(2, -1)
        r[:] = -1.0
        return x

    h = rng.standard_normal((6, 3))
    want = h.copy()
    want[:, 0] = -1.0
    np.testing.assert_array_equal(nx.asnumpy(f(nx.asarray(h))), want)


def test_prange_writes_through_reshaped_view_are_kept(rng):
    # the loop writes only into the view; the function returns the original array: the loop must
    # not be dropped as dead code
    @nx.jit
    def f(x):
        r = x[:, 1].reshape(3, -1)
        for i in prange(r.shape[0]):
            for j in range(r.shape[1]):
                r[i, j] = i * 10.0 + j
        return x

    h = rng.standard_normal((6, 3))
    want = h.copy()
    want[:, 1] = [0.0, 1.0, 10.0, 11.0, 20.0, 21.0]
    np.testing.assert_array_equal(nx.asnumpy(f(nx.asarray(h))), want)


def test_reshape_wrong_size():
    with pytest.raises(ValueError, match="total size"):
        nx.jit(lambda x: x[:, 0].reshape(4, 2))(nx.zeros((6, 3)))


# -- np.dot / np.matmul with out ---------------------------------------------------------------------
DOT_OUT = nx.jit(lambda a, b, o: np.dot(a, b, o))
MATMUL_OUT = nx.jit(lambda a, b, o: np.matmul(a, b, out=o))


@pytest.mark.parametrize("shapes", [((7, 5), (5, 6)), ((7, 5), (5,)), ((5,), (5, 6)), ((9,), (9,))])
def test_dot_matmul_out(rng, shapes):
    ha, hb = rng.standard_normal(shapes[0]), rng.standard_normal(shapes[1])
    a, b = nx.asarray(ha), nx.asarray(hb)
    want = np.dot(ha, hb)
    for f in (DOT_OUT, MATMUL_OUT):
        out = nx.full(want.shape, np.nan)
        got = f(a, b, out)
        assert isinstance(got, nx.ndarray)
        check(out, want, f"{f} out", rtol=1e-12, atol=1e-12)
    if len(shapes[0]) == 2 and len(shapes[1]) == 2:  # into a strided view, and a float32 cast (matmul)
        big = nx.zeros((want.shape[0], 2 * want.shape[1]))
        MATMUL_OUT(a, b, big[:, ::2])
        check(big[:, ::2], want, "view", rtol=1e-12, atol=1e-12)
        check(big[:, 1::2], np.zeros(want.shape), "untouched")
        o32 = nx.empty(want.shape, np.float32)
        MATMUL_OUT(a, b, o32)
        check(o32, want.astype(np.float32), "cast", rtol=1e-5, atol=1e-5)


def test_dot_out_errors(rng):
    a, b = nx.asarray(rng.standard_normal((3, 4))), nx.asarray(rng.standard_normal((4, 2)))
    with pytest.raises(ValueError, match="not acceptable"):
        DOT_OUT(a, b, nx.empty((3, 2), np.float32))
    with pytest.raises(ValueError, match="wrong shape"):
        DOT_OUT(a, b, nx.empty((3, 3)))
    with pytest.raises(UnsupportedError, match="same_kind"):
        MATMUL_OUT(a, b, nx.empty((3, 2), np.int64))


# -- in-place operators that broadcast ---------------------------------------------------------------
def _iadd_column(d, x):
    d += x[:, 1][:, None]
    return d


def _isub_row_view(d, x):
    d -= x[:, 0].reshape(1, -1)[:, : d.shape[1]]
    return d


def _imul_runtime_one(d, x):
    d *= x[:, 0:1]  # a dimension of 1 known only at run time
    return d


def _iadd_lower_rank(d, x):
    d += x[0, : d.shape[1]]
    return d


@pytest.mark.parametrize("f", [_iadd_column, _isub_row_view, _imul_runtime_one, _iadd_lower_rank])
def test_inplace_broadcast(rng, f):
    hd, hx = rng.standard_normal((9, 7)), rng.standard_normal((9, 8))
    d, x = nx.asarray(hd), nx.asarray(hx)
    nx.jit(f)(d, x)
    np.testing.assert_allclose(nx.asnumpy(d), f(hd.copy(), hx), rtol=1e-12, atol=1e-14)


def test_inplace_broadcast_into_view_and_float32(rng):
    hd, hx = rng.standard_normal((6, 10)).astype(np.float32), rng.standard_normal((6, 3))
    d, x = nx.asarray(hd), nx.asarray(hx)
    nx.jit(_iadd_column)(d[:, ::2], x)
    want = hd.copy()
    _iadd_column(want[:, ::2], hx)
    np.testing.assert_allclose(nx.asnumpy(d), want, rtol=1e-6)


def test_pairwise_distance_array_forms(rng):
    # the NumPy source with a matrix product, and the column-view form, against NumPy
    def with_matmul(x1, x2):
        d = -2.0 * (x1 @ x2.T)
        d += np.sum(np.square(x1), axis=1)[:, None]
        d += np.sum(np.square(x2), axis=1)[None, :]
        return np.sqrt(np.maximum(d, 0.0))

    def columns(x1, x2):
        t = x1[:, 0:1] - x2[:, 0].reshape(1, -1)
        d = t * t
        for k in range(1, x1.shape[1]):
            t = x1[:, k : k + 1] - x2[:, k].reshape(1, -1)
            d += t * t
        return np.sqrt(d)

    h1, h2 = rng.random((40, 3)), rng.random((33, 3))
    want = np.sqrt(((h1[:, None, :] - h2[None, :, :]) ** 2).sum(axis=2))
    for f in (with_matmul, columns):
        got = nx.jit(f)(nx.asarray(h1), nx.asarray(h2))
        np.testing.assert_allclose(nx.asnumpy(got), want, rtol=1e-9, atol=1e-7, err_msg=f.__name__)
