"""Eager operations on float16 arrays: arithmetic, comparisons and math with NumPy's float16 results
(each result computed in float32 and rounded to half, as NumPy's float16 loops do: bit for bit
for the correctly rounded operations, within a unit in the last place for the math library), NumPy's
type promotion with other dtypes and with Python and NumPy scalars, ``np.where`` / ``np.clip``, and
the reductions (sum, mean, prod, min, max, argmin, argmax, whole and along an axis, and ``np.dot``)
within tolerances appropriate to float16."""

import operator

import numpy as np
import pytest

import numba_ext as nx

from ..checks import N, poison

F16 = np.float16
ULP = 2.0**-10  # half precision: a unit in the last place of 1


pytestmark = pytest.mark.needs_fp16


def halves(rng, shape=N, lo=-4.0, hi=4.0):
    return rng.uniform(lo, hi, shape).astype(F16)


def positive(rng, shape=N):
    return rng.uniform(0.05, 6.0, shape).astype(F16)


def same(got, want, ulps=0):
    """`got` (a numba_ext array) has `want`'s dtype and shape, and its values within `ulps` units in
    the last place of `want`'s dtype (0: bit for bit, NaNs in the same places)."""
    host = nx.asnumpy(got)
    want = np.asarray(want)
    assert host.dtype == want.dtype and host.shape == want.shape, (host.dtype, want.dtype, host.shape)
    if ulps == 0:
        np.testing.assert_array_equal(host, want)
    else:
        spacing = np.abs(np.spacing(want.astype(host.dtype))).astype(np.float64)
        err = np.abs(host.astype(np.float64) - want.astype(np.float64))
        assert np.all((err <= ulps * spacing) | (host == want) | (np.isnan(host) & np.isnan(want))), np.max(
            err / spacing
        )


BINARY = [operator.add, operator.sub, operator.mul, operator.truediv, np.maximum, np.minimum, np.copysign]


@pytest.mark.parametrize("op", BINARY, ids=lambda f: f.__name__)
def test_correctly_rounded_binary_ops(rng, op):
    ha, hb = halves(rng), halves(rng)
    hb[hb == 0] = 1
    poison(N, "float16")
    same(op(nx.asarray(ha), nx.asarray(hb)), op(ha, hb))


@pytest.mark.parametrize("op", [operator.pow, operator.floordiv, operator.mod, np.arctan2, np.hypot])
def test_other_binary_ops(rng, op):
    ha, hb = positive(rng), positive(rng)
    with np.errstate(all="ignore"):
        same(op(nx.asarray(ha), nx.asarray(hb)), op(ha, hb), ulps=1)


@pytest.mark.parametrize("op", [operator.lt, operator.le, operator.eq, operator.ne, operator.ge, operator.gt])
def test_comparisons(rng, op):
    ha, hb = halves(rng), halves(rng)
    hb[::3] = ha[::3]
    same(op(nx.asarray(ha), nx.asarray(hb)), op(ha, hb))


UNARY = ["sqrt", "exp", "log", "sin", "cos", "tanh", "exp2", "log1p", "expm1", "arctan", "cbrt"]


@pytest.mark.parametrize("name", UNARY)
def test_math(rng, name):
    h = positive(rng)
    same(getattr(np, name)(nx.asarray(h)), getattr(np, name)(h), ulps=1)


@pytest.mark.parametrize("name", ["abs", "negative", "floor", "ceil", "trunc", "rint", "square", "sign"])
def test_exact_unary(rng, name):
    h = halves(rng)
    same(getattr(np, name)(nx.asarray(h)), getattr(np, name)(h))


def test_nan_and_infinity():
    h = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 65504, 6e-8, -1], F16)
    x = nx.asarray(h)
    with np.errstate(all="ignore"):
        same(np.isnan(x), np.isnan(h))
        same(np.isinf(x), np.isinf(h))
        same(x * x, h * h)  # 65504 squared overflows to infinity
        same(np.sqrt(x), np.sqrt(h))
        same(x / 0.0, h / 0.0)


OTHERS = ["bool", "int8", "uint8", "int16", "uint16", "int32", "int64", "float32", "float64"]


@pytest.mark.parametrize("other", OTHERS)
def test_promotion_with_arrays(rng, other):
    ha = halves(rng)
    hb = (rng.integers(0, 2, N) if other == "bool" else rng.integers(1, 100, N)).astype(other)
    if other.startswith("float"):
        hb = rng.uniform(-4, 4, N).astype(other)
    want = ha + hb
    assert want.dtype == np.result_type(F16, other)
    same(nx.asarray(ha) + nx.asarray(hb), want)
    same(nx.asarray(hb) * nx.asarray(ha), hb * ha)


