"""Allocation inside jitted code (numba_ext.empty & co., the *_like functions of numba_ext and NumPy,
eagerly and in jitted code) and float32 prange bodies. Fresh random inputs, checked value by value
against NumPy."""

import math

import numpy as np
import pytest
from numba import prange

import numba_ext as nx

from ..checks import check, check_all
from ..conftest import DEV


# -- prange bodies in float32 -------------------------------------------------------------------------
@nx.jit
def float32_body(x, y, out):
    for i in prange(x.shape[0]):
        v = x[i]
        w = y[i]
        out[i] = (
            math.log(v)
            + math.sin(v) * math.cos(w)
            - math.atan2(w, v)
            + math.floor(v * np.float32(3.0))
            + math.fabs(w)
            + math.pow(v, np.float32(1.5))
        )
    return out


def test_prange_float32_math_body_writes_into_the_argument(rng):
    q = nx.Queue(DEV)
    hx = rng.uniform(0.05, 4.0, 1001).astype(np.float32)
    hy = rng.standard_normal(1001).astype(np.float32)
    x, y = nx.asarray(hx, sycl_queue=q), nx.asarray(hy, sycl_queue=q)
    out = nx.full(1001, np.nan, dtype=np.float32, sycl_queue=q)
    res = float32_body(x, y, out)
    assert res.sycl_queue == x.sycl_queue and out.sycl_queue == x.sycl_queue
    assert res._data_ptr == out._data_ptr and res.dtype == np.float32
    want = (
        np.log(hx)
        + np.sin(hx) * np.cos(hy)
        - np.arctan2(hy, hx)
        + np.floor(hx * np.float32(3.0))
        + np.abs(hy)
        + np.power(hx, np.float32(1.5))
    )
    assert want.dtype == np.float32
    np.testing.assert_allclose(nx.asnumpy(out), want, rtol=1e-5, atol=1e-5)


# -- allocation inside jitted code ---------------------------------------------------------------------
@nx.jit
def allocate_on_device(n, v):
    return (
        nx.zeros(n, np.int16, device=DEV),
        nx.ones((2, n), np.float32, device=DEV),
        nx.full(n, v, np.uint8, device=DEV),
        nx.zeros((n, 2), device=DEV),
        nx.full(n, v, device=DEV),
        nx.ones(n, np.bool_, device=DEV),
        nx.full((n, 1), -v, np.int64, device=DEV),
    )


@nx.jit
def allocate_like_args(x, v):
    a = nx.zeros(x.shape[0], np.uint32)
    b = nx.full(x.shape, v, np.float32)
    c = nx.ones(3, np.int8)
    for i in prange(x.shape[0]):
        a[i] = x[i] * 2
    return a, b, c


def test_allocation_inside_jit(rng):
    n, v = int(rng.integers(3, 9)), int(rng.integers(1, 100))
    got = allocate_on_device(n, v)
    want = [
        np.zeros(n, np.int16),
        np.ones((2, n), np.float32),
        np.full(n, v, np.uint8),
        np.zeros((n, 2)),
        np.full(n, v),
        np.ones(n, np.bool_),
        np.full((n, 1), -v, np.int64),
    ]  # [4]: int64, as np.full
    for k, (g, w) in enumerate(zip(got, want)):
        assert g.device == nx.Device(DEV), k
        check(g, w, f"device= [{k}]")
    q = nx.Queue(DEV)
    h = rng.integers(0, 1000, n).astype(np.uint32)
    a, b, c = allocate_like_args(nx.asarray(h, sycl_queue=q), float(v) + 0.5)
    assert a.sycl_queue is q and b.sycl_queue is q and c.sycl_queue is q
    check_all((a, b, c), (h * 2, np.full(n, v + 0.5, np.float32), np.ones(3, np.int8)), "like arguments")


def test_full_without_dtype_inside_jit_takes_the_fill_values_dtype(rng):
    # eager numba_ext.full, np.full and Numba's np.full: the dtype of the fill value
    n = int(rng.integers(2, 6))
    f = nx.jit(lambda n: (nx.full(n, 7), nx.full(n, True), nx.full(n, 2.5)))
    want = (np.full(n, 7), np.full(n, True), np.full(n, 2.5))
    assert [nx.full(n, w[0]).dtype for w in want] == [w.dtype for w in want]  # eagerly
    check_all(f(n), want, "jit")


