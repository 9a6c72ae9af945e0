"""Unique values of numba_ext arrays on their device (``np.unique`` and the array API's
``unique_*``): a stable sort of the flattened elements, each compared with its neighbour, the first
of each run compacted; the inverse indices through the inverse of the sorting permutation, the
counts from the runs' starts. Every step is an eager operation on the array's queue."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..arrays import full, ndarray
from ..errors import UnsupportedError
from . import gather, sorting
from .manipulation import concatenate

_np: Any = np  # NumPy's functions, untyped: on numba_ext arrays they dispatch to this library


class Unique(NamedTuple):
    """The unique values, the flat index of each one's first occurrence, each element's value index
    (in the flattened array) and each value's count."""

    values: ndarray
    indices: ndarray
    inverse: ndarray
    counts: ndarray


def unique(x: ndarray, equal_nan: bool) -> Unique:
    """The unique values of `x` flattened, sorted (NaNs last: one value when `equal_nan`, else each
    its own, as the array API has it)."""
    flat = x.reshape(-1)
    n = flat.shape[0]
    order = sorting.argsort(flat)
    ordered = gather.take(flat, order)
    queue, usm_type = flat.sycl_queue, flat.usm_type
    starts = full(flat.shape, True, dtype=bool, sycl_queue=queue, usm_type=usm_type)
    if n > 1:
        differ = _np.not_equal(ordered[1:], ordered[:-1])
        if equal_nan and x.dtype.kind in "fc":
            both_nan = _np.logical_and(_np.isnan(ordered[1:]), _np.isnan(ordered[:-1]))
            differ = _np.logical_and(differ, _np.logical_not(both_nan))
        starts[1:] = differ
    first = gather.flatnonzero(starts)
    groups = _np.subtract(_np.cumsum(starts), 1)
    ends = concatenate([first[1:], full((1,), n, dtype=np.int64, sycl_queue=queue, usm_type=first.usm_type)])
    return Unique(
        gather.take(ordered, first),
        gather.take(order, first),
        gather.take(groups, sorting.argsort(order)),
        _np.subtract(ends, first),
    )


def np_unique(
    ar: ndarray,
    return_index: bool = False,
    return_inverse: bool = False,
    return_counts: bool = False,
    axis: int | None = None,
    *,
    equal_nan: bool = True,
    sorted: bool = True,
) -> Any:
    """``np.unique`` on the device (``axis=None`` only: the flattened array's values)."""
    if axis is not None:
        raise UnsupportedError(
            "np.unique(axis=...) of numba_ext arrays is not supported; np.unique(x) gives the unique "
            "values of the flattened array"
        )
    if not isinstance(ar, ndarray):
        raise TypeError(f"np.unique: expected a numba_ext array, got {type(ar).__name__}")
    found = unique(ar, equal_nan)
    extra = []
    if return_index:
        extra.append(found.indices)
    if return_inverse:  # NumPy 2 gives the inverse in the input's shape
        extra.append(found.inverse.reshape(ar.shape) if ar.ndim else found.inverse)
    if return_counts:
        extra.append(found.counts)
    return (found.values, *extra) if extra else found.values


SET_FUNCTIONS = {np.unique: np_unique}
