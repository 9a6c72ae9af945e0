"""NumPy's manipulation, statistics and comparison functions on numba_ext arrays, against NumPy on
fresh random inputs: views made on the descriptor, assignment and concatenation on the device,
np.var/np.std/np.round/np.isclose, the reductions' dtype=, keepdims= and tuples of axes, and the
array methods that call them."""

import warnings

import numpy as np
import pytest

import numba_ext as nx
from numba_ext import _core
from numba_ext.library import elementwise

from ..checks import check
from ..conftest import DEV


@pytest.fixture
def assignments(monkeypatch):
    """Counts the assignments that ran as a kernel on the device: through the library, or served in
    one native step (``_core.known_call``; the tests using this make no other eager calls)."""
    ran = []
    real = elementwise.assign
    monkeypatch.setattr(elementwise, "assign", lambda dst, src: ran.append(src.shape) or real(dst, src))
    served = _core.known_served()
    return lambda: len(ran) + _core.known_served() - served


def _pair(rng, shape, dtype=np.float64):
    h = rng.standard_normal(shape).astype(dtype)
    return h, nx.asarray(h, device=DEV)


# -- views -------------------------------------------------------------------------------------------
def test_views_match_numpy_and_share_memory(rng):
    h, x = _pair(rng, (3, 1, 4, 5))
    cases = [
        (np.squeeze(x), np.squeeze(h)),
        (x.squeeze(1), h.squeeze(1)),
        (np.swapaxes(x, 0, 3), np.swapaxes(h, 0, 3)),
        (x.swapaxes(-1, -2), h.swapaxes(-1, -2)),
        (np.moveaxis(x, 0, -1), np.moveaxis(h, 0, -1)),
        (np.moveaxis(x, (0, 2), (3, 0)), np.moveaxis(h, (0, 2), (3, 0))),
        (np.expand_dims(x, (0, -1)), np.expand_dims(h, (0, -1))),
        (np.broadcast_to(x[:, :, :, :1], (3, 2, 4, 5)), np.broadcast_to(h[:, :, :, :1], (3, 2, 4, 5))),
        (np.diagonal(x[:, 0], 1, 1, 2), np.diagonal(h[:, 0], 1, 1, 2)),
        (x[:, 0].diagonal(), h[:, 0].diagonal()),
        (x.mT, h.mT),
        (np.matrix_transpose(x), np.matrix_transpose(h)),
        (np.ravel(x), np.ravel(h)),
        (x.T.ravel(), h.T.ravel()),
        (x.T.ravel("F"), h.T.ravel("F")),
        (x[:, :, ::2].ravel("A"), h[:, :, ::2].ravel("A")),
        (x.T.flatten(), h.T.flatten()),
    ]
    for k, (got, want) in enumerate(cases):
        check(got, want, f"case {k}")
    # views write through to the array
    v = np.swapaxes(x, 0, 3)
    v[0] = 7.5
    h2 = h.copy()
    np.swapaxes(h2, 0, 3)[0] = 7.5
    check(x, h2)
    flat = x.flatten()  # a copy
    flat[:] = 0.0
    check(x, h2)
    with pytest.raises(ValueError, match="cannot select an axis to squeeze out"):
        x.squeeze(0)
    with pytest.raises(ValueError, match="read-only"):
        np.broadcast_to(x, (2, 3, 1, 4, 5))[0] = 1.0
    with pytest.raises(ValueError, match="read-only"):
        x[:, 0].diagonal()[...] = 1.0
    with pytest.raises(np.exceptions.AxisError):
        np.swapaxes(x, 0, 4)


# -- assignment on the device ----------------------------------------------------------------------
@pytest.mark.parametrize(
    "dst_dtype, src_dtype",
    [
        (np.float64, np.float64),
        (np.float64, np.float32),
        (np.float64, np.int32),
        (np.int64, np.bool_),
        (np.complex128, np.float64),
    ],
)
def test_assignment_runs_on_the_device(rng, assignments, dst_dtype, src_dtype):
    hd = (rng.standard_normal((6, 7)) * 50).astype(dst_dtype)
    hs = (rng.standard_normal((6, 7)) * 50).astype(src_dtype)
    d, s = nx.asarray(hd, device=DEV), nx.asarray(hs, device=DEV)
    for key, val in [
        ((slice(1, 4),), (slice(0, 3),)),  # rows
        ((slice(None), slice(None, None, 2)), (slice(None), slice(0, 4))),  # strided columns
        ((slice(None, None, -1),), (Ellipsis,)),  # reversed
        ((2,), (4,)),  # one row
    ]:
        d[key] = s[val]
        hd[key] = hs[val]
        check(d, hd, f"{key} = {val}")
    d[1:3] = s[0]  # a row broadcast over rows
    hd[1:3] = hs[0]
    d[:, 2:4] = s[:, :1]  # a column broadcast over columns
    hd[:, 2:4] = hs[:, :1]
    check(d, hd, "broadcast")
    assert assignments() == 6


