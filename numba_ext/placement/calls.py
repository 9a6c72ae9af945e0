"""The call planner: compute follows data applied to the arguments of one call (of a jitted
function, a kernel or an eager operation)."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..arrays import asarray, asnumpy, ndarray
from ..devices import Queue
from ..errors import ExecutionPlacementError, QueueMismatchWarning
from .foreign import adopt_foreign
from .offload import current_offload_queue, offload_active
from .rules import execution_queue


class CallPlan:
    """How one call runs: the execution queue, the arguments to pass, and what to do afterwards
    (copy NumPy arguments back, turn device results into NumPy arrays)."""

    __slots__ = ("queue", "args", "_host_args", "_host_results", "_copies")

    def __init__(
        self,
        queue: Queue | None,
        args: Sequence,
        host_args: Sequence = (),
        host_results: bool = False,
        copies: Sequence = (),
    ) -> None:
        self.queue = queue
        self.args = args
        self._host_args = host_args  # (original numpy array, device copy) pairs to copy back
        self._host_results = host_results
        self._copies = copies  # (original numpy array, device copy) of every NumPy argument

    def finish(self, result: Any) -> Any:
        """`result` after the call: NumPy arguments updated, device results as NumPy arrays when the
        call ran on NumPy data."""
        if not self._host_args and not self._host_results:
            return result
        for host, dev in self._host_args:
            host[...] = asnumpy(dev)
        if not self._host_results:
            return result
        # a result that is an argument's device copy is that argument (as ``f(a) is a`` on device data)
        originals = {id(dev): host for host, dev in self._copies}
        return _map_arrays(result, lambda r: originals.get(id(r)) if id(r) in originals else asnumpy(r))


def _map_arrays(obj: Any, fn: Callable[[ndarray], Any]) -> Any:
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
    * No arrays: the first ``numba_ext.Queue`` among the arguments (a jitted function that allocates
      with ``sycl_queue=`` it), else None. Arrays made inside on another queue and used with the
      arguments are refused when they meet (in compiled code).
    """
    args = adopt_foreign(args)  # dpnp / dpctl arrays and queues: ours on the same memory and context
    q0 = common_case_queue(args)
    if q0 is not None and not offload_active():
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
        return _plan_host_arrays(what, args, host, ctx_q)
    # no arrays: a queue passed in (for sycl_queue= inside) is where the call's allocations go
    return CallPlan(next((a for a in args if isinstance(a, Queue)), None), list(args))


def common_case_queue(args: Sequence[Any]) -> Queue | None:
    """The queue of the common call: every array argument a numba_ext array on one queue object, with
    one USM type (None otherwise, or without array arguments)."""
    q0 = usm0 = None
    for a in args:
        if type(a) is ndarray:
            if q0 is None:
                q0, usm0 = a._queue, a._usm_type
            elif a._queue is not q0 or a._usm_type != usm0:
                return None
        elif isinstance(a, (np.ndarray, ndarray)):
            return None
    return q0


def _plan_host_arrays(what: str, args: Sequence[Any], host: list[str], ctx_q: Queue | None) -> CallPlan:
    """NumPy arrays only: copied to the offload_to queue (and the writable ones back after the call);
    an error without offload_to."""
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
        ctx_q,
        new_args,
        host_args=[(h, d) for h, d in pairs if h.flags.writeable],
        host_results=True,
        copies=pairs,
    )
