"""The Numba type of ``numba_ext.ndarray``: a ``types.Array`` that also carries the USM type and the
device (filter string), so compiled code is specialised per device and keyed by types, not queues.

Data model: Numba's array struct followed by one extra field, ``queue`` (the address of the Rust
queue). Because the extra field is last, the struct prefix is exactly Numba's array layout and all of
Numba's array code (indexing, ``.shape``, NRT adaptors) works on it unchanged."""

from __future__ import annotations

import functools
import linecache
import os
import sys
from types import FrameType

import numba
import numpy as np
from numba.core import ir, types
from numba.core.datamodel import models
from numba.extending import register_model, typeof_impl
from numba.np import numpy_support

from .. import _core
from ..arrays import hooks, ndarray
from ..errors import ExecutionPlacementError
from ..ir import numba_loops
from ..placement import coerce_usm_types


class USMArrayType(types.Array):
    """Array in USM memory on `device` (filter string) with USM type `usm_type`."""

    def __init__(self, dtype, ndim, layout, usm_type="device", device="", readonly=False, aligned=True):
        self.usm_type = usm_type
        self.device = device
        name = f"USMArray({dtype}, {ndim}d, {layout}, {usm_type}, {device}{', readonly' if readonly else ''})"
        super().__init__(dtype, ndim, layout, readonly=readonly, name=name, aligned=aligned)

    @property
    def key(self):
        return (*super().key, self.usm_type, self.device)

    @property
    def mangling_args(self):
        return self.__class__.__name__, (self.dtype, self.ndim, self.layout, self.usm_type, self.device)

    def copy(self, dtype=None, ndim=None, layout=None, readonly=None, usm_type=None, device=None):
        return USMArrayType(
            dtype=self.dtype if dtype is None else dtype,
            ndim=self.ndim if ndim is None else ndim,
            layout=self.layout if layout is None else layout,
            usm_type=self.usm_type if usm_type is None else usm_type,
            device=self.device if device is None else device,
            readonly=(not self.mutable) if readonly is None else readonly,
            aligned=self.aligned,
        )

    def unify(self, typingctx, other):
        if isinstance(other, USMArrayType) and other.device == self.device and other.ndim == self.ndim:
            if other.dtype == self.dtype or not other.dtype.is_precise():
                return self.copy(
                    layout=self.layout if self.layout == other.layout else "A",
                    usm_type=coerce_usm_types([self.usm_type, other.usm_type]),
                    readonly=not (self.mutable and other.mutable),
                )
        return None

    def can_convert_to(self, typingctx, other):
        if (
            isinstance(other, USMArrayType)
            and other.device == self.device
            and other.usm_type == self.usm_type
        ):
            return super().can_convert_to(typingctx, other)
        return None

    @property
    def box_type(self):
        return ndarray

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """Result type of a ufunc / operator on our arrays: our array on the same device, with the
        USM type given by the precedence device < shared < host."""
        if method != "__call__":
            return NotImplemented
        arrays = [a for a in inputs if isinstance(a, types.Array)]
        ours = [a for a in arrays if isinstance(a, USMArrayType)]
        if len(ours) != len(arrays):
            raise ExecutionPlacementError(
                f"{ufunc.__name__} mixes a numba_ext array with a NumPy array; the queue of the NumPy "
                "data cannot be inferred (compute follows data). Convert it with numba_ext.asarray(x, "
                "sycl_queue=<the numba_ext array's queue>) or keep the two apart" + source_location()
            )
        devices = sorted({a.device for a in ours})
        if len(devices) > 1:
            raise ExecutionPlacementError(
                f"{ufunc.__name__} combines arrays on different devices {devices}; copy them to one "
                "queue first with numba_ext.asarray(x, sycl_queue=q)" + source_location()
            )
        force = None
        if ufunc is np.true_divide and all(
            isinstance(getattr(a, "dtype", a), (types.Integer, types.Boolean)) for a in inputs
        ):
            force = types.float64  # NumPy divides integers and bools in float64 (Numba: float32 for int8)
        elif ufunc.nout == 1 and any(getattr(a, "dtype", a) == types.float16 for a in inputs):
            force = half_result(ufunc, inputs)  # Numba has no float16 loops: it picks float32 ones
        return result_class(coerce_usm_types([a.usm_type for a in ours]), devices[0], force)


def half_result(ufunc, inputs) -> types.Type | None:
    """NumPy's result dtype for `ufunc` on `inputs`, some of them float16 (arrays by dtype, scalars
    as weak Python scalars), or None (``numba_loops.numpy_half_loop``)."""
    try:
        ops = [
            numba_loops.promotion_operand(
                numpy_support.as_dtype(getattr(a, "dtype", a)).name, not isinstance(a, types.Array)
            )
            for a in inputs
        ]
    except NotImplementedError:
        return None
    loop = numba_loops.numpy_half_loop(ufunc, ops)
    return None if loop is None else numpy_support.from_dtype(np.dtype(loop[1]))


