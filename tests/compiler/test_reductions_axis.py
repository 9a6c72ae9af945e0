"""Reductions along an axis (sum prod min max mean any all argmin argmax) and whole-array
argmin/argmax: inside @numba_ext.jit, plain @numba.njit and eagerly, on every layout NumPy views
produce, checked value by value against NumPy on fresh random inputs."""

import warnings

import numba
import numpy as np
import pytest

import numba_ext as nx

from ..checks import refuse_calls
from ..conftest import DEV
from .conftest import poison_result

OPS = ["sum", "prod", "min", "max", "mean", "any", "all", "argmin", "argmax"]
EXACT = {"min", "max", "argmin", "argmax", "any", "all"}


def _data(rng, shape, dtype, op="sum"):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < (0.85 if op == "all" else 0.15)  # some all-True / all-False rows
    if dtype.kind == "f":
        if op == "prod":
            return rng.uniform(0.5, 1.5, shape).astype(dtype)
        return rng.standard_normal(shape).astype(dtype)
    if op in ("any", "all"):
        return rng.integers(0, 4, shape).astype(dtype)  # zeros are common
    return rng.integers(-3, 4, shape).astype(dtype)  # many ties for argmin/argmax; prod stays in range


def _check(got, want, op, dtype):
    if isinstance(got, nx.ndarray):
        assert got.dtype == np.asarray(want).dtype, (got.dtype, np.asarray(want).dtype)
        assert got.shape == np.shape(want)
        got = nx.asnumpy(got)
    if op in EXACT or np.dtype(dtype).kind in "biu":
        np.testing.assert_array_equal(got, want)
    else:
        rtol = 2e-5 if np.dtype(dtype) == np.float32 else 1e-12
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol)


def _ref(h, op, axis):
    return getattr(h, op)(axis=axis)


# Jitted functions are defined once, so tests with inputs of the same type share their compilations
# (each new type compiles the function and the helper kernels it calls: the cost of this file).
ALL = {  # a method, a negative axis, a positional axis, a run-time axis, all elements
    op: nx.jit(
        eval(
            f"lambda x, k: (x.{op}(axis=0), np.{op}(x, axis=-1), np.{op}(x, 1), np.{op}(x, axis=k), "
            f"np.{op}(x), x.{op}())"
        )
    )
    for op in OPS
}
AXIS = {op: nx.jit(eval(f"lambda x, k: np.{op}(x, axis=k)")) for op in OPS}


def _check_all(got, h, op, dtype, k):
    for g, axis in zip(got, (0, -1, 1, k)):
        assert isinstance(g, nx.ndarray)
        _check(g, _ref(h, op, axis), op, dtype)
    for g in got[4:]:
        assert not isinstance(g, nx.ndarray)
        _check(g, getattr(h, op)(), op, dtype)


# -- every operation, dtype and axis -----------------------------------------------------------------
DTYPES = ("int32", "int64", "float32", "float64")


@pytest.mark.parametrize(
    "op,dtype",
    [(op, dt) for op in OPS for dt in DTYPES] + [("any", "bool"), ("all", "bool"), ("argmax", "bool")],
)  # argmax of a mask
def test_every_op_dtype_and_axis(rng, op, dtype):
    h = _data(rng, (5, 6, 7), dtype, op)
    x = nx.asarray(h)
    for axis in (0, 1, 2, -1, -3):
        want = _ref(h, op, axis)
        poison_result(want.shape, want.dtype)
        got = getattr(x, op)(axis=axis)  # eagerly
        assert isinstance(got, nx.ndarray) and got.sycl_queue is x.sycl_queue and got.usm_type == "device"
        _check(got, want, op, dtype)
    if dtype == "float64":  # in jitted code (the same kernels as the eager calls; int32: below)
        _check_all(ALL[op](x, -2), h, op, dtype, -2)


@pytest.mark.parametrize("op", OPS)
def test_1d(rng, op):
    h = _data(rng, 50, "float64", op)
    x = nx.asarray(h)
    for axis in (0, -1):  # a 1-D array reduces to a scalar, as in NumPy
        _check(getattr(x, op)(axis=axis), _ref(h, op, axis), op, "float64")
        _check(AXIS[op](x, axis), _ref(h, op, axis), op, "float64")


