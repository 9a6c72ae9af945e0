"""Both forms of the reductions over every element (``ir.reductions.FunctionBuilder.flat_loop``):
strided (GPUs) and blocked (CPUs: one contiguous run per work-item, several partials), each launched
here on the default device with chosen work-item counts, so that both are checked wherever the suite
runs: sums, extremes, first indices of extremes (CPUs: each run's best, chunk by chunk, then the
runs in order) and dots of vectors give NumPy's values for lengths
around the unroll and the runs (shorter than one step, runs that end before the data, work-items with
nothing to do), in any layout; eager reductions on a CPU take the blocked form. Reductions along an
axis likewise, with one result element or several neighbours per work-item, and argmin / argmax
along a contiguous axis one row per work-item (CPUs)."""

import numpy as np
import pytest

import numba_ext
from numba_ext import _core
from numba_ext.arrays import reductions as arrays_reductions
from numba_ext.arrays.reductions import (
    WholeReduction,
    dot_vectors,
    first_extreme,
    first_extreme_in_runs,
    product,
    reduce_axis,
)
from numba_ext.ir import products
from numba_ext.ir.kernel_ir import Atomic, SelectInst
from numba_ext.ir.reductions import (
    ARG_CHUNK,
    CPU_UNROLL,
    arg_axis_function,
    arg_combine_function,
    arg_rows_function,
    arg_runs_function,
    axis_function,
    axis_group_function,
    first_index_function,
    whole_function,
)

from ..checks import fp_tol, sum_tol

LENGTHS = [1, 5, CPU_UNROLL, CPU_UNROLL + 1, 3 * CPU_UNROLL - 1, 100, 1031]
#: (global work-items, local size): blocked launches take work-groups of one
LAUNCHES = [(1, None), (3, None), (16, None), (64, None)]


def _launch(monkeypatch, unroll, work_items):
    """Reductions over every element launched over `work_items` in `unroll`'s form."""
    local = [1] if unroll > 1 else None
    monkeypatch.setattr(arrays_reductions, "launch_work_items", lambda size, device: (work_items, local))


def _kernels(build):
    cache = {}

    def kernel_for(ndim, device):
        if (ndim, device) not in cache:
            cache[ndim, device] = _core.compile_function(build(ndim), device)
        return cache[ndim, device]

    return kernel_for


@pytest.mark.parametrize("unroll", [1, CPU_UNROLL])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int16", "uint32", "bool", "complex64"])
def test_whole_reductions_of_both_forms(monkeypatch, rng, unroll, dtype):
    ops = (
        ("sum", "mean", "any", "all")
        if dtype == "complex64"
        else ("sum", "max", "min", "prod", "mean", "any")
    )
    for op in ops:
        whole = WholeReduction(op, dtype)
        kernel_for = _kernels(lambda ndim, op=op: whole_function(op, dtype, ndim, unroll))
        for n in LENGTHS:
            if dtype == "bool":
                h = rng.random(n) < 0.3
            elif np.dtype(dtype).kind == "f":
                h = rng.uniform(0.5, 1.5, n).astype(dtype)
            elif np.dtype(dtype).kind == "c":
                h = (rng.uniform(-1, 1, n) + 1j * rng.integers(0, 2, n)).astype(dtype)
            else:
                h = rng.integers(0, 3, n).astype(dtype)
            x = numba_ext.asarray(h)
            for work_items, _ in LAUNCHES:
                _launch(monkeypatch, unroll, work_items)
                got = whole(x, x._queue, kernel_for)
                want = getattr(h, op)()
                assert got.dtype == want.dtype, (op, n, work_items)
                if np.dtype(want.dtype).kind in "fc":
                    np.testing.assert_allclose(got, want, **fp_tol(dtype), err_msg=f"{op} {n} {work_items}")
                else:
                    assert got == want, (op, n, work_items, got, want)


