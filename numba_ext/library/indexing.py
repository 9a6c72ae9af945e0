"""Advanced indexing of numba_ext arrays on their device (``x[mask]``, ``x[idx]``, ``x[i, j]`` with
integer arrays, ``x[mask] = v``, ``x[i, j] = v``), with NumPy's semantics for the forms it takes:

* a boolean array of the shape of `x`'s leading dimensions (NumPy's or ours), alone: the selected
  elements or subarrays, compacted on the device (``gather.compress_mask``);
* integer arrays and integers, one per leading dimension (at least one array, no slices between
  them): the index arrays broadcast together, each index checked against its axis on the device
  (negative ones count from the end), combined into one flat index over those dimensions and
  gathered (``gather.take``);
* assignment through a boolean mask of `x`'s shape (or its leading dimensions) of a scalar, an
  array that broadcasts to the selected subarrays' shape, or one value per selected position
  (``x[mask] = y[mask]``: the values gathered to their positions by the mask's running count):
  ``where(mask, value, x)`` written back;
* assignment through integer arrays and integers for the leading dimensions (``x[i, j] = v``): the
  positions found as for a gather, the value broadcast to the indexing result and cast, and one
  scatter (``gather.scatter``) writing each position's last value (NumPy's order).

Other advanced keys raise an ``IndexError`` that names what is supported. Host index arrays (lists,
NumPy arrays) are copied to the array's queue first.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from ..arrays import arange, asarray, full, ndarray
from ..errors import UnsupportedError
from ..placement import execution_queue
from . import gather
from .manipulation import copy_into

_np: Any = np  # NumPy's functions, untyped: on numba_ext arrays they dispatch to this library


def _device_index(k: Any, x: ndarray) -> Any:
    """A key item: numba_ext arrays as they are, lists and NumPy arrays of integers or booleans
    copied to `x`'s queue, the rest (ints, slices, ...) unchanged."""
    if isinstance(k, ndarray):
        return k
    if isinstance(k, (list, np.ndarray)):
        host = np.asarray(k)
        if host.dtype.kind not in "biu" and not (host.size == 0 and host.dtype.kind == "f"):
            raise IndexError(
                f"arrays used as indices must be of integer (or boolean) type, not {host.dtype} (as in NumPy)"
            )
        if host.dtype.kind == "f":
            host = host.astype(np.int64)
        return asarray(host, sycl_queue=x.sycl_queue, usm_type=x.usm_type)
    return k


def is_advanced(key: Any) -> bool:
    """Whether `key` holds an array or a list (advanced indexing)."""
    items = key if isinstance(key, tuple) else (key,)
    return any(isinstance(k, (ndarray, list, np.ndarray)) for k in items)


def getitem(x: ndarray, key: Any) -> ndarray:
    """``x[key]`` for an advanced `key` (see the module)."""
    items = [_device_index(k, x) for k in (key if isinstance(key, tuple) else (key,))]
    arrays = [k for k in items if isinstance(k, ndarray)]
    if len(items) == 1 and arrays and arrays[0].dtype == np.bool_:
        return gather.compress_mask(x, arrays[0])
    if any(isinstance(k, ndarray) and k.dtype == np.bool_ for k in items):
        raise IndexError(
            "numba_ext.ndarray takes a boolean array index alone (x[mask]); combine masks with & first"
        )
    if all(isinstance(k, ndarray) or _is_int(k) for k in items):
        return _integer_arrays(x, items)
    raise IndexError(
        "numba_ext.ndarray supports basic indices, a boolean mask alone, or integer arrays and integers "
        "for the leading dimensions (no slices among them); got " + ", ".join(type(k).__name__ for k in items)
    )


def _is_int(k: object) -> bool:
    return isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_))


def _integer_arrays(x: ndarray, items: list[Any]) -> ndarray:
    _check_integer_items(x, items)
    if len(items) == 1:  # one index array: a gather along the first axis, which checks the indices itself
        result: ndarray = gather.take(x, items[0], axis=0)
        return result
    flat = flat_positions(x, items)
    if not isinstance(flat, ndarray):  # integers only: a basic index
        return x[tuple(items)]
    source = x.reshape((math.prod(x.shape[: len(items)]), *x.shape[len(items) :]))
    return gather.take(source, flat, axis=0)


