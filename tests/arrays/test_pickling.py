"""Arrays pickle as their elements and unpickle onto the loading process's default device;
copy.copy and copy.deepcopy copy on the same queue; set_default_device moves the default."""

import copy
import pickle

import numpy as np
import pytest

import numba_ext
from tests.conftest import DEV


@pytest.fixture
def restore_default_device():
    yield
    numba_ext.set_default_device(None)


def _views(rng):
    base = rng.standard_normal((6, 8))
    return {
        "c": base,
        "f": np.asfortranarray(base),
        "strided": base[::2, 1::3],
        "transposed": base.T,
        "0-d": base[2, 3],
        "empty": base[:0],
    }


@pytest.mark.parametrize("protocol", [2, 5])
@pytest.mark.parametrize("usm_type", ["device", "shared", "host"])
def test_pickle_round_trip_keeps_values_layout_and_usm_type(rng, protocol, usm_type):
    for name, host in _views(rng).items():
        x = numba_ext.asarray(np.ascontiguousarray(host) if name != "f" else host, usm_type=usm_type)
        if name == "strided":
            x = numba_ext.asarray(rng.standard_normal((6, 8)), usm_type=usm_type)[::2, 1::3]
            host = numba_ext.asnumpy(x)
        y = pickle.loads(pickle.dumps(x, protocol=protocol))
        assert isinstance(y, numba_ext.ndarray), name
        assert y.shape == x.shape and y.dtype == x.dtype and y.usm_type == usm_type, name
        assert y.device == numba_ext.default_queue().device, name
        np.testing.assert_array_equal(numba_ext.asnumpy(y), np.asarray(host), err_msg=name)
        if name == "f":
            assert y.flags.f_contiguous and not y.flags.c_contiguous


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "int64", "float32", "complex64"])
def test_pickle_round_trip_dtypes(rng, dtype):
    host = (rng.standard_normal(37) * 50).astype(dtype)
    y = pickle.loads(pickle.dumps(numba_ext.asarray(host)))
    assert y.dtype == host.dtype
    np.testing.assert_array_equal(numba_ext.asnumpy(y), host)


def test_pickled_view_holds_only_its_elements(rng):
    big = numba_ext.asarray(rng.standard_normal(100_000))
    small = big[10:20]
    assert len(pickle.dumps(small, protocol=5)) < 2_000
    np.testing.assert_array_equal(
        numba_ext.asnumpy(pickle.loads(pickle.dumps(small))), numba_ext.asnumpy(big)[10:20]
    )


@pytest.mark.parametrize("how", [copy.copy, copy.deepcopy])
def test_copies_stay_on_the_queue_and_own_their_memory(rng, how):
    q = numba_ext.Queue(numba_ext.Device(DEV))  # not the default queue: the copy must keep it
    host = rng.standard_normal((5, 7))
    x = numba_ext.asarray(np.asfortranarray(host), sycl_queue=q, usm_type="shared")
    y = how(x)
    assert y.sycl_queue is q or y.sycl_queue == q
    assert y.usm_type == "shared" and y.flags.f_contiguous
    x[...] = -1.0
    np.testing.assert_array_equal(numba_ext.asnumpy(y), host)


def test_deepcopy_of_a_container_copies_each_array(rng):
    host = rng.standard_normal(9)
    x = numba_ext.asarray(host)
    d = copy.deepcopy({"a": x, "b": [x]})
    assert d["a"] is d["b"][0]  # the memo keeps shared references shared, as for NumPy arrays
    x[...] = 0.0
    np.testing.assert_array_equal(numba_ext.asnumpy(d["a"]), host)


def test_set_default_device_moves_unpickled_and_new_arrays(rng, restore_default_device):
    root = numba_ext.Device(DEV)
    if root.device_type != "cpu" or root.max_compute_units < 2:
        pytest.skip(
            f"needs a CPU device with 2 compute units for two sub-devices; {DEV} is a {root.device_type}"
        )
    sub = root.create_sub_devices(partition=1)[1]
    host = rng.standard_normal(16)
    payload = pickle.dumps(numba_ext.asarray(host))
    assert numba_ext.set_default_device(sub) is None
    try:
        assert numba_ext.default_queue().device == sub
        y = pickle.loads(payload)
        assert y.device == sub
        np.testing.assert_array_equal(numba_ext.asnumpy(y * 2.0), host * 2.0)
        assert numba_ext.ones(3).device == sub
    finally:
        assert numba_ext.set_default_device(None) == sub
    assert numba_ext.default_queue().device == root


def test_set_default_device_accepts_selectors_and_queues(restore_default_device):
    q = numba_ext.default_queue()
    numba_ext.set_default_device(DEV)
    assert numba_ext.default_queue().device == q.device
    numba_ext.set_default_device(q)
    assert numba_ext.default_queue().device == q.device


@pytest.mark.parametrize("bad", [3, 2.5, object()])
def test_set_default_device_refuses_other_objects(bad, restore_default_device):
    with pytest.raises(TypeError, match="set_default_device"):
        numba_ext.set_default_device(bad)


def test_set_default_device_refuses_unknown_selectors(restore_default_device):
    with pytest.raises(numba_ext.errors.DeviceSelectorError, match="nosuchdevice"):
        numba_ext.set_default_device("nosuchdevice")
    assert numba_ext.default_queue().device == numba_ext.Device(DEV)
