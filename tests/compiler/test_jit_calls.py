"""Calls of @numba_ext.jit functions as Numba's dispatchers take them: keyword arguments, defaults,
keyword-only parameters and *args, with Python's messages for bad calls; jitted functions calling
jitted functions and @numba_ext.func device functions; call_kernel inside jitted code; and returned
arguments that are the very objects passed in."""

import numba
import numpy as np
import pytest

import numba_ext as nx
from numba_ext.devices import Context, Queue
from tests.checks import check, poison


def _pair(rng, n=57):
    h, g = rng.standard_normal(n), rng.standard_normal(n)
    return h, g, nx.asarray(h), nx.asarray(g)


# -- keywords, defaults, keyword-only parameters, *args -------------------------------------------------
@nx.jit
def axpy(x, y, alpha=2.0, beta=1.0):
    return alpha * x + beta * y


def test_keyword_and_default_arguments(rng):
    h, g, a, b = _pair(rng)
    alpha = float(rng.standard_normal())
    poison(h.size, "float64")
    check(axpy(a, b), 2.0 * h + g, "defaults")
    check(axpy(x=a, y=b), 2.0 * h + g, "all by keyword")
    check(axpy(y=b, x=a, alpha=alpha), alpha * h + g, "keywords in any order")
    check(axpy(a, y=b, beta=alpha), 2.0 * h + alpha * g, "a later default given, an earlier omitted")
    check(axpy(a, b, alpha, beta=0.5), alpha * h + 0.5 * g, "positional and keyword")


def test_keyword_calls_of_a_function_without_defaults_use_its_overloads(rng):
    f = nx.jit(lambda x, y: x - y)
    h, g, a, b = _pair(rng)
    check(f(y=b, x=a), h - g)
    check(f(a, b), h - g)
    assert len(f.signatures) == 1  # the keyword call compiled the same overload


def test_keyword_only_parameters(rng):
    @nx.jit
    def scale(x, *, factor, shift=1.0):
        return x * factor + shift

    h, _, a, _ = _pair(rng)
    f = float(rng.uniform(1, 2))
    check(scale(a, factor=f), h * f + 1.0)
    check(scale(a, shift=-2.0, factor=f), h * f - 2.0)
    check(scale(x=a, factor=f), h * f + 1.0)
    with pytest.raises(TypeError, match=r"scale\(\) missing 1 required keyword-only argument: 'factor'$"):
        scale(a)
    with pytest.raises(TypeError, match=r"scale\(\) takes 1 positional argument but 2 were given$"):
        scale(a, f)


def test_star_args(rng):
    @nx.jit
    def total(x, *rest):
        s = x
        for r in rest:
            s = s + r
        return s

    h, g, a, b = _pair(rng)
    check(total(a, b, b), h + 2 * g)
    check(total(a, b), h + g)
    check(total(a, a), 2 * h)


def test_scalar_defaults_with_keywords():
    @nx.jit
    def poly(x, a=1, b=0.5):
        return a * x * x + b

    assert poly(3.0) == 9.5
    assert poly(3.0, b=2.0) == 11.0
    assert poly(b=0.0, x=2.0, a=3) == 12.0


def _python_message(py_func, *args, **kwargs):
    with pytest.raises(TypeError) as e:
        py_func(*args, **kwargs)
    return str(e.value)


def test_bad_calls_raise_python_messages(rng):
    _, _, a, b = _pair(rng)

    @nx.jit
    def kw(x, /, y, *, z, w=1.0):
        return x + y + z + w

    cases = [
        (axpy, (a, b), {"gamma": 1.0}),
        (axpy, (a,), {"x": a}),
        (axpy, (), {"alpha": 1.0, "y": b}),
        (axpy, (), {"alpha": 1.0}),
        (axpy, (a, b, 1.0, 2.0, 3.0), {"beta": 1.0}),
        (axpy, (a, b, 1.0, 2.0, 3.0), {"theta": 1.0}),
        (kw, (1.0, 2.0, 3.0), {"z": 1.0}),
        (kw, (1.0, 2.0), {}),
        (kw, (), {"x": 1.0, "y": 2.0, "z": 3.0}),
        (kw, (1.0,), {"z": 3.0}),
    ]
    for f, args, kwargs in cases:
        want = _python_message(f.py_func, *args, **kwargs)
        with pytest.raises(TypeError) as e:
            f(*args, **kwargs)
        assert str(e.value) == want, (args, kwargs)


