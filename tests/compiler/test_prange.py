"""prange loops and NumPy reductions inside @numba_ext.jit run as kernels on the data's queue."""

import math

import numpy as np
import pytest
from numba import prange

import numba_ext as nx
from numba_ext import Context, Device, Queue

from ..conftest import DEV


def _kernels(f, *args):
    return len(f.inspect_kernels(*args))


@nx.jit
def cond_math(x, out):
    for i in prange(x.shape[0]):
        v = x[i]
        if v > 0.5:
            out[i] = math.exp(-v) * 2.0
        else:
            out[i] = math.sqrt(v) + math.erf(v)


def test_body_with_locals_conditionals_and_math(rng):
    h = rng.random(1001)
    x, out = nx.asarray(h), nx.empty(1001)
    cond_math(x, out)
    want = np.where(h > 0.5, np.exp(-h) * 2.0, np.sqrt(h) + np.vectorize(math.erf)(h))
    np.testing.assert_allclose(nx.asnumpy(out), want, rtol=1e-12, atol=1e-14)
    assert _kernels(cond_math, x, out) == 1


@nx.jit
def inner_loop(X, out):
    for i in prange(X.shape[0]):
        s = 0.0
        for j in range(X.shape[1]):
            s += X[i, j] * j
        out[i] = s


@nx.jit
def nested_prange(X, out):
    for i in prange(X.shape[0]):
        for j in prange(X.shape[1]):
            out[i, j] = X[i, j] * 2.0 + i - j


def test_nd_iteration(rng):
    H = rng.random((37, 23))
    X = nx.asarray(H)
    out = nx.empty(37)
    inner_loop(X, out)
    np.testing.assert_allclose(nx.asnumpy(out), (H * np.arange(23)).sum(1), rtol=1e-12, atol=1e-14)
    out2 = nx.empty((37, 23))
    nested_prange(X, out2)
    np.testing.assert_allclose(
        nx.asnumpy(out2), H * 2 + np.arange(37)[:, None] - np.arange(23)[None, :], rtol=1e-12, atol=1e-14
    )


@nx.jit
def computed_indices(x, out):
    n = x.shape[0]
    for i in prange(n):
        out[i] = x[n - 1 - i] + x[(i * 7) % n]


def test_computed_indices(rng):
    h = rng.random(999)
    out = nx.empty(999)
    computed_indices(nx.asarray(h), out)
    np.testing.assert_allclose(
        nx.asnumpy(out), h[::-1] + h[(np.arange(999) * 7) % 999], rtol=1e-13, atol=1e-14
    )


@nx.jit
def reductions(x):
    s = 1.0
    p = 1.0
    mn = 1e300
    mx = -1e300
    c = 0
    for i in prange(x.shape[0]):
        s += x[i]
        p *= 1.0 + x[i] * 1e-3
        mn = min(mn, x[i])
        mx = max(mx, x[i])
        if x[i] > 0.5:
            c += 1
    return s, p, mn, mx, c


def test_scalar_reductions_in_prange(rng):
    h = rng.random(5000)
    s, p, mn, mx, c = reductions(nx.asarray(h))
    assert s == pytest.approx(1.0 + h.sum(), rel=1e-12)  # the value from before the loop is kept
    assert p == pytest.approx(np.prod(1.0 + h * 1e-3), rel=1e-12)
    assert (mn, mx, c) == (h.min(), h.max(), int((h > 0.5).sum()))
    assert _kernels(reductions, nx.asarray(h)) == 1


