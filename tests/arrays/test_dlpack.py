"""DLPack (array API 2023.12): ``ndarray.__dlpack__`` / ``__dlpack_device__`` and
``numba_ext.from_dlpack``, round trips with NumPy, capsule ownership and the refusals. Every test
runs on both memory back ends and asserts the behaviour of the one in use: USM memory is exported as
oneAPI memory (and to NumPy in place where the host can read it); ``cl_mem`` buffers
(NUMBA_EXT_FORCE_BUFFERS=1, NVIDIA) only as host copies with ``copy=True``."""

import ctypes
import gc
import weakref

import numpy as np
import pytest

import numba_ext as nx
from numba_ext import _core

from ..checks import rand
from ..conftest import DEV

DEVICE = nx.Device(DEV)
BUFFERS = DEVICE.memory_backend == "buffer"
#: the host reads device USM in place only on the CPU device
HOST_READABLE = not BUFFERS and DEVICE.device_type == "cpu"
KDL_CPU, KDL_OPENCL, KDL_ONEAPI = 1, 4, 14
INDEX = nx.get_devices().index(DEVICE)

DTYPES = [
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    pytest.param("float16", marks=pytest.mark.needs_fp16),
    "float32",
    "float64",
    "complex64",
    "complex128",
]

_name = ctypes.pythonapi.PyCapsule_GetName
_name.restype, _name.argtypes = ctypes.c_char_p, [ctypes.py_object]


def capsule_name(capsule):
    return _name(capsule).decode()


def data(rng, dtype, shape):
    n = int(np.prod(shape))
    dt = np.dtype(dtype)
    if dt.kind == "c":
        part = dt.type(0).real.dtype
        return (rand(rng, part, n) + 1j * rand(rng, part, n)).astype(dt).reshape(shape)
    return rand(rng, dt, n).reshape(shape)


def to_numpy(x):
    """``np.from_dlpack`` as each back end allows it: in place (or a copy) for USM, a copy for buffers."""
    if BUFFERS:
        with pytest.raises(BufferError, match="cl_mem buffer.*copy=True"):
            np.from_dlpack(x, device="cpu")
        return np.from_dlpack(x, device="cpu", copy=True)
    return np.from_dlpack(x, device="cpu")


def test_dlpack_device():
    x = nx.zeros(4)
    assert x.__dlpack_device__() == ((KDL_OPENCL if BUFFERS else KDL_ONEAPI), INDEX)


@pytest.mark.parametrize("dtype", DTYPES)
def test_round_trip_through_numpy_every_dtype(rng, dtype):
    h = data(rng, dtype, (7, 5))
    x = nx.asarray(h)
    n = to_numpy(x)
    assert n.dtype == h.dtype
    np.testing.assert_array_equal(n, h)
    # in place exactly where the host can read the memory
    assert (n.ctypes.data == x._data_ptr) == HOST_READABLE
    y = nx.from_dlpack(n)
    assert isinstance(y, nx.ndarray) and y.dtype == h.dtype and y.device == DEVICE
    assert y._data_ptr != x._data_ptr
    np.testing.assert_array_equal(nx.asnumpy(y), h)


VIEWS = {
    "step": np.s_[::2],
    "negative": np.s_[::-1, 1::3],
    "transpose": "T",
    "column": np.s_[:, 2],
    "element": np.s_[3, 1],
    "empty": np.s_[2:2],
    "empty-strided": np.s_[:, 4:1],
}


@pytest.mark.parametrize("key", VIEWS.values(), ids=VIEWS.keys())
@pytest.mark.parametrize("dtype", ["bool", "int16", "float32", "complex128"])
def test_views_round_trip(rng, dtype, key):
    h = data(rng, dtype, (9, 6))
    x = nx.asarray(h)
    v, hv = (x.T, h.T) if key == "T" else (x[key], h[key])
    n = to_numpy(v)
    assert n.shape == hv.shape
    np.testing.assert_array_equal(n, hv)
    if HOST_READABLE and hv.size:
        assert n.strides == v.strides and n.ctypes.data == v._data_ptr
    back = nx.from_dlpack(n)
    assert back.shape == hv.shape
    np.testing.assert_array_equal(nx.asnumpy(back), hv)
    own = nx.from_dlpack(v)
    np.testing.assert_array_equal(nx.asnumpy(own), hv)


def test_zero_dim(rng):
    h = np.asarray(rng.standard_normal())
    x = nx.asarray(h)
    n = to_numpy(x)
    assert n.shape == () and n[()] == h[()]
    y = nx.from_dlpack(np.asarray(h))
    assert y.shape == () and float(y) == h[()]