@pytest.mark.parametrize("unroll", [1, CPU_UNROLL])
def test_layouts_of_both_forms(monkeypatch, rng, unroll):
    whole = WholeReduction("sum", "float64")
    kernel_for = _kernels(lambda ndim: whole_function("sum", "float64", ndim, unroll))
    h = rng.standard_normal((37, 29))
    a = numba_ext.asarray(h)
    for hx, x in ((h.T, a.T), (h[::3, 1::2], a[::3, 1::2]), (h[:, 5], a[:, 5]), (h[7], a[7])):
        for work_items, _ in LAUNCHES:
            _launch(monkeypatch, unroll, work_items)
            np.testing.assert_allclose(whole(x, x._queue, kernel_for), hx.sum(), **sum_tol(hx))


def _index_of_extreme(op, dtype, unroll, chunk=ARG_CHUNK):
    """``argmin`` / ``argmax`` (`op`) of arrays of `dtype` in `unroll`'s form: strided, the
    extreme then its first index (GPUs); else one pass over runs of `chunk`-element chunks, then
    the runs in order (CPUs)."""
    if unroll == 1:
        base = {"min": "all", "max": "any"}[op[3:]] if dtype == "bool" else op[3:]
        extreme = WholeReduction(base, dtype)
        extreme_for = _kernels(lambda ndim: whole_function(base, dtype, ndim, 1))
        index_for = _kernels(lambda ndim: first_index_function(dtype, ndim))
        return lambda x: first_extreme(op, x, extreme, x._queue, extreme_for, index_for, "device")
    runs_for = _kernels(lambda ndim: arg_runs_function(op, dtype, ndim, unroll, chunk))
    combine = _kernels(lambda ndim: arg_combine_function(op, dtype))
    return lambda x: first_extreme_in_runs(op, x, x._queue, runs_for, combine(1, x._queue.device), "device")


#: the forms of argmin / argmax: (unroll, chunk) with chunks shorter than the runs, so that runs
#: hold several
INDEX_FORMS = [(1, ARG_CHUNK), (CPU_UNROLL, ARG_CHUNK), (CPU_UNROLL, 16), (4, 4)]


