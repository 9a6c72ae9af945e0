"""Dask's distributed scheduler with one worker process per device: each worker is pinned to its
device, blocks that move between workers land on the receiving worker's device, and results match
NumPy."""

import dask.array as da
import numpy as np
import pytest

import numba_ext
import numba_ext.dask as ned
from tests.conftest import DEV

distributed = pytest.importorskip("distributed")

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
]


def _device_of_block(x):
    """A task: which device a block is on, in the worker that runs it."""
    return np.array([x.device.filter_string], dtype=object)


def _new_array_device():
    return numba_ext.ones(2).device.filter_string


def _device_name(x):
    return x.device.filter_string


def _cluster(**kwargs):
    # a free port for the scheduler's HTTP server (None still takes 8787, which another cluster may hold)
    return ned.local_cluster(dashboard_address=":0", silence_logs=50, **kwargs)


def _two_workers():
    root = numba_ext.Device(DEV)
    if root.device_type == "cpu" and root.max_compute_units >= 2:
        return {"devices": [DEV], "split": 2}  # two sub-devices, each with its own cores
    return {"devices": [DEV, DEV]}  # two workers sharing the one device


def test_worker_devices_default_and_split():
    specs = ned.worker_devices()
    assert specs and all(isinstance(s, ned.WorkerDevice) for s in specs)
    assert [s.resolve() for s in ned.worker_devices([DEV])] == [numba_ext.Device(DEV)]
    root = numba_ext.Device(DEV)
    if root.device_type == "cpu" and root.max_compute_units >= 2:
        parts = ned.worker_devices([DEV], split=2)
        subs = [p.resolve() for p in parts]
        assert subs[0] != subs[1] and all(s.parent_device == root for s in subs)
        assert [p.resolve() for p in parts] == subs  # made once per process
        assert "part 2 of 2" in str(parts[1])


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"devices": [DEV], "split": 0}, ValueError, "split"),
        ({"devices": []}, ValueError, "at least one"),
        ({"devices": [3]}, TypeError, "selector"),
    ],
)
def test_worker_devices_refuses_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        ned.worker_devices(**kwargs)


def test_worker_device_refuses_impossible_splits():
    with pytest.raises(ValueError, match="index"):
        ned.WorkerDevice(DEV, 2, 2)
    units = numba_ext.Device(DEV).max_compute_units
    with pytest.raises(ValueError, match="cannot be split"):
        ned.WorkerDevice(DEV, units + 1, 0).resolve()


def test_device_plugin_picks_by_worker_name():
    specs = ned.worker_devices([DEV, DEV])
    plugin = ned.DevicePlugin(specs)
    assert plugin.device_for(1) is specs[1] and plugin.device_for("3") is specs[1]
    with pytest.raises(ValueError, match="mapping"):
        plugin.device_for("tcp://worker-a")
    named = ned.DevicePlugin({"a": specs[0]})
    assert named.device_for("a") is specs[0]
    with pytest.raises(ValueError, match="no device for the Dask worker 'b'"):
        named.device_for("b")


def test_threaded_workers_on_different_devices_are_refused():
    with pytest.raises(ValueError, match="processes=True"):
        ned.local_cluster([DEV, DEV], processes=False)


def test_two_pinned_workers_compute_where_their_blocks_are(rng):
    kwargs = _two_workers()
    expected = [s.resolve().filter_string for s in ned.worker_devices(**kwargs)]
    host = rng.standard_normal((4000, 16))
    with _cluster(**kwargs) as cluster, distributed.Client(cluster) as client:
        pinned = ned.worker_device_names(client)
        assert sorted(pinned.values()) == sorted(expected)

        # arrays a worker creates without a queue land on its device
        made_there = client.run(_new_array_device)
        assert made_there == pinned
        # a block made on one worker and used on the other moves to the other's device
        (a, da_), (b, db) = sorted(pinned.items())
        block = client.submit(numba_ext.asarray, host[:10], workers=[a], pure=False)
        assert client.submit(_device_name, block, workers=[a], pure=False).result() == da_
        assert client.submit(_device_name, block, workers=[b], pure=False).result() == db

        d = da.from_array(host, chunks=(500, 16)).to_backend("numba_ext")
        d = client.persist(d)
        where = d.map_blocks(_device_of_block, dtype=object, chunks=(1,), drop_axis=1).compute()
        assert set(where) <= set(expected)

        centered = d - d.mean(axis=0)  # blocks meet on one worker for the mean, then come back
        got = client.compute((centered**2).sum(axis=0)).result()
        assert isinstance(got, numba_ext.ndarray)
        assert got.device == numba_ext.default_queue().device  # unpickled here, on this process's device
        np.testing.assert_allclose(
            numba_ext.asnumpy(got), ((host - host.mean(axis=0)) ** 2).sum(axis=0), rtol=1e-10
        )

        @numba_ext.jit
        def scaled(x, a):
            return np.sqrt(x * x + a)

        got = d.map_blocks(scaled, 1.5).to_backend("numpy").compute()
        assert type(got) is np.ndarray
        np.testing.assert_allclose(got, np.sqrt(host * host + 1.5), rtol=1e-12)
