"""The kernel API: ids, ranges, local/private memory, barriers, atomics, device functions, launch
forms, errors, introspection; workloads checked against NumPy on random inputs."""

import math

import numpy as np
import pytest

import numba_ext as nx
from numba_ext import Context, Device, Queue

from ..conftest import DEV, check_device_binary


# -- workloads ----------------------------------------------------------------------------------------
@nx.kernel
def pairwise_distance(x1, x2, out):
    i = nx.get_global_id(0)
    j = nx.get_global_id(1)
    d = 0.0
    for k in range(x1.shape[1]):
        t = x1[i, k] - x2[j, k]
        d += t * t
    out[i, j] = math.sqrt(d)


def test_pairwise_distance_2d_range(rng):
    a, b = rng.standard_normal((37, 3)), rng.standard_normal((29, 3))
    out = nx.empty((37, 29))
    # k[a, b] means (global, local); a 2-D global range alone is a Range
    pairwise_distance[nx.Range(37, 29)](nx.asarray(a), nx.asarray(b), out)
    want = np.sqrt(((a[:, None, :] - b[None, :, :]) ** 2).sum(-1))
    np.testing.assert_allclose(nx.asnumpy(out), want, rtol=1e-12)


WG = 64


@nx.kernel
def l2_norm_partial(x, partial):
    # one work-group reduces WG rows' squared norms in local memory
    lid = nx.get_local_id(0)
    gid = nx.get_global_id(0)
    scratch = nx.local.array(64, np.float64)
    s = 0.0
    if gid < x.shape[0]:
        for k in range(x.shape[1]):
            s += x[gid, k] * x[gid, k]
    scratch[lid] = s
    nx.barrier(nx.LOCAL_MEM_FENCE)
    stride = 32
    while stride > 0:
        if lid < stride:
            scratch[lid] += scratch[lid + stride]
        nx.barrier(nx.LOCAL_MEM_FENCE)
        stride = stride // 2
    if lid == 0:
        partial[nx.get_group_id(0)] = scratch[0]


def test_l2_norm_with_work_group_reduction(rng):
    n = 1000
    h = rng.standard_normal((n, 3))
    groups = (n + WG - 1) // WG
    partial = nx.zeros(groups)
    l2_norm_partial[groups * WG, WG](nx.asarray(h), partial)
    np.testing.assert_allclose(nx.asnumpy(partial).sum(), (h * h).sum(), rtol=1e-12)
    # per-group values too
    sq = np.concatenate([(h * h).sum(1), np.zeros(groups * WG - n)]).reshape(groups, WG).sum(1)
    np.testing.assert_allclose(nx.asnumpy(partial), sq, rtol=1e-12)


NBINS = 20


@nx.kernel
def gpairs(x1, x2, w1, w2, rbins_sq, hist):
    i = nx.get_global_id(0)
    local_hist = nx.private.array(20, np.float64)
    for b in range(20):
        local_hist[b] = 0.0
    for j in range(x2.shape[0]):
        dx = x1[i, 0] - x2[j, 0]
        dy = x1[i, 1] - x2[j, 1]
        dz = x1[i, 2] - x2[j, 2]
        dsq = dx * dx + dy * dy + dz * dz
        k = 20 - 1
        while k >= 0 and dsq <= rbins_sq[k]:
            local_hist[k] += w1[i] * w2[j]
            k -= 1
    for b in range(20):
        nx.atomic.add(hist, b, local_hist[b])


def test_gpairs_private_histogram_and_float64_atomics(rng):
    n = 128
    x1, x2 = rng.uniform(0, 1, (n, 3)), rng.uniform(0, 1, (n, 3))
    w1, w2 = rng.uniform(0.5, 1.5, n), rng.uniform(0.5, 1.5, n)
    rbins = np.linspace(0.05, 1.0, NBINS)
    hist = nx.zeros(NBINS)
    gpairs[n](nx.asarray(x1), nx.asarray(x2), nx.asarray(w1), nx.asarray(w2), nx.asarray(rbins**2), hist)
    dsq = ((x1[:, None, :] - x2[None, :, :]) ** 2).sum(-1)
    ww = w1[:, None] * w2[None, :]
    want = np.array([(ww * (dsq <= r * r)).sum() for r in rbins])
    np.testing.assert_allclose(nx.asnumpy(hist), want, rtol=1e-10)


