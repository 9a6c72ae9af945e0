"""Eager np.dot(a, b, out) and np.matmul(a, b, out=) of numba_ext arrays: computed on the arrays' queue
into `out` (returned), with NumPy's dtype and shape rules."""

import numpy as np
import pytest

import numba_ext as nx
from numba_ext.errors import UnsupportedError
from tests.checks import check


@pytest.mark.parametrize("shapes", [((6, 4), (4, 5)), ((6, 4), (4,)), ((4,), (4, 5)), ((8,), (8,))])
def test_eager_dot_matmul_out(rng, shapes):
    ha, hb = rng.standard_normal(shapes[0]), rng.standard_normal(shapes[1])
    a, b = nx.asarray(ha), nx.asarray(hb)
    want = np.dot(ha, hb)
    out = nx.full(want.shape, np.nan)
    assert np.dot(a, b, out) is out
    check(out, want, "np.dot out", rtol=1e-12, atol=1e-12)
    out2 = nx.full(want.shape, np.nan)
    assert np.matmul(a, b, out=out2) is out2
    check(out2, want, "np.matmul out", rtol=1e-12, atol=1e-12)
    out3 = nx.full(want.shape, np.nan, dtype=np.float32)
    np.matmul(a, b, out=out3)  # same_kind cast, as NumPy
    check(out3, want.astype(np.float32), "np.matmul cast", rtol=1e-5, atol=1e-5)


def test_eager_dot_out_errors(rng):
    a, b = nx.asarray(rng.standard_normal((3, 4))), nx.asarray(rng.standard_normal((4, 2)))
    with pytest.raises(ValueError, match="not acceptable"):
        np.dot(a, b, nx.empty((3, 2), np.float32))
    with pytest.raises(ValueError, match="wrong shape"):
        np.dot(a, b, nx.empty((2, 3)))
    with pytest.raises(UnsupportedError, match="same_kind"):
        np.matmul(a, b, out=nx.empty((3, 2), np.int64))