def test_unsupported_signatures_are_refused_when_decorated():
    with pytest.raises(nx.UnsupportedError, match=r"\*\*kw"):
        nx.jit(lambda x, **kw: x)
    with pytest.raises(nx.UnsupportedError, match="keyword-only parameters after"):
        nx.jit(lambda x, *rest, k=1: x)


def test_keyword_calls_follow_the_placement_rules(rng):
    h, g, a, _ = _pair(rng)
    d = nx.default_queue().device
    other = nx.asarray(g, sycl_queue=Queue(d, context=Context(d)))
    with pytest.raises(nx.ExecutionPlacementError, match="'y'"):
        axpy(a, y=other)
    # NumPy data inside offload_to: copied there and back, results as NumPy arrays
    with nx.offload_to(nx.default_queue()):
        out = axpy(x=h, y=g, alpha=3.0)
    assert isinstance(out, np.ndarray)
    np.testing.assert_allclose(out, 3.0 * h + g, rtol=1e-12, atol=1e-14)


def test_inspection_takes_keywords(rng):
    _, _, a, b = _pair(rng)
    assert len(axpy.inspect_kernels(a, y=b, beta=3.0)) == 1
    assert "define" in axpy.inspect_llvm(x=a, y=b)


# -- jitted functions calling jitted functions and device functions -----------------------------------
@nx.jit
def inner(x, y, s=2.0):
    return x * s + y


@nx.jit
def twice(v):
    return v * 2.0 + 1.0


@nx.func
def fma1(u, v):
    return u * v + 1.0


def test_jit_calls_jit(rng):
    h, g, a, b = _pair(rng)

    @nx.jit
    def outer(x, y):
        return inner(x, y) + inner(y, x, s=3.0)

    check(outer(a, b), (2 * h + g) + (3 * g + h))


def test_numba_njit_calls_numba_ext_jit(rng):
    h, g, a, b = _pair(rng)

    @numba.njit
    def outer(x, y):
        return inner(x, y, 0.5)

    check(outer(a, b), 0.5 * h + g)


def test_jit_calls_jit_on_scalars(rng):
    h, _, a, _ = _pair(rng)
    v = float(rng.standard_normal())

    @nx.jit
    def outer(x, s):
        return x + twice(s)

    check(outer(a, v), h + (2 * v + 1))


def test_jitted_and_device_functions_inside_prange(rng):
    h, g, a, b = _pair(rng)

    @nx.jit
    def body(x, y):
        out = np.empty_like(x)
        for i in numba.prange(x.shape[0]):
            out[i] = twice(x[i]) + inner(y[i], x[i], s=0.5) + fma1(x[i], y[i])
        return out

    poison(h.size, "float64")
    check(body(a, b), (2 * h + 1) + (0.5 * g + h) + (h * g + 1))


def test_device_function_from_host_jitted_code(rng):
    u, v = (float(x) for x in rng.standard_normal(2))

    @nx.jit
    def on_scalars(p, q):
        return fma1(p, q) * 2.0

    assert on_scalars(u, v) == pytest.approx((u * v + 1.0) * 2.0, rel=1e-12)

    @numba.njit
    def plain(p, q):
        return fma1(p, q)

    assert plain(u, v) == pytest.approx(u * v + 1.0, rel=1e-12)


def test_kernel_calls_a_jitted_function(rng):
    h, g, a, b = _pair(rng)

    @nx.kernel
    def k(x, y, out):
        i = nx.get_global_id(0)
        out[i] = inner(x[i], y[i], s=y[i])

    out = nx.empty(h.size)
    nx.call_kernel(k, nx.Range(h.size), a, b, out)
    check(out, h * g + g)


