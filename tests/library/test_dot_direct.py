"""Eager ``np.dot`` and ``@`` of real and bool arrays run the kernels of ``ir.products`` directly, with
no Numba-compiled helper: NumPy's values and result dtypes for vectors and matrices in every pairing,
strided and transposed views, empty dimensions, integers that wrap, booleans, mixed dtypes, and
NumPy's error for dimensions that do not align. ``out=`` and complex values keep the helpers."""

import numpy as np
import pytest

import numba_ext as nx
from numba_ext.compiler import reduction_helpers

from ..checks import fp_tol, refuse_calls

DTYPES = ["float64", "float32", "int8", "int32", "int64", "uint16", "uint64", "bool"]


@pytest.fixture
def no_helpers(monkeypatch):
    refuse_calls(monkeypatch, reduction_helpers, "dot_function")


def _values(rng, dtype, shape):
    if dtype == "bool":
        return rng.random(shape) < 0.4
    if np.dtype(dtype).kind == "f":
        return rng.uniform(-3, 3, shape).astype(dtype)
    low = 0 if np.dtype(dtype).kind == "u" else -60
    return rng.integers(low, 60, shape).astype(dtype)  # int8 products and sums wrap


def _same(got, want, dtype, terms=1):
    assert isinstance(got, nx.ndarray)
    got_h, want = nx.asnumpy(got), np.asarray(want)
    assert got_h.dtype == want.dtype and got_h.shape == want.shape, (got_h.dtype, want.dtype, got_h.shape)
    if want.dtype.kind in "fc":
        # a sum of `terms` products of values up to 3 in magnitude, in another order than BLAS's:
        # an absolute error of a few ulps of 9 * terms where the sum cancels
        tol = {"rtol": 1e-6 * terms, "atol": 1e-5 * terms} if dtype == "float32" else fp_tol()
        tol["atol"] = max(tol["atol"], 4 * np.finfo(want.dtype).eps * 9 * terms)
        np.testing.assert_allclose(got_h, want, **tol)
    else:
        np.testing.assert_array_equal(got_h, want)


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_pairing_of_vectors_and_matrices(rng, no_helpers, dtype):
    m, k, n = 7, 33, 5
    a, b = _values(rng, dtype, (m, k)), _values(rng, dtype, (k, n))
    u, v = _values(rng, dtype, k), _values(rng, dtype, k)
    w = _values(rng, dtype, m)
    pairs = [(a, b), (a, u), (u, b), (u, v), (a.T, w), (w, a), (b.T, a.T), (a[::2, ::3], b[::3, 1:])]
    for x, y in pairs:
        _same(np.dot(nx.asarray(x), nx.asarray(y)), np.dot(x, y), dtype, k)
        _same(nx.asarray(x) @ nx.asarray(y), x @ y, dtype, k)
    # views of one array, not copies
    dev = nx.asarray(a)
    _same(dev[::2, ::3] @ nx.asarray(b[::3, 1:]), a[::2, ::3] @ b[::3, 1:], dtype, k)
    _same(dev.T @ dev, a.T @ a, dtype, m)


#: result shapes around the tiled form's edges (``ir.products.tiled_function``: 8 rows by 1 column
#: per work-item, 16 work-items a group, at least 16 columns): rows past the last tile, columns past
#: the last group (read on into the next row of b), an empty shared dimension and one of length 1
TILED_SHAPES = [
    (1, 5, 16),
    (7, 1, 17),
    (8, 0, 47),
    (9, 40, 15),
    (17, 33, 64),
    (33, 16, 100),
    (64, 70, 96),
    (3, 9, 31),
]


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int8", "uint16"])
def test_products_in_tiles_at_their_edges(rng, no_helpers, dtype):
    for m, k, n in TILED_SHAPES:
        x, y = _values(rng, dtype, (m, k)), _values(rng, dtype, (k, n))
        _same(nx.asarray(x) @ nx.asarray(y), x @ y, dtype, k)
        # C-contiguous views whose rows go on into the parent: reads past a row stay inside b
        big = _values(rng, dtype, (k + 2, n))
        _same(nx.asarray(x) @ nx.asarray(big)[1 : k + 1], x @ big[1 : k + 1], dtype, k)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "uint8"])
