"""Eager operations the fuzzer found differing from NumPy: np.rint of complex data (it returned its
input), comparisons of integer arrays with Python ints outside their range (OverflowError), integer
powers with a negative exponent (a value instead of NumPy's ValueError), and the axis of reductions
of 0-d arrays and non-integer axes (AxisError instead of NumPy's result or TypeError)."""

import numpy as np
import pytest

import numba_ext as nx
from tests.checks import check


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_rounding_of_real_floats_still_rounds(rng, dtype):
    if dtype == "float16" and not nx.default_queue().device.has_aspect_fp16:
        pytest.skip("float16 needs cl_khr_fp16")
    h = (rng.standard_normal(50) * 4).astype(dtype)
    x = nx.asarray(h)
    for f in (np.rint, np.floor, np.ceil, np.trunc):
        check(f(x), f(h), f.__name__)


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "uint8", "uint64"])
@pytest.mark.parametrize("value", [2**70, -(2**70), 300, -129, 2**64, -1])
def test_comparison_with_python_int_beyond_the_dtype(rng, dtype, value):
    h = rng.integers(np.iinfo(dtype).min, np.iinfo(dtype).max, 11, dtype=dtype, endpoint=True)
    x = nx.asarray(h)
    for f in (np.less, np.less_equal, np.greater, np.greater_equal, np.equal, np.not_equal):
        if np.iinfo(dtype).min <= value <= np.iinfo(dtype).max:
            continue
        check(f(x, value), f(h, value), f"{f.__name__}(x, {value})")
        check(f(value, x), f(value, h), f"{f.__name__}({value}, x)")
    check(x < value, h < value)
    check(value == x, value == h)


def test_arithmetic_with_python_int_beyond_the_dtype_is_numpy_overflow_error():
    x = nx.asarray(np.arange(4, dtype="int32"))
    with pytest.raises(OverflowError):
        np.add(np.arange(4, dtype="int32"), 2**70)
    with pytest.raises(OverflowError):
        x + 2**70


@pytest.mark.parametrize(
    "make",
    [
        lambda x, e: x**-1,
        lambda x, e: x ** np.int8(-3),
        lambda x, e: x**e,
        lambda x, e: 2**e,
        lambda x, e: np.power(x > 0, -2),
    ],
)
def test_integer_power_with_negative_exponent(rng, make):
    h = rng.integers(1, 5, 6)
    he = np.array([1, 2, -1, 0, 3, 1])
    with pytest.raises(ValueError, match="Integers to negative integer powers are not allowed"):
        make(h, he)  # NumPy's error
    with pytest.raises(ValueError, match="Integers to negative integer powers are not allowed"):
        make(nx.asarray(h), nx.asarray(he))


def test_integer_power_with_non_negative_exponents(rng):
    h, he = rng.integers(-4, 5, 9), rng.integers(0, 4, 9).astype("uint8")
    check(nx.asarray(h) ** nx.asarray(he), h**he)
    check(nx.asarray(h) ** 3, h**3)
    nz = np.where(h == 0, 7, h)
    check(nx.asarray(nz) ** -1.0, nz**-1.0)


@pytest.mark.parametrize("name", ["sum", "prod", "min", "max", "argmin", "argmax", "any", "all"])
@pytest.mark.parametrize("axis", [0, -1, np.int64(0)])
def test_reduction_of_0d_array_over_axis_0(rng, name, axis):
    h = np.array(rng.standard_normal() * 3)
    got = getattr(nx.asarray(h), name)(axis=axis)
    check(got, np.asarray(getattr(h, name)(axis=axis)), name)


@pytest.mark.parametrize("axis", [1, -2])
def test_reduction_of_0d_array_bad_axis(axis):
    z = nx.asarray(np.array(2.5))
    for name in ("sum", "max", "argmin"):
        with pytest.raises(np.exceptions.AxisError):
            getattr(z, name)(axis=axis)
    with pytest.raises(np.exceptions.AxisError):
        z.mean(axis=0)  # as NumPy: mean takes no axis of a 0-d array
    with pytest.raises(np.exceptions.AxisError):
        np.array(2.5).mean(axis=0)


@pytest.mark.parametrize("axis", [True, 1.0, "0", None.__class__])
def test_reduction_axis_of_another_type_is_a_type_error(axis):
    h = np.ones((2, 3))
    with pytest.raises(TypeError):
        h.sum(axis=axis)
    for name in ("sum", "max", "argmin", "mean"):
        with pytest.raises(TypeError, match="axis"):
            getattr(nx.asarray(h), name)(axis=axis)


class _Plain:
    """An object with identity equality (it equals no array element)."""


class _EqualsAll:
    def __eq__(self, other):
        return "asked"

    __hash__ = object.__hash__


@pytest.mark.parametrize("other", [None, "s", b"x", _Plain()])
def test_equality_with_an_unrelated_object_is_elementwise(rng, other):
    h = rng.standard_normal((2, 3))
    x = nx.asarray(h)
    check(x == other, h == other)
    check(x != other, h != other)
    check(other == x, other == h)
    with pytest.raises(TypeError):
        assert x < other


