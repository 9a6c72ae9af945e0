"""Where jitted code runs and what its results keep: queues and USM types through boxing, the
precedence of mixed USM types, equivalent and non-equivalent queues (with and without the jit
wrapper), views made inside jitted code."""

import numba
import numpy as np
import pytest

import numba_ext
from numba_ext import Context, Queue

from ..conftest import DEV
from .conftest import slice_expr


def test_boxing_roundtrip_keeps_queue_and_usm_type(rng):
    q = Queue(DEV)
    h = rng.standard_normal(10)
    a = numba_ext.asarray(h, sycl_queue=q, usm_type="shared")
    same = numba_ext.jit(lambda x: x)(a)
    assert isinstance(same, numba_ext.ndarray)
    assert same.sycl_queue is q or same.sycl_queue.equivalent(q)
    assert same.usm_type == "shared" and same._data_ptr == a._data_ptr
    view = numba_ext.jit(lambda x: x[2:8:2])(a)
    np.testing.assert_array_equal(numba_ext.asnumpy(view), h[2:8:2])


def test_mixed_usm_types_follow_precedence(rng):
    h = rng.standard_normal(16)
    f = numba_ext.jit(lambda x, y: x + y)
    table = {
        ("device", "device"): "device",
        ("device", "shared"): "device",
        ("device", "host"): "device",
        ("shared", "shared"): "shared",
        ("shared", "host"): "shared",
        ("host", "host"): "host",
    }
    for (u1, u2), want in table.items():
        x, y = numba_ext.asarray(h, usm_type=u1), numba_ext.asarray(h, usm_type=u2)
        for args in ((x, y), (y, x)):
            with pytest.warns(numba_ext.MixedUSMTypeWarning) if u1 != u2 else _nullcontext():
                out = f(*args)
            assert out.usm_type == want
            np.testing.assert_array_equal(numba_ext.asnumpy(out), 2 * h)


class _nullcontext:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def test_equivalent_queues_run(rng):
    d = numba_ext.Device(DEV)
    q1, q2 = Queue(d), Queue(d)
    ha, hb = rng.standard_normal(50), rng.standard_normal(50)
    out = slice_expr(numba_ext.asarray(np.abs(ha), sycl_queue=q1), numba_ext.asarray(hb, sycl_queue=q2))
    assert out.sycl_queue.equivalent(q1)
    np.testing.assert_allclose(numba_ext.asnumpy(out), np.sqrt(np.abs(ha)) * hb + 1.0, rtol=1e-13, atol=1e-14)


def test_non_equivalent_queues_raise_before_launch(rng):
    d = numba_ext.Device(DEV)
    q1 = Queue(d)
    q2 = Queue(d, context=Context(d))
    a = numba_ext.asarray(rng.standard_normal(8), sycl_queue=q1)
    b = numba_ext.asarray(rng.standard_normal(8), sycl_queue=q2)
    f = numba_ext.jit(lambda a, b: a + b)
    with pytest.raises(numba_ext.ExecutionPlacementError) as ei:
        f(a, b)
    err = ei.value
    assert isinstance(err, numba_ext.NumbaExtError) and isinstance(err, ValueError)
    msg = str(err)
    assert "'a'" in msg and "'b'" in msg and repr(q1) in msg and repr(q2) in msg
    assert "numba_ext.asarray(x, sycl_queue=q)" in msg
    assert f.signatures == []  # nothing was compiled, nothing launched
    # the fix from the message works
    out = f(a, numba_ext.asarray(b, sycl_queue=q1))
    np.testing.assert_allclose(numba_ext.asnumpy(out), numba_ext.asnumpy(a) + numba_ext.asnumpy(b))


def test_plain_njit_checks_queues_in_compiled_code(rng):
    # without the numba_ext.jit wrapper the compiled launch itself refuses non-equivalent queues
    d = numba_ext.Device(DEV)
    a = numba_ext.asarray(rng.standard_normal(8), sycl_queue=Queue(d))
    b = numba_ext.asarray(rng.standard_normal(8), sycl_queue=Queue(d, context=Context(d)))
    f = numba.njit(lambda a, b: a * b)
    with pytest.raises(numba_ext.ExecutionPlacementError, match="'a'.*'b'"):
        f(a, b)


def test_views_made_inside_jit_keep_the_queue(rng):
    q = Queue(DEV)
    h = rng.standard_normal((6, 8))
    a = numba_ext.asarray(h, sycl_queue=q, usm_type="host")

    @numba_ext.jit
    def g(x):
        v = x[1:5, ::2].T
        return np.sqrt(v * v + 1.0), v

    out, view = g(a)
    assert out.sycl_queue is q and view.sycl_queue is q
    assert out.usm_type == "host" and view.usm_type == "host"
    np.testing.assert_allclose(
        numba_ext.asnumpy(out), np.sqrt(h[1:5, ::2].T ** 2 + 1.0), rtol=1e-13, atol=1e-14
    )
    np.testing.assert_array_equal(numba_ext.asnumpy(view), h[1:5, ::2].T)
