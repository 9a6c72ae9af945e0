"""Creation functions inside ``numba_ext.jit`` (empty, zeros, ones, full, arange, linspace, eye, the
``*_like`` forms, asarray of an array) with each keyword: dtype=, usm_type=, order=, shape= (the
``*_like`` forms), and every placement keyword (none, device= as a selector string, a Device or a
Queue, sycl_queue= as a Queue argument or ``a.sycl_queue``). Values against NumPy, the result's
queue, device, USM type, dtype and layout checked; fresh random sizes and values."""

import numpy as np
import pytest

import numba_ext as nx

from ..checks import check, poison
from ..conftest import DEV

# Each factory returns a jitted function of (x, n, v, dev, q) giving the same creation call with
# every placement: (follows x, device=DEV, device=dev, sycl_queue=q, sycl_queue=x.sycl_queue). The
# keyword constants (dt, usm, order, shape) are closure constants: None means "not given".


def _empty(dt, usm, order, shape):
    return nx.jit(
        lambda x, n, v, dev, q: (
            nx.empty((n, 3), dt, order, usm_type=usm),
            nx.empty((n, 3), dt, order, usm_type=usm, device=DEV),
            nx.empty((n, 3), dt, order, usm_type=usm, device=dev),
            nx.empty((n, 3), dt, order, usm_type=usm, sycl_queue=q),
            nx.empty((n, 3), dt, order, usm_type=usm, sycl_queue=x.sycl_queue),
        )
    )


def _zeros(dt, usm, order, shape):
    return nx.jit(
        lambda x, n, v, dev, q: (
            nx.zeros((n, 3), dt, order, usm_type=usm),
            nx.zeros((n, 3), dt, order, usm_type=usm, device=DEV),
            nx.zeros((n, 3), dt, order, usm_type=usm, device=dev),
            nx.zeros((n, 3), dt, order, usm_type=usm, sycl_queue=q),
            nx.zeros((n, 3), dt, order, usm_type=usm, sycl_queue=x.sycl_queue),
        )
    )


def _ones(dt, usm, order, shape):
    return nx.jit(
        lambda x, n, v, dev, q: (
            nx.ones((n, 3), dtype=dt, order=order, usm_type=usm),
            nx.ones((n, 3), dtype=dt, order=order, usm_type=usm, device=DEV),
            nx.ones((n, 3), dtype=dt, order=order, usm_type=usm, device=dev),
            nx.ones((n, 3), dtype=dt, order=order, usm_type=usm, sycl_queue=q),
            nx.ones((n, 3), dtype=dt, order=order, usm_type=usm, sycl_queue=x.sycl_queue),
        )
    )


def _full(dt, usm, order, shape):
    return nx.jit(
        lambda x, n, v, dev, q: (
            nx.full((n, 3), v, dt, order, usm_type=usm),
            nx.full((n, 3), v, dt, order, usm_type=usm, device=DEV),
            nx.full((n, 3), v, dt, order, usm_type=usm, device=dev),
            nx.full((n, 3), v, dt, order, usm_type=usm, sycl_queue=q),
            nx.full((n, 3), v, dt, order, usm_type=usm, sycl_queue=x.sycl_queue),
        )
    )


def _arange(dt, usm, order, shape):
    return nx.jit(
        lambda x, n, v, dev, q: (
            nx.arange(v, v + 3 * n, 3, dt, usm_type=usm),
            nx.arange(v, v + 3 * n, 3, dt, usm_type=usm, device=DEV),
            nx.arange(v, v + 3 * n, 3, dt, usm_type=usm, device=dev),
            nx.arange(v, v + 3 * n, 3, dt, usm_type=usm, sycl_queue=q),
            nx.arange(v, v + 3 * n, 3, dt, usm_type=usm, sycl_queue=x.sycl_queue),
        )
    )


