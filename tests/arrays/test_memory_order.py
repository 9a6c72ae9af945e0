"""Memory order: ``order=`` on the creation functions, asarray, copy and astype; ``flags``; the
layout eager elementwise results take (NumPy's 'K' rule); copies to and from the host of C, F and
strided arrays. Strides are compared with NumPy's for the same operation."""

import numpy as np
import pytest

import numba_ext as nx

DTYPES = ["bool", "int16", "uint32", "int64", "float32", "float64"]
SHAPES = [(5, 7), (3, 4, 6), (1, 9), (6,)]


def random_host(rng, shape, dtype):
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.random(shape) < 0.5
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return rng.integers(max(info.min, -1000), min(info.max, 1000), size=shape, dtype=dt)
    return np.asarray((rng.standard_normal(shape) * 3).astype(dt))


def views(h):
    """NumPy views of `h` of every layout: C, F, transposed, strided, reversed."""
    out = {"C": h, "F": np.asfortranarray(h), "T": h.T}
    if h.ndim >= 2:
        out["strided"] = h[::2, 1::2]
        out["F strided"] = np.asfortranarray(h)[1:, ::2]
        out["reversed"] = h[::-1, ::-1]
    if h.ndim == 3:
        out["permuted"] = h.transpose(1, 2, 0)
    return out


def device_view(x_c, x_f, name, ndim):
    """The view matching `views(h)[name]` of x_c (h in C order) and x_f (h in F order): numba_ext or
    NumPy arrays."""
    if name == "C":
        return x_c
    if name == "F":
        return x_f
    if name == "T":
        return x_c.T
    if name == "strided":
        return x_c[::2, 1::2]
    if name == "F strided":
        return x_f[1:, ::2]
    if name == "reversed":
        return x_c[::-1, ::-1]
    return x_c.transpose(1, 2, 0)


def assert_same(got, want):
    """`got` (numba_ext) has NumPy's `want` shape, dtype, strides and values."""
    assert isinstance(got, nx.ndarray)
    assert (got.shape, got.dtype) == (want.shape, want.dtype)
    assert got.strides == want.strides, (got.strides, want.strides)
    assert got.flags.c_contiguous == want.flags.c_contiguous
    assert got.flags.f_contiguous == want.flags.f_contiguous
    np.testing.assert_array_equal(nx.asnumpy(got), want)


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("shape", SHAPES)
def test_new_arrays_in_either_order(rng, shape, order):
    v = float(rng.integers(-9, 9))
    for got, want in [
        (nx.zeros(shape, order=order), np.zeros(shape, order=order)),
        (nx.ones(shape, "int32", order=order), np.ones(shape, "int32", order=order)),
        (nx.full(shape, v, order=order), np.full(shape, v, order=order)),
        (nx.full(shape, v, "float32", order=order), np.full(shape, v, "float32", order=order)),
    ]:
        assert_same(got, want)
    e = nx.empty(shape, "int16", order=order, usm_type="host")
    assert e.strides == np.empty(shape, "int16", order=order).strides and e.usm_type == "host"
    assert nx.ndarray(shape, "uint8", order=order).strides == np.empty(shape, "uint8", order=order).strides
    with pytest.raises(ValueError, match="order"):
        nx.empty(shape, order="K")
    with pytest.raises(ValueError, match="order"):
        nx.zeros(shape, order="X")


@pytest.mark.parametrize("dtype", ["int16", "float64"])
@pytest.mark.parametrize("shape", [(5, 7), (3, 4, 6)])
def test_like_functions_keep_or_set_the_layout(rng, shape, dtype):
    h = random_host(rng, shape, dtype)
    x_c, x_f = nx.asarray(h), nx.asarray(np.asfortranarray(h))
    for name, hv in views(h).items():
        xv = device_view(x_c, x_f, name, h.ndim)
        for order in ("K", "A", "C", "F"):
            for src in (xv, hv):  # numba_ext and NumPy inputs
                assert nx.empty_like(src, order=order).strides == np.empty_like(hv, order=order).strides
                assert_same(nx.zeros_like(src, order=order), np.zeros_like(hv, order=order))
            assert_same(np.ones_like(xv, order=order), np.ones_like(hv, order=order))
            assert_same(np.full_like(xv, 7, order=order), np.full_like(hv, 7, order=order))
        assert_same(nx.full_like(xv, 3), np.full_like(hv, 3))  # 'K' by default, as NumPy


