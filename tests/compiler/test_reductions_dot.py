"""np.dot / @ / np.matmul / x.dot of 1-D and 2-D arrays, inside @numba_ext.jit and eagerly, on every
dtype pair and on non-contiguous views, checked against NumPy; empty operands and errors."""

import numba
import numpy as np
import pytest

import numba_ext as nx

from ..conftest import DEV
from .conftest import poison_result

# -- np.dot / @ ---------------------------------------------------------------------------------------
DOT_SHAPES = {"mv": ((7, 5), (5,)), "vm": ((5,), (5, 6)), "mm": ((7, 5), (5, 6)), "vv": ((9,), (9,))}


def _dot_data(rng, shape, dtype):
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    if np.dtype(dtype) == np.bool_:
        return rng.random(shape) < 0.3
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)  # products wrap as in NumPy


DOT = nx.jit(lambda x, y: (np.dot(x, y), x @ y, np.matmul(x, y), x.dot(y)))


@pytest.mark.parametrize(
    "dtypes",
    [
        ("float64", "float64"),
        ("float32", "float32"),
        ("int32", "int32"),
        ("int64", "int64"),
        ("int32", "float64"),
        ("bool", "bool"),
    ],
)
@pytest.mark.parametrize("kind", sorted(DOT_SHAPES))
def test_dot(rng, kind, dtypes):
    sa, sb = DOT_SHAPES[kind]
    ha, hb = _dot_data(rng, sa, dtypes[0]), _dot_data(rng, sb, dtypes[1])
    a, b = nx.asarray(ha), nx.asarray(hb)
    want = np.dot(ha, hb)
    rtol = 1e-5 if "float32" in dtypes else 1e-12

    def check(got, eager=True):
        if kind == "vv" and not eager:
            assert not isinstance(got, nx.ndarray)  # a scalar in jitted code
        else:  # eagerly, two vectors give a 0-d array on their queue (as dpnp's)
            assert isinstance(got, nx.ndarray) and got.sycl_queue is a.sycl_queue and got.usm_type == "device"
            assert got.dtype == want.dtype and got.shape == want.shape
            got = nx.asnumpy(got)
        if want.dtype.kind == "f":
            np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * np.abs(ha).max() * np.abs(hb).max())
        else:
            np.testing.assert_array_equal(got, want)  # integer products wrap as in NumPy

    if kind != "vv":
        poison_result(want.shape, want.dtype)
    check(a @ b)  # eagerly
    check(a.dot(b))
    check(np.matmul(a, b))
    if dtypes in (("float64", "float64"), ("int32", "int32")):
        for got in DOT(a, b):
            check(got, eager=False)


#: products around the tiled kernel's edges (8 rows by 1 column per work-item, 16 work-items a
#: group, at least 16 result columns; fewer columns take the loop of one work-item per element)
TILED_SHAPES = [(1, 5, 16), (9, 1, 17), (17, 0, 40), (8, 40, 15), (33, 16, 100), (3, 7, 31)]
MATMUL_COMPILED = {
    "numba_ext.compiler.jit": nx.compiler.jit(lambda x, y: x @ y),
    "numba.njit": numba.njit(lambda x, y: np.dot(x, y)),
}


@pytest.mark.parametrize("compiled", sorted(MATMUL_COMPILED))
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int8", "uint16"])
def test_jitted_products_in_tiles(rng, dtype, compiled):
    f = MATMUL_COMPILED[compiled]
    for m, k, n in TILED_SHAPES:
        ha, hb = _dot_data(rng, (m, k), dtype), _dot_data(rng, (k, n), dtype)
        want = ha @ hb
        poison_result(want.shape, want.dtype)
        got = f(nx.asarray(ha), nx.asarray(hb))
        assert got.dtype == want.dtype and got.shape == want.shape
        if want.dtype.kind == "f":
            rtol = 1e-5 if dtype == "float32" else 1e-12
            np.testing.assert_allclose(nx.asnumpy(got), want, rtol=rtol, atol=rtol * k * 10)
        else:
            np.testing.assert_array_equal(nx.asnumpy(got), want)


