"""Fusion is a tested property: kernel counts per function, no temporaries, CSE, results = NumPy."""

import numpy as np
import pytest

import numba_ext
from numba_ext import _core

from ..checks import fp_tol
from ..conftest import DEV


def _args(rng, n=257, k=3):
    hs = [rng.uniform(0.5, 2.0, n) for _ in range(k)]
    return hs, [numba_ext.asarray(h) for h in hs]


def test_consecutive_statements_fuse_into_one_kernel(rng):
    @numba_ext.jit
    def f(a, b, c):
        t = np.sqrt(a) * b  # used twice: Numba alone would make it a separate kernel
        u = t + c
        v = t * u - 1.0
        return np.exp(-v) / u

    hs, xs = _args(rng)
    out = f(*xs)
    t = np.sqrt(hs[0]) * hs[1]
    u = t + hs[2]
    np.testing.assert_allclose(numba_ext.asnumpy(out), np.exp(-(t * u - 1.0)) / u, rtol=1e-12, atol=1e-14)
    assert len(f.inspect_kernels(*xs)) == 1


def test_temporaries_are_not_allocated(rng):
    @numba_ext.jit
    def f(a, b):
        t1 = a * b
        t2 = t1 + a
        t3 = t2 * t1
        return t3 - b

    hs, xs = _args(rng, k=2)
    f(*xs)  # compile
    (k,) = f.inspect_kernels(*xs)
    before = _core._live_allocations()
    out = f(*xs)
    assert _core._live_allocations() == before + 1  # only the result
    t1 = hs[0] * hs[1]
    np.testing.assert_allclose(numba_ext.asnumpy(out), (t1 + hs[0]) * t1 - hs[1], **fp_tol())
    assert k.llvm_ir.count("store double") == 1