def test_usm_type_and_queue_follow_the_input(rng):
    q = nx.Queue(DEV)
    h = rng.standard_normal((3, 4))
    for usm in ("shared", "host"):
        x = nx.asarray(h, sycl_queue=q, usm_type=usm)
        for r in (x.argmin(axis=0), AXIS["argmax"](x, 1), x.T @ x):
            assert r.sycl_queue is q and r.usm_type == usm
        r = AXIS["argmax"](x, 1)
        assert r.dtype == np.int64 and (nx.asnumpy(r) == h.argmax(1)).all()
    with pytest.warns(nx.MixedUSMTypeWarning):
        r = nx.asarray(h, sycl_queue=q, usm_type="host") @ nx.asarray(h.T, sycl_queue=q, usm_type="shared")
    assert r.usm_type == "shared"
    # NumPy's functions call the methods
    x = nx.asarray(h)
    np.testing.assert_array_equal(nx.asnumpy(np.argmax(x, axis=1)), h.argmax(1))
    np.testing.assert_array_equal(nx.asnumpy(np.sum(x, axis=0)), h.sum(0))
    np.testing.assert_array_equal(nx.asnumpy(np.min(x, axis=0)), h.min(0))
    assert np.argmin(x) == h.argmin()


# -- non-contiguous inputs ---------------------------------------------------------------------------
VIEWS = {  # the first two are typed alike, so they share compilations
    "steps": lambda a: a[::2, 1::3, :],
    "negative": lambda a: a[::-1, :, ::-2],
    "permuted": lambda a: a.transpose(1, 0, 2)[:, ::-1],
    "transpose": lambda a: a.T,
    "row_of_view": lambda a: a[1:4, 2, ::-1],
}


@pytest.mark.parametrize("op", OPS)
def test_non_contiguous_views(rng, op):
    dtype = "float32" if op in ("sum", "mean") else "int32"
    h = _data(rng, (7, 8, 9), dtype, op)
    x = nx.asarray(h)
    for name, view in VIEWS.items():
        hv, xv = view(h), view(x)
        assert not xv.flags.c_contiguous, name
        for axis in range(-hv.ndim, hv.ndim):
            _check(getattr(xv, op)(axis=axis), _ref(hv, op, axis), op, dtype)
        if op.startswith("arg"):  # new for N-D views: all elements, eagerly
            assert getattr(xv, op)() == getattr(hv, op)()
    hv, xv = VIEWS["negative"](h), VIEWS["negative"](x)
    _check_all(ALL[op](xv, 2), hv, op, dtype, 2)


# -- argmin / argmax: ties and NaN -------------------------------------------------------------------
EXTREMES = nx.jit(
    lambda x, k: (
        np.argmin(x, axis=k),
        x.argmax(axis=k),
        np.min(x, axis=k),
        x.max(axis=k),
        np.argmin(x),
        x.argmax(),
    )
)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_arg_nan_and_ties(rng, dtype):
    h = rng.standard_normal((6, 40)).astype(dtype)
    h[0, [3, 17]] = np.nan  # two NaNs: the first one
    h[1, 0] = np.nan  # a NaN first
    h[2, -1] = np.nan  # a NaN last
    h[3, [5, 30]] = h[3].min() - 1  # tied minimum: the first one
    h[3, [7, 31]] = h[3].max() + 1  # tied maximum
    h[4, :] = 1.5  # all equal: 0
    h[5, [2, 9]] = [np.inf, -np.inf]
    x = nx.asarray(h)
    ops = ("argmin", "argmax", "min", "max")  # min/max propagate NaN
    for axis in (0, 1):
        got = EXTREMES(x, axis)
        for op, g in zip(ops, got):
            _check(g, _ref(h, op, axis), op, dtype)
            _check(getattr(x, op)(axis=axis), _ref(h, op, axis), op, dtype)
        assert got[4:] == (3, 3)  # all elements: the first NaN (flat index)
    for op in ("argmin", "argmax"):
        assert getattr(x, op)() == getattr(h, op)() == 3
        assert getattr(x[2:], op)() == getattr(h[2:], op)()
        assert getattr(x.T, op)() == getattr(h.T, op)()
        assert getattr(x[3], op)(axis=0) == getattr(h[3], op)()
    if dtype == "float32":
        return  # 3-D: float64 is enough
    t = rng.standard_normal((4, 5, 6)).astype(dtype)
    t[1, :, 2] = np.nan
    t[2, 3, 4] = np.nan
    y = nx.asarray(t)
    for axis in (0, 1, 2):
        for op in ("argmin", "argmax"):
            _check(getattr(y, op)(axis=axis), _ref(t, op, axis), op, dtype)
            _check(getattr(y[:, ::-1], op)(axis=axis), _ref(t[:, ::-1], op, axis), op, dtype)


# -- compiled code runs the eager kernels ------------------------------------------------------------
NORMS = {
    "numba_ext.compiler.jit": nx.compiler.jit(
        lambda x, k: (np.sqrt((x * x).sum(axis=1)), x.argmax(k), x.mean(0))
    ),
    "numba.njit": numba.njit(lambda x, k: (np.sqrt((x * x).sum(axis=1)), x.argmax(k), x.mean(0))),
}


