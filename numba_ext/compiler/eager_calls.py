"""Eager operations called from compiled host code, where the eager library's kernels beat what
Numba's compilation would give: reductions along an axis of USM arrays (``np.sum(a, axis=1)``,
``a.argmax(1)``, ...), in the form the device and the array's layout call for (a work-group per
result element along a long contiguous axis on GPUs, several result elements per work-item on CPUs)
where a jitted helper ran one loop per result element; ``argmin``, ``argmax``, ``any`` and ``all``
over every element (one pass on CPUs); products of a matrix and a vector, and of two vectors; the
Fourier transforms of ``np.fft`` (which Numba does not implement).

The compiled code takes the GIL, boxes the arrays (to their own ``numba_ext.ndarray`` where they are
arguments), calls the library through ``arrays.hooks.operations`` (the library sits above this
layer) and unboxes the result: an array keeps its memory through its meminfo, and the struct keeps
no reference to the Python object, which is released; a scalar is the 0-d result's value. An error
(placement, misaligned shapes, an empty sequence's ``argmin``) leaves the jitted function with that
error."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from numba.core import cgutils, types
from numba.extending import intrinsic
from numba.np import numpy_support

from ..arrays import hooks
from ..placement import coerce_usm_types
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


def _reduce_all(name: str, a: Any) -> Any:
    """Called from compiled code, with the GIL held: the 0-d result's value."""
    return hooks.operations.reduce(name, a).item()


def _dot(a: Any, b: Any) -> Any:
    """Called from compiled code, with the GIL held."""
    return hooks.operations.dot(a, b)


def _dot_value(a: Any, b: Any) -> Any:
    """Called from compiled code, with the GIL held: the 0-d product's value."""
    return hooks.operations.dot(a, b).item()


def _c_contiguous(fn: Any) -> Any:
    """`fn` whose array result is C-contiguous (a copy where the eager call gave a view: the
    compiled code reads it as the C-contiguous array its type says)."""

    def call(*args: Any) -> Any:
        result = fn(*args)
        return result if result.flags.c_contiguous else result.copy()

    return call


def _calling(fn: Any, constants: tuple[Any, ...], ret: types.Type, array_result: bool) -> Any:
    """:func:`box_arguments` of `fn`, whose array result is made C-contiguous where
    `array_result`."""
    return box_arguments(_c_contiguous(fn) if array_result else fn, constants, ret)


def box_arguments(fn: Any, constants: tuple[Any, ...], ret: types.Type) -> Any:
    """The lowering of a call of the Python function `fn` with `constants`, then the intrinsic's
    arguments boxed (the first, a string literal naming the operation, left out where `constants`
    holds it), returning its result unboxed to `ret` (arrays in it C-contiguous, as `fn` makes
    them)."""

    def codegen(context, builder, sig, args):
        pyapi = context.get_python_api(builder)
        env_manager = context.get_env_manager(builder)
        skip = 1 if constants else 0
        gil = pyapi.gil_ensure()
        objs = []
        for t, v in zip(sig.args[skip:], args[skip:]):
            plain = types.unliteral(t)
            v = context.cast(builder, v, t, plain)
            context.nrt.incref(builder, plain, v)  # boxing takes over a reference
            objs.append(pyapi.from_native_value(plain, v, env_manager))
        res = cgutils.alloca_once_value(builder, cgutils.get_null_value(pyapi.pyobj))
        boxed = cgutils.true_bit
        for o in objs:
            boxed = builder.and_(boxed, cgutils.is_not_null(builder, o))
        with builder.if_then(boxed, likely=True):
            callee = env_manager.read_const(env_manager.add_const(fn))
            consts = [env_manager.read_const(env_manager.add_const(c)) for c in constants]
            builder.store(pyapi.call_function_objargs(callee, [*consts, *objs]), res)
        for o in objs:
            pyapi.decref(o)  # Py_DecRef: a null (failed) one is skipped
        result = builder.load(res)
        with builder.if_then(cgutils.is_null(builder, result), likely=False):
            pyapi.gil_release(gil)
            context.call_conv.return_exc(builder)
        native = pyapi.to_native_value(ret, result)
        with builder.if_then(native.is_error, likely=False):
            pyapi.decref(result)
            pyapi.gil_release(gil)
            context.call_conv.return_exc(builder)
        value = _detached(context, builder, ret, native.value)
        pyapi.decref(result)
        pyapi.gil_release(gil)
        return value

    return codegen


