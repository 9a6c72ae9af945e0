"""The native runner of functions served from their source (``_core.PlanRunner``): calls whose arrays
share one USM type (of one shape, broadcast or strided) run without the plan's Python path and give
NumPy's results; mixed USM types fall back to that path and give them too, and shapes that need
Numba's handling go on to Numba."""

import numpy as np
import pytest

import numba_ext
from numba_ext import _core
from numba_ext.errors import MixedUSMTypeWarning
from numba_ext.functions.plan import Plan
from numba_ext.placement import coerce_usm_types

from ..checks import check
from ..conftest import DEV


@pytest.fixture
def python_path_counted(monkeypatch):
    """Counts the calls that take the plan's Python path."""
    calls = []
    real = Plan._run

    def counted(self, args, queue):
        calls.append(1)
        return real(self, args, queue)

    monkeypatch.setattr(Plan, "_run", counted)
    monkeypatch.setenv("NUMBA_EXT_HOT_CALLS", "-1")  # the source path only
    return calls


def _poisoned_pool(shape, dtype, usm_type="device"):
    """Leave poisoned memory in the allocator's way: results must be written, not found."""
    return numba_ext.full(shape, 123, dtype=dtype, usm_type=usm_type, device=DEV)


def test_common_case_runs_natively(rng, python_path_counted):
    def f(a, b, k, n):
        t = k * 2.0 - n  # a host step
        return a * t + b, np.sqrt(np.abs(a)) - n

    jf = numba_ext.jit(f)
    for shape in [(1000,), (7, 33), (2, 3, 4)]:
        for usm in ["device", "shared", "host"]:
            ha, hb = rng.standard_normal(shape), rng.standard_normal(shape)
            _poisoned_pool(shape, np.float64, usm)  # freed at once: its memory is reused next
            a = numba_ext.asarray(ha, usm_type=usm, device=DEV)
            b = numba_ext.asarray(hb, usm_type=usm, device=DEV)
            k, n = float(rng.uniform(-2, 2)), int(rng.integers(-5, 5))
            x, y = jf(a, b, k, n)
            assert x.usm_type == y.usm_type == usm and x.shape == y.shape == shape
            check(x, ha * (k * 2.0 - n) + hb)  # tolerances of the contraction policy (FMA on PTX)
            check(y, np.sqrt(np.abs(ha)) - n)
            # results (native images only) fed back in take the native path too
            z, _ = jf(x, y, 0.5, 1)
            np.testing.assert_array_equal(numba_ext.asnumpy(z), numba_ext.asnumpy(y))  # x * 0 + y
    assert python_path_counted == []


@pytest.mark.parametrize("dt", [np.float32, np.int32, np.uint8, np.int64, np.bool_])
def test_dtypes_and_numpy_scalars(rng, dt, python_path_counted):
    h = (rng.standard_normal(257) * 50).astype(dt)
    a = numba_ext.asarray(h, device=DEV)
    jf = numba_ext.jit(lambda a, k: (a > k, a * 2))
    for k in [3, 2.5, np.float32(1.5), np.int64(-4), np.float64(0.25)]:
        gt, twice = jf(a, k)
        np.testing.assert_array_equal(numba_ext.asnumpy(gt), h > k)
        want = numba_ext.compiler.jit(lambda a: a * 2)(a)  # Numba's dtype rule, computed by Numba
        got = numba_ext.asnumpy(twice)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, numba_ext.asnumpy(want))
    assert python_path_counted == []


def test_empty_arrays(python_path_counted):
    a = numba_ext.empty((0, 5), device=DEV)
    r = numba_ext.jit(lambda a: a + 1.0)(a)
    assert r.shape == (0, 5) and numba_ext.asnumpy(r).size == 0
    assert python_path_counted == []


