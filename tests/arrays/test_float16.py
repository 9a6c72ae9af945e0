"""float16 arrays on a device reporting half precision (``has_aspect_fp16``): creation, the
asarray / asnumpy round trip, views, the ``__sycl_usm_array_interface__`` typestr ``<f2`` both ways,
``astype`` to and from float16 (NumPy's rounding, ties to even, overflow to infinity), element access
(the refusal where a device lacks half precision: test_precision_support.py)."""

import numpy as np
import pytest

import numba_ext as nx

from ..checks import INTS, N, poison, rand

F16 = np.float16


pytestmark = pytest.mark.needs_fp16


def half_values(rng, n=N):
    """Random halves with a spread of magnitudes, including subnormals, zeros and infinities."""
    h = (rng.standard_normal(n) * 10.0 ** rng.integers(-6, 5, n)).astype(F16)
    h[:4] = [0.0, -0.0, np.inf, 6e-8]
    return h


def test_creation_functions():
    assert nx.empty(5, dtype=F16).dtype == F16
    for got, want in [
        (nx.zeros((3, 4), dtype="float16"), np.zeros((3, 4), F16)),
        (nx.ones(7, dtype=np.half), np.ones(7, F16)),
        (nx.full((2, 3), 0.1, dtype=F16), np.full((2, 3), 0.1, F16)),
        (nx.arange(0, 3, 0.25, dtype=F16), np.arange(0, 3, 0.25, dtype=F16)),
        (nx.full_like(nx.zeros(4, dtype=F16), 2.5), np.full(4, 2.5, F16)),
    ]:
        host = nx.asnumpy(got)
        assert host.dtype == F16, host.dtype
        np.testing.assert_array_equal(host, want)


def test_round_trip_and_views(rng):
    h = half_values(rng, 6 * 17).reshape(6, 17)
    x = nx.asarray(h)
    assert x.dtype == F16 and x.itemsize == 2 and x.nbytes == h.nbytes
    np.testing.assert_array_equal(nx.asnumpy(x), h)
    np.testing.assert_array_equal(nx.asnumpy(x[1::2, ::-3]), h[1::2, ::-3])
    np.testing.assert_array_equal(nx.asnumpy(x.T.copy()), h.T)
    f = nx.asarray(np.asfortranarray(h), order="K")
    assert f.flags.f_contiguous
    np.testing.assert_array_equal(nx.asnumpy(f), h)


def test_usm_array_interface(rng):
    h = half_values(rng, 40).reshape(5, 8)
    x = nx.asarray(h, usm_type="shared")
    iface = x.__sycl_usm_array_interface__
    assert iface["typestr"] == "<f2" and iface["shape"] == (5, 8)
    v = x[1:, ::2]
    vi = v.__sycl_usm_array_interface__
    assert vi["strides"] == (8, 2) and vi["typestr"] == "<f2"

    class Foreign:
        def __init__(self, arr):
            self._arr = arr
            self.__sycl_usm_array_interface__ = arr.__sycl_usm_array_interface__
            self.usm_type = arr.usm_type

    y = nx.asarray(Foreign(v))
    assert y.dtype == F16 and y._data_ptr == v._data_ptr  # no copy
    np.testing.assert_array_equal(nx.asnumpy(y), h[1:, ::2])


@pytest.mark.parametrize("src", ["float32", "float64", "bool", *INTS])
def test_astype_to_float16(rng, src):
    h = (rng.standard_normal(N) * 10.0 ** rng.integers(-8, 7, N)) if src.startswith("float") else None
    h = h.astype(src) if h is not None else rand(rng, src)
    poison(N, "float16")
    with np.errstate(over="ignore"):  # NumPy warns of the values beyond float16's range
        got = nx.asarray(h).astype(F16)
        want = h.astype(F16)
    assert got.dtype == F16
    # exactly NumPy's rounding (to nearest, ties to even; beyond 65504 infinity)
    np.testing.assert_array_equal(nx.asnumpy(got), want)


def test_float64_rounds_once_to_half():
    # values a hair above a tie between two halves: rounding through float32 first would land on the
    # tie and round to even; NumPy rounds the float64 value directly
    base = np.arange(1, 200, dtype=np.float64)
    ties = (base + 0.5) * 2.0**-10 + 1.0
    above = ties + 2.0**-40
    h = np.concatenate([ties, above, -above, above * 2.0**-20, [65519.0, 65520.0, 1e300, 5.9e-8]])
    with np.errstate(over="ignore"):
        got = nx.asnumpy(nx.asarray(h).astype(F16))
        want = h.astype(F16)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dst", ["float32", "float64", "bool", "int8", "int16", "int32", "int64", "uint8"])
def test_astype_from_float16(rng, dst):
    h = half_values(rng)
    if np.dtype(dst).kind in "iu":
        h = np.clip(np.nan_to_num(h), -100, 100).astype(F16)  # in range: NumPy leaves the rest undefined
        if np.dtype(dst).kind == "u":
            h = np.abs(h)
    poison(N, dst)
    got = nx.asarray(h).astype(dst)
    np.testing.assert_array_equal(nx.asnumpy(got), h.astype(dst))


def test_element_access(rng):
    h = half_values(rng)
    x = nx.asarray(h)
    assert x[5] == h[5] and float(x[7]) == float(h[7])
    x[3] = 0.1
    x[10:20] = np.float16(-2.5)
    h[3], h[10:20] = 0.1, -2.5
    np.testing.assert_array_equal(nx.asnumpy(x), h)
