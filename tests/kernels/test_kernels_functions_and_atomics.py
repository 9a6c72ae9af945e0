"""Device functions (calling each other) and atomics (add, sub, min, max, exchange, compare-exchange)
on integer and float arrays."""

import math
import types

import numpy as np
import pytest

import numba_ext as nx


# -- device functions -----------------------------------------------------------------------------
@nx.func
def sq(v):
    return v * v


@nx.func
def dist(a, b):
    return math.sqrt(sq(a) + sq(b))  # a device function calling another


@nx.kernel
def uses_funcs(x, y, out):
    i = nx.get_global_id(0)
    out[i] = dist(x[i], y[i])


def test_device_functions(rng):
    hx, hy = rng.standard_normal(50), rng.standard_normal(50)
    out = nx.empty(50)
    uses_funcs[50](nx.asarray(hx), nx.asarray(hy), out)
    np.testing.assert_allclose(nx.asnumpy(out), np.hypot(hx, hy), rtol=1e-13, atol=1e-14)
    with pytest.raises(RuntimeError, match="only be called from a kernel"):
        sq(2.0)


helpers = types.ModuleType("helpers")  # device functions reached as a module's attributes
helpers.sq = sq
helpers.dist = dist


@nx.kernel
def uses_module_funcs(x, y, out):
    i = nx.get_global_id(0)
    out[i] = helpers.dist(x[i], y[i]) + helpers.sq(x[i])


@nx.jit
def host_uses_module_funcs(v):
    return helpers.sq(v) + helpers.dist(v, v)


def test_device_functions_through_a_module_attribute(rng):
    """``module.f(x)``, which Numba types at every pass, is one type per device function."""
    hx, hy = rng.standard_normal(40), rng.standard_normal(40)
    out = nx.full(40, np.nan)
    uses_module_funcs[40](nx.asarray(hx), nx.asarray(hy), out)
    np.testing.assert_allclose(nx.asnumpy(out), np.hypot(hx, hy) + hx * hx, rtol=1e-13, atol=1e-14)
    assert host_uses_module_funcs(1.5) == pytest.approx(1.5 * 1.5 + math.hypot(1.5, 1.5), rel=1e-15)


# -- atomics --------------------------------------------------------------------------------------------
@nx.kernel
def atomics_all(vals, acc, old_out):
    i = nx.get_global_id(0)
    v = vals[i]
    nx.atomic.add(acc, 0, v)
    nx.atomic.sub(acc, 1, v)
    nx.atomic.min(acc, 2, v)
    nx.atomic.max(acc, 3, v)
    old_out[i] = nx.atomic.exchange(acc, 4, v)


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64"])
def test_atomics(rng, dtype):
    n = 300
    h = (rng.integers(-50, 50, n) if dtype.startswith("int") else rng.integers(-50, 50, n) * 0.5).astype(
        dtype
    )
    acc = nx.asarray(np.array([0, 0, 1000, -1000, 7], dtype=dtype))
    old = nx.empty(n, dtype=dtype)
    atomics_all[n](nx.asarray(h), acc, old)
    a = nx.asnumpy(acc)
    assert a[0] == h.sum() and a[1] == -h.sum()
    assert a[2] == h.min() and a[3] == h.max()
    # exchange: the old values are the initial 7 plus all but one of the inputs
    olds = np.sort(nx.asnumpy(old))
    assert sorted(np.concatenate([[7], h]).tolist()).count(a[4]) >= 1
    assert np.isin(olds, np.concatenate([[7], h])).all()


@nx.kernel
def cas_counter(counter, n):
    # increment with a compare-and-swap loop written by the user
    done = False
    while not done:
        cur = counter[0]
        done = nx.atomic.compare_exchange(counter, 0, cur, cur + n) == cur


@pytest.mark.parametrize("dtype", ["int32", "float64"])
def test_compare_exchange(dtype):
    c = nx.zeros(1, dtype=dtype)
    cas_counter[200](c, 2)
    assert nx.asnumpy(c)[0] == 400
