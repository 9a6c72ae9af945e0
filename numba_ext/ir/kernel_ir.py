"""The kernel IR: the one typed structure Python hands to the Rust compiler.

A kernel crosses into Rust in one call, in one of two forms, each a tree of the frozen dataclasses
below:

* :class:`KernelSpec` (``_core.compile_kernel``, ``_core.kernel_llvm_ir``): the dataflow form of an
  elementwise region (built by ``spec_builder.SpecBuilder``). The kernel runs once per element of an
  ``ndim``-dimensional iteration space::

      KernelSpec(name, ndim, params: (ArrayParam | ScalarParam, ...), nodes: (Node, ...), version)
      ArrayParam(name, dtype, ndim, contiguous)     ScalarParam(name, dtype)
      Node = Load(dtype, param) | ScalarArg(dtype, param) | Const(dtype, value) | Cast(dtype, arg)
           | Unary(dtype, op, arg) | Binary(dtype, op, lhs, rhs) | Select(dtype, cond, a, b)
           | Store(dtype, param, value)

  ``param`` is an index into ``params``; ``arg``, ``lhs``, ``rhs``, ``cond``, ``a``, ``b`` and
  ``value`` are indices of earlier nodes. ``dtype`` is the dtype a node produces (for ``Store`` the
  stored dtype). ``contiguous`` marks an array that is C-contiguous with exactly the iteration shape.

* :class:`Function` (``_core.compile_function``): the control-flow form of explicit kernels,
  ``prange`` bodies and reductions (built by ``kernel_translate.FunctionBuilder``)::

      Function(name, locals: (dtype, ...), arrays: (ArrayDecl, ...),
               params: (FnArrayParam | FnScalarParam, ...), blocks: (Block, ...), bounds, version)
      ArrayDecl(name, dtype, ndim, space, shape, contiguous)
      FnArrayParam(array)                 FnScalarParam(local)
      Block(insts: (Inst, ...), term: Jump(target) | Branch(cond, then, otherwise) | Return())
      Operand = Local(index) | Imm(dtype, value)
      Inst = Copy(dst, src) | CastInst(dst, src) | UnaryInst(dst, op, src) | BinaryInst(dst, op, a, b)
           | SelectInst(dst, cond, a, b) | LoadInst(dst, array, index) | StoreInst(array, index, src)
           | Dim(dst, array, dim) | WorkItem(dst, query, dim) | Barrier(flags)
           | Atomic(dst | None, op, array, index, value, cmp | None, order, scope)
           | Fence(order, scope) | Wrap(dst, index, extent)

  ``dst``, ``local`` and ``Local.index`` index ``locals`` (the dtypes of typed mutable scalars);
  ``array`` indexes ``arrays``; ``index`` is a tuple of operands, one per dimension; block 0 is the
  entry and ``target``, ``then``, ``otherwise`` are block indices. ``space`` is ``"global"`` (a
  parameter), ``"local"`` (work-group memory) or ``"private"``; ``shape`` is the constant shape of a
  local or private array. A scalar parameter is bound to its local on entry. ``Wrap`` is NumPy's
negative-index wrap of an ``int64`` index (``index + extent`` where ``index < 0``). ``bounds`` is None,
or the array index of a 1-d ``int64`` global array parameter of ``BOUNDS_RECORD_LEN`` elements: then
every other array access is checked against its extents, skipped when out of bounds, and the first
such access is recorded there as ``[1, array, dimension, index, extent, access (0 read, 1 write,
2 atomic), view, 0]``. ``ViewIndex(dst, base_index, index, extent, array, dim, access)`` is an index
into `array` through a view made inside the function (``w = a[1:4]; w[i]``): ``dst = base_index``;
with bounds checks, the view's own ``index`` (its dimension ``dim``, of length ``extent``) is checked
first, and out of bounds it is recorded as the view's (``view`` = 1) and ``dst`` is ``-2**63``,
which makes the access it feeds skip.

``Atomic`` ops: ``"add"``, ``"sub"``, ``"mul"``, ``"min"``, ``"max"``, ``"and"``, ``"or"``, ``"xor"``
(the bitwise ones on integer arrays only), ``"exchange"``, ``"compare_exchange"`` (``cmp`` the
expected value), ``"load"`` (``dst`` the value read; ``value`` is ignored) and ``"store"`` (``dst``
None). ``order`` is ``"relaxed"``, ``"acquire"``, ``"release"``, ``"acq_rel"`` or ``"seq_cst"`` (a
load cannot release, a store cannot acquire); ``scope`` is ``"work_item"``, ``"sub_group"``,
``"work_group"``, ``"device"`` or ``"system"``. ``Fence`` orders memory without an operation (a
relaxed fence does nothing).

Dtypes are NumPy's names (``"float64"``, ``"int32"``, ``"bool"``, ``"complex128"``); operations use
the names of ``rust/src/ir/spec.rs`` and ``cfg.rs`` (``"add"``, ``"sqrt"``, ``"get_global_id"``,
...). Constant values are Python ``bool``, ``int``, ``float`` or (for complex dtypes) ``complex``.
``Unary`` ``"abs"``, ``"real"`` and ``"imag"`` of a complex operand yield its component dtype
(``complex128`` -> ``float64``); ``"conj"`` is the identity on real operands.

Rust reads each object's class attribute ``tag`` to tell the variants apart and then its fields by
name; it checks the top-level ``version`` against its own ``KERNEL_IR_VERSION`` and refuses a
mismatch, naming both versions. A change to these classes that Rust reads differently needs a new
version on both sides.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

KERNEL_IR_VERSION = 5
#: int64 elements of a bounds-checked function's error record (see the module docstring)
BOUNDS_RECORD_LEN = 8

Scalar = bool | int | float | complex


# -- the dataflow form ------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class ArrayParam:
    tag: ClassVar[str] = "array"
    name: str
    dtype: str
    ndim: int
    contiguous: bool


@dataclass(frozen=True, slots=True)
class ScalarParam:
    tag: ClassVar[str] = "scalar"
    name: str
    dtype: str


Param = ArrayParam | ScalarParam


@dataclass(frozen=True, slots=True)
class Load:
    """The current element of array parameter `param`."""

    tag: ClassVar[str] = "load"
    dtype: str
    param: int


@dataclass(frozen=True, slots=True)
class ScalarArg:
    """The value of scalar parameter `param`."""

    tag: ClassVar[str] = "scalar"
    dtype: str
    param: int


@dataclass(frozen=True, slots=True)
class Const:
    tag: ClassVar[str] = "const"
    dtype: str
    value: Scalar


@dataclass(frozen=True, slots=True)
class Cast:
    """Node `arg` converted to `dtype` with NumPy's casting."""

    tag: ClassVar[str] = "cast"
    dtype: str
    arg: int


