"""The vertical slice: @numba_ext.jit over elementwise expressions -> one fused SPIR-V kernel on the
queue inferred from the arguments."""

import numba
import numpy as np
import pytest

import numba_ext
from numba_ext import Context, Queue

from ..conftest import DEV, check_device_binary


@numba_ext.jit
def slice_expr(a, b):
    return np.sqrt(a) * b + 1.0


EXPRS = {
    "add": (lambda a, b: a + b, lambda a, b: a + b),
    "sub": (lambda a, b: a - b, lambda a, b: a - b),
    "mul": (lambda a, b: a * b, lambda a, b: a * b),
    "div": (lambda a, b: a / b, lambda a, b: a / b),
    "scalars": (lambda a, b: 2.5 * a - b / 3.0 + 1, lambda a, b: 2.5 * a - b / 3.0 + 1),
    "sqrt": (lambda a, b: np.sqrt(a) + b, lambda a, b: np.sqrt(a) + b),
    "exp": (lambda a, b: np.exp(a) * b, lambda a, b: np.exp(a) * b),
    "log": (lambda a, b: np.log(a) - b, lambda a, b: np.log(a) - b),
    "sin_cos": (lambda a, b: np.sin(a) * np.cos(b), lambda a, b: np.sin(a) * np.cos(b)),
    "nested": (
        lambda a, b: np.exp(-(a - b) * (a - b)) / np.sqrt(a + b) + np.log(a) * np.sin(b),
        lambda a, b: np.exp(-(a - b) * (a - b)) / np.sqrt(a + b) + np.log(a) * np.sin(b),
    ),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(EXPRS))
def test_elementwise_matches_numpy(rng, dtype, name, queue, tmp_path):
    fn, ref = EXPRS[name]
    jf = numba_ext.jit(fn)
    ha = rng.uniform(0.5, 2.0, 1001).astype(dtype)
    hb = rng.uniform(0.5, 2.0, 1001).astype(dtype)
    a, b = numba_ext.asarray(ha, sycl_queue=queue), numba_ext.asarray(hb, sycl_queue=queue)
    out = jf(a, b)
    assert isinstance(out, numba_ext.ndarray)
    assert out.sycl_queue is queue  # computation followed the data
    expected = ref(ha, hb)
    assert out.dtype == numba.njit(ref)(ha, hb).dtype  # Numba's typing of the same expression
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(numba_ext.asnumpy(out), expected, rtol=tol, atol=tol)
    kernels = jf.inspect_kernels(a, b)
    assert len(kernels) == 1  # the whole expression is one kernel
    check_device_binary(kernels[0].format, kernels[0].binary, tmp_path)


def test_slice_one_kernel_and_ir(rng):
    ha, hb = rng.uniform(0.1, 3, 500), rng.standard_normal(500)
    a, b = numba_ext.asarray(ha), numba_ext.asarray(hb)
    out = slice_expr(a, b)
    # atol: results near 0 cancel, and a fused multiply-add (GPUs) rounds once where NumPy rounds twice
    np.testing.assert_allclose(numba_ext.asnumpy(out), np.sqrt(ha) * hb + 1.0, rtol=1e-13, atol=1e-15)
    (k,) = slice_expr.inspect_kernels(a, b)
    if k.format == "spirv":
        assert "_Z4sqrtd" in k.llvm_ir and "spir_kernel" in k.llvm_ir
    else:
        assert "@__nv_sqrt(double" in k.llvm_ir and "ptx_kernel" in k.llvm_ir
    # the launch goes through the C ABI, not Python
    host_ir = slice_expr.inspect_llvm(a, b)
    assert "@nx_launch" in host_ir and "@nx_usm_alloc" in host_ir


