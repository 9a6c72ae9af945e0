"""numba_ext.random: Philox4x32-10 on the device. The raw words match the published known-answer
values and a reference written here; uniforms, normals and integers have the right range and
distribution (chi-square and moment checks with generous bounds, fixed seeds); seeds reproduce
streams and successive calls continue them."""

import math

import numpy as np
import pytest

import numba_ext
import numba_ext.random as nr
from numba_ext.errors import UnsupportedError


def _philox_reference(counter, key):
    x = list(counter)
    k = list(key)
    for _ in range(10):
        p0, p1 = 0xD2511F53 * x[0], 0xCD9E8D57 * x[2]
        x = [
            ((p1 >> 32) ^ x[1] ^ k[0]) & 0xFFFFFFFF,
            p1 & 0xFFFFFFFF,
            ((p0 >> 32) ^ x[3] ^ k[1]) & 0xFFFFFFFF,
            p0 & 0xFFFFFFFF,
        ]
        k = [(k[0] + 0x9E3779B9) & 0xFFFFFFFF, (k[1] + 0xBB67AE85) & 0xFFFFFFFF]
    return x


def test_known_answer_and_reference_words():
    # Random123's known-answer vector for Philox4x32-10: counter 0, key 0
    got = numba_ext.asnumpy(nr.philox_words((0, 0), 0, 4)).tolist()
    assert got == [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]
    assert _philox_reference([0, 0, 0, 0], [0, 0]) == got
    assert _philox_reference([0xFFFFFFFF] * 4, [0xFFFFFFFF] * 2) == [
        0x408F276D,
        0x41C83B0E,
        0xA20BC7C6,
        0x6D5451FD,
    ]
    key = (0xA4093822, 0x299F31D0)
    counter = (1 << 32) - 3  # the counter's carry into its second word
    words = numba_ext.asnumpy(nr.philox_words(key, counter, 4 * 7)).reshape(7, 4)
    for b in range(7):
        c = counter + b
        assert words[b].tolist() == _philox_reference([c & 0xFFFFFFFF, c >> 32, 0, 0], list(key)), b


def test_same_seed_same_stream_and_calls_continue_it():
    a, b = nr.default_rng(123), nr.default_rng(123)
    first = numba_ext.asnumpy(a.random(1000))
    np.testing.assert_array_equal(numba_ext.asnumpy(b.random(1000)), first)
    second = numba_ext.asnumpy(a.random(1000))
    assert not np.array_equal(first, second)
    whole = numba_ext.asnumpy(nr.default_rng(123).random(2000))
    np.testing.assert_array_equal(whole, np.concatenate([first, second]))  # two blocks per 2 values
    assert not np.array_equal(numba_ext.asnumpy(nr.default_rng(124).random(1000)), first)


def test_uniform_float64_is_53_bit_and_uniform():
    u = numba_ext.asnumpy(nr.default_rng(7).random(400_000))
    assert u.dtype == np.float64 and u.min() >= 0.0 and u.max() < 1.0
    assert np.all(u * 2.0**53 == np.floor(u * 2.0**53))  # multiples of 2**-53
    counts = np.bincount((u * 100).astype(int), minlength=100)
    chi2 = ((counts - 4000.0) ** 2 / 4000.0).sum()
    assert chi2 < 200  # 99 degrees of freedom: the 1e-9 tail is far above 200's
    assert abs(u.mean() - 0.5) < 0.005 and abs(u.var() - 1 / 12) < 0.002


def test_uniform_bounds_and_float32():
    g = nr.default_rng(8)
    x = g.uniform(-3.0, 5.0, size=(300, 7))
    assert x.shape == (300, 7) and x.dtype == np.float64
    h = numba_ext.asnumpy(x)
    assert h.min() >= -3.0 and h.max() < 5.0 and abs(h.mean() - 1.0) < 0.2
    f = numba_ext.asnumpy(g.random(100_001, dtype=np.float32))
    assert f.dtype == np.float32 and f.min() >= 0 and f.max() < 1 and abs(f.mean() - 0.5) < 0.01


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_normal_moments(dtype):
    z = numba_ext.asnumpy(nr.default_rng(9).normal(2.0, 3.0, 200_001, dtype=dtype)).astype(np.float64)
    assert np.all(np.isfinite(z))
    assert abs(z.mean() - 2.0) < 0.05 and abs(z.std() - 3.0) < 0.05
    s = (z - 2.0) / 3.0
    assert abs((s**3).mean()) < 0.05 and abs((s**4).mean() - 3.0) < 0.1  # skew 0, kurtosis 3
    within = np.mean(np.abs(s) < 1.0)
    assert abs(within - math.erf(1 / math.sqrt(2))) < 0.01


@pytest.mark.parametrize(("low", "high", "dtype"), [(-5, 7, np.int64), (0, 3, np.int32), (10, 256, np.uint8)])
def test_integers_cover_the_range_evenly(low, high, dtype):
    v = numba_ext.asnumpy(nr.default_rng(10).integers(low, high, 120_000, dtype=dtype))
    assert v.dtype == dtype and v.min() == low and v.max() == high - 1
    k = high - low
    counts = np.bincount(v.astype(np.int64) - low, minlength=k)
    expected = 120_000 / k
    assert ((counts - expected) ** 2 / expected).sum() < k + 10 * math.sqrt(2 * k) + 20


