"""Order statistics of a whole array without sorting it: radix selection on the device.

Each value becomes a 64-bit unsigned key whose order is the values' order (floats: the sign bit
flipped for positive values, every bit for negative ones; signed integers: the sign bit flipped).
The key of rank ``k`` is found 16 bits at a time from the top: a histogram of the candidates'
current digit (``np.bincount`` on the device, 65,536 bins, read by the host), the digit whose
cumulative count passes ``k``, and the candidates compacted to those of that digit; once few
candidates are left the host selects among them (``np.partition``). Four passes at most, usually
two: data spread over many binades leaves few candidates in any top-16-bit bin. The key is turned
back into the value on the host, exactly.

Used by ``np.median`` and ``np.quantile`` / ``np.percentile`` over every axis of large real arrays
without NaN on CPU devices (``statistics``); the others sort (see :func:`applies`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..arrays import asarray, asnumpy, ndarray

_np: Any = np  # NumPy's functions, untyped: on numba_ext arrays they dispatch to this library

#: the fewest elements selection takes (smaller arrays sort: fewer launches)
SELECT_FEWEST = 1 << 15
#: candidates left at which the host selects among them
HOST_TAIL = 1 << 14
#: the most distinct ranks one call selects (more: sorting once costs less)
MOST_RANKS = 8
_DIGIT_BITS = 16
_SIGN = np.uint64(1 << 63)


def applies(a: ndarray, ranks: int) -> bool:
    """Whether selecting `ranks` distinct ranks of `a` is worth it: large real arrays on CPU
    devices. On GPUs the device sort wins (an H200 sorts 2^22 float64 in 2.0 ms; selection there
    spends 1.9 ms in one 65,536-bin histogram and waits for each pass's readback and compaction)."""
    return (
        a.dtype.kind in "biuf"
        and a.size >= SELECT_FEWEST
        and ranks <= MOST_RANKS
        and a.sycl_queue.device.device_type == "cpu"
    )


def _keys(flat: ndarray) -> ndarray:
    """The order-preserving uint64 keys of the 1-d C-contiguous `flat` (no NaN among floats)."""
    kind = flat.dtype.kind
    if kind == "f":
        bits = (flat if flat.dtype == np.float64 else _np.astype(flat, np.float64)).view(np.uint64)
        negative = _np.greater_equal(bits, _SIGN)
        keys: ndarray = _np.where(negative, _np.invert(bits), _np.bitwise_or(bits, _SIGN))
        return keys
    if kind == "u":
        return flat if flat.dtype == np.uint64 else _np.astype(flat, np.uint64)
    signed = flat if flat.dtype == np.int64 else _np.astype(flat, np.int64)
    flipped: ndarray = _np.bitwise_xor(signed.view(np.uint64), _SIGN)
    return flipped


def _values(keys: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """The values (host, `dtype`) of the uint64 `keys` (host), the inverse of :func:`_keys`."""
    kind = dtype.kind
    if kind == "f":
        bits = np.where(keys >= _SIGN, keys ^ _SIGN, ~keys)
        return bits.view(np.float64).astype(dtype)
    if kind == "u":
        return keys.astype(dtype)
    return (keys ^ _SIGN).view(np.int64).astype(dtype)


def _select(candidates: ndarray, ranks: list[int], shift: int) -> dict[int, np.uint64]:
    """The keys of ranks `ranks` (0-based, among `candidates`) by the digits from bit `shift`
    down; ranks whose keys share a digit share its histogram and compaction."""
    if candidates.size <= HOST_TAIL:
        host = np.partition(asnumpy(candidates), ranks)
        return {k: host[k] for k in ranks}
    if shift < 0:  # every key left is the same
        same = asnumpy(candidates[:1])[0]
        return dict.fromkeys(ranks, same)
    mask = np.uint64((1 << _DIGIT_BITS) - 1)
    digits = _np.bitwise_and(_np.right_shift(candidates, np.uint64(shift)), mask)
    counts = asnumpy(_np.bincount(_np.astype(digits, np.int64), minlength=1 << _DIGIT_BITS))
    cumulative = np.cumsum(counts)
    by_digit: dict[int, list[tuple[int, int]]] = {}
    for k in ranks:
        digit = int(np.searchsorted(cumulative, k, side="right"))
        below = int(cumulative[digit - 1]) if digit else 0
        by_digit.setdefault(digit, []).append((k, k - below))
    found: dict[int, np.uint64] = {}
    for digit, pairs in by_digit.items():
        # every candidate with this digit already: no compaction
        chosen = (
            candidates
            if counts[digit] == candidates.size
            else candidates[_np.equal(digits, np.uint64(digit))]
        )
        inner = _select(chosen, sorted({k for _, k in pairs}), shift - _DIGIT_BITS)
        found.update({k: inner[j] for k, j in pairs})
    return found


def order_statistics(a: ndarray, ranks: Sequence[int]) -> ndarray:
    """The elements of ranks `ranks` (0-based positions in sorted order) of all of `a` (real, no
    NaN), as a 1-d numba_ext array of `a`'s dtype on its queue, in the order of `ranks`."""
    flat = a.reshape(-1)
    if not flat.flags.c_contiguous:
        flat = flat.copy()
    keys = _keys(flat)
    found = _select(keys, sorted({int(r) for r in ranks}), 64 - _DIGIT_BITS)
    values = _values(np.array([found[int(r)] for r in ranks], dtype=np.uint64), a.dtype)
    return asarray(values, sycl_queue=a.sycl_queue, usm_type=a.usm_type)


def has_nan(a: ndarray) -> bool:
    """Whether the float array `a` holds a NaN (one reduction on the device)."""
    return a.dtype.kind == "f" and bool(_np.any(_np.isnan(a)))