# -- call_kernel inside jitted code -----------------------------------------------------------------
@nx.kernel
def add_kernel(x, y, out):
    i = nx.get_global_id(0)
    out[i] = x[i] + y[i]


def test_call_kernel_inside_jit(rng):
    h, g, a, b = _pair(rng, 64)

    @nx.jit
    def f(x, y):
        out = np.empty_like(x)
        nx.call_kernel(add_kernel, nx.Range(x.shape[0]), x, y, out)
        return out * 2.0

    poison(h.size, "float64")
    r = f(a, b)
    check(r, (h + g) * 2.0)
    assert r.sycl_queue is a.sycl_queue


def test_call_kernel_inside_jit_with_ranges_passed_in_and_ndrange(rng):
    h, g, a, b = _pair(rng, 64)

    @nx.jit
    def launch(x, y, out, r):
        nx.call_kernel(add_kernel, r, x, y, out)
        return out

    for r in (nx.Range(64), nx.NdRange((64,), (8,)), 64):
        out = nx.empty(64)
        assert launch(a, b, out, r) is out
        check(out, h + g, repr(r))

    @nx.jit
    def made_inside(x, y, out, n):
        nx.call_kernel(add_kernel, nx.NdRange(n, 16), x, y, out)

    out = nx.empty(64)
    made_inside(a, b, out, 64)
    check(out, h + g)
    with pytest.raises(nx.LaunchError, match="does not divide"):
        made_inside(a, b, out, 63)


def test_call_kernel_inside_njit_and_nested_jit(rng):
    h, g, a, b = _pair(rng, 32)

    @numba.njit
    def plain(x, y, out):
        nx.call_kernel(add_kernel, nx.Range(32), x, y, out)

    @nx.jit
    def outer(x, y, out):
        plain(x, y, out)
        return out

    out = nx.empty(32)
    assert outer(a, b, out) is out
    check(out, h + g)


def test_call_kernel_inside_jit_errors(rng):
    _, g, a, _ = _pair(rng, 32)
    d = nx.default_queue().device
    other = nx.asarray(g, sycl_queue=Queue(d, context=Context(d)))

    @nx.jit
    def f(x, y, out):
        nx.call_kernel(add_kernel, nx.Range(32), x, y, out)

    with pytest.raises(nx.ExecutionPlacementError):
        f(a, other, nx.empty(32))

    @nx.jit
    def not_a_kernel(x):
        nx.call_kernel(twice, nx.Range(3), x)

    with pytest.raises(Exception, match="launches a @numba_ext.kernel"):
        not_a_kernel(a)


# -- identity of returned arguments ------------------------------------------------------------------
def test_returned_arguments_are_the_same_objects(rng):
    h, g, a, b = _pair(rng)
    m = nx.asarray(rng.standard_normal((4, 5)))
    ident = nx.jit(lambda x: x)
    assert ident(a) is a and ident(m) is m
    assert ident(x=a) is a

    pair = nx.jit(lambda x, y: (y, x, x + y))
    r = pair(a, b)
    assert r[0] is b and r[1] is a
    check(r[2], h + g)
    assert numba.njit(lambda x: x)(a) is a


def test_views_and_new_arrays_are_new_objects(rng):
    h, _, a, _ = _pair(rng)
    m = nx.asarray(rng.standard_normal((4, 5)))
    tail = nx.jit(lambda x: x[1:])(a)
    assert tail is not a
    check(tail, h[1:])
    row = nx.jit(lambda x: x[0])(m)
    assert row is not m
    check(row, nx.asnumpy(m)[0])
    as_int = nx.jit(lambda x: x.view(np.int64))(a)  # same memory and shape, another dtype
    assert as_int is not a and as_int.dtype == np.int64


def test_returned_numpy_arguments_inside_offload_to(rng):
    h = rng.standard_normal(9)
    with nx.offload_to(nx.default_queue()):
        r = nx.jit(lambda x: (x, x * 2.0))(h)
    assert r[0] is h
    np.testing.assert_allclose(r[1], h * 2.0, rtol=1e-12, atol=1e-14)
