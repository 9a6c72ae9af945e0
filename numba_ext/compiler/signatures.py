"""Explicit signatures of kernels and device functions (``@numba_ext.kernel(sig)``,
``@numba_ext.func(sig)``, or lists of them): parsing, and choosing the signature a call's argument
types match.

A signature is a tuple of Numba types, a Numba ``Signature`` (``void(float32[::1], int64)``) or its
string form. An array type in a signature matches arrays of its dtype and rank whatever their memory
kind and device; its layout ``C`` or ``F`` asks for that layout, ``A`` takes any."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numba.core import sigutils, types
from numba.core.registry import cpu_target
from numba.core.typeconv import Conversion

Signature = tuple[types.Type, ...]


def is_signature_spec(obj: object) -> bool:
    """Whether a decorator's argument is a signature (or a list of them) rather than a function."""
    if isinstance(obj, list):
        return bool(obj) and all(is_signature_spec(s) for s in obj)
    return isinstance(obj, (str, tuple)) or sigutils.is_signature(obj)


def parse_signatures(spec: Any, what: str) -> list[Signature]:
    """The argument types of each signature in `spec` (one, or a list)."""
    out = []
    for s in spec if isinstance(spec, list) else [spec]:
        try:
            args, _ = sigutils.normalize_signature(s)
        except Exception as e:
            raise TypeError(f"{what}: {s!r} is not a signature ({e})") from None
        if not all(isinstance(a, types.Type) for a in args):
            raise TypeError(f"{what}: the signature {s!r} has entries that are not Numba types")
        out.append(tuple(args))
    if not out:
        raise TypeError(f"{what}: an empty list of signatures")
    return out


def _array_matches(formal: types.Array, actual: types.Type) -> bool:
    return (
        isinstance(actual, types.Array)
        and actual.dtype == formal.dtype
        and actual.ndim == formal.ndim
        and (formal.layout == "A" or actual.layout == formal.layout)
    )


def _conversion(formal: types.Type, actual: types.Type, unsafe: bool) -> Conversion | None:
    """How `actual` converts to `formal` (None: it does not)."""
    if isinstance(formal, types.Array):
        return Conversion.exact if _array_matches(formal, actual) else None
    if formal == actual:
        return Conversion.exact
    scalars = (types.Number, types.Boolean)
    if isinstance(formal, scalars) and isinstance(actual, scalars):
        conv = cpu_target.typing_context.can_convert(actual, formal)
        if conv is not None and conv > Conversion.safe and not unsafe:
            # beyond Numba's safe conversions, NumPy's same-kind rule (an int into a float32, not a
            # float into an int)
            same_kind = np.can_cast(_np_dtype(actual), _np_dtype(formal), "same_kind")
            return Conversion.safe if same_kind else None
        return conv
    return None


def _np_dtype(t: types.Type) -> np.dtype:
    return np.dtype("bool" if isinstance(t, types.Boolean) else str(t))


def match_signature(
    sigs: Sequence[Signature], actual: Sequence[types.Type], *, allow_unsafe: bool = False
) -> Signature | None:
    """The signature in `sigs` that `actual` converts to best (scalars by Numba's safe conversions
    or NumPy's same-kind casts, or by any conversion with `allow_unsafe`, as Numba chooses among a
    function's overloads); None if none."""
    best: tuple[int, Signature] | None = None
    limit = Conversion.unsafe if allow_unsafe else Conversion.safe
    for sig in sigs:
        if len(sig) != len(actual):
            continue
        convs = [_conversion(f, a, allow_unsafe) for f, a in zip(sig, actual)]
        if any(c is None or c > limit for c in convs):
            continue
        cost = sum(int(c) for c in convs if c is not None)
        if best is None or cost < best[0]:
            best = (cost, sig)
    return None if best is None else best[1]


def describe(sigs: Sequence[Signature]) -> str:
    return "; ".join("(" + ", ".join(str(t) for t in s) + ")" for s in sigs)