def test_escaping_intermediates_are_stored_by_the_same_kernel(rng):
    @numba_ext.jit
    def f(a, b):
        s = a + b
        d = a - b
        p = s * d
        return s, p

    hs, xs = _args(rng, k=2)
    s, p = f(*xs)
    np.testing.assert_allclose(numba_ext.asnumpy(s), hs[0] + hs[1], rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(
        numba_ext.asnumpy(p), (hs[0] + hs[1]) * (hs[0] - hs[1]), rtol=1e-13, atol=1e-14
    )
    (k,) = f.inspect_kernels(*xs)
    assert k.llvm_ir.count("store double") == 2


def test_common_subexpressions_are_computed_once(rng):
    @numba_ext.jit
    def f(a, b):
        x = np.sin(a) * np.sin(a) + np.cos(b)
        y = np.sin(a) + np.cos(b)
        return x * y

    hs, xs = _args(rng, k=2)
    out = f(*xs)
    sa, cb = np.sin(hs[0]), np.cos(hs[1])
    # sa + cb cancels near 0 for some inputs: an absolute bound there (values are O(1))
    np.testing.assert_allclose(numba_ext.asnumpy(out), (sa * sa + cb) * (sa + cb), **fp_tol())
    (k,) = f.inspect_kernels(*xs)
    sin, cos = (
        ("@_Z3sind(double %", "@_Z3cosd(double %")
        if k.format == "spirv"
        else ("@__nv_sin(double %", "@__nv_cos(double %")
    )
    assert k.llvm_ir.count(sin) == 1
    assert k.llvm_ir.count(cos) == 1


def test_host_code_between_expressions_splits_regions(rng):
    @numba_ext.jit
    def f(a, b):
        x = a * b
        n = x.shape[0]  # host code reading x: x must exist as an array
        return x + n

    hs, xs = _args(rng, k=2)
    out = f(*xs)
    np.testing.assert_allclose(numba_ext.asnumpy(out), hs[0] * hs[1] + len(hs[0]), rtol=1e-13, atol=1e-14)
    assert len(f.inspect_kernels(*xs)) == 2


def test_unconnected_expressions_stay_separate(rng):
    @numba_ext.jit
    def f(a, b):
        x = a * 2.0
        y = b + 1.0  # shares no array with x: may have another shape
        return x, y

    ha, hb = rng.standard_normal(5), rng.standard_normal(7)
    x, y = f(numba_ext.asarray(ha), numba_ext.asarray(hb))
    np.testing.assert_allclose(numba_ext.asnumpy(x), ha * 2.0)
    np.testing.assert_allclose(numba_ext.asnumpy(y), hb + 1.0)
    assert len(f.inspect_kernels(numba_ext.asarray(ha), numba_ext.asarray(hb))) == 2


def test_expressions_on_the_same_inputs_fuse(rng):
    @numba_ext.jit
    def f(a, b):
        x = a * 2.0
        y = a + b
        return x, y

    hs, xs = _args(rng, k=2)
    x, y = f(*xs)
    np.testing.assert_allclose(numba_ext.asnumpy(x), hs[0] * 2.0)
    np.testing.assert_allclose(numba_ext.asnumpy(y), hs[0] + hs[1])
    assert len(f.inspect_kernels(*xs)) == 1


def test_black_scholes_is_one_kernel():
    from numba_ext.demo import black_scholes_call, reference

    rng = np.random.default_rng()
    host = [rng.uniform(10, 50, 1000), rng.uniform(10, 50, 1000), rng.uniform(0.1, 2.0, 1000)]
    args = [numba_ext.asarray(h) for h in host]
    out = black_scholes_call(*args, 0.02, 0.3)
    want = reference(*host, 0.02, 0.3)
    # deep out-of-the-money prices cancel (S*N(d1) - K*e^-rt*N(d2)): compare them on the price scale,
    # since the device's erf (libdevice on NVIDIA) and the host's may differ in the last bits
    np.testing.assert_allclose(numba_ext.asnumpy(out), want, rtol=1e-10, atol=1e-12 * np.abs(want).max())
    assert len(black_scholes_call.inspect_kernels(*args, 0.02, 0.3)) == 1


@pytest.mark.parametrize("dtype", ["int32", "int64", "uint8", "float32", "bool"])
def test_fused_dtype_promotion_matches_numpy(rng, dtype):
    @numba_ext.jit
    def f(a, b):
        t = a + b
        return t * 3 - (a > b)

    if dtype == "bool":
        ha, hb = rng.random(50) < 0.5, rng.random(50) < 0.5
    else:
        ha = rng.integers(0, 50, 50).astype(dtype)
        hb = rng.integers(0, 50, 50).astype(dtype)
    out = f(numba_ext.asarray(ha), numba_ext.asarray(hb))
    import numba

    # Numba's typing (Python int literals are int64) is the reference for jitted code
    want = numba.njit(f.py_func)(ha, hb)
    assert out.dtype == want.dtype
    np.testing.assert_array_equal(numba_ext.asnumpy(out), want)


def test_where_clip_astype_erf_fuse_with_expressions(rng):
    from math import erf, erfc

    @numba_ext.jit
    def f(a, b):
        x = np.where(a > 0, a, b * 2.0)
        y = np.clip(x, -0.5, 0.5)
        z = numba_ext.erf(y) + numba_ext.erfc(a)
        return z.astype(np.float32)

    ha, hb = rng.standard_normal(777), rng.standard_normal(777)
    xs = [numba_ext.asarray(ha), numba_ext.asarray(hb)]
    out = f(*xs)
    verf, verfc = np.vectorize(erf), np.vectorize(erfc)
    want = (verf(np.clip(np.where(ha > 0, ha, hb * 2.0), -0.5, 0.5)) + verfc(ha)).astype(np.float32)
    assert out.dtype == np.float32
    np.testing.assert_allclose(numba_ext.asnumpy(out), want, rtol=1e-6)
    assert len(f.inspect_kernels(*xs)) == 1


def test_where_clip_astype_erf_eager_and_on_host(rng):
    from math import erf

    h = rng.standard_normal(50)
    a = numba_ext.asarray(h)
    np.testing.assert_allclose(
        numba_ext.asnumpy(numba_ext.erf(a)), np.vectorize(erf)(h), rtol=1e-13, atol=1e-14
    )
    np.testing.assert_allclose(numba_ext.erf(h), np.vectorize(erf)(h), rtol=1e-13)  # NumPy in, NumPy out

    @numba_ext.jit
    def host(h):
        return np.where(h > 0, h, 0.0), np.clip(h, -1, 1), h.astype(np.int32), numba_ext.erfc(h)

    with numba_ext.offload_to(DEV):
        w, c, i, e = host(h)
    np.testing.assert_allclose(w, np.where(h > 0, h, 0.0))
    np.testing.assert_allclose(c, np.clip(h, -1, 1))
    assert i.dtype == np.int32
    np.testing.assert_allclose(e, 1 - np.vectorize(erf)(h), rtol=1e-12, atol=1e-15)


def test_mixed_runs_keep_unrelated_shapes_apart(rng):
    @numba_ext.jit
    def f(a, b):
        x = a * 2.0
        y = b + 1.0  # another shape: must not be fused with x
        z = x - 1.0
        return z, y

    ha, hb = rng.standard_normal(5), rng.standard_normal(9)
    z, y = f(numba_ext.asarray(ha), numba_ext.asarray(hb))
    np.testing.assert_allclose(numba_ext.asnumpy(z), ha * 2.0 - 1.0)
    np.testing.assert_allclose(numba_ext.asnumpy(y), hb + 1.0)


def test_regions_of_different_ranks_run_in_dependency_order(rng):
    # found by the property tests: a 2-D region feeding a 3-D one must run first
    @numba_ext.jit
    def f(a, b, c):
        m = np.maximum(b, a)
        n = np.minimum(-1, c)
        return np.sin(np.where(m > n, m, n)) + a * 0

    hs = [(rng.standard_normal(s) * 3).astype("float32") for s in [(2, 1, 1), (1, 1, 1), (1, 1)]]
    import numba

    want = numba.njit(f.py_func)(*hs)
    np.testing.assert_allclose(numba_ext.asnumpy(f(*[numba_ext.asarray(h) for h in hs])), want, rtol=1e-6)


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_not_of_integer_max(rng, dtype):
    # found by the property tests: the Intel CPU driver drops the ~ of ~max(a, b) when it optimises
    f = numba_ext.jit(lambda a, b: -1 + -np.maximum(a, b))
    g = numba_ext.jit(lambda a, b: ~np.minimum(a, b))
    h = numba_ext.jit(lambda a, b: -1 + -np.where(a > b, a, b))
    ha = rng.integers(-10, 10, 100).astype(dtype)
    hb = rng.integers(-10, 10, 100).astype(dtype)
    a, b = numba_ext.asarray(ha), numba_ext.asarray(hb)
    np.testing.assert_array_equal(numba_ext.asnumpy(f(a, b)), -1 - np.maximum(ha, hb))
    np.testing.assert_array_equal(numba_ext.asnumpy(g(a, b)), ~np.minimum(ha, hb))
    np.testing.assert_array_equal(numba_ext.asnumpy(h(a, b)), -1 - np.where(ha > hb, ha, hb))


# -- array expressions and prange loops (numba_ext/compiler/parfor_fusion.py) ---------------------------
import math  # noqa: E402

from numba import prange  # noqa: E402


def _poisoned(x):
    """A fresh result array of x's shape holding NaN (so unwritten elements show)."""
    return numba_ext.asarray(np.full(x.shape, np.nan), sycl_queue=x.sycl_queue)


@numba_ext.jit
def _expr_loop_expr(a, b):
    t = a * b + 1.0  # read only inside the loop, at its index: never allocated
    n = a.shape[0]
    out = numba_ext.empty(n)
    for i in prange(n):
        out[i] = math.sqrt(t[i]) * 2.0
    return out - a  # its inputs have the loop's shape: computed by the same work-items


def test_expression_loop_expression_is_one_kernel(rng):
    hs, xs = _args(rng, k=2)
    out = _expr_loop_expr(*xs)
    np.testing.assert_allclose(numba_ext.asnumpy(out), np.sqrt(hs[0] * hs[1] + 1.0) * 2.0 - hs[0], **fp_tol())
    assert len(_expr_loop_expr.inspect_kernels(*xs)) == 1
    before = _core._live_allocations()
    out2 = _expr_loop_expr(*xs)
    # only `out` (returned by the loop, read by the last expression) and the result: no `t`
    assert _core._live_allocations() == before + 1
    del out2


def test_chained_prange_loops_and_allocations_between_them_fuse(rng):
    @numba_ext.jit
    def f(a):
        n = a.shape[0]
        t = numba_ext.empty(n)
        for i in prange(n):
            t[i] = a[i] * 2.0
        out = numba_ext.empty(n)
        for i in prange(n):
            out[i] = t[i] + 1.0
        return np.sin(out) + 1.0

    hs, xs = _args(rng, k=1)
    np.testing.assert_allclose(
        numba_ext.asnumpy(f(*xs)), np.sin(hs[0] * 2.0 + 1.0) + 1.0, rtol=1e-13, atol=1e-15
    )
    assert len(f.inspect_kernels(*xs)) == 1


def test_prologue_broadcasts_as_numpy(rng):
    @numba_ext.jit
    def f(a, b, out):
        t = a * b - 0.5  # b may broadcast (length 1, or a row against a matrix)
        for i in prange(out.shape[0]):
            for j in range(out.shape[1]):
                out[i, j] = t[i, j] * 3.0
        return out

    for bshape in [(5, 7), (1, 7), (5, 1), (7,)]:
        h = rng.random((5, 7))
        g = rng.random(bshape)
        a, b = numba_ext.asarray(h), numba_ext.asarray(g)
        out = f(a, b, _poisoned(a))
        np.testing.assert_allclose(
            numba_ext.asnumpy(out), (h * g - 0.5) * 3.0, rtol=1e-13, atol=1e-15
        )  # FMA on PTX
    with pytest.raises(ValueError, match="broadcast"):
        f(numba_ext.asarray(rng.random((5, 7))), numba_ext.asarray(rng.random(6)), _poisoned(a))


def test_prologue_with_views_and_reductions(rng):
    @numba_ext.jit
    def f(a, b):
        t = np.exp(a[::-1]) - b.T[0]  # strided views
        s = 0.0
        for i in prange(a.shape[0]):  # (t.shape would use t outside the loop: no fusion)
            s += t[i] * t[i]
        return s

    h, g = rng.random(300), rng.random((4, 300))
    a, b = numba_ext.asarray(h), numba_ext.asarray(np.ascontiguousarray(g.T))
    ref = np.exp(h[::-1]) - g[0]
    assert f(a, b) == pytest.approx(float(ref @ ref), rel=1e-12)
    assert len(f.inspect_kernels(a, b)) == 1


def test_loops_and_expressions_that_must_not_fuse_stay_apart(rng):
    @numba_ext.jit
    def escapes(a):
        t = a + 1.0
        out = numba_ext.empty(a.shape[0])
        for i in prange(a.shape[0]):
            out[i] = t[i] * 2.0
        return out, t  # t is used after the loop: stored by its own kernel

    @numba_ext.jit
    def shifted(a):
        t = a * 2.0
        n = a.shape[0] - 1
        out = numba_ext.empty(n)
        for i in prange(n):
            out[i] = t[i + 1] - t[i]  # reads t at other indices
        return out

    @numba_ext.jit
    def writes_input(a):
        t = a * 2.0
        for i in prange(a.shape[0] - 1):
            a[i + 1] = t[i]  # writes an input of the expression at another index
        return a

    @numba_ext.jit
    def unknown_shape(a, b):
        n = a.shape[0]
        out = numba_ext.empty(n)
        for i in prange(n):
            out[i] = a[i] + 1.0
        return out * b  # b's length is not known to be n: the expression keeps its own kernel

    h = rng.random(64)
    out, t = escapes(numba_ext.asarray(h))
    np.testing.assert_allclose(numba_ext.asnumpy(out), (h + 1.0) * 2.0, rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(numba_ext.asnumpy(t), h + 1.0, rtol=1e-14, atol=1e-14)
    assert len(escapes.inspect_kernels(numba_ext.asarray(h))) == 2
    np.testing.assert_allclose(
        numba_ext.asnumpy(shifted(numba_ext.asarray(h))), np.diff(h * 2.0), rtol=1e-12, atol=1e-14
    )
    assert len(shifted.inspect_kernels(numba_ext.asarray(h))) == 2
    a = numba_ext.asarray(h)
    ref = h.copy()
    ref[1:] = h[:-1] * 2.0
    np.testing.assert_allclose(numba_ext.asnumpy(writes_input(a)), ref, rtol=1e-14, atol=1e-14)
    b = numba_ext.asarray(rng.random(1))  # broadcasts: fusing would be wrong
    np.testing.assert_allclose(
        numba_ext.asnumpy(unknown_shape(numba_ext.asarray(h), b)),
        (h + 1.0) * numba_ext.asnumpy(b),
        rtol=1e-14,
    )
    assert len(unknown_shape.inspect_kernels(numba_ext.asarray(h), b)) == 2
