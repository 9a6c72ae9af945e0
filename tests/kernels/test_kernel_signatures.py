"""Kernels and device functions compiled for explicit signatures (typed when decorated, called only
with arguments of those types), asynchronous launches with dependent events, views inside kernels,
the atomics' typing, and the two kernel styles compiling to the same code."""

import re

import numpy as np
import pytest
from numba import float32, float64, int32, int64, void

import numba_ext as nx
from numba_ext.kernel_api import Item, ItemType, NdRange, Range

from ..checks import fp_tol

i64 = nx.USMNdArray(1, np.int64)
f32 = nx.USMNdArray(1, "float32")


def data_parallel_sum(item: Item, a, b, c):
    i = item.get_id(0)
    c[i] = a[i] + b[i]


def test_kernel_specialised_for_one_and_several_signatures(rng):
    one = nx.kernel((ItemType(1), i64, i64, i64))(data_parallel_sum)
    both = nx.kernel([(ItemType(1), i64, i64, i64), (f32, f32, f32)])(data_parallel_sum)
    ha, hb = rng.integers(-100, 100, 50), rng.integers(-100, 100, 50)
    c = nx.asarray(np.full(50, -1))
    nx.call_kernel(one, Range(50), nx.asarray(ha), nx.asarray(hb), c)
    np.testing.assert_array_equal(nx.asnumpy(c), ha + hb)
    fa, fb = ha.astype(np.float32) / 3, hb.astype(np.float32) / 7
    fc = nx.asarray(np.full(50, np.nan, np.float32))
    nx.call_kernel(both, Range(50), nx.asarray(fa), nx.asarray(fb), fc)
    np.testing.assert_allclose(nx.asnumpy(fc), fa + fb, rtol=1e-6)
    with pytest.raises(nx.KernelTypingError, match=r"compiled for the signatures.*not for the arguments"):
        nx.call_kernel(one, Range(50), nx.asarray(fa), nx.asarray(fb), fc)
    with pytest.raises(nx.KernelTypingError):
        nx.call_kernel(one, Range(50), nx.asarray(ha.astype(np.int32)), nx.asarray(hb), c)


def test_signature_layouts_and_strings(rng):
    @nx.kernel("void(float64[:], float64[::1], float64)")
    def axpy(x, y, a):
        i = nx.get_global_id(0)
        y[i] = a * x[i] + y[i]

    hx, hy = rng.standard_normal(64), rng.standard_normal(32)
    y = nx.asarray(hy)
    axpy[32](nx.asarray(hx)[::2], y, 3)  # strided x ("A" layout), an int converted to float64
    np.testing.assert_allclose(nx.asnumpy(y), 3 * hx[::2] + hy, **fp_tol())
    axpy[32](nx.asarray(hx)[::2], y, 3)  # again: the converted scalar keeps the Python launch path
    np.testing.assert_allclose(nx.asnumpy(y), 6 * hx[::2] + hy, **fp_tol())
    with pytest.raises(nx.KernelTypingError):  # y must be C-contiguous
        axpy[32](nx.asarray(hx)[::2], nx.asarray(hx)[::2], 1.0)


def test_signature_scalars_are_converted(rng):
    @nx.kernel(void(nx.USMNdArray(1, float32), float32))
    def scale(x, s):
        x[nx.get_global_id(0)] *= s

    hx = rng.standard_normal(16).astype(np.float32)
    x = nx.asarray(hx)
    scale[16](x, 2)  # an int for a float32 parameter
    np.testing.assert_array_equal(nx.asnumpy(x), hx * np.float32(2))

    @nx.kernel((nx.USMNdArray(1, np.int64), int64))
    def shift(x, s):
        x[nx.get_global_id(0)] += s

    with pytest.raises(nx.KernelTypingError, match="not for the arguments"):  # a float into an int
        shift[4](nx.asarray(np.zeros(4, np.int64)), 1.5)


def test_signature_errors_at_decoration():
    with pytest.raises(nx.KernelTypingError, match="could not be typed"):

        @nx.kernel((i64, f32))
        def bad(a, b):
            a[0] = b  # a float array into an int element is fine, but b is an array
            a[0] = b.missing

    with pytest.raises(nx.KernelTypingError, match="takes no item"):
        nx.kernel((ItemType(1), i64))(lambda a: None)
    with pytest.raises(TypeError, match="not a signature"):
        nx.kernel(("not a type",))(data_parallel_sum)
    with pytest.raises(TypeError, match="unknown option"):
        nx.kernel(debug=True, bogus=1)(data_parallel_sum)
    nx.kernel(debug=True, inline_threshold=2)(data_parallel_sum)  # hints are accepted