def _linspace(dt, usm, order, shape):
    return nx.jit(
        lambda x, n, v, dev, q: (
            nx.linspace(v, v + n, n, dtype=dt, usm_type=usm),
            nx.linspace(v, v + n, n, dtype=dt, usm_type=usm, device=DEV),
            nx.linspace(v, v + n, n, dtype=dt, usm_type=usm, device=dev),
            nx.linspace(v, v + n, n, dtype=dt, usm_type=usm, sycl_queue=q),
            nx.linspace(v, v + n, n, dtype=dt, usm_type=usm, sycl_queue=x.sycl_queue),
        )
    )


def _eye(dt, usm, order, shape):
    return nx.jit(
        lambda x, n, v, dev, q: (
            nx.eye(n, n + 2, 1, dt, order, usm_type=usm),
            nx.eye(n, n + 2, 1, dt, order, usm_type=usm, device=DEV),
            nx.eye(n, n + 2, 1, dt, order, usm_type=usm, device=dev),
            nx.eye(n, n + 2, 1, dt, order, usm_type=usm, sycl_queue=q),
            nx.eye(n, n + 2, 1, dt, order, usm_type=usm, sycl_queue=x.sycl_queue),
        )
    )


def _like(fn, filled):
    def factory(dt, usm, order, shape):
        if filled:
            return nx.jit(
                lambda x, n, v, dev, q: (
                    fn(x, v, dt, order, shape=shape, usm_type=usm),
                    fn(x, v, dt, order, shape=shape, usm_type=usm, device=DEV),
                    fn(x, v, dt, order, shape=shape, usm_type=usm, device=dev),
                    fn(x, v, dt, order, shape=shape, usm_type=usm, sycl_queue=q),
                    fn(x, v, dt, order, shape=shape, usm_type=usm, sycl_queue=x.sycl_queue),
                )
            )
        return nx.jit(
            lambda x, n, v, dev, q: (
                fn(x, dt, order, shape=shape, usm_type=usm),
                fn(x, dt, order, shape=shape, usm_type=usm, device=DEV),
                fn(x, dt, order, shape=shape, usm_type=usm, device=dev),
                fn(x, dt, order, shape=shape, usm_type=usm, sycl_queue=q),
                fn(x, dt, order, shape=shape, usm_type=usm, sycl_queue=x.sycl_queue),
            )
        )

    return factory


def _asarray(dt, usm, order, shape):
    return nx.jit(
        lambda x, n, v, dev, q: (
            nx.asarray(x, dt, order, usm_type=usm),
            nx.asarray(x, dt, order, usm_type=usm, device=DEV),
            nx.asarray(x, dt, order, usm_type=usm, device=dev),
            nx.asarray(x, dt, order, usm_type=usm, sycl_queue=q),
            nx.asarray(x, dt, order, usm_type=usm, sycl_queue=x.sycl_queue),
        )
    )


# name -> (factory, NumPy reference of (x, n, v, dt, order, shape), keywords it takes,
#          whether the result's USM type defaults to x's)
CASES = {
    "empty": (_empty, lambda h, n, v, dt, o, s: np.empty((n, 3), dt, o or "C"), "dtype order", False),
    "zeros": (_zeros, lambda h, n, v, dt, o, s: np.zeros((n, 3), dt, o or "C"), "dtype order", False),
    "ones": (_ones, lambda h, n, v, dt, o, s: np.ones((n, 3), dt, o or "C"), "dtype order", False),
    "full": (_full, lambda h, n, v, dt, o, s: np.full((n, 3), v, dt, o or "C"), "dtype order", False),
    "arange": (_arange, lambda h, n, v, dt, o, s: np.arange(v, v + 3 * n, 3, dt), "dtype", False),
    "linspace": (_linspace, lambda h, n, v, dt, o, s: np.linspace(v, v + n, n, dtype=dt), "dtype", False),
    "eye": (_eye, lambda h, n, v, dt, o, s: np.eye(n, n + 2, 1, dt, o or "C"), "dtype order", False),
    "empty_like": (
        _like(nx.empty_like, False),
        lambda h, n, v, dt, o, s: np.empty_like(h, dt, o or "K", shape=s),
        "dtype order shape",
        True,
    ),
    "zeros_like": (
        _like(nx.zeros_like, False),
        lambda h, n, v, dt, o, s: np.zeros_like(h, dt, o or "K", shape=s),
        "dtype order shape",
        True,
    ),
    "ones_like": (
        _like(nx.ones_like, False),
        lambda h, n, v, dt, o, s: np.ones_like(h, dt, o or "K", shape=s),
        "dtype order shape",
        True,
    ),
    "full_like": (
        _like(nx.full_like, True),
        lambda h, n, v, dt, o, s: np.full_like(h, v, dt, o or "K", shape=s),
        "dtype order shape",
        True,
    ),
    "asarray": (_asarray, lambda h, n, v, dt, o, s: np.asarray(h, dt, o or "K"), "dtype order", True),
}

