"""Compute follows data: the one place where the execution queue and the USM type of results are
decided from the data (spec: 000/001 rules 1-3, NumPy rules, output USM-type table).

* All arrays on equivalent queues -> that queue (the first argument's).
* Non-equivalent queues -> ExecutionPlacementError naming each argument and its queue.
* Results get the USM type by the precedence device < shared < host; mixing USM types on one
  queue is allowed with a MixedUSMTypeWarning.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence

from .errors import ExecutionPlacementError, MixedUSMTypeWarning

# precedence: device < shared < host; the result is the *lowest* present (spec table)
_USM_RANK = {"device": 0, "shared": 1, "host": 2}


def coerce_usm_types(usm_types: Iterable[str]) -> str | None:
    """The USM type of a result computed from arrays of `usm_types` (spec's 3x3 table)."""
    types_ = list(usm_types)
    for t in types_:
        if t not in _USM_RANK:
            raise ValueError(f"unknown usm_type {t!r}: expected 'device', 'shared' or 'host'")
    if not types_:
        return None
    return min(types_, key=_USM_RANK.__getitem__)


def common_queue(queues: Sequence):
    """The first queue when all are equivalent, else None."""
    if not queues:
        return None
    first = queues[0]
    for q in queues[1:]:
        if q is not first and not first.equivalent(q):
            return None
    return first


def execution_queue(named_arrays: Sequence[tuple[str, object]], stacklevel: int = 4):
    """Execution queue for arrays given as (name, array) pairs; raises ExecutionPlacementError
    naming every argument and its queue when the queues are not all equivalent."""
    queues = [a.sycl_queue for _, a in named_arrays]
    q = common_queue(queues)
    if q is None and queues:
        detail = ", ".join(
            f"'{name}' on {a.sycl_queue!r} (device {a.device.filter_string}, context {a.sycl_queue.context!r})"
            for name, a in named_arrays
        )
        raise ExecutionPlacementError(
            "cannot infer the execution queue: arguments are on non-equivalent queues (compute follows "
            f"data): {detail}. Copy the data to one queue first, e.g. numba_ext.asarray(x, sycl_queue=q)"
        )
    usm = {a.usm_type for _, a in named_arrays}
    if len(usm) > 1:
        warnings.warn(
            f"arrays of different USM types {sorted(usm)} are used together on one queue; this works "
            "but may cost performance",
            MixedUSMTypeWarning,
            stacklevel=stacklevel,
        )
    return q


# -- offload_to: an explicit queue for NumPy data --------------------------------------------------
import contextlib  # noqa: E402
import contextvars  # noqa: E402

import numpy as np  # noqa: E402

from .errors import QueueMismatchWarning  # noqa: E402

# A stack of queues per thread / async context (contextvars), no process-wide state.
_offload_stack: contextvars.ContextVar[tuple] = contextvars.ContextVar("numba_ext_offload_to", default=())


@contextlib.contextmanager
def offload_to(target):
    """Run calls on NumPy data on `target` (a Queue, Device or selector string). Nestable; the
    innermost wins; each thread has its own stack."""
    from . import _core
    from .runtime import resolve_queue

    q = resolve_queue(device=target)
    token = _offload_stack.set(_offload_stack.get() + (q,))
    _core._offload_active(1)  # while any is active, jitted calls take the full path (rust/src/python/jit.rs)
    try:
        yield q
    finally:
        _core._offload_active(-1)
        _offload_stack.reset(token)


def current_offload_queue():
    stack = _offload_stack.get()
    return stack[-1] if stack else None


class CallPlan:
    """How one call runs: the execution queue, the arguments to pass, and what to do afterwards
    (copy NumPy arguments back, turn device results into NumPy arrays)."""

    __slots__ = ("queue", "args", "_host_args", "_host_results")

    def __init__(self, queue, args, host_args=(), host_results=False):
        self.queue = queue
        self.args = args
        self._host_args = host_args  # (original numpy array, device copy) pairs
        self._host_results = host_results

    def finish(self, result):
        if not self._host_args and not self._host_results:
            return result
        from .creation import asnumpy

        for host, dev in self._host_args:
            host[...] = asnumpy(dev)
        if not self._host_results:
            return result
        return _map_arrays(result, asnumpy)


def _map_arrays(obj, fn):
    from .array import ndarray

    if isinstance(obj, ndarray):
        return fn(obj)
    if isinstance(obj, tuple):
        return tuple(_map_arrays(o, fn) for o in obj)
    return obj


def plan_call(
    what: str, names: Sequence[str], args: Sequence, *, allow_host_and_usm: bool, stacklevel: int = 4
) -> CallPlan:
    """Apply compute follows data to one call of `what` (a function or kernel name).

    * USM arrays only: they must be on equivalent queues; that queue runs the call (inside
      offload_to, a queue that is not equivalent to the data's gets a QueueMismatchWarning).
    * NumPy arrays only: an error unless offload_to() names a queue; then they are copied there,
      and copied back after the call.
    * Both: an error inside offload_to (the NumPy data's queue cannot be inferred); outside it, only
      if `allow_host_and_usm` is false (kernels). Jitted functions may take both as long as no
      expression mixes them (checked when compiling).
    """
    from .array import ndarray
    from .creation import asarray

    # Fast path (the common call): every array argument is a numba_ext array on one queue object,
    # with one USM type, and no offload_to is active.
    q0 = usm0 = None
    for a in args:
        if type(a) is ndarray:
            if q0 is None:
                q0, usm0 = a._queue, a._usm_type
            elif a._queue is not q0 or a._usm_type != usm0:
                break
        elif isinstance(a, (np.ndarray, ndarray)):
            break
    else:
        if not _offload_stack.get():
            return CallPlan(q0, args)

    names = list(names) + [f"arg{i}" for i in range(len(names), len(args))]
    usm = [(n, a) for n, a in zip(names, args) if isinstance(a, ndarray)]
    host = [n for n, a in zip(names, args) if isinstance(a, np.ndarray)]
    ctx_q = current_offload_queue()
    if host and usm and (ctx_q is not None or not allow_host_and_usm):
        where = f" inside offload_to({ctx_q!r})" if ctx_q is not None else ""
        raise ExecutionPlacementError(
            f"{what}: NumPy arrays ({', '.join(repr(n) for n in host)}) and numba_ext arrays "
            f"({', '.join(repr(n) for n, _ in usm)}) cannot be mixed in one call{where}: the queue of the "
            "NumPy data cannot be inferred (compute follows data). Convert the NumPy arrays with "
            "numba_ext.asarray(x, sycl_queue=<the numba_ext arrays' queue>)"
        )
    if usm:
        q = execution_queue(usm, stacklevel=stacklevel + 1)
        if ctx_q is not None and not ctx_q.equivalent(q):
            warnings.warn(
                f"{what}: offload_to({ctx_q!r}) is active, but the data lives on {q!r}; the call follows "
                "the data",
                QueueMismatchWarning,
                stacklevel=stacklevel,
            )
        return CallPlan(q, list(args))
    if host:
        if ctx_q is None:
            raise ExecutionPlacementError(
                f"{what}: all array arguments ({', '.join(repr(n) for n in host)}) are NumPy arrays, so "
                "there is no queue to run on (compute follows data). Either pass numba_ext arrays "
                "(numba_ext.asarray(x, device=...)) or choose a queue explicitly:\n"
                "    with numba_ext.offload_to(q):\n        ..."
            )
        new_args, pairs = [], []
        for a in args:
            if isinstance(a, np.ndarray):
                d = asarray(a, sycl_queue=ctx_q)
                pairs.append((a, d))
                new_args.append(d)
            else:
                new_args.append(a)
        return CallPlan(
            ctx_q, new_args, host_args=[(h, d) for h, d in pairs if h.flags.writeable], host_results=True
        )
    return CallPlan(None, list(args))
