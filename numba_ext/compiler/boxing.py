"""Boxing and unboxing of numba_ext arrays: jitted code copies an array's native image in, and
returns new arrays as native images the extension wraps (rust/src/python/native.rs)."""

from __future__ import annotations

import llvmlite.ir as llir
from numba.extending import NativeValue, box, unbox

from .host_abi import I8P, declare
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
    """A numba_ext.ndarray taking over the struct's meminfo reference, on the queue the struct records
    (rust/src/python/native.rs); its NumPy descriptor is made on first use."""
    nativeary = c.context.make_array(typ)(c.context, c.builder, value=val)
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