def test_broadcasting_and_strided_views_run_natively(rng, python_path_counted):
    h = rng.standard_normal((6, 8))
    jf = numba_ext.jit(lambda a, b: a * 2.0 - b)
    d = numba_ext.asarray(h, device=DEV)
    col = rng.standard_normal((6, 1))
    cube = rng.standard_normal((3, 1, 8))
    cases = [
        (d, numba_ext.asarray(h[0], device=DEV), h * 2.0 - h[0]),  # a row broadcast over rows
        (d, numba_ext.asarray(col, device=DEV), h * 2.0 - col),  # a column broadcast over columns
        (numba_ext.asarray(cube, device=DEV), d, cube * 2.0 - h),  # both broadcast, to (3, 6, 8)
        (d[:, ::2], d[:, 1::2], h[:, ::2] * 2.0 - h[:, 1::2]),  # strided views
        (d[::-1], d, h[::-1] * 2.0 - h),  # negative strides
        (d.T, d.T, h.T * 2.0 - h.T),  # Fortran order
        (d[2:3, :], d[:, 3:4], h[2:3, :] * 2.0 - h[:, 3:4]),  # views of extent 1 broadcast
        (d[:, 1:], 0.5, h[:, 1:] * 2.0 - 0.5),  # a strided array and a scalar
    ]
    for a, b, want in cases:
        _poisoned_pool(want.shape, np.float64)
        got = jf(a, b)
        assert got.shape == want.shape and got.usm_type == "device"
        check(got, want)
    assert python_path_counted == []
    kernels = [p.runner.kernels for p in jf._plans.values() if p is not None and p.runner is not None]
    assert sum(kernels) >= 4  # one per layout of the arrays read


def test_each_result_and_unused_statement_checked_as_the_python_path_does(rng, python_path_counted):
    def f(a, b, c):
        t = a + c  # noqa: F841  (unused: its arrays must still broadcast, as Numba evaluates it)
        return a * 2.0, a - b

    jf = numba_ext.jit(f)
    ha, hb = rng.standard_normal((4, 5)), rng.standard_normal(5)
    a, b = numba_ext.asarray(ha, device=DEV), numba_ext.asarray(hb, device=DEV)
    x, y = jf(a, b, numba_ext.asarray(rng.standard_normal((1, 5)), device=DEV))
    check(x, ha * 2.0)
    check(y, ha - hb)
    assert python_path_counted == []
    with pytest.raises(ValueError):  # NumPy's broadcasting error, from Numba's compiled form
        jf(a, b, numba_ext.asarray(rng.standard_normal(3), device=DEV))

    g = numba_ext.jit(lambda a, b: (a + 1.0, b + 1.0))  # results of two shapes: Numba's
    x, y = g(a, b)
    check(x, ha + 1.0)
    check(y, hb + 1.0)


def test_mixed_usm_types_take_the_python_path(rng, python_path_counted):
    h = rng.standard_normal((6, 8))
    jf = numba_ext.jit(lambda a, b: a * 2.0 - b)
    d = numba_ext.asarray(h, device=DEV)
    for other in ["shared", "host"]:
        b = numba_ext.asarray(h[0], usm_type=other, device=DEV)
        with pytest.warns(MixedUSMTypeWarning):
            got = jf(d, b)
        assert got.usm_type == coerce_usm_types(["device", other])
        check(got, h * 2.0 - h[0])
    assert len(python_path_counted) == 2


def test_host_steps_raise_as_in_python(rng):
    a = numba_ext.asarray(rng.standard_normal(10), device=DEV)

    def f(a, k):
        unused = a + k / 0  # noqa: F841  (an array statement: evaluated, as Numba does)
        return a + k

    with pytest.raises(ZeroDivisionError):
        numba_ext.jit(f)(a, 2.0)


def test_one_kernel_per_device(rng):
    jf = numba_ext.jit(lambda a: a - 1.0)
    h = rng.standard_normal(64)
    for _ in range(3):
        np.testing.assert_array_equal(numba_ext.asnumpy(jf(numba_ext.asarray(h, device=DEV))), h - 1.0)
    (plan,) = [p for p in jf._plans.values() if p is not None]
    assert plan.runner is not None and plan.runner.devices == 1


def test_bad_construction_is_a_value_error():
    with pytest.raises(ValueError, match="not checked"):
        _core.PlanRunner([0], [1], [], [(0, 0), (2, 0)], [8], [0], False, False, [[0]], [])
    with pytest.raises(ValueError, match="out of range"):
        _core.PlanRunner([0], [0], [], [(0, 0), (2, 1)], [8], [0], False, False, [[0]], [])
    with pytest.raises(ValueError, match="host value"):
        order = [(0, 0), (1, 0), (2, 0)]
        _core.PlanRunner([0], [0], [(2, 0, True)], order, [8], [0], False, False, [[0]], [])
    with pytest.raises(ValueError, match="not checked"):  # a result depending on an array not read
        _core.PlanRunner([0], [0], [], [(0, 0), (2, 0)], [8], [0], False, False, [[1]], [])
    with pytest.raises(ValueError, match="dependencies"):
        _core.PlanRunner([0], [0], [], [(0, 0), (2, 0)], [8], [0], False, False, [], [])
