"""Jitted functions that reduce over every element (``np.sum(a * b)``, ``x.max()``, ``np.mean(x)``),
compiled from their source without Numba: the values and Python types of Numba's compilation of the
same function (exact for integers, minima and maxima; within rounding for float sums, which both
combine in the device's order), NumPy's values, NaN and empty arrays as NumPy, scalar results used in
host arithmetic and in array expressions, and the calls that go to Numba instead."""

import math
import warnings

import numpy as np
import pytest

import numba_ext
from numba_ext.ir.reductions import WORK_ITEMS

from ..checks import fp_tol, poison
from ..conftest import require_device_in_child_process
from ._children import code_generated_in_child, numba_free_child


def every_op(a):
    return np.sum(a), np.prod(a), np.mean(a), np.amin(a), a.max()


def methods(a):
    return a.sum(), a.min(), a.mean(axis=None), np.max(a, axis=None)


def l2(a):
    return np.sqrt(np.sum(a * a))


def centred(a):
    return a - np.mean(a)


def normalised(a, b):
    s = np.sum(a * b)
    return s, a / s, np.max(np.abs(a - b)) * 2.0


def _values(result):
    result = result if isinstance(result, tuple) else (result,)
    return tuple(numba_ext.asnumpy(r) if isinstance(r, numba_ext.ndarray) else r for r in result)


def _close(got, want, dtype, n):
    """Float sums of `n` terms in `dtype`: the rounding of each term, in any order."""
    if np.dtype(dtype) == np.float32:
        np.testing.assert_allclose(got, want, rtol=max(1e-5, 2e-7 * n), atol=1e-6)
    else:  # a mean that cancels to ~1e-2 of values ~1 differs by ulps of the values, not of it
        tol = fp_tol()
        np.testing.assert_allclose(got, want, rtol=tol["rtol"], atol=max(tol["atol"], 1e-15 * n))


def _check(func, host_args, args, dtype="float64"):
    """The source path's results: no Numba compile; Numba's path's Python types and values (bit for
    bit for integers, minima and maxima; arrays of its dtypes); NumPy's values."""
    f = numba_ext.jit(func)
    for h in host_args:
        if isinstance(h, np.ndarray):
            poison(h.size, "float64", "int64")
    got = _values(f(*args))
    assert f._impl is None, "served from the source: Numba was not involved"
    by_numba = _values(numba_ext.compiler.jit(func)(*args))
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = _values(func(*host_args))
    n = max(np.size(h) for h in host_args)
    assert len(got) == len(by_numba) == len(want)
    for g, b, w in zip(got, by_numba, want):
        assert type(g) is type(b), (g, b)
        if isinstance(g, np.ndarray):
            assert g.dtype == b.dtype and g.shape == b.shape
        exact = np.asarray(g).dtype.kind in "biu"
        if exact:
            np.testing.assert_array_equal(g, b)
            np.testing.assert_array_equal(g, w)
        else:
            _close(g, b, dtype, n)
            _close(g, w, dtype, n)
    return f