def source_location(user_code: bool = False) -> str:
    """' (at file:line)' of the statement Numba is typing, found on the type-inference stack; with
    `user_code`, the innermost one outside Numba's and numba_ext's own sources (the user's statement
    whose typing compiles a library implementation)."""
    skip = tuple(
        os.path.dirname(os.path.realpath(str(m.__file__))) + os.sep for m in (numba, sys.modules["numba_ext"])
    )
    f: FrameType | None = sys._getframe(1)
    while f is not None:
        for name in ("inst", "self", "loc"):
            obj = f.f_locals.get(name)
            loc = obj if isinstance(obj, ir.Loc) else getattr(obj, "loc", None)
            if isinstance(loc, ir.Loc):
                break
        if isinstance(loc, ir.Loc) and user_code and os.path.realpath(loc.filename).startswith(skip):
            loc = None
        if isinstance(loc, ir.Loc):
            return (
                f" (at {loc.filename}, line {loc.line}: {linecache.getline(loc.filename, loc.line).strip()})"
            )
        f = f.f_back
    return ""


@functools.cache
def result_class(usm_type: str, device: str, dtype: types.Type | None = None):
    """A class Numba's ufunc typing can call as ``cls(dtype=, ndim=, layout=)`` (it insists on a
    ``types.Array`` subclass); it builds a plain USMArrayType with our USM type and device (and
    `dtype` instead of the one Numba's loop selection gives, where NumPy's type resolution differs)."""
    force = dtype

    class _USMArrayResult(USMArrayType):
        def __new__(cls, dtype, ndim, layout, readonly=False, aligned=True):
            dtype = force or dtype
            return USMArrayType(dtype, ndim, layout, usm_type=usm_type, device=device, readonly=readonly)

    return _USMArrayResult


def layout_of(desc) -> str:
    if desc.flags.c_contiguous:
        return "C"
    if desc.flags.f_contiguous:
        return "F"
    return "A"


_types_cache: dict = {}


def numba_type_of(val) -> USMArrayType:
    """The Numba type of a numba_ext.ndarray (kept by the array in its ``_numba_type_`` slot)."""
    desc = val._desc
    key = (
        desc.dtype,
        desc.ndim,
        layout_of(desc),
        val._usm_type,
        val.device.filter_string,
        not desc.flags.writeable,
    )
    t = _types_cache.get(key)
    if t is None:
        dtype, ndim, layout, usm_type, device, readonly = key
        t = _types_cache[key] = USMArrayType(
            numpy_support.from_dtype(dtype), ndim, layout, usm_type=usm_type, device=device, readonly=readonly
        )
    return t


@functools.cache
def array_info(typ: USMArrayType, exact: bool = True):
    """What the extension needs to box (and examine) arrays of Numba type `typ`
    (rust/src/python/native.rs); `exact`: `typ` is the type typeof() gives such arrays."""
    np_dtype = numpy_support.as_dtype(typ.dtype)
    return _core.ArrayInfo(ndarray, typ.usm_type, typ if exact else None, np_dtype.str, not typ.mutable)


@typeof_impl.register(ndarray)
def _typeof_ndarray(val, c):
    return val._numba_type_  # an array's type never changes: computed once (numba_type_of)


@register_model(USMArrayType)
class USMArrayModel(models.StructModel):
    def __init__(self, dmm, fe_type):
        ndim = fe_type.ndim
        members = [
            ("meminfo", types.MemInfoPointer(fe_type.dtype)),
            ("parent", types.pyobject),
            ("nitems", types.intp),
            ("itemsize", types.intp),
            ("data", types.CPointer(fe_type.dtype)),
            ("shape", types.UniTuple(types.intp, ndim)),
            ("strides", types.UniTuple(types.intp, ndim)),
            ("queue", types.voidptr),
        ]
        super().__init__(dmm, fe_type, members)


class _ArrayTyping:
    """What the arrays layer asks of the compiler (``arrays.hooks.ArrayTyping``)."""

    numba_type_of = staticmethod(numba_type_of)

    @staticmethod
    def array_info(numba_type):
        return array_info(numba_type)

    @staticmethod
    def new_array_info(dtype, ndim: int, usm_type: str, device: str):
        t = USMArrayType(numpy_support.from_dtype(dtype), ndim, "C", usm_type=usm_type, device=device)
        return array_info(t)


hooks.register_typing(_ArrayTyping())
