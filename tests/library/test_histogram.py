"""Counting and selection on the device (``library.histogram``): bincount against NumPy on fresh
random inputs (every integer dtype and bool, sizes around the kernels' forms, many values in few
bins and values spread wide, minlength above and below the values, weights of several dtypes,
strided views, host operands next to device ones), its errors (NumPy's types and messages, the
process going on after them), and partition / argpartition checked for NumPy's promise (the
element at each kth is the sorted array's, smaller-or-equal before, greater-or-equal after) along
every axis of 1- to 3-d arrays and strided views. The functions are called directly and through
NumPy's functions (``__array_function__``)."""

import numpy as np
import pytest

import numba_ext as nx
from numba_ext.errors import MixedUSMTypeWarning, UnsupportedError
from numba_ext.library import functions
from numba_ext.library import histogram as hist
from numba_ext.library.histogram import HISTOGRAM_FUNCTIONS, argpartition, bincount, partition

from ..checks import INTS
from ..conftest import DEV

SIZES = [0, 1, 7, 1000, 100003]
VALUE_DTYPES = ["bool", *INTS]
EPS = np.finfo(np.float64).eps


@pytest.fixture
def numpy_functions(monkeypatch):
    """np.bincount, np.partition and np.argpartition answered by this module's functions (a no-op
    once the library's table holds them)."""
    for f, impl in HISTOGRAM_FUNCTIONS.items():
        if functions.ARRAY_FUNCTIONS.get(f) is not impl:
            monkeypatch.setitem(functions.ARRAY_FUNCTIONS, f, impl)


def _dev(h, **kw):
    return nx.asarray(h, device=DEV, **kw)


def _values(rng, dtype, n, spread):
    """`n` non-negative values of `dtype`: a handful of bins (`spread` False: many values per bin)
    or values spread over up to about twice as many bins as values (within the dtype's range)."""
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.random(n) < (0.5 if spread else 0.9)
    hi = 3 if not spread else min(2 * n + 10, int(np.iinfo(dt).max))
    return rng.integers(0, hi, n, endpoint=True).astype(dt)


def _counts_same(got, want):
    assert isinstance(got, nx.ndarray)
    host = nx.asnumpy(got)
    assert host.dtype == want.dtype == np.int64 and host.shape == want.shape, (
        host.dtype,
        host.shape,
        want.shape,
    )
    np.testing.assert_array_equal(host, want)


def _sums_close(got, x, w, minlength=0):
    """Float64 sums of weights: NumPy's within the rounding of adding each bin's terms in any
    order (at most terms * eps * the sum of their magnitudes)."""
    want = np.bincount(x, w, minlength)
    if x.size == 0:  # NumPy: int64 zeros for no values, weights or not
        _counts_same(got, want)
        return
    assert isinstance(got, nx.ndarray)
    host = nx.asnumpy(got)
    assert host.dtype == want.dtype == np.float64 and host.shape == want.shape, (host.shape, want.shape)
    terms = np.bincount(x, minlength=minlength)
    magnitude = np.bincount(x, np.abs(w.astype(np.float64)), minlength)
    bound = terms * EPS * magnitude + np.finfo(np.float64).tiny
    bad = np.abs(host - want) > bound
    assert not bad.any(), (np.flatnonzero(bad)[:5], host[bad][:5], want[bad][:5], bound[bad][:5])


# -- bincount: values ---------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", VALUE_DTYPES)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("spread", [False, True])
def test_counts(rng, dtype, n, spread):
    if dtype == "uint64" and not hist._uint64_values():
        pytest.skip("this NumPy refuses uint64 values (test_uint64_values checks the error)")
    h = _values(rng, dtype, n, spread)
    _counts_same(bincount(_dev(h)), np.bincount(h))


@pytest.mark.parametrize("n", SIZES)
def test_minlength(rng, n):
    h = _values(rng, "int32", n, True)
    top = int(h.max()) + 1 if n else 0
    for minlength in sorted({0, 1, max(top - 3, 0), top, top + 1, top + 1000}):
        _counts_same(bincount(_dev(h), minlength=minlength), np.bincount(h, minlength=minlength))
        w = rng.standard_normal(n)
        _sums_close(bincount(_dev(h), _dev(w), minlength), h, w, minlength)


def test_contention(rng):
    """Every value in one bin, or in two: the counts and sums of many terms per bin."""
    n = 100003
    for h in (np.zeros(n, np.int64), (rng.random(n) < 0.5).astype(np.uint8) * 9):
        _counts_same(bincount(_dev(h)), np.bincount(h))
        w = rng.standard_normal(n)
        _sums_close(bincount(_dev(h), _dev(w)), h, w)


