"""``numba_ext.Range`` and ``numba_ext.NdRange`` as arguments to and results of jitted functions.

``RangeType(ndim)`` is a tuple of ``ndim`` intp (all of Numba's tuple operations apply: ``r[0]``,
``len(r)``, unpacking) that boxes back to a ``Range``; ``NdRangeType(ndim)`` holds a global and a
local ``RangeType`` (``nd.global_range``, ``nd.local_range``) and boxes back to an ``NdRange``. Both
can also be built in jitted code: ``numba_ext.Range(n, m)``, ``numba_ext.NdRange(g, l)`` (the
values are checked when the result is boxed, by the classes' constructors)."""

from __future__ import annotations

from typing import Any

from numba.core import cgutils, types
from numba.core.datamodel import models
from numba.core.imputils import lower_builtin, lower_cast, lower_getattr
from numba.core.typing import signature
from numba.core.typing.templates import AbstractTemplate, AttributeTemplate, infer_getattr, infer_global
from numba.extending import NativeValue, box, register_model, typeof_impl, unbox

from .ranges import NdRange, Range


class RangeType(types.UniTuple):  # type: ignore[name-defined]
    """A ``numba_ext.Range`` of `ndim` dimensions."""

    def __init__(self, ndim: int) -> None:
        super().__init__(types.intp, ndim)
        self.name = f"Range({ndim}d)"

    @property
    def key(self) -> Any:
        return ("Range", self.count)

    def __unliteral__(self) -> Any:
        return self


class NdRangeType(types.Type):
    """A ``numba_ext.NdRange`` of `ndim` dimensions."""

    def __init__(self, ndim: int) -> None:
        self.ndim = ndim
        super().__init__(name=f"NdRange({ndim}d)")

    @property
    def key(self) -> Any:
        return self.ndim


register_model(RangeType)(models.UniTupleModel)


@register_model(NdRangeType)
class _NdRangeModel(models.StructModel):
    def __init__(self, dmm: Any, fe_type: Any) -> None:
        r = RangeType(fe_type.ndim)
        super().__init__(dmm, fe_type, [("global_range", r), ("local_range", r)])


@typeof_impl.register(Range)
def _typeof_range(val: Any, c: Any) -> Any:
    return RangeType(len(val))


@typeof_impl.register(NdRange)
def _typeof_ndrange(val: Any, c: Any) -> Any:
    return NdRangeType(len(val.global_range))


def _box_range(typ: Any, val: Any, c: Any) -> Any:
    """A new ``Range`` of the tuple `val` (a new reference)."""
    tup = c.box(types.UniTuple(types.intp, typ.count), val)
    cls = c.pyapi.unserialize(c.pyapi.serialize_object(Range))
    res = c.pyapi.call_function_objargs(cls, [tup])
    c.pyapi.decref(tup)
    c.pyapi.decref(cls)
    return res


box(RangeType)(_box_range)


@box(NdRangeType)
def _box_ndrange(typ: Any, val: Any, c: Any) -> Any:
    nd = cgutils.create_struct_proxy(typ)(c.context, c.builder, value=val)
    r = RangeType(typ.ndim)
    g, lo = _box_range(r, nd.global_range, c), _box_range(r, nd.local_range, c)
    cls = c.pyapi.unserialize(c.pyapi.serialize_object(NdRange))
    res = c.pyapi.call_function_objargs(cls, [g, lo])
    for o in (g, lo, cls):
        c.pyapi.decref(o)
    return res


@unbox(NdRangeType)
def _unbox_ndrange(typ: Any, obj: Any, c: Any) -> Any:
    nd = cgutils.create_struct_proxy(typ)(c.context, c.builder)
    r = RangeType(typ.ndim)
    failed = cgutils.false_bit
    for field in ("global_range", "local_range"):
        attr = c.pyapi.object_getattr_string(obj, field)
        v = c.unbox(r, attr)
        c.pyapi.decref(attr)
        setattr(nd, field, v.value)
        failed = c.builder.or_(failed, v.is_error)
    return NativeValue(nd._getvalue(), is_error=failed)


@infer_getattr
class _NdRangeAttributes(AttributeTemplate):
    key = NdRangeType

    def resolve_global_range(self, nd: Any) -> Any:
        return RangeType(nd.ndim)

    resolve_local_range = resolve_global_range


@lower_getattr(NdRangeType, "global_range")
def _ndrange_global(context: Any, builder: Any, typ: Any, value: Any) -> Any:
    return cgutils.create_struct_proxy(typ)(context, builder, value=value).global_range


@lower_getattr(NdRangeType, "local_range")
def _ndrange_local(context: Any, builder: Any, typ: Any, value: Any) -> Any:
    return cgutils.create_struct_proxy(typ)(context, builder, value=value).local_range


# -- construction in jitted code ---------------------------------------------------------------------
def _int_tuple(args: Any) -> int | None:
    """The number of dimensions `args` of Range(...) give: 1 to 3 integers, or one tuple of them."""
    if len(args) == 1 and isinstance(args[0], types.BaseTuple):
        args = tuple(args[0].types)
    if 1 <= len(args) <= 3 and all(isinstance(t, types.Integer) for t in args):
        return len(args)
    return None


@infer_global(Range)
class _RangeCall(AbstractTemplate):
    def generic(self, args: Any, kws: Any) -> Any:
        nd = None if kws else _int_tuple(args)
        return signature(RangeType(nd), *args) if nd else None


@infer_global(NdRange)
class _NdRangeCall(AbstractTemplate):
    def generic(self, args: Any, kws: Any) -> Any:
        if kws or len(args) != 2:
            return None
        g, lo = _int_tuple((args[0],)), _int_tuple((args[1],))
        return signature(NdRangeType(g), *args) if g and g == lo else None


def _as_range(context: Any, builder: Any, tys: Any, vals: Any) -> Any:
    """The intp tuple of Range(*vals)."""
    if len(tys) == 1 and isinstance(tys[0], types.BaseTuple):
        tys, vals = list(tys[0].types), cgutils.unpack_tuple(builder, vals[0], len(tys[0].types))
    items = [context.cast(builder, v, t, types.intp) for v, t in zip(vals, tys)]
    return context.make_tuple(builder, RangeType(len(items)), items)


@lower_builtin(Range, types.VarArg(types.Any))
def _range_impl(context: Any, builder: Any, sig: Any, args: Any) -> Any:
    return _as_range(context, builder, sig.args, args)


@lower_builtin(NdRange, types.Any, types.Any)
def _ndrange_impl(context: Any, builder: Any, sig: Any, args: Any) -> Any:
    nd = cgutils.create_struct_proxy(sig.return_type)(context, builder)
    nd.global_range = _as_range(context, builder, [sig.args[0]], [args[0]])
    nd.local_range = _as_range(context, builder, [sig.args[1]], [args[1]])
    return nd._getvalue()


@lower_cast(RangeType, types.UniTuple)
def _range_as_tuple(context: Any, builder: Any, fromty: Any, toty: Any, val: Any) -> Any:
    return context.cast(builder, val, types.UniTuple(types.intp, fromty.count), toty)
