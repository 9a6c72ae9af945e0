"""Atomics of the kernel IR (``kernel_ir.Atomic`` with its memory order and scope, and ``Fence``),
built by hand with ``FunctionBuilder``, compiled for the default device and launched directly:
read-modify-writes from many work-items into few elements (their fetched old values form one chain),
atomic loads and stores, compare-exchange, work-group local memory between barriers, and fences.
Every order and every scope is used; scopes narrower than the device only where the work-items
that contend are within that scope."""

import dataclasses
import re

import numpy as np
import pytest

import numba_ext as nx
from numba_ext import _core
from numba_ext.compiler.function_builder import FunctionBuilder, const
from numba_ext.devices import device_by_filter
from numba_ext.errors import KernelSpecError
from numba_ext.ir import kernel_ir as kir
from numba_ext.kernels.launch import argument_slots

from ..checks import check, poison, rand
from ..conftest import DEV

ORDERS = ["relaxed", "acquire", "release", "acq_rel", "seq_cst"]
SCOPES = ["work_item", "sub_group", "work_group", "device", "system"]
INTS = ["int32", "int64", "uint32", "uint64"]
L = kir.Local
UFUNC = {
    "add": np.add,
    "sub": np.subtract,
    "min": np.minimum,
    "max": np.maximum,
    "and": np.bitwise_and,
    "or": np.bitwise_or,
    "xor": np.bitwise_xor,
}


def _launch(fn: kir.Function, args: list, global_size: int, local_size: int | None = None) -> None:
    kernel = _core.compile_function(fn, device_by_filter(DEV))
    local = None if local_size is None else [local_size]
    kernel.launch_nd(args[0].sycl_queue, argument_slots(args), [global_size], local)


def _dev(a: np.ndarray) -> nx.ndarray:
    return nx.asarray(a, device=DEV)


def _out(n: int, dtype: str) -> nx.ndarray:
    poison(n, dtype)
    return nx.empty(n, dtype=dtype, device=DEV)


def _operands(rng, op: str, dtype: str, n: int) -> np.ndarray:
    """Values whose and / or over many work-items keeps some bits (sparse zeros / sparse ones)."""
    if op not in ("and", "or"):
        return rand(rng, dtype, n, lo=-1000, hi=1000) if op in ("add", "sub") else rand(rng, dtype, n)
    sparse = rand(rng, dtype, n)
    for _ in range(5):
        sparse &= rand(rng, dtype, n)
    return ~sparse if op == "and" else sparse


def _rmw_function(op: str, dtype: str, groups: int, order: str, scope: str) -> kir.Function:
    """old[g] = atomic op(acc[g % groups], x[g])."""
    fb = FunctionBuilder(f"rmw_{op}_{dtype}")
    x = fb.array_param("x", dtype, 1, True)
    acc = fb.array_param("acc", dtype, 1, True)
    old = fb.array_param("old", dtype, 1, True)
    gid, k = fb.new_local("int64"), fb.new_local("int64")
    v, o = fb.new_local(dtype), fb.new_local(dtype)
    entry = fb.new_block()
    fb.emit(
        entry,
        kir.WorkItem(gid, "get_global_id", 0),
        kir.BinaryInst(k, "rem", L(gid), const("int64", groups)),
        kir.LoadInst(v, x, (L(gid),)),
        kir.Atomic(o, op, acc, (L(k),), L(v), None, order, scope),
        kir.StoreInst(old, (L(gid),), L(o)),
    )
    fb.terminate(entry, kir.Return())
    return fb.function()


def _check_chain(op: str, init, values: np.ndarray, olds: np.ndarray, final) -> None:
    """Read-modify-writes of one element run in some order, each reading what the previous wrote:
    the values written, with the initial value, are the values read, with the final value."""
    written = values if op == "exchange" else UFUNC[op](olds, values)
    got = np.sort(np.concatenate([olds, [final]]))
    want = np.sort(np.concatenate([written, [init]]))
    np.testing.assert_array_equal(got, want, err_msg=f"{op}: the fetched values are no chain")


