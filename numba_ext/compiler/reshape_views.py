"""``x.reshape(shape)`` / ``np.reshape(x, shape)`` of numba_ext arrays of any layout in jitted code.

Numba reshapes only contiguous arrays. For strided views (``x[:, 0]``, ``x[::2]``, ``x.T``) this
does what NumPy does: a view with new strides where the memory allows one, otherwise a C-contiguous
copy on the array's queue (a kernel), reshaped. The result's layout is "A" (any), since which of
the two it is depends on the strides at run time. The rewrite in ``numpy_calls`` sends the calls
to ``nx_reshape``; NumPy arrays and contiguous numba_ext arrays keep Numba's reshape."""

from __future__ import annotations

import numpy as np
from llvmlite import ir as llir
from numba.core import cgutils, types
from numba.core.typing import signature
from numba.extending import intrinsic, overload
from numba.np import arrayobj

from ..errors import UnsupportedError
from .numpy_calls import NOT_REWRITTEN, host_reshape, nx_reshape
from .types import USMArrayType


def _int_tuple(t) -> bool:
    return isinstance(t, types.BaseTuple) and all(isinstance(e, types.Integer) for e in t)


@intrinsic
def reshape_view(typingctx, a, shape):
    """(ok, view): `a` reshaped to `shape` (a tuple of integers, one of them may be -1) without a
    copy, ok False where its strides allow none (the view is then not to be used). A wrong size
    raises NumPy's ValueError."""
    if not (isinstance(a, USMArrayType) and _int_tuple(shape)):
        return None
    ret = types.Tuple((types.boolean, a.copy(ndim=len(shape), layout="A")))

    def codegen(context, builder, sig, args):
        aryty, shapety = sig.args
        view_ty = sig.return_type[1]
        intp = context.get_value_type(types.intp)
        nd = len(shapety)
        ary = context.make_array(aryty)(context, builder, args[0])
        items = [
            context.cast(builder, v, t, types.intp)
            for v, t in zip(cgutils.unpack_tuple(builder, args[1]), shapety)
        ]
        newshape = cgutils.alloca_once(builder, llir.ArrayType(intp, nd))
        builder.store(cgutils.pack_array(builder, items, intp), newshape)
        shape_ary_ty = types.Array(types.intp, 1, "C")
        shape_ary = context.make_array(shape_ary_ty)(context, builder)
        itemsize = context.get_constant(types.intp, context.get_abi_sizeof(intp))
        arrayobj.populate_array(
            shape_ary,
            data=builder.bitcast(newshape, intp.as_pointer()),
            shape=[context.get_constant(types.intp, nd)],
            strides=[itemsize],
            itemsize=itemsize,
            meminfo=None,
        )
        context.compile_internal(
            builder,
            arrayobj.normalize_reshape_value,
            signature(types.void, types.uintp, shape_ary_ty),
            [ary.nitems, shape_ary._getvalue()],
        )
        newstrides = cgutils.alloca_once(builder, llir.ArrayType(intp, nd))
        ok = arrayobj._attempt_nocopy_reshape(context, builder, aryty, ary, nd, newshape, newstrides)
        view = context.make_array(view_ty)(context, builder)
        arrayobj.populate_array(
            view,
            data=ary.data,
            shape=builder.load(newshape),
            strides=builder.load(newstrides),
            itemsize=ary.itemsize,
            meminfo=ary.meminfo,
            parent=ary.parent,
        )
        if context.enable_nrt:
            context.nrt.incref(builder, view_ty, view._getvalue())
        flag = builder.icmp_unsigned("!=", ok, ok.type(0))
        return context.make_tuple(builder, sig.return_type, [flag, view._getvalue()])

    return signature(ret, a, shape), codegen


def _reshape_strided(a, shape):
    ok, v = reshape_view(a, shape)
    if ok:
        return v
    return reshape_view(np.ascontiguousarray(a), shape)[1]


def _reshape_strided_int(a, shape):
    ok, v = reshape_view(a, (shape,))
    if ok:
        return v
    return reshape_view(np.ascontiguousarray(a), (shape,))[1]


NOT_REWRITTEN.update({_reshape_strided, _reshape_strided_int})


@overload(nx_reshape)
def _ov_reshape(a, shape):
    if not isinstance(a, USMArrayType) or a.layout == "C":
        return host_reshape
    if isinstance(shape, types.Integer):
        return _reshape_strided_int
    if not _int_tuple(shape):
        raise UnsupportedError(
            f"reshape of a numba_ext array takes integers or a tuple of integers, got {shape}"
        )
    return _reshape_strided