@nx.func(int32(int32))
def inc32(a):
    return a + 1


@nx.func([int32(int32), int64(int64), float64(float64)])
def inc_many(a):
    return a + 1


def test_device_function_signatures(rng):
    @nx.kernel
    def apply(item, a, b):
        i = item.get_id(0)
        b[i] = inc32(a[i])

    @nx.kernel
    def apply_many(item, a, b):
        i = item.get_id(0)
        b[i] = inc_many(a[i])

    h = rng.integers(-50, 50, 40)
    for dt in ("int32", "int64"):
        b = nx.asarray(np.full(40, -99, dt))
        apply_many[40](nx.asarray(h.astype(dt)), b)
        np.testing.assert_array_equal(nx.asnumpy(b), h + 1)
    hf = rng.standard_normal(40)
    bf = nx.asarray(np.full(40, np.nan))
    apply_many[40](nx.asarray(hf), bf)
    np.testing.assert_allclose(nx.asnumpy(bf), hf + 1, rtol=1e-15, atol=1e-14)
    # a float32 argument goes to the int32 signature (as Numba chooses among overloads): truncated
    f = (np.abs(hf) * 3).astype(np.float32)
    bf32 = nx.asarray(np.full(40, np.nan, np.float32))
    apply[40](nx.asarray(f), bf32)
    np.testing.assert_array_equal(nx.asnumpy(bf32), np.trunc(f) + 1)


def test_device_function_without_matching_signature():
    @nx.kernel
    def use(item, a):
        a[item.get_id(0)] = inc32(1j)

    with pytest.raises(nx.KernelTypingError, match="no signature for arguments"):
        use[4](nx.asarray(np.zeros(4, np.complex128)))


def test_call_kernel_async_with_dependent_events(rng):
    @nx.kernel
    def add(item, a, b, c):
        i = item.get_id(0)
        c[i] = a[i] + b[i]

    ha, hb = rng.standard_normal(1000), rng.standard_normal(1000)
    a, b = nx.asarray(ha), nx.asarray(hb)
    c, d = nx.asarray(np.full(1000, np.nan)), nx.asarray(np.full(1000, np.nan))
    host1, ev1 = nx.call_kernel_async(add, Range(1000), (), a, b, c)
    host2, ev2 = nx.call_kernel_async(add, Range(1000), [ev1], a, c, d)  # d = a + (a + b)
    ev2.wait()
    host2.wait()
    host1.wait()
    np.testing.assert_allclose(nx.asnumpy(d), ha + (ha + hb), rtol=1e-13, atol=1e-14)
    with pytest.raises(nx.KernelArgumentError, match="dependent_events"):
        nx.call_kernel_async(add, Range(1000), a, b, c, d)


def test_views_and_rows_inside_kernels(rng):
    @nx.kernel
    def row_ops(item, x, out):
        i = item.get_id(0)
        row = x[i, :]
        out[i, :] = row[::-1]  # a reversed row view assigned to a row of out
        pair = row[1:3]
        out[i, 0] += pair[0] + pair[1]
        col = x[:, 0]
        out[i, 4] = col[i] * 2.0

    hx = rng.standard_normal((12, 5))
    out = nx.asarray(np.full((12, 5), np.nan))
    row_ops[12](nx.asarray(hx), out)
    want = hx[:, ::-1].copy()
    want[:, 0] += hx[:, 1] + hx[:, 2]
    want[:, 4] = hx[:, 0] * 2.0
    np.testing.assert_allclose(nx.asnumpy(out), want, rtol=1e-13, atol=1e-14)