def _rmw_cases() -> list:
    cases = [(op, dt) for op in ("and", "or", "xor") for dt in INTS]
    cases += [("add", "int32"), ("sub", "uint64"), ("min", "int64"), ("max", "uint32")]
    cases += [("exchange", "int64"), ("exchange", "float32"), ("max", "float64"), ("add", "float64")]
    # every order, device and system scope (the contending work-items span work-groups)
    return [(op, dt, ORDERS[i % 5], ("device", "system")[i % 2]) for i, (op, dt) in enumerate(cases)]


@pytest.mark.parametrize("op, dtype, order, scope", _rmw_cases())
def test_read_modify_write_from_many_work_items(rng, op, dtype, order, scope):
    n, groups = 384, 3
    x, init = _operands(rng, op, dtype, n), _operands(rng, op, dtype, groups)
    acc, old = _dev(init), _out(n, dtype)
    _launch(_rmw_function(op, dtype, groups, order, scope), [_dev(x), acc, old], n)
    final, olds = nx.asnumpy(acc), nx.asnumpy(old)
    for j in range(groups):
        part = x[j::groups]
        if op == "exchange":
            assert final[j] in part, (j, final[j])
        elif dtype.startswith("float"):
            want = UFUNC[op].reduce(np.concatenate([[init[j]], part]))
            np.testing.assert_allclose(final[j], want, rtol=1e-12)
        else:
            assert final[j] == UFUNC[op].reduce(np.concatenate([[init[j]], part])), (op, j)
        _check_chain(op, init[j], part, olds[j::groups], final[j])


def _load_store_function(dtype: str, load_order: str, store_order: str, scope: str) -> kir.Function:
    """y[g] = atomic load x[g]; atomic store z[g] = that value; each work-item its own element."""
    fb = FunctionBuilder(f"load_store_{dtype}")
    x, z = fb.array_param("x", dtype, 1, True), fb.array_param("z", dtype, 1, True)
    y = fb.array_param("y", dtype, 1, True)
    gid, v = fb.new_local("int64"), fb.new_local(dtype)
    zero = const(dtype, 0.0 if dtype.startswith("float") else 0)
    entry = fb.new_block()
    fb.emit(
        entry,
        kir.WorkItem(gid, "get_global_id", 0),
        kir.Atomic(v, "load", x, (L(gid),), zero, None, load_order, scope),
        kir.Atomic(None, "store", z, (L(gid),), L(v), None, store_order, scope),
        kir.StoreInst(y, (L(gid),), L(v)),
    )
    fb.terminate(entry, kir.Return())
    return fb.function()


@pytest.mark.parametrize(
    "dtype, load_order, store_order, scope",
    [
        ("int32", "relaxed", "relaxed", "work_item"),
        ("uint64", "acquire", "release", "sub_group"),
        ("float32", "seq_cst", "seq_cst", "work_group"),
        ("float64", "acquire", "seq_cst", "device"),
        ("int64", "seq_cst", "release", "system"),
    ],
)
def test_atomic_load_and_store(rng, dtype, load_order, store_order, scope):
    n = 97
    x = rand(rng, dtype, n)
    y, z = _out(n, dtype), _out(n, dtype)
    _launch(_load_store_function(dtype, load_order, store_order, scope), [_dev(x), z, y], n)
    check(y, x, "loaded")
    check(z, x, "stored")


def _cas_function(dtype: str, groups: int, order: str) -> kir.Function:
    """old[g] = compare_exchange(acc[g % groups], expected=first[g % groups], new=x[g])."""
    fb = FunctionBuilder(f"cas_{dtype}")
    x, acc = fb.array_param("x", dtype, 1, True), fb.array_param("acc", dtype, 1, True)
    first, old = fb.array_param("first", dtype, 1, True), fb.array_param("old", dtype, 1, True)
    gid, k = fb.new_local("int64"), fb.new_local("int64")
    v, e, o = fb.new_local(dtype), fb.new_local(dtype), fb.new_local(dtype)
    entry = fb.new_block()
    fb.emit(
        entry,
        kir.WorkItem(gid, "get_global_id", 0),
        kir.BinaryInst(k, "rem", L(gid), const("int64", groups)),
        kir.LoadInst(v, x, (L(gid),)),
        kir.LoadInst(e, first, (L(k),)),
        kir.Atomic(o, "compare_exchange", acc, (L(k),), L(v), L(e), order, "device"),
        kir.StoreInst(old, (L(gid),), L(o)),
    )
    fb.terminate(entry, kir.Return())
    return fb.function()


