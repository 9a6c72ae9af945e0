"""``ndarray.reshape`` and ``ndarray.astype`` with NumPy's argument rules: the arguments are checked by
NumPy itself on a stand-in host array of the same shape and dtype that holds no data (every error
NumPy raises for them, with its class and message), then the numba_ext array is viewed or copied."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, cast

import numpy as np

from .arguments import copy_flag, order_letter
from .transfers import convert

if TYPE_CHECKING:
    from numpy.typing import DTypeLike

    from .ndarray import ndarray


def _stand_in(x: ndarray) -> np.ndarray:
    """A read-only host array of `x`'s shape and dtype over one element: every reshape of it is a
    view, so NumPy's reshape checks its arguments without ever copying."""
    return np.broadcast_to(np.empty((), x.dtype), x.shape)


def reshaped(x: ndarray, shape: tuple[Any, ...], order: Any, copy: Any) -> ndarray:
    """`x` in `shape` (NumPy's ``reshape(*shape, order=, copy=)``): a view where the layout allows
    one, else (unless ``copy=False``: ValueError) a copy in the order the elements are read in."""
    letter = order_letter(order, "C")  # NumPy's order: order=, copy=, then the shape
    want = copy_flag(copy)
    new_shape = _stand_in(x).reshape(*shape, order=order).shape
    view_order = cast(Literal["C", "F", "A"], letter)  # the stand-in refused 'K'
    if not want:
        try:
            return x._view(x._desc.reshape(new_shape, order=view_order, copy=False))
        except ValueError:
            if want is False:
                raise ValueError("Unable to avoid creating a copy while reshaping.") from None
    read_f = letter == "F" or (letter == "A" and x._desc.flags.fnc)
    dense = x.copy(order="F" if read_f else "C")
    return dense._view(dense._desc.reshape(new_shape, order=view_order, copy=False))


def astyped(x: ndarray, dtype: DTypeLike, order: Any, casting: Any, copy: Any) -> ndarray:
    """`x` as `dtype` in memory order `order` (NumPy's ``astype``: its dtype, order and casting
    checks, then numba_ext's supported-dtype check); ``copy=False`` copies only where needed."""
    np.empty(0, x.dtype).astype(dtype, order=order, casting=casting)  # NumPy's checks, no data
    letter = order_letter(order, "K")
    return convert(x, None, dtype, None, True if copy else None, letter, casting)
