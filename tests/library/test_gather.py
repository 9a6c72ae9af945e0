"""Gathering and compaction on the device (``library.gather``): np.take, np.take_along_axis,
np.nonzero, np.flatnonzero, np.argwhere, boolean masks, np.extract, np.compress and np.repeat
against NumPy on fresh random inputs, for every dtype, sizes around the kernels' block
boundaries, every axis of 1- to 3-d arrays, strided views, negative and out-of-range indices, and
the results' queue and USM type. The functions are called directly and through NumPy's functions
(``__array_function__``)."""

import numpy as np
import pytest

import numba_ext as nx
from numba_ext.errors import MixedUSMTypeWarning, UnsupportedError
from numba_ext.library import gather as g

from ..conftest import DEV

DTYPES = [
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    pytest.param("float16", marks=pytest.mark.needs_fp16),
    "float32",
    "float64",
    "complex64",
    "complex128",
]
SIZES = [0, 1, 7, 1000, 4097]
INDEX_DTYPES = ["int8", "uint16", "int32", "int64", "uint64"]


def _values(rng, dtype, shape, zeros=0.3):
    """Random values of `dtype` with about a fraction `zeros` of them zero (negative zeros among
    float zeros)."""
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.random(shape) >= zeros
    if dt.kind == "c":
        h = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)
        h[rng.random(shape) < zeros / 2] = 0
        h.real[rng.random(shape) < zeros / 2] = 0  # zero real parts, nonzero imaginary ones
    elif dt.kind == "f":
        h = (rng.standard_normal(shape) * 3).astype(dt)
        h[rng.random(shape) < zeros] = dt.type(-0.0)
        h[rng.random(shape) < zeros / 2] = 0
    else:
        info = np.iinfo(dt)
        h = rng.integers(info.min, info.max, shape, dtype=dt, endpoint=True)
        h[rng.random(shape) < zeros] = 0
    return np.asarray(h)


def _pair(rng, dtype, shape, **kw):
    h = _values(rng, dtype, shape, **kw)
    return h, nx.asarray(h, device=DEV)


def _same(got, want):
    assert isinstance(got, nx.ndarray)
    host = nx.asnumpy(got)
    assert host.dtype == want.dtype and host.shape == want.shape, (
        host.dtype,
        host.shape,
        want.dtype,
        want.shape,
    )
    np.testing.assert_array_equal(host, want)


def _same_bits(got, want):
    """Equal values and, for floats, equal bits (gathers copy elements as they are)."""
    _same(got, want)
    if want.dtype.kind in "fc" and want.size:
        host = np.ascontiguousarray(nx.asnumpy(got))
        assert host.tobytes() == np.ascontiguousarray(want).tobytes()


# -- np.take --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_take_every_dtype_and_size(rng, dtype):
    for n in SIZES:
        h, x = _pair(rng, dtype, n)
        for m in (0, 1, 5, 3000):
            idx = rng.integers(-n, n, m) if n else np.zeros(0, np.int64)
            if n == 0 and m:
                continue
            _same_bits(g.take(x, nx.asarray(idx)), np.take(h, idx))
            _same_bits(g.take(x, idx, axis=0), np.take(h, idx, axis=0))  # host indices
    h, x = _pair(rng, dtype, (6, 7))
    idx = rng.integers(-42, 42, (3, 4))
    _same_bits(g.take(x, nx.asarray(idx)), np.take(h, idx))  # flattened


