"""The overloads of the reduction and product dispatch functions (``reduction_rewrite``): on USM
arrays, reductions along an axis of 2-D and larger arrays call the eager library's kernels
(``eager_calls.reduce_along``), the others the ``numba_ext.jit`` helpers of ``reduction_helpers``
(compiled with the offload pipeline, so their prange loops and whole-array reductions become
kernels); on anything else, the call as written. Any other
form of these calls on USM arrays (``out=``, ``keepdims=``, ``dtype=``, ...) is a compile-time
UnsupportedError instead of host code reading device memory."""

from __future__ import annotations

import numpy as np
from numba.core import types
from numba.extending import overload
from numba.np import numpy_support

from ..errors import ExecutionPlacementError, UnsupportedError
from ..ir import complex_lowering
from ..placement import coerce_usm_types
from .eager_calls import product as eager_product
from .eager_calls import reduce_all, reduce_along
from .reduction_helpers import dot_function, whole_function
from .reduction_rewrite import (
    DISPATCH,
    np_dot,
    np_matmul,
    np_method_dot,
    nx_dot,
    nx_matmul,
    nx_method_dot,
    nx_require_nonempty,
)
from .reduction_rules import EMPTY_MESSAGES, dot_dtype
from .types import USMArrayType


def _usm(*ts):
    return any(isinstance(t, USMArrayType) for t in ts)


def _as_np(dt) -> np.dtype:
    return numpy_support.as_dtype(dt)


def _no_axis(axis) -> bool:
    return isinstance(axis, (types.NoneType, types.Omitted))


#: reductions over every element that the eager library computes for compiled code (the others,
#: and the minimum and maximum of values computed in the function, are Numba parfors, fused with
#: the loops that compute their operands, or jitted helpers)
EAGER_WHOLE = frozenset(("argmin", "argmax", "any", "all", "min", "max"))
#: the fewest elements for which these (and products with a vector) call the eager library: below,
#: the jitted helpers, which spare the call into Python (some 40 us on a CPU device)
EAGER_FEWEST = 1 << 15


def _usm_reduce(name: str, a, axis):
    """The implementation of np.<name>(a, axis=axis) for a USM array `a` (an axis of any integer
    type is a run-time value: one compilation serves every axis)."""
    op = name  # a string constant: typed as its literal
    if _no_axis(axis):
        h = whole_function(name, a.ndim, _as_np(a.dtype), a.layout == "C")._dispatcher
        if name in EAGER_WHOLE:
            return lambda a, axis: h(a) if a.size < EAGER_FEWEST else reduce_all(op, a)
        return lambda a, axis: h(a)
    if not isinstance(axis, types.Integer):
        raise UnsupportedError(
            f"{name}(axis=...) on numba_ext arrays needs one integer axis (or None), got {axis}"
        )
    nd, axis_error = a.ndim, np.exceptions.AxisError
    complex_lowering.check_ordered(name, _as_np(a.dtype))  # argmin/argmax results are int64
    if nd == 1:  # NumPy gives a scalar: the whole-array reduction
        h = whole_function(name, 1, _as_np(a.dtype), a.layout == "C")._dispatcher
        eager = name in EAGER_WHOLE

        def impl_1d(a, axis):
            if axis < -1 or axis >= 1:
                raise axis_error(axis, 1)
            if eager and a.size >= EAGER_FEWEST:
                return reduce_all(op, a)
            return h(a)

        return impl_1d

    def impl(a, axis):
        if axis < -nd or axis >= nd:
            raise axis_error(axis, nd)
        return reduce_along(op, a, axis + nd if axis < 0 else axis)

    return impl


def _reduction_overload(name: str, host_axis, host_all):
    def ov(a, axis):
        if not _usm(a):
            return host_all if _no_axis(axis) else host_axis
        return _usm_reduce(name, a, axis)

    return ov


def _register_reduction_overloads() -> None:
    for (name, _method), (dispatch, host_axis, host_all) in DISPATCH.items():
        overload(dispatch)(_reduction_overload(name, host_axis, host_all))


_register_reduction_overloads()


def _dot_overload(what, host_impl):
    def ov(a, b):
        if not _usm(a, b):
            return host_impl
        if not (isinstance(a, types.Array) and isinstance(b, types.Array)):
            raise UnsupportedError(
                f"{what} on numba_ext arrays needs two arrays, got {a} and {b} (scalars: use *)"
            )
        if not (isinstance(a, USMArrayType) and isinstance(b, USMArrayType)):
            raise ExecutionPlacementError(
                f"{what} mixes a numba_ext array with a NumPy array; the queue of the NumPy data cannot be "
                "inferred (compute follows data). Convert it with numba_ext.asarray(x, "
                "sycl_queue=<the array's queue>)"
            )
        if a.device != b.device:
            raise ExecutionPlacementError(
                f"{what} combines arrays on different devices {a.device!r} and {b.device!r}"
            )
        dtype = dot_dtype(_as_np(a.dtype), _as_np(b.dtype)).name
        h = dot_function(a.ndim, b.ndim, dtype, coerce_usm_types([a.usm_type, b.usm_type]))._dispatcher
        if a.dtype == b.dtype and a.ndim + b.ndim <= 3:  # with a vector: the eager kernels
            return lambda a, b: h(a, b) if a.size + b.size < EAGER_FEWEST else eager_product(a, b)
        return lambda a, b: h(a, b)

    return ov


overload(nx_dot)(_dot_overload("np.dot", np_dot))
overload(nx_method_dot)(_dot_overload("x.dot", np_method_dot))
overload(nx_matmul)(_dot_overload("matmul", np_matmul))


@overload(nx_require_nonempty, prefer_literal=True)
def _ov_require_nonempty(a, op):
    if not isinstance(op, types.StringLiteral):
        return None
    if not isinstance(a, types.Array):
        return lambda a, op: None
    message = EMPTY_MESSAGES[op.literal_value]

    def impl(a, op):
        if a.size == 0:
            raise ValueError(message)

    return impl
