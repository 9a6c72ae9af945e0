"""Dask arrays whose blocks are numba_ext arrays: every operation runs on the blocks' queue and the
result is a numba_ext array with NumPy's values."""

import dask
import dask.array as da
import numpy as np
import pytest

import numba_ext
import numba_ext.dask as ned

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:dask.*")


@pytest.fixture(params=["synchronous", "threads"])
def scheduler(request):
    with dask.config.set(scheduler=request.param):
        yield request.param


def _pair(rng, shape=(120, 36), chunks=(50, 12)):
    host = rng.standard_normal(shape)
    return host, da.from_array(numba_ext.asarray(host), chunks=chunks)


def _check(result, want, rtol=1e-12):
    assert isinstance(result, numba_ext.ndarray), type(result)
    assert result.device == numba_ext.default_queue().device
    np.testing.assert_allclose(numba_ext.asnumpy(result), want, rtol=rtol, atol=1e-12)


OPERATIONS = {
    "elementwise": lambda m: (m * 2.0 + 1.0) / (abs(m) + 3.0),
    "ufuncs": lambda m: np.exp(np.sin(m)) - np.sqrt(abs(m)),
    "where": lambda m: np.where(m > 0.3, m, -m),
    "sum": lambda m: m.sum(),
    "sum axis 0": lambda m: m.sum(axis=0),
    "mean": lambda m: m.mean(),
    "mean axis 1": lambda m: m.mean(axis=1),
    "std": lambda m: m.std(),
    "var axis 0": lambda m: m.var(axis=0),
    "min axis 1": lambda m: m.min(axis=1),
    "max": lambda m: m.max(),
    "argmin axis 0": lambda m: m.argmin(axis=0),
    "argmax axis 1": lambda m: m.argmax(axis=1),
    "cumsum axis 0": lambda m: m.cumsum(axis=0),
    "prod axis 1": lambda m: (m * 0.1 + 1.0).prod(axis=1),
    "slice": lambda m: m[7:101:3, ::2],
    "transpose matmul": lambda m: m.T @ m,
    "tensordot": lambda m: np.tensordot(m, m, axes=([0], [0])),
    "broadcast": lambda m: m - m.mean(axis=0),
    "reshape": lambda m: m.reshape(-1),
}


@pytest.mark.parametrize("name", list(OPERATIONS))
def test_operations_on_device_blocks(rng, scheduler, name):
    host, d = _pair(rng)
    op = OPERATIONS[name]
    got = op(d)
    assert isinstance(got._meta, numba_ext.ndarray)
    _check(got.compute(), op(host), rtol=1e-10)


def test_nan_reductions(rng, scheduler):
    host = rng.standard_normal((60, 10))
    host[rng.random(host.shape) < 0.2] = np.nan
    d = da.from_array(numba_ext.asarray(host), chunks=(25, 5))
    _check(da.nansum(d, axis=0).compute(), np.nansum(host, axis=0))
    _check(da.nanmean(d, axis=1).compute(), np.nanmean(host, axis=1))


def test_rechunk_and_concatenate(rng, scheduler):
    host, d = _pair(rng)
    _check(d.rechunk((31, 36)).compute(), host)
    _check(da.concatenate([d, d[:10]], axis=0).compute(), np.concatenate([host, host[:10]]))
    _check(da.stack([d, d + 1.0]).compute(), np.stack([host, host + 1.0]))


def test_map_blocks_with_a_jitted_function(rng, scheduler):
    @numba_ext.jit
    def scaled_norm(x, s):
        return np.sqrt(x * x + s)

    host, d = _pair(rng)
    got = d.map_blocks(scaled_norm, 2.0).compute()
    _check(got, np.sqrt(host * host + 2.0))


