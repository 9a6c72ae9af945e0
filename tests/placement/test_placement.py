"""Compute follows data: queue inference and equivalence, USM-type precedence, NumPy arrays with
offload_to, and the errors for data that cannot be placed, through numba_ext's API."""

import subprocess
import sys
import textwrap
import threading
import warnings

import numba
import numpy as np
import pytest

import numba_ext
from numba_ext import Context, Device, ExecutionPlacementError, Queue
from numba_ext.utils import get_coerced_usm_type, get_execution_queue

from ..checks import fp_tol
from ..conftest import DEV, require_device_in_child_process

USM = ["device", "shared", "host"]
TABLE = {  # spec: precedence device < shared < host
    ("device", "device"): "device",
    ("device", "shared"): "device",
    ("device", "host"): "device",
    ("shared", "device"): "device",
    ("shared", "shared"): "shared",
    ("shared", "host"): "shared",
    ("host", "device"): "device",
    ("host", "shared"): "shared",
    ("host", "host"): "host",
}


@numba_ext.jit
def f(a, b, c):
    d = c * b
    e = a + d
    return d + e


def ref(a, b, c):
    d = c * b
    return d + (a + d)


def arrays(rng, queues, usm_types=("shared",) * 3, n=4):
    hs = [rng.standard_normal(n) for _ in queues]
    return hs, [numba_ext.asarray(h, sycl_queue=q, usm_type=u) for h, q, u in zip(hs, queues, usm_types)]


# -- helpers ------------------------------------------------------------------------------------------
def test_get_execution_queue():
    d = Device(DEV)
    q1, q2 = Queue(d), Queue(d)
    other = Queue(d, context=Context(d))
    assert get_execution_queue([q1, q1]) is q1
    assert get_execution_queue([q1, q2]) is q1  # equivalent: one of them
    assert get_execution_queue([q1, other]) is None
    assert get_execution_queue([q1, q2, other]) is None
    assert get_execution_queue([]) is None


@pytest.mark.parametrize("pair", sorted(TABLE))
def test_get_coerced_usm_type_table(pair):
    assert get_coerced_usm_type(list(pair)) == TABLE[pair]


def test_get_coerced_usm_type_edges():
    assert get_coerced_usm_type([]) is None
    assert get_coerced_usm_type(["host", "shared", "device"]) == "device"
    with pytest.raises(ValueError):
        get_coerced_usm_type(["device", "gpu"])


# -- rule 1: same / equivalent / non-equivalent queues ------------------------------------------------
def test_rule1_same_queue(rng):
    q = Queue(DEV)
    hs, xs = arrays(rng, [q, q, q])
    out = f(*xs)
    assert out.sycl_queue is q
    np.testing.assert_allclose(numba_ext.asnumpy(out), ref(*hs), **fp_tol())


def test_rule1_equivalent_queues(rng):
    d = Device(DEV)
    q1, q2 = Queue(d), Queue(d)
    hs, xs = arrays(rng, [q1, q2, q2])
    out = f(*xs)
    assert out.sycl_queue in (q1, q2)
    np.testing.assert_allclose(numba_ext.asnumpy(out), ref(*hs), **fp_tol())


def test_rule1_non_equivalent_queues(rng):
    d = Device(DEV)
    gpu_queue, gpu_queue_1 = Queue(d), Queue(d, context=Context(d))
    hs, xs = arrays(rng, [gpu_queue, gpu_queue_1, gpu_queue_1])
    with pytest.raises(ExecutionPlacementError) as ei:
        f(*xs)
    msg = str(ei.value)
    for name in ("'a'", "'b'", "'c'"):
        assert name in msg
    assert repr(gpu_queue) in msg and repr(gpu_queue_1) in msg


