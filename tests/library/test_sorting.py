"""Sorting on the device (``numba_ext.library.sorting``: sort, argsort, searchsorted and NumPy's
np.sort / np.argsort / np.searchsorted), against NumPy on fresh random inputs: every real and bool
dtype, sizes around the run and pass boundaries, many equal keys (stability, ascending and
descending), NaN, infinities and signed zeros, n-d arrays along every axis, strided views, and the
errors NumPy raises."""

import numpy as np
import pytest

import numba_ext as nx
from numba_ext import Context, Device, ExecutionPlacementError, Queue
from numba_ext.errors import UnsupportedError
from numba_ext.library import functions, sorting
from numba_ext.library.sorting import SORTING_FUNCTIONS, argsort, searchsorted, sort

from ..checks import INTS, rand
from ..conftest import DEV

DTYPES = ["bool", *INTS, "float32", "float64"]
SIZES = [0, 1, 2, 3, 5, 16, 17, 33, 1000, 4097, 2**16 + 3]


def _dev(h, **kw):
    return nx.asarray(h, device=DEV, **kw)


def _specials(rng, h):
    """`h` (float) with NaN, infinities and signed zeros at random places."""
    h = h.copy()
    if h.size:
        for value in (np.nan, np.inf, -np.inf, 0.0, -0.0):
            h[rng.random(h.shape) < 0.05] = value
    return h


def _data(rng, dtype, shape, duplicates=False):
    """Random values of `dtype`: full-range (floats ~ N(0, 3) with specials), or with `duplicates`
    a handful of distinct values (many equal keys)."""
    dt = np.dtype(dtype)
    n = int(np.prod(shape))
    if duplicates and dt != np.bool_:
        h = rng.integers(0, 6, n).astype(dt)
        if dt.kind == "f":
            h[rng.random(n) < 0.1] = np.nan
    else:
        h = rand(rng, dt, n)
    if dt.kind == "f":
        h = _specials(rng, h)
    return h.reshape(shape)


def _ranks(h):
    """The dense ascending rank of each element among all of `h`'s: equal elements (NaNs together,
    -0.0 with 0.0) share one rank, NaN's the highest."""
    flat = h.reshape(-1)
    u = np.unique(flat)  # sorted, NaNs collapsed into one at the end, -0.0 and 0.0 one value
    return np.searchsorted(u, flat).reshape(h.shape)


def _ref_argsort(h, axis, descending):
    """NumPy's stable argsort; descending: by the ranks reversed, equal elements in their order."""
    if not descending:
        return np.argsort(h, axis=axis, kind="stable")
    return np.argsort(-_ranks(h), axis=axis, kind="stable")


def _same(got, want, what=""):
    """Equal arrays, element by element (NaN equal to NaN, the sign of zero compared too)."""
    got = nx.asnumpy(got) if isinstance(got, nx.ndarray) else got
    assert got.shape == want.shape and got.dtype == want.dtype, (what, got.shape, want.shape, got.dtype)
    if want.dtype.kind == "f":
        bits = f"u{want.dtype.itemsize}"
        # NaN payloads aside, the same bits (signed zeros in their stable places)
        both_nan = np.isnan(got) & np.isnan(want)
        same = (got.view(bits) == want.view(bits)) | both_nan
        assert same.all(), (what, np.flatnonzero(~same)[:10], got[~same][:10], want[~same][:10])
    else:
        np.testing.assert_array_equal(got, want, err_msg=str(what))


def _check_sorts(h, x, axis):
    for descending in (False, True):
        order = _ref_argsort(h, axis, descending)
        _same(argsort(x, axis, descending=descending), order, ("argsort", axis, descending))
        _same(
            sort(x, axis, descending=descending),
            np.take_along_axis(h, order, axis),
            ("sort", axis, descending),
        )


# -- sort and argsort ------------------------------------------------------------------------------
@pytest.mark.parametrize("n", SIZES)
def test_sizes_float64_with_specials(rng, n):
    h = _data(rng, "float64", (n,))
    x = _dev(h)
    _check_sorts(h, x, -1)
    _same(sort(x), np.sort(h, kind="stable"))
    _same(argsort(x), np.argsort(h, kind="stable"))


