"""Item-style kernels (numba-dpex's kernel API): Item, NdItem and Group queries against the ids and
ranges computed on the host, LocalAccessor and PrivateArray memory, group barriers, the OpenCL-style
linear functions, and how an item-style kernel is recognised and launched."""

import numpy as np
import pytest

import numba_ext as nx
from numba_ext import kernel_api as kapi
from numba_ext.kernel_api import Item, LocalAccessor, NdItem, NdRange, PrivateArray, Range, group_barrier

from ..checks import fp_tol


def _ids(shape):
    """Per work-item (C order over `shape`): its ids, one row per dimension."""
    return np.indices(shape).reshape(len(shape), -1)


def _poisoned(shape, dtype=np.int64):
    return nx.asarray(np.full(shape, -7, dtype))


# -- Item ----------------------------------------------------------------------------------------
@nx.kernel
def item_queries(item: Item, out):
    d = item.dimensions
    i0 = item.get_id(0)
    i1 = item.get_id(1) if d > 1 else 0
    i2 = item.get_id(2) if d > 2 else 0
    lin = item.get_linear_id()
    out[lin, 0] = i0
    out[lin, 1] = i1
    out[lin, 2] = i2
    out[lin, 3] = item.get_range(0)
    out[lin, 4] = item.get_linear_range()
    out[lin, 5] = d


@pytest.mark.parametrize("shape", [(37,), (5, 7), (3, 4, 5)])
def test_item_ids_ranges_and_linear_ids(shape):
    n = int(np.prod(shape))
    out = _poisoned((n, 6))
    nx.call_kernel(item_queries, Range(*shape), out)
    got = nx.asnumpy(out)
    ids = _ids(shape)
    # SYCL's linear id: the last dimension varies fastest, as NumPy's C order
    for d in range(3):
        np.testing.assert_array_equal(got[:, d], ids[d] if d < len(shape) else 0)
    np.testing.assert_array_equal(got[:, 3], shape[0])
    np.testing.assert_array_equal(got[:, 4], n)
    np.testing.assert_array_equal(got[:, 5], len(shape))


@nx.kernel
def item_runtime_dim(item, dims, out):
    # a dimension known only at run time
    i = item.get_linear_id()
    out[i] = item.get_id(dims[0]) * 100 + item.get_range(dims[0])


def test_item_dimension_given_at_run_time(rng):
    shape = (6, 9)
    for dim in (0, 1):
        out = _poisoned(54)
        item_runtime_dim[Range(*shape)](nx.asarray(np.array([dim])), out)
        np.testing.assert_array_equal(nx.asnumpy(out), _ids(shape)[dim] * 100 + shape[dim])


# -- NdItem and Group ------------------------------------------------------------------------------
@nx.kernel
def nd_queries(it: NdItem, out):
    g = it.get_group()
    lin = it.get_global_linear_id()
    out[lin, 0] = it.get_global_id(0)
    out[lin, 1] = it.get_local_id(0)
    out[lin, 2] = it.get_global_range(0)
    out[lin, 3] = it.get_local_range(0)
    out[lin, 4] = it.get_local_linear_id()
    out[lin, 5] = it.get_global_linear_range()
    out[lin, 6] = it.get_local_linear_range()
    out[lin, 7] = g.get_group_id(0)
    out[lin, 8] = g.get_group_linear_id()
    out[lin, 9] = g.get_group_range(0)
    out[lin, 10] = g.get_group_linear_range()
    out[lin, 11] = g.get_local_range(0)
    out[lin, 12] = g.get_local_linear_range()
    out[lin, 13] = 1 if g.leader else 0
    out[lin, 14] = it.dimensions * 10 + g.dimensions


