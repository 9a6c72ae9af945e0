"""In-place operators (``a += b`` and the rest) as NumPy's: the result is written into ``a``'s memory
(``a`` stays the same object, views of it see the result) in ``a``'s dtype by the 'same_kind'
casting rule, and operands that overlap the result are read as they were before the operation."""

import operator

import numpy as np
import pytest

import numba_ext as nx

from ..conftest import DEV

FLOAT_OPS = ["iadd", "isub", "imul", "itruediv", "ifloordiv", "imod", "ipow"]
INT_OPS = ["iadd", "isub", "imul", "ifloordiv", "imod", "iand", "ior", "ixor", "ilshift", "irshift"]


@pytest.mark.parametrize("name", FLOAT_OPS)
def test_float_operators_write_into_the_array(rng, name):
    h = rng.uniform(1.0, 3.0, (6, 5))
    o = rng.uniform(0.5, 2.0, (5,))  # broadcast along the rows
    a = nx.asarray(h, device=DEV)
    row = a[2]  # a view: sees the result
    same = a
    getattr(operator, name)(a, nx.asarray(o, device=DEV))
    want = getattr(operator, name)(h.copy(), o)
    assert a is same and a.dtype == np.float64
    np.testing.assert_allclose(nx.asnumpy(a), want, rtol=1e-14)
    np.testing.assert_allclose(nx.asnumpy(row), want[2], rtol=1e-14)


@pytest.mark.parametrize("name", INT_OPS)
def test_integer_operators_keep_the_dtype(rng, name):
    h = rng.integers(1, 100, 40, dtype=np.int32)
    a = nx.asarray(h, device=DEV)
    k = 3  # a Python int: int32 stays int32 (NumPy's weak scalars)
    getattr(operator, name)(a, k)
    assert a.dtype == np.int32
    np.testing.assert_array_equal(nx.asnumpy(a), getattr(operator, name)(h.copy(), k))


def test_float32_with_a_python_float_stays_float32(rng):
    h = rng.random(10, dtype=np.float32)
    a = nx.asarray(h, device=DEV)
    a *= 2.5
    h *= 2.5
    assert a.dtype == np.float32
    np.testing.assert_array_equal(nx.asnumpy(a), h)


def test_casting_by_same_kind_as_numpy():
    a = nx.arange(4, device=DEV)
    with pytest.raises(TypeError, match="same_kind"):
        a += 1.5
    with pytest.raises(TypeError):
        np.arange(4).__iadd__(1.5)  # NumPy refuses it too
    np.testing.assert_array_equal(nx.asnumpy(a), np.arange(4))  # untouched
    b = nx.zeros(3, dtype=bool, device=DEV)
    with pytest.raises(TypeError):
        b += 1


@pytest.mark.parametrize(
    "expr",
    [
        "a += a[::-1]",
        "a[1:] += a[:-1]",
        "a[:-1] -= a[1:]",
        "a += a",
        "np.add(a[:3], a[3:], out=a[3:])",
        "np.multiply(a[::2], a[1::2], out=a[1::2])",
    ],
)
def test_overlapping_operands_are_read_before_the_write(rng, expr):
    h = rng.random(6)
    a = nx.asarray(h, device=DEV)
    exec(expr, {"np": np, "a": a})
    exec(expr, {"np": np, "a": h})
    np.testing.assert_allclose(nx.asnumpy(a), h, rtol=1e-15)


def test_matmul_in_place(rng):
    h = rng.random((4, 4))
    g = rng.random((4, 4))
    a = nx.asarray(h, device=DEV)
    same = a
    a @= nx.asarray(g, device=DEV)
    assert a is same
    np.testing.assert_allclose(nx.asnumpy(a), h @ g, rtol=1e-13)
    with pytest.raises(ValueError, match="needs a result of the shape of a"):
        a @= nx.asarray(rng.random((4, 2)), device=DEV)
    i = nx.asarray(np.eye(2, dtype=np.int64), device=DEV)
    with pytest.raises(TypeError, match="same_kind"):
        i @= nx.asarray(np.eye(2), device=DEV)


def test_an_operand_of_no_array_kind_is_a_type_error():
    a = nx.zeros(3, device=DEV)
    with pytest.raises(TypeError):
        a += "x"