def test_from_dlpack_of_own_array(rng):
    h = rng.standard_normal((6, 4))
    x = nx.asarray(h)
    y = nx.from_dlpack(x)
    np.testing.assert_array_equal(nx.asnumpy(y), h)
    y[1, 2] = 99.0
    if BUFFERS:  # a copy through the host: the producer is untouched
        assert y._data_ptr != x._data_ptr and nx.asnumpy(x)[1, 2] == h[1, 2]
    else:  # the same memory, on the producer's queue
        assert y._data_ptr == x._data_ptr and y.sycl_queue is x.sycl_queue and y.usm_type == x.usm_type
        assert nx.asnumpy(x)[1, 2] == 99.0
    np.testing.assert_allclose(nx.asnumpy(y * 2.0 + x), nx.asnumpy(y) * 2.0 + nx.asnumpy(x))
    z = nx.from_dlpack(x, copy=True)
    assert z._data_ptr != x._data_ptr
    np.testing.assert_array_equal(nx.asnumpy(z), nx.asnumpy(x))


def test_consumer_keeps_producer_alive(rng):
    h = rng.standard_normal(50)
    x = nx.asarray(h)
    alive = weakref.ref(x)
    y = nx.from_dlpack(x)
    del x
    gc.collect()
    # USM: the imported array holds the producer until it is freed; buffers: a copy holds nothing
    assert (alive() is not None) == (not BUFFERS)
    np.testing.assert_array_equal(nx.asnumpy(y), h)
    del y
    gc.collect()
    assert alive() is None


def test_numpy_consumer_keeps_producer_alive(rng):
    h = rng.standard_normal(20)
    x = nx.asarray(h)
    alive = weakref.ref(x)
    n = to_numpy(x)
    del x
    gc.collect()
    assert (alive() is not None) == HOST_READABLE  # only an in-place view needs the producer
    np.testing.assert_array_equal(n, h)
    del n
    gc.collect()
    assert alive() is None


def test_unused_capsule_calls_the_deleter():
    x = nx.arange(10) if not BUFFERS else nx.asarray(np.arange(10.0))
    alive = weakref.ref(x)
    capsule = x.__dlpack__(max_version=(1, 0), copy=True if BUFFERS else None)
    del x
    gc.collect()
    assert (alive() is not None) == (not BUFFERS)  # a buffer export holds a host copy instead
    del capsule
    gc.collect()
    assert alive() is None


def test_consumed_capsule_is_freed_by_its_consumer():
    h = np.arange(12.0)
    alive = weakref.ref(h)
    capsule = h.__dlpack__(max_version=(1, 0))
    tensor = _core.dlpack_import(capsule)
    assert capsule_name(capsule) == "used_dltensor_versioned"
    del h, capsule
    gc.collect()
    assert alive() is not None  # NumPy's deleter has not run: the tensor holds it
    assert tensor.owner is None and tensor.device == (KDL_CPU, 0)
    del tensor
    gc.collect()
    assert alive() is None


def test_capsule_is_consumed_once():
    h = np.arange(6, dtype=np.int32)
    x = nx.asarray(h)
    capsule = x.__dlpack__(max_version=(1, 0), copy=True if BUFFERS else None)
    tensor = _core.dlpack_import(capsule)
    with pytest.raises(BufferError, match="already consumed"):
        _core.dlpack_import(capsule)
    assert tensor.shape == [6] and tensor.dtype == (0, 32, 1)
    with pytest.raises(TypeError, match="DLPack capsule"):
        _core.dlpack_import(h)


@pytest.mark.parametrize(
    ("max_version", "name"),
    [
        (None, "dltensor"),
        ((0, 8), "dltensor"),
        ((1, 0), "dltensor_versioned"),
        ((2, 3), "dltensor_versioned"),
    ],
)
def test_versioned_and_legacy_capsules(max_version, name):
    x = nx.asarray(np.arange(8, dtype=np.float32))
    capsule = x.__dlpack__(max_version=max_version, copy=True if BUFFERS else None)
    assert capsule_name(capsule) == name
    tensor = _core.dlpack_import(capsule)
    assert tensor.versioned == (name == "dltensor_versioned")
    assert tensor.is_copied == (BUFFERS and tensor.versioned)  # legacy capsules cannot say so
    assert tensor.device == ((KDL_CPU, 0) if BUFFERS else (KDL_ONEAPI, INDEX))
    assert tensor.dtype == (2, 32, 1) and tensor.shape == [8] and tensor.strides == [1]


