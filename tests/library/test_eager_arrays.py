"""Eager operations on numba_ext arrays outside jitted code: edge shapes (0-d, empty, negative
strides, transposes), the NumPy functions arrays answer through __array_function__, and the eager
compiler's cache (each operation, dtypes and layout compiled once). Fresh random inputs, checked
value by value against NumPy."""

import numpy as np
import pytest

import numba_ext as nx
from numba_ext import _core
from numba_ext.errors import MixedUSMTypeWarning
from numba_ext.library import elementwise as eager

from ..checks import N, check, check_all, host_reference, poison, rand
from ..conftest import DEV


# -- eager operations on edge shapes and views --------------------------------------------------------
def test_eager_zero_d(rng):
    hf, hi = np.float64(rng.standard_normal()), np.int32(rng.integers(-50, 50))
    hv = rng.standard_normal(5)
    f, i, v = nx.asarray(hf), nx.asarray(hi), nx.asarray(hv)
    assert f.shape == () and i.shape == ()
    cases = [
        (f + i, hf + hi),
        (f * f - 1.0, hf * hf - 1.0),
        (np.sqrt(np.abs(f)), np.sqrt(np.abs(hf))),
        (-i, -hi),
        (i // 3, hi // 3),
        (i % 7, hi % 7),
        (f > 0, hf > 0),
        (~i, ~hi),
        (i**2, hi**2),
        (f + v, hf + hv),
        (v * i, hv * hi),
    ]
    for k, (got, want) in enumerate(cases):
        check(got, np.asarray(want), f"case {k}")


def test_eager_empty_and_broadcasting_with_empty(rng):
    e1, e2, col = nx.empty(0), nx.empty((3, 0)), nx.asarray(rng.standard_normal((3, 1)))
    ie = nx.empty((3, 0), dtype=np.int16)
    cases = [
        (e1 + 1.0, (0,), np.float64),
        (e2 * e1, (3, 0), np.float64),
        (col + e1, (3, 0), np.float64),
        (np.sin(e2), (3, 0), np.float64),
        (e2 < e1, (3, 0), np.bool_),
        (ie & 3, (3, 0), np.int16),
        (ie + e1, (3, 0), np.float64),
        (e2.astype(np.int8), (3, 0), np.int8),
        (e2.T - 1, (0, 3), np.float64),
    ]
    for k, (got, shape, dtype) in enumerate(cases):
        check(got, np.empty(shape, dtype), f"case {k}")
    with pytest.raises(ValueError, match="broadcast"):
        nx.empty((2, 0)) + nx.empty(3)


@pytest.mark.parametrize("dtype", ["float64", "int16"])
def test_eager_negative_strides_and_transposes(rng, dtype):
    h = rand(rng, dtype, 12 * 10).reshape(12, 10) if dtype != "float64" else rng.standard_normal((12, 10))
    g = rand(rng, dtype, 10 * 12).reshape(10, 12) if dtype != "float64" else rng.standard_normal((10, 12))
    x, y = nx.asarray(h), nx.asarray(g)
    v = nx.asarray(h[0])
    views = [
        (lambda a, b, r: a[::-2] * 3 - a[1::2], (x, y, v), (h, g, h[0])),
        (lambda a, b, r: a.T + b, (x, y, v), (h, g, h[0])),
        (lambda a, b, r: a[:, ::-1] - b.T[::-1], (x, y, v), (h, g, h[0])),
        (lambda a, b, r: np.maximum(a[::-3, ::-2], r[::-2]), (x, y, v), (h, g, h[0])),
        (lambda a, b, r: r[::-2] + r[::-2], (x, y, v), (h, g, h[0])),
        (
            lambda a, b, r: a.T[2:7, ::-4] ^ 5 if a.dtype.kind == "i" else a.T[2:7, ::-4] ** 2,
            (x, y, v),
            (h, g, h[0]),
        ),
    ]
    for k, (op, dev, host) in enumerate(views):
        check(op(*dev), host_reference(op, *host), f"view {k}")
    # the views' data is untouched
    np.testing.assert_array_equal(nx.asnumpy(x), h)


# -- NumPy functions of numba_ext arrays outside jitted code (__array_function__) ---------------------------
def test_numpy_functions_eagerly_compute_on_the_queue(rng):
    q = nx.Queue(DEV)
    hf = rng.standard_normal((5, 7)).astype(np.float32)
    hi = rng.integers(-100, 100, (5, 7)).astype(np.int8)
    hv = rng.standard_normal(33)
    f, i, v = (nx.asarray(h, sycl_queue=q, usm_type="shared") for h in (hf, hi, hv))
    cases = [  # (numba_ext result, NumPy's): NumPy 2's dtypes (weak Python scalars, strong NumPy ones)
        (np.where(f > 0.1, f, 0.5), np.where(hf > 0.1, hf, 0.5)),
        (np.where(f > 0.1, f, np.float64(0.5)), np.where(hf > 0.1, hf, np.float64(0.5))),
        (np.where(i > 0, i, f), np.where(hi > 0, hi, hf)),
        (np.where(i < 0, 7, i), np.where(hi < 0, 7, hi)),
        (np.clip(f, -0.5, 0.25), np.clip(hf, -0.5, 0.25)),
        (np.clip(i, -5, 500), np.clip(hi, -5, 500)),
        (np.clip(i, None, 3), np.clip(hi, None, 3)),
        (np.clip(f, min=0.0), np.clip(hf, min=0.0)),
        (np.clip(i, 2.5, 3), np.clip(hi, 2.5, 3)),
        (np.clip(f, None, f[0]), np.clip(hf, None, hf[0])),  # an array bound with an open one
        (np.zeros_like(i), np.zeros_like(hi)),
        (np.ones_like(f, dtype=np.int16), np.ones_like(hf, dtype=np.int16)),
        (np.full_like(i, 9), np.full_like(hi, 9)),
        (np.copy(f), hf.copy()),
    ]
    for k, (got, want) in enumerate(cases):
        assert got.sycl_queue is q and got.usm_type == "shared", k
        check(got, want, f"eager NumPy function [{k}]")
    e = np.empty_like(f)
    assert (e.shape, e.dtype, e.sycl_queue, e.usm_type) == (hf.shape, hf.dtype, q, "shared")
    vv = np.dot(v, v)  # a 0-d array on the queue, as dpnp's
    assert vv.shape == () and vv.sycl_queue is q and vv.usm_type == "shared"
    assert float(vv) == pytest.approx(float(hv @ hv), rel=1e-12)
    scale = float((np.abs(hf) @ np.abs(hf).T).max())  # float32 sums may cancel
    np.testing.assert_allclose(nx.asnumpy(np.dot(f, f.T)), hf @ hf.T, rtol=1e-5, atol=1e-6 * scale)
    assert float(np.sum(v)) == pytest.approx(hv.sum())  # via the array's methods
    assert np.reshape(f, (7, 5)).shape == (7, 5)


def test_numpy_functions_eagerly_keep_the_cfd_rules(rng):
    h = rng.standard_normal(8)
    x = nx.asarray(h, device=DEV)
    with pytest.raises(nx.ExecutionPlacementError):
        np.where(x > 0, x, h)  # a NumPy array: its queue cannot be inferred
    with pytest.raises(TypeError, match=r"np.polyfit\(\) is not offloaded.*asnumpy"):
        np.polyfit(x, x, 1)
    nz = np.where(x > 0)  # np.nonzero's indices, on the queue
    assert isinstance(nz, tuple) and nz[0].sycl_queue == x.sycl_queue
    np.testing.assert_array_equal(nx.asnumpy(nz[0]), np.where(h > 0)[0])
    with pytest.raises(ValueError, match="both or neither"):
        np.where(x > 0, x)
    with pytest.raises(nx.UnsupportedError, match="device="):
        np.zeros_like(x, device="cpu")
    z = np.full_like(x, 2.5, shape=(2, 3))  # NumPy's shape=: on the array's queue
    assert isinstance(z, nx.ndarray) and z.sycl_queue == x.sycl_queue
    np.testing.assert_array_equal(nx.asnumpy(z), np.full((2, 3), 2.5))


# -- the eager compiler compiles each (operation, dtypes, layout) once -----------------------------------
def test_eager_operations_compile_once(rng, monkeypatch):
    monkeypatch.setattr(eager, "_cache", {})  # empty caches for this test, restored afterwards
    _core.known_clear()  # and no call kind served natively yet
    compiled = []
    real = eager._compile
    monkeypatch.setattr(eager, "_compile", lambda *a: compiled.append(a) or real(*a))
    h, g = rng.standard_normal(64), rng.standard_normal(64)
    x, y = nx.asarray(h), nx.asarray(g)

    def run(op, want, grows):
        before = len(eager._cache)
        got = op()
        assert len(eager._cache) == before + grows, (len(eager._cache), before, grows)
        check(got, want)

    run(lambda: x + y, h + g, 1)
    run(lambda: x + y, h + g, 0)  # a repeat
    run(lambda: y + x, g + h, 0)  # other arrays of the same kind
    run(lambda: x + 2.0, h + 2.0, 1)  # a scalar operand: another layout
    run(lambda: x + 3.5, h + 3.5, 0)  # another value of the scalar
    run(lambda: x + 3, h + 3, 0)  # a Python int: the same float64 operand (NumPy 2)
    run(lambda: x * y, h * g, 1)  # another operation
    run(
        lambda: nx.asarray(h.astype(np.float32)) + nx.asarray(g.astype(np.float32)),
        h.astype(np.float32) + g.astype(np.float32),
        1,
    )  # another dtype
    run(lambda: x[::2] + y[::2], h[::2] + g[::2], 1)  # a strided layout
    run(lambda: x[1::2] + y[::2], h[1::2] + g[::2], 0)
    assert len(compiled) == 5 and [key[0] for key in eager._cache] == ["add", "add", "multiply", "add", "add"]


def test_known_calls_keep_numpys_rules(rng, monkeypatch):
    """Once a call's kinds are known (operand dtypes, Python number types, shape and queue), the next
    call of those kinds skips placement and type resolution: every case runs three times, with
    fresh values, against NumPy, including those whose values NumPy checks."""
    _core.known_clear()
    served = _core.known_served()
    q = nx.Queue(DEV)
    other_context = nx.Queue(q.device, context=nx.Context(q.device))
    ints = rng.integers(-100, 100, 6, dtype=np.int64)

    for _ in range(3):
        hf, hg = rng.standard_normal((2, 3, 4)).astype(np.float32)
        hi = rng.integers(-100, 100, (3, 4)).astype(np.int8)
        hu = rng.integers(0, 200, 7).astype(np.uint8)
        f, g, i, u = (nx.asarray(h, sycl_queue=q) for h in (hf, hg, hi, hu))
        fs = nx.asarray(hf, sycl_queue=q, usm_type="shared")
        scalar = float(rng.standard_normal())
        cases = [
            (f + g, hf + hg),
            (f * scalar, hf * scalar),
            (2 - f, 2 - hf),
            (f + True, hf + True),
            (f * (1 + 2j), hf * (1 + 2j)),
            (i + 3, hi + 3),
            (i * 2.5, hi * 2.5),
            (i < 1000, hi < 1000),  # beyond int8: NumPy compares the values
            (i > -1000, hi > -1000),
            (i >= int(ints[0]), hi >= int(ints[0])),
            (f > 0, hf > 0),
            (i**2, hi**2),
            (f**2, hf**2),
            (np.sqrt(np.abs(f)), np.sqrt(np.abs(hf))),
            (f[::2] + g[::2], hf[::2] + hg[::2]),  # strided: the general path
            (f + g[0], hf + hg[0]),  # broadcast
            (f.T * g.T, hf.T * hg.T),
        ]
        for k, (got, want) in enumerate(cases):
            check(got, want, f"case {k}")
        q_got, r_got = divmod(i, 7)
        check(q_got, hi // 7, "divmod quotient")
        check(r_got, hi % 7, "divmod remainder")
        assert (f + g).sycl_queue is q and (f + g).usm_type == "device"
        with pytest.warns(MixedUSMTypeWarning):
            mixed = f + fs  # USM types differ: the general path
        check(mixed, hf + hf, "mixed USM types")
        assert (fs * fs).usm_type == "shared" and mixed.usm_type == "device"  # as dpctl coerces
        assert (fs + 1.0).sycl_queue is q
        check(nx.empty(0, dtype=np.float32, sycl_queue=q) + 1.0, np.empty(0, np.float32) + 1.0)
        with pytest.raises(ValueError, match="negative integer powers"):
            i ** nx.asarray(np.array(-1, np.int8), sycl_queue=q)
        with pytest.raises(ValueError, match="negative integer powers"):
            i**-2
        with pytest.raises(OverflowError):
            u + (-1)  # NumPy 2: a Python int out of the array's range
        with pytest.raises(OverflowError):
            u + 300
        with pytest.raises(nx.ExecutionPlacementError):
            f + nx.asarray(hg, sycl_queue=other_context)
        before = _core.known_served()
        check(i >= int(ints[1]), hi >= int(ints[1]))
        check(i**3, hi**3)
        assert _core.known_served() == before  # comparisons of int8 with Python ints, integer powers: checked
    assert _core.known_served() - served > 2 * 12  # the second and third rounds took the known path


def test_builtin_abs_of_arrays_in_jit(rng):
    # Python's abs() of a numba_ext array is np.abs (plain Numba types no abs() of arrays)
    h = rng.integers(-50, 50, N).astype(np.int16)
    g = rng.standard_normal(N)
    f = nx.jit(lambda a, b: (abs(a), abs(b * 2.0) - 1.0))
    got = f(nx.asarray(h), nx.asarray(g))
    check_all(got, (np.abs(h), np.abs(g * 2.0) - 1.0), "jit abs")


@pytest.mark.parametrize("n", [4093, 4099, 65537, 1048573, 64 * 4099 + 63])
def test_elementwise_sizes_without_small_divisors(rng, n):
    # prime and odd sizes: on SPIR-V devices the launch is split into whole work-groups and a tail
    h, g = rng.standard_normal(n + 3), rng.standard_normal(n)
    x, y = nx.asarray(h, device=DEV), nx.asarray(g, device=DEV)
    poison(n, "float64")
    got = x[3:] * 2.0 - y  # an offset view too
    np.testing.assert_array_equal(nx.asnumpy(got), h[3:] * 2.0 - g)
    np.testing.assert_array_equal(nx.asnumpy(np.roll(y, 5)), np.roll(g, 5))
    np.testing.assert_array_equal(nx.asnumpy(nx.sqrt(abs(y))[-7:]), np.sqrt(abs(g))[-7:])