def test_result_is_fresh_memory_and_inputs_untouched(rng):
    ha = rng.standard_normal(64)
    a = numba_ext.asarray(ha)
    out = numba_ext.jit(lambda x: x * 2.0)(a)
    assert out._data_ptr != a._data_ptr
    np.testing.assert_array_equal(numba_ext.asnumpy(a), ha)
    np.testing.assert_array_equal(numba_ext.asnumpy(out), ha * 2.0)


@pytest.mark.parametrize("shape", [(7, 9), (2, 3, 4), (0,), (1,)])
def test_nd_and_edge_shapes(rng, shape):
    ha, hb = rng.standard_normal(shape), rng.standard_normal(shape)
    out = numba_ext.jit(lambda a, b: a * b - a)(numba_ext.asarray(ha), numba_ext.asarray(hb))
    assert out.shape == shape
    np.testing.assert_allclose(numba_ext.asnumpy(out), ha * hb - ha, rtol=1e-13)


def test_strided_views(rng):
    ha, hb = rng.standard_normal((8, 10)), rng.standard_normal((10, 8))
    a, b = numba_ext.asarray(ha), numba_ext.asarray(hb)
    f = numba_ext.jit(lambda x, y: x + 2.0 * y)
    out = f(a[:, ::-1], b.T)
    np.testing.assert_allclose(numba_ext.asnumpy(out), ha[:, ::-1] + 2.0 * hb.T, rtol=1e-13)
    out = f(a[::2, 1::3], b.T[::2, 1::3])
    np.testing.assert_allclose(numba_ext.asnumpy(out), ha[::2, 1::3] + 2.0 * hb.T[::2, 1::3], rtol=1e-13)


def test_scalar_arguments_are_runtime_values(rng):
    ha = rng.standard_normal(100)
    a = numba_ext.asarray(ha)
    f = numba_ext.jit(lambda x, s, t: x * s + t)
    for s, t in [(2.0, 1.0), (-0.5, 3.0), (3, 4)]:
        np.testing.assert_allclose(numba_ext.asnumpy(f(a, s, t)), ha * s + t, rtol=1e-13)
    assert len(f.signatures) == 2  # float and int scalars; new values do not recompile


def test_shape_size_ndim_inside_jit(rng):
    a = numba_ext.asarray(rng.standard_normal((3, 4, 5)))

    @numba_ext.jit
    def attrs(x):
        return x.shape, x.size, x.ndim, x.shape[1] * 2

    assert attrs(a) == ((3, 4, 5), 60, 3, 8)


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
    np.testing.assert_allclose(numba_ext.asnumpy(out), np.sqrt(np.abs(ha)) * hb + 1.0, rtol=1e-13)


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


def test_shape_mismatch_is_a_clear_error(rng):
    f = numba_ext.jit(lambda a, b: a + b)
    with pytest.raises(ValueError, match="broadcast"):
        f(numba_ext.asarray(rng.standard_normal(5)), numba_ext.asarray(rng.standard_normal(6)))


@pytest.mark.parametrize(
    "shapes",
    [((4, 5), (5,), (4, 1)), ((3, 1, 6), (1, 4, 1), (6,)), ((7,), (1,), ()), ((2, 3), (2, 3), (2, 3))],
)
def test_broadcasting(rng, shapes):
    f = numba_ext.jit(lambda a, b, c: a * b + c - 1.0)
    hs = [rng.standard_normal(s) for s in shapes]
    out = f(*[numba_ext.asarray(h) for h in hs])
    want = hs[0] * hs[1] + hs[2] - 1.0
    assert out.shape == want.shape
    np.testing.assert_allclose(numba_ext.asnumpy(out), want, rtol=1e-13)