def test_wide_bins(rng):
    """Few values over many bins (wider than the values are many), and large values."""
    for n, hi in ((7, 10**6), (1000, 10**6), (100003, 3 * 10**6)):
        h = rng.integers(0, hi, n)
        h[0] = hi
        _counts_same(bincount(_dev(h)), np.bincount(h))
        w = rng.random(n)
        _sums_close(bincount(_dev(h), _dev(w)), h, w)


@pytest.mark.parametrize(
    "wdtype", ["float32", "float64", "int8", "int32", "int64", "uint16", "uint64", "bool"]
)
@pytest.mark.parametrize("n", SIZES)
def test_weights(rng, wdtype, n):
    h = _values(rng, "int64", n, n % 2 == 1)
    dt = np.dtype(wdtype)
    if dt == np.bool_:
        w = rng.random(n) < 0.5
    elif dt.kind == "f":
        w = (rng.standard_normal(n) * 10).astype(dt)
    else:
        w = rng.integers(0 if dt.kind == "u" else -1000, 1000, n).astype(dt)
    got = bincount(_dev(h), _dev(w))
    if n == 0 or dt.kind == "f":
        _sums_close(got, h, w)
    else:  # integer sums below 2**53 are exact in any order
        np.testing.assert_array_equal(nx.asnumpy(got), np.bincount(h, w))
        assert got.dtype == np.float64


@pytest.mark.parametrize("form", ["blocked", "strided"])
def test_atomic_form(rng, monkeypatch, form):
    """The atomic form GPUs take (each value added into the result by an atomic add), run on the
    default device: contiguous runs per work-item, or strided shares as on GPUs."""
    monkeypatch.setattr(hist, "_uses_atomics", lambda device: True)
    if form == "strided":
        monkeypatch.setattr(hist, "unroll", lambda device: 1)
    for n, hi in ((1, 0), (7, 3), (1000, 2), (100003, 5), (100003, 10**5)):
        h = rng.integers(0, hi, n, endpoint=True).astype(np.int32)
        w = rng.standard_normal(n)
        _counts_same(bincount(_dev(h), minlength=hi + 3), np.bincount(h, minlength=hi + 3))
        _sums_close(bincount(_dev(h)[::-1], _dev(w)[::-1]), h[::-1], w[::-1])
    b = rng.random(5000) < 0.3
    _counts_same(bincount(_dev(b)), np.bincount(b))


def test_strided_views(rng):
    h = rng.integers(0, 50, 3001)
    w = rng.standard_normal(3001)
    x, dw = _dev(h), _dev(w)
    _counts_same(bincount(x[::3]), np.bincount(h[::3]))
    _counts_same(bincount(x[::-1]), np.bincount(h[::-1]))
    _sums_close(bincount(x[::3], dw[::-3]), h[::3], w[::-3])
    h2 = rng.integers(0, 9, (40, 30)).astype(np.int16)
    _counts_same(bincount(_dev(h2)[:, 7]), np.bincount(h2[:, 7]))
    _counts_same(bincount(_dev(h2).T[3]), np.bincount(h2.T[3]))


def test_host_operands(rng):
    """Host data next to a numba_ext operand is copied to its queue; the result takes the USM type
    of the precedence rule."""
    h = rng.integers(0, 20, 500)
    w = rng.random(500)
    _sums_close(bincount(_dev(h), w), h, w)
    _sums_close(bincount(_dev(h), list(w)), h, w)
    _sums_close(bincount(h, _dev(w)), h, w)
    _sums_close(bincount(list(h), _dev(w)), h, w)
    with pytest.warns(MixedUSMTypeWarning):
        shared = bincount(_dev(h, usm_type="shared"), _dev(w, usm_type="host"))
    assert shared.usm_type == "shared"
    assert bincount(_dev(h, usm_type="host")).usm_type == "host"
    assert bincount(_dev(h)).usm_type == "device"
    assert bincount(_dev(h)).sycl_queue == _dev(h).sycl_queue


def test_numpy_api(rng, numpy_functions):
    h = rng.integers(0, 30, 777).astype(np.uint16)
    w = rng.standard_normal(777).astype(np.float32)
    x, dw = _dev(h), _dev(w)
    _counts_same(np.bincount(x), np.bincount(h))
    _counts_same(np.bincount(x, minlength=100), np.bincount(h, minlength=100))
    _sums_close(np.bincount(x, dw), h, w)
    _sums_close(np.bincount(x, weights=dw, minlength=40), h, w, 40)
    _sums_close(np.bincount(list(h), weights=dw), h, w)


