"""Building a control-flow kernel (``kernel_ir.Function``): the mutable builder that translation
writes into, the values translated variables are bound to besides operands, and
``emit_spec_element``, which inlines a dataflow ``KernelSpec`` at one element (the array expressions
fused into parallel loops)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeGuard

import numpy as np

from ..errors import UnsupportedError
from ..ir.kernel_ir import (
    ArrayDecl,
    Binary,
    BinaryInst,
    Block,
    Cast,
    CastInst,
    Const,
    FnArrayParam,
    FnParam,
    FnScalarParam,
    Function,
    Imm,
    Inst,
    KernelSpec,
    Load,
    LoadInst,
    Local,
    Operand,
    Scalar,
    ScalarArg,
    Select,
    SelectInst,
    Space,
    Store,
    StoreInst,
    Term,
    Unary,
    UnaryInst,
)


def const(dtype: str, value: Scalar | np.generic) -> Imm:
    """An immediate operand (NumPy scalars become Python numbers; bools stay bools)."""
    v = value.item() if isinstance(value, np.generic) else value
    return Imm(dtype, bool(v) if dtype == "bool" else v)


def is_operand(v: object) -> TypeGuard[Operand]:
    return isinstance(v, (Local, Imm))


@dataclass(frozen=True, slots=True)
class ArrayRef:
    """A variable bound to array `index` of the function being built."""

    index: int


@dataclass(frozen=True, slots=True)
class Element:
    """A variable bound to an array expression fused into a parallel loop: its element at the loop's
    index (the only way the loop reads it), computed before the body."""

    value: Operand


@dataclass(frozen=True, slots=True)
class Range:
    """A variable bound to ``range(start, stop, step)``."""

    start: Operand
    stop: Operand
    step: Operand


class _OpenBlock:
    __slots__ = ("insts", "term")

    def __init__(self) -> None:
        self.insts: list[Inst] = []
        self.term: Term | None = None


class FunctionBuilder:
    """The function being built: locals, arrays, parameters and blocks (shared by a kernel and the
    device functions inlined into it)."""

    def __init__(self, name: str, work_dim: int | None = None) -> None:
        self.name = name
        #: the launch's number of dimensions where the function is compiled per launch rank (kernels)
        self.work_dim = work_dim
        self.locals: list[str] = []
        self.arrays: list[ArrayDecl] = []
        self.params: list[FnParam] = []
        self._blocks: list[_OpenBlock] = []
        #: set when a device function declared with boundscheck=True is inlined
        self.boundscheck_requested = False

    def new_local(self, dtype: str) -> int:
        self.locals.append(dtype)
        return len(self.locals) - 1

    def new_block(self) -> int:
        self._blocks.append(_OpenBlock())
        return len(self._blocks) - 1

    def new_array(
        self,
        name: str,
        dtype: str,
        ndim: int,
        space: Space,
        shape: tuple[int, ...] = (),
        contiguous: bool = False,
    ) -> int:
        """`contiguous`: a global array known (from its Numba type's layout) to be C-contiguous, whose
        strides the kernel then computes from its shape."""
        self.arrays.append(ArrayDecl(name, dtype, ndim, space, tuple(shape), bool(contiguous)))
        return len(self.arrays) - 1

    def array_param(self, name: str, dtype: str, ndim: int, contiguous: bool) -> int:
        """A new global array passed as the next parameter; returns its array index."""
        a = self.new_array(name, dtype, ndim, "global", contiguous=contiguous)
        self.params.append(FnArrayParam(a))
        return a

    def scalar_param(self, dtype: str) -> int:
        """A new local bound to the next parameter; returns its local index."""
        loc = self.new_local(dtype)
        self.params.append(FnScalarParam(loc))
        return loc

    def dtype_of(self, op: Operand) -> str:
        return self.locals[op.index] if isinstance(op, Local) else op.dtype

    def emit(self, block: int, *insts: Inst) -> None:
        self._blocks[block].insts.extend(insts)

    def terminate(self, block: int, term: Term) -> None:
        self._blocks[block].term = term

    def terminator(self, block: int) -> Term | None:
        return self._blocks[block].term

    def function(self, bounds: int | None = None) -> Function:
        """The finished function (`bounds`: its bounds-check array, see ``kernel_ir``)."""
        blocks = []
        for i, b in enumerate(self._blocks):
            if b.term is None:
                raise UnsupportedError(f"internal: block {i} of {self.name} has no terminator")
            blocks.append(Block(tuple(b.insts), b.term))
        return Function(
            self.name, tuple(self.locals), tuple(self.arrays), tuple(self.params), tuple(blocks), bounds
        )


def emit_spec_element(
    fb: FunctionBuilder, block: int, spec: KernelSpec, ops: list[ArrayRef | Local], index: tuple[Operand, ...]
) -> Operand | None:
    """Append to `block` the instructions computing a KernelSpec (kernelspec.py; an array expression
    fused into a parallel loop, parfor_kernel.py) at one element `index` (int64 operands): `ops` are
    the operands of its parameters (arrays, scalar locals; an output parameter without operand is
    not stored). Returns the operand of the last stored value."""
    vals: list[Operand | None] = []
    last = None

    def new(dt: str, inst: Callable[..., Inst], *args: object) -> Operand:
        loc = fb.new_local(dt)
        fb.emit(block, inst(loc, *args))
        return Local(loc)

    def val(i: int) -> Operand:
        v = vals[i]
        if v is None:
            raise UnsupportedError("internal: a stored value used as an operand in a fused loop")
        return v

    def param(p: int) -> int:
        return ops[p].index

    v: Operand | None
    for node in spec.nodes:
        match node:
            case Load(dtype=dt, param=p):
                v = new(dt, LoadInst, param(p), index)
            case ScalarArg(param=p):
                scalar = ops[p]
                if not isinstance(scalar, Local):
                    raise UnsupportedError("internal: a scalar parameter without a local in a fused loop")
                v = scalar
            case Const(dtype=dt, value=c):
                v = const(dt, c)
            case Cast(dtype=dt, arg=a):
                v = val(a) if fb.dtype_of(val(a)) == dt else new(dt, CastInst, val(a))
            case Unary(dtype=dt, op=name, arg=a):
                v = new(dt, UnaryInst, name, val(a))
            case Binary(dtype=dt, op=name, lhs=x, rhs=y):
                v = new(dt, BinaryInst, name, val(x), val(y))
            case Select(dtype=dt, cond=c, a=x, b=y):
                v = new(dt, SelectInst, val(c), val(x), val(y))
            case Store(param=p, value=x):
                last = val(x)
                if p < len(ops):
                    fb.emit(block, StoreInst(param(p), index, last))
                v = None
            case _:
                raise UnsupportedError(f"internal: region node {node!r} in a fused loop")
        vals.append(v)
    return last