CAS_CASES = [("int32", "acq_rel"), ("uint64", "seq_cst"), ("float32", "release"), ("float64", "acquire")]


@pytest.mark.parametrize("dtype, order", CAS_CASES)
def test_compare_exchange_has_one_winner_per_element(rng, dtype, order):
    n, groups = 256, 4
    vals = rng.permutation(n + groups).astype(dtype)  # distinct values
    x, init = vals[:n], vals[n:]
    acc, old = _dev(init), _out(n, dtype)
    _launch(_cas_function(dtype, groups, order), [_dev(x), acc, _dev(init), old], n)
    final, olds = nx.asnumpy(acc), nx.asnumpy(old)
    for j in range(groups):
        part, seen = x[j::groups], olds[j::groups]
        assert final[j] in part, (j, final[j])
        winners = np.flatnonzero(part == final[j])
        assert len(winners) == 1 and seen[winners[0]] == init[j], (j, seen)
        # everyone before the winner saw the initial value, everyone after it the winner's
        assert np.all((seen == init[j]) | (seen == final[j])), (j, seen)


WG, M = 32, 4


def _identity(op: str, dtype: str):
    if op == "and":
        return np.array(-1).astype(dtype)[()] if dtype.startswith("int") else np.iinfo(dtype).max
    if op == "max":
        return np.finfo(dtype).min if dtype.startswith("float") else np.iinfo(dtype).min
    return 0.0 if dtype.startswith("float") else 0


def _local_function(op: str, dtype: str, order: str) -> kir.Function:
    """Per work-group: tile[:M] = identity (atomic stores), barrier, atomic op(tile[lid % M],
    x[gid]), barrier, out[group * M + lid] = atomic load tile[lid] for lid < M."""
    fb = FunctionBuilder(f"local_{op}_{dtype}")
    x, out = fb.array_param("x", dtype, 1, True), fb.array_param("out", dtype, 1, True)
    tile = fb.new_array("tile", dtype, 1, "local", (M,))
    gid, lid, grp, k, idx = (fb.new_local("int64") for _ in range(5))
    first, v, r = fb.new_local("bool"), fb.new_local(dtype), fb.new_local(dtype)
    entry, init, body, write, done = (fb.new_block() for _ in range(5))
    ident = const(dtype, _identity(op, dtype))
    fb.emit(
        entry,
        kir.WorkItem(gid, "get_global_id", 0),
        kir.WorkItem(lid, "get_local_id", 0),
        kir.WorkItem(grp, "get_group_id", 0),
        kir.BinaryInst(first, "lt", L(lid), const("int64", M)),
    )
    fb.terminate(entry, kir.Branch(L(first), init, body))
    fb.emit(init, kir.Atomic(None, "store", tile, (L(lid),), ident, None, "relaxed", "work_group"))
    fb.terminate(init, kir.Jump(body))
    fb.emit(
        body,
        kir.Fence("release", "work_group"),
        kir.Barrier(1),
        kir.Fence("acquire", "work_group"),
        kir.BinaryInst(k, "rem", L(lid), const("int64", M)),
        kir.LoadInst(v, x, (L(gid),)),
        kir.Atomic(None, op, tile, (L(k),), L(v), None, order, "work_group"),
        kir.Barrier(1),
    )
    fb.terminate(body, kir.Branch(L(first), write, done))
    fb.emit(
        write,
        kir.Atomic(r, "load", tile, (L(lid),), ident, None, "acquire", "work_group"),
        kir.BinaryInst(idx, "mul", L(grp), const("int64", M)),
        kir.BinaryInst(idx, "add", L(idx), L(lid)),
        kir.StoreInst(out, (L(idx),), L(r)),
    )
    fb.terminate(write, kir.Jump(done))
    fb.terminate(done, kir.Return())
    return fb.function()