# -- bincount: errors ---------------------------------------------------------------------------------
def _same_error(host_f, device_f, host_args, device_args, kwargs=None):
    """`device_f(*device_args, **kwargs)` raises what `host_f(*host_args, **kwargs)` raises: the
    same type and message."""
    kwargs = kwargs or {}
    with pytest.raises(Exception) as expected:
        host_f(*host_args, **kwargs)
    want = expected.value
    with pytest.raises(type(want)) as info:
        device_f(*device_args, **kwargs)
    assert str(info.value) == str(want)


def _on_device(values):
    """NumPy arrays among `values` as numba_ext arrays, other values as they are."""
    return [_dev(v) if isinstance(v, np.ndarray) else v for v in values]


def test_errors(rng, numpy_functions):
    h = rng.integers(0, 10, 50)
    w = rng.random(50)
    cases = [
        (np.array([3, -1, 2]),),
        (np.array([-5], np.int8),),
        (np.zeros((3, 2), int),),
        (np.array(2),),
        (np.array([1.0, 2.0]),),
        (np.array([1.0j]),),
        (h, np.array([1j] * 50)),
        (h, w[:49]),
        (h, w[:, None]),
        (h, np.array(1.0)),
        (h, None, -1),
        (h[:0], None, -1),
        (h, None, None),
        (h, None, 2.0),
        # NumPy's order of checks: the values' sign before the weights
        (np.array([-1, 2]), [1j, 2]),
        (np.array([1, 2]), [1j, 2]),
        (np.array([1, 2]), [1.0, 2, 3]),
    ]
    for host_args in cases:  # (x, weights, minlength), as many as given
        device_args = _on_device(host_args)
        _same_error(np.bincount, bincount, host_args, device_args)
        _same_error(np.bincount, np.bincount, host_args, device_args)
    # the process goes on: the same arrays count afterwards
    x = _dev(h)
    _counts_same(bincount(x), np.bincount(h))
    # nothing to count: no values checked against the weights (NumPy's int64 zeros)
    _counts_same(bincount(x[:0], _dev(np.array([1j])), 4), np.bincount(h[:0], np.array([1j]), 4))


def test_uint64_values(rng):
    """uint64 values as this NumPy takes them: counted (values past the int64 range are negative)
    or refused with its TypeError."""
    h = rng.integers(0, 40, 100).astype(np.uint64)
    if hist._uint64_values():
        _counts_same(bincount(_dev(h)), np.bincount(h))
        big = np.array([1, 2**63], np.uint64)
        _same_error(np.bincount, bincount, [big], [_dev(big)])
    else:
        _same_error(np.bincount, bincount, [h], [_dev(h)])


def test_host_only_is_refused():
    with pytest.raises(nx.ExecutionPlacementError):
        bincount([1, 2, 3])


# -- partition / argpartition -------------------------------------------------------------------------
def _partitioned(a, r, kths, axis):
    """`r` holds `a`'s elements along `axis` partitioned at every index of `kths` (NaN sorted
    last)."""
    assert r.shape == a.shape and r.dtype == a.dtype
    s = np.moveaxis(np.sort(a, axis=axis), axis, -1).reshape(-1, a.shape[axis])
    rr = np.moveaxis(r, axis, -1).reshape(-1, a.shape[axis])
    np.testing.assert_array_equal(np.sort(rr, axis=-1), s)  # the same elements in each line
    for k in kths:
        k %= a.shape[axis]
        pivot = s[:, k]
        np.testing.assert_array_equal(rr[:, k], pivot)
        nan = pivot != pivot
        before, after = rr[:, :k], rr[:, k + 1 :]
        with np.errstate(invalid="ignore"):
            assert (nan[:, None] | (before <= pivot[:, None])).all()
            assert (nan[:, None] | (after >= pivot[:, None]) | (after != after)).all()
        assert (~nan[:, None] | (after != after)).all()


def _select_data(rng, dtype, shape):
    dt = np.dtype(dtype)
    n = int(np.prod(shape))
    if dt == np.bool_:
        h = rng.random(n) < 0.5
    elif dt.kind == "f":
        h = rng.integers(0, 8, n).astype(dt) + (rng.random(n) < 0.5) * rng.standard_normal(n).astype(dt)
        h[rng.random(n) < 0.05] = np.nan
    else:
        h = rng.integers(0, 10, n).astype(dt)
    return h.reshape(shape)


