"""numba_ext.ndarray: creation, transfer, views, the USM array interface, memory lifetime."""

import gc

import numpy as np
import pytest

import numba_ext
from numba_ext import Context, Queue, _core

from ..conftest import DEV

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
    "float32",
    "float64",
]


def random_host(rng, shape, dtype):
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.random(shape) < 0.5
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return rng.integers(max(info.min, -1000), min(info.max, 1000), size=shape, dtype=dt)
    return rng.standard_normal(shape).astype(dt)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(17,), (3, 5), (2, 3, 4), (), (0,), (4, 0)])
def test_roundtrip_and_attributes(rng, dtype, shape):
    h = random_host(rng, shape, dtype)
    x = numba_ext.asarray(h)
    assert isinstance(x, numba_ext.ndarray)
    assert x.shape == h.shape and x.dtype == h.dtype and x.ndim == h.ndim and x.size == h.size
    if h.size:
        assert x.strides == np.empty(h.shape, h.dtype).strides
    assert x.usm_type == "device"
    assert x.sycl_queue == numba_ext.default_queue() and x.device == x.sycl_queue.device
    np.testing.assert_array_equal(numba_ext.asnumpy(x), h)


@pytest.mark.parametrize("usm_type", ["device", "shared", "host"])
def test_usm_types(rng, usm_type):
    h = rng.standard_normal(100)
    x = numba_ext.asarray(h, usm_type=usm_type)
    assert x.usm_type == usm_type
    np.testing.assert_array_equal(numba_ext.asnumpy(x), h)


def test_unknown_usm_type_and_dtype():
    with pytest.raises(ValueError, match="usm_type"):
        numba_ext.asarray([1.0], usm_type="pinned")
    with pytest.raises(ValueError, match="usm_type"):
        numba_ext.empty(3, usm_type="global")
    with pytest.raises(TypeError, match="unsupported dtype"):
        numba_ext.asarray(np.ones(3, np.clongdouble))
    with pytest.raises(TypeError, match="unsupported dtype"):
        numba_ext.empty(3, dtype="U3")
    with pytest.raises(ValueError, match="negative"):
        numba_ext.empty((-1, 2))


def test_sycl_usm_array_interface(rng):
    h = rng.standard_normal((6, 4))
    x = numba_ext.asarray(h)
    iface = x.__sycl_usm_array_interface__
    assert iface["shape"] == (6, 4)
    assert iface["strides"] is None
    assert iface["typestr"] == "<f8"
    assert iface["offset"] == 0 and iface["version"] == 1
    assert iface["syclobj"] is x.sycl_queue
    assert iface["data"] == (x._data_ptr, False)
    v = x[1:5:2, ::-1]
    vi = v.__sycl_usm_array_interface__
    assert vi["data"][0] == iface["data"][0]  # same allocation base
    assert vi["strides"] == (8, -1)  # in elements, dpctl's convention
    assert vi["offset"] == 1 * 4 + 3
    np.testing.assert_array_equal(numba_ext.asnumpy(v), h[1:5:2, ::-1])


def test_views_keep_queue_and_usm_type(rng):
    h = rng.standard_normal((5, 6, 7))
    x = numba_ext.asarray(h, usm_type="shared")
    for key in [
        (slice(None, None, 2),),
        (1,),
        (slice(None), slice(None, None, -1)),
        (Ellipsis, 3),
        (None, 2),
    ]:
        v = x[key]
        assert v.sycl_queue is x.sycl_queue and v.usm_type == "shared"
        np.testing.assert_array_equal(numba_ext.asnumpy(v), h[key])
    np.testing.assert_array_equal(numba_ext.asnumpy(x.T), h.T)
    np.testing.assert_array_equal(numba_ext.asnumpy(x.reshape(30, 7)), h.reshape(30, 7))
    # no view can read x.T in C order: a copy, as NumPy's; copy=False refuses it as NumPy does
    np.testing.assert_array_equal(numba_ext.asnumpy(x.T.reshape(-1)), h.T.reshape(-1))
    with pytest.raises(ValueError, match="avoid creating a copy"):
        x.T.reshape(-1, copy=False)
    # integer arrays and masks index on the device (tests/library/test_indexing.py); a slice before an
    # integer array is refused, naming the forms taken
    np.testing.assert_array_equal(numba_ext.asnumpy(x[[0, 1]]), h[[0, 1]])
    with pytest.raises(IndexError, match="integer arrays and integers for the leading dimensions"):
        x[:, [0, 1]]


def test_setitem(rng):
    h = rng.standard_normal((4, 5))
    x = numba_ext.asarray(h)
    x[1:3, ::2] = 7.5
    h[1:3, ::2] = 7.5
    x[0] = np.arange(5)
    h[0] = np.arange(5)
    np.testing.assert_array_equal(numba_ext.asnumpy(x), h)