@pytest.mark.parametrize("n", [2, 5, 33, 1000, 4097, 2**16 + 3])
def test_sizes_many_equal_keys(rng, n):
    h = _data(rng, "int32", (n,), duplicates=True)
    x = _dev(h)
    _check_sorts(h, x, 0)
    # descending stable: for integers without overflow, the stable argsort of the negation
    _same(argsort(x, descending=True), np.argsort(-h.astype(np.int64), kind="stable"))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("duplicates", [False, True])
def test_every_dtype(rng, dtype, duplicates):
    h = _data(rng, dtype, (1237,), duplicates)
    x = _dev(h)
    _check_sorts(h, x, 0)
    got = sort(x)
    assert got.dtype == h.dtype and argsort(x).dtype == np.int64


@pytest.mark.parametrize("dtype", ["float32", "uint64", "int8"])
def test_large_rows(rng, dtype):
    h = _data(rng, dtype, (2**16 + 3,))
    _check_sorts(h, _dev(h), 0)


@pytest.mark.parametrize("path", [False, True])
def test_both_merge_forms(rng, monkeypatch, path):
    """The merge by rank (GPUs) and along the merge path (CPUs), whichever the default device takes."""
    monkeypatch.setattr(sorting, "merge_by_path", lambda device: path)
    for shape in [(1,), (33,), (3, 1000), (4097,), (5, 7, 70)]:
        for dtype in ("float64", "int8", "bool"):
            h = _data(rng, dtype, shape, duplicates=dtype != "float64")
            x = _dev(h)
            for axis in range(len(shape)):
                _check_sorts(h, x, axis)


def test_float_specials_order(rng):
    h = np.array([np.nan, 1.0, -0.0, np.inf, 0.0, -np.inf, np.nan, -1.0, 0.0, -0.0])
    x = _dev(h)
    _same(sort(x), np.sort(h, kind="stable"))
    _same(argsort(x), np.argsort(h, kind="stable"))
    # descending: NaN first (the ordering reversed), equal zeros in their original order
    _same(argsort(x, descending=True), np.array([0, 6, 3, 1, 2, 4, 8, 9, 7, 5]))


@pytest.mark.parametrize("shape", [(7, 45), (45, 7), (3, 1, 40), (4, 33, 5), (0, 5), (5, 0), (2, 3, 0)])
def test_nd_along_every_axis(rng, shape):
    for dtype in ("float64", "int16"):
        h = _data(rng, dtype, shape, duplicates=dtype == "int16")
        x = _dev(h)
        for axis in range(-len(shape), len(shape)):
            _check_sorts(h, x, axis)


def test_strided_views(rng):
    h = _data(rng, "float32", (40, 31))
    x = _dev(h)
    views = [
        (x[::2], h[::2]),
        (x.T, h.T),
        (x[:, ::-3], h[:, ::-3]),
        (x[5], h[5]),
        (x[::-1, 3], h[::-1, 3]),
        (x[1:30:3, 2:].T, h[1:30:3, 2:].T),
    ]
    for v, hv in views:
        for axis in range(hv.ndim):
            _check_sorts(hv, v, axis)
    h3 = _data(rng, "int64", (6, 20, 9), duplicates=True)
    x3 = _dev(h3)
    t, ht = np.moveaxis(x3, 0, 2)[:, ::2], np.moveaxis(h3, 0, 2)[:, ::2]
    for axis in range(3):
        _check_sorts(ht, t, axis)


def test_result_layout_queue_and_usm_type(rng):
    h = _data(rng, "float64", (5, 8))
    for usm in ("device", "shared", "host"):
        x = _dev(h, usm_type=usm)
        for f in (sort, argsort):
            got = f(x.T, 1)
            assert got.usm_type == usm and got.sycl_queue == x.sycl_queue
            assert got.shape == (8, 5) and got.flags.c_contiguous
    # the input is left as it was
    x = _dev(h)
    sort(x, 0)
    _same(x, h)


@pytest.mark.needs_fp16
def test_float16(rng):
    h = _data(rng, "float16", (300,))
    _check_sorts(h, _dev(h), 0)


def test_sort_errors(rng):
    x = _dev(rng.standard_normal((3, 4)))
    with pytest.raises(np.exceptions.AxisError):
        sort(x, 2)
    with pytest.raises(np.exceptions.AxisError):
        argsort(x, -3)
    with pytest.raises(np.exceptions.AxisError):
        sort(_dev(np.array(1.0)))
    with pytest.raises(TypeError):
        sort(np.ones(3))