def test_extremes_are_exact_and_nan_propagates(rng):
    def extremes(a):
        return np.min(a), a.max(), np.amax(a * 2.0)

    for n in (1, 7, 1000, WORK_ITEMS * 3 + 5):  # one element, some, several per work-item
        h = rng.standard_normal(n)
        a = numba_ext.asarray(h)
        got = numba_ext.jit(extremes)(a)
        assert got == numba_ext.compiler.jit(extremes)(a) == (h.min(), h.max(), (h * 2.0).max())
        for pos in sorted({0, n // 2, n - 1}):
            g = h.copy()
            g[pos] = np.nan
            got = numba_ext.jit(extremes)(numba_ext.asarray(g))
            assert all(math.isnan(x) for x in got), (n, pos, got)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int8", "int32", "uint8", "int64", "uint64"])
def test_every_reduction_of_every_dtype(rng, dtype):
    h = (rng.random(301) * 4 + 0.5).astype(dtype)
    if dtype == "uint64":
        h[3] = 2**63 + 5  # beyond int64: the unsigned sum
    if dtype.startswith("int"):
        h -= 2  # negative values too
    _check(every_op, [h], [numba_ext.asarray(h)], dtype)
    _check(methods, [h], [numba_ext.asarray(h)], dtype)


def test_bool_sums_and_means(rng):
    def counts(m):
        return np.sum(m), m.mean(), np.prod(m)

    h = rng.random(1001) < 0.5
    _check(counts, [h], [numba_ext.asarray(h)])


def test_layouts_and_more_elements_than_work_items(rng):
    h = rng.standard_normal((40, 30))
    a = numba_ext.asarray(h)
    for host, dev in ((h, a), (h.T, a.T), (h[::3, 1::2], a[::3, 1::2]), (h[::-1], a[::-1])):
        _check(every_op, [host], [dev])
    h3 = rng.integers(-9, 9, (5, 4, 3)).astype(np.int32)
    _check(every_op, [h3.transpose(2, 0, 1)], [numba_ext.asarray(h3).transpose(2, 0, 1)], "int32")
    big = rng.integers(-1000, 1000, WORK_ITEMS * 4 + 17)
    _check(every_op, [big], [numba_ext.asarray(big)], "int64")  # a grid-stride loop, exactly
    hf = rng.standard_normal(WORK_ITEMS * 2 + 3)
    _check(every_op, [hf], [numba_ext.asarray(hf)])


def test_one_dimensional_operands_with_an_axis_are_whole(rng):
    def one_d(x):
        return np.sum(x * 2, axis=0), x.max(-1)

    h = rng.standard_normal(50)
    _check(one_d, [h], [numba_ext.asarray(h)])


def test_results_in_host_arithmetic_and_array_expressions(rng):
    h, hb = rng.standard_normal(999), rng.uniform(0.5, 2, 999)
    a, b = numba_ext.asarray(h), numba_ext.asarray(hb)
    _check(l2, [h], [a])
    _check(centred, [h.reshape(27, 37)], [a.reshape(27, 37)])
    _check(normalised, [h, hb], [a, b])
    hi = rng.integers(-20, 20, 999)
    _check(centred, [hi], [numba_ext.asarray(hi)], "int64")  # float64 mean of int64

    def counted(m, x):
        return x * np.sum(m), np.sum(m) // 3 + 1

    hm = rng.random(999) < 0.3
    _check(counted, [hm, hi], [numba_ext.asarray(hm), numba_ext.asarray(hi)], "int64")


def test_typed_scalars_in_array_expressions(rng):
    """A float32 sum is a float32 scalar: a float32 array divided by it stays float32, as in
    Numba's typing; a uint8 maximum times an int32 array is Numba's loop for the pair."""

    def shares(a):
        return a / np.sum(a)

    def scaled(u, x):
        return x * np.max(u)

    h = rng.uniform(0.5, 2, 500).astype(np.float32)
    f = _check(shares, [h], [numba_ext.asarray(h)], "float32")
    assert f(numba_ext.asarray(h)).dtype == np.float32
    hu = rng.integers(0, 255, 40).astype(np.uint8)
    hx = rng.integers(-9, 9, 40).astype(np.int32)
    g = numba_ext.jit(scaled)
    got = g(numba_ext.asarray(hu), numba_ext.asarray(hx))
    want = numba_ext.compiler.jit(scaled)(numba_ext.asarray(hu), numba_ext.asarray(hx))
    assert g._impl is None and got.dtype == want.dtype
    np.testing.assert_array_equal(numba_ext.asnumpy(got), numba_ext.asnumpy(want))
    np.testing.assert_array_equal(numba_ext.asnumpy(got), hx * hu.max())


def test_nan_and_empty_arrays_as_numpy(rng):
    h = rng.standard_normal(64)
    h[5] = np.nan
    _check(every_op, [h], [numba_ext.asarray(h)])

    def sums(a):
        return np.sum(a), a.prod(), np.mean(a)

    for shape in [(0,), (3, 0)]:
        e = np.zeros(shape)
        f = numba_ext.jit(sums)
        got = f(numba_ext.asarray(e))
        assert f._impl is None
        assert got[:2] == (0.0, 1.0) and math.isnan(got[2])
        ints = numba_ext.jit(sums)(numba_ext.asarray(np.zeros(shape, np.int32)))
        assert ints[:2] == (0, 1) and type(ints[0]) is int and math.isnan(ints[2])
    for func in (np.min, np.max):
        f = numba_ext.jit(lambda a, func=func: func(a))
        with pytest.raises(ValueError, match="zero-size array to reduction operation"):
            f(numba_ext.asarray(np.zeros((2, 0))))


def norm32(a):
    return np.sqrt(np.sum(a * a))


def single(a, b):
    return np.sqrt(np.sum(a * a)), np.sum(a) / np.sum(b), np.sum(a) * 2, np.maximum(np.max(a), 1)


def test_float32_scalars_in_host_arithmetic(rng):
    """Numba's typing of float32 scalars: float32 where every operand is float32 (a sum's square
    root, a quotient of two sums, a maximum with an int), float64 with a Python number."""
    h, hb = rng.uniform(0.5, 2, 300).astype(np.float32), rng.uniform(0.5, 2, 300).astype(np.float32)
    a, b = numba_ext.asarray(h), numba_ext.asarray(hb)
    f = numba_ext.jit(norm32)
    got = f(a)
    assert f._impl is None and type(got) is float
    np.testing.assert_allclose(got, numba_ext.compiler.jit(norm32)(a), rtol=1e-6)
    np.testing.assert_allclose(got, np.sqrt((h.astype(np.float64) ** 2).sum()), rtol=1e-5)
    assert got == float(np.float32(got))  # a float32 square root: a float32 value
    g = numba_ext.jit(single)
    got = g(a, b)
    want = numba_ext.compiler.jit(single)(a, b)
    assert g._impl is None
    assert all(type(x) is float for x in got) and all(type(x) is float for x in want)
    np.testing.assert_allclose(got, want, rtol=1e-5)
    assert got[1] == float(np.float32(got[1]))  # float32 / float32: float32
    assert got[3] == want[3] == h.max()  # np.maximum(float32, int): Numba's float32 loop
    with pytest.raises(ZeroDivisionError):
        g(a, numba_ext.asarray(np.zeros(3, np.float32)))


def test_calls_outside_the_reductions_covered_go_to_numba(rng):
    def float32_root(a):
        return np.sum(a) // 2  # floor division of a float32 scalar: Numba's typing

    def bool_min(m):
        return np.min(m)

    def keepdims(a):
        return np.sum(a, keepdims=True)

    h = rng.uniform(0.5, 2, 100).astype(np.float32)
    f = numba_ext.jit(float32_root)
    np.testing.assert_allclose(f(numba_ext.asarray(h)), h.sum() // 2, rtol=1e-5)
    assert f._impl is not None
    g = numba_ext.jit(bool_min)
    hb = rng.random(9) < 0.5
    assert g(numba_ext.asarray(hb)) is bool(hb.min())  # the compiled path's answer (all)
    assert g._impl is not None
    k = numba_ext.jit(keepdims)
    try:
        k(numba_ext.asarray(h))
    except Exception:
        pass  # Numba's answer either way: what matters is who gave it
    assert k._impl is not None


def test_usm_types_and_kernels_inspected(rng):
    h = rng.standard_normal(300)
    f = numba_ext.jit(centred)
    for usm in ("device", "shared", "host"):
        r = f(numba_ext.asarray(h, usm_type=usm))
        assert r.usm_type == usm
        np.testing.assert_allclose(numba_ext.asnumpy(r), h - h.mean(), **fp_tol())
    assert len(f.inspect_kernels(numba_ext.asarray(h))) == 2  # the sum, then the difference
    assert len(numba_ext.jit(l2).inspect_kernels(numba_ext.asarray(h))) == 2  # the square, the sum


def test_whole_reductions_run_without_numba_and_load_from_the_disk_cache(tmp_path):
    require_device_in_child_process()
    source = """
        import numpy as np
        import numba_ext


        @numba_ext.jit(cache=True)
        def norm(a):
            return np.sqrt(np.sum(a * a))
    """
    check = """
        from whole import norm
        h = np.random.default_rng(3).standard_normal((500, 3))
        np.testing.assert_allclose(norm(numba_ext.asarray(h)), np.sqrt((h * h).sum()), rtol=1e-12)
    """
    child = numba_free_child(tmp_path, "whole", source, check)
    assert code_generated_in_child(child, tmp_path / "cache") == (2, 0)  # the square and the sum
    assert code_generated_in_child(child, tmp_path / "cache") == (0, 2)  # both from the disk
