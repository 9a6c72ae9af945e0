"""NumPy's rules for the arguments of the creation and conversion functions: shapes, ``order=``,
``like=``, ``copy=`` and fill values, each raising the exception NumPy raises for the
same input (its class, and a message worded as NumPy's).

Each function here follows one of NumPy's argument converters or checks, so that the creation
functions can run them in NumPy's order (shape, dtype, order, like, then the size of the array)."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

# NumPy's largest number of dimensions and its index type's range
MAXDIMS = 64
_INTP_MAX = int(np.iinfo(np.intp).max)
_INTP_MIN = int(np.iinfo(np.intp).min)

OrderLetter = Literal["C", "F", "A", "K"]


def dimension(value: Any) -> int:
    """One dimension (or index) as NumPy converts it: any integer with ``__index__`` except booleans
    (TypeError), within the index type's range (else ValueError)."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError("an integer is required")  # NumPy refuses booleans as dimensions
    n = operator.index(value)
    if not _INTP_MIN <= n <= _INTP_MAX:
        raise ValueError("Maximum allowed dimension exceeded")
    return n


def _items(obj: Any) -> list[Any] | None:
    """The items of `obj` where NumPy reads it as a sequence of dimensions (a Python sequence other
    than an exact int, as ``PySequence_Check``, that can be iterated), else None."""
    if type(obj) is int or isinstance(obj, dict) or not hasattr(type(obj), "__getitem__"):
        return None
    try:
        return list(obj)
    except Exception:  # NumPy then reads it as a single integer (a 0-d array, say)
        return None


def as_shape(shape: Any) -> tuple[int, ...]:
    """`shape` as NumPy's shape arguments are read: one integer or a sequence of at most 64 integers
    (booleans, floats and None are TypeErrors; a string or bytes is a sequence of its characters,
    as in NumPy). Negative dimensions are left to ``check_size``."""
    if shape is None:
        raise TypeError("Use () not None as shape arguments")
    items = _items(shape)
    if items is None:
        try:
            return (dimension(shape),)
        except TypeError:
            raise TypeError(
                f"expected a sequence of integers or a single integer, got {shape!r:.100}"
            ) from None
    if len(items) > MAXDIMS:
        raise ValueError(
            f"maximum supported dimension for an ndarray is currently {MAXDIMS}, found {len(items)}"
        )
    return tuple(dimension(v) for v in items)


def check_size(shape: Sequence[int], itemsize: int) -> None:
    """ValueError for a negative dimension, or where the array's size in bytes would not fit NumPy's
    index type (NumPy's checks, in its order: dimensions of length 0 do not hide the others)."""
    nbytes = max(itemsize, 1)
    for n in shape:
        if n == 0:
            continue
        if n < 0:
            raise ValueError("negative dimensions are not allowed")
        nbytes *= n
        if nbytes > _INTP_MAX:
            raise ValueError(
                "array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size."
            )


def order_letter(order: Any, default: OrderLetter) -> OrderLetter:
    """NumPy's ``order=`` converter: None gives `default`; else one letter of 'C', 'F', 'A', 'K'
    (either case, str or bytes): a ValueError for other strings, a TypeError for other types."""
    if order is None:
        return default
    if isinstance(order, bytes):
        text = order.decode("latin-1")
    elif isinstance(order, str):
        text = order
    else:
        raise TypeError(f"order must be str, not {type(order).__name__}")
    letter = text.upper()
    if letter not in ("C", "F", "A", "K"):
        raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    return letter  # type: ignore[return-value]  # one of the four letters, checked above


def check_new_order(letter: OrderLetter) -> None:
    """A new array (empty, zeros, ones, full, eye) is C- or F-ordered: 'A' and 'K' are ValueErrors."""
    if letter not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")


def check_like(like: Any) -> None:
    """NumPy's ``like=``: None or an array implementing ``__array_function__`` (a NumPy array or a
    numba_ext array), else TypeError. It does not change where or how the array is made."""
    if like is not None and not hasattr(type(like), "__array_function__"):
        raise TypeError(
            "The `like` argument must be an array-like that implements the `__array_function__` protocol."
        )


def copy_flag(copy: Any) -> bool | None:
    """NumPy's ``copy=`` of asarray: None (copy if needed), else the truth of `copy`; strings are
    ValueErrors."""
    if copy is None:
        return None
    if isinstance(copy, str):
        raise ValueError("strings are not allowed for 'copy' keyword. Use True/False/None instead.")
    return bool(copy)


def fill_source(fill_value: Any, dtype: np.dtype, shape: tuple[int, ...]) -> bytes | np.ndarray:
    """What NumPy's ``full`` writes: ``copyto(empty(shape, dtype), fill_value, casting='unsafe')``,
    with its errors (a fill value that does not broadcast to `shape` is a ValueError; a Python
    integer out of `dtype`'s range an OverflowError, even for an empty array, which otherwise takes
    any fill value). A scalar fill of a non-empty array gives the bytes of one element in native
    byte order (a pattern to repeat); anything else the whole C-ordered host array."""
    dtype = dtype if dtype.isnative else dtype.newbyteorder("=")
    if np.ndim(fill_value) == 0 and 0 not in shape:
        cell = np.empty((), dtype)
        np.copyto(cell, fill_value, casting="unsafe")
        return cell.tobytes()
    host = np.empty(shape, dtype)
    np.copyto(host, fill_value, casting="unsafe")
    return host