@pytest.mark.parametrize("compiled", sorted(NORMS))
@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "uint8"])
def test_compiled_axis_reductions_run_the_eager_kernels(rng, monkeypatch, eager_calls, compiled, dtype):
    # reductions along an axis in Numba-compiled code (of arguments and of arrays made there) call
    # the eager library's kernels, not a jitted helper: same values, dtypes and queues
    from numba_ext.compiler import reduction_helpers

    refuse_calls(monkeypatch, reduction_helpers, "axis_reducer")
    h = _data(rng, (37, 300), dtype)
    x = nx.asarray(h, usm_type="shared")
    with np.errstate(over="ignore"):
        want = (np.sqrt((h * h).sum(axis=1)), h.argmax(1), h.mean(0))
    for k in (1, -1):
        for got, w, op in zip(NORMS[compiled](x, k), want, ("sum", "argmax", "mean")):
            assert got.usm_type == "shared" and got.sycl_queue.equivalent(x.sycl_queue)
            _check(got, w, op, dtype)
    assert len(eager_calls) == 6, eager_calls


WHOLE_EAGER = {
    "numba_ext.compiler.jit": nx.compiler.jit(lambda x: (x.argmax(), np.argmin(x), (x > 0).any(), np.all(x))),
    "numba.njit": numba.njit(lambda x: (x.argmax(), np.argmin(x), (x > 0).any(), np.all(x))),
}


@pytest.mark.parametrize("compiled", sorted(WHOLE_EAGER))
@pytest.mark.parametrize("dtype", ["float64", "int16", "bool"])
def test_compiled_whole_argmin_argmax_any_all(rng, eager_calls, compiled, dtype):
    # from EAGER_FEWEST elements on the eager kernels, below them the jitted helpers
    from numba_ext.compiler.reductions import EAGER_FEWEST

    for shape in ((EAGER_FEWEST + 7,), (200, 200), (40, 75), (3, 1)):
        h = _data(rng, shape, dtype)
        hv = h[:, ::-1] if len(shape) == 2 else h
        got = WHOLE_EAGER[compiled](nx.asarray(h)[:, ::-1] if len(shape) == 2 else nx.asarray(h))
        want = (hv.argmax(), np.argmin(hv), (hv > 0).any(), np.all(hv))
        assert [type(g) for g in got] == [int, int, bool, bool]
        assert got == want, (got, want)
        eager = [c for c in eager_calls if c[0] == "reduce"]
        assert len(eager) == (4 if h.size >= EAGER_FEWEST else 0), (shape, eager_calls)
        eager_calls.clear()


def test_compiled_axis_reduction_errors_propagate():
    f = nx.compiler.jit(lambda x: x.argmin(axis=1))
    with pytest.raises(ValueError, match="empty sequence"):
        f(nx.empty((3, 0)))
    with pytest.raises(ValueError, match="empty sequence"):
        nx.compiler.jit(lambda x: x.argmax())(nx.empty((0, 3)))
    g = nx.compiler.jit(lambda x: x.mean(axis=1))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # NaN for an empty axis, without the eager call's warning
        np.testing.assert_array_equal(nx.asnumpy(g(nx.empty((2, 0)))), [np.nan, np.nan])


# -- empty inputs ------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape,axis", [((0, 3), 0), ((3, 0), 0), ((3, 0), 1), ((2, 0, 3), 1)])
def test_empty(shape, axis):
    h = np.zeros(shape)
    x = nx.asarray(h)
    for op in OPS:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                want = _ref(h, op, axis)
        except ValueError as e:  # min/max/argmin/argmax of nothing
            with pytest.raises(ValueError, match=str(e)):
                getattr(x, op)(axis=axis)
            if op == "argmax" and x.ndim == 2:
                with pytest.raises(ValueError, match=str(e)):
                    AXIS[op](x, axis)
            continue
        if op == "mean" and h.shape[axis] == 0:
            with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
                got = x.mean(axis=axis)
        else:
            got = getattr(x, op)(axis=axis)
        jitted = op in ("mean", "argmin") and x.ndim == 2
        for g in (got, AXIS[op](x, axis)) if jitted else (got,):
            assert g.shape == want.shape and g.dtype == want.dtype
            np.testing.assert_array_equal(nx.asnumpy(g), want)