@pytest.mark.parametrize(("unroll", "chunk"), INDEX_FORMS)
@pytest.mark.parametrize("op", ["argmin", "argmax"])
def test_first_extremes_of_both_forms(monkeypatch, rng, unroll, chunk, op):
    for dtype in ("float64", "float32", "int32", "uint8", "bool"):
        index_of = _index_of_extreme(op, dtype, unroll, chunk)
        for n in LENGTHS:
            if dtype == "bool":
                h = rng.random(n) < 0.2
            else:
                h = rng.integers(0, 4, n).astype(dtype)  # ties: the first one counts
            if dtype == "float64" and n > 3:
                h[rng.integers(n // 2, n)] = np.nan  # the first NaN wins
                h[rng.integers(0, n)] = np.nan
            x = numba_ext.asarray(h)
            for view_h, view in ((h, x), (h[::-2], x[::-2])):
                for work_items, _ in LAUNCHES:
                    _launch(monkeypatch, unroll, work_items)
                    want = getattr(view_h, op)()
                    assert int(index_of(view)) == want, (dtype, n, work_items, view_h)


@pytest.mark.parametrize(("unroll", "chunk"), INDEX_FORMS)
def test_first_extremes_where_later_runs_improve(monkeypatch, rng, unroll, chunk):
    """Sorted data (every chunk beats the ones before), constant data (no chunk does), NaN only at
    the end, and extremes only in the last run's tail."""
    n = 1031
    ramp = np.arange(n, dtype="float64")
    tail = np.zeros(n)
    tail[-3:] = [5.0, 7.0, 7.0]
    nan_last = rng.standard_normal(n)
    nan_last[-1] = np.nan
    for h in (ramp, ramp[::-1].copy(), np.full(n, 2.5), tail, -tail, nan_last, ramp.astype("int64")):
        x = numba_ext.asarray(h)
        for op in ("argmin", "argmax"):
            index_of = _index_of_extreme(op, h.dtype.name, unroll, chunk)
            for work_items, _ in LAUNCHES:
                _launch(monkeypatch, unroll, work_items)
                assert int(index_of(x)) == getattr(h, op)(), (op, work_items, h[-4:])


@pytest.mark.parametrize("unroll", [1, CPU_UNROLL])
@pytest.mark.parametrize("dtype", ["float64", "int32", "bool"])
def test_dot_of_vectors_of_both_forms(monkeypatch, rng, unroll, dtype):
    kernel = None
    for n in LENGTHS:
        if dtype == "bool":
            ha, hb = rng.random(n) < 0.5, rng.random(n) < 0.5
        else:
            ha, hb = (rng.integers(-4, 5, n).astype(dtype) for _ in range(2))
        a, b = numba_ext.asarray(ha), numba_ext.asarray(hb[::-1].copy())
        kernel = kernel or _core.compile_function(products.vector_function(dtype, unroll), a._queue.device)
        for work_items, _ in LAUNCHES:
            _launch(monkeypatch, unroll, work_items)
            got = dot_vectors(a, b[::-1], np.dtype(dtype), a._queue, kernel)
            assert got == np.dot(ha, hb) and got.dtype == np.dot(ha, hb).dtype, (n, work_items)


def test_cpu_forms_have_no_integer_minimum_maximum_or_select():
    """The Intel CPU runtime builds kernels with those without optimisation (a driver bug): the CPU
    forms of integer extremes compare and branch, and combine by compare-exchange."""
    from numba_ext.ir.kernel_ir import BinaryInst

    for dtype in ("int64", "uint8", "float64"):
        functions = [
            arg_runs_function("argmax", dtype, 2),
            arg_runs_function("argmin", dtype, 2),
            arg_combine_function("argmax", dtype),
            arg_rows_function("argmin", dtype, 3, 2),
            arg_axis_function("argmax", dtype, 2, 1, 8),
        ]
        if dtype != "float64":
            functions += [whole_function(op, dtype, 2, CPU_UNROLL) for op in ("min", "max")]
            functions += [axis_function(op, dtype, 2, 0, 8) for op in ("min", "max")]
        for f in functions:
            insts = [i for block in f.blocks for i in block.insts]
            ints = {j for j, d in enumerate(f.locals) if np.dtype(d).kind in "iu"}
            assert not any(isinstance(i, SelectInst) and i.dst in ints for i in insts), f.name
            assert not any(
                isinstance(i, BinaryInst) and i.op in ("min", "max") and i.dst in ints for i in insts
            )
            assert not any(isinstance(i, Atomic) and i.op in ("min", "max") for i in insts), f.name


def test_eager_reductions_take_the_form_of_their_device(rng):
    """Blocked on CPUs, in work-groups of one; strided elsewhere."""
    x = numba_ext.asarray(rng.standard_normal(5000))
    device = x._queue.device
    cpu = device.device_type == "cpu"
    used: list = []
    kernel_for = _kernels(
        lambda ndim: whole_function("sum", "float64", ndim, arrays_reductions.unroll(device))
    )
    value = WholeReduction("sum", "float64")(x, x._queue, kernel_for, used)
    assert used[0].name.endswith(f"_by{CPU_UNROLL}") == cpu
    assert (arrays_reductions.launch_work_items(5000, device)[1] == [1]) == cpu
    host = numba_ext.asnumpy(x)
    np.testing.assert_allclose(value, host.sum(), **sum_tol(host))
    np.testing.assert_allclose(float(x.sum()), host.sum(), **sum_tol(host))


@pytest.mark.parametrize("lanes", [1, 8])
@pytest.mark.parametrize("dtype", ["float64", "int32", "bool", "complex128"])
def test_axis_reductions_of_both_forms(monkeypatch, rng, lanes, dtype):
    """One result element per work-item (GPUs), or `lanes` neighbours per work-item (CPUs), for
    results shorter than, equal to and not a multiple of the lanes, in any layout."""
    monkeypatch.setattr(arrays_reductions, "axis_lanes", lambda device: lanes)
    for shape in ((1, 1), (3, 5), (8, 2), (7, 9), (4, 3, 11)):
        if dtype == "bool":
            h = rng.random(shape) < 0.5
        else:
            h = rng.integers(-3, 4, shape).astype(dtype)
            if dtype == "complex128":
                h = h + 1j * rng.integers(-3, 4, shape)
            if dtype == "float64" and h.size > 4:
                h.flat[rng.integers(0, h.size, 2)] = np.nan
        a = numba_ext.asarray(h)
        for hx, x in ((h, a), (h.T, a.T), (h[::-1], a[::-1])):
            for axis in range(h.ndim):
                for op in ("sum", "max", "mean", "any", "argmin", "argmax", "prod"):
                    if (op == "mean" and dtype == "bool") or (
                        dtype == "complex128" and op in ("max", "argmin", "argmax")
                    ):
                        continue  # NumPy's mean of bools; complex values have no order
                    build = axis_function if op not in ("argmin", "argmax") else arg_axis_function
                    kernel = _core.compile_function(build(op, dtype, hx.ndim, axis, lanes), x._queue.device)
                    want = getattr(hx, op)(axis=axis)
                    got = reduce_axis(op, x, axis, want.dtype, x._queue, lambda _, d, k=kernel: k)
                    np.testing.assert_array_equal(
                        numba_ext.asnumpy(got), want, err_msg=f"{op} {shape} {axis}"
                    )


def _reduce_in_forms(op, x, axis, out_dtype, other, contiguous):
    """``reduce_axis`` with `contiguous` as the kernel of a long contiguous axis and `other` as the
    kernel elsewhere: the result on the host, and whether `contiguous` ran."""
    used: list = []
    got = reduce_axis(op, x, axis, out_dtype, x._queue, lambda _, d: other, used, lambda _, d: contiguous)
    return numba_ext.asnumpy(got), used[0] is contiguous


@pytest.mark.parametrize(("unroll", "chunk"), [(CPU_UNROLL, ARG_CHUNK), (CPU_UNROLL, 16), (4, 4)])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "uint8", "bool"])
def test_argmin_argmax_along_rows(monkeypatch, rng, unroll, chunk, dtype):
    """The CPU form of argmin / argmax along a contiguous axis (one row per work-item, chunk by
    chunk), launched here on the default device; other layouts take the lanes form."""
    monkeypatch.setattr(arrays_reductions, "CPU_ROW_LENGTH", 1)
    monkeypatch.setattr(arrays_reductions, "_cpu", lambda device: True)
    for shape in ((1, 1), (3, 5), (4, 37), (2, 3, 300), (5, 2 * ARG_CHUNK + 3)):
        if dtype == "bool":
            h = rng.random(shape) < 0.1
        else:
            h = rng.integers(-3, 4, shape).astype(dtype)  # ties: the first one counts
        if dtype == "float64" and h.size > 4:
            h.flat[rng.integers(0, h.size, 3)] = np.nan
        if shape[0] == 4:
            h[1] = np.sort(h[1])  # every chunk beats the ones before
        a = numba_ext.asarray(h)
        for hx, x in ((h, a), (h[::-1], a[::-1]), (h.T, a.T)):
            for axis in range(h.ndim):
                for op in ("argmin", "argmax"):
                    dev = x._queue.device
                    rows = _core.compile_function(
                        arg_rows_function(op, dtype, h.ndim, axis, unroll, chunk), dev
                    )
                    lanes = _core.compile_function(arg_axis_function(op, dtype, h.ndim, axis, 8), dev)
                    want = getattr(hx, op)(axis=axis)
                    got, took_rows = _reduce_in_forms(op, x, axis, want.dtype, lanes, rows)
                    np.testing.assert_array_equal(got, want, err_msg=f"{op} {shape} {axis}")
                    assert took_rows == (hx.strides[axis] == hx.itemsize), (shape, axis)


