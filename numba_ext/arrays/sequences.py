"""Eager ``linspace``, ``eye`` and ``identity``: NumPy's values, computed on the host and copied to
the queue."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import DTypeLike

from ..devices import DeviceArg, Queue, default_queue, resolve_queue
from .allocation import OrderLike
from .arguments import check_like
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
    order: OrderLike = "C",
    *,
    device: DeviceArg = None,
    usm_type: str = "device",
    sycl_queue: Queue | None = None,
    like: Any = None,
) -> ndarray:
    """An `N` x `M` array with ones on diagonal `k` and zeros elsewhere (NumPy's ``eye``, its
    arguments and errors), in memory order 'C' or 'F'."""
    check_like(like)
    q = resolve_queue(device, sycl_queue) or default_queue()
    dt = dtype if dtype is not None else default_float(q)
    host = np.eye(N, M, k, dtype=dt, order=order)  # type: ignore[arg-type]  # NumPy checks order
    return asarray(host, sycl_queue=q, usm_type=usm_type)  # 'K': keeps the host array's order


def identity(
    n: int,
    dtype: DTypeLike | None = None,
    *,
    device: DeviceArg = None,
    usm_type: str = "device",
    sycl_queue: Queue | None = None,
    like: Any = None,
) -> ndarray:
    """The `n` x `n` identity array (NumPy's ``identity``)."""
    return eye(n, dtype=dtype, device=device, usm_type=usm_type, sycl_queue=sycl_queue, like=like)
