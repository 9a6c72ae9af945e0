"""``astype`` and ``asarray(x, dtype=...)`` convert on the device, by one kernel, with NumPy's values
for every pair of dtypes, NumPy's memory order for every ``order=`` and layout, NumPy's casting
checks, and no copy through the host; complex values made real keep NumPy's ComplexWarning."""

import numpy as np
import pytest

import numba_ext
from numba_ext.arrays import SUPPORTED_DTYPES, transfers

from ..checks import poison
from ..conftest import DEV

DTYPES = [d.name for d in SUPPORTED_DTYPES]  # every dtype arrays hold


def _source(rng, dtype, shape):
    """Values every target holds after NumPy's conversion rules: within +-120 with fractions (which
    truncate toward zero), zeros, and negative values (which wrap when made unsigned)."""
    if dtype == "bool":
        return rng.random(shape) < 0.5
    v = np.round(rng.uniform(-120, 120, shape), 2)
    v.flat[::5] = 0.0
    if np.dtype(dtype).kind in "iu":
        return v.astype(np.int64).astype(dtype)  # (unsigned: the negative ones wrapped)
    if np.dtype(dtype).kind == "c":
        return (v + 1j * np.round(rng.uniform(-9, 9, shape), 1)).astype(dtype)
    return v.astype(dtype)


@pytest.fixture
def no_host_copies(monkeypatch):
    """Fails any conversion that stages through the host."""

    def refuse(x):
        raise AssertionError("the conversion copied the array to the host")

    monkeypatch.setattr(transfers, "copy_to_host", refuse)


def _skip_without_fp64(*dtypes):
    if not numba_ext.Device(DEV).has_fp64 and {"float64", "complex128"} & set(dtypes):
        pytest.skip("the device has no float64: such conversions run on the host")


@pytest.mark.parametrize("src", DTYPES)
def test_every_pair_of_dtypes_as_numpy(rng, src, no_host_copies):
    half = numba_ext.Device(DEV).has_aspect_fp16
    if src == "float16" and not half:
        pytest.skip("the device has no half precision: it holds no float16 array")
    h = _source(rng, src, (7, 33))
    a = numba_ext.asarray(h)
    for dst in DTYPES:
        if np.dtype(src).kind == "c" and np.dtype(dst).kind != "c":
            continue  # the host's conversion (below)
        _skip_without_fp64(src, dst)
        if dst == "float16" and not half:
            with pytest.raises(numba_ext.errors.UnsupportedError, match="half precision"):
                a.astype(dst)
            continue
        poison(h.size, dst)
        got = a.astype(dst)
        with np.errstate(over="ignore"):  # large uint16 and uint32 values are infinite as float16
            want = h.astype(dst)
        assert got.dtype == want.dtype and got.shape == want.shape, (src, dst)
        np.testing.assert_array_equal(numba_ext.asnumpy(got), want, err_msg=f"{src} -> {dst}")


def test_layouts_and_orders_as_numpy(rng, no_host_copies):
    h = _source(rng, "float64", (12, 10))
    a = numba_ext.asarray(h)
    views = [(a, h), (a.T, h.T), (a[::2, ::-3], h[::2, ::-3]), (a[3], h[3])]
    hf = np.asfortranarray(h)
    views.append((numba_ext.asarray(hf), hf))
    for x, hx in views:
        for order in "KACF":
            for dst in ("float32", "int16", "bool"):
                got, want = x.astype(dst, order=order), hx.astype(dst, order=order)
                np.testing.assert_array_equal(numba_ext.asnumpy(got), want)
                assert got.flags.c_contiguous == want.flags.c_contiguous, order
                assert got.flags.f_contiguous == want.flags.f_contiguous, order
                assert got.strides == want.strides, (order, hx.strides)


def test_asarray_with_a_dtype_and_usm_type(rng, no_host_copies):
    h = _source(rng, "int32", (50,))
    a = numba_ext.asarray(h, usm_type="device")
    for usm in ("device", "shared", "host"):
        got = numba_ext.asarray(a, dtype=np.float32, usm_type=usm)
        assert got.usm_type == usm and got.dtype == np.float32 and got.sycl_queue == a.sycl_queue
        np.testing.assert_array_equal(numba_ext.asnumpy(got), h.astype(np.float32))
    empty = numba_ext.asarray(np.zeros((0, 3), np.int32)).astype(np.float32)
    assert empty.shape == (0, 3) and empty.dtype == np.float32


def test_casting_rules_as_numpy(rng):
    a = numba_ext.asarray(_source(rng, "float64", (5,)))
    with pytest.raises(TypeError, match="Cannot cast"):
        a.astype(np.int32, casting="safe")
    with pytest.raises(TypeError, match="Cannot cast"):
        np.empty(0).astype(np.int32, casting="safe")  # NumPy's own, for the same words
    same_kind = a.astype(np.float32, casting="same_kind")
    np.testing.assert_array_equal(numba_ext.asnumpy(same_kind), numba_ext.asnumpy(a).astype(np.float32))


def test_complex_made_real_warns_as_numpy(rng):
    h = _source(rng, "complex128", (20,))
    a = numba_ext.asarray(h)
    with pytest.warns(np.exceptions.ComplexWarning):
        got = a.astype(np.float64)
    np.testing.assert_array_equal(numba_ext.asnumpy(got), h.real)