@pytest.mark.parametrize("name", ["sum", "prod", "min", "max", "mean", "any", "all", "method_sum", "2d_sum"])
def test_whole_array_reductions(rng, name):
    h = rng.random(2000) + 0.5
    funcs = {
        "sum": (lambda a: np.sum(a), lambda h: h.sum()),
        "prod": (lambda a: np.prod(a), lambda h: h.prod()),
        # of values computed in the function: a parfor (of an argument: the eager kernels or a helper)
        "min": (lambda a: np.min(a + 0.0), lambda h: h.min()),
        "max": (lambda a: (a * 1.0).max(), lambda h: h.max()),
        "mean": (lambda a: np.mean(a), lambda h: h.mean()),
        "any": (lambda a: np.any(a > 1.4), lambda h: (h > 1.4).any()),
        "all": (lambda a: np.all(a > 0.6), lambda h: (h > 0.6).all()),
        "method_sum": (lambda a: a.sum(), lambda h: h.sum()),
        "2d_sum": (lambda a: a.reshape(40, 50).sum(), lambda h: h.sum()),
    }
    f, ref = funcs[name]
    h = h[:200] if name == "prod" else h
    jf = nx.jit(f)
    x = nx.asarray(h)
    assert jf(x) == pytest.approx(ref(h), rel=1e-12)
    assert _kernels(jf, x) >= 1


def test_reduction_follows_the_data(rng):
    d = Device(DEV)
    q = Queue(d, context=Context(d))
    h = rng.random(100)
    total = nx.jit(lambda a: np.sum(a * 2.0))(nx.asarray(h, sycl_queue=q, usm_type="shared"))
    assert total == pytest.approx(2 * h.sum())


def test_prange_mixing_numpy_and_usm_is_an_error(rng):
    @nx.jit
    def mix(x, h, out):
        for i in prange(x.shape[0]):
            out[i] = x[i] + h[i]

    with pytest.raises(nx.ExecutionPlacementError, match="parallel loop.*NumPy"):
        mix(nx.asarray(rng.random(4)), rng.random(4), nx.empty(4))


def test_prange_on_numpy_arrays_stays_on_the_host(rng):
    @nx.jit
    def host(h, out):
        for i in prange(h.shape[0]):
            out[i] = h[i] * 2.0
        return out

    h = rng.random(10)
    with pytest.raises(nx.ExecutionPlacementError, match="offload_to"):
        host(h, np.empty(10))  # numba_ext.jit on NumPy data alone needs offload_to
    with nx.offload_to(DEV):
        out = host(h, np.empty(10))
    np.testing.assert_allclose(out, h * 2.0)


# -- allocation inside jitted code -------------------------------------------------------------------
def test_allocation_follows_the_function_arguments(rng):
    @nx.jit
    def f(a):
        out = nx.empty(a.shape[0])
        z = nx.zeros((2, 3), np.int32, usm_type="shared")
        o = nx.full(4, 2.5)
        for i in prange(a.shape[0]):
            out[i] = a[i] * 2.0
        return out, z, o

    q = Queue(DEV)
    h = rng.random(10)
    out, z, o = f(nx.asarray(h, sycl_queue=q, usm_type="host"))
    assert out.sycl_queue is q and z.sycl_queue is q and o.sycl_queue is q
    assert out.usm_type == "device" and z.usm_type == "shared" and z.dtype == np.int32
    np.testing.assert_allclose(nx.asnumpy(out), 2 * h)
    np.testing.assert_array_equal(nx.asnumpy(z), np.zeros((2, 3), np.int32))
    np.testing.assert_array_equal(nx.asnumpy(o), np.full(4, 2.5))


def test_allocation_without_usm_arguments_uses_the_default_queue_or_device():
    import numba

    @numba.njit
    def g(n):
        return nx.ones(n, device=DEV), nx.zeros(n)

    a, b = g(3)
    assert a.device == Device(DEV) and b.sycl_queue == nx.default_queue()
    np.testing.assert_array_equal(nx.asnumpy(a), np.ones(3))
    np.testing.assert_array_equal(nx.asnumpy(b), np.zeros(3))


def test_kernel_variable_starting_from_a_module_constant(rng):
    # regression: `m = np.inf` reassigned in a loop must not be constant-propagated
    @nx.kernel
    def row_min(x, out):
        i = nx.get_global_id(0)
        m = np.inf
        for c in range(x.shape[1]):
            if x[i, c] < m:
                m = x[i, c]
        out[i] = min(m, float("inf"))

    H = rng.random((20, 7))
    o = nx.empty(20)
    row_min[20](nx.asarray(H), o)
    np.testing.assert_array_equal(nx.asnumpy(o), H.min(1))


