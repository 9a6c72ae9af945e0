"""Jitted functions that reduce along an axis, compiled from their source without Numba: the same bits
as Numba's compilation of the same function (the same kernels in the same order), NumPy's values and
dtypes, NaN and empty axes as NumPy, USM types, and the calls that go to Numba instead."""

import warnings

import numpy as np
import pytest

import numba_ext
from numba_ext import _core
from numba_ext.errors import MixedUSMTypeWarning
from numba_ext.placement import coerce_usm_types

from ..checks import fp_tol, poison
from ..conftest import DEV, require_device_in_child_process
from ._children import code_generated_in_child, numba_free_child


def l2_norm(a):
    return np.sqrt(np.sum(np.square(a), axis=1))


def every_op(a):
    return np.sum(a, axis=0), np.prod(a, 1), np.mean(a, axis=-1), np.amin(a, 0), a.max(axis=1)


def nested(a, k):
    s = np.sum(a * k, axis=0)
    u = (a - s).max(axis=1)
    return u * 2.0, s


def statements(a, b):
    t = a / b
    c = t + 1
    return np.sum(c * 3, axis=1) - c.mean(1)


def three_d(a):
    return a.sum(axis=1), np.max(a + a, -1) * 0.5, np.prod(a, axis=0)


def _host(result):
    result = result if isinstance(result, tuple) else (result,)
    return tuple(numba_ext.asnumpy(r) for r in result)


def _check(func, host_args, args, exact_numpy=False, numpy_dtypes=True, sum_atol=None):
    """The source path's results: no Numba compile, the bits of Numba's path, NumPy's values (within
    the float tolerance; exact for integers) and dtypes (`numpy_dtypes`: where Numba's typing of
    scalar operands does not differ from NumPy's; where it does, float32 data computes partly in
    float64, so NumPy's reference is computed in float64, within `sum_atol` for sums of float32
    roundings)."""
    if not numpy_dtypes:
        host_args = [
            h.astype(np.float64) if isinstance(h, np.ndarray) and h.dtype.kind == "f" else h
            for h in host_args
        ]
    f = numba_ext.jit(func)
    for h in host_args:
        if isinstance(h, np.ndarray):
            poison(h.size, "float64", "int64")
    got = _host(f(*args))
    assert f._impl is None, "served from the source: Numba was not involved"
    by_numba = _host(numba_ext.compiler.jit(func)(*args))
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = func(*host_args)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    for g, n, w in zip(got, by_numba, want):
        assert g.dtype == n.dtype and g.shape == n.shape == np.shape(w)
        assert g.dtype == np.asarray(w).dtype or not numpy_dtypes
        np.testing.assert_array_equal(g.view(np.uint8), n.view(np.uint8))  # bit for bit
        if g.dtype.kind in "fc" and not exact_numpy:
            coarser = min(g.dtype, np.asarray(w).dtype, key=lambda d: d.itemsize)
            tol = fp_tol(coarser) if sum_atol is None else {"rtol": 1e-5, "atol": sum_atol}
            np.testing.assert_allclose(g, w, **tol)
        else:
            np.testing.assert_array_equal(g, w)
    return f


@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "uint8", "int64", "uint64"])
def test_every_reduction_of_every_dtype(rng, dtype):
    h = (rng.random((23, 7)) * 5).astype(dtype)
    if dtype == "uint64":
        h[3, 2] = 2**63 + 5  # beyond int64: the unsigned sum
    _check(every_op, [h], [numba_ext.asarray(h)])


def test_bool_sums_and_means(rng):
    def counts(m):
        return np.sum(m, axis=0), m.mean(1), np.prod(m, 1)

    h = rng.random((31, 6)) < 0.5
    _check(counts, [h], [numba_ext.asarray(h)])


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_l2_norm_and_reductions_of_expressions(rng, dtype):
    h = rng.standard_normal((1001, 3)).astype(dtype)
    f = _check(l2_norm, [h], [numba_ext.asarray(h)])
    assert len(f.inspect_kernels(numba_ext.asarray(h))) == 3  # square, sum, sqrt: as Numba's path
    hb = rng.uniform(0.5, 2, 3).astype(dtype)
    # `t + 1` on float32 arrays: Numba's loop for an int scalar is float64's (NumPy keeps float32)
    single = {} if dtype == "float64" else {"numpy_dtypes": False, "sum_atol": 1e-2}  # 1001 terms
    _check(statements, [h, hb], [numba_ext.asarray(h), numba_ext.asarray(hb)], **single)
    _check(nested, [h, 1.5], [numba_ext.asarray(h), 1.5], **single)


def test_integer_operands_of_expressions(rng):
    h = rng.integers(-50, 50, (40, 9), dtype=np.int32)
    hb = rng.integers(1, 9, 9, dtype=np.int32)
    _check(statements, [h, hb], [numba_ext.asarray(h), numba_ext.asarray(hb)])
    _check(nested, [h, 3], [numba_ext.asarray(h), 3], exact_numpy=True)