@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_take_along_every_axis(rng, ndim):
    shape = (5, 4, 6)[:ndim]
    h, x = _pair(rng, "float64", shape)
    for axis in range(-ndim, ndim):
        n = shape[axis]
        for ishape in [(), (1,), (3,), (2, 3), (2, 1, 3)]:
            for idt in INDEX_DTYPES:
                lo = 0 if np.dtype(idt).kind == "u" else -n
                idx = rng.integers(lo, n, ishape).astype(idt)
                _same_bits(g.take(x, nx.asarray(idx), axis=axis), np.take(h, idx, axis=axis))
            for mode in ("wrap", "clip"):
                idx = rng.integers(-3 * n, 3 * n, ishape)
                _same_bits(g.take(x, nx.asarray(idx), axis, mode=mode), np.take(h, idx, axis, mode=mode))
    # Python ints and lists, bool indices
    _same(g.take(x, 3), np.take(h, 3))
    _same(g.take(x, -1, axis=0), np.take(h, -1, axis=0))
    _same(g.take(x, [[0, -2], [1, 1]], axis=ndim - 1), np.take(h, [[0, -2], [1, 1]], axis=ndim - 1))
    b = np.array([True, False, True])
    _same(g.take(x, nx.asarray(b), axis=0), np.take(h, b, axis=0))


def test_take_from_and_by_strided_views(rng):
    h, x = _pair(rng, "complex128", (9, 8, 5))
    idx_h = rng.integers(-8, 8, (4, 6))
    idx = nx.asarray(idx_h)
    views = [
        (h[::2], x[::2]),
        (h.T, x.T),
        (h[:, ::-3, 1:], x[:, ::-3, 1:]),
        (h[3], x[3]),
        (h[:, 2], x[:, 2]),
        (np.swapaxes(h, 0, 1), np.swapaxes(x, 0, 1)),
    ]
    for hv, xv in views:
        for axis in [None, *range(hv.ndim)]:
            size = hv.size if axis is None else hv.shape[axis]
            ih, iv = idx_h[::-1, ::2] % size, idx[::-1, ::2] % size  # indices through a view too
            _same_bits(g.take(xv, nx.asarray(ih)), np.take(hv, ih))
            _same_bits(g.take(xv, iv, axis=axis), np.take(hv, ih, axis=axis))
            _same_bits(g.take(xv, iv.T, axis=axis, mode="wrap"), np.take(hv, ih.T, axis=axis, mode="wrap"))


def test_take_of_zero_d_and_empty(rng):
    h, x = np.array(2.5), nx.asarray(np.array(2.5))
    _same(g.take(x, 0), np.take(h, 0))
    _same(g.take(x, [0, -1, 0]), np.take(h, [0, -1, 0]))
    _same(g.take(x, [0, 0], axis=0), np.take(h, [0, 0], axis=0))
    e, ex = np.zeros((3, 0)), nx.asarray(np.zeros((3, 0)))
    _same(g.take(ex, nx.asarray(np.zeros(0, np.int64)), axis=1), np.take(e, np.zeros(0, np.int64), axis=1))
    _same(g.take(ex, [1, 2], axis=0), np.take(e, [1, 2], axis=0))
    for mode in ("raise", "wrap", "clip"):
        with pytest.raises(IndexError, match="non-empty take from an empty axes"):
            np.take(e, [0], axis=1, mode=mode)
        with pytest.raises(IndexError, match="non-empty take from an empty axes"):
            g.take(ex, [0], axis=1, mode=mode)


def test_take_out_of_range_raises_and_changes_nothing(rng):
    h, x = _pair(rng, "int32", (6, 5))
    before = nx.asnumpy(x).copy()
    cases = [
        (rng.integers(0, 5, 4000).tolist() + [5], 1),
        ([0, -6, 1], 1),
        ([[1, 2], [7, -99]], 0),
        ([30], None),
        (-31, None),
        ([2**40], 0),
    ]
    for idx, axis in cases:
        with pytest.raises(IndexError) as want:
            np.take(h, idx, axis=axis)
        with pytest.raises(IndexError) as got:
            g.take(x, nx.asarray(np.asarray(idx)), axis=axis)
        assert str(got.value) == str(want.value)
        with pytest.raises(IndexError, match="out of bounds"):
            g.take(x, idx, axis=axis)
    np.testing.assert_array_equal(nx.asnumpy(x), before)
    _same(g.take(x, [1, -1], axis=1), np.take(h, [1, -1], axis=1))  # the process goes on