def test_integers_endpoint_and_one_argument():
    g = nr.default_rng(11)
    assert set(numba_ext.asnumpy(g.integers(1, 3, 1000, endpoint=True)).tolist()) == {1, 2, 3}
    assert set(numba_ext.asnumpy(g.integers(4, size=1000)).tolist()) == {0, 1, 2, 3}
    wide = numba_ext.asnumpy(g.integers(-(2**63), 2**63 - 1, 10_000))
    assert wide.min() < -(2**61) and wide.max() > 2**61


def test_placement_and_shapes(queue):
    g = nr.default_rng(12, sycl_queue=queue, usm_type="shared")
    x = g.standard_normal((4, 5))
    assert x.sycl_queue == queue and x.usm_type == "shared" and x.shape == (4, 5)
    s = g.random()
    assert s.shape == () and 0.0 <= float(s) < 1.0
    assert g.random(0).shape == (0,)


def test_module_functions_use_the_default_device():
    nr.seed(5)
    a = numba_ext.asnumpy(nr.rand(3, 4))
    nr.seed(5)
    np.testing.assert_array_equal(numba_ext.asnumpy(nr.random((3, 4))), a)
    assert nr.randn(6).shape == (6,) and nr.randint(0, 4, size=9).dtype == np.int64
    assert nr.uniform(1, 2, 3).shape == (3,) and nr.normal(size=2).shape == (2,)
    assert nr.standard_normal(2).device == numba_ext.default_queue().device


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda g: g.integers(5, 5), ValueError, "low >= high"),
        (lambda g: g.integers(0, 300, dtype=np.uint8), ValueError, "does not fit uint8"),
        (lambda g: g.integers(0, 2, dtype=np.float64), TypeError, "dtype"),
        (lambda g: g.random(dtype=np.int32), TypeError, "float32 or float64"),
        (lambda g: g.normal(0, -1), ValueError, "scale < 0"),
        (lambda g: g.random(size=-1), ValueError, "negative"),
        (lambda g: g.random(size=1.5), TypeError, "size"),
        (lambda g: g.uniform(numba_ext.zeros(3), 1.0), UnsupportedError, "low="),
        (lambda g: g.random(3, out=numba_ext.empty(3)), UnsupportedError, "out="),
        (lambda g: nr.default_rng(1.5), TypeError, "seed"),
        (lambda g: nr.RandomState(0).beta(1, 2), UnsupportedError, "beta"),
    ],
)
def test_bad_arguments_are_clear_errors(call, error, match):
    with pytest.raises(error, match=match):
        call(nr.default_rng(0))


def test_random_state_names():
    rs = nr.RandomState(np.arange(624, dtype=np.uint32))  # a seed array, as Dask gives
    assert rs.random_sample((3,)).shape == (3,) and rs.rand(2, 2).shape == (2, 2)
    assert rs.randint(0, 5, size=4).shape == (4,) and rs.normal(1, 2, size=5).shape == (5,)
    again = nr.RandomState(np.arange(624, dtype=np.uint32))
    np.testing.assert_array_equal(
        numba_ext.asnumpy(again.random_sample((3,))),
        numba_ext.asnumpy(nr.RandomState(np.arange(624, dtype=np.uint32)).random_sample((3,))),
    )


def test_permutation_shuffle_and_choice(rng):
    g = nr.default_rng(21)
    p = numba_ext.asnumpy(g.permutation(1000))
    assert p.dtype == np.int64 and np.array_equal(np.sort(p), np.arange(1000))
    assert not np.array_equal(p, np.arange(1000))
    np.testing.assert_array_equal(numba_ext.asnumpy(nr.default_rng(21).permutation(1000)), p)  # seeded
    host = rng.standard_normal((50, 3))
    x = numba_ext.asarray(host)
    permuted = numba_ext.asnumpy(g.permutation(x))
    assert sorted(map(tuple, permuted)) == sorted(map(tuple, host))  # whole rows move
    cols = numba_ext.asnumpy(g.permutation(x, axis=1))
    np.testing.assert_array_equal(np.sort(cols, axis=1), np.sort(host, axis=1))
    g.shuffle(x)
    shuffled = numba_ext.asnumpy(x)
    assert sorted(map(tuple, shuffled)) == sorted(map(tuple, host)) and not np.array_equal(shuffled, host)
    with_replacement = numba_ext.asnumpy(g.choice(7, size=(40, 5)))
    assert with_replacement.shape == (40, 5) and set(with_replacement.ravel().tolist()) == set(range(7))
    without = numba_ext.asnumpy(g.choice(100, size=60, replace=False))
    assert len(set(without.tolist())) == 60 and without.min() >= 0 and without.max() < 100
    rows = numba_ext.asnumpy(g.choice(numba_ext.asarray(host), size=4, replace=False))
    assert all(any(np.array_equal(r, h) for h in host) for r in rows)
    assert g.choice(5).shape == ()
    nr.seed(3)
    assert sorted(numba_ext.asnumpy(nr.permutation(9)).tolist()) == list(range(9))
    assert nr.choice(4, 3).shape == (3,)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda g: g.choice(5, size=6, replace=False), ValueError, "larger sample"),
        (lambda g: g.choice(0, size=2), ValueError, "empty"),
        (lambda g: g.choice(5, p=[0.2] * 5), UnsupportedError, "p="),
        (lambda g: g.permutation(2.5), TypeError, "int"),
        (lambda g: g.shuffle(np.arange(3)), TypeError, "numba_ext array"),
        (lambda g: g.shuffle(numba_ext.zeros(())), ValueError, "0-d"),
    ],
)
def test_sampling_errors(call, error, match):
    with pytest.raises(error, match=match):
        call(nr.default_rng(0))