@pytest.mark.parametrize("dtype", DTYPES)
def test_asarray_order_and_zero_copy(rng, dtype):
    h = random_host(rng, (6, 5), dtype)
    hf = np.asfortranarray(h)
    x_f = nx.asarray(hf)
    assert_same(x_f, hf)  # an F-ordered NumPy input stays F
    assert_same(nx.asarray(hf, order="C"), np.asarray(hf, order="C"))
    assert_same(nx.asarray(h, order="F"), np.asarray(h, order="F"))
    assert_same(nx.asarray(h[::2, ::-1]), np.asarray(h[::2, ::-1], order="K").copy(order="K"))
    # no transfer needed: the same array or a view of the same memory
    for order in ("K", "A", "F", None):
        assert nx.asarray(x_f, order=order) is x_f
    x_c = nx.asarray(h)
    t = nx.asarray(x_c.T)
    assert t._data_ptr == x_c._data_ptr and t.flags.f_contiguous and not t.flags.c_contiguous
    assert nx.asarray(x_c.T, order="F", copy=False)._data_ptr == x_c._data_ptr
    with pytest.raises(ValueError, match="copy"):
        nx.asarray(x_f, order="C", copy=False)
    c = nx.asarray(x_f, order="C")
    assert c._data_ptr != x_f._data_ptr
    assert_same(c, np.ascontiguousarray(h))
    if dtype != "bool":
        assert_same(nx.asarray(x_f, dtype="float32"), hf.astype("float32"))  # 'K' keeps F
        assert_same(x_f.astype("int64", order="C"), hf.astype("int64", order="C"))
        assert_same(x_f.astype("int32"), hf.astype("int32"))


@pytest.mark.parametrize("shape", [(5, 7), (3, 4, 6), (1, 9), (8,), ()])
def test_flags_as_numpy_and_dpctl_read_them(rng, shape):
    h = random_host(rng, shape, "float32")
    x_c, x_f = nx.asarray(h), nx.asarray(np.asfortranarray(h))
    for name, hv in views(h).items():
        xv = device_view(x_c, x_f, name, h.ndim)
        f, want = xv.flags, hv.flags
        for key in ("C_CONTIGUOUS", "F_CONTIGUOUS", "WRITEABLE", "ALIGNED", "C", "F", "W", "FNC", "FORC"):
            assert f[key] == want[key], (name, key)
            assert f[key.lower()] == want[key], (name, key)
        assert (f.c_contiguous, f.f_contiguous, f.writeable) == (want.c_contiguous, want.f_contiguous, True)
        assert f.writable and f.fc == (want.c_contiguous and want.f_contiguous) and f.forc == want.forc
        assert f.contiguous == (want.c_contiguous or want.f_contiguous)
    with pytest.raises(KeyError):
        x_c.flags["NOPE"]
    with pytest.raises(AttributeError):
        x_c.flags.writeable = False


@pytest.mark.parametrize("dtype", ["uint8", "int32", "float64"])
@pytest.mark.parametrize("shape", [(5, 7), (3, 4, 6)])
def test_copy_in_every_order(rng, shape, dtype):
    h = random_host(rng, shape, dtype)
    x_c, x_f = nx.asarray(h), nx.asarray(np.asfortranarray(h))
    for name, hv in views(h).items():
        xv = device_view(x_c, x_f, name, h.ndim)
        assert_same(xv.copy(), hv.copy())  # 'C' by default, as NumPy
        for order in ("C", "F", "A", "K"):
            got = xv.copy(order=order)
            assert got._data_ptr != xv._data_ptr
            assert_same(got, hv.copy(order=order))
            assert_same(np.copy(xv, order=order), np.copy(hv, order=order))


