"""Eager ``linspace``, ``eye`` and ``identity``: NumPy's values, computed on the host and copied to
the queue."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, SupportsIndex, overload

import numpy as np

from ..devices import DeviceArg, Queue, default_queue, resolve_queue
from .allocation import OrderLike
from .arguments import check_like
from .creation import asarray
from .dtypes import default_float
from .ndarray import ndarray

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, DTypeLike


@overload
def linspace(
    start: ArrayLike,
    stop: ArrayLike,
    num: SupportsIndex = 50,
    dtype: DTypeLike | None = None,
    *,
    device: DeviceArg = None,
    usm_type: str = "device",
    sycl_queue: Queue | None = None,
    endpoint: bool = True,
    retstep: Literal[False] = False,
    axis: SupportsIndex = 0,
) -> ndarray: ...
@overload
def linspace(
    start: ArrayLike,
    stop: ArrayLike,
    num: SupportsIndex = 50,
    dtype: DTypeLike | None = None,
    *,
    device: DeviceArg = None,
    usm_type: str = "device",
    sycl_queue: Queue | None = None,
    endpoint: bool = True,
    retstep: Literal[True],
    axis: SupportsIndex = 0,
) -> tuple[ndarray, Any]: ...
def linspace(
    start: Any,
    stop: Any,
    num: SupportsIndex = 50,
    dtype: Any = None,
    *,
    device: DeviceArg = None,
    usm_type: str = "device",
    sycl_queue: Queue | None = None,
    endpoint: bool = True,
    retstep: bool = False,
    axis: SupportsIndex = 0,
) -> ndarray | tuple[ndarray, Any]:
    """`num` evenly spaced values from `start` to `stop` (NumPy's ``linspace``: its values,
    arguments and errors; with `retstep`, also the step) on the queue; without `dtype`, double
    precision results are in the device's default precision."""
    q = resolve_queue(device, sycl_queue) or default_queue()
    host, step = np.linspace(start, stop, num, endpoint=endpoint, retstep=True, dtype=dtype, axis=axis)
    if dtype is None and host.dtype.char in "dD" and not q.device.has_fp64:
        host = host.astype(np.float32 if host.dtype.kind == "f" else np.complex64)
    out = asarray(host, sycl_queue=q, usm_type=usm_type)
    return (out, step) if retstep else out


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