@pytest.mark.parametrize("compiled", sorted(MATMUL_COMPILED))
@pytest.mark.parametrize("dtype", ["float64", "int32", "bool"])
def test_jitted_products_with_vectors(rng, eager_calls, dtype, compiled):
    # from EAGER_FEWEST elements on the eager kernels, below them the jitted helpers
    from numba_ext.compiler.reductions import EAGER_FEWEST

    f = MATMUL_COMPILED[compiled]
    for rows, cols in ((300, 120), (30, 41)):
        m = _dot_data(rng, (rows, cols), dtype)
        u, v, d = _dot_data(rng, cols, dtype), _dot_data(rng, rows, dtype), nx.asarray(m)
        pairs = [
            (m, u, d, nx.asarray(u)),
            (v, m, nx.asarray(v), d),
            (m[::2, ::-1], m[0, ::-1], d[::2, ::-1], d[0, ::-1]),
        ]
        for x, y, dx, dy in pairs:  # the last: views with steps and negative strides
            want = np.dot(x, y)
            eager_calls.clear()
            got = f(dx, dy)
            assert len(eager_calls) == (x.size + y.size >= EAGER_FEWEST), (x.shape, y.shape, eager_calls)
            assert got.dtype == want.dtype and got.shape == want.shape
            if want.dtype.kind == "f":
                np.testing.assert_allclose(
                    nx.asnumpy(got), want, rtol=1e-12, atol=1e-12 * np.abs(x).max() * cols
                )
            else:
                np.testing.assert_array_equal(nx.asnumpy(got), want)
    big = _dot_data(rng, EAGER_FEWEST, dtype)
    for w in (big, big[:100]):  # two vectors: a scalar
        assert np.dot(w[::-1], w) == pytest.approx(f(nx.asarray(w)[::-1], nx.asarray(w)), rel=1e-12)
    with pytest.raises(ValueError, match="not aligned"):
        f(nx.asarray(m), nx.asarray(_dot_data(rng, 40, dtype)))


@pytest.mark.parametrize("compiled", sorted(MATMUL_COMPILED))
def test_jitted_products_in_tiles_check_queues(rng, compiled):
    # numba_ext.jit refuses the call; plain numba.njit reaches the tiled launch, which refuses it
    d = nx.Device(DEV)
    a = nx.asarray(rng.standard_normal((8, 4)), sycl_queue=nx.Queue(d))
    b = nx.asarray(rng.standard_normal((4, 40)), sycl_queue=nx.Queue(d, context=nx.Context(d)))
    with pytest.raises(nx.ExecutionPlacementError, match="non-equivalent queues"):
        MATMUL_COMPILED[compiled](a, b)


@pytest.mark.parametrize("kind", ["mv", "vm", "mm"])
def test_dot_non_contiguous(rng, kind):
    sa, sb = DOT_SHAPES[kind]
    # views with steps and negative strides of bigger arrays, made alike on the host and the device
    view_a = (lambda t: t[::-2, 1::2]) if len(sa) == 2 else (lambda t: t[::-2])
    view_b = (lambda t: t[::2, ::-2]) if len(sb) == 2 else (lambda t: t[1::3])
    big_a = rng.standard_normal(tuple(2 * n for n in sa))
    big_b = rng.standard_normal(tuple(2 * n for n in sb) if len(sb) == 2 else (3 * sb[0],))
    ha, hb = view_a(big_a), view_b(big_b)
    a, b = view_a(nx.asarray(big_a)), view_b(nx.asarray(big_b))
    assert ha.shape == sa and hb.shape == sb
    want = ha @ hb
    for got in (nx.jit(lambda x, y: x @ y)(a, b), a @ b, nx.jit(lambda x, y: np.dot(x, y))(a, b)):
        np.testing.assert_allclose(nx.asnumpy(got), want, rtol=1e-12, atol=1e-14)
    if kind == "mm":  # a transposed operand
        np.testing.assert_allclose(nx.asnumpy(a @ a.T), ha @ ha.T, rtol=1e-12, atol=1e-14)


def test_dot_edges_and_errors(rng):
    z = nx.asarray(np.zeros((3, 0))) @ nx.asarray(np.zeros((0, 4)))  # empty inner dimension: zeros
    np.testing.assert_array_equal(nx.asnumpy(z), np.zeros((3, 4)))
    e = nx.jit(lambda x, y: x @ y)(nx.empty((0, 3)), nx.empty((3, 2)))
    assert e.shape == (0, 2)
    m, v = nx.asarray(rng.standard_normal((2, 3))), nx.asarray(rng.standard_normal(4))
    msg = r"shapes \(2,3\) and \(4,\) not aligned: 3 \(dim 1\) != 4 \(dim 0\)"
    with pytest.raises(ValueError, match=msg):
        nx.jit(lambda x, y: np.dot(x, y))(m, v)
    with pytest.raises(ValueError, match=msg):
        m @ v
    with pytest.raises(ValueError, match=r"shapes \(4,\) and \(3,\) not aligned"):
        v.dot(nx.asarray(np.ones(3)))
    with pytest.raises(nx.UnsupportedError, match="1-D and 2-D operands, got 3-D and 1-D"):
        nx.jit(lambda x, y: np.dot(x, y))(nx.empty((2, 2, 3)), nx.empty(3))
    with pytest.raises(nx.UnsupportedError, match="scalars: use"):
        nx.jit(lambda x: np.dot(x, 2.0))(v)
    with pytest.raises(nx.ExecutionPlacementError, match="NumPy array"):
        nx.jit(lambda x, y: x @ y)(m, np.ones(3))
    with pytest.raises(nx.ExecutionPlacementError, match="ndarray"):
        m @ np.ones(3)
