"""Boxing and unboxing of numba_ext arrays: jitted code copies an array's native image in, and
returns new arrays as native images the extension wraps (rust/src/python/native.rs). As Numba does
for NumPy arrays, an unboxed array records its Python object as the struct's ``parent``, and boxing
an array that is still exactly that object's (same memory, view and type) returns the object
itself, so ``f(a) is a`` for a function returning its argument."""

from __future__ import annotations

import llvmlite.ir as llir
from numba.core import cgutils
from numba.extending import NativeValue, box, unbox

from .host_abi import I8P, I64, declare
from .types import USMArrayType, array_info


@unbox(USMArrayType)
def _unbox_usm_array(typ, obj, c):
    """Copy the array's native image (rust/src/python/native.rs: the struct words and one more
    reference to a meminfo that owns the memory and records the queue, so views keep the queue)."""
    nativeary = c.context.make_array(typ)(c.context, c.builder)
    aryptr = nativeary._getpointer()
    i32 = llir.IntType(32)
    fn = declare(c.builder, "nx_unbox", i32, [I8P, I8P, i32])
    st = c.builder.call(fn, [c.builder.bitcast(obj, I8P), c.builder.bitcast(aryptr, I8P), i32(typ.ndim)])
    failed = c.builder.icmp_signed("!=", st, st.type(0))
    nativeary.parent = obj  # borrowed, as Numba's own arrays do: the caller keeps the argument alive
    return NativeValue(c.builder.load(aryptr), is_error=failed)


def populate_array_with_queue(numba_populate_array):
    """Numba's ``populate_array`` (`numba_populate_array`), plus: arrays of our type take their queue
    from their meminfo (views share the meminfo of the array they view)."""

    def populate_array(array, data, shape, strides, itemsize, meminfo, parent=None):
        numba_populate_array(array, data, shape, strides, itemsize, meminfo, parent)
        if isinstance(array._fe_type, USMArrayType):
            builder = array._builder
            fn = declare(builder, "nx_meminfo_queue", I8P, [I8P])
            array.queue = builder.call(fn, [builder.bitcast(meminfo, I8P)])

    return populate_array


@box(USMArrayType)
def _box_usm_array(typ, val, c):
    """The struct's parent object when the struct still describes it exactly, else a new
    numba_ext.ndarray taking over the struct's meminfo reference, on the queue the struct records
    (rust/src/python/native.rs); its NumPy descriptor is made on first use."""
    nativeary = c.context.make_array(typ)(c.context, c.builder, value=val)
    res = cgutils.alloca_once(c.builder, c.pyapi.pyobj)
    same = _is_parent(typ, nativeary, c)
    with c.builder.if_else(same) as (then, otherwise):
        with then:
            c.pyapi.incref(nativeary.parent)
            c.builder.store(nativeary.parent, res)
            c.context.nrt.decref(c.builder, typ, val)  # the reference the struct gave us
        with otherwise:
            nativeary.parent = cgutils.get_null_value(nativeary.parent.type)  # the new array has none
            c.builder.store(_box_new(typ, nativeary, c), res)
    return c.builder.load(res)


def _box_new(typ, nativeary, c):
    # C layout: the type typeof() would give the result (for other layouts it is computed on first use)
    info = array_info(typ, typ.layout == "C")
    infoptr = c.env_manager.read_const(c.env_manager.add_const(info))
    fn = declare(c.builder, "nx_box", I8P, [I8P, llir.IntType(32), I8P])
    res = c.builder.call(
        fn,
        [
            c.builder.bitcast(nativeary._getpointer(), I8P),
            llir.IntType(32)(typ.ndim),
            c.builder.bitcast(infoptr, I8P),
        ],
    )
    return c.builder.bitcast(res, c.pyapi.pyobj)


def _is_parent(typ, nativeary, c):
    """Whether the struct's parent (the array object it was unboxed from, or null) has the struct's
    memory (meminfo), data pointer, shape, strides and Numba type: then it is the very array."""
    builder = c.builder
    same = cgutils.alloca_once_value(builder, cgutils.false_bit)
    parent = nativeary.parent
    with builder.if_then(cgutils.is_not_null(builder, parent), likely=False):
        # the parent's words, through the unboxing entry point (which takes a meminfo reference)
        theirs = c.context.make_array(typ)(c.context, builder)
        fn = declare(builder, "nx_unbox", llir.IntType(32), [I8P, I8P, llir.IntType(32)])
        st = builder.call(
            fn,
            [
                builder.bitcast(parent, I8P),
                builder.bitcast(theirs._getpointer(), I8P),
                llir.IntType(32)(typ.ndim),
            ],
        )
        with builder.if_else(builder.icmp_signed("==", st, st.type(0))) as (ok, failed):
            with ok:
                words = _words_equal(builder, nativeary, theirs, typ.ndim)
                c.context.nrt.decref(builder, typ, theirs._getvalue())
                with builder.if_then(words):
                    builder.store(_has_type(typ, parent, c), same)
            with failed:
                c.pyapi.err_clear()  # another rank: a view of the argument, not the argument
    return builder.load(same)


def _words_equal(builder, a, b, ndim):
    eq = builder.icmp_unsigned("==", builder.ptrtoint(a.meminfo, I64), builder.ptrtoint(b.meminfo, I64))
    eq = builder.and_(
        eq, builder.icmp_unsigned("==", builder.ptrtoint(a.data, I64), builder.ptrtoint(b.data, I64))
    )
    for field in ("shape", "strides"):
        for x, y in zip(
            cgutils.unpack_tuple(builder, getattr(a, field), ndim),
            cgutils.unpack_tuple(builder, getattr(b, field), ndim),
        ):
            eq = builder.and_(eq, builder.icmp_unsigned("==", x, y))
    return eq


def _has_type(typ, obj, c):
    """Whether `obj._numba_type_` is `typ` (Numba's types are interned: one object per type)."""
    pyapi = c.pyapi
    got = pyapi.object_getattr_string(obj, "_numba_type_")
    want = c.env_manager.read_const(c.env_manager.add_const(typ))
    res = cgutils.alloca_once_value(c.builder, cgutils.false_bit)
    with c.builder.if_else(cgutils.is_null(c.builder, got)) as (failed, ok):
        with failed:
            pyapi.err_clear()
        with ok:
            c.builder.store(
                c.builder.icmp_unsigned("==", c.builder.ptrtoint(got, I64), c.builder.ptrtoint(want, I64)),
                res,
            )
            pyapi.decref(got)
    return c.builder.load(res)
