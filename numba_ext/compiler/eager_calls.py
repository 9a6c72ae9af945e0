"""Eager operations called from compiled host code: a reduction along an axis of a USM array in
jitted code (``np.sum(a, axis=1)``, ``a.argmax(1)``, ...) runs the eager library's kernels, in the
form the device and the array's layout call for (a work-group per result element along a long
contiguous axis on GPUs, several result elements per work-item on CPUs), where a jitted helper would
run one loop per result element.

The compiled code takes the GIL, boxes the array (to its own ``numba_ext.ndarray`` where it is an
argument's), calls the library's ``reduce`` through ``arrays.hooks.operations`` (the library sits
above this layer) and unboxes the result, which keeps its memory through its meminfo: the struct
keeps no reference to the Python object, which is released. An error (placement, an empty axis of
``min``) leaves the jitted function with that error."""

from __future__ import annotations

import warnings
from typing import Any

from numba.core import cgutils, types
from numba.extending import intrinsic
from numba.np import numpy_support

from ..arrays import hooks
from .reduction_rules import result_dtype
from .types import USMArrayType


def _reduce(name: str, a: Any, axis: int) -> Any:
    """Called from compiled code, with the GIL held. The mean along an empty axis is NaN without
    the eager call's RuntimeWarning, as jitted code gives it."""
    if name == "mean" and a.shape[axis] == 0:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return hooks.operations.reduce(name, a, axis)
    return hooks.operations.reduce(name, a, axis)


@intrinsic
def reduce_along(typingctx, name, a, axis):
    """``np.<name>(a, axis=axis)`` for a USM array `a` of two or more dimensions and an axis in
    ``range(a.ndim)``: a new C-contiguous array of NumPy's result dtype, on `a`'s queue with its
    USM type, computed by the eager library."""
    if not (
        isinstance(name, types.StringLiteral)
        and isinstance(a, USMArrayType)
        and a.ndim >= 2
        and isinstance(axis, types.Integer)
    ):
        return None
    op = name.literal_value
    dtype = numpy_support.from_dtype(result_dtype(op, numpy_support.as_dtype(a.dtype)))
    ret = a.copy(dtype=dtype, ndim=a.ndim - 1, layout="C", readonly=False)
    sig = ret(name, a, axis)

    def codegen(context, builder, sig, args):
        _, a_val, axis_val = args
        pyapi = context.get_python_api(builder)
        env_manager = context.get_env_manager(builder)
        gil = pyapi.gil_ensure()
        context.nrt.incref(builder, sig.args[1], a_val)  # boxing takes over a reference
        a_obj = pyapi.from_native_value(sig.args[1], a_val, env_manager)
        axis_obj = pyapi.long_from_longlong(context.cast(builder, axis_val, sig.args[2], types.int64))
        res = cgutils.alloca_once_value(builder, cgutils.get_null_value(pyapi.pyobj))
        boxed = builder.not_(builder.or_(cgutils.is_null(builder, a_obj), cgutils.is_null(builder, axis_obj)))
        with builder.if_then(boxed, likely=True):
            fn = env_manager.read_const(env_manager.add_const(_reduce))
            op_obj = env_manager.read_const(env_manager.add_const(op))
            builder.store(pyapi.call_function_objargs(fn, [op_obj, a_obj, axis_obj]), res)
        pyapi.decref(a_obj)
        pyapi.decref(axis_obj)
        result = builder.load(res)
        with builder.if_then(cgutils.is_null(builder, result), likely=False):
            pyapi.gil_release(gil)
            context.call_conv.return_exc(builder)
        native = pyapi.to_native_value(ret, result)
        with builder.if_then(native.is_error, likely=False):
            pyapi.decref(result)
            pyapi.gil_release(gil)
            context.call_conv.return_exc(builder)
        out = context.make_array(ret)(context, builder, value=native.value)
        out.parent = cgutils.get_null_value(out.parent.type)  # the object is released below
        pyapi.decref(result)
        pyapi.gil_release(gil)
        return out._getvalue()

    return sig, codegen
