"""Kernels launched from jitted code: ``numba_ext.call_kernel(k, numba_ext.Range(n), a, b)`` inside
``@numba_ext.jit`` (or ``@numba.njit``).

The compiled code calls back into Python: it boxes the kernel's arguments (arrays unboxed from the
jitted function's arguments box to their very objects; arrays made inside box to numba_ext arrays
sharing the memory), takes the GIL and launches through ``call_kernel``, so the launch follows the
arrays' queue with the placement rules of a launch from Python and its errors propagate from the
jitted function. No object mode is involved. ``Range`` and ``NdRange`` are typed in jitted code (made
there or passed in): a ``Range`` as a tuple of int64 (``RangeType``), an ``NdRange`` as a pair of
them (``NdRangeType``); plain ints and tuples are the launch configurations ``call_kernel`` takes.

Registered with Numba through its extension API (``typeof_impl``, ``type_callable``,
``lower_builtin``, ``box``/``unbox``, ``register_model``, ``lower_constant``) when this module is
imported (``numba_ext.kernels`` imports it); ``compiler/numba_hooks.py`` lists it."""

from __future__ import annotations

from typing import Any

from numba.core import cgutils, types, utils
from numba.core.imputils import lower_builtin, lower_constant, lower_getattr
from numba.core.types.containers import UniTuple  # (not in Numba's bundled type stub)
from numba.core.typing.templates import (
    AbstractTemplate,
    AttributeTemplate,
    infer_getattr,
    infer_global,
    signature,
)
from numba.extending import NativeValue, box, models, register_model, type_callable, typeof_impl, unbox

from ..errors import UnsupportedError
from .kernel import Kernel, call_kernel
from .ranges import NdRange, Range


class KernelType(types.Dummy):
    """A ``@numba_ext.kernel`` object in jitted code (one type per kernel, as Numba types functions)."""

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel
        super().__init__(name=f"Kernel({kernel.__name__})")

    @property
    def key(self) -> Kernel:
        return self.kernel


class RangeType(UniTuple):
    """A ``numba_ext.Range`` in jitted code: a tuple of int64 that boxes back to a Range (made by
    :func:`range_type`)."""


class NdRangeType(UniTuple):
    """A ``numba_ext.NdRange`` in jitted code: (global range, local range), boxing back to an NdRange
    (made by :func:`ndrange_type`)."""


def range_type(ndim: int) -> RangeType:
    return RangeType(types.int64, ndim)


def ndrange_type(ndim: int) -> NdRangeType:
    return NdRangeType(types.UniTuple(types.int64, ndim), 2)


register_model(KernelType)(models.OpaqueModel)
register_model(RangeType)(models.UniTupleModel)
register_model(NdRangeType)(models.UniTupleModel)


@typeof_impl.register(Kernel)
def _typeof_kernel(val: Kernel, c: Any) -> KernelType:
    return KernelType(val)


@typeof_impl.register(Range)
def _typeof_range(val: Range, c: Any) -> RangeType:
    return range_type(len(val))


@typeof_impl.register(NdRange)
def _typeof_ndrange(val: NdRange, c: Any) -> NdRangeType:
    return ndrange_type(len(val.global_range))


@lower_constant(KernelType)
def _kernel_constant(context: Any, builder: Any, ty: Any, pyval: Any) -> Any:
    return context.get_dummy_value()


@unbox(KernelType)
def _unbox_kernel(typ: Any, obj: Any, c: Any) -> Any:
    return NativeValue(c.context.get_dummy_value())


@unbox(RangeType)
def _unbox_range(typ: Any, obj: Any, c: Any) -> Any:
    return c.unbox(types.UniTuple(types.int64, typ.count), obj)


@unbox(NdRangeType)
def _unbox_ndrange(typ: Any, obj: Any, c: Any) -> Any:
    parts, failed = [], cgutils.false_bit
    for attr in ("global_range", "local_range"):
        part = c.pyapi.object_getattr_string(obj, attr)  # a Range (always set by NdRange)
        native = c.unbox(types.UniTuple(types.int64, typ.dtype.count), part)
        c.pyapi.decref(part)
        parts.append(native.value)
        failed = c.builder.or_(failed, native.is_error)
    return NativeValue(c.context.make_tuple(c.builder, typ, parts), is_error=failed)


def _box_by_calling(cls: Any, tuple_type: Any, val: Any, c: Any) -> Any:
    """``cls(*tuple)`` for the native tuple `val` of `tuple_type` (None and an error set on failure)."""
    tup = c.pyapi.from_native_value(tuple_type, val, c.env_manager)
    res = cgutils.alloca_once_value(c.builder, cgutils.get_null_value(c.pyapi.pyobj))
    with c.builder.if_then(cgutils.is_not_null(c.builder, tup), likely=True):
        ctor = c.env_manager.read_const(c.env_manager.add_const(cls))
        c.builder.store(c.pyapi.call(ctor, tup), res)
        c.pyapi.decref(tup)
    return c.builder.load(res)


@box(RangeType)
def _box_range(typ: Any, val: Any, c: Any) -> Any:
    return _box_by_calling(Range, types.UniTuple(types.int64, typ.count), val, c)


@box(NdRangeType)
def _box_ndrange(typ: Any, val: Any, c: Any) -> Any:
    return _box_by_calling(NdRange, types.UniTuple(types.UniTuple(types.int64, typ.dtype.count), 2), val, c)


# -- Range(...) and NdRange(...) in jitted code ------------------------------------------------------
def _dims(t: types.Type) -> int | None:
    """Dimensions of a range given as `t` (an integer, a tuple of integers or a Range), else None."""
    if isinstance(t, types.Integer):
        return 1
    if isinstance(t, types.UniTuple) and isinstance(t.dtype, types.Integer) and 1 <= t.count <= 3:
        return t.count
    return None


