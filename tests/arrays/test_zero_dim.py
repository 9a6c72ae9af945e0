"""0-d arrays outside jitted code: full integer indexing and whole-array reductions give 0-d
numba_ext arrays on the input's queue (as dpnp does), usable as Python numbers (int, float, bool,
complex, operator.index, item, str, format specs, arithmetic with NumPy's promotion rules); inside
jitted code they stay scalars."""

import math
import operator

import numpy as np
import pytest

import numba_ext as nx

from ..checks import tol

DTYPES = ["bool", "int8", "int32", "int64", "uint8", "uint64", "float32", "float64"]


def random_host(rng, shape, dtype):
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.random(shape) < 0.5
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return rng.integers(max(info.min, -100), min(info.max, 100), size=shape, dtype=dt)
    return (rng.standard_normal(shape) * 3).astype(dt)


def host_value(z):
    """The element of a 0-d numba_ext array, read back through asnumpy."""
    h = nx.asnumpy(z)
    assert isinstance(h, np.ndarray) and h.shape == ()
    return h[()]


def assert_0d_like(z, x, dtype):
    assert isinstance(z, nx.ndarray), type(z)
    assert z.shape == () and z.ndim == 0 and z.size == 1 and z.dtype == np.dtype(dtype)
    assert z.sycl_queue is x.sycl_queue and z.usm_type == x.usm_type


@pytest.mark.parametrize("dtype", DTYPES)
def test_full_integer_index_is_a_0d_view(rng, dtype):
    h = random_host(rng, (6, 9), dtype)
    x = nx.asarray(h, usm_type="shared")
    i, j = int(rng.integers(0, 6)), int(rng.integers(-9, 9))
    for z, want in [
        (x[i, j], h[i, j]),
        (x[i][j], h[i][j]),
        (x[np.int64(i), j, ...], h[i, j]),
        (x[-1, -1], h[-1, -1]),
        (x[i, :][j], h[i, j]),
        (x.T[j, i], h.T[j, i]),
    ]:
        assert_0d_like(z, x, dtype)
        assert host_value(z) == want and z.item() == want.item()
    z = x[i, j]
    new = random_host(rng, (), dtype)
    x[i, j] = new  # a view: writes through the array show in the 0-d array, and back
    assert z.item() == new.item()
    z[...] = h[0, 0]
    assert nx.asnumpy(x)[i, j] == h[0, 0]
    with pytest.raises(IndexError):
        x[6, 0]
    with pytest.raises(IndexError):
        x[0, 0, 0]


@pytest.mark.parametrize(
    "dtype, usm_type",
    [
        ("bool", "device"),
        ("int8", "shared"),
        ("uint64", "host"),
        ("float32", "device"),
        ("float64", "shared"),
    ],
)
def test_whole_reductions_are_0d_arrays(rng, dtype, usm_type):
    h = random_host(rng, (7, 13), dtype)
    x = nx.asarray(h, usm_type=usm_type)
    cases = {
        "sum": (x.sum(), h.sum()),
        "np.sum": (np.sum(x), np.sum(h)),
        "prod": (x[:2, :3].prod(), h[:2, :3].prod()),
        "min": (x.min(), h.min()),
        "np.max": (np.max(x), np.max(h)),
        "argmin": (x.argmin(), h.argmin()),
        "np.argmax": (np.argmax(x), np.argmax(h)),
        "any": (x.any(), h.any()),
        "np.all": (np.all(x), np.all(h)),
        "mean": (x.mean(), h.mean()),
        "0-d sum": (x[1, 2].sum(), h[1, 2].sum()),
        "strided max": (x[::2, ::-3].max(), h[::2, ::-3].max()),
    }
    for what, (got, want) in cases.items():
        want = np.asarray(want)
        assert_0d_like(got, x, want.dtype)
        value = host_value(got)
        if want.dtype.kind == "f":
            r, a = tol(want.dtype)
            scale = float(np.abs(h.astype(np.float64)).sum())
            assert value == pytest.approx(want[()], rel=r, abs=a * max(1.0, scale)), what
            assert got.item() == value.item() and float(got) == float(value)
        else:
            assert value == want[()] and got.item() == want.item(), what


@pytest.mark.parametrize("dtype", DTYPES)
def test_python_number_protocols(rng, dtype):
    h = random_host(rng, (), dtype)
    z = nx.asarray(h)
    assert isinstance(float(z), float) and float(z) == float(h)
    assert isinstance(int(z), int) and int(z) == int(h)
    assert bool(z) == bool(h) and complex(z) == complex(h)
    assert type(z.item()) is type(h.item()) and z.item() == h.item()
    assert math.isclose(math.floor(z), math.floor(h)) and abs(float(z)) == abs(float(h))
    if np.dtype(dtype).kind in "iu":
        assert operator.index(z) == operator.index(h)
        r = list(range(abs(int(h)) % 5))
        assert list(range(nx.asarray(np.asarray(len(r), dtype)))) == r
    else:
        with pytest.raises(TypeError, match="integer"):
            operator.index(z)
    with pytest.raises(TypeError, match="len"):
        len(z)
    with pytest.raises(TypeError, match="iteration"):
        iter(z)
    assert nx.asnumpy(z).shape == () and nx.asnumpy(z)[()] == h