def test_zero_d_arrays(rng):
    f = numba_ext.jit(lambda a, b: a * b + 1.0)
    a, b = numba_ext.asarray(np.float64(2.5)), numba_ext.asarray(np.float64(-1.5))
    if a.device.memory_backend == "buffer":
        # Numba computes this on the host (a scalar result), which buffer memory cannot serve
        with pytest.raises(numba_ext.UnsupportedError, match="(?s)operator 'mul'.*cannot address.*line"):
            f(a, b)
        return
    out = f(a, b)
    # as in NumPy (and Numba), arithmetic on 0-d arrays gives a scalar
    assert float(out) == 2.5 * -1.5 + 1.0 == np.float64(2.5) * np.float64(-1.5) + 1.0


def test_mixing_numpy_and_usm_arrays_is_a_compile_error(rng):
    f = numba_ext.jit(lambda a, b: a + b)
    with pytest.raises(Exception, match="mixes a numba_ext array with a NumPy array"):
        f(numba_ext.asarray(rng.standard_normal(5)), rng.standard_normal(5))


def test_unsupported_expression_names_construct_and_line(rng):
    f = numba_ext.jit(lambda a: np.fmod(a, 2.0))
    with pytest.raises(numba_ext.UnsupportedError, match=r"fmod.*line"):
        f(numba_ext.asarray(rng.standard_normal(5)))


def test_freed_or_foreign_objects_do_not_crash():
    f = numba_ext.jit(lambda a: a * 2.0)
    with pytest.raises(numba.core.errors.TypingError, match="pyobject"):
        f(object())
    bogus = numba_ext.ndarray.__new__(numba_ext.ndarray)  # never initialised
    with pytest.raises(AttributeError, match="without a descriptor"):
        f(bogus)


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
    np.testing.assert_allclose(numba_ext.asnumpy(out), np.sqrt(h[1:5, ::2].T ** 2 + 1.0), rtol=1e-13)
    np.testing.assert_array_equal(numba_ext.asnumpy(view), h[1:5, ::2].T)


def test_jit_results_are_freed(rng):
    import gc

    from numba_ext import _core

    a = numba_ext.asarray(rng.standard_normal(100))
    f = numba_ext.jit(lambda x: x + 1.0)
    f(a)
    gc.collect()
    before = _core._live_allocations()
    outs = [f(a) for _ in range(10)]
    assert _core._live_allocations() == before + 10
    del outs
    gc.collect()
    assert _core._live_allocations() == before


def test_copy_and_host_allocation_errors(rng):
    h = rng.standard_normal(64)
    b = numba_ext.asarray(h)
    c, d = numba_ext.jit(lambda b: (b.copy(), np.copy(b) * 2))(b)
    assert c._data_ptr != b._data_ptr and c.sycl_queue is b.sycl_queue
    np.testing.assert_array_equal(numba_ext.asnumpy(c), h)
    np.testing.assert_array_equal(numba_ext.asnumpy(d), 2 * h)
    with pytest.raises(numba_ext.UnsupportedError, match="numba_ext.empty"):
        numba_ext.jit(lambda b: b[b > 0.0])(b)  # boolean indexing would allocate on the host


def test_ascontiguousarray_aliases_or_copies_on_the_queue(rng):
    h = rng.standard_normal((5, 8))
    b = numba_ext.asarray(h, usm_type="shared")
    same = numba_ext.jit(lambda b: np.ascontiguousarray(b))(b)
    assert same._data_ptr == b._data_ptr  # already C-contiguous: the array itself, as NumPy
    t, s = numba_ext.jit(lambda b: (np.ascontiguousarray(b.T), np.ascontiguousarray(b[::-2, 1::3]) + 1.0))(b)
    for got, want in ((t, h.T), (s, h[::-2, 1::3] + 1.0)):
        assert got.sycl_queue is b.sycl_queue and got.usm_type == "shared" and got.flags.c_contiguous
        assert got._data_ptr != b._data_ptr
        np.testing.assert_array_equal(numba_ext.asnumpy(got), want)


def test_disk_caching_is_refused_clearly(tmp_path):
    with pytest.raises(numba_ext.UnsupportedError, match="cache=True"):
        numba_ext.jit(lambda a: a + 1.0, cache=True)