class LegacyProducer:
    """A producer of the protocol before 2023.12: ``__dlpack__`` takes no keywords."""

    def __init__(self, x):
        self.x = x

    def __dlpack__(self):
        return self.x.__dlpack__()


def test_from_dlpack_of_a_legacy_producer(rng):
    h = rng.standard_normal((3, 4)).astype(np.float32)
    y = nx.from_dlpack(LegacyProducer(h))
    np.testing.assert_array_equal(nx.asnumpy(y), h)
    x = nx.asarray(h)
    if BUFFERS:  # no keywords: it cannot be asked for a host copy
        with pytest.raises(BufferError, match="cl_mem"):
            nx.from_dlpack(LegacyProducer(x))
    else:
        z = nx.from_dlpack(LegacyProducer(x))
        assert z._data_ptr == x._data_ptr
        np.testing.assert_array_equal(nx.asnumpy(z), h)


def test_export_refusals_and_copies():
    x = nx.asarray(np.arange(5.0))
    if BUFFERS:
        with pytest.raises(BufferError, match="cl_mem buffer"):
            x.__dlpack__(dl_device=(2, 0), copy=True)
        with pytest.raises(BufferError, match="cl_mem buffer.*no device pointer.*copy=True"):
            x.__dlpack__()
        with pytest.raises(BufferError, match="cl_mem buffer"):
            x.__dlpack__(dl_device=(KDL_OPENCL, INDEX), copy=True)
        with pytest.raises(BufferError, match="cl_mem buffer"):
            x.__dlpack__(dl_device=(KDL_CPU, 0), copy=False)
        return
    with pytest.raises(BufferError, match="dl_device=\\(2, 0\\)"):
        x.__dlpack__(dl_device=(2, 0))
    t = _core.dlpack_import(x.__dlpack__(max_version=(1, 0), dl_device=(KDL_CPU, 0), copy=False))
    assert t.device == (KDL_CPU, 0) and not t.is_copied and t.data == x._data_ptr
    t = _core.dlpack_import(x.__dlpack__(max_version=(1, 0), dl_device=(KDL_ONEAPI, INDEX), copy=True))
    assert t.device == (KDL_ONEAPI, INDEX) and t.is_copied and t.data != x._data_ptr
    assert isinstance(t.owner, nx.ndarray)
    np.testing.assert_array_equal(nx.asnumpy(t.owner), np.arange(5.0))


def test_host_usm_in_place_and_gpu_device_usm_copied():
    x = nx.asarray(np.arange(5.0), usm_type="host")
    n = to_numpy(x)
    np.testing.assert_array_equal(n, np.arange(5.0))
    if not BUFFERS:  # host USM is host-accessible on every device
        assert n.ctypes.data == x._data_ptr
    d = nx.asarray(np.arange(5.0), usm_type="device")
    if BUFFERS or HOST_READABLE:
        return  # buffers: refused above; CPU device USM: in place (test_round_trip_...)
    with pytest.raises(BufferError, match="not host-accessible"):
        d.__dlpack__(dl_device=(KDL_CPU, 0), copy=False)
    np.testing.assert_array_equal(np.from_dlpack(d, device="cpu"), np.arange(5.0))


@pytest.mark.parametrize("how", ["filter string", "device", "queue", "dlpack device"])
def test_from_dlpack_of_numpy_on_a_device(rng, how):
    h = rng.integers(-100, 100, (4, 3)).astype(np.int64)
    q = nx.Queue(DEV)
    arg = {"filter string": DEV, "device": DEVICE, "queue": q, "dlpack device": (KDL_ONEAPI, INDEX)}[how]
    y = nx.from_dlpack(h, device=arg)
    assert y.device == DEVICE and y.usm_type == "device"
    if how == "queue":
        assert y.sycl_queue is q
    np.testing.assert_array_equal(nx.asnumpy(y), h)
    h[0, 0] += 1  # a copy: later writes to the producer are not seen
    assert nx.asnumpy(y)[0, 0] == h[0, 0] - 1


def test_copy_false_refusals(rng):
    h = rng.standard_normal(6)
    with pytest.raises(BufferError, match="copy=False.*host memory"):
        nx.from_dlpack(h, copy=False)
    x = nx.asarray(h)
    if BUFFERS:
        with pytest.raises(BufferError, match="cl_mem buffer"):
            nx.from_dlpack(x, copy=False)
        return
    assert nx.from_dlpack(x, copy=False)._data_ptr == x._data_ptr
    other = nx.Queue(DEV, context=nx.Context(DEVICE))
    with pytest.raises(BufferError, match="context"):
        nx.from_dlpack(x, device=other, copy=False)
    y = nx.from_dlpack(x, device=other)
    assert y.sycl_queue is other and y._data_ptr != x._data_ptr
    np.testing.assert_array_equal(nx.asnumpy(y), h)