def _check_integer_items(x: ndarray, items: list[Any]) -> None:
    if len(items) > x.ndim:
        raise IndexError(
            f"too many indices for array: array is {x.ndim}-dimensional, but {len(items)} were indexed"
        )
    for i, item in enumerate(items):
        if isinstance(item, ndarray) and item.dtype.kind not in "iu":
            raise IndexError(f"arrays used as indices must be of integer type, not {item.dtype} (index {i})")


def flat_positions(x: ndarray, items: list[Any]) -> ndarray | int:
    """The positions integer arrays and integers `items` (one per leading dimension of `x`) name in
    those dimensions flattened (C order), as an int64 array of the index arrays' broadcast shape;
    each index checked against its axis on the device (negative ones count from the end). A
    Python int when `items` holds no array."""
    _check_integer_items(x, items)
    shapes = [item.shape for item in items if isinstance(item, ndarray)]
    try:
        shape = np.broadcast_shapes(*shapes)
    except ValueError:
        raise IndexError(
            "shape mismatch: indexing arrays could not be broadcast together with shapes "
            + " ".join(str(s) for s in shapes)
        ) from None
    flat: Any = 0
    for axis, item in enumerate(items):
        n = x.shape[axis]
        if isinstance(item, ndarray):
            lo = 0
            if item.size:
                low, high = _np.min(item), _np.max(item)  # both launched before either is read
                lo, hi = int(low), int(high)
                if lo < -n or hi >= n:
                    bad = lo if lo < -n else hi
                    raise IndexError(f"index {bad} is out of bounds for axis {axis} with size {n}")
            wrapped = _np.where(_np.less(item, 0), _np.add(item, n), item) if lo < 0 else item
            index = wrapped if wrapped.dtype == np.int64 else _np.astype(wrapped, np.int64)
        else:
            i = operator.index(item)
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for axis {axis} with size {n}")
            index = i % n
        if isinstance(flat, int) and flat == 0:  # the first dimension: its index alone
            flat = index
        else:
            flat = _np.add(_np.multiply(flat, n), index)
    if not isinstance(flat, ndarray):
        return int(flat)
    result: ndarray = _np.broadcast_to(flat, shape)
    return result


