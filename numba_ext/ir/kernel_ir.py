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

import dataclasses
from _thread import get_ident
from collections.abc import Callable
from operator import attrgetter
from typing import Any, ClassVar, Literal, TypeVar, dataclass_transform, get_origin

KERNEL_IR_VERSION = 5
#: int64 elements of a bounds-checked function's error record (see the module docstring)
BOUNDS_RECORD_LEN = 8

Scalar = bool | int | float | complex


_T = TypeVar("_T")
# The markers ``dataclasses.fields`` and ``replace`` tell fields and class variables apart by.
_FIELD: Any = vars(dataclasses)["_FIELD"]
_FIELD_CLASSVAR: Any = vars(dataclasses)["_FIELD_CLASSVAR"]
_MISSING: Any = dataclasses.MISSING


def _is_classvar(annotation: object) -> bool:
    """Whether a class annotation declares a class variable rather than a field."""
    if isinstance(annotation, str):  # postponed: the annotation's source text
        return annotation in ("ClassVar", "typing.ClassVar") or annotation.startswith(
            ("ClassVar[", "typing.ClassVar[")
        )
    return annotation is ClassVar or get_origin(annotation) is ClassVar


def _annotation_text(annotation: object) -> str:
    """An annotation as ``inspect.signature`` writes it."""
    if isinstance(annotation, str):
        return repr(annotation)
    import inspect

    return inspect.formatannotation(annotation)


def _plural(names: list[str]) -> str:
    """Argument names as Python's "missing arguments" errors list them."""
    quoted = [repr(n) for n in names]
    if len(quoted) <= 2:
        return " and ".join(quoted)
    return ", ".join(quoted[:-1]) + ", and " + quoted[-1]


