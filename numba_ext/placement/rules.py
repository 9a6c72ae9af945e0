"""The compute-follows-data rules: queue equivalence and inference, and the USM type of results.

* All arrays on equivalent queues -> that queue (the first argument's).
* Non-equivalent queues -> ExecutionPlacementError naming each argument and its queue.
* Results get the USM type by the precedence device < shared < host; mixing USM types on one
  queue is allowed with a MixedUSMTypeWarning.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from typing import Any

from ..devices import Queue
from ..errors import ExecutionPlacementError, MixedUSMTypeWarning

# precedence: device < shared < host; the result is the *lowest* present
_USM_RANK = {"device": 0, "shared": 1, "host": 2}


def coerce_usm_types(usm_types: Iterable[str]) -> str | None:
    """The USM type of a result computed from arrays of `usm_types` (the precedence device < shared
    < host)."""
    types_ = list(usm_types)
    for t in types_:
        if t not in _USM_RANK:
            raise ValueError(f"unknown usm_type {t!r}: expected 'device', 'shared' or 'host'")
    if not types_:
        return None
    return min(types_, key=_USM_RANK.__getitem__)


def common_queue(queues: Sequence[Queue]) -> Queue | None:
    """The first queue when all are equivalent, else None."""
    if not queues:
        return None
    first = queues[0]
    for q in queues[1:]:
        if q is not first and not first.equivalent(q):
            return None
    return first


def execution_queue(named_arrays: Sequence[tuple[str, Any]], stacklevel: int = 4) -> Queue:
    """Execution queue for (name, array) pairs (at least one); raises ExecutionPlacementError
    naming every argument and its queue when the queues are not all equivalent."""
    queues = [a.queue for _, a in named_arrays]
    q = common_queue(queues)
    if q is None:
        detail = ", ".join(
            f"'{name}' on {a.queue!r} (device {a.device.filter_string}, context {a.queue.context!r})"
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
