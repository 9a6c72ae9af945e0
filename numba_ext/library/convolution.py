"""``np.convolve`` and ``np.correlate`` of numba_ext arrays on their queue: the full result by one
kernel (``ir.products.correlate_function``: one work-item per output element summing the
overlapping products, NumPy's direct method, exact for integers), the ``"same"`` and ``"valid"``
modes its slices as NumPy takes them. Host operands (lists, scalars, NumPy arrays) next to a
numba_ext array are copied to its queue, as index arrays are.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..arrays import allocate, asarray, ndarray
from ..arrays.reductions import operand, whole_groups
from ..ir.products import correlate_function
from ..placement import coerce_usm_types, execution_queue
from .compiled import kernel as _kernel

_np: Any = np  # NumPy's functions, untyped: on numba_ext arrays they dispatch to this library

_MODES = {"valid": "valid", "same": "same", "full": "full", 0: "valid", 1: "same", 2: "full"}


def _operands(a: Any, v: Any, first: str, scalars: bool) -> tuple[ndarray, ndarray]:
    """`a` and `v` as 1-d numba_ext arrays of their result dtype on one queue (0-d ones as one
    element where `scalars`, as np.convolve takes them; np.correlate refuses them), with NumPy's
    errors for deeper or empty ones."""
    named = [(n, x) for n, x in (("a", a), ("v", v)) if isinstance(x, ndarray)]
    queue = execution_queue(named)
    usm = coerce_usm_types(x.usm_type for _, x in named) or named[0][1].usm_type
    placed = [
        x if isinstance(x, ndarray) else asarray(np.asarray(x), sycl_queue=queue, usm_type=usm)
        for x in (a, v)
    ]
    if any(x.ndim > 1 for x in placed):
        raise ValueError("object too deep for desired array")
    if not scalars and any(x.ndim == 0 for x in placed):
        raise ValueError("object of too small depth for desired array")
    x, y = (p.reshape(1) if p.ndim == 0 else p for p in placed)
    if x.size == 0:
        raise ValueError(first)
    if y.size == 0:
        raise ValueError("v cannot be empty")
    dt = np.result_type(x.dtype, y.dtype)
    if dt.kind not in "biufc":
        raise TypeError(f"np.convolve / np.correlate of {dt} values is not supported")
    return (x if x.dtype == dt else _np.astype(x, dt)), (y if y.dtype == dt else _np.astype(y, dt))


def _full(a: ndarray, w: ndarray) -> ndarray:
    """``out[k] = sum_n a[n + k - (m - 1)] * w[n]`` for ``k < len(a) + len(w) - 1`` (one kernel)."""
    queue = a._queue
    usm = coerce_usm_types([a.usm_type, w.usm_type]) or a.usm_type
    dtype = a.dtype.name
    size = a.size + w.size - 1
    out = allocate((size,), a.dtype, queue, usm)
    kernel = _kernel(("correlate", dtype), lambda: correlate_function(dtype), queue.device)
    work_items, local = whole_groups(size, queue.device)
    slots = [*operand(a)[0], *operand(w)[0], out._data_ptr, size, 0]
    kernel.launch_nd(queue, slots, [work_items], local, wait=False)
    return out


def _mode(mode: Any) -> str:
    try:
        return _MODES[mode]
    except (KeyError, TypeError):
        raise ValueError(f"mode must be one of 'valid', 'same', or 'full' (got {mode!r})") from None


def convolve(a: Any, v: Any, mode: Any = "full") -> ndarray:
    """np.convolve: the discrete linear convolution of two 1-d sequences (``mode``: ``"full"``,
    ``"same"`` (the longer one's length, centred), ``"valid"`` (full overlap only))."""
    mode = _mode(mode)
    x, y = _operands(a, v, "a cannot be empty", True)
    full = _full(x, y[::-1])
    short, long = min(x.size, y.size), max(x.size, y.size)
    if mode == "same":
        start = (short - 1) // 2
        return full[start : start + long].copy()
    if mode == "valid":
        return full[short - 1 : long].copy()
    return full


def correlate(a: Any, v: Any, mode: Any = "valid") -> ndarray:
    """np.correlate: the cross-correlation ``c[k] = sum_n a[n + k] * conj(v[n])`` of two 1-d
    sequences, in NumPy's modes (default ``"valid"``) and alignment."""
    mode = _mode(mode)
    x, y = _operands(a, v, "first array argument cannot be empty", False)
    full = _full(x, _np.conjugate(y) if y.dtype.kind == "c" else y)
    n, m = x.size, y.size
    if mode == "same":
        start = (m - 1) // 2 if n >= m else n // 2
        return full[start : start + max(n, m)].copy()
    if mode == "valid":
        return full[min(n, m) - 1 : max(n, m)].copy()
    return full


#: NumPy's convolution functions on numba_ext arrays (for ``__array_function__``)
CONVOLUTION_FUNCTIONS = {np.convolve: convolve, np.correlate: correlate}
