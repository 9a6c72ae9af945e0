"""Dask on numba_ext arrays: one array over several devices, with Dask as the scheduler.

Importing this module (``pip install numba_ext[dask]``) makes ``numba_ext.ndarray`` a Dask chunk
type, so ``dask.array`` computes on arrays whose blocks are numba_ext arrays, each block where its
data is:

* ``da.from_array(x, chunks=...)`` of a numba_ext array, or ``d.to_backend("numba_ext")`` of a
  NumPy-backed Dask array (each block copied to the device of the worker that holds it);
  ``dask.config.set({"array.backend": "numba_ext"})`` makes ``da.ones``, ``da.zeros``,
  ``da.empty``, ``da.full`` and ``da.arange`` build numba_ext blocks;
* elementwise operations, reductions (``mean``, ``std`` and ``var`` too), ``map_blocks`` with
  jitted functions and kernels, slicing, ``rechunk``, ``concatenate``, products and
  ``d.to_backend("numpy")`` run on the blocks' devices through numba_ext's eager operations.

More than one device: :func:`local_cluster` starts a ``distributed.LocalCluster`` with one worker
process per device (:func:`worker_devices`; a CPU can be split into sub-devices), each pinned to
its device by :class:`DevicePlugin` (``numba_ext.set_default_device`` in that process). A block that
moves to another worker is pickled (its elements, through the host) and lands on that worker's
device; blocks a worker creates without a queue land there too. Dask schedules; numba_ext only
places.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import numpy as np

try:
    import dask.array as da
    from dask import config as dask_config
    from dask.array.backends import ArrayBackendEntrypoint, array_creation_dispatch
    from dask.array.chunk_types import register_chunk_type
    from dask.array.dispatch import nannumel_lookup, numel_lookup, to_numpy_dispatch
    from dask.utils import Dispatch
except ImportError as e:  # pragma: no cover - exercised only without Dask installed
    raise ImportError(
        "numba_ext.dask needs Dask: pip install 'numba_ext[dask]' (dask[array] and distributed)"
    ) from e

try:  # the distributed scheduler: optional, for more than one device
    from distributed import WorkerPlugin as _WorkerPlugin
except ImportError:  # pragma: no cover - exercised only without distributed installed
    _WorkerPlugin = object  # type: ignore[assignment,misc]

from .arrays import asarray, asnumpy, empty, ndarray
from .devices import Device, default_queue, get_devices, remember_device, set_default_device
from .random import RandomState

if TYPE_CHECKING:
    from distributed import LocalCluster, Worker


# -- blocks: numba_ext.ndarray as a Dask chunk type ------------------------------------------------
def _counted_shape(x: ndarray, axis: Any, keepdims: bool) -> tuple[tuple[int, ...], int]:
    """The shape of a reduction of `x` over `axis` and how many elements each result counts."""
    axes = tuple(range(x.ndim)) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
    axes = tuple(a % x.ndim for a in axes) if x.ndim else ()
    count = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    if keepdims:
        shape = tuple(1 if a in axes else n for a, n in enumerate(x.shape))
    else:
        shape = tuple(n for a, n in enumerate(x.shape) if a not in axes)
    return shape, count


def _numel(
    x: ndarray, axis: Any = None, keepdims: bool = False, dtype: Any = np.float64, **_: Any
) -> ndarray:
    """How many elements a reduction of the block `x` counts, as an array on `x`'s queue (Dask's
    ``mean``, ``var`` and ``std`` divide by it there)."""
    shape, count = _counted_shape(x, axis, keepdims)
    return asarray(np.full(shape, count, dtype=dtype), sycl_queue=x.sycl_queue, usm_type=x.usm_type)


def _nannumel(
    x: ndarray, axis: Any = None, keepdims: bool = False, dtype: Any = np.float64, **_: Any
) -> ndarray:
    """How many elements that are not NaN a reduction of `x` counts, computed on `x`'s queue."""
    result: ndarray = (~np.isnan(x)).sum(axis=axis, keepdims=keepdims, dtype=dtype)
    return result


#: converts a block to a numba_ext array (``Array.to_backend("numba_ext")``)
to_numba_ext_dispatch = Dispatch("to_numba_ext_dispatch")


@to_numba_ext_dispatch.register(np.ndarray)
def _numpy_block_to_device(data: np.ndarray, **kwargs: Any) -> ndarray:
    """A NumPy block on the default device (a pinned worker's own device), or on ``device=``."""
    return asarray(data, **kwargs)


@to_numba_ext_dispatch.register(ndarray)
def _device_block(data: ndarray, **kwargs: Any) -> ndarray:
    return data if not kwargs else asarray(data, **kwargs)


