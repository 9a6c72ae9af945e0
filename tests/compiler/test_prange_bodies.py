"""prange programs written for numba-dpex run unchanged with numba_ext.jit: each loop body of the table
runs on numba_ext arrays and is compared with the same function under numba.njit(parallel=True) on
NumPy copies of the same random data (outputs start poisoned, identically on both sides)."""

import math

import numba
import numpy as np
import pytest
from numba import prange

import numba_ext as nx

from ..checks import poison


@numba.njit
def njit_helper(x, y):
    return x * x + 0.5 * y


@nx.jit
def nx_helper(x):
    return math.sqrt(abs(x)) + 1.0


def square_norm(a, out):
    for i in prange(a.shape[0]):
        s = 0.0
        for k in range(a.shape[1]):
            s += np.square(a[i, k])
        out[i] = np.sqrt(s)


def row_slice_sum(a, out):
    for i in prange(a.shape[0]):
        out[i] = a[i, 1:4].sum()


def row_view(a, out):
    for i in prange(a.shape[0]):
        row = a[i]
        out[i] = row[0] + row[-1] * row.shape[0]


def row_assign_expr(a, b):
    for i in prange(a.shape[0]):
        b[i, :] = a[i, :] * 2.0 + 1.0


def row_copy(a, b):
    for i in prange(a.shape[0]):
        b[i] = a[i]


def exp_sum(a):
    s = 0.0
    for i in prange(a.shape[0]):
        s += math.exp(a[i])
    return s


def max_min_reduction(a):
    m = -np.inf
    n = np.inf
    for i in prange(a.shape[0]):
        m = max(m, a[i])
        n = min(n, a[i])
    return m - n


def product_reduction(a):
    p = 1.0
    for i in prange(a.shape[0]):
        p *= 1.0 + a[i] * 0.01
    return p


def call_njit(a, b, out):
    for i in prange(a.shape[0]):
        out[i] = njit_helper(a[i], b[i])


def call_nx_jit(a, out):
    for i in prange(a.shape[0]):
        out[i] = nx_helper(a[i] - 0.5)


def optional_weight(a, out, w=None):
    for i in prange(a.shape[0]):
        if w is None:
            out[i] = a[i]
        else:
            out[i] = a[i] * w


def none_constant(a, out):
    offset = None
    for i in prange(a.shape[0]):
        if offset is None:
            out[i] = a[i] + 1.0
        else:
            out[i] = a[i]


def matmul_loops(a, b, out):
    for i in prange(a.shape[0]):
        for j in range(b.shape[1]):
            s = 0.0
            for k in range(a.shape[1]):
                s += a[i, k] * b[k, j]
            out[i, j] = s


def accumulate_into_elements(a, out):
    for i in prange(a.shape[0]):
        out[i] = 0.0
        for j in range(a.shape[1]):
            out[i] += a[i, j] * (j + 1)


def nested_prange_2d(a, out):
    for i in prange(a.shape[0]):
        for j in prange(a.shape[1]):
            out[i, j] = a[i, j] * i - j


def math_functions(a, out):
    for i in prange(a.shape[0]):
        x = a[i]
        out[i] = math.sin(x) * math.cos(x) + math.log(abs(x) + 1.0) + math.tanh(x) + math.atan2(x, 2.0)


def numpy_ufuncs_on_scalars(a, b, out):
    for i in prange(a.shape[0]):
        x, y = a[i], b[i]
        out[i] = np.exp(x) + np.log1p(np.abs(y)) + np.minimum(x, y) * np.maximum(x, y) + np.floor(x * 3)