def test_atomic_value_of_another_kind_is_a_typing_error():
    @nx.kernel
    def bad(a):
        nx.atomic.add(a, 0, 1.5)  # a float into an integer element

    with pytest.raises(nx.KernelTypingError, match="would cast the value"):
        bad[4](nx.asarray(np.zeros(4, np.int64)))

    @nx.kernel
    def bad_dtype(a):
        nx.atomic.add(a, 0, 1)

    with pytest.raises(nx.KernelTypingError, match="not supported on int8"):
        bad_dtype[4](nx.asarray(np.zeros(4, np.int8)))

    @nx.kernel
    def fine(a, x):
        nx.atomic.add(a, 0, x[nx.get_global_id(0)] * 2.0)  # float64 into float32: same kind

    a = nx.asarray(np.zeros(1, np.float32))
    fine[8](a, nx.asarray(np.ones(8)))
    assert nx.asnumpy(a)[0] == 16.0


# -- the two styles compile to the same code -----------------------------------------------------
@nx.kernel
def saxpy_cl(a, x, y):
    i = nx.get_global_id(0)
    y[i] = a * x[i] + y[i]


@nx.kernel
def saxpy_item(item: Item, a, x, y):
    i = item.get_id(0)
    y[i] = a * x[i] + y[i]


@nx.kernel
def group_sum_cl(x, out):
    lid = nx.get_local_id(0)
    tmp = nx.local.array(64, np.float64)
    tmp[lid] = x[nx.get_global_id(0)]
    nx.barrier(nx.LOCAL_MEM_FENCE | nx.GLOBAL_MEM_FENCE)
    if lid == 0:
        s = 0.0
        for k in range(64):
            s += tmp[k]
        out[nx.get_group_id(0)] = s


@nx.kernel
def group_sum_item(it, x, tmp, out):
    lid = it.get_local_id(0)
    tmp[lid] = x[it.get_global_id(0)]
    nx.kernel_api.group_barrier(it.get_group())
    if lid == 0:
        s = 0.0
        for k in range(64):
            s += tmp[k]
        out[it.get_group().get_group_id(0)] = s


def _normalised(ir: str, name: str) -> str:
    """The LLVM IR with the kernel's and its work-group arrays' names made neutral and local value
    names numbered in order of appearance (the two front ends name their temporaries differently)."""
    ir = re.sub(rf"{name}_[0-9a-f]+", "KERNEL", ir)
    ir = re.sub(r"_local\d+", "_LOCAL", ir)  # work-group arrays are numbered among the arrays
    ir = "\n".join(line for line in ir.splitlines() if not line.startswith(("; ModuleID", "source_filename")))
    names: dict[str, str] = {}
    return re.sub(r"%[\w.]+", lambda m: names.setdefault(m.group(0), f"%v{len(names)}"), ir)


def _device_code(compiled, name: str) -> str:
    """What the device runs, normalised: the PTX on NVIDIA devices, else the (optimised) LLVM IR the
    SPIR-V is made from."""
    k = compiled.kernel
    return _normalised(k.binary.decode() if k.format == "ptx" else k.llvm_ir, name)


def test_item_and_opencl_styles_compile_to_the_same_code(rng):
    x, y = nx.asarray(rng.standard_normal(64)), nx.asarray(rng.standard_normal(64))
    cl = _device_code(saxpy_cl._prepare((2.0, x, y), None, [64], None)[1], "saxpy_cl")
    item = _device_code(saxpy_item._prepare((2.0, x, y), None, [64], None)[1], "saxpy_item")
    assert cl == item
    out = nx.asarray(np.full(2, np.nan))
    h = rng.standard_normal(128)
    group_sum_cl[128, 64](nx.asarray(h), out)
    want = h.reshape(2, 64).sum(axis=1)
    np.testing.assert_allclose(nx.asnumpy(out), want, rtol=1e-12, atol=1e-14)
    out2 = nx.asarray(np.full(2, np.nan))
    group_sum_item[NdRange(128, 64)](nx.asarray(h), nx.kernel_api.LocalAccessor(64, np.float64), out2)
    np.testing.assert_allclose(nx.asnumpy(out2), want, rtol=1e-12, atol=1e-14)
    args_cl = (nx.asarray(h), out)
    code_cl = _device_code(group_sum_cl._prepare(args_cl, None, [128], [64])[1], "group_sum_cl")
    args_item = (nx.asarray(h), nx.kernel_api.LocalAccessor(64, np.float64), out2)
    code_item = _device_code(group_sum_item._prepare(args_item, None, [128], [64])[1], "group_sum_item")
    assert code_cl == code_item