@pytest.mark.parametrize("group", [1, 4, 32, 256])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int8", "uint32", "bool"])
def test_reductions_along_rows_by_work_groups(monkeypatch, rng, group, dtype):
    """The GPU form along a contiguous axis (a work-group per result element, the partials halved in
    local memory), launched here on the default device with work-groups of `group`: NumPy's values
    (exact for extremes, indices and truth values; sums within rounding), for rows shorter than,
    equal to and longer than the group; other layouts take the work-item form."""
    monkeypatch.setattr(arrays_reductions, "_cpu", lambda device: False)
    monkeypatch.setattr(arrays_reductions, "GROUP", group)
    monkeypatch.setattr(arrays_reductions, "GPU_GROUP_LENGTH", 1)
    ops = ("sum", "prod", "mean", "min", "max", "any", "all", "argmin", "argmax")
    for shape in ((1, 1), (3, 4), (5, 33), (2, 3, 300)):
        if dtype == "bool":
            h = rng.random(shape) < 0.3
        else:
            h = rng.integers(-3, 4, shape).astype(dtype)  # ties: the first index counts
        if dtype == "float64" and h.size > 4:
            h.flat[rng.integers(0, h.size, 3)] = np.nan
        a = numba_ext.asarray(h)
        for hx, x in ((h, a), (h[::-1], a[::-1]), (h.T, a.T)):
            axis = hx.ndim - 1
            for op in ops:
                if op == "mean" and dtype == "bool":
                    continue
                dev = x._queue.device
                grouped = _core.compile_function(axis_group_function(op, dtype, hx.ndim, axis, group), dev)
                build = arg_axis_function if op.startswith("arg") else axis_function
                single = _core.compile_function(build(op, dtype, hx.ndim, axis, 1), dev)
                monkeypatch.setattr(arrays_reductions, "axis_lanes", lambda device: 1)
                want = getattr(hx, op)(axis=axis)
                got_h, took_group = _reduce_in_forms(op, x, axis, want.dtype, single, grouped)
                assert got_h.dtype == want.dtype, op
                if want.dtype.kind == "f":
                    np.testing.assert_allclose(got_h, want, **fp_tol(dtype), err_msg=f"{op} {shape}")
                else:
                    np.testing.assert_array_equal(got_h, want, err_msg=f"{op} {shape}")
                assert took_group == (hx.strides[axis] == hx.itemsize), (shape, op)


