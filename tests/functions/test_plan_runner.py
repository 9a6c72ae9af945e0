"""The native runner of functions served from their source (``_core.PlanRunner``): the common case
(arrays of one shape, C-contiguous, one USM type) runs without the plan's Python path and gives
NumPy's results; every other case falls back to that path and gives them too."""

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


def test_other_cases_fall_back_to_the_python_path(rng, python_path_counted):
    h = rng.standard_normal((6, 8))
    jf = numba_ext.jit(lambda a, b: a * 2.0 - b)
    d = numba_ext.asarray(h, device=DEV)
    cases = [
        (d, numba_ext.asarray(h[0], device=DEV), h * 2.0 - h[0]),  # broadcasting
        (d[:, ::2], d[:, 1::2], h[:, ::2] * 2.0 - h[:, 1::2]),  # strided views
        (d.T, d.T, h.T * 2.0 - h.T),  # Fortran order
        (d, numba_ext.asarray(h, usm_type="shared", device=DEV), h * 2.0 - h),  # mixed USM types
    ]
    for i, (a, b, want) in enumerate(cases):
        if a.usm_type != b.usm_type:
            with pytest.warns(MixedUSMTypeWarning):
                got = jf(a, b)
            assert got.usm_type == coerce_usm_types(["device", "shared"])
        else:
            got = jf(a, b)
        check(got, want)
        assert len(python_path_counted) == i + 1


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
        _core.PlanRunner([0], [1], [], [(0, 0), (2, 0)], [8], [0], False, False)
    with pytest.raises(ValueError, match="out of range"):
        _core.PlanRunner([0], [0], [], [(0, 0), (2, 1)], [8], [0], False, False)
    with pytest.raises(ValueError, match="host value"):
        _core.PlanRunner([0], [0], [(2, 0, True)], [(0, 0), (1, 0), (2, 0)], [8], [0], False, False)