@dataclass(frozen=True, slots=True)
class Unary:
    tag: ClassVar[str] = "unary"
    dtype: str
    op: str
    arg: int


@dataclass(frozen=True, slots=True)
class Binary:
    """Operands already have the computation dtype; comparisons produce bool."""

    tag: ClassVar[str] = "binary"
    dtype: str
    op: str
    lhs: int
    rhs: int


@dataclass(frozen=True, slots=True)
class Select:
    """`cond ? a : b` (np.where)."""

    tag: ClassVar[str] = "select"
    dtype: str
    cond: int
    a: int
    b: int


@dataclass(frozen=True, slots=True)
class Store:
    """Write node `value` to the current element of array parameter `param`."""

    tag: ClassVar[str] = "store"
    dtype: str
    param: int
    value: int


Node = Load | ScalarArg | Const | Cast | Unary | Binary | Select | Store


@dataclass(frozen=True, slots=True)
class KernelSpec:
    tag: ClassVar[str] = "kernel_spec"
    name: str
    ndim: int
    params: tuple[Param, ...]
    nodes: tuple[Node, ...]
    version: int = KERNEL_IR_VERSION


# -- the control-flow form --------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Local:
    """The current value of local `index`."""

    tag: ClassVar[str] = "local"
    index: int


@dataclass(frozen=True, slots=True)
class Imm:
    """An immediate constant."""

    tag: ClassVar[str] = "const"
    dtype: str
    value: Scalar


Operand = Local | Imm
Space = Literal["global", "local", "private"]


@dataclass(frozen=True, slots=True)
class ArrayDecl:
    """An array the kernel uses. `contiguous`: a global array known to be C-contiguous, whose strides
    the kernel computes from its shape."""

    tag: ClassVar[str] = "array_decl"
    name: str
    dtype: str
    ndim: int
    space: Space
    shape: tuple[int, ...] = ()
    contiguous: bool = False


@dataclass(frozen=True, slots=True)
class FnArrayParam:
    """Global array `array` (an index into `Function.arrays`) as a parameter."""

    tag: ClassVar[str] = "array"
    array: int


