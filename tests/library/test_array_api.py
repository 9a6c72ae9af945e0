"""The array API namespace (the module ``numba_ext``, ``x.__array_namespace__()``) against NumPy on
fresh random inputs: its names and data types, elementwise functions with Python scalars, the
functions composed from the eager operations (tril, triu, meshgrid, tile, tensordot, vecdot,
cumulative sums, unique values), statistics with ``correction=``, data type functions,
inspection, and the errors for arguments that are not numba_ext arrays."""

import math

import numpy as np
import pytest

import numba_ext as xp
from numba_ext import array_api

from ..conftest import DEV


def _pair(rng, shape, dtype=np.float64):
    h = (rng.standard_normal(shape) * 3).astype(dtype)
    return h, xp.asarray(h, device=DEV)


def _same(got, want, rtol=1e-12, atol=1e-12):
    assert isinstance(got, xp.ndarray), type(got)
    host = xp.asnumpy(got)
    assert host.shape == np.shape(want)
    assert host.dtype == np.asarray(want).dtype, (host.dtype, np.asarray(want).dtype)
    np.testing.assert_allclose(host, want, rtol=rtol, atol=atol)


def test_the_namespace_is_the_package(rng):
    _, x = _pair(rng, (3,))
    assert x.__array_namespace__() is xp
    assert x.__array_namespace__(api_version="2023.12") is xp
    with pytest.raises(ValueError, match="2099.12"):
        x.__array_namespace__(api_version="2099.12")
    assert xp.__array_api_version__ == "2024.12"
    for name in array_api.__all__:
        assert getattr(xp, name) is getattr(array_api, name) or name == "__array_api_version__", name
    assert "sum" in dir(xp)
    with pytest.raises(AttributeError, match="no_such_function"):
        xp.no_such_function  # noqa: B018
    assert x.dtype == xp.float64 and xp.asarray([1, 2], device=DEV).dtype == xp.int64
    assert xp.e == math.e and xp.newaxis is None and math.isnan(xp.nan)


@pytest.mark.parametrize(
    ("name", "reference"),
    [
        ("acos", np.arccos),
        ("atan2", np.arctan2),
        ("pow", np.power),
        ("bitwise_left_shift", np.left_shift),
        ("bitwise_invert", np.invert),
        ("divide", np.divide),
        ("logaddexp", np.logaddexp),
        ("copysign", np.copysign),
        ("hypot", np.hypot),
        ("nextafter", np.nextafter),
        ("signbit", np.signbit),
        ("square", np.square),
    ],
)
def test_elementwise_functions_are_numpys_ufuncs(rng, name, reference):
    fn = getattr(xp, name)
    nargs = 1 if name in ("acos", "bitwise_invert", "signbit", "square") else 2
    integral = name.startswith("bitwise")
    lo = 0.1 if name == "pow" else -0.9
    make = (lambda: rng.integers(0, 7, 37)) if integral else (lambda: rng.uniform(lo, 0.9, 37))
    hosts = [make() for _ in range(nargs)]
    args = [xp.asarray(h, device=DEV) for h in hosts]
    _same(fn(*args), reference(*hosts))
    if nargs == 2:  # a Python scalar on either side, weakly typed as NumPy's
        scalar = 3 if integral else 0.5
        _same(fn(args[0], scalar), reference(hosts[0], scalar))
        _same(fn(scalar, args[1]), reference(scalar, hosts[1]))
        with pytest.raises(TypeError, match="at least one of x1 and x2"):
            fn(scalar, scalar)


def test_rounding_keeps_integers_and_clip_keeps_the_dtype(rng):
    hi = rng.integers(-50, 50, 23, dtype=np.int16)
    xi = xp.asarray(hi, device=DEV)
    for fn in (xp.ceil, xp.floor, xp.trunc, xp.round):
        _same(fn(xi), hi)
    hf, xf = _pair(rng, (23,))
    _same(xp.ceil(xf), np.ceil(hf))
    _same(xp.round(xf), np.round(hf))
    _same(xp.clip(xi, -10, 10), np.clip(hi, -10, 10).astype(np.int16))
    _same(xp.clip(xf, min=-1.0), np.clip(hf, -1.0, None))
    _same(xp.clip(xf), hf)
    hz = hf + 1j * rng.standard_normal(23)
    xz = xp.asarray(hz, device=DEV)
    _same(xp.real(xz), hz.real)
    _same(xp.imag(xz), hz.imag)
    _same(xp.real(xf), hf)
    _same(xp.conj(xz), np.conj(hz))