def test_creation_functions(queue):
    z = numba_ext.zeros((3, 4), dtype="int32")
    assert z.dtype == np.int32
    np.testing.assert_array_equal(numba_ext.asnumpy(z), np.zeros((3, 4), np.int32))
    o = numba_ext.ones(5, usm_type="host")
    assert o.usm_type == "host"
    np.testing.assert_array_equal(numba_ext.asnumpy(o), np.ones(5))
    f = numba_ext.full((2, 2), -3.25, dtype="float32", device=DEV)
    np.testing.assert_array_equal(numba_ext.asnumpy(f), np.full((2, 2), -3.25, np.float32))
    r = numba_ext.arange(2, 20, 3, sycl_queue=queue)
    assert r.sycl_queue is queue
    np.testing.assert_array_equal(numba_ext.asnumpy(r), np.arange(2, 20, 3))
    e = numba_ext.empty((2, 3), dtype="int64", device=queue)
    assert e.shape == (2, 3) and e.sycl_queue is queue
    b = numba_ext.full(4, True)
    assert b.dtype == np.bool_ and numba_ext.asnumpy(b).all()
    nd = numba_ext.ndarray((2, 2), dtype="float32")
    assert nd.shape == (2, 2) and nd.dtype == np.float32


def test_device_and_queue_keywords(queue):
    q = Queue(DEV)
    assert numba_ext.empty(3, sycl_queue=q).sycl_queue is q
    assert numba_ext.empty(3, device=q).sycl_queue is q
    assert numba_ext.empty(3, device=q.device).device == q.device
    with pytest.raises(ValueError, match="disagree"):
        numba_ext.empty(3, device=q, sycl_queue=Queue(q.device, context=Context(q.device)))
    with pytest.raises(TypeError):
        numba_ext.empty(3, sycl_queue="cpu")
    with pytest.raises(ValueError):
        numba_ext.empty(3, device="opencl:gpu:9")


def test_asarray_no_copy_and_copy_rules(rng, queue):
    x = numba_ext.asarray(rng.standard_normal(10), sycl_queue=queue)
    assert numba_ext.asarray(x) is x
    assert numba_ext.asarray(x, sycl_queue=queue, usm_type="device", dtype="float64") is x
    # an equivalent queue: same memory, the new queue
    q2 = Queue(queue.device)
    y = numba_ext.asarray(x, sycl_queue=q2)
    assert y._data_ptr == x._data_ptr and y.sycl_queue is q2
    # copies
    c = numba_ext.asarray(x, copy=True)
    assert c._data_ptr != x._data_ptr
    np.testing.assert_array_equal(numba_ext.asnumpy(c), numba_ext.asnumpy(x))
    s = numba_ext.asarray(x, usm_type="shared")
    assert s.usm_type == "shared" and s._data_ptr != x._data_ptr
    f32 = numba_ext.asarray(x, dtype="float32")
    assert f32.dtype == np.float32
    np.testing.assert_allclose(numba_ext.asnumpy(f32), numba_ext.asnumpy(x).astype(np.float32))
    with pytest.raises(ValueError, match="copy=False"):
        numba_ext.asarray(x, usm_type="host", copy=False)
    with pytest.raises(ValueError, match="copy=False"):
        numba_ext.asarray([1, 2, 3], copy=False)
    # another context: a copy
    other = Queue(queue.device, context=Context(queue.device))
    z = x.to_device(other)
    assert z.sycl_queue is other and z._data_ptr != x._data_ptr
    np.testing.assert_array_equal(numba_ext.asnumpy(z), numba_ext.asnumpy(x))


def test_asarray_from_lists_and_scalars():
    x = numba_ext.asarray([[1, 2], [3, 4]])
    assert x.dtype == np.int64 and x.shape == (2, 2)
    assert int(numba_ext.asarray(7)) == 7
    assert float(numba_ext.asarray([2.5])) == 2.5


class _Foreign:
    """Some other library's array exposing the SYCL USM array interface."""

    def __init__(self, arr):
        self._arr = arr
        self.__sycl_usm_array_interface__ = arr.__sycl_usm_array_interface__
        self.usm_type = arr.usm_type


def test_asarray_from_sycl_usm_array_interface(rng):
    h = rng.standard_normal((4, 6))
    x = numba_ext.asarray(h, usm_type="shared")
    v = x[1:, ::2]
    y = numba_ext.asarray(_Foreign(v))
    assert y._data_ptr == v._data_ptr  # no copy
    assert y.usm_type == "shared" and y.sycl_queue is x.sycl_queue
    np.testing.assert_array_equal(numba_ext.asnumpy(y), h[1:, ::2])

    class _Alien:
        __sycl_usm_array_interface__ = {
            "data": (0, False),
            "shape": (1,),
            "typestr": "<f8",
            "version": 1,
            "syclobj": "some-other-queue",
        }

    with pytest.raises(TypeError, match="not a numba_ext.Queue"):
        numba_ext.asarray(_Alien())


def test_no_implicit_host_conversion():
    x = numba_ext.ones(3)
    with pytest.raises(TypeError, match="asnumpy"):
        np.asarray(x)


def test_memory_freed_with_last_reference(rng):
    gc.collect()
    before = _core._live_allocations()
    x = numba_ext.asarray(rng.standard_normal(1000))
    v = x[::2]
    assert _core._live_allocations() == before + 1
    del x
    gc.collect()
    assert _core._live_allocations() == before + 1  # the view keeps the memory
    np.testing.assert_array_equal(numba_ext.asnumpy(v).shape, (500,))
    del v
    gc.collect()
    assert _core._live_allocations() == before


def test_repr():
    r = repr(numba_ext.asarray([1.5, 2.5]))
    assert "1.5" in r and "usm_type='device'" in r