def test_assignment_of_overlapping_views_is_numpys(rng, assignments):
    h, x = _pair(rng, 50)
    x[1:] = x[:-1]
    h[1:] = h[:-1]
    x[:-3] = x[3:]
    h[:-3] = h[3:]
    x[::-1] = x
    h[::-1] = h.copy()
    check(x, h)
    assert assignments() >= 3  # on the device (the copies of the overlapping sources may count too)


def test_assignment_through_the_host_where_numpy_casts_unsafely(rng, assignments):
    h = rng.standard_normal(20) * 100
    d = nx.zeros(20, dtype=np.int32, device=DEV)
    d[...] = nx.asarray(h, device=DEV)  # float into int: NumPy's unsafe cast, on the host
    np.testing.assert_array_equal(nx.asnumpy(d), h.astype(np.int32))
    d.fill(3)
    np.testing.assert_array_equal(nx.asnumpy(d), np.full(20, 3, np.int32))
    assert assignments() == 0


def test_assignment_from_an_equivalent_queue(rng, assignments):
    q = nx.Queue(DEV)
    other = nx.Queue(q.device, context=q.context)
    h, g = rng.standard_normal((2, 16))
    x, y = nx.asarray(h, sycl_queue=q), nx.asarray(g, sycl_queue=other)
    x[4:] = y[:12]
    h[4:] = g[:12]
    check(x, h)
    assert assignments() == 1


# -- concatenation --------------------------------------------------------------------------------
def test_concatenate_and_stack_match_numpy(rng):
    ha = rng.standard_normal((3, 4))
    hb = rng.integers(-9, 9, (3, 2)).astype(np.int32)
    hc = rng.standard_normal((5, 4)).astype(np.float32)
    a, b, c = (nx.asarray(v, device=DEV) for v in (ha, hb, hc))
    cases = [
        (np.concatenate([a, b], axis=1), np.concatenate([ha, hb], axis=1)),
        (np.concatenate((a, c)), np.concatenate((ha, hc))),
        (np.concatenate([a, c], axis=-2), np.concatenate([ha, hc], axis=-2)),
        (np.concatenate([a, b, c], axis=None), np.concatenate([ha, hb, hc], axis=None)),
        (np.concatenate([a[:, :0], b], axis=1), np.concatenate([ha[:, :0], hb], axis=1)),
        (np.concatenate([a.T, b.T]), np.concatenate([ha.T, hb.T])),
        (np.concatenate([a, c], dtype=np.float32), np.concatenate([ha, hc], dtype=np.float32)),
        (np.stack([a, a * 2]), np.stack([ha, ha * 2])),
        (np.stack([a, a], axis=-1), np.stack([ha, ha], axis=-1)),
        (np.stack([b, b.astype(np.float32)], axis=1), np.stack([hb, hb.astype(np.float32)], axis=1)),
    ]
    for k, (got, want) in enumerate(cases):
        check(got, want, f"case {k}")
    shared = nx.asarray(ha, device=DEV, usm_type="shared")
    with pytest.warns(nx.errors.MixedUSMTypeWarning):
        assert np.concatenate([shared, a]).usm_type == "device"  # as dpctl coerces
    assert np.concatenate([shared, shared]).usm_type == "shared"
    with pytest.raises(ValueError, match="along dimension 1"):
        np.concatenate([a, b])
    with pytest.raises(ValueError, match="zero-dimensional"):
        np.concatenate([a[0, 0], a[0, 1]])
    with pytest.raises(TypeError, match="Cannot cast"):
        np.concatenate([a, b], axis=1, dtype=np.int32)
    with pytest.raises(ValueError, match="same shape"):
        np.stack([a, c])
    with pytest.raises(nx.ExecutionPlacementError):
        np.concatenate([a, ha])
    with pytest.raises(np.exceptions.AxisError):
        np.concatenate([a, a], axis=2)