@pytest.mark.parametrize("dtype", ["int8", "float32", "float64"])
def test_host_copies_of_every_layout(rng, dtype):
    h = random_host(rng, (9, 8, 5), dtype)
    for name, hv in views(h).items():
        x_c, x_f = nx.asarray(h), nx.asarray(np.asfortranarray(h))
        xv = device_view(x_c, x_f, name, h.ndim)
        back = nx.asnumpy(xv)
        np.testing.assert_array_equal(back, hv)
        if xv.flags.forc:
            assert back.strides == hv.strides  # dense arrays come back in their layout (as dpctl)
        # writes into every layout keep the elements outside the view (the gaps) intact
        new = random_host(rng, hv.shape, dtype)
        xv[...] = new
        hc, hf = h.copy(), np.asfortranarray(h)
        device_view(hc, hf, name, h.ndim)[...] = new  # the same view of host copies
        np.testing.assert_array_equal(nx.asnumpy(xv), new)
        np.testing.assert_array_equal(nx.asnumpy(x_c), hc)
        np.testing.assert_array_equal(nx.asnumpy(x_f), hf)


UFUNCS = [
    ("x + 1", lambda x, y: x + 1),
    ("sqrt(|x|)", lambda x, y: np.sqrt(np.abs(x))),
    ("x * y", lambda x, y: x * y),
    ("x < y", lambda x, y: x < y),
    ("-x", lambda x, y: -x),
]


@pytest.mark.parametrize("what, f", UFUNCS, ids=[u[0] for u in UFUNCS])
def test_eager_results_keep_the_operands_layout(rng, what, f):
    # NumPy's 'K' rule: F operands give an F result, a transposed operand a transposed result;
    # broadcast operands do not vote, operands of different layouts give C
    h, g = rng.standard_normal((6, 4, 5)), rng.standard_normal((6, 4, 5))
    x_c, x_f = nx.asarray(h), nx.asarray(np.asfortranarray(h))
    y_c, y_f = nx.asarray(g), nx.asarray(np.asfortranarray(g))
    for name, hv in views(h).items():
        xv = device_view(x_c, x_f, name, 3)
        gv = views(g)[name]
        yv = device_view(y_c, y_f, name, 3)
        with np.errstate(all="ignore"):
            want = f(hv, gv)
        got = f(xv, yv)
        assert got.strides == want.strides, (name, got.strides, want.strides)
        np.testing.assert_allclose(nx.asnumpy(got), want, rtol=1e-13, atol=1e-14, err_msg=name)
    mixed, want_mixed = x_f * y_c, np.asfortranarray(h) * g
    assert mixed.strides == want_mixed.strides and mixed.flags.c_contiguous
    row = nx.asarray(g[0, :, :1])
    got = x_f + row
    want = np.asfortranarray(h) + g[0, :, :1]
    assert got.strides == want.strides and got.flags.f_contiguous
    np.testing.assert_allclose(nx.asnumpy(got), want, rtol=1e-13, atol=1e-14)


def test_reshape_and_ravel_like_views_of_f_arrays(rng):
    h = rng.standard_normal((4, 6))
    x_f = nx.asarray(np.asfortranarray(h))
    r = x_f.reshape((2, 12), order="F")
    assert r._data_ptr == x_f._data_ptr
    np.testing.assert_array_equal(nx.asnumpy(r), np.asfortranarray(h).reshape((2, 12), order="F"))
    # C-order reading of an F array needs a copy: made as NumPy makes it, refused with copy=False
    np.testing.assert_array_equal(nx.asnumpy(x_f.reshape(24)), h.reshape(24))
    with pytest.raises(ValueError, match="copy"):
        x_f.reshape(24, copy=False)
    np.testing.assert_array_equal(nx.asnumpy(x_f.copy().reshape(24)), h.reshape(24))


def test_view_reinterprets_the_memory():
    """x.view(dtype): the same device memory read as another dtype, as NumPy's ndarray.view."""
    rng = np.random.default_rng()
    h = rng.standard_normal((3, 4))
    x = nx.asarray(h)
    np.testing.assert_array_equal(nx.asnumpy(x.view(np.uint64)), h.view(np.uint64))
    np.testing.assert_array_equal(nx.asnumpy(x.view(np.float32)), h.view(np.float32))  # last axis x2
    np.testing.assert_array_equal(nx.asnumpy(x[:, ::2].view(np.int64)), h[:, ::2].view(np.int64))
    same = x.view()
    same[0, 0] = 7.0  # a view: writes reach x
    assert float(x[0, 0]) == 7.0
    with pytest.raises(ValueError, match="contiguous"):
        x[:, ::2].view(np.float32)