@pytest.mark.parametrize("cdt", ["complex64", "complex128"])
@pytest.mark.parametrize("descending", [False, True])
def test_complex_values_sort_in_numpys_order(rng, cdt, descending):
    """By real part, then imaginary part; NaN parts last: [R + Rj, R + nanj, nan + Rj, nan + nanj]."""
    h = (rng.integers(-3, 3, 500) + 1j * rng.integers(-3, 3, 500)).astype(cdt)
    for i, special in zip(
        rng.choice(500, 40, replace=False), [np.nan, complex(np.nan, 1), complex(1, np.nan)] * 14
    ):
        h[i] = special
    want = np.argsort(h, kind="stable")
    if descending:  # equal keys keep their order; NaNs (of any part) first
        want = np.argsort(-_complex_ranks(h), kind="stable")
    order = argsort(_dev(h), descending=descending)
    np.testing.assert_array_equal(nx.asnumpy(order), want)
    np.testing.assert_array_equal(nx.asnumpy(sort(_dev(h), descending=descending)), h[want])
    a = np.sort(h)
    for side in ("left", "right"):
        _same(searchsorted(_dev(a), _dev(h[:50]), side), np.searchsorted(a, h[:50], side))


def _complex_ranks(h):
    """Dense ranks of complex values in NumPy's order: equal values (NaN parts in the same places, the
    other parts equal) share one rank."""
    order = np.argsort(h, kind="stable")
    ranks = np.empty(h.size, np.int64)
    s = h[order]
    same = np.concatenate([[False], _same_nan(s)])
    ranks[order] = np.cumsum(~same) - 1
    return ranks


def _same_nan(s):
    """Neighbours whose NaN parts sit in the same places and whose other parts are equal."""
    re_nan, im_nan = np.isnan(s.real), np.isnan(s.imag)
    same_re = (s.real[1:] == s.real[:-1]) | (re_nan[1:] & re_nan[:-1])
    same_im = (s.imag[1:] == s.imag[:-1]) | (im_nan[1:] & im_nan[:-1])
    return same_re & same_im


# -- searchsorted -----------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_searchsorted_every_dtype(rng, dtype):
    a = np.sort(_data(rng, dtype, (301,), duplicates=True))
    v = _data(rng, dtype, (7, 11), duplicates=True)
    for side in ("left", "right"):
        _same(searchsorted(_dev(a), _dev(v), side), np.searchsorted(a, v, side), side)