def ufunc_at(ufunc: Any, a: ndarray, indices: Any, b: Any = None) -> None:
    """``np.add.at(a, indices, b)`` (and ``np.subtract.at``) on the device: `b` added at every
    position `indices` names, repeated positions adding up (NumPy's unbuffered semantics). The
    additions run as one weighted ``np.bincount`` over `a`'s flattened positions: float64 sums,
    exact for integers while the sums stay below 2**53 (checked; integer targets then wrap as
    NumPy's do); float targets may differ from NumPy's one-by-one additions in the last bits."""
    name = getattr(ufunc, "__name__", str(ufunc))
    if ufunc not in (np.add, np.subtract):
        raise UnsupportedError(
            f"np.{name}.at of numba_ext arrays is not supported; np.add.at and np.subtract.at are"
        )
    if not isinstance(a, ndarray):
        raise TypeError(f"np.{name}.at: the first argument must be a numba_ext array, not {type(a).__name__}")
    if not a._desc.flags.writeable:
        raise ValueError("output array is read-only")
    if a.dtype.kind not in "iuf":
        raise UnsupportedError(
            f"np.{name}.at of {a.dtype} numba_ext arrays is not supported (integers and reals are)"
        )
    if b is None:
        raise TypeError(f"np.{name}.at needs the values to combine (a second operand)")
    items = [_device_index(k, a) for k in (indices if isinstance(indices, tuple) else (indices,))]
    if not all(isinstance(k, ndarray) or _is_int(k) for k in items):
        raise UnsupportedError(
            f"np.{name}.at of numba_ext arrays takes integer arrays and integers as indices, one per "
            "leading dimension"
        )
    flat = flat_positions(a, items)
    positions = (
        flat
        if isinstance(flat, ndarray)
        else asarray(np.int64(flat), sycl_queue=a.sycl_queue, usm_type=a.usm_type)  # integers only
    )
    rest = a.shape[len(items) :]
    width = math.prod(rest)
    if width != 1:  # every element of each selected subarray
        lanes = arange(width, dtype=np.int64, sycl_queue=a.sycl_queue, usm_type=a.usm_type)
        positions = _np.add(_np.multiply(positions[..., None], width), lanes)
    values = (
        b if isinstance(b, ndarray) else asarray(np.asarray(b), sycl_queue=a.sycl_queue, usm_type=a.usm_type)
    )
    if values.dtype.kind not in "biuf":
        raise UnsupportedError(
            f"np.{name}.at with {values.dtype} values is not supported (integers and reals are)"
        )
    values = _np.broadcast_to(values, positions.shape[:-1] + rest if width != 1 else positions.shape)
    if a.dtype.kind in "iu" and positions.size:
        biggest = float(_np.max(_np.absolute(_np.astype(values, np.float64))))
        if biggest * positions.size >= 2.0**53:
            raise UnsupportedError(
                f"np.{name}.at of integers whose sums may reach 2**53 is not supported on numba_ext arrays"
            )
    if ufunc is np.subtract:
        values = _np.negative(_np.astype(values, np.float64))
    sums = _np.bincount(positions.reshape(-1), weights=values.reshape(-1), minlength=a.size)
    if a.dtype.kind in "iu":
        sums = _np.astype(_np.astype(sums, np.int64), a.dtype)  # exact, then wrapped as NumPy wraps
    total = _np.add(a, sums.reshape(a.shape))
    copy_into(a, _np.astype(total, a.dtype, copy=False))


def setitem(x: ndarray, key: Any, value: Any) -> None:
    """``x[key] = value`` for an advanced `key`: a boolean mask, or integer arrays and integers for
    the leading dimensions (see the module)."""
    items = [_device_index(k, x) for k in (key if isinstance(key, tuple) else (key,))]
    if not x._desc.flags.writeable:
        raise ValueError("assignment destination is read-only")
    if len(items) == 1 and isinstance(items[0], ndarray) and items[0].dtype == np.bool_:
        _assign_mask(x, items[0], value)
    elif all(_is_int(k) or isinstance(k, ndarray) and k.dtype.kind in "iu" for k in items):
        _assign_integer_arrays(x, items, value)
    else:
        raise UnsupportedError(
            "assignment through an advanced index of a numba_ext array takes a boolean mask alone "
            "(x[mask] = value) or integer arrays and integers for the leading dimensions "
            "(x[i, j] = value); index with integers, slices, a mask or integer arrays"
        )