def test_item_with_an_index_and_integer_0d_indices(rng):
    h = rng.standard_normal((4, 5))
    x = nx.asarray(h)
    k = int(rng.integers(0, 20))
    assert x.item(k) == h.item(k) and x.item(2, 3) == h.item(2, 3) and x.item((1, -1)) == h.item((1, -1))
    with pytest.raises(TypeError, match="one element"):
        x.item()
    with pytest.raises(ValueError, match="indices"):
        x.item((1,))
    v = nx.asarray(rng.standard_normal(30))
    top = v[v.argmax()]  # a 0-d integer array indexes as its value
    assert top.ndim == 0 and float(top) == nx.asnumpy(v).max()
    row = x[x[0, 0].astype("int64") * 0 + 2]
    np.testing.assert_array_equal(nx.asnumpy(row), h[2])


@pytest.mark.parametrize("dtype", ["int16", "uint8", "bool", "float32", "float64"])
def test_str_repr_and_format_specs(rng, dtype):
    h = random_host(rng, (), dtype)
    z = nx.asarray(h)
    assert str(z) == str(h) and f"{z}" == f"{h}" and str(nx.asarray(h.reshape(1))) == str(h.reshape(1))
    body = np.array2string(np.asarray(h), separator=", ")  # as NumPy's repr shows the value
    assert repr(z).startswith(f"numba_ext.ndarray({body}, dtype={h.dtype}")
    specs = [">8", "^9"] + ([".3f", "e", "+.2g", "10.4f"] if h.dtype.kind == "f" else [])
    specs += ["d", "+05d", "x"] if h.dtype.kind in "iu" else []
    for spec in specs:
        assert format(z, spec) == format(h, spec), spec
    with pytest.raises(TypeError, match="format"):
        format(nx.asarray(h.reshape(1)), ".3f")


OPS = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "//": operator.floordiv,
    "%": operator.mod,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
}


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int64", "float32", "float64"])
def test_arithmetic_and_comparisons_with_python_scalars(rng, dtype):
    # NumPy 2's promotion: Python scalars are weak (float32 0-d * 2.5 stays float32)
    h = random_host(rng, (), dtype)
    if h == 0:
        h = np.asarray(3, dtype)
    z = nx.asarray(h)
    scalars = [int(rng.integers(1, 7)), float(rng.uniform(0.5, 4.0)), True]
    for k, (name, op) in enumerate(OPS.items()):
        for s in scalars[k % 3 :] + scalars[: k % 3][:1]:  # every op with two kinds of scalar
            for reflected in (False, True) if name in "+-/%" else (False,):
                with np.errstate(all="ignore"):
                    want = np.asarray(op(s, h) if reflected else op(h, s))
                got = op(s, z) if reflected else op(z, s)
                what = f"{'s ' + name + ' z' if reflected else 'z ' + name + ' s'} ({dtype}, {s!r})"
                assert isinstance(got, nx.ndarray) and got.shape == (), what
                assert got.dtype == want.dtype, (what, got.dtype, want.dtype)
                if want.dtype.kind == "f":
                    assert host_value(got) == pytest.approx(want[()], rel=tol(want.dtype)[0]), what
                else:
                    assert host_value(got) == want[()], what
    neg = -z
    assert neg.shape == () and host_value(neg) == -h


def test_ufuncs_of_0d_arrays(rng):
    # the result is still a 0-d array on the queue, with the operand's USM type
    h = rng.standard_normal(25)
    x = nx.asarray(h, usm_type="shared")
    for got, want in [
        (np.isnan(x.mean()), np.isnan(h.mean())),
        (np.isfinite(x.max()), np.isfinite(h.max())),
        (np.signbit(x.min()), np.signbit(h.min())),
    ]:
        assert isinstance(got, nx.ndarray) and got.shape == () and got.usm_type == "shared"
        assert got.sycl_queue is x.sycl_queue and got.dtype == want.dtype and got.item() == want
    np.testing.assert_array_equal(nx.asnumpy(np.isnan(x)), np.isnan(h))
    # a ufunc the device does not compute (complex exp2) of a 0-d array: computed on its element
    hc = h + 1j * rng.standard_normal(25)
    c = nx.asarray(hc, usm_type="shared")
    t = np.exp2(c.sum())
    assert isinstance(t, nx.ndarray) and t.shape == () and t.sycl_queue is c.sycl_queue
    np.testing.assert_allclose(complex(t), np.exp2(hc.sum()), rtol=1e-12)
    with pytest.raises(nx.UnsupportedError, match="exp2"):
        np.exp2(c)  # arrays of more elements are not computed on the host


def test_0d_arrays_with_arrays_and_in_jitted_code(rng):
    h = rng.standard_normal(41)
    x = nx.asarray(h)
    s = x.sum()
    np.testing.assert_allclose(nx.asnumpy(x / s), h / h.sum(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(nx.asnumpy(x - x.mean()), h - h.mean(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(
        nx.asnumpy(np.where(x > x.mean(), x, x.min())), np.where(h > h.mean(), h, h.min()), rtol=1e-12
    )

    @nx.jit
    def scale(a, t):
        return a / t  # a 0-d array argument broadcasts

    np.testing.assert_allclose(nx.asnumpy(scale(x, s)), h / h.sum(), rtol=1e-12, atol=1e-14)

    @nx.jit
    def total(a):
        return a.sum()  # scalars stay scalars in jitted code

    got = total(x)
    assert not isinstance(got, nx.ndarray)
    assert got == pytest.approx(h.sum(), rel=1e-12, abs=1e-14 * np.abs(h).sum())  # a sum may cancel


@pytest.mark.needs_host_access
def test_jitted_element_access_stays_scalar(rng):
    h = rng.standard_normal((5, 6))
    x = nx.asarray(h)

    @nx.jit
    def at(a, i, j):
        return a[i, j]

    got = at(x, 2, 3)
    assert isinstance(got, float) and got == h[2, 3]
