"""Indexing as Numba's in kernel code: the negative-index wrap of user indices, the bounds-check
setting, and the hidden error array of a bounds-checked kernel.

A signed index ``i`` of an array access becomes ``i + extent`` where ``i < 0`` (a ``Wrap``
instruction, which the Rust lowering leaves out where ``i`` is provably non-negative, such as a
work-item id or a loop counter from zero); unsigned indices are not wrapped, as in NumPy. With bounds
checking on, the function gets one more array parameter, ``BOUNDS_RECORD_LEN`` ``int64`` values that
the launcher allocates per launch and reads afterwards (``kernels/bounds.py``): the lowering checks
every other access against its extents and records the first one out of bounds there."""

from __future__ import annotations

from typing import TYPE_CHECKING

from numba.core import config

from ..ir.kernel_ir import BinaryInst, Dim, Imm, Operand, Wrap
from .function_builder import FunctionBuilder, const

if TYPE_CHECKING:
    from .kernel_translate import Translator

#: the name of the hidden error-record parameter of a bounds-checked function
BOUNDS_ARRAY = "__numba_ext_bounds"


def boundscheck_setting(option: bool | None) -> bool | None:
    """Numba's rule: ``NUMBA_BOUNDSCHECK`` (0 or 1; Numba's ``config.BOUNDSCHECK``), when set,
    overrides the decorator's ``boundscheck=``; otherwise the option (None: not set, which is off
    unless a device function the kernel calls asks for checks)."""
    env = config.BOUNDSCHECK
    return bool(env) if env is not None else option


def add_bounds_array(fb: FunctionBuilder) -> int:
    """The hidden error-record array, the function's last parameter; returns its array index."""
    return fb.array_param(BOUNDS_ARRAY, "int64", 1, True)


def _signed(tr: Translator, op: Operand) -> bool:
    return tr.dt(op).startswith("int")


def wrap(tr: Translator, i: Operand, extent: Operand) -> Operand:
    """`i` wrapped by `extent` where it may be negative (a signed, non-constant index), as int64;
    unsigned and bool indices unchanged."""
    if not _signed(tr, i):
        return i
    i = tr.cast(i, "int64")
    if isinstance(i, Imm):
        return i if int(i.value.real) >= 0 else _add(tr, i, extent)
    dst, dst_op = tr.new_value("int64")
    tr.emit(Wrap(dst, i, tr.cast(extent, "int64")))
    return dst_op


def _add(tr: Translator, a: Operand, b: Operand) -> Operand:
    b = tr.cast(b, "int64")
    if isinstance(a, Imm) and isinstance(b, Imm):
        return const("int64", int(a.value.real) + int(b.value.real))
    dst, dst_op = tr.new_value("int64")
    tr.emit(BinaryInst(dst, "add", a, b))
    return dst_op


def wrap_indices(tr: Translator, array: int, ops: list[Operand]) -> list[Operand]:
    """The indices of an access of `array` (one per dimension), each wrapped by its extent."""
    decl = tr.fb.arrays[array]
    out = []
    for d, i in enumerate(ops):
        if not _signed(tr, i) or (isinstance(i, Imm) and int(i.value.real) >= 0):
            out.append(i)
            continue
        if decl.space == "global":
            n, n_op = tr.new_value("int64")
            tr.emit(Dim(n, array, d))
            extent: Operand = n_op
        else:
            extent = const("int64", decl.shape[d])
        out.append(wrap(tr, i, extent))
    return out


__all__ = ["BOUNDS_ARRAY", "add_bounds_array", "boundscheck_setting", "wrap", "wrap_indices"]