@pytest.mark.parametrize(
    "op, dtype, order",
    [
        ("and", "int32", "relaxed"),
        ("or", "uint32", "acquire"),
        ("xor", "int64", "release"),
        ("xor", "uint64", "acq_rel"),
        ("add", "int64", "seq_cst"),
        ("max", "float32", "acq_rel"),
        ("add", "float64", "relaxed"),
    ],
)
def test_local_memory_atomics_between_barriers(rng, op, dtype, order):
    groups = 5
    x = _operands(rng, op, dtype, groups * WG)
    out = _out(groups * M, dtype)
    _launch(_local_function(op, dtype, order), [_dev(x), out], groups * WG, WG)
    want = np.empty(groups * M, dtype)
    for g in range(groups):
        for j in range(M):
            part = x[g * WG + j : (g + 1) * WG : M]
            start = np.array([_identity(op, dtype)], dtype)
            want[g * M + j] = UFUNC[op].reduce(np.concatenate([start, part]))
    check(out, want, f"local {op}")


def _fenced_double() -> kir.Function:
    """y[g] = x[g] + x[g] between fences of every order and scope."""
    fb = FunctionBuilder("fenced_double")
    x, y = fb.array_param("x", "float64", 1, True), fb.array_param("y", "float64", 1, True)
    gid, v = fb.new_local("int64"), fb.new_local("float64")
    entry = fb.new_block()
    fb.emit(entry, kir.WorkItem(gid, "get_global_id", 0), kir.LoadInst(v, x, (L(gid),)))
    fb.emit(entry, *(kir.Fence(order, scope) for scope in SCOPES for order in ORDERS))
    fb.emit(entry, kir.BinaryInst(v, "add", L(v), L(v)), kir.StoreInst(y, (L(gid),), L(v)))
    fb.emit(entry, *(kir.Fence(order, scope) for scope in reversed(SCOPES) for order in reversed(ORDERS)))
    fb.terminate(entry, kir.Return())
    return fb.function()


def test_fences_of_every_order_and_scope_keep_the_program_correct(rng):
    n = 97
    x = rand(rng, "float64", n)
    y = _out(n, "float64")
    _launch(_fenced_double(), [_dev(x), y], n)
    check(y, x + x, "fenced")


def test_ir_defaults_and_fence_objects():
    a = kir.Atomic(None, "add", 0, (const("int64", 0),), const("int32", 1))
    assert (a.cmp, a.order, a.scope) == (None, "relaxed", "device")
    f = kir.Fence("seq_cst", "work_group")
    assert f.tag == "fence" and (f.order, f.scope) == ("seq_cst", "work_group")


@pytest.mark.parametrize(
    "op, order, scope, message",
    [
        ("load", "release", "device", "an atomic load cannot be 'release': use relaxed, acquire or seq_cst"),
        (
            "store",
            "acq_rel",
            "device",
            "an atomic store cannot be 'acq_rel': use relaxed, release or seq_cst",
        ),
        ("add", "consume", "device", "unknown memory order 'consume'"),
        ("add", "relaxed", "grid", "unknown memory scope 'grid'"),
        ("nand", "relaxed", "device", "unknown atomic operation 'nand'"),
    ],
)
def test_refused_orders_scopes_and_ops_name_the_problem(op, order, scope, message):
    fn = _load_store_function("int32", "relaxed", "relaxed", "device")
    entry = fn.blocks[0]
    dst = None if op == "store" else 1
    bad = kir.Atomic(dst, op, 0, (kir.Local(0),), const("int32", 0), None, order, scope)
    fn = dataclasses.replace(fn, blocks=(dataclasses.replace(entry, insts=(*entry.insts, bad)),))
    with pytest.raises(KernelSpecError, match=re.escape(message)):
        _core.compile_function(fn, device_by_filter(DEV))