def test_strided_transposed_and_three_dimensional_operands(rng):
    h = rng.standard_normal((20, 30))
    a = numba_ext.asarray(h)
    _check(every_op, [h[::2, 3:17]], [a[::2, 3:17]])
    _check(every_op, [h.T], [a.T])
    _check(every_op, [h[::-3, ::-2]], [a[::-3, ::-2]])
    h3 = rng.standard_normal((4, 6, 5))
    _check(three_d, [h3], [numba_ext.asarray(h3)])
    _check(three_d, [h3.transpose(2, 0, 1)], [numba_ext.asarray(h3).transpose(2, 0, 1)])


def test_nan_and_empty_axes_as_numpy(rng):
    h = rng.standard_normal((5, 6))
    h[1, 3] = h[4, 0] = np.nan
    _check(every_op, [h], [numba_ext.asarray(h)])

    def sums(a):
        return np.sum(a, axis=1), a.mean(axis=1), np.prod(a, 1)

    for shape in [(4, 0), (0, 3)]:
        h = np.zeros(shape)
        _check(sums, [h], [numba_ext.asarray(h)])

    def smallest(a):
        return np.min(a, axis=1)

    f = numba_ext.jit(smallest)
    with pytest.raises(ValueError, match="zero-size array to reduction operation minimum"):
        f(numba_ext.asarray(np.zeros((3, 0))))
    assert f._impl is None
    got = f(numba_ext.asarray(np.zeros((0, 4))))  # nothing to reduce along 1 of 0 rows
    assert numba_ext.asnumpy(got).shape == (0,)


def test_usm_types_follow_the_operands(rng):
    h, hb = rng.standard_normal((9, 4)), rng.standard_normal(4)
    f = numba_ext.jit(nested)
    for usm in ("device", "shared", "host"):
        u, s = f(numba_ext.asarray(h, usm_type=usm), 2.0)  # the operand's, through the steps
        assert u.usm_type == s.usm_type == usm
        np.testing.assert_allclose(numba_ext.asnumpy(s), (h * 2.0).sum(0), **fp_tol())
    g = numba_ext.jit(statements)
    with pytest.warns(MixedUSMTypeWarning):
        r = g(numba_ext.asarray(h, usm_type="device"), numba_ext.asarray(hb, usm_type="host"))
    assert r.usm_type == coerce_usm_types(["device", "host"]) == "device"  # as elementwise results
    np.testing.assert_allclose(
        numba_ext.asnumpy(r), ((h / hb + 1) * 3).sum(1) - (h / hb + 1).mean(1), **fp_tol()
    )
    assert f._impl is None and g._impl is None


def test_calls_outside_the_reductions_covered_go_to_numba(rng):
    h = rng.standard_normal((6, 5))
    a = numba_ext.asarray(h)

    def keepdims(x):
        return np.sum(x, axis=1, keepdims=True)

    def bad_axis(x):
        return np.sum(x, axis=2)

    g = numba_ext.jit(bad_axis)
    with pytest.raises(np.exceptions.AxisError):
        g(a)
    assert g._impl is not None
    f = numba_ext.jit(keepdims)
    try:
        got = f(a)
    except Exception:
        pass  # Numba's answer either way: what matters is who gave it
    else:
        np.testing.assert_allclose(numba_ext.asnumpy(got), keepdims(h), **fp_tol())
    assert f._impl is not None

    def bool_max(m):
        return np.max(m, axis=0)

    hm = rng.random((5, 3)) < 0.5
    f = numba_ext.jit(bool_max)
    np.testing.assert_array_equal(numba_ext.asnumpy(f(numba_ext.asarray(hm))), hm.max(0))
    assert f._impl is not None


def test_shapes_that_do_not_broadcast_raise_numbas_error(rng):
    def shifted(a, b):
        return np.sum(a - b, axis=0)

    f = numba_ext.jit(shifted)
    with pytest.raises(ValueError, match="broadcast"):
        f(numba_ext.asarray(rng.random((4, 3))), numba_ext.asarray(rng.random(5)))


def test_reductions_run_without_numba_and_load_from_the_disk_cache(tmp_path):
    require_device_in_child_process()
    source = """
        import numpy as np
        import numba_ext


        @numba_ext.jit(cache=True)
        def l2_norm(a):
            return np.sqrt(np.sum(np.square(a), axis=1))
    """
    check = """
        from reducing import l2_norm
        h = np.random.default_rng(3).standard_normal((500, 3))
        d = numba_ext.asnumpy(l2_norm(numba_ext.asarray(h)))
        np.testing.assert_allclose(d, np.sqrt((h * h).sum(axis=1)), rtol=1e-12, atol=1e-14)
    """
    child = numba_free_child(tmp_path, "reducing", source, check)

    def run() -> tuple[int, int]:
        return code_generated_in_child(child, tmp_path / "cache")

    assert run() == (3, 0)  # the square, the sum along the axis and the square root: generated, stored
    assert run() == (0, 3)  # all three from the disk