@dataclass_transform(frozen_default=True)
def _frozen(cls: type[_T]) -> type[_T]:
    """`cls` made what ``@dataclass(frozen=True, slots=True)`` makes of it, without generating code
    (which dataclasses compiles per class, most of this module's import time): the same
    ``__init__`` (positional and keyword arguments, defaults), ``__repr__``, ``__eq__`` (objects
    of the same class with equal fields), ``__hash__``, ``__match_args__``, ``__doc__``, slots,
    frozen ``__setattr__``/``__delattr__``, pickling, and ``__dataclass_fields__`` (so that
    ``dataclasses.fields``, ``replace``, ``asdict`` and ``is_dataclass`` work). Annotations marked
    ``ClassVar`` (``tag``) are class attributes, not fields; `cls` has no base classes."""
    if cls.__bases__ != (object,):
        raise TypeError(f"{cls.__name__} has base classes")
    ns = dict(cls.__dict__)
    qualname = cls.__qualname__
    names: list[str] = []
    defaults: dict[str, Any] = {}
    fields: dict[str, dataclasses.Field[Any]] = {}
    signature: list[str] = []
    for name, annotation in ns.get("__annotations__", {}).items():
        default = ns.get(name, _MISSING)
        if _is_classvar(annotation):
            f: dataclasses.Field[Any] = dataclasses.field(default=default)
            f._field_type = _FIELD_CLASSVAR  # type: ignore[attr-defined]
        else:
            f = dataclasses.field(default=default, kw_only=False)
            f._field_type = _FIELD  # type: ignore[attr-defined]
            param = f"{name}: {_annotation_text(annotation)}"
            if default is not _MISSING:
                if default.__class__.__hash__ is None:  # a list, dict or set: shared by all objects
                    raise ValueError(f"mutable default {type(default)} for field {name} is not allowed")
                defaults[name] = ns.pop(name)
                param += f" = {default!r}"
            elif defaults:
                raise TypeError(f"non-default argument {name!r} follows default argument")
            names.append(name)
            signature.append(param)
        f.name, f.type = name, annotation
        fields[name] = f

    position = {name: i for i, name in enumerate(names)}
    tail = [defaults.get(name, _MISSING) for name in names]  # the values of arguments not given
    count, required = len(names), len(names) - len(defaults)
    values: Callable[[Any], tuple[Any, ...]]
    if count > 1:
        values = attrgetter(*names)
    elif count == 1:
        get = attrgetter(names[0])
        values = lambda self: (get(self),)
    else:
        values = lambda self: ()
    setters: tuple[Callable[[Any, Any], None], ...] = ()

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if len(args) == count and not kwargs:
            for set_value, value in zip(setters, args):
                set_value(self, value)
            return
        given = [*args, *tail[len(args) :]]
        for name, value in kwargs.items():
            i = position.get(name)
            if i is None:
                raise TypeError(f"{qualname}.__init__() got an unexpected keyword argument {name!r}")
            if i < len(args):
                raise TypeError(f"{qualname}.__init__() got multiple values for argument {name!r}")
            given[i] = value
        if len(args) > count:
            takes = f"from {required + 1} to {count + 1}" if defaults else str(count + 1)
            s = "" if takes == "1" else "s"
            raise TypeError(
                f"{qualname}.__init__() takes {takes} positional argument{s} but {len(args) + 1} were given"
            )
        missing = [
            name for name, value in zip(names[len(args) : required], given[len(args) :]) if value is _MISSING
        ]
        if missing:
            s = "" if len(missing) == 1 else "s"
            raise TypeError(
                f"{qualname}.__init__() missing {len(missing)} required positional argument{s}: "
                + _plural(missing)
            )
        for set_value, value in zip(setters, given):
            set_value(self, value)

    form = "%s(" + ", ".join(name + "=%r" for name in names) + ")"
    repr_running: set[tuple[int, int]] = set()

    def __repr__(self: Any) -> str:
        key = id(self), get_ident()
        if key in repr_running:  # a field that holds this object
            return "..."
        repr_running.add(key)
        try:
            return form % (self.__class__.__qualname__, *values(self))
        finally:
            repr_running.discard(key)

    def __eq__(self: Any, other: object) -> bool:
        if other.__class__ is self.__class__:
            return values(self) == values(other)
        return NotImplemented

    def __hash__(self: Any) -> int:
        return hash(values(self))

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is new or name in position:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        super(new, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is new or name in position:
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        super(new, self).__delattr__(name)

    def __getstate__(self: Any) -> list[Any]:
        return list(values(self))

    def __setstate__(self: Any, state: list[Any]) -> None:
        for set_value, value in zip(setters, state):
            set_value(self, value)

    methods = (__init__, __repr__, __eq__, __hash__, __setattr__, __delattr__, __getstate__, __setstate__)
    for method in methods:
        method.__qualname__ = f"{qualname}.{method.__name__}"
        ns[method.__name__] = method
    if not ns.get("__doc__"):
        ns["__doc__"] = f"{cls.__name__}({', '.join(signature)})"
    ns.pop("__dict__", None)
    ns.pop("__weakref__", None)
    ns["__slots__"] = tuple(names)
    ns["__match_args__"] = tuple(names)
    ns["__dataclass_fields__"] = fields
    metaclass: Any = type(cls)
    new = metaclass(cls.__name__, cls.__bases__, ns)
    new.__qualname__ = qualname
    setters = tuple(vars(new)[name].__set__ for name in names)
    return new


# -- the dataflow form ------------------------------------------------------------------------------
@_frozen
class ArrayParam:
    tag: ClassVar[str] = "array"
    name: str
    dtype: str
    ndim: int
    contiguous: bool


@_frozen
class ScalarParam:
    tag: ClassVar[str] = "scalar"
    name: str
    dtype: str


Param = ArrayParam | ScalarParam


@_frozen
class Load:
    """The current element of array parameter `param`."""

    tag: ClassVar[str] = "load"
    dtype: str
    param: int


@_frozen
class ScalarArg:
    """The value of scalar parameter `param`."""

    tag: ClassVar[str] = "scalar"
    dtype: str
    param: int


@_frozen
class Const:
    tag: ClassVar[str] = "const"
    dtype: str
    value: Scalar


@_frozen
class Cast:
    """Node `arg` converted to `dtype` with NumPy's casting."""

    tag: ClassVar[str] = "cast"
    dtype: str
    arg: int


@_frozen
class Unary:
    tag: ClassVar[str] = "unary"
    dtype: str
    op: str
    arg: int


@_frozen
class Binary:
    """Operands already have the computation dtype; comparisons produce bool."""

    tag: ClassVar[str] = "binary"
    dtype: str
    op: str
    lhs: int
    rhs: int


@_frozen
class Select:
    """`cond ? a : b` (np.where)."""

    tag: ClassVar[str] = "select"
    dtype: str
    cond: int
    a: int
    b: int


@_frozen
class Store:
    """Write node `value` to the current element of array parameter `param`."""

    tag: ClassVar[str] = "store"
    dtype: str
    param: int
    value: int


Node = Load | ScalarArg | Const | Cast | Unary | Binary | Select | Store


@_frozen
class KernelSpec:
    tag: ClassVar[str] = "kernel_spec"
    name: str
    ndim: int
    params: tuple[Param, ...]
    nodes: tuple[Node, ...]
    version: int = KERNEL_IR_VERSION


# -- the control-flow form --------------------------------------------------------------------------
@_frozen
class Local:
    """The current value of local `index`."""

    tag: ClassVar[str] = "local"
    index: int


@_frozen
class Imm:
    """An immediate constant."""

    tag: ClassVar[str] = "const"
    dtype: str
    value: Scalar


Operand = Local | Imm
Space = Literal["global", "local", "private"]


@_frozen
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


@_frozen
class FnArrayParam:
    """Global array `array` (an index into `Function.arrays`) as a parameter."""

    tag: ClassVar[str] = "array"
    array: int


@_frozen
class FnScalarParam:
    """A scalar parameter, bound to local `local` on entry."""

    tag: ClassVar[str] = "scalar"
    local: int


FnParam = FnArrayParam | FnScalarParam


@_frozen
class Copy:
    tag: ClassVar[str] = "copy"
    dst: int
    src: Operand


@_frozen
class CastInst:
    tag: ClassVar[str] = "cast"
    dst: int
    src: Operand


@_frozen
class UnaryInst:
    tag: ClassVar[str] = "unary"
    dst: int
    op: str
    src: Operand


@_frozen
class BinaryInst:
    tag: ClassVar[str] = "binary"
    dst: int
    op: str
    a: Operand
    b: Operand


@_frozen
class SelectInst:
    tag: ClassVar[str] = "select"
    dst: int
    cond: Operand
    a: Operand
    b: Operand


@_frozen
class LoadInst:
    tag: ClassVar[str] = "load"
    dst: int
    array: int
    index: tuple[Operand, ...]


@_frozen
class StoreInst:
    tag: ClassVar[str] = "store"
    array: int
    index: tuple[Operand, ...]
    src: Operand


@_frozen
class Dim:
    """`dst = arrays[array].shape[dim]`."""

    tag: ClassVar[str] = "dim"
    dst: int
    array: int
    dim: int


@_frozen
class WorkItem:
    """A work-item query by its OpenCL name (``get_global_id``, ...) in dimension `dim`."""

    tag: ClassVar[str] = "workitem"
    dst: int
    query: str
    dim: int


@_frozen
class Barrier:
    """OpenCL fence flags: 1 = local, 2 = global."""

    tag: ClassVar[str] = "barrier"
    flags: int


@_frozen
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


@_frozen
class Fence:
    """A memory fence of `order` among the work-items of `scope` (``atomic_fence``)."""

    tag: ClassVar[str] = "fence"
    order: str
    scope: str


@_frozen
class Wrap:
    """`dst = index + extent if index < 0 else index` (int64 operands)."""

    tag: ClassVar[str] = "wrap"
    dst: int
    index: Operand
    extent: Operand


@_frozen
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


@_frozen
class Jump:
    tag: ClassVar[str] = "jump"
    target: int


@_frozen
class Branch:
    tag: ClassVar[str] = "branch"
    cond: Operand
    then: int
    otherwise: int


@_frozen
class Return:
    tag: ClassVar[str] = "return"


Term = Jump | Branch | Return


@_frozen
class Block:
    tag: ClassVar[str] = "block"
    insts: tuple[Inst, ...]
    term: Term


@_frozen
class Function:
    tag: ClassVar[str] = "function"
    name: str
    locals: tuple[str, ...]
    arrays: tuple[ArrayDecl, ...]
    params: tuple[FnParam, ...]
    blocks: tuple[Block, ...]
    bounds: int | None = None
    version: int = KERNEL_IR_VERSION
