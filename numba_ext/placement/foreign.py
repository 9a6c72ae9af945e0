"""Arguments of another SYCL runtime in calls: arrays exposing ``__sycl_usm_array_interface__``
(``dpnp.ndarray``, ``dpctl``'s / ``dpnp.tensor``'s ``usm_ndarray``) become numba_ext arrays over the
same memory (``arrays.asarray``: their queue's OpenCL context is adopted, no copy), and
``dpctl.SyclQueue`` arguments the numba_ext queue on their context and device, so compute follows
data types and places them like numba_ext's own."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..arrays import asarray, ndarray
from ..devices import as_queue, is_dpctl_queue

#: argument types that are never foreign (checked first: the common calls pay one type lookup)
_NATIVE = (ndarray, np.ndarray, int, float, complex, bool, np.generic, str, type(None))


def is_foreign(arg: Any) -> bool:
    """Whether `arg` is a USM array or queue of another runtime (see the module docstring)."""
    if isinstance(arg, _NATIVE):
        return False
    return is_dpctl_queue(arg) or hasattr(arg, "__sycl_usm_array_interface__")


def adopt_foreign(args: Sequence[Any]) -> Sequence[Any]:
    """`args` with foreign USM arrays and queues replaced by numba_ext ones on the same memory and
    OpenCL context; `args` itself when there are none."""
    if not any(is_foreign(a) for a in args):
        return args
    return [(as_queue(a) if is_dpctl_queue(a) else asarray(a)) if is_foreign(a) else a for a in args]