# -- rule 2: mixed USM types on one queue ----------------------------------------------------------
@pytest.mark.parametrize("u1", USM)
@pytest.mark.parametrize("u2", USM)
def test_rule2_mixed_usm_types_all_pairs(rng, u1, u2):
    q = Queue(DEV)
    ha, hb = rng.standard_normal(8), rng.standard_normal(8)
    a, b = numba_ext.asarray(ha, sycl_queue=q, usm_type=u1), numba_ext.asarray(hb, sycl_queue=q, usm_type=u2)
    g = numba_ext.jit(lambda x, y: x * y + 1.0)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = g(a, b)
        eager = a * b + 1.0
    mixed = [x for x in w if issubclass(x.category, numba_ext.MixedUSMTypeWarning)]
    assert bool(mixed) == (u1 != u2)
    assert issubclass(numba_ext.MixedUSMTypeWarning, UserWarning)
    assert out.usm_type == TABLE[(u1, u2)] and eager.usm_type == TABLE[(u1, u2)]
    assert out.sycl_queue is q and eager.sycl_queue is q
    np.testing.assert_allclose(numba_ext.asnumpy(out), ha * hb + 1.0, **fp_tol())
    np.testing.assert_allclose(numba_ext.asnumpy(eager), ha * hb + 1.0, rtol=1e-13, atol=1e-14)


def test_rule2_spec_example(rng):
    q = Queue(DEV)
    hs, xs = arrays(rng, [q, q, q], ("shared", "device", "host"))
    with pytest.warns(numba_ext.MixedUSMTypeWarning):
        out = f(*xs)
    assert out.sycl_queue is q and out.usm_type == "device"
    np.testing.assert_allclose(numba_ext.asnumpy(out), ref(*hs), **fp_tol())


# -- rule 3: explicit conversion --------------------------------------------------------------------
def test_rule3_asarray_makes_data_compatible(rng):
    d = Device(DEV)
    q1, q2 = Queue(d, context=Context(d)), Queue(d)
    hs, xs = arrays(rng, [q1, q2, q2], ("device",) * 3)
    with pytest.raises(ExecutionPlacementError):
        f(*xs)
    a_q2 = numba_ext.asarray(xs[0], sycl_queue=q2)  # other context: a copy
    assert a_q2._data_ptr != xs[0]._data_ptr
    out = f(a_q2, xs[1], xs[2])
    assert out.sycl_queue is q2
    np.testing.assert_allclose(numba_ext.asnumpy(out), ref(*hs), **fp_tol())
    # to_device, to an equivalent queue: no copy
    q3 = Queue(d)
    moved = xs[1].to_device(q3)
    assert moved._data_ptr == xs[1]._data_ptr and moved.sycl_queue is q3


# -- NumPy arrays -----------------------------------------------------------------------------------
def test_numpy_only_needs_offload_to(rng):
    hs = [rng.standard_normal(4) for _ in range(3)]
    with pytest.raises(ExecutionPlacementError, match=r"with numba_ext.offload_to\(q\)"):
        f(*hs)
    q = Queue(DEV)
    with numba_ext.offload_to(q) as active:
        assert active is q
        out = f(*hs)
    assert isinstance(out, np.ndarray)  # results come back as NumPy
    np.testing.assert_allclose(out, ref(*hs), **fp_tol())
    with numba_ext.offload_to(DEV):
        np.testing.assert_allclose(f(*hs), ref(*hs), **fp_tol())
    with numba_ext.offload_to(Device(DEV)):
        np.testing.assert_allclose(f(*hs), ref(*hs), **fp_tol())


def test_numpy_and_usm_in_one_call_inside_offload_to(rng):
    q = Queue(DEV)
    a, b = rng.standard_normal(4), rng.standard_normal(4)
    c = numba_ext.asarray(rng.standard_normal(4), sycl_queue=q)
    for target in (Queue(DEV), q):  # even the USM array's own queue
        with numba_ext.offload_to(target):
            with pytest.raises(ExecutionPlacementError, match="cannot be mixed"):
                f(a, b, c)
    with pytest.raises(ExecutionPlacementError):  # and outside: the expression mixes them
        f(a, b, c)


def test_usm_only_inside_offload_to_follows_the_data(rng):
    d = Device(DEV)
    data_q, ctx_q = Queue(d), Queue(d, context=Context(d))
    hs, xs = arrays(rng, [data_q] * 3)
    with numba_ext.offload_to(ctx_q):
        with pytest.warns(numba_ext.QueueMismatchWarning):
            out = f(*xs)
    assert out.sycl_queue is data_q
    with numba_ext.offload_to(Queue(d)):  # equivalent: no warning
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            f(*xs)


