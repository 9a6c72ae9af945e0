"""np.unique on the device against NumPy on fresh random inputs: values, first indices, inverse
indices and counts, NaNs collapsed or kept apart, every kind of dtype, empty and 0-d arrays."""

import numpy as np
import pytest

import numba_ext as nx
from numba_ext.errors import UnsupportedError

from ..conftest import DEV


def _host(rng, dtype, shape):
    if np.dtype(dtype) == np.bool_:
        return rng.random(shape) < 0.5
    h = rng.integers(-5, 5, shape).astype(dtype)
    if np.dtype(dtype).kind == "c":
        h = h + 1j * rng.integers(-2, 2, shape)
    if np.dtype(dtype).kind in "fc" and h.size > 4:
        h.flat[rng.choice(h.size, 3, replace=False)] = np.nan
    if np.dtype(dtype).kind == "c" and h.size > 8:
        h.flat[rng.choice(h.size, 2, replace=False)] = complex(1.0, np.nan)
    return h


@pytest.mark.parametrize("dtype", ["float64", "float32", "int8", "uint32", "int64", "bool", "complex128"])
@pytest.mark.parametrize("shape", [(0,), (1,), (37,), (6, 7)])
@pytest.mark.parametrize("equal_nan", [True, False])
def test_unique_matches_numpy(rng, dtype, shape, equal_nan):
    h = _host(rng, dtype, shape)
    x = nx.asarray(h, device=DEV)
    got = np.unique(x, return_index=True, return_inverse=True, return_counts=True, equal_nan=equal_nan)
    want = np.unique(h, return_index=True, return_inverse=True, return_counts=True, equal_nan=equal_nan)
    assert len(got) == 4
    for g, w in zip(got, want):
        assert isinstance(g, nx.ndarray)
        np.testing.assert_array_equal(nx.asnumpy(g), w)  # NaNs (of either part) compare equal
        assert nx.asnumpy(g).dtype == w.dtype
    np.testing.assert_array_equal(nx.asnumpy(np.unique(x)), np.unique(h))
    values, counts = np.unique(x, return_counts=True)
    np.testing.assert_array_equal(nx.asnumpy(counts), np.unique(h, return_counts=True)[1])


def test_unique_refuses_an_axis(rng):
    x = nx.asarray(rng.integers(0, 3, (4, 5)), device=DEV)
    with pytest.raises(UnsupportedError, match="axis"):
        np.unique(x, axis=0)