# -- the cached call path (rust/src/python/jit.rs, native.rs) ---------------------------------------


def test_cached_calls_pick_the_overload_of_the_argument_types(rng):
    f = numba_ext.jit(lambda x, s: x * s)
    g = numba_ext.jit(lambda x, s: x * s.real)
    h64 = rng.standard_normal(32)
    a64, a32 = numba_ext.asarray(h64), numba_ext.asarray(h64.astype(np.float32))
    a2d = numba_ext.asarray(h64.reshape(4, 8))
    cases = [(f, a64, 2.0), (f, a32, 2.0), (f, a64, 3), (f, a2d, 0.5), (f, a64, True), (g, a32, 1.5 + 2j)]
    dtypes = {}
    for _ in range(3):  # the first call of each key goes through Numba's dispatcher, later ones not
        for i, (fn, x, s) in enumerate(cases):
            got = fn(x, s)
            assert dtypes.setdefault(i, got.dtype) == got.dtype and got.shape == x.shape
            np.testing.assert_allclose(numba_ext.asnumpy(got), numba_ext.asnumpy(x) * np.real(s), rtol=1e-6)
    assert len(f.signatures) == 5 and len(g.signatures) == 1
    # ints Numba types as uint64 take the dispatcher (which may pick an overload of other types)
    big = numba_ext.jit(lambda x, s: x * s)
    for s in (2**63 + 1, 2**63 + 1, 3, 3):
        np.testing.assert_allclose(numba_ext.asnumpy(big(a64, s)), h64 * float(s))


def test_cached_calls_still_check_compute_follows_data(rng):
    d = numba_ext.Device(DEV)
    q1, q2 = Queue(d), Queue(d, context=Context(d))
    h = rng.standard_normal(8)
    a, b = numba_ext.asarray(h, sycl_queue=q1), numba_ext.asarray(h, sycl_queue=q1)
    c = numba_ext.asarray(h, sycl_queue=q2)
    f = numba_ext.jit(lambda x, y: x + y)
    for _ in range(3):
        f(a, b)
    with pytest.raises(numba_ext.ExecutionPlacementError):  # same Numba types as the cached call
        f(a, c)
    s = numba_ext.asarray(h, sycl_queue=q1, usm_type="shared")
    with pytest.warns(numba_ext.MixedUSMTypeWarning):
        assert f(a, s).usm_type == "device"
    with numba_ext.offload_to(q1):
        np.testing.assert_allclose(f(h, h), 2 * h)  # NumPy data: copied there and back


def test_results_of_cached_calls(rng):
    q = Queue(DEV)
    h = rng.standard_normal((6, 4))
    a = numba_ext.asarray(h, sycl_queue=q, usm_type="shared")
    f = numba_ext.jit(lambda x, y: x + y)
    f(a, a)
    out = f(a, a)
    assert out.sycl_queue is q and out.usm_type == "shared"
    assert (out.shape, out.dtype, out.strides, out.ndim, out.size) == ((6, 4), h.dtype, (32, 8), 2, 24)
    assert numba.typeof(out) == numba.typeof(a)
    iface = out.__sycl_usm_array_interface__
    assert iface["data"] == (out._data_ptr, False) and iface["syclobj"] is q
    np.testing.assert_array_equal(numba_ext.asnumpy(out), 2 * h)
    view = out[1:, ::2]  # a view made in Python keeps the queue and USM type, and runs again
    again = f(view, view)
    assert again.sycl_queue is q and again.usm_type == "shared"
    np.testing.assert_array_equal(numba_ext.asnumpy(again), 4 * h[1:, ::2])
    t = numba_ext.jit(lambda x: x.T)(out)  # a non-C result: its Numba type is made on first use
    assert numba.typeof(t).layout == "F" and t.sycl_queue is q
    np.testing.assert_array_equal(numba_ext.asnumpy(t), 2 * h.T)
    assert "usm_type='shared'" in repr(out)