@to_numpy_dispatch.register(ndarray)
def _device_block_to_numpy(data: ndarray, **kwargs: Any) -> np.ndarray:
    return asnumpy(data)


register_chunk_type(ndarray)
numel_lookup.register(ndarray, _numel)
nannumel_lookup.register(ndarray, _nannumel)


def _meta() -> ndarray:
    """The prototype block of new numba_ext-backed Dask arrays: an empty array on the default
    queue (on a worker, unpickled onto the worker's device)."""
    return empty((0,))


def _with_numba_ext_meta(name: str, *args: Any, meta: Any = None, **kwargs: Any) -> da.Array:
    with dask_config.set({"array.backend": "numpy"}):
        return getattr(da, name)(*args, meta=_meta() if meta is None else meta, **kwargs)


class ArrayBackend(ArrayBackendEntrypoint):
    """The Dask array backend ``"numba_ext"`` (entry point ``dask.array.backends``):
    ``dask.config.set({"array.backend": "numba_ext"})`` makes Dask's creation functions build
    numba_ext blocks, and ``Array.to_backend("numba_ext")`` converts a Dask array's blocks."""

    @classmethod
    def to_backend_dispatch(cls) -> Dispatch:
        return to_numba_ext_dispatch

    @classmethod
    def to_backend(cls, data: da.Array, **kwargs: Any) -> da.Array:
        if isinstance(data._meta, ndarray):
            return data
        converted: da.Array = data.map_blocks(cast(Any, to_numba_ext_dispatch), **kwargs)
        return converted

    @property
    def RandomState(self) -> Any:  # Dask's name
        """``da.random``'s functions under this backend: Philox numbers made on each block's
        device (``numba_ext.random.RandomState``)."""
        return RandomState

    @property
    def default_bit_generator(self) -> Any:
        raise NotImplementedError(
            "numba_ext has no bit generator for Dask's Generator API; use da.random.RandomState(seed) "
            "or the module functions (da.random.random, da.random.normal, ...) with the numba_ext backend"
        )

    @staticmethod
    def ones(*args: Any, **kwargs: Any) -> da.Array:
        return _with_numba_ext_meta("ones", *args, **kwargs)

    @staticmethod
    def zeros(*args: Any, **kwargs: Any) -> da.Array:
        return _with_numba_ext_meta("zeros", *args, **kwargs)

    @staticmethod
    def empty(*args: Any, **kwargs: Any) -> da.Array:
        return _with_numba_ext_meta("empty", *args, **kwargs)

    @staticmethod
    def full(*args: Any, **kwargs: Any) -> da.Array:
        return _with_numba_ext_meta("full", *args, **kwargs)

    @staticmethod
    def arange(*args: Any, like: Any = None, **kwargs: Any) -> da.Array:
        with dask_config.set({"array.backend": "numpy"}):
            return da.arange(*args, like=_meta() if like is None else like, **kwargs)


# The entry point ``dask.array.backends`` names the backend for Dask; registered here too, so that
# it works wherever this module is imported (a source checkout without installed metadata).
array_creation_dispatch.register_backend("numba_ext", ArrayBackend())


