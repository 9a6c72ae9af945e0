"""NumPy's creation functions called with ``like=`` a numba_ext array (NEP 35): ``np.ones(n,
like=x)``, ``np.arange(n, like=x)``, ``np.asarray(data, like=x)``, ... make numba_ext arrays on
`x`'s queue with `x`'s USM type. Libraries written for any array type build their arrays this way
(Dask builds chunks from a prototype array, its ``meta``, with them).

NumPy hands these calls to the `like` array's ``__array_function__`` without the `like` argument,
so each function here takes the prototype first (:data:`LIKE_FUNCTIONS`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import arrays
from ..arrays import ndarray
from ..errors import UnsupportedError


def _placed(name: str, make: Callable[..., ndarray], keeps_arrays: bool = False) -> Callable[..., ndarray]:
    """``np.<name>(..., like=proto)``: `make` on `proto`'s queue with its USM type (functions that
    convert, when `keeps_arrays`, keep the USM type of a numba_ext array they are given)."""

    def on_queue_of(proto: ndarray, *args: Any, **kwargs: Any) -> ndarray:
        device = kwargs.pop("device", None)
        if device is not None:
            raise UnsupportedError(
                f"np.{name}(..., like=x) of a numba_ext array x takes no device= (NumPy's host device); "
                f"it makes the array on x's queue; use numba_ext.{name}(..., device=...) for another one"
            )
        usm_type = proto.usm_type
        if keeps_arrays and args and isinstance(args[0], ndarray):
            usm_type = args[0].usm_type
        return make(*args, sycl_queue=proto.sycl_queue, usm_type=usm_type, **kwargs)

    on_queue_of.__name__ = name
    return on_queue_of


#: NumPy creation function -> its implementation taking the ``like=`` array first
LIKE_FUNCTIONS: dict[Callable[..., Any], Callable[..., ndarray]] = {
    np.empty: _placed("empty", arrays.empty),
    np.zeros: _placed("zeros", arrays.zeros),
    np.ones: _placed("ones", arrays.ones),
    np.full: _placed("full", arrays.full),
    np.arange: _placed("arange", arrays.arange),
    np.eye: _placed("eye", arrays.eye),
    np.identity: _placed("identity", arrays.identity),
    np.asarray: _placed("asarray", arrays.asarray, keeps_arrays=True),
    np.array: _placed("array", arrays.array, keeps_arrays=True),
}