def test_read_only_producer(rng):
    h = rng.standard_normal(5)
    h.flags.writeable = False
    t = _core.dlpack_import(h.__dlpack__(max_version=(1, 0)))
    assert t.read_only
    np.testing.assert_array_equal(nx.asnumpy(nx.from_dlpack(h)), h)


class Bfloat16Producer:
    def __init__(self):
        self.h = np.zeros(4, np.uint16)

    def __dlpack__(self, **kwargs):
        return _core.dlpack_export(
            self.h, self.h.ctypes.data, 0, (4,), (1,), (4, 16), (KDL_CPU, 0), versioned=True,
            read_only=False, copied=False,
        )  # fmt: skip


def test_bad_arguments():
    x = nx.asarray(np.arange(3.0))
    with pytest.raises(TypeError, match="does not support DLPack"):
        nx.from_dlpack([1, 2, 3])
    with pytest.raises(ValueError, match="copy must be"):
        nx.from_dlpack(x, copy="yes")
    with pytest.raises(ValueError, match="not a numba_ext device"):
        nx.from_dlpack(x, device=(KDL_CPU, 0))
    with pytest.raises(BufferError, match="bfloat"):
        nx.from_dlpack(Bfloat16Producer())
    with pytest.raises(TypeError, match="max_version"):
        x.__dlpack__(max_version="1.0")
    with pytest.raises(TypeError, match="dl_device"):
        x.__dlpack__(dl_device=1)
    with pytest.raises(TypeError, match="stream"):
        x.__dlpack__(stream=7)
    capsule = x.__dlpack__(stream=x.sycl_queue, copy=True if BUFFERS else None)
    assert capsule_name(capsule) == "dltensor"


@pytest.mark.needs_cpu
def test_sub_device_arrays_name_their_root_device(rng):
    sub = DEVICE.create_sub_devices(partition=1)[1]
    h = rng.standard_normal(8)
    x = nx.asarray(h, device=sub)
    assert x.__dlpack_device__() == ((KDL_OPENCL if BUFFERS else KDL_ONEAPI), INDEX)
    y = nx.from_dlpack(x)
    assert y.device == sub
    np.testing.assert_allclose(nx.asnumpy(y * 2.0), h * 2.0)


class ForeignOneAPI:
    """Another runtime's oneAPI array (as dpctl's): its own capsules (not numba_ext's) and a USM array
    interface over the memory of numba_ext array `x`, naming `syclobj` as its queue."""

    def __init__(self, x, syclobj):
        self.x = x
        self.__sycl_usm_array_interface__ = {**x.__sycl_usm_array_interface__, "syclobj": syclobj}
        self.requests = []

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        self.requests.append((dl_device, copy))
        if dl_device == (KDL_CPU, 0):
            return nx.asnumpy(self.x).__dlpack__(max_version=max_version)
        ptr = self.__sycl_usm_array_interface__["data"][0]
        return _core.dlpack_export(
            self, ptr, 0, self.x.shape, (1,), (2, 8 * self.x.itemsize), (KDL_ONEAPI, INDEX), versioned=True,
            read_only=False, copied=False,
        )  # fmt: skip


def test_foreign_oneapi_memory(rng):
    h = rng.standard_normal(9)
    x = nx.asarray(h)
    ours = ForeignOneAPI(x, x.sycl_queue)  # its interface names our queue: no copy
    y = nx.from_dlpack(ours)
    assert ours.requests == [(None, None)]
    assert y.__sycl_usm_array_interface__["data"][0] == x.__sycl_usm_array_interface__["data"][0]
    assert y.sycl_queue is x.sycl_queue
    np.testing.assert_array_equal(nx.asnumpy(y), h)
    other = ForeignOneAPI(x, "another runtime's queue")  # not ours: a copy through the host
    with pytest.raises(BufferError, match="copy=False"):
        nx.from_dlpack(other, copy=False)
    z = nx.from_dlpack(other)
    assert other.requests[-2:] == [(None, None), ((KDL_CPU, 0), True)]
    assert z.__sycl_usm_array_interface__["data"][0] != x.__sycl_usm_array_interface__["data"][0]
    np.testing.assert_array_equal(nx.asnumpy(z), h)