OPTIONS = {
    "defaults": {},
    "dtype": {"dt": np.int32},
    "dtype_f32": {"dt": np.float32},
    "usm_shared": {"usm": "shared"},
    "usm_host": {"usm": "host"},
    "order_F": {"order": "F"},
    "shape": {"shape": (2, 5, 3)},
}


def _applies(keywords: str, option: str) -> bool:
    need = {"dtype": "dtype", "dtype_f32": "dtype", "order_F": "order", "shape": "shape"}.get(option)
    return need is None or need in keywords.split()


@pytest.mark.parametrize("name, option", [(n, o) for n in CASES for o in OPTIONS if _applies(CASES[n][2], o)])
def test_creation_in_jit_with_every_placement(rng, name, option):
    factory, reference, keywords, like_usm = CASES[name]
    o = OPTIONS[option]
    dt, usm, order, shape = o.get("dt"), o.get("usm"), o.get("order"), o.get("shape")
    f = factory(dt, usm, order, shape)
    n, v = int(rng.integers(3, 9)), int(rng.integers(-20, 20))
    q0, q = nx.Queue(DEV), nx.Queue(DEV)  # equivalent queues, distinct objects
    h = rng.standard_normal((n, 3))
    x = nx.asarray(h, sycl_queue=q0, usm_type="shared")
    want = reference(h, n, v, dt, order, shape)
    poison(want.size, want.dtype)
    want_usm = usm or ("shared" if like_usm else "device")
    for dev in (nx.Device(DEV), q):  # device= as a Device and as a Queue
        got = f(x, n, v, dev, q)
        queues = (q0, nx.default_queue(), q if dev is q else nx.default_queue(), q, q0)
        for k, (g, wq) in enumerate(zip(got, queues)):
            what = f"{name} {option} placement {k} device={type(dev).__name__}"
            assert g.sycl_queue is wq, (what, g.sycl_queue, wq)
            assert g.device == nx.Device(DEV) and g.usm_type == want_usm, what
            assert g.flags.c_contiguous == want.flags.c_contiguous, what
            assert g.flags.f_contiguous == want.flags.f_contiguous, what
            if name.startswith("empty"):
                assert g.dtype == want.dtype and g.shape == want.shape, what
            else:
                check(g, want, what)


def test_default_queue_without_array_arguments(rng):
    n = int(rng.integers(2, 9))
    f = nx.jit(lambda n: (nx.zeros(n), nx.arange(n), nx.eye(n), nx.linspace(0.0, 1.0, n)))
    got = f(n)
    for g in got:
        assert g.sycl_queue is nx.default_queue() and g.usm_type == "device"
    for g, w in zip(got, (np.zeros(n), np.arange(n), np.eye(n), np.linspace(0.0, 1.0, n))):
        check(g, w)