@dataclass(frozen=True, slots=True)
class FnScalarParam:
    """A scalar parameter, bound to local `local` on entry."""

    tag: ClassVar[str] = "scalar"
    local: int


FnParam = FnArrayParam | FnScalarParam


@dataclass(frozen=True, slots=True)
class Copy:
    tag: ClassVar[str] = "copy"
    dst: int
    src: Operand


@dataclass(frozen=True, slots=True)
class CastInst:
    tag: ClassVar[str] = "cast"
    dst: int
    src: Operand


@dataclass(frozen=True, slots=True)
class UnaryInst:
    tag: ClassVar[str] = "unary"
    dst: int
    op: str
    src: Operand


@dataclass(frozen=True, slots=True)
class BinaryInst:
    tag: ClassVar[str] = "binary"
    dst: int
    op: str
    a: Operand
    b: Operand


@dataclass(frozen=True, slots=True)
class SelectInst:
    tag: ClassVar[str] = "select"
    dst: int
    cond: Operand
    a: Operand
    b: Operand


@dataclass(frozen=True, slots=True)
class LoadInst:
    tag: ClassVar[str] = "load"
    dst: int
    array: int
    index: tuple[Operand, ...]


@dataclass(frozen=True, slots=True)
class StoreInst:
    tag: ClassVar[str] = "store"
    array: int
    index: tuple[Operand, ...]
    src: Operand


@dataclass(frozen=True, slots=True)
class Dim:
    """`dst = arrays[array].shape[dim]`."""

    tag: ClassVar[str] = "dim"
    dst: int
    array: int
    dim: int


@dataclass(frozen=True, slots=True)
class WorkItem:
    """A work-item query by its OpenCL name (``get_global_id``, ...) in dimension `dim`."""

    tag: ClassVar[str] = "workitem"
    dst: int
    query: str
    dim: int


@dataclass(frozen=True, slots=True)
class Barrier:
    """OpenCL fence flags: 1 = local, 2 = global."""

    tag: ClassVar[str] = "barrier"
    flags: int


@dataclass(frozen=True, slots=True)
class Atomic:
    """The old value goes to `dst` (if any; for ``"load"`` the value read, for ``"store"`` None);
    `cmp` is the expected value of a compare-exchange."""

    tag: ClassVar[str] = "atomic"
    dst: int | None
    op: str
    array: int
    index: tuple[Operand, ...]
    value: Operand
    cmp: Operand | None = None
    order: str = "relaxed"
    scope: str = "device"


@dataclass(frozen=True, slots=True)
class Fence:
    """A memory fence of `order` among the work-items of `scope` (``atomic_fence``)."""

    tag: ClassVar[str] = "fence"
    order: str
    scope: str


@dataclass(frozen=True, slots=True)
class Wrap:
    """`dst = index + extent if index < 0 else index` (int64 operands)."""

    tag: ClassVar[str] = "wrap"
    dst: int
    index: Operand
    extent: Operand


@dataclass(frozen=True, slots=True)
class ViewIndex:
    """`dst = base_index`, checked (with bounds checks on) as index `index` of dimension `dim`, of
    length `extent`, of a view of `array` (`access`: 0 read, 1 write)."""

    tag: ClassVar[str] = "view_index"
    dst: int
    base_index: Operand
    index: Operand
    extent: Operand
    array: int
    dim: int
    access: int


Inst = (
    Copy
    | CastInst
    | UnaryInst
    | BinaryInst
    | SelectInst
    | LoadInst
    | StoreInst
    | Dim
    | WorkItem
    | Barrier
    | Atomic
    | Fence
    | Wrap
    | ViewIndex
)


@dataclass(frozen=True, slots=True)
class Jump:
    tag: ClassVar[str] = "jump"
    target: int


@dataclass(frozen=True, slots=True)
class Branch:
    tag: ClassVar[str] = "branch"
    cond: Operand
    then: int
    otherwise: int


@dataclass(frozen=True, slots=True)
class Return:
    tag: ClassVar[str] = "return"


Term = Jump | Branch | Return


@dataclass(frozen=True, slots=True)
class Block:
    tag: ClassVar[str] = "block"
    insts: tuple[Inst, ...]
    term: Term


@dataclass(frozen=True, slots=True)
class Function:
    tag: ClassVar[str] = "function"
    name: str
    locals: tuple[str, ...]
    arrays: tuple[ArrayDecl, ...]
    params: tuple[FnParam, ...]
    blocks: tuple[Block, ...]
    bounds: int | None = None
    version: int = KERNEL_IR_VERSION
