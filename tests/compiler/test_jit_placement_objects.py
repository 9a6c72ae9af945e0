"""Placement objects in jitted code: array attributes (sycl_queue, device, usm_type, dtype, shape,
ndim, size, strides, flags, T), Queue / Device / Range / NdRange as arguments and results, and
compute follows data for arrays created inside (an array on a non-equivalent queue meeting the
arguments is an ExecutionPlacementError naming both queues; the arguments' queue works, with the
USM type precedence device < shared < host)."""

import warnings

import numba
import numpy as np
import pytest
from numba import prange

import numba_ext as nx
from numba_ext import Context, Device, NdRange, Queue, Range

from ..checks import check, poison
from ..conftest import DEV


@nx.jit
def like_by_attributes(a):
    # the commonest dpjit idiom: a new array described by another one's attributes
    out = nx.empty(a.shape, dtype=a.dtype, sycl_queue=a.sycl_queue, usm_type=a.usm_type)
    for i in prange(a.shape[0]):
        for j in range(a.shape[1]):
            out[i, j] = a[i, j] * 2.0 + 1.0
    return out


@pytest.mark.parametrize("usm", ["device", "shared", "host"])
def test_empty_from_attributes(rng, usm):
    q = Queue(DEV)
    h = rng.standard_normal((int(rng.integers(2, 40)), 5)).astype(np.float32)
    a = nx.asarray(h, sycl_queue=q, usm_type=usm)
    poison(h.size, h.dtype)
    out = like_by_attributes(a)
    assert out.sycl_queue is q and out.usm_type == usm and out.dtype == np.float32
    check(out, h * np.float32(2.0) + np.float32(1.0))


def test_attributes_read_in_jit(rng):
    q = Queue(DEV)
    h = rng.standard_normal((int(rng.integers(2, 9)), 3))
    for usm in ("device", "shared", "host"):
        for a, ha in ((nx.asarray(h, sycl_queue=q, usm_type=usm), h), (nx.asarray(h, sycl_queue=q).T, h.T)):
            got = nx.jit(
                lambda a: (
                    a.sycl_queue,
                    a.device,
                    a.usm_type,
                    a.shape,
                    a.ndim,
                    a.size,
                    a.strides,
                    a.flags.c_contiguous,
                    a.flags.f_contiguous,
                    a.T,
                    a.device.filter_string,
                    a.sycl_queue.sycl_device.filter_string,
                )
            )(a)
            assert got[0] is a.sycl_queue and got[1] == a.device and got[2] == a.usm_type
            assert got[3:9] == (
                ha.shape,
                ha.ndim,
                ha.size,
                ha.strides,
                ha.flags.c_contiguous,
                ha.flags.f_contiguous,
            )
            assert got[9].sycl_queue is q and got[9].usm_type == a.usm_type
            check(got[9], ha.T)
            assert got[10] == got[11] == DEV


def test_dtype_attribute_types_new_arrays(rng):
    for dt in (np.int16, np.float32, np.uint64, np.bool_):
        h = rng.integers(0, 2, 11).astype(dt)
        a = nx.asarray(h, device=DEV)
        z, f = nx.jit(lambda a: (nx.zeros(a.size, a.dtype), nx.full_like(a, 1, dtype=a.dtype)))(a)
        check(z, np.zeros(11, dt))
        check(f, np.ones(11, dt))


def test_queue_and_device_round_trip():
    q = Queue(DEV)
    d = Device(DEV)
    ident = nx.jit(lambda x: x)
    assert ident(q) is q
    assert ident(d) is d
    pair = nx.jit(lambda q, d: (d, q, q.sycl_device, q.device))(q, d)
    assert pair[0] is d and pair[1] is q and pair[2] == d and pair[3] == d
    other = Queue(Device(DEV), context=Context(Device(DEV)))
    assert ident(other) is other and not ident(other).equivalent(q)


def test_range_and_ndrange_round_trip(rng):
    dims = tuple(int(x) for x in rng.integers(1, 50, 3))
    ident = nx.jit(lambda x: x)
    for k in (1, 2, 3):
        r = ident(Range(*dims[:k]))
        assert type(r) is Range and r == Range(*dims[:k])
        nd = ident(NdRange(tuple(4 * d for d in dims[:k]), dims[:k]))
        assert type(nd) is NdRange
        assert nd.global_range == Range(*(4 * d for d in dims[:k])) and nd.local_range == Range(*dims[:k])
    parts = nx.jit(lambda r, nd: (r[0] + len(r), nd.global_range, nd.local_range[1], Range(r[1], 2)))
    got = parts(Range(dims[0], dims[1]), NdRange((8, 6), (4, 3)))
    assert got[0] == dims[0] + 2 and got[1] == Range(8, 6) and type(got[1]) is Range and got[2] == 3
    assert type(got[3]) is Range and got[3] == Range(dims[1], 2)
    made = nx.jit(lambda n: NdRange((n, 2 * n), (n, 2)))(dims[0])
    assert made.global_range == Range(dims[0], 2 * dims[0]) and made.local_range == Range(dims[0], 2)