@pytest.mark.parametrize("n", [0, 1, 2, 5, 1000])
def test_searchsorted_sizes_and_nan(rng, n):
    a = np.sort(_data(rng, "float64", (n,)))
    v = _specials(rng, np.concatenate([rng.standard_normal(50) * 3, a[: n // 2]]))
    v = np.concatenate([v, [np.nan, np.inf, -np.inf, 0.0, -0.0]])
    for side in ("left", "right"):
        _same(searchsorted(_dev(a), _dev(v), side), np.searchsorted(a, v, side))
        _same(searchsorted(_dev(a), _dev(v[::-3]), side), np.searchsorted(a, v[::-3], side))
    _same(searchsorted(_dev(a), _dev(v[:0])), np.searchsorted(a, v[:0]))


def test_searchsorted_sorter(rng):
    h = _data(rng, "float32", (500,), duplicates=True)
    s = np.argsort(h, kind="stable")
    v = _data(rng, "float32", (3, 40), duplicates=True)
    for sdt in ("int64", "int32", "uint16"):
        for side in ("left", "right"):
            got = searchsorted(_dev(h), _dev(v), side, sorter=_dev(s.astype(sdt)))
            _same(got, np.searchsorted(h, v, side, sorter=s))
    # the sorter argsort computes on the device, and a strided sorted array
    got = searchsorted(_dev(h)[::2], _dev(v), "right", sorter=argsort(_dev(h)[::2]))
    _same(got, np.searchsorted(h[::2], v, "right", sorter=np.argsort(h[::2], kind="stable")))


def test_searchsorted_scalars_and_promotion(rng):
    a = np.array([1, 2, 2, 3, 7], np.uint8)
    x = _dev(a)
    for v in (2, 2.5, 300, -1, True, np.int8(2), np.float32(6.5), np.uint64(3)):
        for side in ("left", "right"):
            got = searchsorted(x, v, side)
            assert got.shape == () and got.dtype == np.int64
            assert int(got) == np.searchsorted(a, v, side), (v, side)
    f = np.array([1, 2, 3], np.float32)
    assert int(searchsorted(_dev(f), 2.0000001)) == np.searchsorted(f, 2.0000001)
    # a 0-d needle array
    got = searchsorted(_dev(np.array([0.5, 1.5, np.nan])), _dev(np.array(np.nan)), "left")
    assert got.shape == () and int(got) == 2
    # integers against floats (the common dtype) and unsigned against signed
    i = np.sort(rng.integers(-50, 50, 80))
    fv = rng.standard_normal(30) * 40
    _same(searchsorted(_dev(i), _dev(fv)), np.searchsorted(i, fv))
    u = np.sort(rng.integers(0, 2**63, 40, dtype=np.uint64))
    sv = rng.integers(-(2**62), 2**62, 20)
    _same(searchsorted(_dev(u), _dev(sv), "right"), np.searchsorted(u, sv, "right"))


def test_searchsorted_errors(rng):
    a = _dev(np.arange(5.0))
    with pytest.raises(ValueError, match="search side"):
        searchsorted(a, 1.0, "middle")
    with pytest.raises(ValueError, match="too deep"):
        searchsorted(_dev(np.ones((2, 2))), 1.0)
    with pytest.raises(ValueError, match="sorter.size"):
        searchsorted(a, 1.0, sorter=_dev(np.arange(4)))
    with pytest.raises(TypeError, match="integers"):
        searchsorted(a, 1.0, sorter=_dev(np.arange(5.0)))
    with pytest.raises(ValueError, match="Sorter index out of range"):
        searchsorted(a, _dev(np.arange(5.0)), sorter=_dev(np.array([0, 1, 9, 3, 4])))
    with pytest.raises(ExecutionPlacementError):
        searchsorted(a, np.ones(3))
    with pytest.raises(ExecutionPlacementError):
        searchsorted(np.ones(3), _dev(np.ones(3)))


def test_searchsorted_queues(rng):
    d = Device(DEV)
    q1, q2 = Queue(d), Queue(d, context=Context(d))
    a = nx.asarray(np.arange(10.0), sycl_queue=q1)
    v = nx.asarray(np.array([2.5, 7.0]), sycl_queue=q2)
    with pytest.raises(ExecutionPlacementError):
        searchsorted(a, v)
    q3 = Queue(d)  # equivalent to q1: the first argument's queue
    got = searchsorted(a, nx.asarray(np.array([2.5, 7.0]), sycl_queue=q3), "right")
    assert got.sycl_queue == q1
    _same(got, np.array([3, 8]))


# -- through NumPy's functions (__array_function__) -------------------------------------------------
@pytest.fixture
def numpy_functions(monkeypatch):
    """np.sort, np.argsort and np.searchsorted answered by the sorting functions (a no-op once the
    library's table holds them)."""
    for f, impl in SORTING_FUNCTIONS.items():
        if functions.ARRAY_FUNCTIONS.get(f) is not impl:
            monkeypatch.setitem(functions.ARRAY_FUNCTIONS, f, impl)


def test_numpy_api(rng, numpy_functions):
    h = _data(rng, "float64", (6, 50))
    x = _dev(h)
    for axis in (-1, 0, 1, None):
        _same(np.sort(x, axis=axis), np.sort(h, axis=axis, kind="stable"), axis)
        _same(np.argsort(x, axis=axis), np.argsort(h, axis=axis, kind="stable"), axis)
    _same(np.sort(x, kind="quicksort"), np.sort(h, kind="stable"))
    _same(np.argsort(x.T, 0, stable=False), np.argsort(h.T, 0, kind="stable"))
    _same(np.sort(x.T, axis=None), np.sort(h.T, axis=None, kind="stable"))
    _same(np.argsort(_dev(np.array(3.0))), np.argsort(np.array(3.0)))
    a = np.sort(h[0])
    _same(np.searchsorted(_dev(a), x, side="right"), np.searchsorted(a, h, side="right"))
    s = np.argsort(h[1], kind="stable")
    _same(np.searchsorted(_dev(h[1]), x[2], sorter=_dev(s)), np.searchsorted(h[1], h[2], sorter=s))
    with pytest.raises(UnsupportedError, match="order"):
        np.sort(x, order="f")
    with pytest.raises(ValueError, match="sort kind"):
        np.sort(x, kind="bogus")
    with pytest.raises(ValueError):
        np.argsort(x, kind="stable", stable=True)
    with pytest.raises(np.exceptions.AxisError):
        np.sort(_dev(np.array(1.0)))
