"""Host-side LLVM helpers for jitted code that calls the extension's C ABI: declarations, result
allocation on a queue, broadcasting, and kernel argument slots."""

from __future__ import annotations

import llvmlite.ir as llir
from numba.core import cgutils, types
from numba.np.arrayobj import populate_array

from ..errors import UnsupportedError

#: The USM kind codes of the C ABI (``nx_usm_alloc``).
USM_CODES = {"device": 0, "shared": 1, "host": 2}
I8P = llir.IntType(8).as_pointer()
I64 = llir.IntType(64)
I32 = llir.IntType(32)


def declare(builder, name: str, ret, args):
    """The declaration of the C ABI function `name` in the builder's module."""
    return cgutils.get_or_insert_function(builder.module, llir.FunctionType(ret, args), name)


def broadcast_shape(context, builder, arrays, ndim):
    """NumPy's broadcast shape of `arrays` ((type, array struct) pairs) over `ndim` dimensions
    (right-aligned dimensions must be equal or 1; a ValueError otherwise), and whether any array
    actually broadcasts."""
    shapes = [(ty.ndim, cgutils.unpack_tuple(builder, ary.shape, ty.ndim)) for ty, ary in arrays]
    shape = []
    for d in range(ndim):
        s = cgutils.intp_t(1)
        for k, dims in shapes:
            if d >= ndim - k:
                dim = dims[d - (ndim - k)]
                s = builder.select(builder.icmp_unsigned("!=", dim, dim.type(1)), dim, s)
        shape.append(s)
    bad, broadcast = cgutils.false_bit, cgutils.false_bit
    for k, dims in shapes:
        if k != ndim:
            broadcast = cgutils.true_bit
        for ad, dim in enumerate(dims):
            want = shape[ad + ndim - k]
            same = builder.icmp_unsigned("==", dim, want)
            bad = builder.or_(
                bad, builder.and_(builder.not_(same), builder.icmp_unsigned("!=", dim, dim.type(1)))
            )
            broadcast = builder.or_(broadcast, builder.not_(same))
    with cgutils.if_unlikely(builder, bad):
        context.call_conv.return_user_exc(
            builder,
            ValueError,
            ("operands of an offloaded array expression could not be broadcast together",),
        )
    return shape, broadcast


def broadcast_strides(builder, ty, ary, shape):
    """An array's byte strides over the broadcast `shape`: 0 where it broadcasts."""
    ndim, k = len(shape), ty.ndim
    dims = cgutils.unpack_tuple(builder, ary.shape, k)
    strides = cgutils.unpack_tuple(builder, ary.strides, k)
    out = []
    for d in range(ndim):
        if d < ndim - k:
            out.append(I64(0))
        else:
            ad = d - (ndim - k)
            same = builder.icmp_unsigned("==", dims[ad], shape[d])
            out.append(builder.select(same, strides[ad], I64(0)))
    return out


def allocate_result(context, builder, out_type, queue, shape, nitems, order="C"):
    """A new C-contiguous (or, with `order` "F", Fortran-contiguous) result array on `queue` (USM
    type from the precedence rules)."""
    itemsize = context.get_abi_sizeof(context.get_data_type(out_type.dtype))
    nbytes = builder.mul(nitems, cgutils.intp_t(itemsize))
    mi_slot = cgutils.alloca_once(builder, I8P)
    alloc = declare(builder, "nx_usm_alloc", I8P, [I8P, I64, I32, I8P.as_pointer()])
    data = builder.call(alloc, [queue, nbytes, I32(USM_CODES[out_type.usm_type]), mi_slot])
    with cgutils.if_unlikely(builder, cgutils.is_null(builder, data)):
        context.call_conv.return_exc(builder)
    out = context.make_array(out_type)(context, builder)
    strides, acc = [], cgutils.intp_t(itemsize)
    for s in reversed(shape) if order == "C" else shape:
        strides.append(acc)
        acc = builder.mul(acc, s)
    if order == "C":
        strides.reverse()
    populate_array(
        out,
        data=builder.bitcast(data, out.data.type),
        shape=cgutils.pack_array(builder, shape, cgutils.intp_t),
        strides=cgutils.pack_array(builder, strides, cgutils.intp_t),
        itemsize=cgutils.intp_t(itemsize),
        meminfo=builder.bitcast(builder.load(mi_slot), out.meminfo.type),
    )
    out.queue = queue
    return out


def scalar_slots(context, builder, ty, v):
    """A scalar argument's launch slots: one (`scalar_bits`), or for a complex value two, the bits of
    its real and imaginary parts."""
    if isinstance(ty, types.Complex):
        part = ty.underlying_float
        return [scalar_bits(context, builder, part, builder.extract_value(v, i)) for i in (0, 1)]
    return [scalar_bits(context, builder, ty, v)]


def scalar_bits(context, builder, ty, v):
    """A scalar argument's bits in the low bytes of a u64 slot."""
    if isinstance(ty, types.Boolean):
        return builder.zext(v, I64)
    if isinstance(ty, types.Float):
        ival = builder.bitcast(v, llir.IntType(ty.bitwidth))
        return builder.zext(ival, I64) if ty.bitwidth < 64 else ival
    if isinstance(ty, types.Integer):
        return builder.zext(v, I64) if ty.bitwidth < 64 else v
    raise UnsupportedError(f"scalar argument of type {ty} cannot be passed to a kernel")
