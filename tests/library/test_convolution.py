"""np.convolve and np.correlate of numba_ext arrays against NumPy on fresh random inputs: every
mode, both length orders, every dtype class (integers exact, booleans, complex with the
conjugate), strided views and host operands, and NumPy's errors."""

import numpy as np
import pytest

import numba_ext as nx

from ..checks import poison
from ..conftest import DEV

LENGTHS = [(7, 3), (3, 7), (6, 4), (4, 6), (5, 5), (1, 4), (4, 1), (1, 1), (300, 17), (17, 300)]


def _rand(rng, n, dtype):
    x = rng.standard_normal(n) * 4
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(n)
    if np.dtype(dtype).kind in "iu":
        x = rng.integers(-50, 50, n)
    return x.astype(dtype)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int8", "uint16", "bool", "complex128"])
@pytest.mark.parametrize("fn", [np.convolve, np.correlate])
def test_against_numpy(fn, dtype):
    rng = np.random.default_rng()
    for n, m in LENGTHS:
        A, V = _rand(rng, n, dtype), _rand(rng, m, dtype)
        a, v = nx.asarray(A, device=DEV), nx.asarray(V, device=DEV)
        for mode in ("full", "same", "valid", 0, 1, 2):
            want = fn(A, V, mode)
            poison(want.size, want.dtype)
            got = fn(a, v, mode)
            assert got.shape == want.shape and got.dtype == want.dtype, (n, m, mode, got.shape, got.dtype)
            if want.dtype.kind in "biu":
                np.testing.assert_array_equal(nx.asnumpy(got), want)  # integers wrap as NumPy's
            else:
                rtol = 1e-5 if want.dtype == np.float32 else 1e-12
                scale = np.convolve(np.abs(A), np.abs(V)).max()  # the magnitudes the sums add
                np.testing.assert_allclose(nx.asnumpy(got), want, rtol=rtol, atol=rtol * scale)


def test_views_hosts_and_placement():
    rng = np.random.default_rng()
    A, V = rng.standard_normal(40), rng.standard_normal(9)
    a = nx.asarray(A, device=DEV, usm_type="shared")
    np.testing.assert_allclose(
        nx.asnumpy(np.convolve(a[::3], V[1:6])), np.convolve(A[::3], V[1:6]), rtol=1e-12
    )
    np.testing.assert_allclose(
        nx.asnumpy(np.correlate(a[::-1], [1.0, -2.0], "same")), np.correlate(A[::-1], [1, -2], "same")
    )
    got = np.convolve(a, 2.5)
    assert got.usm_type == "shared" and got.sycl_queue == a.sycl_queue
    np.testing.assert_allclose(nx.asnumpy(got), np.convolve(A, 2.5), rtol=1e-15)
    ints = np.convolve(nx.asarray(np.arange(5, dtype=np.int8), device=DEV), 3)
    assert ints.dtype == np.convolve(np.arange(5, dtype=np.int8), 3).dtype


def test_errors():
    a = nx.asarray(np.ones(4), device=DEV)
    with pytest.raises(ValueError, match="v cannot be empty"):
        np.convolve(a, nx.asarray(np.ones(0), device=DEV))
    with pytest.raises(ValueError, match="a cannot be empty"):
        np.convolve(nx.asarray(np.ones(0), device=DEV), a)
    with pytest.raises(ValueError, match="first array argument cannot be empty"):
        np.correlate(nx.asarray(np.ones(0), device=DEV), a)
    with pytest.raises(ValueError, match="mode must be one of"):
        np.convolve(a, a, mode="middle")
    with pytest.raises(ValueError, match="too deep"):
        np.correlate(nx.asarray(np.ones((2, 2)), device=DEV), a)