def _assign_integer_arrays(x: ndarray, items: list[Any], value: Any) -> None:
    """``x[i, j] = value`` with integer arrays (and integers) `items` for the leading dimensions:
    `value` broadcast to the indexing result's shape and cast to `x`'s dtype, each selected element
    (or subarray) written by one scatter. Where a position is named more than once the last value
    wins, as in NumPy: each position is claimed by its last occurrence (an atomic maximum into an
    int64 owner vector over the leading dimensions, filled with -1) and the scatter writes only the
    claiming occurrences' values. Where the leading dimensions are much larger than the positions
    (the owner vector would cost more than a sort), a stable sort of the positions keeps each
    one's last occurrence instead, and a single position is scattered as it is."""
    flat = flat_positions(x, items)  # checks every index against its axis
    if not isinstance(flat, ndarray):  # integers only: a basic index
        x[tuple(items)] = value
        return
    rest = x.shape[len(items) :]
    shape = flat.shape + rest
    if isinstance(value, ndarray):
        named = [("array", x), ("value", value)]
        named += [(f"index {i}", k) for i, k in enumerate(items) if isinstance(k, ndarray)]
        execution_queue(named)  # a clear error for arrays on queues that are not equivalent
    else:
        value = asarray(np.asarray(value, dtype=x.dtype), sycl_queue=x.sycl_queue, usm_type=x.usm_type)
    while value.ndim > len(shape) and value.shape[0] == 1:
        value = value[0]  # NumPy drops leading dimensions of one
    if not _broadcasts(value.shape, shape):
        raise ValueError(
            f"shape mismatch: value array of shape {value.shape} could not be broadcast to indexing "
            f"result of shape {shape}"
        )
    m = flat.size
    if m == 0:
        return
    positions = flat.reshape(-1)
    if not positions.flags.c_contiguous or np.may_share_memory(x._desc, positions._desc):
        positions = positions.copy()  # (an index array that is x itself: x[x] = v)
    values = _np.astype(_np.broadcast_to(value, shape), x.dtype, copy=False).reshape((m, *rest))
    if not values.flags.c_contiguous or np.may_share_memory(x._desc, values._desc):
        values = values.copy()  # the kernel reads the values while it writes x
    span = len(items)
    leading = math.prod(x.shape[:span])
    if m > 1 and leading <= 8 * m + 65536:  # past this the owner vector costs more than a sort
        owner = full((leading,), -1, np.int64, sycl_queue=x.sycl_queue)
        gather.claim(owner, positions)
        gather.scatter(x, span, positions, values, owner)
        return
    if m > 1:
        order = _np.argsort(positions, kind="stable")
        ordered = gather.take(positions, order)
        last = _np.concatenate(
            [_np.not_equal(ordered[1:], ordered[:-1]), full((1,), True, np.bool_, sycl_queue=x.sycl_queue)]
        )
        targets = gather.compress_mask(ordered, last)
        if targets.size != m:  # a position named more than once: its last value only
            values = gather.take(values, gather.compress_mask(order, last), axis=0)
            positions = targets
    gather.scatter(x, span, positions, values)


def _assign_mask(x: ndarray, mask: ndarray, value: Any) -> None:
    """``x[mask] = value`` (see the module)."""
    if mask.ndim > x.ndim or mask.shape != x.shape[: mask.ndim]:
        raise IndexError(
            f"boolean index of shape {mask.shape} does not match the indexed array's shape {x.shape}"
        )
    rest = x.shape[mask.ndim :]
    if not isinstance(value, ndarray) and np.ndim(value) != 0:
        value = asarray(value, dtype=x.dtype, sycl_queue=x.sycl_queue, usm_type=x.usm_type)
    if isinstance(value, ndarray) and value.ndim == len(rest) + 1:
        # one value (subarray) per selected position, in C order (x[mask] = y[mask]): the value of
        # each position is the running count of the mask before it
        count = int(_np.count_nonzero(mask))
        if value.shape[0] not in (count, 1) or not _broadcasts(value.shape[1:], rest):
            raise ValueError(
                f"NumPy boolean array indexing assignment cannot assign {value.shape[0]} input values to "
                f"the {count} output values where the mask is true"
            )
        if count == 0:
            return  # no element selected (and an empty value): nothing to assign, as in NumPy
        if value.shape[0] == count:
            order = _np.subtract(_np.cumsum(mask.reshape(-1)), 1)
            picked = gather.take(value, _np.maximum(order, 0), axis=0)
            value = picked.reshape(mask.shape + picked.shape[1:])
        else:
            value = value[0]
    elif isinstance(value, ndarray) and not _broadcasts(value.shape, rest):
        raise ValueError(
            f"x[mask] = value: a value of shape {value.shape} does not broadcast to {rest}, the shape of "
            "each selected subarray"
        )
    spread = mask.reshape(mask.shape + (1,) * len(rest))
    copy_into(x, _np.astype(_np.where(spread, value, x), x.dtype, copy=False))


def _broadcasts(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    """Whether an array of `shape` broadcasts to `target`."""
    return len(shape) <= len(target) and all(s in (1, t) for s, t in zip(shape[::-1], target[::-1]))
