"""AtomicRef (numba-dpex's kernel API): every read-modify-write on every element type it takes, in
global and work-group memory, with every memory order and scope, atomic fences, and the typing
errors of operations an element type does not support."""

import numpy as np
import pytest

import numba_ext as nx
from numba_ext import kernel_api as kapi
from numba_ext.kernel_api import (
    AtomicRef,
    Item,
    LocalAccessor,
    MemoryOrder,
    MemoryScope,
    NdItem,
    NdRange,
    Range,
)

N = 300
ARITH = ["int32", "int64", "uint32", "uint64", "float32", "float64"]
INTS = ["int32", "int64", "uint32", "uint64"]


def _values(rng, dtype, n=N):
    if np.dtype(dtype).kind == "f":
        return rng.integers(-1000, 1000, n).astype(dtype) / 8  # exact sums in any order
    lo = 0 if np.dtype(dtype).kind == "u" else -1000
    return rng.integers(lo, 1000, n).astype(dtype)


@nx.kernel
def fetch_ops(item: Item, vals, acc, olds):
    i = item.get_id(0)
    v = vals[i]
    olds[i, 0] = AtomicRef(acc, index=0).fetch_add(v)
    olds[i, 1] = AtomicRef(acc, 1).fetch_sub(v)
    olds[i, 2] = AtomicRef(acc, index=2).fetch_min(v)
    olds[i, 3] = AtomicRef(acc, index=3).fetch_max(v)


@pytest.mark.parametrize("dtype", ARITH)
def test_fetch_add_sub_min_max(rng, dtype):
    h = _values(rng, dtype)
    start = (
        np.array([0, 5000, 999, 0], dtype=dtype) if dtype[0] != "u" else np.array([0, 10**6, 999, 0], dtype)
    )
    acc = nx.asarray(start)
    olds = nx.asarray(np.zeros((N, 4), dtype))
    nx.call_kernel(fetch_ops, Range(N), nx.asarray(h), acc, olds)
    got = nx.asnumpy(acc)
    want = np.array(
        [start[0] + h.sum(), start[1] - h.sum(), min(start[2], h.min()), max(start[3], h.max())], dtype
    )
    np.testing.assert_array_equal(got, want)
    # the old values chain: each update turns one old value into the next (or into the final one)
    o = nx.asnumpy(olds)
    for col, step in ((0, o[:, 0] + h), (1, o[:, 1] - h)):
        np.testing.assert_array_equal(
            np.sort(np.append(o[:, col], got[col])), np.sort(np.append(step, start[col]))
        )
    assert o[:, 2].min() >= want[2] and o[:, 2].max() <= start[2]
    assert o[:, 3].max() <= want[3] and o[:, 3].min() >= start[3]


@nx.kernel
def bit_ops(item: Item, vals, acc):
    i = item.get_id(0)
    AtomicRef(acc, index=0).fetch_and(vals[i])
    AtomicRef(acc, index=1).fetch_or(vals[i])
    AtomicRef(acc, index=2).fetch_xor(vals[i])


@pytest.mark.parametrize("dtype", INTS)
def test_fetch_and_or_xor(rng, dtype):
    h = rng.integers(0, 2**31 - 1, N).astype(dtype) | np.array(1, dtype)
    full = np.iinfo(dtype).max if dtype[0] == "u" else np.array(-1, dtype)
    acc = nx.asarray(np.array([full, 0, 0], dtype))
    nx.call_kernel(bit_ops, Range(N), nx.asarray(h), acc)
    want = [np.bitwise_and.reduce(h) & full, np.bitwise_or.reduce(h), np.bitwise_xor.reduce(h)]
    np.testing.assert_array_equal(nx.asnumpy(acc), np.array(want, dtype))


@nx.kernel
def exchange_load_store(item: Item, a, out):
    i = item.get_id(0)
    r = AtomicRef(a, index=i, memory_order=MemoryOrder.ACQ_REL)
    out[i, 0] = r.exchange(out[i, 1])
    out[i, 2] = AtomicRef(a, index=i, memory_order=MemoryOrder.ACQUIRE).load()
    AtomicRef(a, index=i, memory_order=MemoryOrder.RELEASE).store(out[i, 2] * 2)


@pytest.mark.parametrize("dtype", ["int32", "uint64", "float32", "float64"])
def test_exchange_load_store(rng, dtype):
    h, new = _values(rng, dtype, 64), _values(rng, dtype, 64)
    a = nx.asarray(h)
    out = np.zeros((64, 3), dtype)
    out[:, 1] = new
    o = nx.asarray(out)
    nx.call_kernel(exchange_load_store, Range(64), a, o)
    got = nx.asnumpy(o)
    np.testing.assert_array_equal(got[:, 0], h)  # exchange returns the old value
    np.testing.assert_array_equal(got[:, 2], new)  # load sees the new one
    np.testing.assert_array_equal(nx.asnumpy(a), new * 2)


@nx.kernel
def claim(item: Item, slot, winners, seen):
    # every work-item tries to claim the slot (0 -> its id + 1); one wins, the others see its value
    i = item.get_id(0)
    expected = kapi.PrivateArray(1, np.int64, fill_zeros=True)
    ok = AtomicRef(slot, index=0, memory_order=MemoryOrder.SEQ_CST).compare_exchange(expected, i + 1)
    winners[i] = 1 if ok else 0
    seen[i] = expected[0]