def _detached(context: Any, builder: Any, t: types.Type, value: Any) -> Any:
    """`value` of type `t` with the arrays in it holding no reference to their Python objects
    (released after unboxing): they keep their memory through their meminfos."""
    if isinstance(t, types.Array):
        out = context.make_array(t)(context, builder, value=value)
        out.parent = cgutils.get_null_value(out.parent.type)
        return out._getvalue()
    if isinstance(t, types.BaseTuple):
        for i, et in enumerate(t.types):
            if isinstance(et, (types.Array, types.BaseTuple)):
                item = _detached(context, builder, et, builder.extract_value(value, i))
                value = builder.insert_value(value, item, i)
    return value


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
    return ret(name, a, axis), _calling(_reduce, (op,), ret, True)


@intrinsic
def reduce_all(typingctx, name, a):
    """``np.<name>(a)`` over every element of a USM array `a` for `name` one of argmin, argmax, any,
    all, min and max: a scalar of NumPy's result dtype, computed by the eager library."""
    if not (isinstance(name, types.StringLiteral) and isinstance(a, USMArrayType)):
        return None
    op = name.literal_value
    if op not in ("argmin", "argmax", "any", "all", "min", "max"):
        return None
    ret = numpy_support.from_dtype(result_dtype(op, numpy_support.as_dtype(a.dtype)))
    return ret(name, a), _calling(_reduce_all, (op,), ret, False)


@intrinsic
def product(typingctx, a, b):
    """``np.dot(a, b)`` of USM arrays of one dtype, a matrix with a vector or a vector with a
    matrix (a new vector) or two vectors (a scalar), computed by the eager library."""
    if not (
        isinstance(a, USMArrayType)
        and isinstance(b, USMArrayType)
        and a.dtype == b.dtype
        and sorted((a.ndim, b.ndim)) in ([1, 2], [1, 1])
    ):
        return None
    if a.ndim == b.ndim == 1:
        return a.dtype(a, b), _calling(_dot_value, (), a.dtype, False)
    usm_type = coerce_usm_types([a.usm_type, b.usm_type])
    ret = a.copy(ndim=1, layout="C", readonly=False, usm_type=usm_type)
    return ret(a, b), _calling(_dot, (), ret, True)


#: NumPy's Fourier transforms that jitted code calls through the eager library (Numba has none)
FOURIER = (
    *("fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2"),
    *("fftn", "ifftn", "rfftn", "irfftn", "fftshift", "ifftshift"),
)


def _fourier(name: str, a: Any) -> Any:
    """Called from compiled code, with the GIL held: ``np.fft.<name>(a)`` by the eager library."""
    return hooks.operations.array_functions[getattr(np.fft, name)](a)


def fourier_result(name: str, a: USMArrayType) -> USMArrayType | None:
    """The type of ``np.fft.<name>(a)`` for a USM array `a`: NumPy's result dtype and rank for an
    array of `a`'s (found by transforming a small one), C-contiguous, on `a`'s queue with its USM
    type; None where NumPy refuses such an array."""
    if name not in FOURIER or a.ndim == 0:
        return None
    try:
        dtype = numpy_support.as_dtype(a.dtype)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            probe = getattr(np.fft, name)(np.ones((2,) * a.ndim, dtype=dtype))
    except Exception:  # NumPy refuses the dtype or the rank: no typing
        return None
    return a.copy(dtype=numpy_support.from_dtype(probe.dtype), ndim=probe.ndim, layout="C", readonly=False)


@intrinsic
def fourier(typingctx, name, a):
    """``np.fft.<name>(a)`` of a USM array `a` (``name`` one of :data:`FOURIER`, a string literal),
    computed by the eager library on `a`'s queue."""
    if not (isinstance(name, types.StringLiteral) and isinstance(a, USMArrayType)):
        return None
    ret = fourier_result(name.literal_value, a)
    if ret is None:
        return None
    return ret(name, a), _calling(_fourier, (name.literal_value,), ret, True)