def test_offload_to_nests_and_is_per_thread(rng):
    q1, q2 = Queue(DEV), Queue(DEV)
    from numba_ext.placement import current_offload_queue

    assert current_offload_queue() is None
    seen = {}
    with numba_ext.offload_to(q1):
        with numba_ext.offload_to(q2):
            assert current_offload_queue() is q2

            def worker():
                seen["thread"] = current_offload_queue()

            t = threading.Thread(target=worker)
            t.start()
            t.join()
        assert current_offload_queue() is q1
    assert current_offload_queue() is None
    assert seen["thread"] is None  # no process-wide state


def test_jit_may_take_numpy_and_usm_arrays_if_no_expression_mixes_them(rng):
    @numba_ext.jit
    def g(a, h):
        x = h * 2.0  # NumPy: runs on the host as Numba would
        y = a + 1.0  # USM: offloaded
        return x, y

    ha, hh = rng.standard_normal(5), rng.standard_normal(5)
    x, y = g(numba_ext.asarray(ha), hh)
    assert isinstance(x, np.ndarray) and isinstance(y, numba_ext.ndarray)
    np.testing.assert_allclose(x, hh * 2.0)
    np.testing.assert_allclose(numba_ext.asnumpy(y), ha + 1.0)


def test_expression_mixing_numpy_and_usm_names_the_line(rng):
    @numba_ext.jit
    def bad(a, h):
        return a + h  # the offending line

    with pytest.raises(ExecutionPlacementError) as ei:
        bad(numba_ext.asarray(rng.standard_normal(3)), rng.standard_normal(3))
    assert "return a + h" in str(ei.value) and "line" in str(ei.value)


