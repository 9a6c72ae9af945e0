"""Launching kernels: work-item ids and range queries in 3-D, every launch form, one binary per
argument signature and device, and the cached launch fast path (which keeps every check)."""

import numpy as np
import pytest

import numba_ext as nx
from numba_ext import Context, Device, Queue

from ..checks import fp_tol
from ..conftest import DEV
from .conftest import axpy


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
        host_ev, ev = nx.call_kernel_async(axpy, n, (), 2.5, x, y)
        ev.wait()
        host_ev.wait()
    np.testing.assert_allclose(nx.asnumpy(y), 2.5 * hx + hy, **fp_tol())  # FMA on GPUs


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
        np.testing.assert_allclose(nx.asnumpy(out), -want if flag else want, **fp_tol())
    assert k._fast_cache_len() == 1
    # views: the slots come from each array's own image (data address, shape, strides)
    out2 = nx.full(48, np.nan, device=DEV)
    k[48](x[::-2], out2, 2.0, 1, False)
    np.testing.assert_allclose(nx.asnumpy(out2), h[::-2] * 2.0 + 1, **fp_tol())
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
    np.testing.assert_allclose(hout, h * 3.0 + 2, **fp_tol())

    # (4, 4) is a 1-D launch of 4 with work-groups of 4; Range(4, 4) a 2-D range
    @nx.kernel
    def ids(out):
        out[nx.get_global_id(1) * 4 + nx.get_global_id(0)] = nx.get_global_id(0) + 10 * nx.get_global_id(1)

    r = nx.full(16, -1, dtype=np.int64, device=DEV)
    ids[4, 4](r)
    assert (nx.asnumpy(r) == np.r_[np.arange(4), [-1] * 12]).all()
    ids[nx.Range(4, 4)](r)
    assert (nx.asnumpy(r) == (np.arange(4)[None, :] + 10 * np.arange(4)[:, None]).ravel()).all()