# -- *_like allocations: numba_ext's and NumPy's, eagerly and in jitted code ------------------------------
def test_like_allocations_eagerly(rng):
    q = nx.Queue(DEV)
    h = rng.standard_normal((3, 5)).astype(np.float32)
    x = nx.asarray(h, sycl_queue=q, usm_type="shared")
    v = float(rng.integers(2, 50))
    got = [
        nx.empty_like(x),
        nx.zeros_like(x),
        nx.ones_like(x, dtype=np.int32),
        nx.full_like(x, v),
        nx.full_like(x, -v, dtype=np.int16, usm_type="host"),
    ]
    for k, g in enumerate(got):
        assert g.shape == h.shape and g.sycl_queue is q, k
        assert g.usm_type == ("host" if k == 4 else "shared"), k
    assert got[0].dtype == np.float32
    check_all(
        got[1:],
        (np.zeros_like(h), np.ones_like(h, np.int32), np.full_like(h, v), np.full_like(h, -v, np.int16)),
        "eager *_like",
    )
    # NumPy input: its shape and dtype, on the default queue, device USM
    z = nx.zeros_like(h.astype(np.int8))
    assert (
        z.dtype == np.int8
        and z.shape == h.shape
        and z.usm_type == "device"
        and z.sycl_queue == nx.default_queue()
    )
    assert not nx.asnumpy(z).any()


@nx.jit
def like_in_jit(a, v):
    out = np.empty_like(a)
    for i in prange(a.shape[0]):
        for j in range(a.shape[1]):
            out[i, j] = a[i, j] * 2.0 + j
    return (
        out,
        np.zeros_like(a),
        np.ones_like(a, np.int32),
        np.full_like(a, v),
        nx.zeros_like(a, usm_type="host"),
        nx.full_like(a, -v, dtype=np.int16),
        nx.empty_like(a, np.uint8),
    )


def test_like_allocations_in_jit_follow_the_array(rng):
    q = nx.Queue(DEV)
    h = rng.standard_normal((4, 6)).astype(np.float32)
    v = float(rng.integers(2, 50))
    for usm in ("shared", "device"):
        x = nx.asarray(h, sycl_queue=q, usm_type=usm)
        got = like_in_jit(x, v)
        for k, g in enumerate(got):  # compute follows data: x's queue, x's USM type unless given
            assert g.sycl_queue is q and g.shape == h.shape, k
            assert g.usm_type == ("host" if k == 4 else usm), (k, usm)
        assert got[6].dtype == np.uint8
        want = (
            h * np.float32(2.0) + np.arange(6, dtype=np.float32),
            np.zeros_like(h),
            np.ones_like(h, np.int32),
            np.full_like(h, v),
            np.zeros_like(h),
            np.full_like(h, -v, np.int16),
        )
        check_all(got[:6], want, f"jit *_like ({usm})")
    # the same function on NumPy arrays in plain Numba: NumPy's *_like (NumPy arrays)
    import numba

    @numba.njit
    def numpy_like(a, v):
        return np.zeros_like(a), np.full_like(a, v), np.ones_like(a, np.int8)

    for g, w in zip(numpy_like(h, v), (np.zeros_like(h), np.full_like(h, v), np.ones_like(h, np.int8))):
        assert type(g) is np.ndarray and g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


def test_like_allocation_between_prange_loops_still_fuses(rng):
    @nx.jit
    def f(a):
        t = np.empty_like(a)
        for i in prange(a.shape[0]):
            t[i] = a[i] * 3.0
        out = nx.empty_like(a)
        for i in prange(a.shape[0]):
            out[i] = t[i] - 1.0
        return out

    h = rng.standard_normal(777)
    x = nx.asarray(h, device=DEV)
    np.testing.assert_allclose(nx.asnumpy(f(x)), h * 3.0 - 1.0, rtol=1e-14, atol=1e-14)
    assert len(f.inspect_kernels(x)) == 1


def test_host_functions_returning_numpy_arrays_are_refused_at_compile_time(rng):
    # np.union1d / np.setxor1d are not offloaded; their NumPy result would leave the queue silently
    x = nx.asarray(rng.standard_normal(16), device=DEV)
    for fn, name in [
        (lambda a: np.union1d(a, a), "np.union1d"),
        (lambda a: np.union1d(a, a) + 1.0, "np.union1d"),
    ]:
        with pytest.raises(nx.UnsupportedError, match=rf"{name}\(\) is not offloaded.*line"):
            nx.jit(fn)(x)
    with pytest.raises(nx.UnsupportedError, match="boolean/fancy indexing.*line"):
        nx.jit(lambda a: a[a > 0.0])(x)