def test_products_by_work_groups(rng, no_helpers, monkeypatch, dtype):
    # the GPU form (a 64x64 block per work-group, the shared dimension through local memory in steps
    # of 16), forced on the default device: blocks cut by every edge, steps cut by the shared length
    from numba_ext.arrays import reductions as arrays_reductions
    from numba_ext.library import reductions as library_reductions

    for module in (arrays_reductions, library_reductions):
        monkeypatch.setattr(module, "tile_groups", lambda device: True)
    monkeypatch.setattr(library_reductions, "tiled", lambda n, device: True)
    for m, k, n in [(1, 1, 1), (64, 16, 64), (65, 17, 63), (100, 0, 5), (3, 70, 130), (130, 33, 7)]:
        x, y = _values(rng, dtype, (m, k)), _values(rng, dtype, (k, n))
        _same(nx.asarray(x) @ nx.asarray(y), x @ y, dtype, k)


def test_products_in_tiles_and_per_element_agree(rng, no_helpers, monkeypatch):
    # the same product in tiles and one result element per work-item (the form of other layouts)
    from numba_ext.library import reductions as library_reductions

    x, y = _values(rng, "int32", (45, 60)), _values(rng, "int32", (60, 70))
    tiled = nx.asnumpy(nx.asarray(x) @ nx.asarray(y))
    monkeypatch.setattr(library_reductions, "tiled", lambda n, device: False)
    per_element = nx.asnumpy(nx.asarray(x) @ nx.asarray(y))
    np.testing.assert_array_equal(tiled, x @ y)
    np.testing.assert_array_equal(per_element, x @ y)


def test_mixed_dtypes_empty_dimensions_and_errors(rng, no_helpers):
    a, u = rng.standard_normal((4, 6)).astype(np.float32), rng.integers(-5, 5, 6).astype(np.int32)
    _same(nx.asarray(a) @ nx.asarray(u), a @ u, "float64", 6)  # computed in float64, as NumPy
    e, f = np.zeros((0, 3)), np.zeros((3, 0))
    _same(nx.asarray(e) @ nx.asarray(np.ones((3, 2))), e @ np.ones((3, 2)), "float64")
    _same(nx.asarray(f) @ nx.asarray(e), f @ e, "float64")  # a 0-length shared dimension: zeros
    _same(
        np.dot(nx.asarray(np.zeros(0)), nx.asarray(np.zeros(0))), np.dot(np.zeros(0), np.zeros(0)), "float64"
    )
    with pytest.raises(
        ValueError, match=r"shapes \(4,6\) and \(5,\) not aligned: 6 \(dim 1\) != 5 \(dim 0\)"
    ):
        np.dot(nx.asarray(a), nx.asarray(np.ones(5)))


def test_usm_types_and_queues(rng, no_helpers):
    a, b = rng.standard_normal((3, 4)), rng.standard_normal(4)
    for usm in ("device", "shared", "host"):
        got = nx.asarray(a, usm_type=usm) @ nx.asarray(b, usm_type=usm)
        assert got.usm_type == usm
        _same(got, a @ b, "float64", 4)
    scalar = np.dot(nx.asarray(b), nx.asarray(b))
    assert scalar.ndim == 0 and scalar.usm_type == "device"
    # two vectors: the device accumulator is the 0-d result (float, 32- and 64-bit integer dtypes) or
    # a 0-d array made from it (narrower integers, booleans), with the operands' USM type
    for dtype in ("float32", "float64", "int32", "int64", "uint64", "int8", "bool"):
        for usm in ("shared", "host"):
            hv, hw = (rng.integers(0, 3, 9).astype(dtype) for _ in range(2))
            got = np.dot(nx.asarray(hv, usm_type=usm), nx.asarray(hw, usm_type=usm))
            want = np.dot(hv, hw)
            assert got.ndim == 0 and got.usm_type == usm and got.dtype == want.dtype, (dtype, usm)
            assert nx.asnumpy(got) == want, (dtype, usm)


def test_helpers_still_serve_complex_values_and_out(rng):
    z = rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))
    y = rng.standard_normal(4)
    _same(nx.asarray(z) @ nx.asarray(y), z @ y, "complex128", 4)
    out = nx.empty(3)
    np.dot(nx.asarray(z.real), nx.asarray(y), out=out)
    _same(out, z.real @ y, "float64", 4)