def test_take_bad_arguments(rng):
    h, x = _pair(rng, "float32", (4, 3))
    with pytest.raises(ValueError, match="clipmode"):
        g.take(x, [0], mode="bad")
    with pytest.raises(TypeError, match="same_kind"):
        g.take(x, nx.asarray(np.array([1.0])))
    with pytest.raises(TypeError, match="same_kind"):
        g.take(x, np.array([1.0]))
    with pytest.raises(np.exceptions.AxisError):
        g.take(x, [0], axis=2)
    with pytest.raises(UnsupportedError, match="take"):
        g.GATHER_FUNCTIONS[np.take](x, [0], out=nx.empty(1, dtype=np.float32))
    with pytest.raises(UnsupportedError, match="compress"):
        g.GATHER_FUNCTIONS[np.compress]([True], x, out=nx.empty(1, dtype=np.float32))
    _same(g.take(x, [1.0, 2.0]), np.take(h, [1.0, 2.0]))  # lists are cast, as NumPy's


def test_results_follow_the_queue_and_usm_precedence(rng):
    h = rng.standard_normal((5, 4))
    x = nx.asarray(h, usm_type="shared")
    out = g.take(x, [1, 2], axis=0)
    assert out.usm_type == "shared" and out.sycl_queue == x.sycl_queue
    with pytest.warns(MixedUSMTypeWarning):
        out = g.take(x, nx.asarray(np.array([0, 3]), usm_type="device"), axis=1)
    assert out.usm_type == "device"
    _same(out, np.take(h, [0, 3], axis=1))
    assert g.compress_mask(x, h > 0).usm_type == "shared"
    assert g.nonzero(x)[0].usm_type == "shared"
    assert g.repeat(x, 2).usm_type == "shared"
    h_host = nx.asarray(h, usm_type="host")
    assert g.take_along_axis(h_host, np.zeros((5, 1), np.int64), 1).usm_type == "host"


# -- np.take_along_axis -----------------------------------------------------------------------------------
@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_take_along_axis_every_axis(rng, ndim):
    shape = (4, 5, 3)[:ndim]
    for dtype in ("uint8", "float32", "complex128"):
        h, x = _pair(rng, dtype, shape)
        for axis in range(-ndim, ndim):
            n = shape[axis]
            for k in (0, 1, n, 7):
                ishape = list(shape)
                ishape[axis] = k
                idx = rng.integers(-n, n, ishape)
                _same_bits(g.take_along_axis(x, nx.asarray(idx), axis), np.take_along_axis(h, idx, axis))
                # broadcast in the other dimensions, both ways
                ib = idx[tuple(slice(0, 1) if d != axis % ndim else slice(None) for d in range(ndim))]
                _same_bits(g.take_along_axis(x, nx.asarray(ib), axis), np.take_along_axis(h, ib, axis))
            hb = h[tuple(slice(0, 1) if d != axis % ndim else slice(None) for d in range(ndim))]
            xb = x[tuple(slice(0, 1) if d != axis % ndim else slice(None) for d in range(ndim))]
            idx = rng.integers(-n, n, shape)
            _same_bits(g.take_along_axis(xb, nx.asarray(idx), axis), np.take_along_axis(hb, idx, axis))
        flat_idx = rng.integers(-h.size, h.size, 11)
        _same_bits(g.take_along_axis(x, nx.asarray(flat_idx), None), np.take_along_axis(h, flat_idx, None))
        # strided views
        if ndim >= 2:
            hv, xv = h.T[::-1], x.T[::-1]
            idx = rng.integers(0, hv.shape[0], (2, *hv.shape[1:]))
            _same_bits(g.take_along_axis(xv, nx.asarray(idx)[:, ...], 0), np.take_along_axis(hv, idx, 0))
            _same_bits(g.take_along_axis(xv, nx.asarray(idx.T).T, 0), np.take_along_axis(hv, idx, 0))