@pytest.mark.parametrize("k", [-2, -1, 0, 1, 3])
def test_tril_triu(rng, k):
    h, x = _pair(rng, (2, 4, 5))
    _same(xp.tril(x, k=k), np.tril(h, k))
    _same(xp.triu(x, k=k), np.triu(h, k))
    hi = rng.integers(-9, 9, (5, 3)).astype(np.int32)
    _same(xp.tril(xp.asarray(hi, device=DEV), k=k), np.tril(hi, k))
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        xp.tril(x[0, 0])


@pytest.mark.parametrize("indexing", ["xy", "ij"])
def test_meshgrid(rng, indexing):
    hosts = [rng.standard_normal(n) for n in (3, 4, 2)]
    arrays = [xp.asarray(h, device=DEV) for h in hosts]
    for count in (1, 2, 3):
        got = xp.meshgrid(*arrays[:count], indexing=indexing)
        want = np.meshgrid(*hosts[:count], indexing=indexing)
        assert len(got) == count
        for g, w in zip(got, want):
            _same(g, w)


@pytest.mark.parametrize("reps", [(2,), (2, 3), (1, 2, 2), (0, 2), (3, 1, 1, 2)])
def test_tile(rng, reps):
    h, x = _pair(rng, (3, 4))
    _same(xp.tile(x, reps), np.tile(h, reps))
    _same(xp.tile(x[:, ::2], reps), np.tile(h[:, ::2], reps))


@pytest.mark.parametrize(
    ("sa", "sb", "axes"),
    [
        ((3, 4), (4, 5), 1),
        ((2, 3, 4), (3, 4, 2), 2),
        ((3, 4), (5, 6), 0),
        ((2, 3, 4), (4, 3), ((1, 2), (1, 0))),
    ],
)
def test_tensordot(rng, sa, sb, axes):
    ha, a = _pair(rng, sa)
    hb, b = _pair(rng, sb)
    _same(xp.tensordot(a, b, axes=axes), np.tensordot(ha, hb, axes=axes), rtol=1e-10, atol=1e-10)
    hc = hb.astype(np.float32)
    _same(
        xp.tensordot(a, xp.asarray(hc, device=DEV), axes=axes),
        np.tensordot(ha, hc, axes=axes),
        rtol=1e-6,
        atol=1e-6,
    )


def test_vecdot_conjugates_the_first(rng):
    ha = rng.standard_normal((4, 5)) + 1j * rng.standard_normal((4, 5))
    hb = rng.standard_normal((5,)) + 1j * rng.standard_normal((5,))
    a, b = xp.asarray(ha, device=DEV), xp.asarray(hb, device=DEV)
    _same(xp.vecdot(a, b), np.vecdot(ha, hb), rtol=1e-12, atol=1e-12)
    hr, r = _pair(rng, (4, 3))
    _same(xp.vecdot(r, r, axis=0), np.vecdot(hr, hr, axis=0))
    with pytest.raises(ValueError, match="differ in length"):
        xp.vecdot(r, r[0], axis=0)


@pytest.mark.parametrize("include_initial", [False, True])
def test_cumulative_sum_and_prod(rng, include_initial):
    h, x = _pair(rng, (3, 5))
    for axis in (0, 1, -1):
        want = np.cumsum(h, axis=axis)
        wantp = np.cumprod(h, axis=axis)
        if include_initial:
            ax = axis % 2
            want = np.concatenate([np.zeros_like(np.take(h, [0], axis=ax)), want], axis=ax)
            wantp = np.concatenate([np.ones_like(np.take(h, [0], axis=ax)), wantp], axis=ax)
        _same(xp.cumulative_sum(x, axis=axis, include_initial=include_initial), want)
        _same(xp.cumulative_prod(x, axis=axis, include_initial=include_initial), wantp, rtol=1e-10)
    hi = rng.integers(0, 9, 11).astype(np.int8)
    got = xp.cumulative_sum(xp.asarray(hi, device=DEV), include_initial=include_initial)
    _same(got, np.cumsum(np.concatenate([[0], hi]) if include_initial else hi, dtype=np.int64))
    with pytest.raises(ValueError, match="axis is required"):
        xp.cumulative_sum(x)


