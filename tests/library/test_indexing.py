"""Advanced indexing on the device against NumPy on fresh random inputs: boolean masks of all or
the leading dimensions (NumPy's or numba_ext's), integer arrays and lists for the leading
dimensions (negative indices, broadcasting, bounds), assignment through a mask and through integer
arrays (repeated positions: the last value wins), and the keys refused with an error that names the
forms taken."""

import math

import numpy as np
import pytest

import numba_ext as nx
from numba_ext.errors import UnsupportedError
from numba_ext.library import gather

from ..checks import poison
from ..conftest import DEV


def _pair(rng, shape, dtype=np.float64):
    h = (rng.standard_normal(shape) * 3).astype(dtype)
    return h, nx.asarray(h, device=DEV)


def _same(got, want):
    assert isinstance(got, nx.ndarray)
    np.testing.assert_array_equal(nx.asnumpy(got), want)
    assert nx.asnumpy(got).dtype == want.dtype


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.bool_, np.complex64])
def test_boolean_masks(rng, dtype):
    h, x = _pair(rng, (5, 6, 3), dtype)
    poison(90, dtype)
    full = rng.random(h.shape) < 0.4
    lead = rng.random((5, 6)) < 0.5
    first = rng.random(5) < 0.5
    for mask in (full, lead, first, np.zeros(5, bool), np.ones((5, 6), bool)):
        _same(x[nx.asarray(mask, device=DEV)], h[mask])
        _same(x[mask], h[mask])  # a NumPy mask is copied to the queue
    _same(x[::2][nx.asarray(first[::2], device=DEV)], h[::2][first[::2]])
    if dtype == np.bool_:
        _same(x[x], h[h])
    else:
        _same(x[x != h.flat[0]], h[h != h.flat[0]])


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.uint8])
def test_integer_arrays(rng, dtype):
    h, x = _pair(rng, (6, 5, 4), dtype)
    idx = rng.integers(-6, 6, 9)
    j = rng.integers(-5, 5, (3, 1))
    cases = [
        (idx,),
        (idx.reshape(3, 3),),
        (list(idx),),
        (idx[:3], j),
        (idx[:3], j, 2),
        (1, j),
        (idx[:2], j[:1], rng.integers(0, 4, 2)),
    ]
    for key in cases:
        dkey = tuple(nx.asarray(k, device=DEV) if isinstance(k, np.ndarray) else k for k in key)
        _same(x[dkey if len(dkey) > 1 else dkey[0]], h[key if len(key) > 1 else key[0]])
    _same(x.T[idx[:4] % 4], h.T[idx[:4] % 4])


def test_index_errors(rng):
    h, x = _pair(rng, (4, 3))
    for key in ([4], [-5], (np.array([0]), np.array([3]))):
        with pytest.raises(IndexError, match="out of bounds"):
            x[key]
    with pytest.raises(IndexError, match="could not be broadcast"):
        x[np.array([0, 1]), np.array([0, 1, 2])]
    with pytest.raises(IndexError, match="too many indices"):
        x[[0], [0], [0]]
    with pytest.raises(IndexError, match="integer"):
        x[np.array([0.5])]
    with pytest.raises(IndexError, match="boolean index"):
        x[np.ones(3, bool)]
    with pytest.raises(IndexError, match="a boolean array index alone"):
        x[np.ones(4, bool), 0]
    with pytest.raises(IndexError, match="leading dimensions"):
        x[:, [0, 1]]
    np.testing.assert_array_equal(nx.asnumpy(x), h)  # nothing written


def test_mask_assignment_selecting_nothing(rng):
    h, x = _pair(rng, (5, 4), np.float64)
    none = np.zeros(5, bool)
    hy = rng.standard_normal((5, 4))
    y = nx.asarray(hy, device=DEV)
    x[nx.asarray(none, device=DEV)] = y[nx.asarray(none, device=DEV)] * 2  # an empty value
    h[none] = hy[none] * 2
    _same(x, h)
    x[nx.asarray(np.zeros((5, 4), bool), device=DEV)] = 7.0
    _same(x, h)