@pytest.mark.parametrize("dtype", ["float64", "int32", "bool"])
def test_wide_lanes_where_the_result_is_contiguous(monkeypatch, rng, dtype):
    """On CPUs a reduction along an axis whose result's last dimension is contiguous in the operand
    (and long) computes ``CPU_WIDE_LANES`` result elements per work-item: forced here on the default
    device with a low length threshold; NumPy's values in every layout, the wide kernel exactly
    where the result's last dimension is contiguous."""
    monkeypatch.setattr(arrays_reductions, "axis_lanes", lambda device: arrays_reductions.CPU_AXIS_LANES)
    monkeypatch.setattr(arrays_reductions, "CPU_WIDE_RESULT", 4)
    for shape in ((9, 37), (3, 5, 21), (2, 3)):
        h = rng.random(shape) < 0.5 if dtype == "bool" else rng.integers(-3, 4, shape).astype(dtype)
        a = numba_ext.asarray(h)
        for hx, x in ((h, a), (h.T, a.T), (h[::-1], a[::-1])):
            for axis in range(h.ndim):
                for op in ("sum", "max", "argmin", "any"):
                    build = arg_axis_function if op.startswith("arg") else axis_function
                    dev = x._queue.device
                    lanes = _core.compile_function(
                        build(op, dtype, h.ndim, axis, arrays_reductions.CPU_AXIS_LANES), dev
                    )
                    wide = _core.compile_function(
                        build(op, dtype, h.ndim, axis, arrays_reductions.CPU_WIDE_LANES), dev
                    )
                    want = getattr(hx, op)(axis=axis)
                    used: list = []
                    got = reduce_axis(
                        op,
                        x,
                        axis,
                        want.dtype,
                        x._queue,
                        lambda _, d, k=lanes: k,
                        used,
                        None,
                        lambda _, d, k=wide: k,
                    )
                    np.testing.assert_array_equal(
                        numba_ext.asnumpy(got), want, err_msg=f"{op} {shape} {axis}"
                    )
                    last = hx.ndim - 1 if axis != hx.ndim - 1 else hx.ndim - 2
                    expected = hx.strides[last] == hx.itemsize and want.size >= 4
                    assert (used[0] is wide) == expected, (shape, axis, hx.strides)