def test_statistics_take_correction(rng):
    h, x = _pair(rng, (6, 7))
    _same(xp.var(x, correction=1), np.var(h, ddof=1))
    _same(xp.std(x, axis=0, correction=1.5, keepdims=True), np.std(h, axis=0, ddof=1.5, keepdims=True))
    _same(xp.sum(x, axis=(0, 1), keepdims=True), np.sum(h, axis=(0, 1), keepdims=True))
    _same(xp.mean(x, axis=1), np.mean(h, axis=1))
    _same(xp.prod(x, axis=0, dtype=xp.float32), np.prod(h, axis=0, dtype=np.float32), rtol=1e-5, atol=1e-6)
    hi = rng.integers(0, 5, (4, 3)).astype(np.int32)
    _same(xp.sum(xp.asarray(hi, device=DEV)), np.sum(hi))  # integers accumulate in int64
    _same(xp.max(x, axis=1), np.max(h, axis=1))
    _same(xp.argmin(x, axis=0, keepdims=True), np.argmin(h, axis=0, keepdims=True))
    _same(xp.count_nonzero(x > 0, axis=1), np.count_nonzero(h > 0, axis=1))
    _same(xp.all(x > -100, axis=0), np.all(h > -100, axis=0))
    _same(xp.diff(x, axis=0, n=2), np.diff(h, axis=0, n=2))
    hp = rng.standard_normal((1, 7))
    _same(xp.diff(x, axis=0, prepend=xp.asarray(hp, device=DEV)), np.diff(h, axis=0, prepend=hp))


def test_manipulation(rng):
    h, x = _pair(rng, (2, 3, 4))
    _same(xp.flip(x), np.flip(h))
    _same(xp.flip(x, axis=(0, -1)), np.flip(h, axis=(0, -1)))
    _same(xp.permute_dims(x, (2, 0, 1)), np.transpose(h, (2, 0, 1)))
    _same(xp.reshape(x, (4, 6)), h.reshape(4, 6))
    with pytest.raises(ValueError):
        xp.reshape(x.mT, (24,), copy=False)
    _same(xp.squeeze(x[:, :1], axis=1), h[:, 0])
    with pytest.raises(ValueError, match="length 3"):
        xp.squeeze(x, axis=1)
    _same(xp.expand_dims(x, axis=-1), h[..., None])
    _same(xp.concat([x, x], axis=None), np.concatenate([h, h], axis=None))
    _same(xp.stack([x, x], axis=1), np.stack([h, h], axis=1))
    _same(xp.roll(x, 2, axis=2), np.roll(h, 2, axis=2))
    parts = xp.unstack(x, axis=1)
    assert len(parts) == 3
    for i, p in enumerate(parts):
        _same(p, h[:, i])
    hb, b = _pair(rng, (3, 1))
    got = xp.broadcast_arrays(x, b)
    for g, w in zip(got, np.broadcast_arrays(h, hb)):
        _same(g, w)
    _same(xp.matrix_transpose(x), np.matrix_transpose(h))
    _same(xp.matmul(x, x.mT), h @ h.mT, rtol=1e-10, atol=1e-10)
    h2, x2 = _pair(rng, (4, 5))
    for ha, a, hb, b in [(h, x, h2, x2), (h[0, 0], x[0, 0], h.mT, x.mT), (h, x, h2[:, 0], x2[:, 0])]:
        _same(xp.matmul(a, b), ha @ hb, rtol=1e-10, atol=1e-10)
    _same(xp.where(x > 0, x, 0.0), np.where(h > 0, h, 0.0))


def test_data_type_functions(rng):
    h, x = _pair(rng, (5,))
    y = xp.astype(x, xp.int32)
    _same(y, h.astype(np.int32))
    assert xp.astype(x, xp.float64, copy=False) is x
    assert xp.result_type(x, xp.float32) == xp.float64
    assert xp.result_type(xp.int8, xp.uint8) == xp.int16
    assert xp.result_type(xp.astype(x, xp.float32), 1.0) == xp.float32
    assert xp.can_cast(x, xp.float32) is False and xp.can_cast(xp.int8, xp.int16) is True
    assert xp.finfo(x).eps == np.finfo(np.float64).eps and xp.iinfo(xp.int16).max == 32767
    assert xp.isdtype(x.dtype, "real floating") and not xp.isdtype(xp.int8, ("bool", "real floating"))
    with pytest.raises(ValueError, match="at least one array or dtype"):
        xp.result_type(1, 2.0)