K = 4


@nx.kernel
def kmeans_step(points, centroids, new_sums, counts):
    # one Lloyd step: assign to the nearest centroid, accumulate per work-group in local memory,
    # then merge into global sums with atomics
    gid = nx.get_global_id(0)
    lid = nx.get_local_id(0)
    sums = nx.local.array((4, 2), np.float64)
    cnt = nx.local.array(4, np.int32)
    if lid < 4:
        sums[lid, 0] = 0.0
        sums[lid, 1] = 0.0
        cnt[lid] = 0
    nx.barrier(nx.LOCAL_MEM_FENCE)
    if gid < points.shape[0]:
        best = 0
        best_d = 1e300
        for c in range(4):
            dx = points[gid, 0] - centroids[c, 0]
            dy = points[gid, 1] - centroids[c, 1]
            d = dx * dx + dy * dy
            if d < best_d:
                best_d = d
                best = c
        nx.atomic.add(sums, (best, 0), points[gid, 0])
        nx.atomic.add(sums, (best, 1), points[gid, 1])
        nx.atomic.add(cnt, best, 1)
    nx.barrier(nx.LOCAL_MEM_FENCE)
    if lid < 4:
        nx.atomic.add(new_sums, (lid, 0), sums[lid, 0])
        nx.atomic.add(new_sums, (lid, 1), sums[lid, 1])
        nx.atomic.add(counts, lid, cnt[lid])


def test_kmeans_lloyd_step(rng):
    n = 1000
    pts = rng.standard_normal((n, 2))
    cents = pts[:K].copy()
    sums, counts = nx.zeros((K, 2)), nx.zeros(K, dtype="int32")
    kmeans_step[1024, 64](nx.asarray(pts), nx.asarray(cents), sums, counts)
    d = ((pts[:, None, :] - cents[None, :, :]) ** 2).sum(-1)
    lab = d.argmin(1)
    want_counts = np.bincount(lab, minlength=K)
    want_sums = np.stack([pts[lab == c].sum(0) for c in range(K)])
    np.testing.assert_array_equal(nx.asnumpy(counts), want_counts)
    np.testing.assert_allclose(nx.asnumpy(sums), want_sums, rtol=1e-10, atol=1e-12)


TILE = 8


