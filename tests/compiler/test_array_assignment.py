"""Whole-array, slice and mask assignment in jitted code runs on the device for every memory kind,
including the cl_mem buffer back end, where the host cannot address the arrays: compared with the
same function under numba.njit(parallel=True) on NumPy copies, outputs poisoned identically."""

import warnings

import numba
import numpy as np
import pytest

import numba_ext as nx
from numba_ext.errors import UnsupportedError

from ..checks import poison


def whole_expr(a, out):
    out[:] = a * 2.0 - 1.0


def whole_ufunc(s, d):
    d[:] = np.sqrt(s)


def whole_copy(a, out):
    out[:] = a


def whole_scalar(a, out):
    out[:] = 3.5


def shifted_slice(a, out):
    out[2:10] = a[0:8] * 2.0


def stepped_slice(a, out):
    out[::2] = a[1::2] + 1.0


def reversed_slice(a, out):
    out[::-1] = a * 3.0


def negative_bounds(a, out):
    out[-5:] = a[:5]


def mask_scalar(a, out):
    out[a > 0.5] = -1.0


def row_of_2d(a, out):
    out[3, :] = a[0, :] + 1.0


def column_of_2d(a, out):
    out[:, 1] = a[:, 2] * a[:, 0]


def rows_in_sequential_loop(a, out):
    for i in range(a.shape[0]):
        out[i, :] = a[i, :] * i


def block_2d(a, out):
    out[1:4, 2:5] = a[0:3, 0:3] - 2.0


def broadcast_row(a, out):
    out[1:3, :] = a[0, :]


def int_slice_scalar(a, out):
    out[5:] = 7


CASES = [
    (whole_expr, (101,), (101,), "float64"),
    (whole_ufunc, (101,), (101,), "float64"),
    (whole_copy, (64,), (64,), "float64"),
    (whole_scalar, (64,), (64,), "float64"),
    (shifted_slice, (13,), (13,), "float64"),
    (stepped_slice, (20,), (20,), "float64"),
    (reversed_slice, (17,), (17,), "float64"),
    (negative_bounds, (11,), (11,), "float64"),
    (mask_scalar, (97,), (97,), "float64"),
    (row_of_2d, (5, 6), (5, 6), "float64"),
    (column_of_2d, (7, 3), (7, 3), "float64"),
    (rows_in_sequential_loop, (6, 9), (6, 9), "float64"),
    (block_2d, (6, 7), (6, 7), "float64"),
    (broadcast_row, (5, 4), (5, 4), "float64"),
    (int_slice_scalar, (12,), (12,), "int64"),
    (whole_expr, (101,), (101,), "float32"),
]


# each case with one USM type, in turn, and the first with all three
USM_TYPES = ["device", "shared", "host"]
PARAMS = [(*case, USM_TYPES[k % 3]) for k, case in enumerate(CASES)] + [
    (*CASES[0], "shared"),
    (*CASES[0], "host"),
]


@pytest.mark.parametrize(
    ("func", "in_shape", "out_shape", "dtype", "usm_type"),
    PARAMS,
    ids=[f"{f.__name__}-{dt}-{u}" for f, _, _, dt, u in PARAMS],
)
def test_assignment_matches_numba_parallel(rng, func, in_shape, out_shape, dtype, usm_type):
    a = (rng.random(in_shape) * 100 if dtype.startswith("int") else rng.random(in_shape)).astype(dtype)
    init = np.full(out_shape, -999 if dtype.startswith("int") else np.nan, dtype=dtype)
    ref = init.copy()
    with warnings.catch_warnings():  # the reference: whether Numba parallelises it does not matter
        warnings.simplefilter("ignore", numba.NumbaPerformanceWarning)
        numba.njit(parallel=True)(func)(a.copy(), ref)
    poison(init.size, dtype)
    da = nx.asarray(a, usm_type=usm_type)
    dout = nx.asarray(init, usm_type=usm_type)
    nx.jit(func)(da, dout)
    got = nx.asnumpy(dout)
    assert got.dtype == ref.dtype
    if ref.dtype.kind == "f":
        np.testing.assert_allclose(got, ref, rtol=2e-6 if dtype == "float32" else 1e-13, atol=1e-14)
    else:
        np.testing.assert_array_equal(got, ref)
    np.testing.assert_array_equal(nx.asnumpy(da), a)  # inputs untouched


def test_assignment_compiles_to_kernels(rng):
    h = rng.random(20)
    a, out = nx.asarray(h), nx.asarray(np.zeros(20))
    f = nx.jit(stepped_slice)
    f(a, out)
    assert len(f.inspect_kernels(a, out)) >= 1
    want = np.zeros(20)
    want[::2] = h[1::2] + 1.0
    np.testing.assert_allclose(nx.asnumpy(out), want, rtol=1e-13, atol=1e-14)


def wider_value(a, out):
    out[0, :] = a


def test_value_of_higher_rank_is_refused_with_the_line(rng):
    a = nx.asarray(rng.random((3, 4)))
    out = nx.asarray(np.zeros((5, 4)))
    with pytest.raises((UnsupportedError, numba.core.errors.TypingError)) as info:
        nx.jit(wider_value)(a, out)
    assert "test_array_assignment.py" in str(info.value) or "setitem" in str(info.value).lower()


def mismatched_slice(a, out):
    out[::2] = a[0:3]


@pytest.mark.parametrize("n", [10, 4])
def test_slice_of_another_length_raises_value_error(rng, n):
    a, out = nx.asarray(rng.random(n)), nx.asarray(np.zeros(n))
    with pytest.raises(ValueError):
        nx.jit(mismatched_slice)(a, out)


def element_on_host(a, out):
    out[0] = a[1]


def test_element_assignment_on_the_host_needs_host_memory(rng):
    """A single element assigned outside a prange loop runs on the host: refused, with the line,
    where the host cannot address the memory; otherwise it works."""
    h = rng.random(5)
    a, out = nx.asarray(h), nx.asarray(np.zeros(5))
    if nx.default_queue().device.memory_backend == "buffer":
        with pytest.raises(UnsupportedError, match=r"(?s)cannot address.*test_array_assignment.py, line \d+"):
            nx.jit(element_on_host)(a, out)
    else:
        nx.jit(element_on_host)(a, out)
        np.testing.assert_array_equal(nx.asnumpy(out), [h[1], 0, 0, 0, 0])
