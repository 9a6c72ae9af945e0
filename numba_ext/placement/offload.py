"""``offload_to``: an explicit queue for NumPy data, per thread and nestable."""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from typing import Any

from .. import _core
from ..devices import Queue, resolve_queue

# A stack of queues per thread / async context (contextvars), no process-wide state.
_offload_stack: contextvars.ContextVar[tuple] = contextvars.ContextVar("numba_ext_offload_to", default=())


@contextlib.contextmanager
def offload_to(target: Any) -> Iterator[Queue]:
    """Run calls on NumPy data on `target` (a Queue, Device or selector string). Nestable; the
    innermost wins; each thread has its own stack."""
    q = resolve_queue(device=target)
    if q is None:
        raise TypeError("offload_to() takes a numba_ext.Queue, a Device or a selector string, got None")
    token = _offload_stack.set(_offload_stack.get() + (q,))
    _core._offload_active(1)  # while any is active, jitted calls take the full path (rust/src/python/jit.rs)
    try:
        yield q
    finally:
        _core._offload_active(-1)
        _offload_stack.reset(token)


def current_offload_queue() -> Queue | None:
    """The queue of the innermost active offload_to() of this thread, or None."""
    stack = _offload_stack.get()
    return stack[-1] if stack else None


def offload_active() -> bool:
    """Whether any offload_to() is active in this thread."""
    return bool(_offload_stack.get())