@pytest.mark.parametrize("lanes", [1, 8])
@pytest.mark.parametrize("dtype", ["float64", "int64", "bool"])
def test_products_of_both_forms(monkeypatch, rng, lanes, dtype):
    """Matrix products with one result element or `lanes` neighbours per work-item."""
    monkeypatch.setattr(arrays_reductions, "axis_lanes", lambda device: lanes)
    pairs = [((3, 5), (5,)), ((5,), (5, 7)), ((7, 9), (9, 3)), ((1, 1), (1, 1)), ((2, 17), (17, 11))]
    for sa, sb in pairs:
        if dtype == "bool":
            ha, hb = rng.random(sa) < 0.5, rng.random(sb) < 0.5
        else:
            ha, hb = rng.integers(-4, 5, sa).astype(dtype), rng.integers(-4, 5, sb).astype(dtype)
        a, b = numba_ext.asarray(ha), numba_ext.asarray(hb)
        views = [(ha, hb, a, b)]
        if len(sa) == 2:
            views.append((ha.T.copy().T, hb, a.T.copy().T, b))  # a Fortran-ordered matrix
        for va_h, vb_h, va, vb in views:
            contiguous = va.flags.c_contiguous and vb.flags.c_contiguous
            function = products.product_function(dtype, va.ndim, vb.ndim, contiguous, lanes)
            kernel = _core.compile_function(function, va._queue.device)
            got = product(va, vb, np.dtype(dtype), va._queue, "device", kernel)
            np.testing.assert_array_equal(numba_ext.asnumpy(got), np.dot(va_h, vb_h), err_msg=f"{sa} {sb}")


@pytest.mark.parametrize("unroll", [1, CPU_UNROLL])
@pytest.mark.parametrize("dtype", ["uint64", "uint32", "int64", "int8"])
def test_integer_extremes_across_the_whole_range(monkeypatch, rng, unroll, dtype):
    """Unsigned values above the signed range and signed values below zero compare as NumPy's."""
    info = np.iinfo(dtype)
    for op in ("max", "min", "argmax", "argmin"):
        base = op[-3:]
        whole = WholeReduction(base, dtype)
        kernel_for = _kernels(lambda ndim, base=base: whole_function(base, dtype, ndim, unroll))
        index_of = _index_of_extreme(op, dtype, unroll) if op.startswith("arg") else None
        for n in (3, 1000, 5003):
            h = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
            h[rng.integers(0, n)] = info.max if base == "max" else info.min
            x = numba_ext.asarray(h)
            for work_items, _ in LAUNCHES:
                _launch(monkeypatch, unroll, work_items)
                if op.startswith("arg"):
                    got = int(index_of(x))
                else:
                    got = whole(x, x._queue, kernel_for)
                assert got == getattr(h, op)(), (op, n, work_items)
    lanes = 8 if unroll > 1 else 1
    monkeypatch.setattr(arrays_reductions, "axis_lanes", lambda device: lanes)
    h2 = rng.integers(info.min, info.max, (7, 9), dtype=dtype, endpoint=True)
    x2 = numba_ext.asarray(h2)
    for op in ("max", "min", "argmax"):
        build = arg_axis_function if op.startswith("arg") else axis_function
        kernel = _core.compile_function(build(op, dtype, 2, 1, lanes), x2._queue.device)
        want = getattr(h2, op)(axis=1)
        got = reduce_axis(op, x2, 1, want.dtype, x2._queue, lambda _, d, k=kernel: k)
        np.testing.assert_array_equal(numba_ext.asnumpy(got), want)