def test_cached_call_results_are_freed_without_the_cycle_collector(rng):
    from numba_ext import _core

    a = numba_ext.asarray(rng.standard_normal(16))
    f = numba_ext.jit(lambda x: x * 2.0)
    f(a)
    before = _core._live_allocations()
    out = f(a)
    out.shape, out.sycl_queue  # noqa: B018  (lazily made attributes must not keep the memory)
    assert _core._live_allocations() == before + 1
    del out
    assert _core._live_allocations() == before


def test_recompile_drops_cached_entry_points(rng):
    a = numba_ext.asarray(rng.standard_normal(8))
    f = numba_ext.jit(_scaled)
    global _SCALE
    _SCALE = 2.0
    for _ in range(2):
        np.testing.assert_allclose(numba_ext.asnumpy(f(a)), 2.0 * numba_ext.asnumpy(a))
    _SCALE = 3.0
    f._dispatcher.recompile()
    np.testing.assert_allclose(numba_ext.asnumpy(f(a)), 3.0 * numba_ext.asnumpy(a))


_SCALE = 2.0


def _scaled(x):
    return x * _SCALE


def test_cached_calls_from_threads(rng):
    import threading

    from numba_ext import _core

    f = numba_ext.jit(lambda x, y: x - y)
    hs = [rng.standard_normal(64) for _ in range(4)]
    arrays = [(numba_ext.asarray(h), numba_ext.asarray(2 * h)) for h in hs]
    f(*arrays[0])
    before = _core._live_allocations()
    errors = []

    def work(i):
        try:
            x, y = arrays[i]
            for _ in range(200):
                np.testing.assert_array_equal(numba_ext.asnumpy(f(x, y)), -hs[i])
        except Exception as e:
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert _core._live_allocations() == before


def _ulps(got, ref):
    return np.abs(got - ref) / np.spacing(np.abs(ref).astype(ref.dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_tanh_accuracy_and_special_values(rng, dtype):
    # tanh on SPIR-V is an expm1 expansion (faster than the Intel CPU runtime's tanh): within a few
    # ulp everywhere, with NaN, +-0.0, +-inf and the saturation point right
    dt = np.dtype(dtype)
    special = np.array(
        [
            0.0,
            -0.0,
            1e-30,
            -1e-30,
            5e-324 if dt == np.float64 else 1e-45,
            0.5,
            -0.5,
            8.99,
            9.01,
            19.0,
            19.6,
            -19.6,
            30.0,
            -30.0,
            710.0,
            -710.0,
            np.inf,
            -np.inf,
            np.nan,
        ],
        dtype=dt,
    )
    x = np.concatenate(
        [special, (rng.standard_normal(4096) * 4).astype(dt), (rng.standard_normal(1024) * 1e-4).astype(dt)]
    )
    jf = numba_ext.jit(lambda a: np.tanh(a))
    got = numba_ext.asnumpy(jf(numba_ext.asarray(x, device=DEV)))
    ref = np.tanh(x)
    assert got.dtype == dt
    assert np.array_equal(np.isnan(got), np.isnan(ref))
    ok = ~np.isnan(ref)
    assert np.array_equal(np.signbit(got[ok]), np.signbit(ref[ok]))  # -0.0 stays -0.0
    assert np.max(_ulps(got[ok], ref[ok])) <= 4

    @numba.njit(parallel=True)
    def loop(a, out):
        for i in numba.prange(a.shape[0]):
            out[i] = np.tanh(a[i])

    xd = numba_ext.asarray(x, device=DEV)
    out = numba_ext.full(x.shape, 7.0, dtype=dt, device=DEV)
    loop(xd, out)
    got = numba_ext.asnumpy(out)
    assert np.array_equal(np.isnan(got), np.isnan(ref))
    assert np.max(_ulps(got[ok], ref[ok])) <= 4