@pytest.mark.parametrize("dtype", [np.float64, np.int16])
def test_mask_assignment(rng, dtype):
    h, x = _pair(rng, (5, 4), dtype)
    mask = rng.random((5, 4)) < 0.5
    x[nx.asarray(mask, device=DEV)] = 7
    h[mask] = 7
    _same(x, h)
    rows = rng.random(5) < 0.5
    row = rng.integers(-9, 9, 4).astype(dtype)
    x[rows] = nx.asarray(row, device=DEV)
    h[rows] = row
    _same(x, h)
    x[x > 2] = 2.9  # cast to the array's dtype, as NumPy's assignment casts
    h[h > 2] = 2.9
    _same(x, h)
    hy = rng.integers(-9, 9, (5, 4)).astype(dtype)
    y = nx.asarray(hy, device=DEV)
    m2 = nx.asarray(mask, device=DEV)
    x[m2] = y[m2]  # one value per selected element
    h[mask] = hy[mask]
    _same(x, h)
    x[rows] = y[rows] * 2  # one subarray per selected row
    h[rows] = hy[rows] * 2
    _same(x, h)
    x[rows] = y[:1]  # one subarray for all
    h[rows] = hy[:1]
    _same(x, h)
    with pytest.raises(ValueError, match="cannot assign"):
        x[np.ones(5, bool)] = y[:3]
    np.testing.assert_array_equal(nx.asnumpy(x), h)  # nothing written
    with pytest.raises(UnsupportedError, match="boolean mask alone"):
        x[[0, 1], 1:3] = 1  # a slice after an index array
    with pytest.raises(IndexError, match="does not match"):
        x[np.ones(4, bool)] = 1
    with pytest.raises(ValueError, match="read-only"):
        nx.broadcast_to(x[0], (3, 4))[np.ones((3, 4), bool)] = 1


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int8, np.uint16, np.bool_, np.complex128])
def test_integer_array_assignment(rng, dtype):
    h, _ = _pair(rng, (7, 5, 3), dtype)
    g = (rng.standard_normal((40, 5, 3)) * 3).astype(dtype)
    layouts = {
        "C": lambda a: a,
        "F": np.asfortranarray,
        "transposed": lambda a: np.ascontiguousarray(a.transpose(2, 1, 0)).transpose(2, 1, 0),
    }
    for name, layout in layouts.items():
        want = layout(h.copy())
        x = nx.asarray(want, device=DEV)
        rows = rng.integers(-7, 7, 12)  # repeats: the last value of a row wins
        cols = rng.integers(-5, 5, (4, 1))
        keys_values = [
            (rows, g[:12]),  # one subarray per row
            (list(rows[:3]), g[0, 0]),  # a list; one value for every selected subarray
            ((rows[:4, None], cols.T), g[:4, :4]),  # two arrays broadcast together
            ((nx.asarray(rows, device=DEV), 2), 1),  # a device array and an integer; a scalar
            ((rows[:5], cols[:1, 0], -1), nx.asarray(g[0, 0, :1], device=DEV)),
            (np.array([3, 3, 3]), g[:3]),  # one row three times
            (np.array([], dtype=np.int64), g[:0]),
        ]
        for key, value in keys_values:
            x[key] = value
            host_key = (
                tuple(nx.asnumpy(k) if isinstance(k, nx.ndarray) else k for k in key)
                if isinstance(key, tuple)
                else key
            )
            want[host_key] = nx.asnumpy(value) if isinstance(value, nx.ndarray) else value
            np.testing.assert_array_equal(nx.asnumpy(x), want, err_msg=f"{name} {key}")
        x[[0, 1]] = x[2:4]  # values that are the target's own memory
        want[[0, 1]] = want[2:4]
        x[[5, 6]] = x[[6, 5]]
        want[[5, 6]] = want[[6, 5]]
        np.testing.assert_array_equal(nx.asnumpy(x), want, err_msg=name)
    view, hv = nx.asarray(h, device=DEV)[::2, 1:], h[::2, 1:].copy()  # a strided view
    view[[3, -1, 0]] = g[:3, :4]
    hv[[3, -1, 0]] = g[:3, :4]
    np.testing.assert_array_equal(nx.asnumpy(view), hv)


