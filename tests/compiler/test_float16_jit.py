"""float16 arrays in ``numba_ext.jit`` code: array expressions with NumPy's float16 results (bit for
bit for the correctly rounded operations: each float16 result is computed in float32 and rounded to
half, as NumPy's float16 loops do), NumPy's promotion with other dtypes and scalars (Python scalars
weak), casts, ``prange`` loops reading and writing float16 elements (Numba types arithmetic on
float16 scalars in float32; the store rounds to half), reductions, and float16 scalars crossing the
boundary of a jitted function (returned as Python floats, as Numba returns float32 scalars)."""

import numpy as np
import pytest
from numba import prange

import numba_ext as nx
from numba_ext.errors import UnsupportedError

from ..checks import N, halves, poison, same_ulps

F16, F32 = np.float16, np.float32
ULP = 2.0**-10


pytestmark = pytest.mark.needs_fp16


@nx.jit
def expr(a, b):
    return a * b + a / (b * b + 1.0) - 0.1


@nx.jit
def math_expr(a, b):
    return np.sqrt(a) + np.exp(-b) * np.sin(a) - np.log(a) * np.cos(b) + np.abs(b)


@nx.jit
def compare(a, b):
    return (a < b) & (a != 0.5)


def test_array_expressions(rng):
    ha, hb = halves(rng, (7, 15)), halves(rng, (7, 15))
    x, y = nx.asarray(ha), nx.asarray(hb)
    poison(ha.size, "float16", "bool")
    same_ulps(expr(x, y), ha * hb + ha / (hb * hb + 1.0) - 0.1)
    same_ulps(compare(x, y), (ha < hb) & (ha != 0.5))
    pa, pb = rng.uniform(0.1, 4, 50).astype(F16), halves(rng, 50)
    with np.errstate(all="ignore"):
        want = np.sqrt(pa) + np.exp(-pb) * np.sin(pa) - np.log(pa) * np.cos(pb) + np.abs(pb)
    # each of the seven results rounds to half; the math library may differ by an ulp of float32
    same_ulps(math_expr(nx.asarray(pa), nx.asarray(pb)), want, ulps=4)


@nx.jit
def add(a, b):
    return a + b


@nx.jit
def times(a, s):
    return a * s


@pytest.mark.parametrize("other", ["bool", "int8", "uint8", "int16", "int32", "float32", "float64"])
def test_promotion_with_arrays(rng, other):
    ha = halves(rng)
    hb = rng.integers(0, 2 if other == "bool" else 100, N).astype(other)
    want = ha + hb
    assert want.dtype == np.result_type(F16, other)
    same_ulps(add(nx.asarray(ha), nx.asarray(hb)), want)
    same_ulps(add(nx.asarray(hb), nx.asarray(ha)), hb + ha)


@pytest.mark.parametrize("scalar", [0.1, 3, np.float16(0.3), np.float32(0.1), np.int16(7)], ids=repr)
def test_promotion_with_scalars(rng, scalar):
    ha = halves(rng)
    # Python float and int are weak, as in NumPy 2 (Numba types them float64 / int64, which a
    # float64 or int64 NumPy scalar would also be: those count as weak too)
    same_ulps(times(nx.asarray(ha), scalar), ha * scalar)


@nx.jit
def literal_scalars(a):
    return a * 3 - 0.1


def test_literals_are_weak(rng):
    ha = halves(rng)
    same_ulps(literal_scalars(nx.asarray(ha)), ha * 3 - 0.1)


@nx.jit
def to_half(a):
    return a.astype(np.float16)


@nx.jit
def from_half(a):
    return a.astype(np.float32) * 3


def test_casts(rng):
    base = np.arange(1, 200, dtype=np.float64)
    above = (base + 0.5) * 2.0**-10 + 1.0 + 2.0**-40  # float64 rounds once, not through float32
    h = np.concatenate([above, -above, rng.standard_normal(50) * 1e4, [65519.0, 65520.0, 1e300]])
    with np.errstate(over="ignore"):
        same_ulps(to_half(nx.asarray(h)), h.astype(F16))
    ha = halves(rng)
    same_ulps(from_half(nx.asarray(ha)), ha.astype(F32) * 3)


@nx.jit
def prange_loop(a, b, out):
    for i in prange(a.shape[0]):
        for j in range(a.shape[1]):
            out[i, j] = a[i, j] * b[i, j] + a[i, j]
    return out


