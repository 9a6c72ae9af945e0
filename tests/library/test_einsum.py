"""np.einsum of numba_ext arrays against NumPy on fresh random inputs: matrix products, chains of
three operands, traces and diagonals, transposes, sums, outer products, batches (one matrix product
per batch and the broadcast product), ``...`` broadcasting, implicit outputs, dtypes and NumPy's
result dtype, and NumPy's errors."""

import numpy as np
import pytest

import numba_ext as nx
from numba_ext.errors import UnsupportedError

from ..checks import poison
from ..conftest import DEV

CASES = [
    ("ij,jk->ik", (3, 4), (4, 5)),
    ("ij,jk", (3, 4), (4, 5)),
    ("ij,jk,kl->il", (3, 4), (4, 5), (5, 2)),
    ("ii->i", (4, 4)),
    ("ii", (4, 4)),
    ("iij->ji", (3, 3, 2)),
    ("ij->ji", (3, 4)),
    ("ij->", (3, 4)),
    ("ji", (3, 4)),
    ("bij,bjk->bik", (6, 3, 4), (6, 4, 2)),
    ("bij,bjk->bki", (20, 3, 4), (20, 4, 2)),
    ("i,i", (7,), (7,)),
    ("i,j->ij", (3,), (4,)),
    ("...ij,...jk->...ik", (2, 3, 4), (4, 5)),
    ("ij,j->i", (3, 4), (4,)),
    ("bij->b", (5, 3, 4)),
    ("i,i,i->", (6,), (6,), (6,)),
    ("...i,i", (2, 3, 4), (4,)),
    ("ij,ij->i", (3, 4), (3, 4)),
    ("ab,cd->abcd", (2, 2), (1, 4)),
    ("ij,kj->ikj", (3, 4), (2, 4)),
    ("ij,jk->ik", (2, 0), (0, 3)),  # sums of nothing
    ("ab,ij->abij", (2, 0), (2, 0)),  # no element (a size of one broadcasts to zero)
]


def _operand(rng, shape, dtype):
    if np.dtype(dtype).kind in "iu":
        return rng.integers(-5, 5, shape).astype(dtype)
    h = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        h = h + 1j * rng.standard_normal(shape)
    return h.astype(dtype)


def _same(got, want, what):
    host, want = nx.asnumpy(got), np.asarray(want)
    assert host.dtype == want.dtype and host.shape == want.shape, (what, host.dtype, want.dtype, host.shape)
    r = 1e-5 if want.dtype in (np.float32, np.complex64) else 1e-12
    np.testing.assert_allclose(host, want, rtol=r, atol=r, err_msg=what)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.complex128])
def test_einsum_against_numpy(rng, dtype):
    for subscripts, *shapes in CASES:
        hs = [_operand(rng, s, dtype) for s in shapes]
        poison(64, dtype)
        got = np.einsum(subscripts, *(nx.asarray(h, device=DEV) for h in hs))
        assert isinstance(got, nx.ndarray)
        _same(got, np.einsum(subscripts, *hs), subscripts)


def test_batches_and_mixed_dtypes(rng):
    a, b = _operand(rng, (12, 3, 5), np.float32), _operand(rng, (12, 5, 4), np.float64)
    x, y = nx.asarray(a, device=DEV), nx.asarray(b, device=DEV)
    _same(np.einsum("bij,bjk->bik", x, y), np.einsum("bij,bjk->bik", a, b), "mixed dtypes")
    _same(np.einsum("bij,bjk->ik", x, y), np.einsum("bij,bjk->ik", a, b), "summed batches")
    _same(
        np.einsum("bij,bjk->bik", x, y, dtype=np.complex128),
        np.einsum("bij,bjk->bik", a, b, dtype=np.complex128),
        "dtype",
    )
    t = nx.asarray(np.asfortranarray(a), device=DEV).transpose(0, 2, 1)[:, ::2]  # a strided view
    _same(
        np.einsum("bji,bjk->bik", t, y[:, :, :3][:, :3]),
        np.einsum("bji,bjk->bik", a.transpose(0, 2, 1)[:, ::2], b[:, :3, :3]),
        "views",
    )


def test_einsum_errors(rng):
    x = nx.asarray(_operand(rng, (3, 4), np.float64), device=DEV)
    with pytest.raises(ValueError, match="broadcast"):
        np.einsum("ij,jk->ik", x, x)
    with pytest.raises(ValueError, match="never appeared"):
        np.einsum("ij->iz", x)
    with pytest.raises(ValueError, match="multiple times"):
        np.einsum("ij->ii", x)
    with pytest.raises(ValueError, match="operands"):
        np.einsum("ij,jk", x)
    with pytest.raises(TypeError):
        np.einsum("ij,jk", x, x.T, dtype=np.int32)  # casting="safe", as NumPy
    with pytest.raises(UnsupportedError, match="out="):
        np.einsum("ij->ji", x, out=nx.empty((4, 3), device=DEV))
    with pytest.raises(UnsupportedError, match="string"):
        np.einsum(x, [0, 1])
    with pytest.raises(nx.ExecutionPlacementError):
        np.einsum("ij,jk", x, np.ones((4, 2)))