def test_sequences_in_jit_match_numpy(rng):
    n, k = int(rng.integers(1, 40)), int(rng.integers(-3, 4))
    start, stop = float(rng.uniform(-5, 5)), float(rng.uniform(-5, 5))
    f = nx.jit(
        lambda n, k, start, stop: (
            nx.arange(n),
            nx.arange(start, stop, 0.25),
            nx.arange(n, 0, -2),
            nx.linspace(start, stop, n),
            nx.linspace(start, stop, n, endpoint=False),
            nx.linspace(start, stop, 1),
            nx.linspace(start, stop * 50, n, dtype=np.int64),
            nx.eye(n, k=k),
            nx.eye(n, n + 3, k, np.bool_),
        )
    )
    want = (
        np.arange(n),
        np.arange(start, stop, 0.25),
        np.arange(n, 0, -2),
        np.linspace(start, stop, n),
        np.linspace(start, stop, n, endpoint=False),
        np.linspace(start, stop, 1),
        np.linspace(start, stop * 50, n, dtype=np.int64),
        np.eye(n, k=k),
        np.eye(n, n + 3, k, np.bool_),
    )
    for k_, (g, w) in enumerate(zip(f(n, k, start, stop), want)):
        check(g, w, f"[{k_}]")
    assert nx.jit(lambda n: nx.linspace(0.0, 1.0, n))(0).shape == (0,)
    with pytest.raises(ValueError, match="step must not be zero"):
        nx.jit(lambda n: nx.arange(0, n, 0))(4)
    with pytest.raises(ValueError, match="non-negative"):
        nx.jit(lambda n: nx.linspace(0.0, 1.0, n))(-1)


def test_numpy_linspace_and_eye_in_jit_stay_numpy(rng):
    n = int(rng.integers(2, 9))
    a, b = nx.jit(lambda n: (np.linspace(0.0, 1.0, n), np.eye(n)))(n)
    assert type(a) is np.ndarray and type(b) is np.ndarray
    np.testing.assert_allclose(a, np.linspace(0.0, 1.0, n))
    np.testing.assert_array_equal(b, np.eye(n))


def test_eager_linspace_and_eye(rng):
    q = nx.Queue(DEV)
    n = int(rng.integers(2, 30))
    a = nx.linspace(-1.0, 2.0, n, sycl_queue=q, usm_type="host", endpoint=False)
    b = nx.eye(n, n + 1, -1, np.int16, device=DEV, usm_type="shared")
    assert a.sycl_queue is q and a.usm_type == "host" and b.usm_type == "shared"
    check(a, np.linspace(-1.0, 2.0, n, endpoint=False))
    check(b, np.eye(n, n + 1, -1, np.int16))
    f = nx.eye(n, 3, 1, np.float32, order="F")  # NumPy's order='F': an F-contiguous array
    assert f.flags.f_contiguous and not f.flags.c_contiguous
    check(f, np.eye(n, 3, 1, np.float32))
    with pytest.raises(ValueError, match="only 'C' or 'F'"):
        nx.eye(3, order="K")


def test_asarray_in_jit_without_changes_is_the_array(rng):
    x = nx.asarray(rng.standard_normal(7), device=DEV, usm_type="shared")
    same = nx.jit(lambda x: nx.asarray(x))(x)
    assert same._data_ptr == x._data_ptr and same.usm_type == "shared"
    copied = nx.jit(lambda x: nx.asarray(x, copy=True))(x)
    assert copied._data_ptr != x._data_ptr
    check(copied, nx.asnumpy(x))


def test_bad_creation_arguments_are_refused_with_the_argument(rng):
    x = nx.asarray(rng.standard_normal(4), device=DEV)
    bad = [
        (lambda x: nx.empty(3, order="K"), "order='K'"),
        (lambda x: nx.zeros(3, usm_type="managed"), "unknown usm_type 'managed'"),
        (lambda x: nx.ones(3, device=x), "device= in jitted code takes"),
        (lambda x: nx.ones(3, sycl_queue="cpu"), "sycl_queue= in jitted code takes a numba_ext.Queue"),
        (lambda x: nx.empty(3, like=x), "not like="),
        (lambda x: nx.asarray(x, np.int32, copy=False), "copy=False"),
        (lambda x: nx.full(3), "needs fill_value"),
    ]
    for fn, msg in bad:
        with pytest.raises(nx.UnsupportedError, match=msg):
            nx.jit(fn)(x)
    with pytest.raises(nx.errors.DeviceSelectorError):
        nx.jit(lambda x: nx.empty(3, device="opencl:nosuch:7"))(x)
