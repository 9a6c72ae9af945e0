"""float16 values in host code compiled by Numba: their data model (LLVM ``half``) and their boxing,
which Numba's CPU target lacks (its CUDA target has them). ``numba_hooks.install`` registers them by
wrapping Numba's handlers for ``types.Float``; float32 and float64 keep Numba's own.

Numba's CPU typing has no float16 arithmetic: host code holds float16 arrays and values, converts
them (``np.float32(h)``, ``np.float16(x)``) and passes them on; the offloaded code (kernels, array
expressions, prange loops) computes on them. Boxing gives a Python float (as Numba boxes float32),
unboxing rounds a Python number to half precision.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from llvmlite import ir as llvm_ir
from numba.core import types
from numba.core.datamodel.models import PrimitiveModel
from numba.core.pythonapi import NativeValue

from ..errors import UnsupportedError


class HalfModel(PrimitiveModel):
    """float16 in host code: LLVM ``half``."""

    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, llvm_ir.HalfType())


def float_model_with_half(handler: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """Numba's data model handler for ``types.Float``, extended with ``float16``."""

    def model(dmm, fe_type):
        return HalfModel(dmm, fe_type) if fe_type == types.float16 else handler(dmm, fe_type)

    return model


def box_float_with_half(box: Callable[[Any, Any, Any], Any]) -> Callable[[Any, Any, Any], Any]:
    """Numba's boxing of ``types.Float``, extended with ``float16`` (a Python float)."""

    def box_float(typ, val, c):
        if typ != types.float16:
            return box(typ, val, c)
        return c.pyapi.float_from_double(c.builder.fpext(val, c.pyapi.double))

    return box_float


def unbox_float_with_half(unbox: Callable[[Any, Any, Any], Any]) -> Callable[[Any, Any, Any], Any]:
    """Numba's unboxing of ``types.Float``, extended with ``float16`` (rounded once from double)."""

    def unbox_float(typ, obj, c):
        if typ != types.float16:
            return unbox(typ, obj, c)
        fobj = c.pyapi.number_float(obj)
        dbval = c.pyapi.float_as_double(fobj)
        c.pyapi.decref(fobj)
        val = c.builder.fptrunc(dbval, llvm_ir.HalfType())
        return NativeValue(val, is_error=c.pyapi.c_api_error())

    return unbox_float


def host_code_error(function: str, error: Exception) -> UnsupportedError:
    """The error for a float16 operation Numba's CPU target cannot compile in host code (NumPy
    ufuncs and ``np.sort`` on float16 values, for example), raised while compiling `function`."""
    return UnsupportedError(
        f"{function}: Numba cannot compile this float16 operation in host code ({error}); float16 "
        "arrays compute in offloaded code (array expressions, prange loops, kernels): convert float16 "
        "scalars first (np.float32(x)), or use float32 arrays (x.astype(np.float32))"
    )