def test_equality_with_an_object_of_its_own_equality_asks_it():
    assert (nx.asarray(np.ones(3)) == _EqualsAll()) == "asked"


def test_logical_operation_with_python_int_beyond_c_long():
    h = np.ones(3)
    with pytest.raises(OverflowError):
        np.logical_and(h, 2**70)
    with pytest.raises(OverflowError):
        np.logical_and(nx.asarray(h), 2**70)
    check(np.logical_or(nx.asarray(h), 0), np.logical_or(h, 0))


_SPECIAL = [0j, complex(0.0, -0.0), complex(np.inf, 0), complex(-np.inf, 2), complex(2, np.inf)]
_SPECIAL += [complex(2, -np.inf), complex(np.inf, np.inf), complex(np.nan, 1), complex(1, np.nan)]
_SPECIAL += [complex(np.inf, np.nan), complex(np.nan, -np.inf), complex(3, 4), complex(1e-30, -2e-30)]


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_sign_of_complex(rng, dtype):
    """NumPy 2's sign of complex values, z / |z| (was refused; earlier an internal error): zero
    for zero, NaN for NaN, an infinite part's sign, NaN where both parts are infinite."""
    h = (rng.standard_normal((3, 6)) + 1j * rng.standard_normal((3, 6))).astype(dtype)
    h.flat[: len(_SPECIAL)] = _SPECIAL
    want = np.sign(h)
    r = 1e-6 if dtype == "complex64" else 1e-14
    for x in (nx.asarray(h), nx.asarray(np.asfortranarray(h))):
        for got in (np.sign(x), nx.jit(lambda v: np.sign(v))(x)):
            assert got.dtype == want.dtype
            np.testing.assert_allclose(nx.asnumpy(got), want, rtol=r, atol=0)
    r = rng.standard_normal(9)
    r[0] = 0.0
    check(np.sign(nx.asarray(r)), np.sign(r))


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_rint_of_complex(rng, dtype):
    """np.rint of complex values rounds each part to the nearest even integer, signs of zero and
    NaN parts kept (was refused)."""
    h = ((rng.standard_normal((4, 5)) + 1j * rng.standard_normal((4, 5))) * 3).astype(dtype)
    h.flat[:6] = [2.5 - 0.5j, complex(-0.4, 1.5), complex(np.inf, np.nan), complex(-0.0, 3.5), 0.5, -2.5j]
    want = np.rint(h)
    for x in (nx.asarray(h), nx.asarray(h.T)):
        w = want if x.shape == h.shape else want.T
        for got in (np.rint(x), nx.jit(lambda v: np.rint(v))(x)):
            g = nx.asnumpy(got)
            assert g.dtype == w.dtype
            np.testing.assert_array_equal(g, w)
            np.testing.assert_array_equal(np.signbit(g.real), np.signbit(w.real))
            np.testing.assert_array_equal(np.signbit(g.imag), np.signbit(w.imag))


@pytest.mark.parametrize(
    ("da", "db", "sa", "sb"),
    [
        ("complex64", "int64", (7,), (7,)),
        ("float32", "int64", (3, 5), (5, 2)),
        ("float32", "int32", (5,), (5, 3)),
        ("complex64", "float64", (4, 6), (6,)),
    ],
)
def test_product_of_mixed_dtypes_in_the_result_precision(rng, da, db, sa, sb):
    """NumPy computes float32 . int64 in float64; the products were computed in float32 (Numba's
    type of the product) and only stored as float64."""
    a = (rng.standard_normal(sa) * 3).astype(da)
    if np.dtype(da).kind == "c":
        a = a + 1j * (rng.standard_normal(sa) * 3).astype(da)
    b = rng.integers(-9, 10, sb) if np.dtype(db).kind == "i" else rng.standard_normal(sb)
    b = b.astype(db)
    want = a @ b
    check(nx.asarray(a) @ nx.asarray(b), want, "matmul", rtol=1e-13, atol=1e-12)
    check(np.dot(nx.asarray(a), nx.asarray(b)), np.dot(a, b), "dot", rtol=1e-13, atol=1e-12)
    if want.ndim:
        out = nx.empty(want.shape, dtype=want.dtype)
        np.dot(nx.asarray(a), nx.asarray(b), out=out)
        check(out, want, "dot out=", rtol=1e-13, atol=1e-12)


