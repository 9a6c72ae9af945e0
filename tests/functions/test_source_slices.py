"""Jitted functions that slice their arrays (``a[1:] - a[:-1]``), compiled from their source without
Numba: views of the same memory as Numba makes, the same bits as Numba's compilation of the same
function, NumPy's values, and the calls that go to Numba instead."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import numba_ext

from ..checks import fp_tol, poison
from ..conftest import require_device_in_child_process

LAG = 3


def central(a):
    return (a[2:] - a[:-2]) * 0.5


def strides_and_steps(a, k):
    return a[::2] * k + a[1::2], a[::-1] - a, a[LAG:] - a[:-LAG]


def rows_and_columns(a):
    dy = a[1:, :] - a[:-1, :]
    dx = a[:, 1:] - a[:, :-1]
    return dy[:, :-1] ** 2 + dx[:-1, :] ** 2


def of_an_expression(a, b):
    t = a * b + 1.0
    return t[1:] / t[:-1]


def with_reductions(a):
    products = np.sum(a[:, 1:] * a[:, :-1], axis=1)
    return products[1:] - products[:-1], np.max(a[::2], axis=0)[::-1]


def _host(result):
    result = result if isinstance(result, tuple) else (result,)
    return tuple(numba_ext.asnumpy(r) for r in result)


def _check(func, host_args, args):
    f = numba_ext.jit(func)
    poison(host_args[0].size, "float64")
    got = _host(f(*args))
    assert f._impl is None, "served from the source: Numba was not involved"
    by_numba = _host(numba_ext.compiler.jit(func)(*args))
    want = func(*host_args)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(by_numba) == len(want)
    for g, n, w in zip(got, by_numba, want):
        # (float32 arrays times a Python float are float64 in Numba's typing, float32 in NumPy's)
        assert g.dtype == n.dtype and g.shape == n.shape == w.shape
        np.testing.assert_array_equal(g.view(np.uint8), n.view(np.uint8))  # bit for bit
        np.testing.assert_allclose(g, w, **fp_tol(w.dtype))
    return f


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_stencils_of_one_dimension(rng, dtype):
    h = rng.standard_normal(101).astype(dtype)
    _check(central, [h], [numba_ext.asarray(h)])
    f = _check(strides_and_steps, [h[:100], 1.5], [numba_ext.asarray(h[:100]), 1.5])
    assert len(f.signatures) == 1 and isinstance(f.signatures[0][0], str)


def test_rows_columns_and_strided_arguments(rng):
    h = rng.standard_normal((13, 17))
    _check(rows_and_columns, [h], [numba_ext.asarray(h)])
    _check(rows_and_columns, [h.T], [numba_ext.asarray(h).T])
    _check(rows_and_columns, [h[::2, ::-3]], [numba_ext.asarray(h)[::2, ::-3]])


def test_slices_of_expressions_and_reductions(rng):
    h, hb = rng.uniform(0.5, 2.0, 40), rng.uniform(0.5, 2.0, 40)
    _check(of_an_expression, [h, hb], [numba_ext.asarray(h), numba_ext.asarray(hb)])
    h2 = rng.standard_normal((9, 6))
    _check(with_reductions, [h2], [numba_ext.asarray(h2)])


def test_a_returned_slice_is_a_view_of_the_argument(rng):
    def tail(a):
        return a[1:]

    h = rng.standard_normal(10)
    a = numba_ext.asarray(h)
    f = numba_ext.jit(tail)
    v = f(a)
    assert f._impl is None
    assert v.shape == (9,) and v._data_ptr == a._data_ptr + a.itemsize  # the same memory, as Numba's
    np.testing.assert_array_equal(numba_ext.asnumpy(v), h[1:])


def test_empty_and_clamped_slices_as_numpy(rng):
    def edges(a):
        return a[5:2] * 2.0, a[-100:100] + 1.0, a[7:] - a[:3]

    h = rng.standard_normal(10)
    f = _check(edges, [h], [numba_ext.asarray(h)])
    assert [r.shape for r in f(numba_ext.asarray(h))] == [(0,), (10,), (3,)]


def test_other_indexing_goes_to_numba(rng):
    def integer_index(a):
        return a[0] * 2.0

    def too_many(a):
        return a[1:, 1:] * 2.0

    def not_broadcasting(a):
        return a[1:] - a

    h = rng.standard_normal((5, 4))
    f = numba_ext.jit(integer_index)
    np.testing.assert_allclose(numba_ext.asnumpy(f(numba_ext.asarray(h))), h[0] * 2.0, **fp_tol())
    assert f._impl is not None
    g = numba_ext.jit(too_many)
    with pytest.raises(Exception):  # noqa: B017 (Numba's typing error for a 1-d array)
        g(numba_ext.asarray(h[0]))
    assert g._impl is not None
    b = numba_ext.jit(not_broadcasting)
    with pytest.raises(ValueError, match="broadcast"):
        b(numba_ext.asarray(h[0]))


def test_slices_run_without_numba(tmp_path):
    require_device_in_child_process()
    src = tmp_path / "child.py"
    src.write_text(
        textwrap.dedent(
            """
            import sys
            import numpy as np
            import numba_ext

            def laplace(u):
                return u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1]

            h = np.random.default_rng(4).standard_normal((30, 40))
            got = numba_ext.asnumpy(numba_ext.jit(laplace)(numba_ext.asarray(h)))
            np.testing.assert_allclose(got, laplace(h), rtol=1e-12, atol=1e-13)
            assert not [m for m in ("numba", "llvmlite", "numba_ext.compiler") if m in sys.modules]
            print("ok")
            """
        )
    )
    out = subprocess.run([sys.executable, str(src)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-3000:]