def test_kernels_are_compiled_once_per_device(rng):
    f = numba_ext.jit(l2_norm)
    calls = []
    real = _core.compile_function

    def counting(*a):
        calls.append(1)
        return real(*a)

    _core.compile_function = counting
    try:
        for n in (10, 11, 500):
            h = rng.standard_normal((n, 3))
            np.testing.assert_allclose(
                numba_ext.asnumpy(f(numba_ext.asarray(h))), np.sqrt((h * h).sum(1)), **fp_tol()
            )
    finally:
        _core.compile_function = real
    assert len(calls) == 1  # the sum's kernel, whatever the number of rows
    assert f.signatures == [("float64[:,:]",)]


def test_unused_statements_as_numba_treats_them(rng):
    def unused_scalar(a, k):
        t = k / 0.5  # noqa: F841 (dead code, Numba drops it: served from the source)
        return np.sum(a, axis=0)

    def unused_array(a, b):
        t = a + b  # noqa: F841 (Numba evaluates it unused: its operands must broadcast)
        return np.sum(a, axis=0)

    h = rng.standard_normal((4, 3))
    f = numba_ext.jit(unused_scalar)
    np.testing.assert_allclose(numba_ext.asnumpy(f(numba_ext.asarray(h), 2.0)), h.sum(0), **fp_tol())
    assert f._impl is None

    def unused_call(a, k):
        t = np.sqrt(0.5 / k)  # noqa: F841 (Numba keeps calls, and the arithmetic of their operands)
        return np.sum(a, axis=0)

    c = numba_ext.jit(unused_call)
    np.testing.assert_allclose(numba_ext.asnumpy(c(numba_ext.asarray(h), 2.0)), h.sum(0), **fp_tol())
    with pytest.raises(ZeroDivisionError):
        c(numba_ext.asarray(h), 0.0)
    with pytest.raises(ZeroDivisionError):
        numba_ext.compiler.jit(unused_call)(numba_ext.asarray(h), 0.0)
    assert c._impl is None
    g = numba_ext.jit(unused_array)
    np.testing.assert_allclose(
        numba_ext.asnumpy(g(numba_ext.asarray(h), numba_ext.asarray(h[0]))), h.sum(0), **fp_tol()
    )
    assert g._impl is None  # served from the source, the unused statement computed and dropped
    with pytest.raises(ValueError, match="broadcast"):
        g(numba_ext.asarray(h), numba_ext.asarray(rng.standard_normal(5)))


def test_numpy_arrays_inside_offload_to(rng):
    h = rng.standard_normal((50, 3))
    f = numba_ext.jit(l2_norm)
    with numba_ext.offload_to(numba_ext.Queue(DEV)):
        got = f(h)
        want = numba_ext.compiler.jit(l2_norm)(h)
    assert f._impl is None
    assert isinstance(got, np.ndarray) and got.dtype == want.dtype == np.float64
    np.testing.assert_array_equal(got, want)
    np.testing.assert_allclose(got, np.sqrt((h * h).sum(1)), **fp_tol())
    with pytest.raises(numba_ext.ExecutionPlacementError):
        f(h)


def test_hot_calls_switch_to_numbas_code(rng, monkeypatch):
    monkeypatch.setenv("NUMBA_EXT_HOT_CALLS", "3")
    f = numba_ext.jit(l2_norm)
    h = rng.standard_normal((20, 3))
    a = numba_ext.asarray(h)
    for i in range(5):
        np.testing.assert_allclose(numba_ext.asnumpy(f(a)), np.sqrt((h * h).sum(1)), **fp_tol())
        assert (f._impl is None) == (i < 2)  # the third call has Numba compile these types
    assert any(not isinstance(s[0], str) for s in f.signatures)


def row_reductions(a):
    return np.sqrt(np.sum(a * a, axis=1)), a.max(axis=1), np.mean(a, axis=-1), np.min(a + 1, axis=1)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
def test_long_contiguous_axes_by_work_groups(rng, monkeypatch, dtype):
    """On GPUs a long contiguous axis is reduced by a work-group per result element
    (``ir.reductions.axis_group_function``), forced here on the default device with small
    work-groups: NumPy's values (sums within rounding), from the source; other layouts keep the
    work-item form."""
    from numba_ext.arrays import reductions as arrays_reductions

    monkeypatch.setattr(arrays_reductions, "_cpu", lambda device: False)
    monkeypatch.setattr(arrays_reductions, "GROUP", 16)
    monkeypatch.setattr(arrays_reductions, "GPU_GROUP_LENGTH", 20)
    h = (rng.standard_normal((7, 301)) * 2).astype(dtype)
    f = numba_ext.jit(row_reductions)
    for hx in (h, h[:, ::-1], h.T.copy().T):
        got = [numba_ext.asnumpy(r) for r in f(numba_ext.asarray(hx))]
        assert f._impl is None, "served from the source"
        for g, w in zip(got, row_reductions(hx)):
            assert g.dtype == w.dtype
            np.testing.assert_allclose(g, w, **fp_tol(g.dtype if g.dtype.kind == "f" else "float64"))
    names = {k.name for plan in f._plans.values() for k in plan.kernels}
    assert any("_group1_" in n for n in names) and any("_axis1_" in n for n in names), names