# -- eager operations -------------------------------------------------------------------------------
def test_eager_operations_follow_the_rules(rng):
    q = Queue(DEV)
    ha, hb = rng.standard_normal((3, 4)), rng.standard_normal(4)
    a, b = numba_ext.asarray(ha, sycl_queue=q), numba_ext.asarray(hb, sycl_queue=q, usm_type="host")
    warnings.simplefilter("ignore", numba_ext.MixedUSMTypeWarning)  # mixing is tested elsewhere
    cases = [
        (a + b, ha + hb),
        (a * 2, ha * 2),
        (-a, -ha),
        (a - 1.5, ha - 1.5),
        (2.0 / (a * a + 1), 2.0 / (ha * ha + 1)),
        (np.sqrt(abs(a)), np.sqrt(abs(ha))),
        (np.maximum(a, b), np.maximum(ha, hb)),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", numba_ext.MixedUSMTypeWarning)
        for got, want in cases:
            assert isinstance(got, numba_ext.ndarray) and got.sycl_queue is q
            np.testing.assert_allclose(numba_ext.asnumpy(got), want, rtol=1e-13, atol=1e-14)
        assert (a + b).usm_type == "device"
        for got, want in [(a < b, ha < hb), (a == a, ha == ha), (a >= 0.0, ha >= 0.0)]:
            assert got.dtype == np.bool_
            np.testing.assert_array_equal(numba_ext.asnumpy(got), want)
    ints = numba_ext.asarray(np.arange(12, dtype=np.int32).reshape(3, 4), sycl_queue=q)
    np.testing.assert_array_equal(
        numba_ext.asnumpy(ints // 5 + ints % 5),
        np.arange(12).reshape(3, 4) // 5 + np.arange(12).reshape(3, 4) % 5,
    )
    assert (ints * 2).dtype == np.int32  # NumPy 2: Python scalars are weak
    f32 = numba_ext.asarray(ha.astype(np.float32), sycl_queue=q)
    assert (f32 * 2.5).dtype == np.float32


def test_eager_non_equivalent_queues_and_host_data(rng):
    d = Device(DEV)
    a = numba_ext.asarray(rng.standard_normal(3), sycl_queue=Queue(d))
    b = numba_ext.asarray(rng.standard_normal(3), sycl_queue=Queue(d, context=Context(d)))
    with pytest.raises(ExecutionPlacementError):
        a + b
    with pytest.raises(ExecutionPlacementError):
        a + np.ones(3)
    with pytest.raises(ExecutionPlacementError):
        np.ones(3) * a


# -- creation keywords and the default queue ----------------------------------------------------------
def test_default_queue_from_environment():
    code = (
        "import numba_ext; print(numba_ext.default_queue().device.filter_string); "
        "print(numba_ext.empty(2).device.filter_string)"
    )
    env = {**__import__("os").environ, "NUMBA_EXT_DEVICE": DEV}
    require_device_in_child_process()
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout
    assert out.split() == [DEV, DEV]
    env["NUMBA_EXT_DEVICE"] = "opencl:gpu:9"
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert r.returncode != 0 and "NUMBA_EXT_DEVICE" in r.stderr


# -- plain numba.njit through the numba_extensions entry point ----------------------------------------
def test_plain_njit_without_importing_numba_ext_in_the_defining_module(tmp_path):
    (tmp_path / "user_module.py").write_text(
        textwrap.dedent("""
        import numba
        import numpy as np

        @numba.njit
        def f(a, b):
            return np.sqrt(a) * b + 1.0
    """)
    )
    (tmp_path / "main.py").write_text(
        textwrap.dedent("""
        import sys
        import numba, numpy as np
        import user_module
        # compiling anything loads the numba_extensions entry point before numba_ext is imported
        numba.njit(lambda x: x + 1)(np.arange(3))
        assert "numba_ext.compiler.offload" in sys.modules, "entry point not loaded"
        import numba_ext
        h = np.random.rand(100); g = np.random.rand(100)
        out = user_module.f(numba_ext.asarray(h), numba_ext.asarray(g))
        assert isinstance(out, numba_ext.ndarray)
        np.testing.assert_allclose(numba_ext.asnumpy(out), np.sqrt(h) * g + 1.0, rtol=1e-12, atol=1e-14)
        print("ok")
    """)
    )
    require_device_in_child_process()
    r = subprocess.run([sys.executable, "main.py"], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


def test_plain_njit_rules(rng):
    g = numba.njit(lambda x, y: x * y)
    q = Queue(DEV)
    a = numba_ext.asarray(rng.standard_normal(5), sycl_queue=q, usm_type="host")
    b = numba_ext.asarray(rng.standard_normal(5), sycl_queue=q, usm_type="shared")
    out = g(a, b)
    assert out.sycl_queue is q and out.usm_type == "shared"


# -- sub-devices and shared contexts -----------------------------------------------------------------
@pytest.mark.needs_cpu  # sub-devices: the CPU runtime partitions, NVIDIA's OpenCL does not
def test_sub_devices_share_a_context(rng):
    root = Device(DEV)
    subs = root.create_sub_devices(partition=1)
    assert len(subs) == root.max_compute_units
    assert all(s.parent_device == root for s in subs)
    if len(subs) < 2:
        pytest.fail("the CPU device must split into at least two sub-devices for this test")
    ctx = Context(subs)
    qs = [Queue(s, context=ctx) for s in subs]
    assert not qs[0].equivalent(qs[1])  # different devices
    h = rng.standard_normal(64)
    x = numba_ext.asarray(h, sycl_queue=qs[1])  # allocated on tile B
    y = numba_ext.asarray(x, sycl_queue=qs[0])  # used on tile A: same context, no copy
    assert y._data_ptr == x._data_ptr and y.sycl_queue is qs[0]
    out = numba_ext.jit(lambda v: v * 3.0 + 1.0)(y)
    assert out.sycl_queue is qs[0]
    np.testing.assert_allclose(numba_ext.asnumpy(out), h * 3.0 + 1.0, **fp_tol())


# -- compiled code is keyed by device and types, not queues ---------------------------------------------
def test_no_recompile_for_new_queues(rng):
    g = numba_ext.jit(lambda x, y: x - y)
    d = Device(DEV)
    h = rng.standard_normal(10)
    results = []
    for q in (Queue(d), Queue(d, context=Context(d)), Queue(d), Queue(d, in_order=False)):
        x, y = numba_ext.asarray(h, sycl_queue=q), numba_ext.asarray(2 * h, sycl_queue=q)
        out = g(x, y)
        assert out.sycl_queue is q  # the queue of the data, whatever compiled first
        results.append(numba_ext.asnumpy(out))
    assert len(g.signatures) == 1
    for r in results:
        np.testing.assert_allclose(r, -h, rtol=1e-13)