def test_inspection():
    info = xp.__array_namespace_info__()
    assert info.default_device() == xp.default_queue().device
    assert info.default_dtypes()["real floating"] == xp.float64
    assert info.default_dtypes()["indexing"] == xp.int64
    assert set(info.dtypes()) == {
        "bool",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "float32",
        "float64",
        "complex64",
        "complex128",
    }
    assert set(info.dtypes(kind="real floating")) == {"float32", "float64"}
    assert set(info.dtypes(kind=("bool", "unsigned integer"))) == {
        "bool",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
    }
    assert info.capabilities()["data-dependent shapes"] is True
    assert info.default_device() in info.devices()


def test_arguments_that_are_not_numba_ext_arrays_are_named(rng):
    h, x = _pair(rng, (4,))
    with pytest.raises(TypeError, match=r"numba_ext\.sum\(\): x must be a numba_ext\.ndarray.*asarray"):
        xp.sum(h)
    with pytest.raises(TypeError, match=r"numba_ext\.add\(\): x2 must be a numba_ext\.ndarray, not ndarray"):
        xp.add(x, h)
    with pytest.raises(TypeError, match=r"arrays\[1\]"):
        xp.concat([x, h])
    with pytest.raises(TypeError, match="integer is required for the axis"):
        xp.unstack(x, axis=True)


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.bool_])
def test_unique_functions(rng, dtype):
    h = rng.integers(-4, 4, (5, 7)).astype(dtype)
    if dtype == np.float64:
        h.flat[[3, 9, 20]] = np.nan  # each NaN a value of its own, as the standard says
    x = xp.asarray(h, device=DEV)
    values, indices, inverse, counts = xp.unique_all(x)
    flat = h.reshape(-1)
    order = np.argsort(flat, kind="stable")
    ordered = flat[order]
    starts = np.concatenate([[True], ordered[1:] != ordered[:-1]])
    want_values = ordered[starts]
    first = np.flatnonzero(starts)
    np.testing.assert_array_equal(xp.asnumpy(values), want_values)
    np.testing.assert_array_equal(xp.asnumpy(indices), order[first])
    np.testing.assert_array_equal(xp.asnumpy(counts), np.diff(np.append(first, flat.size)))
    group = np.cumsum(starts) - 1
    want_inverse = np.empty(flat.size, np.int64)
    want_inverse[order] = group
    np.testing.assert_array_equal(xp.asnumpy(inverse), want_inverse.reshape(h.shape))
    np.testing.assert_array_equal(xp.asnumpy(xp.unique_values(x)), want_values)
    v, c = xp.unique_counts(x)
    np.testing.assert_array_equal(xp.asnumpy(c), np.diff(np.append(first, flat.size)))
    v, inv = xp.unique_inverse(x)
    np.testing.assert_array_equal(xp.asnumpy(v)[xp.asnumpy(inv)], h)  # NaN != NaN: compare positions
    if dtype != np.float64:
        np.testing.assert_array_equal(xp.asnumpy(v), np.unique(h))
    empty = xp.unique_all(xp.asarray(np.zeros(0, dtype), device=DEV))
    assert all(a.shape == (0,) for a in empty)


@pytest.mark.parametrize("descending", [False, True])
def test_sort_argsort_take_searchsorted(rng, descending):
    h = rng.integers(0, 6, (4, 9)).astype(np.float32)
    x = xp.asarray(h, device=DEV)
    for axis in (0, 1, -1):
        want = np.flip(np.sort(h, axis=axis), axis=axis) if descending else np.sort(h, axis=axis)
        np.testing.assert_array_equal(xp.asnumpy(xp.sort(x, axis=axis, descending=descending)), want)
        order = xp.argsort(x, axis=axis, descending=descending)
        got = np.take_along_axis(h, xp.asnumpy(order), axis=axis)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(xp.asnumpy(xp.take_along_axis(x, order, axis=axis)), want)
    idx = rng.integers(-9, 9, 5)
    np.testing.assert_array_equal(
        xp.asnumpy(xp.take(x, xp.asarray(idx, device=DEV), axis=1)), np.take(h, idx, axis=1)
    )
    with pytest.raises(ValueError, match="axis is required"):
        xp.take(x, xp.asarray(idx, device=DEV))
    a = np.sort(h.reshape(-1))
    v = rng.uniform(-1, 7, 11).astype(np.float32)
    for side in ("left", "right"):
        got = xp.searchsorted(xp.asarray(a, device=DEV), xp.asarray(v, device=DEV), side=side)
        np.testing.assert_array_equal(xp.asnumpy(got), np.searchsorted(a, v, side=side))
    hz = rng.integers(-2, 3, (3, 4))
    nz = xp.nonzero(xp.asarray(hz, device=DEV))
    for g, w in zip(nz, np.nonzero(hz)):
        np.testing.assert_array_equal(xp.asnumpy(g), w)
    np.testing.assert_array_equal(
        xp.asnumpy(xp.repeat(x, xp.asarray(np.arange(4), device=DEV), axis=0)),
        np.repeat(h, np.arange(4), axis=0),
    )


