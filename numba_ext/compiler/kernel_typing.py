"""Numba typing of the OpenCL-style kernel API (the item style's is ``item_typing.py``). Only
typing: kernels are translated from typed Numba IR to the control-flow kernel IR by
``kernel_translate.py``, never lowered by Numba."""

from __future__ import annotations

from numba.core import types
from numba.extending import type_callable

from . import intrinsics
from .item_typing import check_atomic


def _int_arg(t) -> bool:
    return isinstance(t, types.Integer)


for _fn in intrinsics.WORK_ITEM_FUNCTIONS:

    @type_callable(_fn)
    def _type_work_item(context):
        def typer(dim):
            if _int_arg(dim):
                return types.int64

        return typer


@type_callable(intrinsics.barrier)
def _type_barrier(context):
    def typer(flags=None):
        if flags is None or _int_arg(flags):
            return types.none

    return typer


def _shape_ndim(shape):
    if isinstance(shape, types.Integer):
        return 1
    if isinstance(shape, types.BaseTuple) and all(isinstance(t, types.Integer) for t in shape.types):
        return len(shape.types)
    return None


def _dtype_of(dtype):
    if isinstance(dtype, types.functions.NumberClass):
        return dtype.dtype
    if isinstance(dtype, types.DTypeSpec):
        return dtype.dtype
    return None


for _fn in (intrinsics.local_array, intrinsics.private_array):

    @type_callable(_fn)
    def _type_array(context):
        def typer(shape, dtype):
            ndim, dt = _shape_ndim(shape), _dtype_of(dtype)
            if ndim is not None and dt is not None:
                return types.Array(dt, ndim, "C")

        return typer


for _fn, _op in intrinsics.ATOMIC_OPS.items():
    if _op == "compare_exchange":
        continue

    def _make_atomic_typing(op: str):
        def _type_atomic(context):
            def typer(array, index, value):
                if isinstance(array, types.Array):
                    check_atomic(op, array.dtype, value)
                    return array.dtype

            return typer

        return _type_atomic

    type_callable(_fn)(_make_atomic_typing(_op))


@type_callable(intrinsics.atomic_compare_exchange)
def _type_cas(context):
    def typer(array, index, expected, value):
        if isinstance(array, types.Array):
            check_atomic("compare_exchange", array.dtype, expected)
            check_atomic("compare_exchange", array.dtype, value)
            return array.dtype

    return typer