# -- statistics, rounding, comparison --------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.complex128])
def test_var_and_std_match_numpy(rng, dtype):
    h = rng.standard_normal((4, 5, 6)) * 10
    if dtype is np.complex128:
        h = h + 1j * rng.standard_normal(h.shape)
    h = h.astype(dtype)
    x = nx.asarray(h, device=DEV)
    for kw in [{}, {"axis": 1}, {"axis": (0, 2)}, {"axis": -1, "ddof": 1}, {"axis": 0, "keepdims": True}]:
        check(np.var(x, **kw), np.asarray(np.var(h, **kw)), f"var {kw}")
        check(x.std(**kw), np.asarray(h.std(**kw)), f"std {kw}")
    check(np.std(x, correction=1), np.asarray(np.std(h, correction=1)))


def test_round_matches_numpy(rng):
    h = rng.standard_normal(200) * 1000
    h[:4] = [0.5, 1.5, 2.5, -0.5]  # halves round to even
    x = nx.asarray(h, device=DEV)
    for d in (0, 1, 3, -1, -2):
        check(np.round(x, d), np.round(h, d), f"decimals {d}")
        check(x.astype(np.float32).round(d), h.astype(np.float32).round(d), f"float32, decimals {d}")
    hi = rng.integers(-500, 500, 30)
    hi[:3] = [15, 25, -35]  # to tens: halves to even
    i = nx.asarray(hi, device=DEV)
    for d in (2, 0, -1, -2):
        check(np.around(i, d), np.around(hi, d), f"int64, decimals {d}")
    check(np.round(nx.asarray(hi.astype(np.int16), device=DEV), -1), np.round(hi.astype(np.int16), -1))
    hb = hi > 0
    if nx.Device(DEV).has_aspect_fp16:
        check(np.round(nx.asarray(hb, device=DEV)), np.round(hb))  # float16, as NumPy's
    else:  # NumPy's float16 result cannot live on this device
        with pytest.raises(nx.UnsupportedError, match="float16 data needs half precision"):
            np.round(nx.asarray(hb, device=DEV))
    with pytest.raises(TypeError):
        np.round(nx.asarray(hb, device=DEV), 1)


def test_isclose_and_allclose_match_numpy(rng):
    h = rng.standard_normal(40)
    g = h + rng.choice([0.0, 1e-9, 1e-6, 1e-3], 40) * h
    h[:4] = [np.nan, np.inf, -np.inf, np.nan]
    g[:4] = [np.nan, np.inf, np.inf, 1.0]
    x, y = nx.asarray(h, device=DEV), nx.asarray(g, device=DEV)
    check(np.isclose(x, y), np.isclose(h, g))
    check(np.isclose(x, y, equal_nan=True), np.isclose(h, g, equal_nan=True))
    check(np.isclose(x, y, rtol=1e-4, atol=0.0), np.isclose(h, g, rtol=1e-4, atol=0.0))
    check(np.isclose(x, 1), np.isclose(h, 1))
    hi = rng.integers(0, 3, 10)
    check(np.isclose(nx.asarray(hi, device=DEV), 1), np.isclose(hi, 1))
    assert np.allclose(x[4:], x[4:] * (1 + 1e-9)) is True
    assert np.allclose(x[4:], y[4:]) is bool(np.allclose(h[4:], g[4:]))


def test_astype_function(rng):
    h, x = _pair(rng, (3, 4))
    check(np.astype(x, np.float32), np.astype(h, np.float32))
    assert np.astype(x, np.float64, copy=False) is x
    with pytest.raises(nx.UnsupportedError, match="device="):
        np.astype(x, np.float32, device="another")


