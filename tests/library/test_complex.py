"""complex64 and complex128 arrays outside jitted code: creation and transfers, the USM array
interface, eager arithmetic and math (abs conj real imag exp log sqrt sin cos sinh cosh), the
``.real`` / ``.imag`` views, reductions (sum, mean and products, along an axis and over every
element) and rounding. Inputs are
fresh random complex values (``rng.standard_normal + 1j * rng.standard_normal``), results are checked
value by value and dtype by dtype against NumPy. The error for complex128 on a device without fp64
is tested in tests/arrays/test_precision_support.py."""

import types

import numpy as np
import pytest

import numba_ext as nx
from numba_ext.errors import UnsupportedError

from ..checks import N, check, crand, poison


def test_creation_and_transfers(rng, cdt):
    h = crand(rng, cdt)
    x = nx.asarray(h)
    assert x.dtype == np.dtype(cdt) and x.itemsize == np.dtype(cdt).itemsize
    np.testing.assert_array_equal(nx.asnumpy(x), h)
    iface = x.__sycl_usm_array_interface__
    assert iface["typestr"] == ("<c8" if cdt == "complex64" else "<c16")
    assert iface["shape"] == (N,) and iface["strides"] is None
    # a strided view keeps the layout: element strides in the interface, the values on the host
    v = x[1::3]
    np.testing.assert_array_equal(nx.asnumpy(v), h[1::3])
    assert v.__sycl_usm_array_interface__["strides"] == (3,)
    # through the interface into another numba_ext array
    y = nx.asarray(types.SimpleNamespace(__sycl_usm_array_interface__=iface, _keep=x))
    np.testing.assert_array_equal(nx.asnumpy(y), h)
    z = nx.zeros(5, dtype=cdt)
    np.testing.assert_array_equal(nx.asnumpy(z), np.zeros(5, cdt))
    f = nx.full(4, 1.5 - 2j, dtype=cdt)
    np.testing.assert_array_equal(nx.asnumpy(f), np.full(4, 1.5 - 2j, cdt))
    e = nx.empty((3, 2), dtype=cdt)
    assert e.dtype == np.dtype(cdt) and e.shape == (3, 2)
    np.testing.assert_array_equal(nx.asnumpy(x.astype("complex64")), h.astype("complex64"))


def test_arithmetic_with_arrays_and_scalars(rng, cdt):
    ha, hb = crand(rng, cdt), crand(rng, cdt)
    hr = rng.standard_normal(N).astype("float32")
    a, b, r = nx.asarray(ha), nx.asarray(hb), nx.asarray(hr)
    poison(N, cdt)
    check(a + b, ha + hb, "add")
    check(a - b, ha - hb, "sub")
    check(a * b, ha * hb, "mul")
    check(a / b, ha / hb, "div")
    check(-a, -ha, "neg")
    check(a * r, ha * hr, "complex * float32")
    check(r - a, hr - ha, "float32 - complex")
    # Python complex scalars are weak (NumPy 2): complex64 stays complex64
    check(a * (2 - 1j), ha * (2 - 1j), "a * complex scalar")
    check((0.5 + 3j) / a, (0.5 + 3j) / ha, "complex scalar / a")
    check(a + 2.5, ha + 2.5, "a + float scalar")
    check(a == b, ha == hb, "eq")
    check(a != a, ha != ha, "ne")


def test_power(rng, cdt):
    ha, hb = crand(rng, cdt), crand(rng, cdt)
    a, b = nx.asarray(ha), nx.asarray(hb)
    r = 1e-4 if cdt == "complex64" else 1e-11
    check(a**2, ha**2, "a**2", rtol=r, atol=r)
    check(a**b, ha**hb, "a**b", rtol=r, atol=r)
    check(a**0.5, ha**0.5, "a**0.5", rtol=r, atol=r)
    hz = np.array([0j, 0j, 2 + 0j], dtype=cdt)
    he = np.array([0j, 2 + 1j, 0j], dtype=cdt)
    check(nx.asarray(hz) ** nx.asarray(he), hz**he, "zero powers")


