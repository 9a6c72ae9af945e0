"""Jitted array-expression functions compiled from their source without Numba: the same results as
Numba's compilation of the same function (bit for bit: the same kernel IR), NumPy's results, the
placement rules, the calls that go to Numba instead, the switch to Numba for hot calls, and
``cache=True`` kernels loaded from the disk by a new process."""

import math
import subprocess
import sys
import textwrap

import numba
import numpy as np
import pytest

import numba_ext
from numba_ext import Queue
from numba_ext.functions.plan import kind_of

from ..checks import check
from ..conftest import DEV, require_device_in_child_process
from ._children import code_generated_in_child, numba_free_child

SCALE = 1.5
C1, C3 = 0.7978845608 * math.sqrt(2.0), 0.044715 * 2.0


def black_scholes(price, strike, t, rate, volatility):
    """Black-Scholes as array expressions (call and put)."""
    mr = -rate
    sig_sig_two = volatility * volatility * 2.0
    a = np.log(price / strike)
    b = t * mr
    z = t * sig_sig_two
    c = 0.25 * z
    y = 1.0 / np.sqrt(z)
    w1 = (a - b + c) * y
    w2 = (a - b - c) * y
    d1 = 0.5 + 0.5 * np.tanh(C1 * (w1 + C3 * w1 * w1 * w1))
    d2 = 0.5 + 0.5 * np.tanh(C1 * (w2 + C3 * w2 * w2 * w2))
    se = np.exp(b) * strike
    call = price * d1 - se * d2
    put = call - price + se
    return call, put


def scalars_and_globals(a, b, k, n):
    s = k * SCALE - n // 3 + n % 4 + n / 7 + math.pi
    t = np.maximum(s, 2) + np.copysign(k, -1.0) + np.sqrt(np.fabs(k))
    return (a - s) * b**2 + np.arctan2(a, b) * t - np.floor(a / (n + 1)) + np.fmod(b, 0.75) % 2


def ufunc_mix(a, b):
    u = np.sqrt(np.abs(a)) + np.exp(-np.square(b)) + np.log1p(np.abs(a)) + np.expm1(b * 0.1)
    v = np.sin(a) * np.cos(b) + np.tan(a * 0.1) + np.arcsin(np.tanh(a)) + np.arccos(np.tanh(b))
    w = np.arctan(a) + np.sinh(b * 0.1) + np.cosh(a * 0.1) + np.arcsinh(a) + np.arccosh(np.abs(b) + 1)
    x = np.arctanh(np.tanh(b) * 0.5) + np.log2(np.abs(a) + 1) + np.log10(np.abs(b) + 1) + np.exp2(a * 0.1)
    y = np.ceil(a) - np.trunc(b) + np.rint(a * 3) + np.cbrt(b) + np.fabs(a) + np.copysign(1.0, b)
    z = np.minimum(a, b) - np.maximum(a, b) + np.negative(a) + np.positive(b) + np.power(np.abs(a), 0.3)
    return u + v + w + x + y + z + a // 0.3 - -b


def shared_outputs(a, b):
    x = a * b
    return x, x + 1.0, x


FUNCTIONS = [
    (
        black_scholes,
        lambda rng, n: (rng.uniform(10, 50, n), rng.uniform(10, 50, n), rng.uniform(1, 2, n), 0.1, 0.2),
    ),
    (scalars_and_globals, lambda rng, n: (rng.standard_normal(n), rng.standard_normal(n), 0.7, 11)),
    (ufunc_mix, lambda rng, n: (rng.standard_normal(n) * 3, rng.standard_normal(n))),
    (shared_outputs, lambda rng, n: (rng.standard_normal(n), rng.standard_normal(n))),
]


def _device_args(host_args, **kw):
    return [numba_ext.asarray(a, **kw) if isinstance(a, np.ndarray) else a for a in host_args]


def _host(result):
    return (
        tuple(numba_ext.asnumpy(r) for r in result)
        if isinstance(result, tuple)
        else numba_ext.asnumpy(result)
    )