def test_take_along_axis_sorted_order(rng):
    h, x = _pair(rng, "float64", (6, 50))
    order = np.argsort(h, axis=1)
    _same(g.take_along_axis(x, nx.asarray(order), axis=1), np.sort(h, axis=1))


def test_take_along_axis_errors(rng):
    h, x = _pair(rng, "int64", (3, 5))
    for idx, axis in [(np.array([[1, 9, -9]]).T, 1), (np.array([[0, 5]]), 1), (np.array([[-4]]), 0)]:
        with pytest.raises(IndexError) as want:
            np.take_along_axis(h, idx, axis)
        with pytest.raises(IndexError) as got:
            g.take_along_axis(x, nx.asarray(idx), axis)
        assert str(got.value) == str(want.value)
    with pytest.raises(IndexError, match="integer array"):
        g.take_along_axis(x, nx.asarray(np.zeros((3, 1))), 1)
    with pytest.raises(ValueError, match="same number of dimensions"):
        g.take_along_axis(x, nx.asarray(np.zeros(3, np.int64)), 1)
    with pytest.raises(ValueError, match="single dimension"):
        g.take_along_axis(x, nx.asarray(np.zeros((3, 1), np.int64)), None)
    with pytest.raises(IndexError, match="shape mismatch"):
        g.take_along_axis(x, nx.asarray(np.zeros((2, 1), np.int64)), 1)
    e = nx.asarray(np.zeros((2, 0)))
    with pytest.raises(IndexError, match="out of bounds for axis 1 with size 0"):
        g.take_along_axis(e, nx.asarray(np.zeros((2, 1), np.int64)), 1)
    _same(g.take_along_axis(x, nx.asarray(np.zeros((3, 1), np.int64)), 1), h[:, :1])


# -- np.nonzero, np.flatnonzero, np.argwhere --------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_nonzero_every_dtype_and_size(rng, dtype):
    for n in SIZES:
        for zeros in (0.0, 0.5, 1.0):
            h, x = _pair(rng, dtype, n, zeros=zeros)
            got = g.nonzero(x)
            assert isinstance(got, tuple) and len(got) == 1
            _same(got[0], np.nonzero(h)[0])
            _same(g.flatnonzero(x), np.flatnonzero(h))
            _same(g.argwhere(x), np.argwhere(h))
    h, x = _pair(rng, dtype, (13, 9, 4))
    for got, want in zip(g.nonzero(x), np.nonzero(h)):
        _same(got, want)


@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_nonzero_of_views_and_shapes(rng, ndim):
    shape = (17, 6, 5)[:ndim]
    h, x = _pair(rng, "float32", shape, zeros=0.6)
    views = [(h, x), (h.T, x.T), (h[::2], x[::2]), (h[::-1], x[::-1])]
    if ndim >= 2:
        views += [(h[:, ::-2], x[:, ::-2]), (h[1:, 1:], x[1:, 1:]), (h[:, 0], x[:, 0])]
    for hv, xv in views:
        want = np.nonzero(hv)
        got = g.nonzero(xv)
        assert len(got) == len(want)
        for a, b in zip(got, want):
            _same(a, b)
        _same(g.flatnonzero(xv), np.flatnonzero(hv))
        _same(g.argwhere(xv), np.argwhere(hv))
    for shape in [(0, 3), (3, 0, 2), (1, 1, 1)]:
        z = np.zeros(shape)
        for got, want in zip(g.nonzero(nx.asarray(z)), np.nonzero(z)):
            _same(got, want)
        _same(g.argwhere(nx.asarray(z + 1)), np.argwhere(z + 1))