def test_array_methods_sort_in_place(rng):
    h, x = _pair(rng, (3, 8))
    x.sort(axis=0)
    h.sort(axis=0)
    np.testing.assert_array_equal(xp.asnumpy(x), h)
    np.testing.assert_array_equal(xp.asnumpy(x.argsort()), h.argsort(kind="stable"))
    np.testing.assert_array_equal(xp.asnumpy(x.take([0, -1], axis=1)), h.take([0, -1], axis=1))
    np.testing.assert_array_equal(xp.asnumpy(x.repeat(2)), h.repeat(2))
    for g, w in zip((x > 0).nonzero(), (h > 0).nonzero()):
        np.testing.assert_array_equal(xp.asnumpy(g), w)


def test_linalg_extension(rng):
    h, x = _pair(rng, (3, 4, 4))
    for order in ("fro", 1, -1, xp.inf, -xp.inf):
        _same(xp.linalg.matrix_norm(x, ord=order), np.linalg.matrix_norm(h, ord=order), rtol=1e-10)
    _same(
        xp.linalg.matrix_norm(x, ord=1, keepdims=True),
        np.linalg.matrix_norm(h, ord=1, keepdims=True),
        rtol=1e-10,
    )
    for order in (2, -2, "nuc"):  # from singular values made on the device
        _same(xp.linalg.matrix_norm(x, ord=order), np.linalg.matrix_norm(h, ord=order), rtol=1e-10)
    for order in (2, 1, 0, xp.inf, -xp.inf, 3, 0.5):
        _same(
            xp.linalg.vector_norm(x, ord=order, axis=(0, 2)),
            np.linalg.vector_norm(h, ord=order, axis=(0, 2)),
            rtol=1e-10,
        )
    _same(xp.linalg.matrix_power(x, 5), np.linalg.matrix_power(h, 5), rtol=1e-9, atol=1e-9)
    _same(xp.linalg.matrix_power(x, 0), np.linalg.matrix_power(h, 0))
    ha, a = _pair(rng, (5, 3))
    hb, b = _pair(rng, (5, 3))
    _same(xp.linalg.cross(a, b), np.cross(ha, hb), rtol=1e-10)
    _same(xp.linalg.cross(a.T, b.T, axis=0), np.cross(ha.T, hb.T, axis=0), rtol=1e-10)
    _same(xp.linalg.trace(x, offset=1), np.linalg.trace(h, offset=1))
    _same(xp.linalg.diagonal(x, offset=-1), np.linalg.diagonal(h, offset=-1))
    _same(xp.linalg.outer(a[:, 0], b[0]), np.outer(ha[:, 0], hb[0]))
    assert xp.linalg.matmul is xp.matmul and xp.linalg.vecdot is xp.vecdot


def test_asarray_of_sequences_holding_arrays(rng):
    h, x = _pair(rng, (2, 3))
    got = xp.asarray([[x[i, j] for i in range(2)] for j in range(3)], dtype=x.dtype)
    _same(got, h.T)
    assert got.sycl_queue == x.sycl_queue
    _same(xp.asarray([x[0], x[1] * 2]), np.stack([h[0], h[1] * 2]))
    _same(xp.asarray((x[0, 0], 1.5)), np.array([h[0, 0], 1.5]))
    shared = xp.asarray(h, device=DEV, usm_type="shared")
    assert xp.asarray([shared[0], x[1]]).usm_type == "device"  # device < shared < host
    assert xp.asarray([shared[0]]).usm_type == "shared"


def test_cross_broadcasts(rng):
    ha, a = _pair(rng, (3,))
    hb, b = _pair(rng, (4, 3))
    _same(xp.linalg.cross(a, b), np.cross(ha, hb), rtol=1e-10)
    with pytest.raises(ValueError, match="do not broadcast"):
        xp.linalg.cross(b, b[:2])