def test_compare_exchange():
    slot = nx.asarray(np.zeros(1, np.int64))
    winners, seen = nx.asarray(np.full(N, -1)), nx.asarray(np.full(N, -1))
    nx.call_kernel(claim, Range(N), slot, winners, seen)
    w, s, final = nx.asnumpy(winners), nx.asnumpy(seen), nx.asnumpy(slot)[0]
    assert w.sum() == 1
    winner = int(np.flatnonzero(w)[0])
    assert final == winner + 1
    assert s[winner] == 0  # on success expected keeps its value
    np.testing.assert_array_equal(np.delete(s, winner), final)  # on failure it gets the element's


@nx.kernel
def local_histogram(it: NdItem, vals, local_bins, bins):
    # per work-group histogram in work-group memory, merged into the global one
    lid = it.get_local_id(0)
    g = it.get_group()
    if lid < 16:
        local_bins[lid] = 0
    kapi.group_barrier(g)
    AtomicRef(
        local_bins, index=vals[it.get_global_id(0)] % 16, memory_scope=MemoryScope.WORK_GROUP
    ).fetch_add(1)
    kapi.group_barrier(g)
    if lid < 16:
        AtomicRef(bins, index=lid).fetch_add(local_bins[lid])


@pytest.mark.parametrize("dtype", ["int32", "uint64"])
def test_atomics_in_work_group_memory(rng, dtype):
    h = rng.integers(0, 1000, 512)
    bins = nx.asarray(np.zeros(16, dtype))
    nx.call_kernel(local_histogram, NdRange(512, 64), nx.asarray(h), LocalAccessor(16, dtype), bins)
    np.testing.assert_array_equal(nx.asnumpy(bins), np.bincount(h % 16, minlength=16))


ORDERS = [
    MemoryOrder.RELAXED,
    MemoryOrder.ACQUIRE,
    MemoryOrder.RELEASE,
    MemoryOrder.ACQ_REL,
    MemoryOrder.SEQ_CST,
]
SCOPES = list(MemoryScope)


@pytest.mark.parametrize("scope", SCOPES, ids=[s.name for s in SCOPES])
@pytest.mark.parametrize("order", ORDERS, ids=[o.name for o in ORDERS])
def test_every_order_and_scope_with_a_fence(rng, order, scope):
    @nx.kernel
    def counted(item, vals, acc):
        i = item.get_id(0)
        kapi.atomic_fence(order, scope)
        AtomicRef(acc, index=i % 4, memory_order=order, memory_scope=scope).fetch_add(vals[i])
        kapi.atomic_fence(MemoryOrder.SEQ_CST, scope)

    h = rng.integers(-100, 100, 200)
    acc = nx.asarray(np.zeros(4, np.int64))
    nx.call_kernel(counted, Range(200), nx.asarray(h), acc)
    np.testing.assert_array_equal(nx.asnumpy(acc), h.reshape(50, 4).sum(0))


def _typing_error(kernel_fn, *args, match):
    with pytest.raises(nx.UnsupportedError, match=match):
        nx.call_kernel(kernel_fn, Range(4), *args)


def test_unsupported_operations_are_typing_errors():
    @nx.kernel
    def float_and(item: Item, a):
        AtomicRef(a, index=0).fetch_and(a[1])

    with pytest.raises(nx.KernelTypingError, match="atomic and needs integer elements"):
        nx.call_kernel(float_and, Range(4), nx.asarray(np.zeros(4)))

    @nx.kernel
    def int8_ref(item: Item, a):
        AtomicRef(a, index=0).fetch_add(a[1])

    with pytest.raises(nx.KernelTypingError, match="not supported on int8"):
        nx.call_kernel(int8_ref, Range(4), nx.asarray(np.zeros(4, np.int8)))

    @nx.kernel
    def float_into_int(item: Item, a, x):
        AtomicRef(a, index=0).fetch_add(x[0])

    with pytest.raises(nx.KernelTypingError, match="would cast the value"):
        nx.call_kernel(float_into_int, Range(4), nx.asarray(np.zeros(4, np.int64)), nx.asarray(np.ones(2)))

    @nx.kernel
    def releasing_load(item: Item, a):
        a[1] = AtomicRef(a, index=0, memory_order=MemoryOrder.RELEASE).load()

    _typing_error(releasing_load, nx.asarray(np.zeros(4)), match="load.*memory order release")

    @nx.kernel
    def private_ref(item: Item, a):
        p = kapi.PrivateArray(4, np.float64)
        AtomicRef(p, index=0).fetch_add(1.0)

    _typing_error(private_ref, nx.asarray(np.zeros(4)), match="private memory")

    @nx.kernel
    def wrong_space(item: Item, a):
        AtomicRef(a, index=0, address_space=kapi.AddressSpace.LOCAL).fetch_add(1.0)

    _typing_error(wrong_space, nx.asarray(np.zeros(4)), match="address_space=LOCAL.*GLOBAL")