def _as_int64_tuple(context: Any, builder: Any, t: Any, v: Any) -> Any:
    if isinstance(t, types.Integer):
        items = [v]
        t = types.UniTuple(t, 1)
    else:
        items = cgutils.unpack_tuple(builder, v, t.count)
    out = [context.cast(builder, x, t.dtype, types.int64) for x in items]
    return context.make_tuple(builder, types.UniTuple(types.int64, len(out)), out)


@type_callable(Range)
def _type_range(context: Any) -> Any:
    def typer(d0: Any, d1: Any = None, d2: Any = None) -> Any:
        dims = [d for d in (d0, d1, d2) if d is not None]
        if len(dims) == 1 and isinstance(d0, types.UniTuple):
            n = _dims(d0)
            return None if n is None else range_type(n)
        if all(isinstance(d, types.Integer) for d in dims):
            return range_type(len(dims))
        return None

    return typer


@lower_builtin(Range, types.VarArg(types.Any))
def _make_range(context: Any, builder: Any, sig: Any, args: Any) -> Any:
    if len(args) == 1 and isinstance(sig.args[0], types.UniTuple):
        return _as_int64_tuple(context, builder, sig.args[0], args[0])
    vals = [context.cast(builder, v, t, types.int64) for v, t in zip(args, sig.args)]
    return context.make_tuple(builder, sig.return_type, vals)


@type_callable(NdRange)
def _type_ndrange(context: Any) -> Any:
    def typer(global_range: Any, local_range: Any) -> Any:
        n, m = _dims(global_range), _dims(local_range)
        return ndrange_type(n) if n is not None and n == m else None

    return typer


@lower_builtin(NdRange, types.Any, types.Any)
def _make_ndrange(context: Any, builder: Any, sig: Any, args: Any) -> Any:
    parts = [_as_int64_tuple(context, builder, t, v) for t, v in zip(sig.args, args)]
    return context.make_tuple(builder, sig.return_type, parts)


@infer_getattr
class _NdRangeAttributes(AttributeTemplate):
    """``nd.global_range`` and ``nd.local_range`` of an NdRange in jitted code."""

    key = NdRangeType

    def resolve_global_range(self, nd: Any) -> Any:
        return range_type(nd.dtype.count)

    resolve_local_range = resolve_global_range


@lower_getattr(NdRangeType, "global_range")
def _ndrange_global(context: Any, builder: Any, typ: Any, value: Any) -> Any:
    return builder.extract_value(value, 0)


@lower_getattr(NdRangeType, "local_range")
def _ndrange_local(context: Any, builder: Any, typ: Any, value: Any) -> Any:
    return builder.extract_value(value, 1)


# -- call_kernel(...) in jitted code ------------------------------------------------------------------
@infer_global(call_kernel)
class _CallKernelTemplate(AbstractTemplate):
    def generic(self, args: Any, kws: Any) -> Any:
        if kws or len(args) < 2:
            return None
        k, range_ = args[0], args[1]
        if not isinstance(k, KernelType):
            raise UnsupportedError(
                f"numba_ext.call_kernel in jitted code launches a @numba_ext.kernel, not a value of type {k}"
            )
        nested = isinstance(range_, types.UniTuple) and isinstance(range_.dtype, types.UniTuple)
        if not isinstance(range_, (RangeType, NdRangeType)) and _dims(range_) is None and not nested:
            raise UnsupportedError(
                f"numba_ext.call_kernel in jitted code takes a Range, an NdRange, an int or a tuple of "
                f"ints as the launch range, not a value of type {range_}"
            )
        # the kernel's arguments as one tuple, as Numba's lowering passes *args
        sig = signature(types.none, k, range_, types.StarArgTuple.from_types(args[2:]))
        return sig.replace(pysig=utils.pysignature(call_kernel))


@lower_builtin(call_kernel, KernelType, types.Any, types.BaseTuple)
def _lower_call_kernel(context: Any, builder: Any, sig: Any, args: Any) -> Any:
    """Box the launch's range and arguments and call ``call_kernel`` with the GIL held; a Python
    error (placement, launch) leaves the jitted function with that error."""
    pyapi = context.get_python_api(builder)
    env_manager = context.get_env_manager(builder)
    gil = pyapi.gil_ensure()
    argtys = [sig.args[1], *sig.args[2].types]
    argvals = [args[1], *cgutils.unpack_tuple(builder, args[2], len(sig.args[2]))]
    objs = []
    for t, v in zip(argtys, argvals):
        context.nrt.incref(builder, t, v)  # boxing takes over a reference
        objs.append(pyapi.from_native_value(t, v, env_manager))
    failed = cgutils.false_bit
    for o in objs:
        failed = builder.or_(failed, cgutils.is_null(builder, o))
    res = cgutils.alloca_once_value(builder, cgutils.get_null_value(pyapi.pyobj))
    with builder.if_then(builder.not_(failed), likely=True):
        fn = env_manager.read_const(env_manager.add_const(call_kernel))
        kern = env_manager.read_const(env_manager.add_const(sig.args[0].kernel))
        builder.store(pyapi.call_function_objargs(fn, [kern, *objs]), res)
    for o in objs:
        pyapi.decref(o)  # Py_DecRef: a null (failed) one is skipped
    result = builder.load(res)
    with builder.if_then(cgutils.is_null(builder, result), likely=False):
        pyapi.gil_release(gil)
        context.call_conv.return_exc(builder)
    pyapi.decref(result)
    pyapi.gil_release(gil)
    return context.get_dummy_value()
