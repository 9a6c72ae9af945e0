"""Ufunc loop selection as Numba's typing does it, without importing Numba: jitted array-expression
functions compiled from their source must type every operation exactly as the Numba-compiled form of
the same function does, or the two would compute different bits.

Numba walks a ufunc's loops in order and takes the first whose inputs every operand casts to
safely, with one exception to NumPy's casting rules: when the operands mix integers with floating or
complex values, any integer casts to any floating or complex type (so ``float32_array * int`` is a
float32 loop, where NumPy's promotion gives float64). Arrays and scalars count alike: only dtypes
enter (``float32_array * 2.0`` is a float64 loop, where NumPy 2 keeps float32). Loops with float16,
object, datetime or extended-precision operands are not taken."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

#: loop letters Numba never selects (float16 and object inputs), or cannot type (extended precision)
_SKIPPED_INPUTS = frozenset("eO")
_UNTYPED = frozenset("gGmM")


def _can_cast(frm: np.dtype, to: np.dtype, mixed: bool) -> bool:
    if mixed and frm.kind in "iu" and to.kind in "cf":
        return True
    return bool(np.can_cast(frm, to, "safe"))


def find_loop(ufunc: np.ufunc, dts: list[str]) -> tuple[list[str], str] | None:
    """The input dtypes and the (first) output dtype of the loop Numba's typing picks for `ufunc` on
    operands of dtypes `dts`, or None where it has none."""
    found = _find(ufunc, tuple(dts))
    return None if found is None else (list(found[0]), found[1])


@functools.lru_cache(maxsize=4096)
def _find(ufunc: np.ufunc, dts: tuple[str, ...]) -> tuple[tuple[str, ...], str] | None:
    ins = [np.dtype(d) for d in dts]
    if len(ins) != ufunc.nin or any(d.kind not in "biufc" for d in ins):
        return None
    mixed = any(d.kind in "iu" for d in ins) and any(d.kind in "cf" for d in ins)
    for candidate in ufunc.types:
        letters, _, outs = candidate.partition("->")
        if _SKIPPED_INPUTS.intersection(letters) or _UNTYPED.intersection(letters + outs):
            continue
        if all(_can_cast(d, np.dtype(c), mixed) for d, c in zip(ins, letters)):
            return tuple(np.dtype(c).name for c in letters), np.dtype(outs[0]).name
    return None


#: kinds in the order by which scalars count against arrays in ``np.where`` and ``np.clip``
_KIND_ORDER = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}


def scalar_aware_result(arrays: list[np.dtype], scalars: list[np.dtype]) -> np.dtype:
    """The result dtype of ``np.where``/``np.clip`` in compiled code: NumPy's promotion, where the
    scalars take part only when their kind (bool < integer < float < complex) is above every
    array's, as NumPy treats Python scalars (``np.clip(int8_array, 2, 5)`` stays int8)."""
    kind = lambda ds: max(_KIND_ORDER[d.kind] for d in ds)
    if arrays and scalars and kind(scalars) <= kind(arrays):
        scalars = []
    return np.result_type(*arrays, *scalars)


#: Where Numba has no loop (float16 operands), NumPy's own.
#:
#: The dtypes Numba gives Python scalars, and the Python type NumPy 2 promotes as weak for them
#: (a scalar of another dtype, such as np.float32(0.5), is a NumPy scalar: not weak)
WEAK_SCALARS = {"bool": bool, "int64": int, "float64": float, "complex128": complex}


def promotion_operand(dtype: str, scalar: bool) -> Any:
    """What NumPy's promotion sees for an operand of dtype name `dtype`: the Python type of a weak
    scalar where `scalar` could be a Python number, else the dtype."""
    return WEAK_SCALARS.get(dtype, np.dtype(dtype)) if scalar else np.dtype(dtype)


def numpy_half_loop(ufunc: np.ufunc, operands: list[Any]) -> tuple[list[str], str] | None:
    """NumPy's loop for `ufunc` on `operands` (dtypes, or Python scalar types for weak scalars), some
    of them float16, as (input dtype names, output dtype name); None for ufuncs with several outputs
    or without a loop. Numba has no float16 loops and picks float32 ones, so ``float16 + float16``
    would be float32 (and float16 + int32 float32, where NumPy gives float64); NumPy's float16 loops
    compute in float32 and round each result to half, which the offloaded code does as well
    (operands cast to the loop's float16 inputs, the float32 loop, the result cast to float16)."""
    if ufunc.nout != 1:
        return None
    try:
        dts = ufunc.resolve_dtypes((*operands, None))
    except (TypeError, NotImplementedError, np.exceptions.DTypePromotionError):
        return None
    return [d.name for d in dts[:-1]], dts[-1].name