def test_integer_array_assignment_casts_and_checks(rng):
    h, x = _pair(rng, (4, 3))
    ints = nx.zeros(5, dtype=np.int32, device=DEV)
    ints[[0, 3]] = 2.9  # cast as NumPy casts (truncation)
    np.testing.assert_array_equal(nx.asnumpy(ints), [2, 0, 0, 2, 0])
    ints[nx.asarray(np.array([1, 4]), device=DEV)] = nx.asarray(np.array([-7.5, 1e3]), device=DEV)
    np.testing.assert_array_equal(nx.asnumpy(ints), [2, -7, 0, 2, 1000])
    x[[0]] = np.ones((1, 1, 3))  # leading dimensions of one are dropped, as in NumPy
    h[[0]] = np.ones((1, 1, 3))
    with pytest.raises(IndexError, match="out of bounds"):
        x[[1, 4]] = 0.0
    with pytest.raises(IndexError, match="out of bounds"):
        x[[1], [-4]] = 0.0
    with pytest.raises(ValueError, match="could not be broadcast"):
        x[[0, 1]] = np.ones(4)
    with pytest.raises(ValueError, match="read-only"):
        nx.broadcast_to(x[0], (3, 3))[[0, 1]] = 1.0
    other = nx.Queue(x.sycl_queue.device, context=nx.Context(x.sycl_queue.device))
    with pytest.raises(nx.ExecutionPlacementError):
        x[[0, 1]] = nx.asarray(np.ones(3), sycl_queue=other)
    np.testing.assert_array_equal(nx.asnumpy(x), h)  # nothing written by the refused assignments


# (target shape, index arrays, positions): repeated positions resolved by claims (the leading
# dimensions at most 8 * positions + 65536 elements) or by a sort (leading dimensions far larger)
_REPEATED = {
    "claim": [((1000,), 1, 5000), ((50, 3), 1, 400), ((30, 40), 2, 3000), ((12, 9, 4), 2, 500)],
    "sort": [((200_000,), 1, 600), ((70_000, 2), 1, 300), ((300, 300), 2, 500), ((280, 260, 2), 2, 200)],
}


def _values(rng, shape, dtype):
    v = rng.standard_normal(shape) * 100
    if np.dtype(dtype).kind == "c":
        v = v + 1j * rng.standard_normal(shape)
    return v.astype(dtype)