def test_queue_argument_places_allocations_and_the_call(rng):
    q = Queue(DEV)
    n = int(rng.integers(3, 50))
    make = nx.jit(lambda n, q: nx.arange(n, sycl_queue=q) * 2 + nx.ones(n, np.int64, sycl_queue=q))
    out = make(n, q)
    assert out.sycl_queue is q
    check(out, np.arange(n) * 2 + 1)
    plan = make._plan((n, q))
    assert plan.queue is q


def test_arrays_made_on_another_queue_meet_the_arguments():
    d = Device(DEV)
    q1, q_same, q_other = Queue(d), Queue(d), Queue(d, context=Context(d))
    h = np.random.default_rng().standard_normal(33)
    a = nx.asarray(h, sycl_queue=q1)

    @nx.jit
    def expr(a, q):
        b = nx.full(a.shape, 3.0, sycl_queue=q)
        return a * b

    @nx.jit
    def loop(a, q):
        b = nx.ones_like(a, sycl_queue=q)
        out = nx.empty_like(a)
        for i in prange(a.shape[0]):
            out[i] = a[i] - b[i]
        return out

    for f, want in ((expr, h * 3.0), (loop, h - 1.0)):
        for q in (q1, q_same):  # the arguments' queue or an equivalent one: runs, result on a's queue
            out = f(a, q)
            assert out.sycl_queue.equivalent(q1) and out.usm_type == "device"
            check(out, want)
        with pytest.raises(nx.ExecutionPlacementError) as ei:
            f(a, q_other)
        msg = str(ei.value)
        assert f"{q1._handle:#x}" in msg and f"{q_other._handle:#x}" in msg, msg
        assert "'a'" in msg and "'b'" in msg and "numba_ext.asarray(x, sycl_queue=q)" in msg


def test_device_keyword_queue_follows_the_default_context(rng):
    # device= names the device's queue in its default context: equivalent to the arguments' queue
    # when they use that context, not when they use another
    d = Device(DEV)
    f = nx.jit(lambda a: a + nx.ones(a.shape, device=DEV))
    h = rng.standard_normal(17)
    check(f(nx.asarray(h, sycl_queue=Queue(d))), h + 1.0)
    with pytest.raises(nx.ExecutionPlacementError):
        f(nx.asarray(h, sycl_queue=Queue(d, context=Context(d))))


@pytest.mark.parametrize(
    "inside, arg, want",
    [
        ("device", "shared", "device"),
        ("shared", "host", "shared"),
        ("host", "host", "host"),
        ("host", "device", "device"),
        ("shared", "shared", "shared"),
    ],
)
def test_usm_type_precedence_with_arrays_made_inside(rng, inside, arg, want):
    q = Queue(DEV)
    h = rng.standard_normal(29)
    a = nx.asarray(h, sycl_queue=q, usm_type=arg)
    f = nx.jit(lambda a: a + nx.full(a.shape, 2.0, usm_type=inside, sycl_queue=a.sycl_queue))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", nx.MixedUSMTypeWarning)
        out = f(a)
    assert out.sycl_queue is q and out.usm_type == want
    check(out, h + 2.0)


def test_plain_njit_understands_queue_and_device_arguments(rng):
    q = Queue(DEV)
    f = numba.njit(lambda n, q, d: (nx.zeros(n, sycl_queue=q), nx.ones(n, device=d), q, d))
    n = int(rng.integers(2, 20))
    z, o, q2, d2 = f(n, q, q.sycl_device)
    assert z.sycl_queue is q and q2 is q and d2 == q.sycl_device and o.device == q.sycl_device
    check(z, np.zeros(n))
    check(o, np.ones(n))


@pytest.mark.needs_cpu
def test_other_devices_inside_are_refused_when_compiling(rng):
    # a sub-device is another device: arrays made on it cannot meet the arguments (the devices are
    # part of the types, so this is found when compiling), and device= / sycl_queue= must agree
    sub = Device(DEV).create_sub_devices(partition=1)[0]
    a = nx.asarray(rng.standard_normal(8), device=DEV)
    with pytest.raises(nx.ExecutionPlacementError, match="different devices"):
        nx.jit(lambda a, d: a + nx.ones(a.shape, device=d))(a, sub)
    with pytest.raises(nx.UnsupportedError, match="name different devices"):
        nx.jit(lambda a, d: nx.ones(3, device=d, sycl_queue=a.sycl_queue))(a, sub)
    on_sub = nx.jit(lambda n, d: nx.arange(n, device=d))(5, sub)
    assert on_sub.device == sub
    check(on_sub, np.arange(5))