# -- one worker per device ------------------------------------------------------------------------
@dataclass(frozen=True)
class WorkerDevice:
    """The device a worker is pinned to: a root device (its filter string or a selector), or the
    `index`-th of `parts` equal sub-devices of it (a CPU shared by several workers, each with its
    own cores). Plain data, so it travels to worker processes; :meth:`resolve` finds the device
    there."""

    selector: str
    parts: int = 1
    index: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.selector, str):
            raise TypeError(
                f"WorkerDevice.selector must be a selector string, got {type(self.selector).__name__}"
            )
        if not (isinstance(self.parts, int) and self.parts >= 1):
            raise ValueError(f"WorkerDevice.parts must be an int >= 1, got {self.parts!r}")
        if not (isinstance(self.index, int) and 0 <= self.index < self.parts):
            raise ValueError(f"WorkerDevice.index must be in [0, {self.parts}), got {self.index!r}")

    def resolve(self) -> Device:
        """The device in this process (sub-devices are made once per process and reused)."""
        root = Device(self.selector)
        if self.parts == 1:
            return root
        key = (root.filter_string, self.parts)
        with _sub_devices_lock:
            subs = _sub_devices.get(key)
            if subs is None:
                units = root.max_compute_units
                if units < self.parts:
                    raise ValueError(
                        f"{root.filter_string} has {units} compute units; it cannot be split into "
                        f"{self.parts} sub-devices"
                    )
                subs = _sub_devices[key] = [
                    remember_device(d) for d in root.create_sub_devices(partition=units // self.parts)
                ]
        return subs[self.index]

    def __str__(self) -> str:
        return (
            self.selector if self.parts == 1 else f"{self.selector} (part {self.index + 1} of {self.parts})"
        )


_sub_devices_lock = threading.Lock()
_sub_devices: dict[tuple[str, int], list[Device]] = {}


def worker_devices(devices: Sequence[Device | str] | None = None, *, split: int = 1) -> list[WorkerDevice]:
    """One entry per Dask worker: every device in `devices` (Devices or selectors), by default
    every GPU numba_ext compiles for, else the default device; each split into `split` equal
    sub-devices (for CPUs: ``split=2`` gives two workers half of the cores each)."""
    if devices is None:
        gpus = [d for d in get_devices() if d.device_type == "gpu" and d.target is not None]
        devices = gpus or [default_queue().device]
    if isinstance(devices, (str, Device)):
        devices = [devices]
    if not (isinstance(split, int) and split >= 1):
        raise ValueError(f"split must be an int >= 1, got {split!r}")
    selectors = [d.filter_string if isinstance(d, Device) else d for d in devices]
    for s in selectors:
        if not isinstance(s, str):
            raise TypeError(f"devices must be numba_ext Devices or selector strings, got {type(s).__name__}")
    if not selectors:
        raise ValueError("worker_devices() needs at least one device")
    return [WorkerDevice(s, split, i) for s in selectors for i in range(split)]


#: the device this process's workers are pinned to (one per process: the default device is global)
_pinned: dict[str, Device] = {}


class DevicePlugin(_WorkerPlugin):
    """A Dask worker plugin (``distributed.WorkerPlugin``) that pins each worker to
    one device: the default device of the worker's process becomes the worker's entry of
    `devices`, picked by the worker's name (an int, as ``LocalCluster`` names them, or a key of a
    mapping). Blocks the worker unpickles or creates without a queue then live there, and
    computations on them run there. One worker per process: two workers of one process pinned to
    different devices is an error."""

    name = "numba_ext-device"

    def __init__(self, devices: Sequence[WorkerDevice] | Mapping[Any, WorkerDevice]) -> None:
        if not devices:
            raise ValueError("DevicePlugin needs at least one WorkerDevice")
        self.devices = devices

    def device_for(self, worker_name: Any) -> WorkerDevice:
        """The entry of `devices` for the worker named `worker_name`."""
        if isinstance(self.devices, Mapping):
            if worker_name not in self.devices:
                raise ValueError(
                    f"no device for the Dask worker {worker_name!r}; DevicePlugin has {list(self.devices)}"
                )
            return self.devices[worker_name]
        try:
            index = int(worker_name)
        except (TypeError, ValueError):
            raise ValueError(
                f"the Dask worker {worker_name!r} has no integer name; give DevicePlugin a mapping "
                "{worker name: WorkerDevice}"
            ) from None
        return self.devices[index % len(self.devices)]

    def setup(self, worker: Worker) -> None:
        spec = self.device_for(worker.name)
        device = spec.resolve()
        other = _pinned.get("device")
        if other is not None and other != device:
            raise RuntimeError(
                f"this process already has a Dask worker pinned to {other.filter_string}; pin one worker "
                f"per process (LocalCluster(processes=True)) to give {worker.name!r} {spec}"
            )
        _pinned["device"] = device
        set_default_device(device)

    def teardown(self, worker: Worker) -> None:
        if _pinned.pop("device", None) is not None:
            set_default_device(None)


def local_cluster(
    devices: Sequence[Device | str] | None = None, *, split: int = 1, **kwargs: Any
) -> LocalCluster:
    """A ``distributed.LocalCluster`` with one single-threaded worker process per entry of
    ``worker_devices(devices, split=split)``, each pinned to its device; `kwargs` go to
    ``LocalCluster``. Use it as a context manager, with ``distributed.Client(cluster)``."""
    from distributed import LocalCluster

    specs = worker_devices(devices, split=split)
    kwargs.setdefault("threads_per_worker", 1)
    kwargs.setdefault("processes", True)
    if not kwargs["processes"] and len(specs) > 1:
        raise ValueError("workers pinned to different devices need their own processes (processes=True)")
    plugins = tuple(kwargs.pop("plugins", ())) + (DevicePlugin(specs),)
    return LocalCluster(n_workers=len(specs), plugins=plugins, **kwargs)


def _default_device_name() -> str:
    return default_queue().device.filter_string


def worker_device_names(client: Any) -> dict[str, str]:
    """Each worker's address -> the filter string of the device its blocks land on."""
    result: dict[str, str] = client.run(_default_device_name)
    return result


__all__ = [
    "ArrayBackend",
    "DevicePlugin",
    "WorkerDevice",
    "local_cluster",
    "to_numba_ext_dispatch",
    "worker_device_names",
    "worker_devices",
]