# -- found by the long run on the merged tree ---------------------------------------------------------
@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
def test_complex_power_of_zero_and_integer_exponents(rng, dtype):
    """NumPy's complex power: x**0 = 1 for any x, 0**y = 0 for a positive real part of y and NaN
    otherwise, and integral exponents below 100 by repeated multiplication (infinite parts as
    NumPy's); random finite values within tolerance."""
    base = np.array([0, 0, 0, 0, 0, 2 + 1j, np.inf, np.nan, -1.5 + 2j, 3, 1j], dtype=dtype)
    expo = np.array([1 + 1j, -1, 2, 0, 1j, 0, 2, 0, -3, 3, 5], dtype=dtype)
    with np.errstate(all="ignore"):
        want = base**expo
    got = nx.asnumpy(nx.asarray(base) ** nx.asarray(expo))
    np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == "complex64" else 1e-12, equal_nan=True)
    b = (rng.standard_normal(64) + 1j * rng.standard_normal(64)).astype(dtype)
    e = np.concatenate([rng.integers(-6, 7, 32), rng.standard_normal(32) * 2]).astype(dtype)
    with np.errstate(all="ignore"):
        want = b**e
    check(nx.asarray(b) ** nx.asarray(e), want, rtol=1e-4 if dtype == "complex64" else 1e-10)


def test_complex_exp_of_minus_infinity_vanishes():
    z = np.array([complex(-np.inf, np.inf), complex(-np.inf, np.nan), complex(-np.inf, 1.0)])
    with np.errstate(all="ignore"):
        want = np.exp(z)
        got = nx.asnumpy(np.exp(nx.asarray(z)))
    np.testing.assert_array_equal(got, want)  # zeros (NumPy's signs of zero may differ: equal as values)
    base, expo = np.array([-0.1 + 0.4j]), np.array([np.inf])
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(nx.asnumpy(nx.asarray(base) ** nx.asarray(expo)), base**expo)


@pytest.mark.parametrize("shapes", [((0,), (3, 1)), ((2, 0), ()), ((0,), (1,))])
def test_negative_integer_power_of_an_empty_result_is_empty(shapes):
    a, b = np.zeros(shapes[0], np.uint16), np.full(shapes[1], -1, np.int32)
    want = a**b  # no element is computed: no error
    got = nx.asarray(a) ** nx.asarray(b)
    assert got.shape == want.shape and got.dtype == want.dtype


@pytest.mark.parametrize("other", [None, object()])
def test_arithmetic_of_an_empty_array_with_none_or_object(other):
    x = nx.zeros((2, 0))
    assert (np.zeros((2, 0)) + other).dtype == object  # NumPy's object loop
    with pytest.raises(nx.UnsupportedError, match="object dtype"):
        x + other
    with pytest.raises(nx.UnsupportedError, match="object dtype"):
        other**x
    with pytest.raises(TypeError):
        nx.zeros(3) + other  # elements: NumPy's TypeError too


def test_complex_argmin_argmax_along_an_axis_are_refused():
    x = nx.asarray(np.ones((2, 3, 4), complex))
    for name in ("argmax", "argmin"):
        with pytest.raises(nx.UnsupportedError, match="lexicographically"):
            getattr(x, name)(axis=2)
    for jitted in (nx.jit(lambda v: v.argmax(axis=1)), nx.jit(lambda v: v.argmin(axis=1))):
        with pytest.raises(nx.UnsupportedError, match="lexicographically"):
            jitted(x)


@pytest.mark.parametrize("other", [b"x", "x"])
def test_arithmetic_with_strings_is_numpys_type_error(other):
    """A 0-d integer array is an index: without the TypeError Python would repeat the string."""
    with pytest.raises(TypeError):
        np.array(3, dtype=np.uint64) * other
    x = nx.asarray(np.array(3, dtype=np.uint64))
    for op in (lambda: x * other, lambda: other * x, lambda: x + other, lambda: x < other):
        with pytest.raises(TypeError, match="has no loop"):
            op()
    assert not bool(x == other)  # equality stays elementwise: never equal


@pytest.mark.parametrize("name", ["sum", "prod", "min", "max", "any", "mean"])
def test_zero_d_reductions_over_a_tuple_of_axes_are_numpys(name, rng):
    """A 0-d array has no axis to name in a tuple (NumPy's AxisError); the empty tuple reduces over
    nothing, giving the value in the result's dtype."""
    h = np.asarray(rng.integers(1, 9), dtype=np.uint8)
    x = nx.asarray(h)
    for axis in [(0,), (0, 1), (0, 0), (-1,)]:
        with pytest.raises(np.exceptions.AxisError):
            getattr(h, name)(axis=axis)
        with pytest.raises(np.exceptions.AxisError):
            getattr(x, name)(axis=axis, keepdims=True)
        with pytest.raises(np.exceptions.AxisError):
            getattr(x, name)(axis=axis)
    check(getattr(x, name)(axis=()), getattr(h, name)(axis=()))


def test_sums_in_a_narrower_dtype_keep_its_precision(rng):
    """``dtype=float32`` of complex128 data: the real parts summed in float32, as NumPy's (up to the
    order of the additions)."""
    h = rng.standard_normal((2, 3, 4)) + 1j * rng.standard_normal((2, 3, 4))
    x = nx.asarray(np.asfortranarray(h))
    with pytest.warns(np.exceptions.ComplexWarning):
        want = h.sum(keepdims=True, dtype=np.float32)
    with pytest.warns(np.exceptions.ComplexWarning):  # as NumPy warns
        got = x.sum(keepdims=True, dtype=np.float32)
    check(got, want, rtol=1e-5, atol=1e-5)