def _check_both(a, x, kth, axis):
    kths = np.atleast_1d(kth).tolist()
    r = nx.asnumpy(partition(x, kth, axis))
    host = a if axis is not None else a.reshape(-1)
    ax = 0 if axis is None else axis % a.ndim
    _partitioned(host, r, kths, ax)
    idx = nx.asnumpy(argpartition(x, kth, axis))
    assert idx.dtype == np.int64 and idx.shape == host.shape
    n = host.shape[ax]
    positions = np.arange(n).reshape([-1 if d == ax else 1 for d in range(host.ndim)])
    np.testing.assert_array_equal(np.sort(idx, axis=ax), np.broadcast_to(positions, host.shape))
    _partitioned(host, np.take_along_axis(host, idx, ax), kths, ax)


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint32", "int64", "float32", "float64"])
@pytest.mark.parametrize("n", [1, 7, 1000, 100003])
def test_partition_1d(rng, dtype, n):
    a = _select_data(rng, dtype, (n,))
    x = _dev(a)
    for kth in {0, n - 1, n // 2, -1, -n}:
        _check_both(a, x, kth, -1)
    _check_both(a, x, sorted({0, n // 3, n // 2, n - 1}), 0)
    _check_both(a, x, np.array([n - 1, 0]), None)


@pytest.mark.parametrize("shape", [(13, 17), (4, 5, 6), (3, 1, 8)])
def test_partition_axes(rng, shape):
    a = _select_data(rng, "float64", shape)
    x = _dev(a)
    for axis in range(-len(shape), len(shape)):
        m = shape[axis]
        _check_both(a, x, m // 2, axis)
        _check_both(a, x, [0, -1], axis)
    _check_both(a, x, [1, 5], None)


def test_partition_strided(rng):
    a = _select_data(rng, "int32", (30, 41))
    x = _dev(a)
    _check_both(a[::2, 3:], x[::2, 3:], 4, 1)
    _check_both(a.T, x.T, [2, -3], 0)
    _check_both(a[::-3], x[::-3], 5, 0)
    _check_both(a[:, ::-5], x[:, ::-5], [0, 1, 8], -1)
    _check_both(a[::2, ::-3], x[::2, ::-3], [0, 7, -1], None)


def test_partition_empty_and_scalar(rng):
    for shape, axis in (((0,), -1), ((2, 0), -1), ((0, 3), 0), ((0, 3), 1)):
        a = np.zeros(shape)
        got = partition(_dev(a), 5, axis)
        assert got.shape == np.partition(a, 5, axis).shape
        assert argpartition(_dev(a), 5, axis).shape == np.argpartition(a, 5, axis).shape
    s = _dev(np.array(5.0))
    np.testing.assert_array_equal(nx.asnumpy(argpartition(s, 0)), np.argpartition(np.array(5.0), 0))
    np.testing.assert_array_equal(nx.asnumpy(partition(s, 0, None)), np.partition(np.array(5.0), 0, None))
    np.testing.assert_array_equal(
        nx.asnumpy(argpartition(s, 0, None)), np.argpartition(np.array(5.0), 0, None)
    )


def test_partition_errors(rng, numpy_functions):
    a = rng.standard_normal(10)
    x = _dev(a)
    for name in ("partition", "argpartition"):
        f, mine = getattr(np, name), getattr(hist, name)
        for kth in (10, -11, [1, 10], [1, -11], True, 1.0, np.array([[1]]), "1", None, []):
            _same_error(f, mine, [a, kth], [x, kth])
            _same_error(f, f, [a, kth], [x, kth])
        _same_error(f, f, [a, 2], [x, 2], {"kind": "quicksort"})
        _same_error(f, f, [a, 2], [x, 2], {"axis": 1})
        _same_error(f, f, [a, 20], [x, 20], {"axis": None})
        with pytest.raises(UnsupportedError):
            f(x, 2, order="f0")
    scalar = np.array(5.0)
    _same_error(np.partition, np.partition, [scalar, 0], [_dev(scalar), 0])
    _same_error(np.argpartition, np.argpartition, [scalar, 1], [_dev(scalar), 1])
    # the process goes on
    _check_both(a, x, 3, -1)


def test_partition_numpy_api(rng, numpy_functions):
    a = _select_data(rng, "float32", (9, 12))
    x = _dev(a)
    r = np.partition(x, [2, -2], axis=0)
    assert isinstance(r, nx.ndarray)
    _partitioned(a, nx.asnumpy(r), [2, -2], 0)
    idx = np.argpartition(x, 3)
    assert isinstance(idx, nx.ndarray)
    _partitioned(a, np.take_along_axis(a, nx.asnumpy(idx), -1), [3], 1)
    _partitioned(a.reshape(-1), nx.asnumpy(np.partition(x, 50, axis=None)), [50], 0)