@pytest.mark.parametrize("path", sorted(_REPEATED))
@pytest.mark.parametrize("dtype", [np.float64, np.int16, np.complex128])
def test_integer_array_assignment_repeated_positions(rng, monkeypatch, path, dtype):
    claims = []
    claim = gather.claim
    monkeypatch.setattr(gather, "claim", lambda *a: (claims.append(a), claim(*a)))
    for shape, span, m in _REPEATED[path]:
        h = _values(rng, shape, dtype)
        x = nx.asarray(h, device=DEV)
        # a few positions (negative indices among them), each named many times
        pool = [rng.integers(-n, n, max(2, m // 8)) for n in shape[:span]]
        pick = rng.integers(0, len(pool[0]), m)
        key = tuple(p[pick] for p in pool)
        values = _values(rng, (m, *shape[span:]), dtype)  # one (sub)array per position
        poison(math.prod(shape[:span]), np.int64)
        x[(nx.asarray(key[0], device=DEV), *key[1:])] = nx.asarray(values, device=DEV)
        h[key] = values  # NumPy: the last value of a repeated position wins
        _same(x, h)
        assert len(claims) == (path == "claim"), (shape, span, m)
        claims.clear()


def test_claims_and_claimed_scatter(rng):
    n, m = 300, 2000
    positions = rng.integers(0, n, m)
    targets = nx.asarray(positions, device=DEV)
    poison(n, np.int64)
    owner = nx.full((n,), -1, np.int64, device=DEV)
    gather.claim(owner, targets)
    want = np.full(n, -1)
    want[positions] = np.arange(m)  # each position's last occurrence
    _same(owner, want)
    # the scatter writes exactly the occurrence each owner names (here the first), nothing elsewhere
    chosen = np.full(n, -1)
    chosen[positions[::-1]] = np.arange(m)[::-1]
    chosen[::7] = m  # no occurrence claims these
    h = rng.standard_normal((n, 2))
    values = rng.standard_normal((m, 2))
    x = nx.asarray(h, device=DEV)
    gather.scatter(x, 1, targets, nx.asarray(values, device=DEV), nx.asarray(chosen, device=DEV))
    named = (chosen >= 0) & (chosen < m)
    h[named] = values[chosen[named]]
    _same(x, h)


def test_integer_array_assignment_one_position(rng):
    h, x = _pair(rng, (5, 3))
    values = rng.standard_normal((10_000, 3))
    x[np.full(10_000, -2)] = values  # every occurrence claims one position
    h[np.full(10_000, -2)] = values
    _same(x, h)
    x[[4], [-1]] = 7.5  # a single position: one plain scatter
    h[[4], [-1]] = 7.5
    x[nx.asarray(np.array([1]), device=DEV)] = values[:1]
    h[np.array([1])] = values[:1]
    _same(x, h)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int8, np.uint16])
def test_ufunc_at_adds_repeated_positions(rng, dtype):
    h = (rng.standard_normal((6, 4)) * 5).astype(dtype)
    x = nx.asarray(h, device=DEV)
    rows = rng.integers(-6, 6, 40)
    cols = rng.integers(0, 4, (40,))
    vals = (rng.standard_normal(40) * 3).astype(dtype)
    np.add.at(x, (nx.asarray(rows, device=DEV), nx.asarray(cols, device=DEV)), nx.asarray(vals, device=DEV))
    np.add.at(h, (rows, cols), vals)
    rtol = 1e-6 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(nx.asnumpy(x), h, rtol=rtol, atol=rtol)
    np.add.at(x, nx.asarray(rows, device=DEV), 1)  # whole rows, a scalar
    np.add.at(h, rows, 1)
    np.testing.assert_allclose(nx.asnumpy(x), h, rtol=rtol, atol=rtol)
    sub = (rng.standard_normal((3, 4)) * 2).astype(dtype)
    np.subtract.at(x, [0, 5, 0], nx.asarray(sub, device=DEV))  # subarrays, a host index list
    np.subtract.at(h, [0, 5, 0], sub)
    np.testing.assert_allclose(nx.asnumpy(x), h, rtol=rtol, atol=rtol)
    np.add.at(x, (2, 3), 7)  # integers only
    np.add.at(h, (2, 3), 7)
    np.testing.assert_allclose(nx.asnumpy(x), h, rtol=rtol, atol=rtol)


def test_ufunc_at_errors(rng):
    h, x = _pair(rng, (4, 3))
    with pytest.raises(IndexError, match="out of bounds"):
        np.add.at(x, nx.asarray(np.array([0, 4]), device=DEV), 1.0)
    with pytest.raises(UnsupportedError, match="np.multiply.at"):
        np.multiply.at(x, [0], 2.0)
    with pytest.raises(ValueError, match="read-only"):
        np.add.at(nx.broadcast_to(x[0], (3, 3)), [0], 1.0)
    np.testing.assert_array_equal(nx.asnumpy(x), h)  # nothing written


def test_integer_array_assignment_through_the_target_itself():
    """x[x] = v and x[x] = x: the index array is the array written (its positions are read before
    any element changes, as NumPy's are)."""
    rng = np.random.default_rng()
    for n in (7, 5000):
        h = rng.integers(0, n, n).astype(np.int64)
        x = nx.asarray(h)
        x[x] = -1
        want = h.copy()
        want[h] = -1
        np.testing.assert_array_equal(nx.asnumpy(x), want)
        h = rng.integers(0, n, n).astype(np.int64)
        x = nx.asarray(h)
        x[x] = x
        want = h.copy()
        want[h] = h
        np.testing.assert_array_equal(nx.asnumpy(x), want)