def test_nonzero_of_zero_d_and_special_values():
    with pytest.raises(ValueError) as want:
        np.nonzero(np.array(1.0))
    with pytest.raises(ValueError) as got:
        g.nonzero(nx.asarray(np.array(1.0)))
    assert str(got.value) == str(want.value)
    for v in (0.0, 3.0):
        _same(g.argwhere(nx.asarray(np.array(v))), np.argwhere(np.array(v)))
        _same(g.flatnonzero(nx.asarray(np.array(v))), np.flatnonzero(np.array(v)))
    f = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 1e-300, 5e-324, 0.0])
    _same(g.flatnonzero(nx.asarray(f)), np.flatnonzero(f))
    c = np.array([0, 1j, 1, -0.0 - 0.0j, np.nan], np.complex64)
    _same(g.flatnonzero(nx.asarray(c)), np.flatnonzero(c))


# -- boolean masks, np.extract, np.compress ---------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_mask_selection_every_dtype_and_size(rng, dtype):
    for n in SIZES:
        h, x = _pair(rng, dtype, n)
        for p in (0.0, 0.5, 1.0):  # all-False, random, all-True masks
            m = rng.random(n) < p
            _same_bits(g.compress_mask(x, nx.asarray(m)), h[m])
            _same_bits(g.extract(nx.asarray(m), x), np.extract(m, h))
    h, x = _pair(rng, dtype, (11, 7, 3))
    m = rng.random(h.shape) < 0.4
    _same_bits(g.compress_mask(x, nx.asarray(m)), h[m])
    _same_bits(g.compress_mask(x.T, nx.asarray(m.T)), h.T[m.T])


@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_masks_of_leading_dimensions_and_views(rng, ndim):
    shape = (9, 6, 4)[:ndim]
    h, x = _pair(rng, "float64", shape)
    views = [(h, x), (h[::-2], x[::-2]), (h.T, x.T)]
    for hv, xv in views:
        for k in range(1, ndim + 1):
            for p in (0.0, 0.5, 1.0):
                m = rng.random(hv.shape[:k]) < p
                _same_bits(g.compress_mask(xv, nx.asarray(m)), hv[m])
                mv = nx.asarray(np.ascontiguousarray(m.T)).T  # a strided mask
                _same_bits(g.compress_mask(xv, mv), hv[m])
    _same(g.compress_mask(x, np.bool_(True)), h[np.bool_(True)])
    _same(g.compress_mask(x, np.bool_(False)), h[np.bool_(False)])
    with pytest.raises(IndexError, match="boolean index did not match"):
        g.compress_mask(x, nx.asarray(np.ones(shape[0] + 1, bool)))
    with pytest.raises(IndexError, match="too many indices"):
        g.compress_mask(x, nx.asarray(np.ones((*shape, 1), bool)))
    with pytest.raises(TypeError, match="boolean"):
        g.compress_mask(x, nx.asarray(np.ones(shape, np.int32)))