def test_division_does_not_overflow(cdt):
    """Smith's algorithm: |b|^2 of a huge or tiny divisor is never formed."""
    big = 1e30 if cdt == "complex64" else 1e300
    ha = np.array([big * (1 + 1j), 1 + 1j, 3 - 4j], dtype=cdt)
    hb = np.array([big * (1 - 1j), 1 / big * (1 + 2j), 1e-20 + 0j], dtype=cdt)
    a, b = nx.asarray(ha), nx.asarray(hb)
    got = nx.asnumpy(a / b)
    assert np.all(np.isfinite(got)), got
    np.testing.assert_allclose(got, ha / hb, rtol=1e-5 if cdt == "complex64" else 1e-12)


def test_math_functions(rng, cdt):
    ha = crand(rng, cdt)
    a = nx.asarray(ha)
    r = 2e-5 if cdt == "complex64" else 1e-12
    for f in (np.exp, np.log, np.sqrt, np.sin, np.cos, np.sinh, np.cosh, np.conjugate, np.square):
        poison(N, cdt)
        check(f(a), f(ha), f.__name__, rtol=r, atol=r)
    check(np.abs(a), np.abs(ha), "abs")
    check(abs(a), np.abs(ha), "abs()")
    check(a.conj(), ha.conj(), "conj()")
    # sqrt on the branch cut and at zero keeps NumPy's signs
    hc = np.array([-4 + 0j, -4 - 0j, 0j, 4j, -1e-3 - 2j], dtype=cdt)
    check(np.sqrt(nx.asarray(hc)), np.sqrt(hc), "sqrt special", rtol=r, atol=r)


def test_real_and_imag(rng, cdt):
    ha = crand(rng, cdt).reshape(-1, 1)[:96].reshape(8, 12)
    a = nx.asarray(ha)
    comp = np.dtype(cdt).type(0).real.dtype
    check(a.real, ha.real, ".real")
    check(a.imag, ha.imag, ".imag")
    check(np.real(a), np.real(ha), "np.real")
    check(np.imag(a), np.imag(ha), "np.imag")
    assert a.real.dtype == comp and a.imag.dtype == comp
    # they are views: arithmetic on them and writes through them, as NumPy
    check(a.real[:, ::2] * a.imag[:, 1::2], ha.real[:, ::2] * ha.imag[:, 1::2], "views in arithmetic")
    im = a.imag
    im[2] = 7.0
    ha.imag[2] = 7.0
    check(a, ha, "write through .imag")
    # a real array: .real is itself, .imag zeros
    hr = rng.standard_normal(N)
    x = nx.asarray(hr)
    check(x.real, hr, "real .real")
    check(x.imag, np.zeros(N), "real .imag")


def test_reductions(rng, cdt):
    ha = crand(rng, cdt, 1000)
    a = nx.asarray(ha)
    r = 1e-4 if cdt == "complex64" else 1e-11
    s = a.sum()  # a 0-d array on the queue
    assert s.shape == () and s.dtype == np.dtype(cdt)
    np.testing.assert_allclose(complex(s), ha.sum(), rtol=r)
    np.testing.assert_allclose(nx.asnumpy(np.sum(a)), ha.sum(), rtol=r)
    m = a.mean()
    assert m.shape == () and m.dtype == np.dtype(cdt)
    np.testing.assert_allclose(m.item(), ha.mean(), rtol=r)
    h2 = ha.reshape(20, 50)
    check(nx.asarray(h2).sum(axis=1), h2.sum(axis=1), "sum(axis=1)", rtol=r, atol=r)


def unit_circle(rng, cdt, n):
    """`n` complex values near the unit circle: their products neither overflow nor vanish."""
    angles = rng.uniform(-np.pi, np.pi, n)
    return (np.exp(1j * angles) * rng.uniform(0.99, 1.01, n)).astype(cdt)