@pytest.mark.parametrize(
    "scalar", [2.5, 0.1, 3, True, np.float32(0.1), np.float64(0.1), np.int8(3), np.int16(3)], ids=repr
)
def test_promotion_with_scalars(rng, scalar):
    ha = halves(rng)
    want = ha * scalar  # Python scalars are weak (float16); NumPy scalars promote by their dtype
    same(nx.asarray(ha) * scalar, want)
    same(scalar - nx.asarray(ha), scalar - ha)


def test_where_and_clip(rng):
    ha, hb = halves(rng), halves(rng)
    x, y = nx.asarray(ha), nx.asarray(hb)
    same(np.where(x < y, x, y), np.where(ha < hb, ha, hb))
    same(np.where(x < 0, x, 0.5), np.where(ha < 0, ha, F16(0.5)))
    same(np.clip(x, -1, 1.5), np.clip(ha, -1, 1.5))


def _sum_tolerance(h, axis=None):
    """A bound on the error of our float16 sum (accumulated in a wider type, rounded once or a few
    times): an ulp of the sum of the magnitudes, and a few ulps of 1."""
    return ULP * np.sum(np.abs(h.astype(np.float64)), axis=axis) + ULP * 4


def _float16_additions_bound(h, axis=None):
    """A bound on the error of NumPy's float16 sum along an axis, added in float16: each of the n
    additions rounds by at most half an ulp of its partial sum, at most the sum of the magnitudes."""
    n = h.size if axis is None else h.shape[axis]
    return n * (ULP / 2) * np.sum(np.abs(h.astype(np.float64)), axis=axis) + ULP * 4


def test_sum_and_mean(rng):
    h = halves(rng, (13, 29))
    x = nx.asarray(h)
    exact = h.astype(np.float64)
    for got, want, ref, tol, numpy_tol in [
        (x.sum(), h.sum(), exact.sum(), _sum_tolerance(h), _sum_tolerance(h)),
        (
            np.sum(x, axis=0),
            h.sum(axis=0),
            exact.sum(axis=0),
            _sum_tolerance(h, 0),
            _float16_additions_bound(h, 0),
        ),
        (
            x.sum(axis=1),
            h.sum(axis=1),
            exact.sum(axis=1),
            _sum_tolerance(h, 1),
            _float16_additions_bound(h, 1),
        ),
        (x.mean(), h.mean(), exact.mean(), ULP * 4, ULP * 4),
        (np.mean(x, axis=1), h.mean(axis=1), exact.mean(axis=1), ULP * 8, ULP * 8),
    ]:
        host = nx.asnumpy(got)
        assert host.dtype == F16 and host.shape == np.shape(want), (host.dtype, host.shape)
        # ours accumulates in a wider type; NumPy's axis sums add in float16, each addition rounded
        np.testing.assert_array_less(np.abs(host.astype(np.float64) - ref), tol + 1e-12)
        np.testing.assert_array_less(np.abs(want.astype(np.float64) - ref), numpy_tol + 1e-12)


def test_prod(rng):
    h = rng.uniform(0.8, 1.25, (6, 9)).astype(F16)
    x = nx.asarray(h)
    exact = h.astype(np.float64)
    got = nx.asnumpy(x.prod(axis=1))
    assert got.dtype == F16
    np.testing.assert_allclose(got.astype(np.float64), exact.prod(axis=1), rtol=9 * ULP)


def test_extremes(rng):
    h = halves(rng, (11, 23))
    x = nx.asarray(h)
    for name in ["min", "max", "argmin", "argmax"]:
        for axis in [None, 0, 1]:
            got, want = getattr(x, name)(axis=axis), getattr(h, name)(axis=axis)
            same(got, want)
    h[3, 4] = np.nan
    same(nx.asarray(h).max(), h.max())  # NaN propagates, as in NumPy
    same(nx.asarray(h).argmin(), np.asarray(h.argmin()))
    with pytest.raises(ValueError):
        nx.zeros(0, dtype=F16).min()


def test_dot(rng):
    ha, hb = halves(rng, 40), halves(rng, 40)
    got = nx.asnumpy(np.dot(nx.asarray(ha), nx.asarray(hb)))
    exact = np.dot(ha.astype(np.float64), hb.astype(np.float64))
    assert got.dtype == F16
    assert abs(float(got) - exact) <= 40 * ULP * np.dot(np.abs(ha), np.abs(hb)).astype(np.float64) / 4 + ULP


def test_cumsum(rng):
    h = halves(rng, 50)
    got = nx.asnumpy(np.cumsum(nx.asarray(h)))
    assert got.dtype == F16
    exact = np.cumsum(h.astype(np.float64))
    np.testing.assert_array_less(
        np.abs(got - exact), 50 * ULP * np.cumsum(np.abs(h.astype(np.float64))) + ULP
    )