def test_empty_whole_array():
    for op, match in [
        ("argmin", "empty sequence"),
        ("argmax", "empty sequence"),
        ("min", "zero-size"),
        ("max", "zero-size"),
    ]:
        with pytest.raises(ValueError, match=match):
            getattr(nx.empty((0, 3)), op)()
    # Numba's parallel np.min/np.max check len() only: (2, 0) gave +-inf
    with pytest.raises(ValueError, match="zero-size array to reduction operation minimum"):
        nx.jit(lambda x: np.min(x))(nx.empty((2, 0)))
    with pytest.raises(ValueError, match="attempt to get argmax of an empty sequence"):
        nx.jit(lambda x: x.argmax())(nx.empty((2, 0)))
    with pytest.raises(ValueError, match="zero-size array to reduction operation maximum"):
        numba.njit(lambda x: x.max())(nx.empty((2, 0)))


# -- errors ------------------------------------------------------------------------------------------
def test_bad_axis_and_unsupported_forms():
    x = nx.asarray(np.ones((2, 3)))
    with pytest.raises(np.exceptions.AxisError, match="axis 2 is out of bounds for array of dimension 2"):
        x.argmin(axis=2)
    with pytest.raises(np.exceptions.AxisError, match="axis -3"):
        nx.jit(lambda v: v.sum(axis=-3))(x)  # a constant axis: when compiling
    with pytest.raises(np.exceptions.AxisError, match="axis 5"):
        AXIS["max"](x, 5)  # a run-time axis: when running
    # eager: tuples of axes and keepdims= computed (tests/library/test_manipulation.py has more)
    assert float(x.sum(axis=(0, 1))) == 6.0
    np.testing.assert_array_equal(nx.asnumpy(x.argmax(axis=0, keepdims=True)), np.zeros((1, 3), np.int64))
    with pytest.raises(nx.UnsupportedError, match="out="):
        np.sum(x, axis=0, out=nx.empty(3))
    for src, what in [
        ("np.sum(v, axis=0, dtype=np.float32)", r"np.sum\(\.\.\., axis=\.\.\., dtype=\.\.\.\).*line"),
        ("v.sum(dtype=np.float32)", r"x.sum\(dtype=\.\.\.\).*line"),
        ("np.min(v, (0, 1))", r"min\(axis=\.\.\.\) .*one integer axis"),
    ]:
        with pytest.raises(nx.UnsupportedError, match=what):
            nx.jit(eval(f"lambda v: {src}"))(x)
    with pytest.raises(nx.UnsupportedError, match=r"np.all\(x\)"):  # of values computed in the function
        nx.jit(lambda v: np.min(v | v))(nx.asarray(np.ones(3, bool)))
    b = nx.asarray(np.array([[True, False], [True, True]]))
    assert not b.min() and b.max()  # eagerly: all / any
    np.testing.assert_array_equal(nx.asnumpy(b.max(axis=0)), [True, True])


# -- plain numba.njit ---------------------------------------------------------------------------------
def test_plain_njit(rng):
    from numba_ext.compiler import reduction_helpers as reductions

    @numba.njit
    def f(x, m, v):
        return np.argmin(x, axis=1), x.sum(axis=0), np.argmax(x.T), m @ v, np.dot(v, m.T), x.max(), np.sum(x)

    h, hm, hv = rng.standard_normal((4, 5)), rng.standard_normal((3, 6)), rng.standard_normal(6)
    a, s, i, mv, vm, mx, total = f(nx.asarray(h), nx.asarray(hm), nx.asarray(hv))
    assert all(isinstance(r, nx.ndarray) for r in (a, s, mv, vm))
    np.testing.assert_array_equal(nx.asnumpy(a), h.argmin(1))
    np.testing.assert_allclose(nx.asnumpy(s), h.sum(0), rtol=1e-12, atol=1e-14)
    assert i == h.T.argmax() and mx == h.max()
    assert total == pytest.approx(h.sum(), rel=1e-12, abs=1e-14 * np.abs(h).sum())  # sums that cancel
    # whole-array reductions of plain numba.njit code ran in the kernels of the jitted helpers
    assert reductions.whole_function("sum", 2, np.float64, True)._dispatcher.signatures
    np.testing.assert_allclose(nx.asnumpy(mv), hm @ hv, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(nx.asnumpy(vm), hv @ hm.T, rtol=1e-12, atol=1e-14)


def test_plain_njit_on_numpy_arrays_is_numba(rng):
    # the redirection must hand NumPy data back to Numba's own implementation (it once recursed)
    h = rng.standard_normal((4, 5))
    f = numba.njit(lambda x: (x.sum(axis=0), np.sum(x, 1), x.sum(), np.min(x), x.argmax()))
    s0, s1, total, mn, i = f(h)
    np.testing.assert_allclose(s1, h.sum(1))
    assert isinstance(s0, np.ndarray) and total == pytest.approx(h.sum()) and (mn, i) == (h.min(), h.argmax())
