"""The cl_mem buffer back end (devices without USM: NVIDIA's OpenCL). These tests run where the default
device uses buffers: on an NVIDIA GPU, and on the CPU device with NUMBA_EXT_FORCE_BUFFERS=1 (`make test`
runs the whole suite a second time so). Elsewhere they are skipped with that reason."""

import math
import os
import subprocess
import sys

import numba
import numpy as np
import pytest
from numba import prange

import numba_ext as nx
from numba_ext import _core

from ..checks import fp_tol
from ..conftest import DEV

pytestmark = pytest.mark.skipif(
    nx.Device(DEV).memory_backend != "buffer",
    reason=f"{DEV} uses USM; the buffer back end is tested with NUMBA_EXT_FORCE_BUFFERS=1 (make test) "
    "or on a GPU",
)


def test_switch_selects_the_buffer_backend():
    code = "import numba_ext as nx; print(nx.default_queue().device.memory_backend)"
    env = {**os.environ, "NUMBA_EXT_FORCE_BUFFERS": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["buffer"]
    d = nx.Device(DEV)
    assert not d.has_usm


@pytest.mark.parametrize("usm_type", ["device", "shared", "host"])
@pytest.mark.parametrize("dtype", ["int8", "int32", "uint16", "float32", "float64", "bool"])
def test_round_trip_every_usm_type(rng, usm_type, dtype):
    h = (rng.standard_normal((37, 5)) * 50).astype(dtype)
    x = nx.asarray(h, usm_type=usm_type)
    assert x.usm_type == usm_type
    np.testing.assert_array_equal(nx.asnumpy(x), h)
    # each usm type keeps the CFD coercion rules on results
    y = nx.asarray(h, usm_type="shared")
    want = nx.utils.get_coerced_usm_type([usm_type, "shared"])
    if usm_type == "shared":
        assert (x == y).usm_type == want
    else:
        with pytest.warns(nx.MixedUSMTypeWarning):
            assert (x == y).usm_type == want


def test_views_read_and_write_through_offsets(rng):
    h = rng.standard_normal((12, 9))
    x = nx.asarray(h)
    for key in [np.s_[3:], np.s_[::2, 1::3], np.s_[::-1, ::-2], np.s_[5, :], np.s_[:, 4]]:
        np.testing.assert_array_equal(nx.asnumpy(x[key]), h[key])
    np.testing.assert_array_equal(nx.asnumpy(x.T), h.T)
    x[1::3, ::-2] = -7.5  # strided write: staged through the host, gaps untouched
    h[1::3, ::-2] = -7.5
    np.testing.assert_array_equal(nx.asnumpy(x), h)
    x[2:5] = x[4:7]  # overlapping copy inside one buffer
    h[2:5] = h[4:7].copy()
    np.testing.assert_array_equal(nx.asnumpy(x), h)


@pytest.mark.parametrize("n", [1, 3, 1000, 4099])
def test_fills(n):
    for dtype in ("int8", "int16", "float32", "float64", "uint64"):
        np.testing.assert_array_equal(nx.asnumpy(nx.full(n, 3, dtype=dtype)), np.full(n, 3, dtype=dtype))
        np.testing.assert_array_equal(nx.asnumpy(nx.zeros(n, dtype=dtype)), np.zeros(n, dtype=dtype))
    # a fill of a view at an offset that is not a multiple of the pattern (staged path)
    x = nx.zeros(n + 3, dtype="int8")
    x[3:] = 5
    np.testing.assert_array_equal(nx.asnumpy(x), np.r_[np.zeros(3, np.int8), np.full(n, 5, np.int8)])


def test_copies_between_arrays_and_usm_types(rng):
    h = rng.standard_normal(1001)
    x = nx.asarray(h)
    for usm in ("shared", "host", "device"):
        y = nx.asarray(x, usm_type=usm, copy=True)
        assert y.usm_type == usm and y._data_ptr != x._data_ptr
        np.testing.assert_array_equal(nx.asnumpy(y), h)
    z = x[::-3].copy()
    np.testing.assert_array_equal(nx.asnumpy(z), h[::-3])


def test_jit_fused_expression_and_prange_reduction(rng):
    h, g = rng.random(5000), rng.random(5000)

    @nx.jit
    def f(a, b):
        c = np.sqrt(a) * b + np.exp(-a)
        s = 0.0
        for i in prange(a.shape[0]):
            s += a[i] * b[i]
        return c, s, a.sum(), np.dot(a, b)

    a, b = nx.asarray(h), nx.asarray(g)
    c, s, total, dot = f(a[::1], b)
    np.testing.assert_allclose(nx.asnumpy(c), np.sqrt(h) * g + np.exp(-h), **fp_tol())
    assert s == pytest.approx(h @ g, rel=1e-12) and dot == pytest.approx(h @ g, rel=1e-12)
    assert total == pytest.approx(h.sum(), rel=1e-12)
    # views are passed to kernels as (buffer, byte offset)
    c2 = f(a[1::2], b[:2500])[0]
    np.testing.assert_allclose(nx.asnumpy(c2), np.sqrt(h[1::2]) * g[:2500] + np.exp(-h[1::2]), **fp_tol())


def test_kernel_with_local_memory_and_atomics(rng):
    @nx.kernel
    def hist(x, bins, out):
        i = nx.get_global_id(0)
        lid = nx.get_local_id(0)
        local = nx.local.array(16, np.int32)
        if lid < 16:
            local[lid] = 0
        nx.barrier()
        b = int(math.floor(x[i] * bins))
        nx.atomic.add(local, min(b, bins - 1), 1)
        nx.barrier()
        if lid < 16:
            nx.atomic.add(out, lid, local[lid])

    h = rng.random(64 * 32)
    out = nx.zeros(16, dtype="int32")
    hist[nx.NdRange((h.size,), (64,))](nx.asarray(h)[::1], 16, out)
    want = np.bincount(np.minimum((h * 16).astype(int), 15), minlength=16)
    np.testing.assert_array_equal(nx.asnumpy(out), want)


def test_host_side_element_access_is_a_compile_error():
    @numba.njit
    def total(x):
        s = 0.0
        for i in range(x.shape[0]):  # a sequential host loop
            s += x[i]
        return s

    with pytest.raises(
        nx.UnsupportedError, match=r"(?s)indexing an array element.*cannot address.*test_buffers.py, line \d+"
    ):
        total(nx.asarray(np.ones(4)))

    @numba.njit
    def first(x):
        for v in x:
            return v
        return 0.0

    with pytest.raises(nx.UnsupportedError, match="iterating over an array"):
        first(nx.asarray(np.ones(4)))

    @numba.njit
    def unpacked(x):
        a, b = x  # read on the host: it crashed the process before it was refused
        return a + b

    with pytest.raises(nx.UnsupportedError, match=r"unpacking an array \(a, b = x\)"):
        unpacked(nx.asarray(np.ones(2)))

    @numba.njit
    def host_trim(x):
        return np.trim_zeros(x)  # Numba's host implementation

    with pytest.raises(nx.UnsupportedError, match=r"calling np.trim_zeros\(\)"):
        host_trim(nx.asarray(np.ones(4)))

    @numba.njit
    def device_sort(x):
        return np.sort(x)  # the eager library's sort, on the device

    h = np.array([3.0, 1.0, 2.0])
    np.testing.assert_array_equal(nx.asnumpy(device_sort(nx.asarray(h))), np.sort(h))


def test_shapes_slices_and_device_work_need_no_host_access(rng):
    @numba.njit
    def f(x):
        y = x[1:, ::2]  # a view: no element access
        return y * 2.0 + 1.0, y.shape[0] + x.ndim

    h = rng.random((5, 6))
    r, k = f(nx.asarray(h))
    np.testing.assert_allclose(nx.asnumpy(r), h[1:, ::2] * 2.0 + 1.0)
    assert k == 6


def test_buffers_are_released():
    base = _core._live_allocations()
    xs = [nx.empty(1000 + i) for i in range(20)]
    assert _core._live_allocations() == base + 20
    live_with = _core._live_buffers()
    del xs
    assert _core._live_allocations() == base
    assert _core._live_buffers() <= live_with  # freed, or kept in the reuse pool


def test_usm_array_interface_exposes_the_buffer_address(rng):
    h = rng.random(10)
    x = nx.asarray(h)
    iface = x[2:].__sycl_usm_array_interface__
    assert iface["data"][0] == x._data_ptr and iface["offset"] == 2

    class Foreign:
        __sycl_usm_array_interface__ = iface

    y = nx.asarray(Foreign())  # zero-copy: the same buffer, at the same offset
    np.testing.assert_array_equal(nx.asnumpy(y), h[2:])