def test_prange_loop(rng):
    ha, hb = halves(rng, (9, 13)), halves(rng, (9, 13))
    poison(ha.size, "float16")
    out = prange_loop(nx.asarray(ha), nx.asarray(hb), nx.empty((9, 13), dtype=F16))
    # Numba types float16 * float16 as float32: the element computes in float32, the store rounds
    # (on PTX the float32 a * b + c may be fused into an FMA first: an ulp of half apart)
    same_ulps(out, (ha.astype(F32) * hb + ha).astype(F16), ulps=1)


@nx.jit
def reductions(a):
    return a.sum(), a.mean(), a.min(), a.max(), a.argmin(), a.argmax()


@nx.jit
def axis_reductions(a):
    return a.sum(axis=0), a.max(axis=1), a.argmin(axis=0)


def test_reductions(rng):
    h = halves(rng, (12, 17))
    s, m, lo, hi, amin, amax = reductions(nx.asarray(h))
    exact = h.astype(np.float64)
    assert abs(s - exact.sum()) <= ULP * np.abs(exact).sum() + ULP, (s, exact.sum())
    assert abs(m - exact.mean()) <= 4 * ULP, (m, exact.mean())
    assert (lo, hi, amin, amax) == (h.min(), h.max(), h.argmin(), h.argmax())
    assert all(type(v) is float for v in (s, m, lo, hi))  # float16 results box as Python floats
    sums, maxes, argmins = axis_reductions(nx.asarray(h))
    assert nx.asnumpy(sums).dtype == F16
    np.testing.assert_array_less(
        np.abs(nx.asnumpy(sums) - exact.sum(axis=0)), ULP * np.abs(exact).sum(axis=0) + ULP
    )
    same_ulps(maxes, h.max(axis=1))
    same_ulps(argmins, h.argmin(axis=0))


@nx.jit
def first_element(a):
    return a[0]


@nx.jit
def scale_by(a, s):
    return a * s


@pytest.mark.needs_host_access
def test_float16_element_returned(rng):
    ha = halves(rng)
    v = first_element(nx.asarray(ha))
    assert type(v) is float and v == float(ha[0])


def test_float16_scalar_argument(rng):
    ha = halves(rng)
    # a float16 argument unboxes to half; NumPy scalars of float16 are float16 in the promotion
    same_ulps(scale_by(nx.asarray(ha), np.float16(0.1)), ha * np.float16(0.1))


@nx.jit
def host_ufunc_on_half(a):
    return np.isnan(a[0])


@nx.jit
def union_of_halves(a):
    return np.union1d(a, a)


@pytest.mark.parametrize(
    "f",
    [pytest.param(host_ufunc_on_half, marks=pytest.mark.needs_host_access), union_of_halves],
    ids=lambda f: f.__name__,
)
def test_numba_refusals_are_clear(rng, f):
    # Numba's CPU target has no float16 loops for NumPy functions on host values: a clear error
    with pytest.raises(UnsupportedError, match="float16") as e:
        f(nx.asarray(halves(rng)))
    assert "np.float32" in str(e.value) and f.__name__ in str(e.value)


def test_float16_sort_on_the_device(rng):
    # np.sort, which Numba's host code cannot do for float16, is the eager library's sort
    ha = halves(rng)
    got = nx.jit(lambda a: np.sort(a))(nx.asarray(ha))
    assert got.dtype == np.float16
    np.testing.assert_array_equal(nx.asnumpy(got), np.sort(ha))


@nx.jit
def in_place(a, b):
    a += 1.5
    a *= b
    return a


@nx.jit
def assign_into(a, b):
    a[:] = (a + 1.5) * b
    a[a > 1] = 0.3
    return a


@pytest.mark.needs_host_access  # in-place operators on arrays run on the host (every dtype)
def test_in_place_operators(rng):
    ha, hb = halves(rng), halves(rng)
    want = ha.copy()
    want += 1.5
    want *= hb
    same_ulps(in_place(nx.asarray(ha), nx.asarray(hb)), want)


def test_slice_and_mask_assignment(rng):
    ha, hb = halves(rng), halves(rng)
    want = ha.copy()
    want[:] = (want + 1.5) * hb
    want[want > 1] = 0.3
    same_ulps(assign_into(nx.asarray(ha), nx.asarray(hb)), want)