def integer_arithmetic(a, b, out):
    for i in prange(a.shape[0]):
        out[i] = (a[i] // (b[i] % 7 + 1)) * 3 - a[i] % 5 + (a[i] ^ b[i])


def conditional_select(a, out):
    for i in prange(a.shape[0]):
        if a[i] > 0.5:
            out[i] = 1.0
        elif a[i] < 0.2:
            out[i] = -1.0
        else:
            out[i] = a[i]


def column_view_sum(a, out):
    for j in prange(a.shape[1]):
        col = a[:, j]
        out[j] = col.sum()


def matvec(a, x, out):
    for i in prange(a.shape[0]):
        s = 0.0
        for k in range(a.shape[1]):
            s += a[i, k] * x[k]
        out[i] = s


def black_scholes(price, strike, t, call, put):
    rate, vol = 0.1, 0.2
    for i in prange(price.shape[0]):
        p, k, tt = price[i], strike[i], t[i]
        d1 = (math.log(p / k) + (rate + 0.5 * vol * vol) * tt) / (vol * math.sqrt(tt))
        d2 = d1 - vol * math.sqrt(tt)
        n1 = 0.5 + 0.5 * math.erf(d1 / math.sqrt(2.0))
        n2 = 0.5 + 0.5 * math.erf(d2 / math.sqrt(2.0))
        e = k * math.exp(-rate * tt)
        call[i] = p * n1 - e * n2
        put[i] = call[i] - p + e


def pairwise_distance(a, out):
    for i in prange(a.shape[0]):
        for j in range(a.shape[0]):
            d = 0.0
            for k in range(a.shape[1]):
                tmp = a[i, k] - a[j, k]
                d += tmp * tmp
            out[i, j] = np.sqrt(d)


def row_max(a, out):
    for i in prange(a.shape[0]):
        out[i] = a[i, :].max()


def row_mean(a, out):
    for i in prange(a.shape[0]):
        out[i] = np.mean(a[i])


def stencil(a, out):
    n = a.shape[0]
    for i in prange(1, n - 1):
        out[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0


def computed_slice_bounds(a, out):
    for i in prange(a.shape[0]):
        lo = i % 3
        out[i] = a[i, lo : lo + 2].sum() + a[i, ::2].sum()


def view_expression_sum(a, out):
    for i in prange(a.shape[0]):
        row = a[i]
        out[i] = (row * 2.0 - 1.0).sum()


def reversed_row(a, b):
    for i in prange(a.shape[0]):
        b[i, :] = a[i, ::-1]


def scalar_argument_and_float32(a, out, alpha):
    for i in prange(a.shape[0]):
        out[i] = alpha * a[i] + np.float32(1.5)


def three_d_rows(a, out):
    for i in prange(a.shape[0]):
        out[i] = a[i, 1, :].sum() + a[i, :, 0].sum()


def in_loop_view_write(a, b):
    for i in prange(a.shape[0]):
        row = b[i]
        row[:] = 0.0
        for k in range(a.shape[1]):
            row[k] += a[i, k] * k


def I(*shape, dtype="float64"):  # noqa: E743  an input array
    return ("in", shape, dtype)


def O(*shape, dtype="float64"):  # noqa: E743  an output array (poisoned)
    return ("out", shape, dtype)


PROGRAMS = [
    (square_norm, [I(37, 9), O(37)]),
    (row_slice_sum, [I(41, 7), O(41)]),
    (row_view, [I(23, 6), O(23)]),
    (row_assign_expr, [I(19, 8), O(19, 8)]),
    (row_copy, [I(19, 8), O(19, 8)]),
    (exp_sum, [I(1001)]),
    (max_min_reduction, [I(777)]),
    (product_reduction, [I(301)]),
    (call_njit, [I(101), I(101), O(101)]),
    (call_nx_jit, [I(101), O(101)]),
    (optional_weight, [I(64), O(64)]),
    (optional_weight, [I(64), O(64), ("scalar", 2.5)]),
    (none_constant, [I(64), O(64)]),
    (matmul_loops, [I(17, 11), I(11, 13), O(17, 13)]),
    (accumulate_into_elements, [I(29, 5), O(29)]),
    (nested_prange_2d, [I(15, 21), O(15, 21)]),
    (math_functions, [I(257), O(257)]),
    (numpy_ufuncs_on_scalars, [I(257), I(257), O(257)]),
    (integer_arithmetic, [I(199, dtype="int64"), I(199, dtype="int64"), O(199, dtype="int64")]),
    (conditional_select, [I(333), O(333)]),
    (column_view_sum, [I(13, 31), O(31)]),
    (matvec, [I(33, 17), I(17), O(33)]),
    (black_scholes, [I(513), I(513), I(513), O(513), O(513)]),
    (pairwise_distance, [I(24, 3), O(24, 24)]),
    (row_max, [I(27, 9), O(27)]),
    (row_mean, [I(27, 9), O(27)]),
    (stencil, [I(500), O(500)]),
    (computed_slice_bounds, [I(30, 8), O(30)]),
    (view_expression_sum, [I(30, 8), O(30)]),
    (reversed_row, [I(12, 7), O(12, 7)]),
    (scalar_argument_and_float32, [I(100, dtype="float32"), O(100, dtype="float32"), ("scalar", 0.75)]),
    (three_d_rows, [I(9, 4, 5), O(9)]),
    (in_loop_view_write, [I(14, 6), O(14, 6)]),
]


def _inputs(rng, spec):
    """NumPy values of the arguments: random inputs (positive, so logs and square roots are defined),
    outputs filled with NaN or a sentinel integer, scalars as given."""
    out = []
    for kind, *rest in spec:
        if kind == "scalar":
            out.append(rest[0])
            continue
        shape, dtype = rest
        dt = np.dtype(dtype)
        if kind == "in":
            v = rng.integers(-1000, 1000, shape) if dt.kind == "i" else rng.random(shape) + 0.05
        else:
            v = np.full(shape, np.nan if dt.kind == "f" else -12345)
        out.append(v.astype(dt))
    return out


def _ids():
    seen: dict[str, int] = {}
    ids = []
    for f, _ in PROGRAMS:
        seen[f.__name__] = seen.get(f.__name__, 0) + 1
        ids.append(f.__name__ if seen[f.__name__] == 1 else f"{f.__name__}_{seen[f.__name__]}")
    return ids


@pytest.mark.parametrize(("func", "spec"), PROGRAMS, ids=_ids())
def test_prange_body_matches_numba_parallel(rng, func, spec):
    host = _inputs(rng, spec)
    ref_args = [h.copy() if isinstance(h, np.ndarray) else h for h in host]
    want = numba.njit(parallel=True)(func)(*ref_args)
    for h in host:
        if isinstance(h, np.ndarray):
            poison(h.size, h.dtype)
    dev_args = [nx.asarray(h) if isinstance(h, np.ndarray) else h for h in host]
    got = nx.jit(func)(*dev_args)
    for k, (d, r) in enumerate(zip(dev_args, ref_args)):
        if isinstance(r, np.ndarray):
            g = nx.asnumpy(d)
            assert g.dtype == r.dtype, k
            if r.dtype.kind == "f":
                np.testing.assert_allclose(g, r, rtol=2e-5 if r.dtype == np.float32 else 1e-11, atol=1e-12)
            else:
                np.testing.assert_array_equal(g, r)
    if want is None:
        assert got is None
    else:
        assert isinstance(got, float)
        np.testing.assert_allclose(got, want, rtol=1e-11)


def iterate_over_row(a, out):
    for i in prange(a.shape[0]):
        s = 0.0
        for x in a[i]:
            s += x
        out[i] = s


def test_construct_that_cannot_be_offloaded_is_named_with_its_line(rng):
    a, out = nx.asarray(rng.random((4, 3))), nx.empty(4)
    with pytest.raises(nx.errors.UnsupportedError) as info:
        nx.jit(iterate_over_row)(a, out)
    msg = str(info.value)
    assert "iterating over" in msg
    assert "test_prange_bodies.py" in msg
    line = iterate_over_row.__code__.co_firstlineno + 3
    assert f"line {line}" in msg, msg