@pytest.mark.parametrize(("gshape", "lshape"), [((48,), (8,)), ((6, 8), (3, 4))])
def test_nd_item_and_group_queries(gshape, lshape):
    n = int(np.prod(gshape))
    out = _poisoned((n, 15))
    nx.call_kernel(nd_queries, NdRange(gshape, lshape), out)
    got = nx.asnumpy(out)
    gid = _ids(gshape)
    lid = gid % np.array(lshape)[:, None]
    grp = gid // np.array(lshape)[:, None]
    ngroups = tuple(g // lo for g, lo in zip(gshape, lshape))
    local_lin = np.ravel_multi_index(tuple(lid), lshape)
    np.testing.assert_array_equal(got[:, 0], gid[0])
    np.testing.assert_array_equal(got[:, 1], lid[0])
    np.testing.assert_array_equal(got[:, 2], gshape[0])
    np.testing.assert_array_equal(got[:, 3], lshape[0])
    np.testing.assert_array_equal(got[:, 4], local_lin)
    np.testing.assert_array_equal(got[:, 5], n)
    np.testing.assert_array_equal(got[:, 6], np.prod(lshape))
    np.testing.assert_array_equal(got[:, 7], grp[0])
    np.testing.assert_array_equal(got[:, 8], np.ravel_multi_index(tuple(grp), ngroups))
    np.testing.assert_array_equal(got[:, 9], ngroups[0])
    np.testing.assert_array_equal(got[:, 10], np.prod(ngroups))
    np.testing.assert_array_equal(got[:, 11], lshape[0])
    np.testing.assert_array_equal(got[:, 12], np.prod(lshape))
    np.testing.assert_array_equal(got[:, 13], local_lin == 0)
    np.testing.assert_array_equal(got[:, 14], len(gshape) * 11)


# -- local and private memory, barriers --------------------------------------------------------------
@nx.kernel
def group_sums(it, x, scratch, out):
    # each work-group sums its elements through work-group memory (tree reduction)
    lid = it.get_local_id(0)
    scratch[lid] = x[it.get_global_id(0)]
    group_barrier(it.get_group())
    stride = it.get_local_range(0) // 2
    while stride > 0:
        if lid < stride:
            scratch[lid] += scratch[lid + stride]
        group_barrier(it.get_group(), kapi.MemoryScope.WORK_GROUP)
        stride //= 2
    if it.get_group().leader:
        out[it.get_group().get_group_id(0)] = scratch[0]


@pytest.mark.parametrize("wg", [16, 64])
def test_local_accessor_reduction(rng, wg):
    n = wg * 6
    hx = rng.standard_normal(n)
    out = nx.asarray(np.full(6, np.nan))
    nx.call_kernel(group_sums, NdRange(n, wg), nx.asarray(hx), LocalAccessor(wg, np.float64), out)
    np.testing.assert_allclose(nx.asnumpy(out), hx.reshape(6, wg).sum(axis=1), rtol=1e-12, atol=1e-14)
    assert not any(isinstance(a, LocalAccessor) for a in ())  # accessors pass no data


@nx.kernel
def private_prefix(item, x, out):
    i = item.get_id(0)
    acc = PrivateArray(4, np.float64, fill_zeros=True)
    for k in range(3):
        acc[k + 1] = acc[k] + x[i, k]
    for k in range(4):
        out[i, k] = acc[k]


def test_private_array_zero_filled(rng):
    hx = rng.standard_normal((20, 3))
    out = nx.asarray(np.full((20, 4), np.nan))
    private_prefix[Range(20)](nx.asarray(hx), out)
    want = np.concatenate([np.zeros((20, 1)), np.cumsum(hx, axis=1)], axis=1)
    np.testing.assert_allclose(nx.asnumpy(out), want, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("flags", [None, 0, nx.LOCAL_MEM_FENCE, nx.GLOBAL_MEM_FENCE, 3])
def test_barrier_with_every_fence_combination(rng, flags):
    if flags is None:

        @nx.kernel
        def k(x, out):
            lid = nx.get_local_id(0)
            tmp = nx.local.array(16, np.float64)
            tmp[lid] = x[nx.get_global_id(0)]
            nx.barrier()
            out[nx.get_global_id(0)] = tmp[15 - lid]

    else:

        @nx.kernel
        def k(x, out):
            lid = nx.get_local_id(0)
            tmp = nx.local.array(16, np.float64)
            tmp[lid] = x[nx.get_global_id(0)]
            nx.barrier(flags)
            out[nx.get_global_id(0)] = tmp[15 - lid]

    hx = rng.standard_normal(64)
    out = nx.asarray(np.full(64, np.nan))
    k[64, 16](nx.asarray(hx), out)
    if flags == 0:  # no fence: the work-items wait, but local memory need not be visible; ran and typed
        return
    np.testing.assert_array_equal(nx.asnumpy(out), hx.reshape(4, 16)[:, ::-1].ravel())


def test_barrier_with_combined_flags_in_one_expression(rng):
    @nx.kernel
    def k(x, out):
        lid = nx.get_local_id(0)
        tmp = nx.local.array(8, np.float64)
        tmp[lid] = x[nx.get_global_id(0)]
        nx.barrier(nx.LOCAL_MEM_FENCE | nx.GLOBAL_MEM_FENCE)
        out[nx.get_global_id(0)] = tmp[7 - lid]

    hx = rng.standard_normal(32)
    out = nx.asarray(np.full(32, np.nan))
    k[32, 8](nx.asarray(hx), out)
    np.testing.assert_array_equal(nx.asnumpy(out), hx.reshape(4, 8)[:, ::-1].ravel())


# -- OpenCL-style linear functions ---------------------------------------------------------------------
@nx.kernel
def cl_linear(out):
    i = nx.get_global_linear_id()
    out[i, 0] = nx.get_local_linear_id()
    out[i, 1] = nx.get_group_linear_id()
    out[i, 2] = nx.get_global_linear_size()
    out[i, 3] = nx.get_local_linear_size()
    out[i, 4] = nx.get_work_dim()
    out[i, 5] = nx.get_global_id(0)


@pytest.mark.parametrize(("gshape", "lshape"), [((24,), (6,)), ((4, 6), (2, 3)), ((2, 4, 6), (1, 2, 3))])
def test_opencl_style_linear_functions(gshape, lshape):
    n = int(np.prod(gshape))
    out = _poisoned((n, 6))
    cl_linear[NdRange(gshape, lshape)](out)
    got = nx.asnumpy(out)
    # OpenCL's linear id: dimension 0 varies fastest (Fortran order over the ranges)
    gid = np.indices(gshape).reshape(len(gshape), -1)
    lin = np.ravel_multi_index(tuple(gid), gshape, order="F")
    order = np.argsort(lin)
    gid = gid[:, order]
    lid = gid % np.array(lshape)[:, None]
    grp = gid // np.array(lshape)[:, None]
    ngroups = tuple(g // lo for g, lo in zip(gshape, lshape))
    np.testing.assert_array_equal(got[:, 0], np.ravel_multi_index(tuple(lid), lshape, order="F"))
    np.testing.assert_array_equal(got[:, 1], np.ravel_multi_index(tuple(grp), ngroups, order="F"))
    np.testing.assert_array_equal(got[:, 2], n)
    np.testing.assert_array_equal(got[:, 3], np.prod(lshape))
    np.testing.assert_array_equal(got[:, 4], len(gshape))
    np.testing.assert_array_equal(got[:, 5], gid[0])


# -- recognising and launching item-style kernels ----------------------------------------------------------
def test_item_kernel_without_annotation_follows_the_launch(rng):
    @nx.kernel
    def scaled(it, x, y):
        y[it.get_global_id(0) if it.dimensions == 1 else 0] = 2 * x[it.get_global_id(0)]

    @nx.kernel
    def plain(item, x, y):
        y[item.get_id(0)] = 3 * x[item.get_id(0)]

    hx = rng.standard_normal(32)
    y = nx.asarray(np.full(32, np.nan))
    scaled[NdRange(32, 8)](nx.asarray(hx), y)  # an NdItem
    np.testing.assert_array_equal(nx.asnumpy(y), 2 * hx)
    plain[32](nx.asarray(hx), y)  # an Item
    np.testing.assert_array_equal(nx.asnumpy(y), 3 * hx)
    with pytest.raises(nx.LaunchError, match="takes an NdItem"):
        scaled[32](nx.asarray(hx), y)


def test_nd_item_kernel_needs_an_nd_range(rng):
    with pytest.raises(nx.LaunchError, match="takes an NdItem.*NdRange"):
        nd_queries[Range(8)](_poisoned((8, 15)))


def test_dimensions_beyond_the_launch_read_as_opencl_does():
    # as the device's own queries (and numba-dpex): id 0 and range 1 in dimensions the launch lacks
    @nx.kernel
    def k(item, out):
        out[item.get_id(0)] = item.get_id(1) * 10 + item.get_range(2)

    out = _poisoned(4)
    k[4](out)
    np.testing.assert_array_equal(nx.asnumpy(out), 1)

    @nx.kernel
    def bad(item, out):
        out[item.get_id(0)] = item.get_id(3)

    with pytest.raises(nx.UnsupportedError, match=r"get_id\(3\)"):
        bad[4](_poisoned(4))


def test_keyword_arguments_and_defaults(rng):
    @nx.kernel
    def axpb(item, x, y, a=2.0, b=0.5):
        i = item.get_id(0)
        y[i] = a * x[i] + b

    hx = rng.standard_normal(40)
    x, y = nx.asarray(hx), nx.asarray(np.full(40, np.nan))
    axpb[40](x, y)
    np.testing.assert_allclose(nx.asnumpy(y), 2.0 * hx + 0.5, **fp_tol())
    axpb[40](y=y, x=x, b=-1.0)
    np.testing.assert_allclose(nx.asnumpy(y), 2.0 * hx - 1.0, **fp_tol())
    nx.call_kernel(axpb, Range(40), x, y, 3.0)
    np.testing.assert_allclose(nx.asnumpy(y), 3.0 * hx + 0.5, **fp_tol())
    with pytest.raises(nx.KernelArgumentError, match="takes 4 arguments.*unexpected keyword"):
        axpb[40](x, y, c=1.0)
    with pytest.raises(nx.KernelArgumentError, match="takes 4 arguments.*missing"):
        axpb[40](x)


def test_item_kernels_take_the_fast_launch_path(rng):
    @nx.kernel
    def inc(item, x):
        x[item.get_id(0)] += 1.0

    x = nx.asarray(np.zeros(16))
    for _ in range(5):
        inc[16](x)
    inc[NdRange(16, 4)](x)
    np.testing.assert_array_equal(nx.asnumpy(x), 6.0)
    assert inc._fast_cache_len() == 2  # one entry per (arguments, Range or NdRange)
    assert len(inc._cache) == 1  # an Item kernel over an NdRange still takes an Item: one binary


def test_local_accessor_launches_take_the_fast_path(rng):
    # accessors are interned per shape and dtype, so launches key them by identity
    assert LocalAccessor(32, np.float64) is LocalAccessor((32,), "float64")
    for wg in (16, 32, 16):
        hx = rng.standard_normal(wg * 4)
        for _ in range(3):
            out = nx.asarray(np.full(4, np.nan))
            group_sums[NdRange(wg * 4, wg)](nx.asarray(hx), LocalAccessor(wg, np.float64), out)
            np.testing.assert_allclose(nx.asnumpy(out), hx.reshape(4, wg).sum(axis=1), rtol=1e-12, atol=1e-14)
    assert group_sums._fast_cache_len() >= 2  # one entry per accessor shape (and launch)
    with pytest.raises(AttributeError, match="immutable"):
        LocalAccessor(8, np.float32).shape = (4,)


def test_local_accessor_validation():
    with pytest.raises(TypeError, match="shape"):
        LocalAccessor((0,), np.float32)
    with pytest.raises(TypeError, match="shape"):
        LocalAccessor((1, 2, 3, 4), np.float32)
    with pytest.raises(TypeError, match="dtype"):
        LocalAccessor(8, np.complex64)
    acc = LocalAccessor([4, 2], "float32")
    assert acc.shape == (4, 2) and acc.dtype == np.float32 and acc.nbytes == 32
    with pytest.raises(RuntimeError, match="only inside the kernel"):
        acc[0]


def test_kernel_only_objects_raise_on_the_host():
    for cls in (kapi.Item, kapi.NdItem, kapi.Group, kapi.AtomicRef, kapi.PrivateArray):
        with pytest.raises(RuntimeError, match="only inside"):
            cls()
    with pytest.raises(RuntimeError, match="only be called inside"):
        kapi.group_barrier(None)


def test_ranges_keep_numba_dpex_signatures():
    r = Range(dim0=4, dim1=5)
    assert r == (4, 5) and r.ndim == 2 and r.size() == 20 and r.get(1) == 5 and r.dim2 == -1
    nd = NdRange(global_size=Range(8, 4), local_size=(2, 2))
    assert nd.ndim == 2 and nd.get_global_range() == (8, 4) and nd.get_local_range() == (2, 2)
    assert nd == NdRange((8, 4), (2, 2)) and hash(nd) == hash(NdRange((8, 4), (2, 2)))


def test_item_kernels_launched_from_jitted_code(rng):
    @nx.kernel
    def add(item: Item, a, b, c):
        i = item.get_id(0)
        c[i] = a[i] + b[i]

    @nx.kernel
    def group_ids(it: NdItem, out):
        out[it.get_global_id(0)] = it.get_group().get_group_id(0)

    @nx.jit
    def f(a, b, c, o):
        nx.call_kernel(add, Range(a.shape[0]), a, b, c)
        nx.call_kernel(group_ids, NdRange(a.shape[0], 8), o)
        return c

    ha, hb = rng.standard_normal(64), rng.standard_normal(64)
    c, o = nx.asarray(np.full(64, np.nan)), _poisoned(64)
    assert f(nx.asarray(ha), nx.asarray(hb), c, o) is c
    np.testing.assert_array_equal(nx.asnumpy(c), ha + hb)
    np.testing.assert_array_equal(nx.asnumpy(o), np.arange(64) // 8)
