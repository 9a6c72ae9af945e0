"""Eager ``linspace`` and ``eye``: NumPy's values, computed on the host and copied to the queue."""

from __future__ import annotations

import numpy as np
from numpy.typing import DTypeLike

from ..devices import DeviceArg, Queue, default_queue, resolve_queue
from .creation import asarray
from .dtypes import default_float
from .ndarray import ndarray


def linspace(
    start: float,
    stop: float,
    num: int = 50,
    dtype: DTypeLike | None = None,
    *,
    device: DeviceArg = None,
    usm_type: str = "device",
    sycl_queue: Queue | None = None,
    endpoint: bool = True,
) -> ndarray:
    """`num` evenly spaced values from `start` to `stop` (NumPy's ``linspace``) on the queue."""
    q = resolve_queue(device, sycl_queue) or default_queue()
    host = np.linspace(start, stop, num, endpoint=endpoint, dtype=dtype)
    if dtype is None and host.dtype.kind == "f":
        host = host.astype(default_float(q))
    return asarray(host, sycl_queue=q, usm_type=usm_type)


def eye(
    N: int,
    M: int | None = None,
    k: int = 0,
    dtype: DTypeLike | None = None,
    order: str = "C",
    *,
    device: DeviceArg = None,
    usm_type: str = "device",
    sycl_queue: Queue | None = None,
) -> ndarray:
    """An `N` x `M` array with ones on diagonal `k` and zeros elsewhere (NumPy's ``eye``), C-contiguous.
    ``order="F"`` is taken by the function in jitted code only."""
    if order != "C":
        raise ValueError(f"numba_ext.eye(order={order!r}): eager arrays are C-contiguous; use order='C'")
    q = resolve_queue(device, sycl_queue) or default_queue()
    host = np.eye(N, M, k, dtype=dtype if dtype is not None else default_float(q))
    return asarray(host, sycl_queue=q, usm_type=usm_type)