@pytest.mark.parametrize("row", [None, 8])
def test_products_over_every_element(rng, cdt, monkeypatch, row):
    from numba_ext.library import reductions

    if row is not None:  # short rows: several rounds of row products, each with a partial row
        monkeypatch.setattr(reductions, "PRODUCT_ROW", row)
    r = 2e-4 if cdt == "complex64" else 1e-11
    for n in (0, 1, 7, 2048, 2049, 3 * 2048 + 5, 100_003):
        poison(1, cdt)
        h = unit_circle(rng, cdt, n)
        got = nx.asarray(h).prod()
        assert isinstance(got, nx.ndarray) and got.shape == () and got.dtype == np.dtype(cdt), (n, got)
        np.testing.assert_allclose(complex(got), h.prod(), rtol=r, atol=r, err_msg=f"{n} elements")
    h = unit_circle(rng, cdt, 6 * 35).reshape(6, 35)
    x = nx.asarray(np.asfortranarray(h))
    for view, want in ((x, h), (x.T[::2, 1:], h.T[::2, 1:]), (x[::-1, ::3], h[::-1, ::3])):
        np.testing.assert_allclose(complex(np.prod(view)), np.prod(want), rtol=r, atol=r)
    kept = x.prod(keepdims=True)
    assert kept.shape == (1, 1)
    np.testing.assert_allclose(nx.asnumpy(kept), h.prod(keepdims=True), rtol=r, atol=r)
    assert complex(nx.asarray(np.array(2 - 3j, cdt)).prod()) == 2 - 3j


def test_round_each_part(rng, cdt):
    h = (crand(rng, cdt, 200) * 50).astype(cdt)
    h[:4] = [np.inf - 2.5j, complex(np.nan, 0.5), -0.4 - 0.0j, 2.5 + 3.5j]
    for decimals in (0, 2, -1):
        poison(200, cdt)
        got = np.round(nx.asarray(h), decimals)
        want = np.round(h, decimals)
        assert got.dtype == want.dtype and got.shape == want.shape
        host = nx.asnumpy(got)
        # the same values, signs of zero included (NaN where NumPy has NaN)
        np.testing.assert_array_equal(np.signbit(host.real), np.signbit(want.real))
        np.testing.assert_array_equal(np.signbit(host.imag), np.signbit(want.imag))
        np.testing.assert_allclose(host, want, rtol=1e-6 if cdt == "complex64" else 1e-15, atol=0)
    view, want = nx.asarray(h.reshape(10, 20)).T[::3], h.reshape(10, 20).T[::3]
    np.testing.assert_array_equal(nx.asnumpy(np.round(view, 1)), np.round(want, 1))
    np.testing.assert_array_equal(nx.asnumpy(nx.round(view)), np.round(want))  # the array API's


def test_products_along_an_axis(rng, cdt):
    h = crand(rng, cdt, 60).reshape(6, 10) * 0.5
    r = 1e-4 if cdt == "complex64" else 1e-11
    check(nx.asarray(h).prod(axis=1), h.prod(axis=1), "prod(axis=1)", rtol=r, atol=r)


def test_unsupported_operations_are_clear(rng, cdt):
    a = nx.asarray(crand(rng, cdt))
    for f in (
        np.exp2,
        lambda x: x < x,
        lambda x: np.maximum(x, x),
        lambda x: np.clip(x, 0, 1),
    ):
        with pytest.raises(UnsupportedError, match=cdt):
            f(a)
    for name in ("min", "max", "argmin", "argmax"):
        with pytest.raises(UnsupportedError, match=f"np.{name} of {cdt}.*lexicographically"):
            getattr(a, name)()
    with pytest.raises(TypeError):  # NumPy has no loop either
        np.floor_divide(a, a)