def test_extract_and_compress(rng):
    h, x = _pair(rng, "int16", (5, 6, 4))
    for axis in (None, 0, 1, 2, -1):
        size = h.size if axis is None else h.shape[axis]
        for n in (0, 1, size // 2, size):
            c = rng.random(n) < 0.5
            _same(g.compress(c, x, axis=axis), np.compress(c, h, axis=axis))
            _same(g.compress(nx.asarray(c.astype(np.int8)), x, axis), np.compress(c.astype(np.int8), h, axis))
    c = np.zeros(h.shape[1] + 3, bool)
    c[[0, 2]] = True
    _same(g.compress(c, x, axis=1), np.compress(c, h, axis=1))  # trailing False past the axis
    c[-1] = True
    with pytest.raises(IndexError) as want:
        np.compress(c, h, axis=1)
    with pytest.raises(IndexError) as got:
        g.compress(c, x, axis=1)
    assert str(got.value) == str(want.value)
    with pytest.raises(ValueError, match="1-d"):
        g.compress(np.ones((2, 2), bool), x)
    cond = rng.random((3, 7)) < 0.5  # extract: any shape, flattened
    _same(g.extract(cond, x), np.extract(cond, h))
    _same(g.extract(nx.asarray(cond.astype(np.float32)), x.T), np.extract(cond.astype(np.float32), h.T))
    with pytest.raises(IndexError, match="out of bounds"):
        g.extract(np.ones(h.size + 1), x)


# -- np.repeat -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["bool", "int64", "float32", "complex128"])
def test_repeat(rng, dtype):
    for n in SIZES:
        h, x = _pair(rng, dtype, n)
        for r in (0, 1, 3):
            _same_bits(g.repeat(x, r), np.repeat(h, r))
        reps = rng.integers(0, 4, n)
        _same_bits(g.repeat(x, nx.asarray(reps)), np.repeat(h, reps))
        _same_bits(g.repeat(x, reps.tolist()), np.repeat(h, reps.tolist()))
    h, x = _pair(rng, dtype, (4, 5, 3))
    for axis in (None, 0, 1, 2, -2):
        size = h.size if axis is None else h.shape[axis]
        reps = rng.integers(0, 3, size).astype(np.int32)
        _same_bits(g.repeat(x, nx.asarray(reps), axis), np.repeat(h, reps, axis))
        _same_bits(g.repeat(x.T, 2, axis), np.repeat(h.T, 2, axis))
        _same_bits(g.repeat(x, [2], axis), np.repeat(h, [2], axis))
        _same_bits(
            g.repeat(x[::-1, :, ::2], nx.asarray(np.array([3])), axis), np.repeat(h[::-1, :, ::2], 3, axis)
        )
    _same(g.repeat(nx.asarray(np.array(5)), 3), np.repeat(np.array(5), 3))
    _same(g.repeat(nx.asarray(np.array(5)), 3, axis=0), np.repeat(np.array(5), 3, axis=0))


def test_repeat_errors(rng):
    h, x = _pair(rng, "float64", 3)
    for reps in ([1, -1, 2], nx.asarray(np.array([1, -1, 2])), -1):
        with pytest.raises(ValueError, match="negative"):
            g.repeat(x, reps)
    with pytest.raises(ValueError, match="broadcast"):
        g.repeat(x, [1, 2])
    with pytest.raises(TypeError):
        g.repeat(x, nx.asarray(np.array([1.0, 2.0, 1.0])))
    _same(g.repeat(x, 2), np.repeat(h, 2))


# -- through NumPy's functions (``__array_function__``) ------------------------------------------------------
def test_numpy_functions_dispatch(rng):
    h, x = _pair(rng, "float64", (6, 5))
    idx = rng.integers(-5, 5, (2, 3))
    _same(np.take(x, nx.asarray(idx), axis=1), np.take(h, idx, axis=1))
    _same(np.take(x, nx.asarray(idx), mode="clip"), np.take(h, idx, mode="clip"))
    order = np.argsort(h, axis=0)
    _same(np.take_along_axis(x, nx.asarray(order), axis=0), np.sort(h, axis=0))
    for got, want in zip(np.nonzero(x > 0), np.nonzero(h > 0)):
        _same(got, want)
    _same(np.flatnonzero(x > 0), np.flatnonzero(h > 0))
    _same(np.argwhere(x > 0), np.argwhere(h > 0))
    _same(np.extract(x > 0, x), np.extract(h > 0, h))
    _same(np.compress([True, False, True], x, axis=1), np.compress([True, False, True], h, axis=1))
    _same(np.repeat(x, 2, axis=0), np.repeat(h, 2, axis=0))
    with pytest.raises(IndexError, match="out of bounds"):
        np.take(x, nx.asarray(np.array([9])), axis=0)
    with pytest.raises(UnsupportedError, match="take"):
        np.take(x, nx.asarray(np.array([0])), out=nx.empty(1))


def test_gather_functions_table():
    assert set(g.GATHER_FUNCTIONS) == {
        np.take,
        np.take_along_axis,
        np.nonzero,
        np.flatnonzero,
        np.argwhere,
        np.extract,
        np.compress,
        np.repeat,
    }
