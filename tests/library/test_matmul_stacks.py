"""np.matmul and @ of stacks of matrices (operands of more than two dimensions) on numba_ext
arrays against NumPy on fresh random inputs: broadcast stacks, stacks times one matrix, vectors on
either side, strided and empty operands, every dtype class (real and bool stacks in one kernel,
on CPUs in vector tiles where they have 16 columns or more; complex ones a product per matrix),
out=, and NumPy's errors."""

import numpy as np
import pytest

import numba_ext as nx

from ..checks import poison
from ..conftest import DEV

SHAPES = [
    ((4, 3, 5), (4, 5, 2)),  # two stacks
    ((4, 3, 5), (5, 2)),  # a stack times one matrix
    ((3, 5), (4, 5, 2)),  # one matrix times a stack
    ((2, 1, 3, 5), (4, 5, 2)),  # stacks broadcast against each other
    ((5,), (4, 5, 2)),  # a row vector
    ((4, 3, 5), (5,)),  # a column vector
    ((0, 3, 5), (5, 2)),
    ((4, 3, 0), (4, 0, 2)),  # an empty shared dimension: zeros
    ((3, 1, 7, 9), (3, 9, 6)),
    # 16 result columns or more: the CPU's vector tiles, a stacked matrix per work-group row, the
    # strips in turn (rows and columns past a multiple of the tile, one shared element, none)
    ((3, 17, 5), (3, 5, 33)),
    ((5, 1, 16), (5, 16, 40)),
    ((2, 9, 1), (2, 1, 16)),
    ((2, 20, 0), (2, 0, 18)),
    ((37, 8, 16), (37, 16, 16)),
]


def _rand(rng, shape, dtype):
    x = rng.standard_normal(shape) * 3
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "int64", "bool", "complex128"])
def test_stacks(dtype):
    rng = np.random.default_rng()
    for sa, sb in SHAPES:
        A, B = _rand(rng, sa, dtype), _rand(rng, sb, dtype)
        want = np.matmul(A, B)
        poison(want.size, want.dtype)
        got = nx.asarray(A, device=DEV) @ nx.asarray(B, device=DEV)
        assert got.shape == want.shape and got.dtype == want.dtype, (sa, sb, got.shape, got.dtype)
        rtol = 1e-5 if dtype in ("float32",) else 1e-12
        np.testing.assert_allclose(nx.asnumpy(got), want, rtol=rtol, atol=rtol * 10)


def _product_close(got, x, y):
    """`got` is x @ y to within rounding of its sums: 1e-12 of the products' magnitudes (an
    element that cancels to near zero has no relative accuracy to keep)."""
    bound = 1e-12 * (np.abs(x) @ np.abs(y)).max()
    np.testing.assert_allclose(nx.asnumpy(got), x @ y, rtol=1e-12, atol=bound)


def test_mixed_dtypes_strides_and_placement():
    rng = np.random.default_rng()
    A, B = rng.standard_normal((6, 3, 5)), rng.integers(-4, 4, (3, 5, 4)).astype(np.int16)
    a = nx.asarray(A, device=DEV, usm_type="shared")
    b = nx.asarray(B, device=DEV, usm_type="shared")
    got = np.matmul(a[::2], b.transpose(0, 1, 2))
    _product_close(got, A[::2], B)
    assert got.dtype == np.float64 and got.usm_type == "shared" and got.sycl_queue == a.sycl_queue
    T = rng.standard_normal((3, 5, 4))
    t = nx.asarray(T.transpose(0, 2, 1).copy(), device=DEV, usm_type="shared").transpose(0, 2, 1)
    assert not t.flags.c_contiguous  # T's values, read through strides
    _product_close(a[1:4] @ t, A[1:4], T)
    _product_close(nx.matmul(a[:3], b), A[:3], B)


def test_out():
    rng = np.random.default_rng()
    A, B = rng.standard_normal((4, 3, 5)), rng.standard_normal((4, 5, 2))
    out = nx.full((4, 3, 2), np.nan, device=DEV)
    assert np.matmul(nx.asarray(A, device=DEV), nx.asarray(B, device=DEV), out=out) is out
    np.testing.assert_allclose(nx.asnumpy(out), A @ B, rtol=1e-12)
    with pytest.raises(TypeError, match="same_kind"):
        np.matmul(
            nx.asarray(A, device=DEV), nx.asarray(B, device=DEV), out=nx.empty((4, 3, 2), dtype=np.int64)
        )
    with pytest.raises(ValueError, match="mismatch"):
        np.matmul(nx.asarray(A, device=DEV), nx.asarray(B, device=DEV), out=nx.empty((4, 2, 3)))


def test_errors():
    a = nx.asarray(np.ones((4, 3, 5)), device=DEV)
    with pytest.raises(ValueError, match="size 4 is different from 5"):
        a @ nx.asarray(np.ones((4, 4, 2)), device=DEV)
    with pytest.raises(ValueError, match="could not be broadcast"):
        a @ nx.asarray(np.ones((3, 5, 2)), device=DEV)
    with pytest.raises(ValueError, match="does not have enough dimensions"):
        np.matmul(a, nx.asarray(2.0, device=DEV))