# -- reductions: dtype=, keepdims=, several axes -------------------------------------------------------
def test_reductions_take_dtype_keepdims_and_axis_tuples(rng):
    h = rng.standard_normal((3, 4, 5))
    hi = rng.integers(-100, 100, (3, 4, 5)).astype(np.int8)
    x, xi = nx.asarray(h, device=DEV), nx.asarray(hi, device=DEV)
    cases = [
        (x.sum(axis=(0, 2)), h.sum(axis=(0, 2))),
        (x.sum(axis=(2, 0, 1)), np.asarray(h.sum(axis=(2, 0, 1)))),
        (x.max(axis=(1, 2), keepdims=True), h.max(axis=(1, 2), keepdims=True)),
        (x.min(keepdims=True), h.min(keepdims=True)),
        (x.mean(axis=(0, 1)), h.mean(axis=(0, 1))),
        (x.mean(axis=-1, keepdims=True), h.mean(axis=-1, keepdims=True)),
        (x.argmax(axis=1, keepdims=True), h.argmax(axis=1, keepdims=True)),
        (x.argmin(keepdims=True), h.argmin(keepdims=True)),
        (np.sum(xi, dtype=np.int64), np.asarray(np.sum(hi, dtype=np.int64))),
        (np.sum(xi, axis=1, dtype=np.float32), np.sum(hi, axis=1, dtype=np.float32)),
        (xi.mean(axis=(0, 2)), hi.mean(axis=(0, 2))),
        (
            np.prod(x[:, :2, :2], axis=(1, 2), dtype=np.float32),
            np.prod(h[:, :2, :2], axis=(1, 2), dtype=np.float32),
        ),
        ((x > 0).any(axis=(0, 1), keepdims=True), (h > 0).any(axis=(0, 1), keepdims=True)),
        ((x > -3).all(axis=(1,)), (h > -3).all(axis=(1,))),
    ]
    for k, (got, want) in enumerate(cases):
        check(got, want, f"case {k}")
    with pytest.raises(ValueError, match="duplicate"):
        x.sum(axis=(0, 0))
    with pytest.raises(TypeError):
        x.argmax(axis=(0, 1))
    with pytest.raises(np.exceptions.AxisError):
        x.sum(axis=(0, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = h[:, :0].mean(axis=(1, 2))
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        got = x[:, :0].mean(axis=(1, 2))
    check(got, want)


# -- methods --------------------------------------------------------------------------------------
def test_methods_call_the_functions(rng):
    h, x = _pair(rng, (4, 6))
    check(x.clip(-0.5, 0.5), h.clip(-0.5, 0.5))
    check(x.clip(max=0.1), h.clip(max=0.1))
    check(x.cumsum(), h.cumsum())
    check(x.cumsum(axis=1), h.cumsum(axis=1))
    check(x.cumprod(axis=0), h.cumprod(axis=0))
    check(x.round(1), h.round(1))
    check(x.var(axis=0), h.var(axis=0))
    check(x.std(ddof=1), np.asarray(h.std(ddof=1)))
    assert x.tolist() == h.tolist()
    assert x.T.tobytes() == h.T.tobytes() and x.tobytes("F") == h.tobytes("F")
    x.fill(2.5)
    check(x, np.full((4, 6), 2.5))


# -- more of NumPy's functions ------------------------------------------------------------------------
def test_rearrangements_and_stacks_match_numpy(rng):
    h, x = _pair(rng, (5, 6))
    hv, v = _pair(rng, 6)
    cases = [
        (np.fliplr(x), np.fliplr(h)),
        (np.flipud(x), np.flipud(h)),
        (np.rot90(x), np.rot90(h)),
        (np.rot90(x, -3, axes=(1, 0)), np.rot90(h, -3, axes=(1, 0))),
        (np.roll(x, 2, axis=1), np.roll(h, 2, axis=1)),
        (np.roll(x, -7), np.roll(h, -7)),
        (np.roll(x, (1, -2), axis=(0, 1)), np.roll(h, (1, -2), axis=(0, 1))),
        (np.roll(x, 5, axis=0), np.roll(h, 5, axis=0)),
        (np.roll(x, (1, 2)), np.roll(h, (1, 2))),  # shifts broadcast against the axis
        (np.roll(x, [1, 3], axis=1), np.roll(h, [1, 3], axis=1)),
        (np.hstack([x, x[:, :2]]), np.hstack([h, h[:, :2]])),
        (np.vstack([x, v]), np.vstack([h, hv])),
        (np.dstack([x, x]), np.dstack([h, h])),
        (np.atleast_3d(v), np.atleast_3d(hv)),
        (np.hstack([v, v]), np.hstack([hv, hv])),
    ]
    for k, (got, want) in enumerate(cases):
        check(got, want, f"case {k}")
    a2, b2 = np.atleast_2d(v, x)
    assert a2.shape == (1, 6) and b2.shape == (5, 6)
    with pytest.raises(nx.ExecutionPlacementError):
        np.vstack([x, hv])


def test_differences_products_and_norms_match_numpy(rng):
    h, x = _pair(rng, (5, 6))
    hb = h > 0
    b = nx.asarray(hb, device=DEV)
    hi = rng.integers(-9, 9, (4, 4)).astype(np.int32)
    i = nx.asarray(hi, device=DEV)
    hc = h + 1j * rng.standard_normal(h.shape)
    c = nx.asarray(hc, device=DEV)
    cases = [
        (np.diff(x), np.diff(h)),
        (np.diff(x, 2, axis=0), np.diff(h, 2, axis=0)),
        (np.diff(b, axis=1), np.diff(hb, axis=1)),
        (np.diff(i, 0), np.diff(hi, 0)),
        (np.outer(x[0], x[:, 1]), np.outer(h[0], h[:, 1])),
        (np.outer(x, i), np.outer(h, hi)),
        (np.trace(x), np.asarray(np.trace(h))),
        (np.trace(x, 1), np.asarray(np.trace(h, 1))),
        (np.trace(i, dtype=np.float32), np.asarray(np.trace(hi, dtype=np.float32))),
        (np.linalg.norm(x), np.asarray(np.linalg.norm(h))),
        (np.linalg.norm(x, "fro"), np.asarray(np.linalg.norm(h, "fro"))),
        (np.linalg.norm(x, axis=1), np.linalg.norm(h, axis=1)),
        (np.linalg.norm(x, 1, axis=0, keepdims=True), np.linalg.norm(h, 1, axis=0, keepdims=True)),
        (np.linalg.norm(x[0], np.inf), np.asarray(np.linalg.norm(h[0], np.inf))),
        (np.linalg.norm(x[0], -np.inf), np.asarray(np.linalg.norm(h[0], -np.inf))),
        (np.linalg.norm(i), np.asarray(np.linalg.norm(hi))),
        (np.linalg.norm(c, axis=0), np.linalg.norm(hc, axis=0)),
        (np.count_nonzero(i), np.asarray(np.count_nonzero(hi), dtype=np.int64)),
        (np.count_nonzero(b, axis=1), np.count_nonzero(hb, axis=1).astype(np.int64)),
    ]
    for k, (got, want) in enumerate(cases):
        check(got, want, f"case {k}")
    np.testing.assert_allclose(float(np.linalg.norm(x, 2)), np.linalg.norm(h, 2), rtol=1e-10)  # spectral
    with pytest.raises(ValueError, match="Invalid norm order"):
        np.linalg.norm(x, 3)  # no such matrix norm
    with pytest.raises(ValueError, match="non-negative"):
        np.diff(x, -1)
    check(np.diff(x[0, 0], 0), np.diff(h[0, 0], 0))  # order 0: the input, even 0-d
    with pytest.raises(ValueError, match="at least one dimensional"):
        np.diff(x[0, 0])


@pytest.mark.parametrize(
    "kw",
    [
        {"ord": o, "axis": ax, "keepdims": k}
        for o, ax in [
            *((o, (0, 1)) for o in (1, -1, 2, -2, np.inf, -np.inf, "nuc", "fro")),
            (2, (2, 0)),
            ("nuc", (-1, 1)),
            (3, 1),
            (0.5, -1),
            (0, 0),
            (-np.inf, 2),
        ]
        for k in (False, True)
    ],
    ids=str,
)
def test_norm_every_order(rng, kw):
    h = rng.standard_normal((4, 5, 3))
    x = nx.asarray(h, device=DEV)
    got, want = np.linalg.norm(x, **kw), np.linalg.norm(h, **kw)
    assert got.shape == want.shape
    np.testing.assert_allclose(nx.asnumpy(got), want, rtol=1e-10, atol=1e-12)


def test_array_equal_compares_on_the_device(rng):
    h, x = _pair(rng, (3, 4))
    h[0, 0] = np.nan
    x = nx.asarray(h, device=DEV)
    y = x.copy()
    assert np.array_equal(x, y) is False  # NaN is not equal to NaN
    assert np.array_equal(x, y, equal_nan=True) is True
    assert np.array_equal(x[1:], y[1:]) is True
    assert np.array_equal(x, x[:2]) is False
    z = y[1:].copy()
    z[0, 0] = 5.0
    assert np.array_equal(x[1:], z) is False
    assert np.array_equiv(x[1:2], x[1:2].copy()) is True
    assert np.array_equiv(x[1:], x[2]) is False
    assert np.array_equiv(x, x[:, :2]) is False  # shapes that do not broadcast
    with pytest.raises(nx.ExecutionPlacementError):
        np.array_equal(x, h)  # NumPy's own would convert, fail and answer False