@pytest.mark.parametrize("func,make", FUNCTIONS, ids=[f.__name__ for f, _ in FUNCTIONS])
def test_source_path_matches_numba_bit_for_bit_and_numpy(rng, func, make):
    host_args = make(rng, 1000)
    args = _device_args(host_args)
    f = numba_ext.jit(func)
    got = f(*args)
    assert f._impl is None, "the source path compiled it: Numba was not involved"
    assert f.signatures and all(isinstance(t, str) for s in f.signatures for t in s)
    by_numba = numba_ext.compiler.jit(func)(*args)
    with np.errstate(all="ignore"):
        want = func(*host_args)
    got, by_numba = _host(got), _host(by_numba)
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
    else:
        got, by_numba, want = (got,), (by_numba,), (want,)
    for g, n, w in zip(got, by_numba, want):
        np.testing.assert_array_equal(g, n)  # the same kernel IR, the same code
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


def test_source_path_runs_without_loading_numba(tmp_path):
    require_device_in_child_process()
    src = tmp_path / "bs_child.py"
    src.write_text(
        textwrap.dedent(
            """
            import sys
            import numpy as np
            import numba_ext

            def f(a, b, k):
                c = np.sqrt(a) * b + k
                return c, c - a

            rng = np.random.default_rng(7)
            ha, hb = rng.uniform(0, 4, 5000), rng.standard_normal(5000)
            x, y = numba_ext.jit(f)(numba_ext.asarray(ha), numba_ext.asarray(hb), 2.5)
            assert np.allclose(numba_ext.asnumpy(x), np.sqrt(ha) * hb + 2.5, rtol=1e-14, atol=1e-14)
            assert np.allclose(numba_ext.asnumpy(y), np.sqrt(ha) * hb + 2.5 - ha, rtol=1e-14, atol=1e-14)
            # (NRT's C module, which owns the arrays' memory, is loaded without Numba's package)
            heavy = ("numba", "llvmlite", "numba.core", "numba.np.ufunc")
            assert not [m for m in heavy if m in sys.modules], sorted(sys.modules)
            assert "numba_ext.compiler" not in sys.modules
            print("ok")
            """
        )
    )
    out = subprocess.run([sys.executable, str(src)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-3000:]


def test_broadcasting_strides_and_layouts(rng):
    f = numba_ext.jit(lambda a, b: a * b + 1.0)
    h2 = rng.standard_normal((6, 8))
    h1 = rng.standard_normal(8)
    col = rng.standard_normal((6, 1))
    hf = np.asfortranarray(rng.standard_normal((6, 8)))
    a2 = numba_ext.asarray(h2)
    cases = [
        (a2, numba_ext.asarray(h1), h2, h1),  # 1-d broadcast along rows
        (a2, numba_ext.asarray(col), h2, col),  # a column
        (a2[:3, ::2], a2[::2, 1::2], h2[:3, ::2], h2[::2, 1::2]),  # strided views
        (numba_ext.asarray(hf), a2, hf, h2),  # F-ordered
        (a2.T, a2.T, h2.T, h2.T),  # transposed
    ]
    for x, y, hx, hy in cases:
        got = f(x, y)
        assert got.flags.c_contiguous and got.shape == np.broadcast_shapes(hx.shape, hy.shape)
        check(got, hx * hy + 1.0)  # (tolerances of the contraction policy: an FMA on PTX)
    assert f._impl is None  # every case ran from the source


def test_results_of_other_shapes_and_bad_shapes_go_to_numba(rng):
    @numba_ext.jit
    def two(a, b):
        return a * 2.0, b + 1.0

    ha, hb = rng.standard_normal(5), rng.standard_normal(7)
    x, y = two(numba_ext.asarray(ha), numba_ext.asarray(hb))  # no one iteration space: Numba's
    np.testing.assert_allclose(numba_ext.asnumpy(x), ha * 2.0)
    np.testing.assert_allclose(numba_ext.asnumpy(y), hb + 1.0)
    add = numba_ext.jit(lambda a, b: a + b)
    with pytest.raises(ValueError):
        add(numba_ext.asarray(ha), numba_ext.asarray(hb))  # the error Numba's compiled code raises


def test_types_outside_the_subset_go_to_numba(rng):
    f = numba_ext.jit(lambda a, b: a * b + 1)
    hc = (rng.standard_normal(20) + 1j * rng.standard_normal(20)).astype(np.complex128)
    for x, y in ((hc, hc), (rng.standard_normal(20), True)):
        got = f(*(numba_ext.asarray(v) if isinstance(v, np.ndarray) else v for v in (x, y)))
        want = x * y + 1
        assert got.dtype == want.dtype
        np.testing.assert_allclose(numba_ext.asnumpy(got), want, rtol=1e-12, atol=1e-14)
    assert all(not isinstance(t, str) for s in f.signatures for t in s)  # Numba's types: Numba compiled
    assert kind_of(numba_ext.asarray(hc)) is None
    assert kind_of(2**63) is None and kind_of(True) is None
    assert kind_of(numba_ext.asarray(np.float64(1.0))) is None  # 0-d arrays


def test_integer_and_float32_arrays_take_numbas_loops(rng):
    """Integer and float32 arrays are served from the source with the dtypes and bits of Numba's
    compiled form, whose loop selection differs from NumPy's promotion: a float32 array times a float
    is float64, times an int float32; integer floor division by zero is 0."""

    def mixed(a, b, k, n):
        t = a * k + b
        u = np.sqrt(a) * n
        return t, u - b, a // b, a % b, a / b

    cases = {
        "float32": lambda shape: rng.standard_normal(shape).astype(np.float32),
        "int64": lambda shape: rng.integers(-9, 10, shape),
        "int32": lambda shape: rng.integers(-9, 10, shape).astype(np.int32),
        "uint8": lambda shape: rng.integers(0, 10, shape).astype(np.uint8),
    }
    for dt, make in cases.items():
        ha, hb = make((3, 8)), make(8)
        hb[:2] = 0  # division by zero
        a, b = numba_ext.asarray(ha), numba_ext.asarray(hb)
        served = numba_ext.jit(mixed)
        got = served(a, b, 1.5, 3)
        assert served._impl is None, dt
        assert served.signatures == [(f"{dt}[:,:]", f"{dt}[:]", "float", "int")]
        want = numba_ext.compiler.jit(mixed)(a, b, 1.5, 3)
        for g, w in zip(got, want):
            g, w = numba_ext.asnumpy(g), numba_ext.asnumpy(w)
            assert g.dtype == w.dtype, dt
            np.testing.assert_array_equal(g, w)
        t, u = (numba_ext.asnumpy(x) for x in got[:2])
        assert t.dtype == np.float64  # the float64 scalar's loop, for float32 arrays too
        # np.sqrt of uint8 is its float32 loop, and float32 times an int stays float32
        assert u.dtype == (np.float32 if dt in ("float32", "uint8") else np.float64)
        if dt != "float32":
            with np.errstate(all="ignore"):
                np.testing.assert_array_equal(numba_ext.asnumpy(got[2]), np.floor_divide(ha, hb))


def test_bool_arrays_take_numbas_loops(rng):
    """Boolean arrays (masks) are served from the source with Numba's loops: ``+`` of two is their
    logical or, ``-`` and ``*`` by an int compute in int8 or int64, division in float64."""

    def masks(m, n, a):
        return m + n, m - n, m * 3, m / n, np.where(m, a, -a), (m > n) * a

    hm, hn = (rng.integers(0, 2, 16).astype(bool) for _ in range(2))
    ha = rng.standard_normal(16)
    m, n, a = numba_ext.asarray(hm), numba_ext.asarray(hn), numba_ext.asarray(ha)
    served = numba_ext.jit(masks)
    got = [numba_ext.asnumpy(x) for x in served(m, n, a)]
    assert served._impl is None
    want = [numba_ext.asnumpy(x) for x in numba_ext.compiler.jit(masks)(m, n, a)]
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(got[0], hm | hn)
    assert [g.dtype for g in got[:4]] == [np.bool_, np.int8, np.int64, np.float64]
    np.testing.assert_array_equal(got[4], np.where(hm, ha, -ha))


def test_comparisons_and_where(rng):
    """Comparisons give boolean arrays (returned, or used in arithmetic and as conditions);
    ``np.where`` takes the compiled form's dtype: its scalars count only above the arrays' kind."""

    def select(a, b, k, n):
        relu = np.where(a > 0, a, 0.0)
        mixed = np.where(a < b, a * 2.0, b - n)
        masked = (a >= k) * a
        return relu, mixed, masked, a != b, np.where(b, 1, a)

    for dt in ("float64", "float32", "int64", "int8", "uint8"):
        ha = (rng.standard_normal((3, 6)) * 5).astype(dt)
        hb = (rng.standard_normal(6) * 5).astype(dt)
        a, b = numba_ext.asarray(ha), numba_ext.asarray(hb)
        served = numba_ext.jit(select)
        got = [numba_ext.asnumpy(x) for x in served(a, b, 0.5, 2)]
        assert served._impl is None, dt
        want = [numba_ext.asnumpy(x) for x in numba_ext.compiler.jit(select)(a, b, 0.5, 2)]
        for g, w in zip(got, want):
            assert g.dtype == w.dtype, dt
            np.testing.assert_array_equal(g, w)
        relu, _, masked, ne, last = got
        np.testing.assert_array_equal(relu, np.where(ha > 0, ha, 0.0))
        assert relu.dtype == (np.float32 if dt == "float32" else np.float64)
        np.testing.assert_array_equal(masked, (ha >= 0.5) * ha)
        np.testing.assert_array_equal(ne, ha != hb)
        assert ne.dtype == np.bool_
        np.testing.assert_array_equal(last, np.where(hb, 1, ha))
        assert last.dtype == ha.dtype  # the int scalar does not widen the array's dtype
    scalar_compare = numba_ext.jit(lambda a, k: a * (k > 0))  # comparing scalars: Numba's
    np.testing.assert_array_equal(numba_ext.asnumpy(scalar_compare(numba_ext.asarray(np.ones(3)), 1.0)), 1.0)
    assert scalar_compare._impl is not None


def test_unused_array_statements_are_evaluated_as_numba_does(rng):
    """Numba keeps an array statement that no result uses: the scalars it takes are computed (a
    division by zero raises) and its arrays must broadcast; an unused scalar statement is dropped."""

    def unused_scalar(a, b, k):
        t = k / 0  # noqa: F841
        return a * 0.5

    def unused_array(a, b, k):
        t = b + k / 0  # noqa: F841
        return a * 0.5

    def unused_shapes(a, b, k):
        t = a + b  # noqa: F841
        return a * k

    ha = rng.standard_normal(4)
    a, b, c = numba_ext.asarray(ha), numba_ext.asarray(rng.standard_normal(4)), numba_ext.asarray(np.ones(3))
    f = numba_ext.jit(unused_scalar)
    np.testing.assert_array_equal(numba_ext.asnumpy(f(a, b, 1.0)), ha * 0.5)
    assert f._impl is None
    for fn, args, error in (
        (unused_array, (a, b, 1.0), ZeroDivisionError),
        (unused_shapes, (a, c, 2.0), ValueError),
    ):
        served = numba_ext.jit(fn)
        with pytest.raises(error):
            served(*args)
        with pytest.raises(error):
            numba_ext.compiler.jit(fn)(*args)
    served = numba_ext.jit(unused_shapes)
    np.testing.assert_array_equal(numba_ext.asnumpy(served(a, b, 2.0)), ha * 2.0)
    assert served._impl is None


def test_functions_outside_the_subset_go_to_numba(rng):
    def with_loop(a):
        out = numba_ext.empty_like(a)
        for i in numba.prange(a.shape[0]):
            out[i] = a[i] * 2.0
        return out

    def returns_argument(a):
        return a

    def returns_scalar(a, k):
        return k * 2.0

    h = rng.standard_normal(9)
    a = numba_ext.asarray(h)
    assert numba_ext.jit(returns_argument)(a)._data_ptr == a._data_ptr
    assert numba_ext.jit(returns_scalar)(a, 1.5) == 3.0
    f = numba_ext.jit(with_loop)
    np.testing.assert_allclose(numba_ext.asnumpy(f(a)), h * 2.0)
    assert f._impl is not None


def test_scalar_arithmetic_follows_numbas_rules(rng):
    a = numba_ext.asarray(rng.standard_normal(4))
    f = numba_ext.jit(lambda a, k, n: a * (k / n))
    for n in (0, 0.0):
        with pytest.raises(ZeroDivisionError):
            f(a, 1.0, n)  # scalar division by zero raises, as Numba's scalar code does
        with pytest.raises(ZeroDivisionError):
            numba_ext.compiler.jit(lambda a, k, n: a * (k / n))(a, 1.0, n)
    assert f._impl is None
    g = numba_ext.jit(lambda a, n: a + (n * n))  # int64 arithmetic wraps as Numba's does
    big = 2**62
    got = numba_ext.asnumpy(g(a, big))
    np.testing.assert_array_equal(
        got, numba_ext.asnumpy(numba_ext.compiler.jit(lambda a, n: a + (n * n))(a, big))
    )

    def unused_division(a, k):
        dead = 1.0 / k  # noqa: F841 (no result needs it: dead code, which Numba removes too)
        return a * 2.0

    def unused_call(a, k):
        kept = np.sqrt(1.0 / k)  # noqa: F841 (unused too, but Numba keeps calls and their inputs)
        return a * 2.0

    for fn in (unused_call, numba_ext.compiler.jit(unused_call)):
        with pytest.raises(ZeroDivisionError):
            (numba_ext.jit(fn) if fn is unused_call else fn)(a, 0.0)

    np.testing.assert_array_equal(
        numba_ext.asnumpy(numba_ext.jit(unused_division)(a, 0.0)), numba_ext.asnumpy(a) * 2
    )
    d = numba_ext.jit(lambda a: a / 0.0)  # array division by zero: NumPy's inf, no error
    with np.errstate(divide="ignore"):
        np.testing.assert_array_equal(numba_ext.asnumpy(d(a)), numba_ext.asnumpy(a) / 0.0)


def test_placement_rules_hold(rng):
    h = rng.standard_normal(16)
    f = numba_ext.jit(lambda x, y: x * y)
    q1, q2 = Queue(DEV), Queue(DEV)
    x = numba_ext.asarray(h, sycl_queue=q1, usm_type="shared")
    out = f(x, numba_ext.asarray(h, sycl_queue=q1, usm_type="shared"))
    assert out.usm_type == "shared" and out.sycl_queue == q1
    with pytest.warns(numba_ext.MixedUSMTypeWarning) as caught:
        out = f(x, numba_ext.asarray(h, usm_type="host"))
    assert caught[0].filename == __file__  # the warning points at the call
    assert out.usm_type == "shared"
    other = Queue(q2.device, context=numba_ext.Context(q2.device))  # another context
    with pytest.raises(numba_ext.ExecutionPlacementError):
        f(x, numba_ext.asarray(h, sycl_queue=other))
    with pytest.raises(numba_ext.ExecutionPlacementError):
        f(h, h)  # NumPy arrays need offload_to
    with numba_ext.offload_to(q1):
        got = f(h, h)
    assert isinstance(got, np.ndarray)
    np.testing.assert_allclose(got, h * h)
    e = f(numba_ext.asarray(np.empty((0, 3))), numba_ext.asarray(np.empty(3)))
    assert e.shape == (0, 3)


def test_numpy_arrays_inside_offload_to_are_served_from_the_source(rng):
    """NumPy arrays inside ``offload_to`` run from the source on their device copies, with the
    placement rules of Numba's path: results come back as NumPy arrays; NumPy data outside it is
    an error, and NumPy data beside device data goes to Numba (which refuses an expression mixing
    them)."""

    def axpy(x, y, k):
        return x * k + np.sqrt(np.abs(y))

    hx, hy = rng.standard_normal((4, 8)), rng.standard_normal(8).astype(np.float32)
    served = numba_ext.jit(axpy)
    with numba_ext.offload_to(Queue(DEV)):
        got = served(hx, hy, 2.5)
        want = numba_ext.compiler.jit(axpy)(hx, hy, 2.5)
    assert served._impl is None
    assert isinstance(got, np.ndarray) and got.dtype == want.dtype == np.float64
    np.testing.assert_array_equal(got, want)
    # float32 roots, and a multiply-add that may be one FMA: the error scales with the terms, not
    # with their sum (which cancels near zero)
    terms = np.abs(hx * 2.5) + np.sqrt(np.abs(hy))
    np.testing.assert_allclose(got, hx * 2.5 + np.sqrt(np.abs(hy)), rtol=1e-6, atol=1e-6 * terms.max())
    with pytest.raises(numba_ext.ExecutionPlacementError):
        served(hx, hy, 2.5)
    with pytest.raises(numba_ext.ExecutionPlacementError, match="mixes a numba_ext array with a NumPy"):
        served(numba_ext.asarray(hx), hy, 2.5)


def test_hot_calls_switch_to_numbas_code(rng, monkeypatch):
    monkeypatch.setenv("NUMBA_EXT_HOT_CALLS", "3")
    h = rng.standard_normal(32)
    a = numba_ext.asarray(h)
    f = numba_ext.jit(lambda x, k: x * k + 1.0)
    for i in range(6):
        np.testing.assert_allclose(numba_ext.asnumpy(f(a, float(i))), h * i + 1.0)
        assert (f._impl is not None and len(f._dispatcher.signatures) == 1) == (i >= 2)
    monkeypatch.setenv("NUMBA_EXT_HOT_CALLS", "0")  # Numba from the first call
    g = numba_ext.jit(lambda x: x - 1.0)
    np.testing.assert_allclose(numba_ext.asnumpy(g(a)), h - 1.0)
    assert g._impl is not None and all(not isinstance(t, str) for s in g.signatures for t in s)


def test_hot_calls_setting_is_read_again_when_it_changes(rng, monkeypatch):
    monkeypatch.setenv("NUMBA_EXT_HOT_CALLS", "-1")  # never Numba
    h = rng.standard_normal(24)
    a = numba_ext.asarray(h)
    f = numba_ext.jit(lambda x, k: x * k - 2.0)

    def compiled():
        return f._impl is not None and len(f._dispatcher.signatures) == 1

    for i in range(5):  # the first call in Python, the others through the extension's source path
        np.testing.assert_allclose(numba_ext.asnumpy(f(a, float(i))), h * i - 2.0)
    assert not compiled()
    monkeypatch.setenv("NUMBA_EXT_HOT_CALLS", "7")
    np.testing.assert_allclose(numba_ext.asnumpy(f(a, 0.5)), h * 0.5 - 2.0)  # the 6th call
    assert not compiled()
    np.testing.assert_allclose(numba_ext.asnumpy(f(a, 1.5)), h * 1.5 - 2.0)  # the 7th: Numba compiles
    assert compiled()
    np.testing.assert_allclose(numba_ext.asnumpy(f(a, 2.5)), h * 2.5 - 2.0)


def test_recompile_reads_globals_again(rng):
    global SCALE
    f = numba_ext.jit(lambda a: a * SCALE)
    h = rng.standard_normal(8)
    a = numba_ext.asarray(h)
    try:
        np.testing.assert_allclose(numba_ext.asnumpy(f(a)), h * 1.5)
        SCALE = 4.0
        np.testing.assert_allclose(numba_ext.asnumpy(f(a)), h * 1.5)  # frozen at compile time
        f.recompile()
        np.testing.assert_allclose(numba_ext.asnumpy(f(a)), h * 4.0)
    finally:
        SCALE = 1.5


def test_inspect_kernels_gives_the_one_fused_kernel(rng):
    f = numba_ext.jit(black_scholes)
    args = _device_args(FUNCTIONS[0][1](rng, 64))
    (k,) = f.inspect_kernels(*args)
    assert k.graph_nodes > 20
    assert f._impl is None


def test_cache_true_loads_kernels_from_disk_in_a_new_process(tmp_path):
    """A function compiled from its source takes its kernel's device code from the generated-code
    cache every compile uses: a new process generates nothing."""
    require_device_in_child_process()
    source = """
        import numpy as np
        import numba_ext


        @numba_ext.jit(cache=True)
        def f(a, k):
            x = np.log(a) * k - a
            return x, x * x
    """
    check = """
        from cached_fn import f
        h = np.linspace(0.5, 3.0, 300)
        x, y = f(numba_ext.asarray(h), 0.25)
        assert np.allclose(numba_ext.asnumpy(x), np.log(h) * 0.25 - h, rtol=1e-14)
        assert np.allclose(numba_ext.asnumpy(y), (np.log(h) * 0.25 - h) ** 2, rtol=1e-14)
        assert f._impl is None  # served from the source
    """
    child = numba_free_child(tmp_path, "cached_fn", source, check)
    assert code_generated_in_child(child, tmp_path / "cache") == (1, 0)  # one fused kernel, stored
    assert not (tmp_path / "cache" / "kernels").exists()  # no store of its own
    assert code_generated_in_child(child, tmp_path / "cache") == (0, 1)  # from the disk


def test_source_edited_since_the_definition_goes_to_numba(tmp_path, rng):
    """The source read must compile to the function's own code: a file edited after the function
    was defined is refused (the function's own code, compiled by Numba, runs)."""
    import importlib.util

    path = tmp_path / "edited_mod.py"
    path.write_text("import numpy as np\n\n\ndef f(a):\n    return a * 2.0\n")
    spec = importlib.util.spec_from_file_location("edited_mod", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    path.write_text("import numpy as np\n\n\ndef f(a):\n    return a * 3.0 + 1.0\n")
    import linecache

    linecache.checkcache(str(path))
    from numba_ext.functions.program import parse

    assert "edited since it was defined" in parse(mod.f)
    h = rng.standard_normal(8)
    g = numba_ext.jit(mod.f)
    np.testing.assert_array_equal(numba_ext.asnumpy(g(numba_ext.asarray(h))), h * 2.0)
    assert g._impl is not None


LAYOUTS = '''
import numpy as np
import numba_ext


@numba_ext.jit
def decorated(a, b):
    return a * 2.0 + b


def open_signature(
    a, b
):
    return a - b


def margin_string(a, b):
    """A docstring
running out to the margin."""
    return a * b


def continued(a, b):
    t = (a +
b)
    return t


class Holder:
    @staticmethod
    def method(a, b):
        return np.maximum(a, b)
'''


def test_source_of_every_layout_is_read(tmp_path, rng):
    """Decorated functions, signatures closed at the def's indentation, strings and continuation
    lines at the margin and methods are all read from their source (and served from it)."""
    import importlib.util

    path = tmp_path / "layouts_mod.py"
    path.write_text(LAYOUTS)
    spec = importlib.util.spec_from_file_location("layouts_mod", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    ha, hb = rng.standard_normal(9), rng.standard_normal(9)
    a, b = numba_ext.asarray(ha), numba_ext.asarray(hb)
    cases = [
        (mod.decorated, ha * 2.0 + hb),
        (numba_ext.jit(mod.open_signature), ha - hb),
        (numba_ext.jit(mod.margin_string), ha * hb),
        (numba_ext.jit(mod.continued), ha + hb),
        (numba_ext.jit(mod.Holder.method), np.maximum(ha, hb)),
    ]
    for f, want in cases:
        np.testing.assert_array_equal(numba_ext.asnumpy(f(a, b)), want)
        assert f._impl is None, f


def test_negated_booleans_made_float_are_minus_one(rng):
    """`-(a > c)` is int8 -1 where true in Numba's typing; made a float it is -1.0 on every device
    (LLVM folds it to a signed conversion of a one-bit value, which SPIR-V carries as a select)."""

    def negated(a, s):
        m = -(0.5 < a)  # int8: -1 where true
        t = -m
        return -t + s, m * 1.0

    h = rng.random(200)
    mask = (0.5 < h).astype(np.int8)
    a = numba_ext.asarray(h)
    got = _host(numba_ext.jit(negated)(a, 0.25))
    by_numba = _host(numba_ext.compiler.jit(negated)(a, 0.25))
    for g, n, w in zip(got, by_numba, (-mask + 0.25, -mask * 1.0)):
        np.testing.assert_array_equal(g, w)
        np.testing.assert_array_equal(n, w)