def test_eager_reductions(rng):
    h = rng.random((3, 400))
    a = nx.asarray(h)
    assert float(a.sum()) == pytest.approx(h.sum(), rel=1e-12)  # 0-d arrays on the queue
    assert a.min() == h.min() and a[1].max() == h[1].max()
    assert float(a.mean()) == pytest.approx(h.mean(), rel=1e-12)
    assert bool((a > 0.999).any()) == bool((h > 0.999).any()) and bool((a >= 0).all())
    np.testing.assert_allclose(
        nx.asnumpy(a.sum(axis=0)), h.sum(0), rtol=1e-12
    )  # more: test_reductions_axis.py
    kept = a.sum(axis=0, keepdims=True)
    assert kept.shape == (1, 400)
    np.testing.assert_allclose(nx.asnumpy(kept), h.sum(0, keepdims=True), rtol=1e-12)


# -- argmin/argmax, dot, axis reductions ------------------------------------------------------------
def test_argmin_argmax_dot(rng):
    h = rng.random(1000)
    h[[17, 500]] = h.min() - 1.0  # ties: the first index wins
    a = nx.asarray(h)
    f = nx.jit(lambda x: (np.argmin(x), x.argmax(), np.dot(x, x)))
    i, j, d = f(a)
    assert (i, j) == (h.argmin(), h.argmax()) == (17, h.argmax())
    assert d == pytest.approx(h @ h, rel=1e-12)
    hn = h.copy()
    hn[[3, 9]] = np.nan  # NumPy: the first NaN
    assert nx.jit(lambda x: np.argmax(x))(nx.asarray(hn)) == 3 == np.argmax(hn)
    M = rng.random((6, 7))
    assert nx.jit(lambda x: x.argmin())(nx.asarray(M)) == M.argmin()
    with pytest.raises(ValueError, match="empty"):
        nx.jit(lambda x: np.argmin(x))(nx.empty(0))


@pytest.mark.parametrize("op", ["sum", "prod", "min", "max", "mean"])
@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_axis_reductions(rng, op, axis):
    H = rng.random((6, 7, 5)) + 0.5
    f = nx.jit(eval(f"lambda x: x.{op}(axis={axis})"))
    g = nx.jit(eval(f"lambda x: np.{op}(x, axis={axis})"))
    want = getattr(H, op)(axis=axis)
    for fn in (f, g):
        got = fn(nx.asarray(H))
        assert isinstance(got, nx.ndarray) and got.shape == want.shape
        np.testing.assert_allclose(nx.asnumpy(got), want, rtol=1e-12, atol=1e-14)


def test_axis_reduction_dtypes(rng):
    h = rng.integers(0, 100, (4, 5)).astype(np.int32)
    s = nx.jit(lambda x: x.sum(axis=1))(nx.asarray(h))
    assert s.dtype == np.int64 and (nx.asnumpy(s) == h.sum(1)).all()
    m = nx.jit(lambda x: x.mean(axis=0))(nx.asarray(h))
    assert m.dtype == np.float64
    np.testing.assert_allclose(nx.asnumpy(m), h.mean(0))


def test_prange_in_plain_numba_njit_parallel_runs_on_the_device(rng):
    # plain @numba.njit(parallel=True) has Numba's own pipeline: its parfors over numba_ext arrays must
    # still become kernels on the arrays' queue (Numba's host gufunc over device data was a crash)
    import numba

    @numba.njit(parallel=True)
    def body(x, out):
        s = 0.0
        for i in prange(x.shape[0]):
            v = math.tanh(x[i]) * 2.0
            out[i] = v if x[i] > 0.3 else -v
            s += x[i]
        return s

    h = rng.random(2049)
    x, out = nx.asarray(h, device=DEV), nx.full(2049, np.nan, device=DEV)
    s = body(x, out)
    v = np.tanh(h) * 2.0
    np.testing.assert_allclose(nx.asnumpy(out), np.where(h > 0.3, v, -v), rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(s, h.sum(), rtol=1e-12)

    @numba.njit(parallel=True)
    def mixed(x, y):
        for i in prange(x.shape[0]):
            x[i] = y[i]

    with pytest.raises(nx.ExecutionPlacementError, match="mixes numba_ext arrays with NumPy arrays"):
        mixed(x, h.copy())