@nx.kernel
def matmul_tiled(a, b, c):
    row = nx.get_global_id(0)
    col = nx.get_global_id(1)
    lr = nx.get_local_id(0)
    lc = nx.get_local_id(1)
    ta = nx.local.array((8, 8), np.float32)
    tb = nx.local.array((8, 8), np.float32)
    acc = np.float32(0.0)
    for t in range(a.shape[1] // 8):
        ta[lr, lc] = a[row, t * 8 + lc]
        tb[lr, lc] = b[t * 8 + lr, col]
        nx.barrier(nx.LOCAL_MEM_FENCE)
        for k in range(8):
            acc += ta[lr, k] * tb[k, lc]
        nx.barrier(nx.LOCAL_MEM_FENCE)
    c[row, col] = acc


def test_matmul_with_local_tiles(rng):
    m, k, n = 32, 48, 40
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c = nx.empty((m, n), dtype="float32")
    matmul_tiled[nx.NdRange((m, n), (TILE, TILE))](nx.asarray(a), nx.asarray(b), c)
    np.testing.assert_allclose(nx.asnumpy(c), a @ b, rtol=1e-4, atol=1e-4)


# -- ids, ranges, launch forms ---------------------------------------------------------------------------
@nx.kernel
def ids3(out):
    i = nx.get_global_id(0)
    j = nx.get_global_id(1)
    k = nx.get_global_id(2)
    out[i, j, k, 0] = nx.get_local_id(0) + 10 * nx.get_local_id(1) + 100 * nx.get_local_id(2)
    out[i, j, k, 1] = nx.get_group_id(0) + 10 * nx.get_group_id(1) + 100 * nx.get_group_id(2)
    out[i, j, k, 2] = nx.get_global_size(0) + 10 * nx.get_global_size(1) + 100 * nx.get_global_size(2)
    out[i, j, k, 3] = nx.get_local_size(0) + 10 * nx.get_local_size(1) + 100 * nx.get_local_size(2)
    out[i, j, k, 4] = nx.get_num_groups(0) + 10 * nx.get_num_groups(1) + 100 * nx.get_num_groups(2)


def test_work_item_queries_3d():
    g, lo = (4, 6, 2), (2, 3, 1)
    out = nx.full(g + (5,), -1, dtype="int64")
    ids3[g, lo](out)
    o = nx.asnumpy(out)
    i, j, k = np.meshgrid(*[np.arange(n) for n in g], indexing="ij")
    np.testing.assert_array_equal(o[..., 0], i % 2 + 10 * (j % 3) + 100 * (k % 1))
    np.testing.assert_array_equal(o[..., 1], i // 2 + 10 * (j // 3) + 100 * (k // 1))
    assert (o[..., 2] == 4 + 60 + 200).all() and (o[..., 3] == 2 + 30 + 100).all()
    assert (o[..., 4] == 2 + 20 + 200).all()


@nx.kernel
def axpy(a, x, y):
    i = nx.get_global_id(0)
    y[i] = a * x[i] + y[i]


@pytest.mark.parametrize("form", ["int", "tuple", "range", "ndrange", "pair", "call_kernel", "async"])
def test_launch_forms(rng, form):
    n = 256
    hx, hy = rng.standard_normal(n), rng.standard_normal(n)
    x, y = nx.asarray(hx), nx.asarray(hy)
    if form == "int":
        axpy[n](2.5, x, y)
    elif form == "tuple":
        axpy[(n,)](2.5, x, y)
    elif form == "range":
        axpy[nx.Range(n)](2.5, x, y)
    elif form == "ndrange":
        axpy[nx.NdRange(n, 64)](2.5, x, y)
    elif form == "pair":
        axpy[n, 32](2.5, x, y)
    elif form == "call_kernel":
        nx.call_kernel(axpy, nx.NdRange((n,), (16,)), 2.5, x, y)
    else:
        ev = nx.call_kernel_async(axpy, n, 2.5, x, y)
        ev.wait()
    np.testing.assert_allclose(nx.asnumpy(y), 2.5 * hx + hy, rtol=1e-13)


# -- arguments -------------------------------------------------------------------------------------
@nx.kernel
def mixed_args(x, out, s, k, flag):
    i = nx.get_global_id(0)
    v = x[i] * s + k
    if flag:
        v = -v
    out[i] = v


@pytest.mark.parametrize("usm_type", ["device", "shared", "host"])
def test_scalars_usm_types_and_strided_views(rng, usm_type):
    h = rng.standard_normal((6, 10))
    x = nx.asarray(h, usm_type=usm_type)
    out = nx.empty(5, usm_type=usm_type)
    mixed_args[5](x[1, ::2], out, 1.5, 3, True)  # a strided view
    np.testing.assert_allclose(nx.asnumpy(out), -(h[1, ::2] * 1.5 + 3), rtol=1e-13)
    mixed_args[5](x[::-1, 3][:5], out, 2.0, -1, False)  # negative strides
    np.testing.assert_allclose(nx.asnumpy(out), h[::-1, 3][:5] * 2.0 - 1, rtol=1e-13)


def test_numpy_arrays_under_offload_to(rng):
    hx, hy = rng.standard_normal(64), rng.standard_normal(64)
    y = hy.copy()
    with pytest.raises(nx.ExecutionPlacementError, match="offload_to"):
        axpy[64](2.0, hx, y)
    with nx.offload_to(DEV):
        axpy[64](2.0, hx, y)
    np.testing.assert_allclose(y, 2.0 * hx + hy, rtol=1e-13)  # written back
    with nx.offload_to(DEV), pytest.raises(nx.ExecutionPlacementError, match="cannot be mixed"):
        axpy[64](2.0, hx, nx.asarray(hy))


def test_one_binary_per_signature_and_device(rng):
    @nx.kernel
    def scale(x, s):
        x[nx.get_global_id(0)] *= s

    x32 = nx.asarray(rng.standard_normal(8).astype(np.float32))
    x64 = nx.asarray(rng.standard_normal(8))
    for _ in range(3):
        scale[8](x32, 2.0)
        scale[8](x64, 2.0)
        scale[8](nx.asarray(rng.standard_normal(8), sycl_queue=Queue(DEV)), 1.0)
    assert len(scale._cache) == 2  # float32 and float64 arrays; new queues do not recompile


def test_cached_launches_take_the_fast_path_and_keep_every_check(rng):
    # after a first (Python) launch, launches with the same argument types and queue go from the
    # launch object straight to the compiled kernel (rust/src/python/kernel_launch.rs)
    @nx.kernel
    def k(x, out, s, n, flag):
        i = nx.get_global_id(0)
        v = x[i] * s + n
        out[i] = -v if flag else v

    h = rng.standard_normal(96)
    x, out = nx.asarray(h, device=DEV), nx.full(96, np.nan, device=DEV)
    assert k._fast_cache_len() == 0
    for it in range(3):
        s, n, flag = float(rng.standard_normal()), int(rng.integers(-50, 50)), bool(it % 2)
        out = nx.full(96, np.nan, device=DEV)
        k[96](x, out, s, n, flag)
        want = h * s + n
        np.testing.assert_allclose(nx.asnumpy(out), -want if flag else want, rtol=1e-13)
    assert k._fast_cache_len() == 1
    # views: the slots come from each array's own image (data address, shape, strides)
    out2 = nx.full(48, np.nan, device=DEV)
    k[48](x[::-2], out2, 2.0, 1, False)
    np.testing.assert_allclose(nx.asnumpy(out2), h[::-2] * 2.0 + 1, rtol=1e-13)
    assert k._fast_cache_len() == 2  # another layout: another entry
    # other argument kinds take the Python path and are typed there (NumPy scalars keep their type)
    x32 = nx.asarray(h.astype(np.float32), device=DEV)
    out32 = nx.empty(96, dtype=np.float32, device=DEV)
    k[96](x32, out32, np.float32(0.5), np.int32(3), np.bool_(False))
    np.testing.assert_allclose(nx.asnumpy(out32), h.astype(np.float32) * 0.5 + 3, rtol=1e-6)
    # errors stay the same after the cache is warm
    limit = Device(DEV).max_work_group_size
    with pytest.raises(nx.LaunchError, match="exceeds the limit"):
        k[limit * 2, limit * 2](
            nx.zeros(limit * 2, device=DEV), nx.zeros(limit * 2, device=DEV), 1.0, 1, True
        )
    other = Queue(DEV, context=Context(Device(DEV)))
    with pytest.raises(nx.ExecutionPlacementError, match="'x'.*'out'"):
        k[96](x, nx.empty(96, sycl_queue=other), 1.0, 1, True)
    with pytest.raises(nx.ExecutionPlacementError, match="offload_to"):
        k[96](h, h.copy(), 1.0, 1, True)
    with pytest.raises(nx.KernelArgumentError, match="takes 5 arguments"):
        k[96](x, out, 1.0, 1)
    with pytest.raises(nx.KernelArgumentError, match="argument 's' has type str"):
        k[96](x, out, "1", 1, True)
    # inside offload_to the Python path applies compute follows data (NumPy arrays copied back)
    hout = np.full(96, np.nan)
    with nx.offload_to(DEV):
        k[96](h, hout, 3.0, 2, False)
    np.testing.assert_allclose(hout, h * 3.0 + 2, rtol=1e-13)

    # (4, 4) is a 1-D launch of 4 with work-groups of 4; Range(4, 4) a 2-D range
    @nx.kernel
    def ids(out):
        out[nx.get_global_id(1) * 4 + nx.get_global_id(0)] = nx.get_global_id(0) + 10 * nx.get_global_id(1)

    r = nx.full(16, -1, dtype=np.int64, device=DEV)
    ids[4, 4](r)
    assert (nx.asnumpy(r) == np.r_[np.arange(4), [-1] * 12]).all()
    ids[nx.Range(4, 4)](r)
    assert (nx.asnumpy(r) == (np.arange(4)[None, :] + 10 * np.arange(4)[:, None]).ravel()).all()


@nx.kernel
def scale_2d(x, out):
    i = nx.get_global_id(0)
    j = nx.get_global_id(1)
    out[i, j] = x[i, j] * 3.0 + i - 2 * j


@pytest.mark.parametrize(
    "view", ["whole", "rows", "one_element", "one_row", "transposed", "strided", "negative"]
)
def test_contiguous_arrays_use_computed_strides_views_their_own(rng, view):
    # C-contiguous arrays (by their Numba type) index with strides computed from the shape; every
    # other layout reads its stride arguments; size-1 dimensions may carry any stride
    h = rng.standard_normal((7, 6))
    x = nx.asarray(h, device=DEV)
    sel = {
        "whole": np.s_[:, :],
        "rows": np.s_[2:5],
        "one_element": np.s_[2:3, 1:2],
        "one_row": np.s_[4:5, :],
        "transposed": None,
        "strided": np.s_[:, ::2],
        "negative": np.s_[::-1, ::-1],
    }[view]
    xv, hv = (x.T, h.T) if sel is None else (x[sel], h[sel])
    out = nx.full(hv.shape, np.nan, device=DEV)
    scale_2d[nx.Range(*hv.shape)](xv, out)
    i, j = np.indices(hv.shape)
    # PTX contracts x * 3 + i into one FMA: a rounding apart where the sum cancels near 0
    np.testing.assert_allclose(nx.asnumpy(out), hv * 3.0 + i - 2 * j, rtol=1e-14, atol=1e-14)
    layout = xv._numba_type_.layout
    assert layout == ("C" if view in ("whole", "rows", "one_element", "one_row") else layout)
    contiguous = [a.contiguous for a in scale_2d._compiled_for((xv, out)).spec.arrays]
    assert contiguous == [layout == "C", True]


# -- device functions -----------------------------------------------------------------------------
@nx.func
def sq(v):
    return v * v


@nx.func
def dist(a, b):
    return math.sqrt(sq(a) + sq(b))  # a device function calling another


@nx.kernel
def uses_funcs(x, y, out):
    i = nx.get_global_id(0)
    out[i] = dist(x[i], y[i])


def test_device_functions(rng):
    hx, hy = rng.standard_normal(50), rng.standard_normal(50)
    out = nx.empty(50)
    uses_funcs[50](nx.asarray(hx), nx.asarray(hy), out)
    np.testing.assert_allclose(nx.asnumpy(out), np.hypot(hx, hy), rtol=1e-13)
    with pytest.raises(RuntimeError, match="only be called from a kernel"):
        sq(2.0)


# -- atomics --------------------------------------------------------------------------------------------
@nx.kernel
def atomics_all(vals, acc, old_out):
    i = nx.get_global_id(0)
    v = vals[i]
    nx.atomic.add(acc, 0, v)
    nx.atomic.sub(acc, 1, v)
    nx.atomic.min(acc, 2, v)
    nx.atomic.max(acc, 3, v)
    old_out[i] = nx.atomic.exchange(acc, 4, v)


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64"])
def test_atomics(rng, dtype):
    n = 300
    h = (rng.integers(-50, 50, n) if dtype.startswith("int") else rng.integers(-50, 50, n) * 0.5).astype(
        dtype
    )
    acc = nx.asarray(np.array([0, 0, 1000, -1000, 7], dtype=dtype))
    old = nx.empty(n, dtype=dtype)
    atomics_all[n](nx.asarray(h), acc, old)
    a = nx.asnumpy(acc)
    assert a[0] == h.sum() and a[1] == -h.sum()
    assert a[2] == h.min() and a[3] == h.max()
    # exchange: the old values are the initial 7 plus all but one of the inputs
    olds = np.sort(nx.asnumpy(old))
    assert sorted(np.concatenate([[7], h]).tolist()).count(a[4]) >= 1
    assert np.isin(olds, np.concatenate([[7], h])).all()


@nx.kernel
def cas_counter(counter, n):
    # increment with a compare-and-swap loop written by the user
    done = False
    while not done:
        cur = counter[0]
        done = nx.atomic.compare_exchange(counter, 0, cur, cur + n) == cur


@pytest.mark.parametrize("dtype", ["int32", "float64"])
def test_compare_exchange(dtype):
    c = nx.zeros(1, dtype=dtype)
    cas_counter[200](c, 2)
    assert nx.asnumpy(c)[0] == 400


# -- errors before launch --------------------------------------------------------------------------
def test_launch_errors(rng):
    x, y = nx.asarray(rng.standard_normal(64)), nx.asarray(rng.standard_normal(64))
    with pytest.raises(nx.LaunchError, match="launch range"):
        axpy(2.0, x, y)
    with pytest.raises(nx.KernelArgumentError, match="takes 3 arguments"):
        axpy[64](x, y)
    with pytest.raises(nx.KernelArgumentError, match="argument 'a' has type str"):
        axpy[64]("2", x, y)
    assert issubclass(nx.KernelArgumentError, TypeError)
    with pytest.raises(nx.LaunchError, match="does not divide"):
        axpy[64, 10](2.0, x, y)
    with pytest.raises(nx.LaunchError, match="different numbers of dimensions"):
        axpy[nx.NdRange((8, 8), (4,))](2.0, x, y)
    limit = Device(DEV).max_work_group_size
    with pytest.raises(nx.LaunchError, match="exceeds the limit"):
        axpy[limit * 2, limit * 2](2.0, nx.zeros(limit * 2), nx.zeros(limit * 2))
    with pytest.raises(nx.ExecutionPlacementError, match="no array argument"):
        nx.kernel(lambda s: None)[4](1.0)
    other = Queue(DEV, context=Context(Device(DEV)))
    with pytest.raises(nx.ExecutionPlacementError, match="'x'.*'y'"):
        axpy[64](2.0, x, nx.asarray(rng.standard_normal(64), sycl_queue=other))
    assert issubclass(nx.LaunchError, nx.NumbaExtError)


def test_kernel_returning_a_value_is_an_error(rng):
    @nx.kernel
    def bad(x):
        return x[0]

    with pytest.raises(nx.UnsupportedError, match="returns a value"):
        bad[1](nx.zeros(1))


def test_local_memory_limit():
    @nx.kernel
    def huge(x):
        buf = nx.local.array(100_000_000, np.float64)
        buf[0] = 1.0
        x[0] = buf[0]

    with pytest.raises(nx.LaunchError, match="bytes of local memory"):
        huge[1](nx.zeros(1))


def test_unsupported_construct_names_line():
    @nx.kernel
    def uses_print(x):
        print(x[0])

    with pytest.raises(nx.UnsupportedError, match="print"):
        uses_print[1](nx.zeros(1))


# -- introspection --------------------------------------------------------------------------------------
def test_inspect_llvm_and_asm(rng, tmp_path):
    x, y = nx.asarray(rng.standard_normal(8)), nx.asarray(rng.standard_normal(8))
    ir = axpy.inspect_llvm(2.0, x, y)
    asm = axpy.inspect_asm(2.0, x, y)
    if x.device.target == "spirv":
        assert "spir_kernel" in ir and "get_global_id" in ir
        assert "OpEntryPoint Kernel" in asm
    else:
        assert "ptx_kernel" in ir and "llvm.nvvm.read.ptx.sreg" in ir
        assert ".entry" in asm and "%ctaid.x" in asm
    for k, args in [(axpy, (2.0, x, y)), (l2_norm_partial, (nx.zeros((64, 3)), nx.zeros(1)))]:
        kern = k._compiled_for(args).kernel
        check_device_binary(kern.format, kern.binary, tmp_path)