def test_map_blocks_with_a_kernel(rng, scheduler):
    @numba_ext.kernel
    def axpy(a, x, y, out):
        i = numba_ext.get_global_id(0)
        out[i] = a * x[i] + y[i]

    def block(x, y):
        out = numba_ext.empty_like(x)
        axpy[numba_ext.Range(x.shape[0])](3.0, x, y, out)
        return out

    hx, hy = rng.standard_normal(1000), rng.standard_normal(1000)
    dx = da.from_array(numba_ext.asarray(hx), chunks=300)
    dy = da.from_array(numba_ext.asarray(hy), chunks=300)
    _check(da.map_blocks(block, dx, dy, dtype=hx.dtype).compute(), 3.0 * hx + hy)


def test_to_backend_round_trip(rng, scheduler):
    host = rng.standard_normal((40, 8))
    d = da.from_array(host, chunks=(15, 8)).to_backend("numba_ext")
    assert isinstance(d._meta, numba_ext.ndarray)
    _check((d * 3.0).compute(), host * 3.0)
    back = (d * 3.0).to_backend("numpy")
    assert isinstance(back._meta, np.ndarray)
    got = back.compute()
    assert type(got) is np.ndarray
    np.testing.assert_allclose(got, host * 3.0)


def test_numba_ext_backend_creation(scheduler):
    with dask.config.set({"array.backend": "numba_ext"}):
        ones = da.ones((30, 4), chunks=(7, 4), dtype="float32")
        full = da.full((9,), 2.5, chunks=4)
        ar = da.arange(3, 40, 2, chunks=5)
        zeros = da.zeros(10, chunks=3, dtype="int64")
    for d in (ones, full, ar, zeros):
        assert isinstance(d._meta, numba_ext.ndarray)
    _check(ones.sum(axis=0).compute(), np.full(4, 30.0, np.float32))
    _check(full.compute(), np.full(9, 2.5))
    _check(ar.compute(), np.arange(3, 40, 2))
    _check((zeros + 5).compute(), np.full(10, 5))


def test_numba_ext_backend_random_numbers_are_made_on_the_device(scheduler):
    with dask.config.set({"array.backend": "numba_ext"}):
        u = da.random.RandomState(42).random_sample((1000,), chunks=300)
        again = da.random.RandomState(42).random_sample((1000,), chunks=300)
        z = da.random.normal(1.0, 2.0, size=(20_000,), chunks=5000)
        k = da.random.randint(0, 5, size=(2000,), chunks=700)
    for d in (u, z, k):
        assert isinstance(d._meta, numba_ext.ndarray)
    hu = numba_ext.asnumpy(u.compute())
    assert hu.min() >= 0.0 and hu.max() < 1.0 and len(np.unique(hu)) == 1000
    np.testing.assert_array_equal(numba_ext.asnumpy(again.compute()), hu)  # seeded: reproducible
    hz = numba_ext.asnumpy(z.compute())
    assert abs(hz.mean() - 1.0) < 0.1 and abs(hz.std() - 2.0) < 0.1
    assert set(numba_ext.asnumpy(k.compute()).tolist()) == {0, 1, 2, 3, 4}


def test_numba_ext_backend_generator_api_is_named_as_missing():
    with dask.config.set({"array.backend": "numba_ext"}):
        with pytest.raises(NotImplementedError, match="RandomState"):
            da.random.default_rng(0)


def test_numel_counts_on_the_blocks_queue(rng):
    x = numba_ext.asarray(rng.standard_normal((4, 5, 6)), usm_type="shared")
    n = ned._numel(x, axis=(0, 2), keepdims=True, dtype="int64")
    assert isinstance(n, numba_ext.ndarray) and n.usm_type == "shared"
    np.testing.assert_array_equal(numba_ext.asnumpy(n), np.full((1, 5, 1), 24))
    host = rng.standard_normal((4, 5))
    host[0, :3] = np.nan
    m = ned._nannumel(numba_ext.asarray(host), axis=1)
    np.testing.assert_array_equal(numba_ext.asnumpy(m), (~np.isnan(host)).sum(axis=1))
