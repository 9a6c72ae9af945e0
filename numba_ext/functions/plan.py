"""A :class:`~.program.Program` specialised to its arguments' types: one fused elementwise kernel
for every array the function returns, and the scalar arithmetic the host does before launching it.

Types covered: ``numba_ext`` arrays of one or more dimensions of a real dtype (float32, float64,
the signed and unsigned integers) or bool, Python floats and ints (within int64; NumPy's float64 and int64
scalars alike). Numba types the scalars as ``float64`` and ``int64`` and each operation by its ufunc
loop (:mod:`numba_ext.ir.numba_loops`: Numba's selection, which differs from NumPy's promotion for
mixed integer and floating operands); the kernel is built from the same kernel-IR nodes with the same
loops, so it computes exactly what the Numba-compiled function computes. Scalar arithmetic follows
Numba's rules for scalars: Python's for operators (division by zero raises ``ZeroDivisionError``,
ints wrap at 64 bits), NumPy's for ufunc calls. Other types return None from :func:`specialize` and
the call goes to Numba.

A call then needs: the arrays' shapes to broadcast to one shape that every returned array has (else
the call goes to Numba, which raises the error NumPy would), the kernel for the arrays' contiguity
and the queue's device (compiled once; a new process takes its device code and built program from
the disk caches of ``_core``), the scalar values, and one allocation per returned array with the USM
type its inputs give.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import _core
from ..arrays import allocate, array_info, ndarray
from ..devices import Device, Queue
from ..errors import UnsupportedError
from ..ir import numba_loops
from ..ir.kernel_ir import KernelSpec, Load, ScalarArg, Select, Store
from ..ir.spec_builder import CompiledSpecBuilder
from ..placement import coerce_usm_types
from .program import BINARY, COMPARISONS, UNARY, Expr, Number, Op, Param, Program, Reduce, View, Where

#: argument kinds: ("array", ndim, dtype name) for a numba_ext array, "float" or "int" for scalars
#: (Python's, typed float64 and int64), or a dtype name for a scalar of that dtype (the result of a
#: reduction over every element, in a function that runs in steps: see :mod:`.staged`)
Kind = tuple[str, int, str] | str
#: the scalar kinds of arguments, as the dtypes typing gives them
_SCALAR_KINDS = {"float": "float64", "int": "int64"}
#: the dtypes host arithmetic computes (Python's floats and ints, as Numba types them)
_HOST_DTYPES = frozenset({"float64", "int64"})


def _carrier(dtype: str) -> str:
    """The kernel parameter dtype a scalar of `dtype` travels in (float64 or int64, exactly; the
    kernel converts it back to `dtype`), so that every scalar slot holds a float64's or an int64's
    bits."""
    return "float64" if np.dtype(dtype).kind == "f" else "int64"


#: the array dtypes the plan takes, with their names (``dtype.name`` is slow Python in NumPy)
_ARRAY_DTYPES = {
    np.dtype(t): np.dtype(t).name
    for t in (np.float32, np.float64, np.int8, np.int16, np.int32, np.int64)
    + (np.uint8, np.uint16, np.uint32, np.uint64, np.bool_)
}
#: ufuncs whose array form the plan compiles
_ARRAY_UFUNCS = UNARY | BINARY | COMPARISONS


def _where_dtype(x: _Value, y: _Value) -> str:
    """The dtype the compiled form gives ``np.where(c, x, y)``."""
    arrays = [np.dtype(v.dtype) for v in (x, y) if v.expr is not None]
    scalars = [np.dtype(v.dtype) for v in (x, y) if v.expr is None]
    return numba_loops.scalar_aware_result(arrays, scalars).name


def signature_of(kinds: Sequence[Kind | None]) -> tuple[str, ...]:
    """Argument kinds as ``signatures`` shows them (``float64[:,:]``, ``float``)."""
    return tuple(f"{k[2]}[{','.join(':' * k[1])}]" if isinstance(k, tuple) else str(k) for k in kinds)


def kind_of(value: Any) -> Kind | None:
    """The kind of one argument, or None for a value the path does not take."""
    t = type(value)
    if t is ndarray:
        d = value._desc
        name = _ARRAY_DTYPES.get(d.dtype)
        return ("array", d.ndim, name) if name is not None and d.ndim > 0 else None
    if t is np.ndarray:  # inside offload_to: the call runs on its device copy
        name = _ARRAY_DTYPES.get(value.dtype)
        return ("array", value.ndim, name) if name is not None and value.ndim > 0 else None
    if t is float or t is np.float64:
        return "float"
    if (t is int or t is np.int64) and -(2**63) <= value < 2**63:
        return "int"
    return None


def _wrap(v: int) -> int:
    """An int wrapped to int64, as Numba's integer arithmetic wraps."""
    return (v + 2**63) % 2**64 - 2**63


def _divide(op: str, a: float | int, b: float | int) -> float | int:
    if b == 0:
        raise ZeroDivisionError("division by zero")
    if op == "true_divide":
        return float(a) / float(b)
    r = a // b if op == "floor_divide" else a % b
    return _wrap(r) if type(r) is int else r


def _operator(ufunc: np.ufunc, dts: Sequence[str]) -> tuple[Callable[..., Any], str] | None:
    """Python's operator on scalars of dtypes `dts` with Numba's result, or None when not covered."""
    ints = all(d == "int64" for d in dts)
    name = "true_divide" if ufunc is np.true_divide else ufunc.__name__  # NumPy 2 calls it "divide"
    if name in ("true_divide", "floor_divide", "remainder"):
        out = "float64" if name == "true_divide" or not ints else "int64"
        return (lambda a, b: _divide(name, a, b)), out
    if ints:
        wrapped: dict[str, Callable[..., int]] = {
            "add": lambda a, b: _wrap(a + b),
            "subtract": lambda a, b: _wrap(a - b),
            "multiply": lambda a, b: _wrap(a * b),
            "negative": lambda a: _wrap(-a),
            "positive": lambda a: a,
        }
        return (wrapped[name], "int64") if name in wrapped else None
    floats: dict[str, Callable[..., float]] = {
        "add": lambda a, b: float(a) + float(b),
        "subtract": lambda a, b: float(a) - float(b),
        "multiply": lambda a, b: float(a) * float(b),
        "negative": lambda a: -float(a),
        "positive": lambda a: float(a),
    }
    return (floats[name], "float64") if name in floats else None


#: ufuncs whose result on float64 scalars is exact (correctly rounded by IEEE 754 or no rounding at
#: all), so NumPy's host loop gives Numba's bits; transcendental functions on scalars (libm in
#: Numba's code, NumPy's own vector loops here) are left to Numba
_EXACT_ON_SCALARS = frozenset(
    {
        np.sqrt,
        np.floor,
        np.ceil,
        np.trunc,
        np.rint,
        np.fabs,
        np.absolute,
        np.negative,
        np.positive,
        np.square,
        np.minimum,
        np.maximum,
        np.copysign,
        np.fmod,
        np.add,
        np.subtract,
        np.multiply,
        np.true_divide,
    }
)


#: the scalar dtypes host arithmetic with float32 scalars computes on
_SINGLE_HOST_DTYPES = frozenset({"float32", "float64", "int64"})
#: operators on float32 scalars the host computes (Numba's typing: float32 when every operand is
#: float32, else float64)
_SINGLE_OPERATORS: dict[str, Callable[..., Any]] = {
    "add": lambda a, b: a + b,
    "subtract": lambda a, b: a - b,
    "multiply": lambda a, b: a * b,
    "true_divide": lambda a, b: a / b,
    "negative": lambda a: -a,
    "positive": lambda a: +a,
}


def _single(e: Op, dts: Sequence[str]) -> tuple[Callable[..., Any], str] | None:
    """Host arithmetic on operands of `dts`, one a float32 scalar, with Numba's typing and IEEE
    results: operators in float32 when every operand is float32, else in float64 (Python's
    rules: division by zero raises); exact ufuncs by Numba's loop for the dtypes (``np.sqrt`` of a
    float32 is float32, ``np.maximum(float32, int)`` too). None where Numba's own typing is left to
    Numba (floor division, remainder, powers, inexact functions)."""
    name = "true_divide" if e.ufunc is np.true_divide else e.ufunc.__name__
    if e.operator:
        op = _SINGLE_OPERATORS.get(name)
        if op is None:
            return None
        out = "float32" if all(d == "float32" for d in dts) else "float64"
        kind = np.float32 if out == "float32" else np.float64

        def operator(*xs: Any) -> Any:
            if name == "true_divide" and xs[1] == 0:
                raise ZeroDivisionError("division by zero")
            with np.errstate(all="ignore"):
                return kind(op(*(kind(x) for x in xs)))

        return operator, out
    return _typed_call(e.ufunc, dts)


#: ufuncs whose int64 loop is exact integer arithmetic (wrapping as Numba's code wraps)
_INTEGER_EXACT = frozenset(
    {np.absolute, np.negative, np.positive, np.square, np.minimum, np.maximum}
    | {np.add, np.subtract, np.multiply}
)


def _typed_call(ufunc: np.ufunc, dts: Sequence[str]) -> tuple[Callable[..., Any], str] | None:
    """A ufunc called on scalars of `dts`, computed by the loop Numba's typing picks (NumPy's loop of
    the same dtypes gives the same bits for these exact functions): float64 and int64 results as
    Python numbers, float32 ones as NumPy's. None for inexact functions and other loops."""
    loop = numba_loops.find_loop(ufunc, list(dts))
    if ufunc not in _EXACT_ON_SCALARS or loop is None:
        return None
    ins, out = loop
    if out not in ("float32", "float64", "int64") or (out == "int64" and ufunc not in _INTEGER_EXACT):
        return None
    types = [np.dtype(d).type for d in ins]
    box: Callable[[Any], Any] | None = {"float64": float, "int64": int}.get(out)

    def call(*xs: Any) -> Any:
        with np.errstate(all="ignore"):
            r = ufunc(*(t(x) for t, x in zip(types, xs)))
        return box(r) if box is not None else r

    return call, out


# host values: ("param", i) | ("number", v) | ("host", j) -> the j-th host step's result
Ref = tuple[str, Any]
#: a host step: (function, argument refs), giving one value
HostStep = tuple[Callable[..., Any], tuple[Ref, ...]]


@dataclass
class Plan:
    """One specialisation (see the module documentation)."""

    kinds: tuple[Kind | None, ...]
    #: host steps in order: (function, argument refs), each giving one value; None for dead code
    steps: list[HostStep | None]
    #: the parameters whose arrays the kernel reads, in its parameter order (also: every array
    #: parameter the function uses, whose shapes must broadcast)
    arrays: list[int]
    #: the scalars the kernel takes, in its parameter order: (ref, dtype)
    scalars: list[tuple[Ref, str]]
    #: the kernel's parameter order: ("array", k) | ("scalar", k) | ("out", k)
    order: list[tuple[str, int]]
    #: per distinct output: the array parameters it depends on
    out_deps: list[tuple[int, ...]]
    #: per distinct output: its dtype
    out_dtypes: list[np.dtype]
    #: per array statement no result needs: its array parameters (Numba still evaluates it, so
    #: their shapes must broadcast)
    unused_deps: list[tuple[int, ...]]
    #: per returned value: its output index
    returns: tuple[int, ...]
    returns_tuple: bool
    ndim: int
    build: Callable[[tuple[bool, ...]], KernelSpec]
    kernels: dict[tuple[tuple[bool, ...], Device], _core.Kernel] = field(default_factory=dict)
    #: calls run so far; `hot`: Numba has compiled these types since (see ``jit_function``)
    calls: int = 0
    hot: bool = False
    #: the native runner of the common case (None: not made yet; see :meth:`run`)
    runner: _core.PlanRunner | None = None

    def signature(self) -> tuple[str, ...]:
        return signature_of(self.kinds)

    def host_values(self, args: Sequence[Any]) -> list[Any]:
        return _host_values(self.steps, args)

    def shape(self, args: Sequence[Any]) -> tuple[int, ...] | None:
        """The iteration shape, or None when the arrays do not give every result the same one (or
        an unused array statement's arrays do not broadcast)."""
        try:
            for deps in self.unused_deps:
                np.broadcast_shapes(*(args[i]._desc.shape for i in deps))
        except ValueError:
            return None
        shapes = [args[i]._desc.shape for i in self.arrays]
        first = shapes[0]
        if all(s == first for s in shapes):
            return first
        try:
            full = np.broadcast_shapes(*shapes)
            for deps in self.out_deps:
                if np.broadcast_shapes(*(args[i]._desc.shape for i in deps)) != full:
                    return None
        except ValueError:
            return None
        return tuple(full)

    def contiguity(self, args: Sequence[Any], shape: tuple[int, ...] | None = None) -> tuple[bool, ...]:
        """Per array read: whether it is C-contiguous with the iteration shape."""
        if shape is None:
            shape = self.shape(args) or ()
        return tuple(d.flags.c_contiguous and d.shape == shape for d in (args[i]._desc for i in self.arrays))

    def kernel(self, contiguous: tuple[bool, ...], device: Device) -> _core.Kernel:
        key = (contiguous, device)
        k = self.kernels.get(key)
        if k is None:
            k = self.kernels[key] = _core.compile_kernel(self.build(contiguous), device)
        return k

    def run(self, args: Sequence[Any], queue: Queue) -> Any:
        """The call on `queue`, or NotImplemented when the shapes need Numba's handling. Arrays of
        one USM type run in one native step (``_core.PlanRunner``, rust/src/python/plan_run.rs);
        mixed USM types here, in Python."""
        result = self.native_runner()(args, queue, self)
        if result is not NotImplemented:
            return result
        return self._run(args, queue)

    def native_runner(self) -> _core.PlanRunner:
        """The plan's native runner (made on first use)."""
        runner = self.runner
        if runner is None:
            runner = self.runner = self._make_runner()
        return runner

    def _make_runner(self) -> _core.PlanRunner:
        scalars = []
        for (kind, v), dt in self.scalars:
            if kind == "param":
                scalars.append((0, v, dt == "float64"))
            elif kind == "number":
                scalars.append((1, _bits(v, dt), dt == "float64"))
            else:  # a host step's value
                scalars.append((2, v, dt == "float64"))
        codes = {"array": 0, "scalar": 1, "out": 2}
        return _core.PlanRunner(
            self.arrays,
            sorted(set(self.arrays).union(*self.unused_deps)),
            scalars,
            [(codes[kind], k) for kind, k in self.order],
            [dt.itemsize for dt in self.out_dtypes],
            list(self.returns),
            self.returns_tuple,
            bool(self.steps),
            [list(deps) for deps in self.out_deps],
            [list(deps) for deps in self.unused_deps],
        )

    def runner_kernel(self, queue: Queue, contiguous: tuple[bool, ...]) -> _core.Kernel:
        """The kernel for arrays of this contiguity on the queue's device (for the runner)."""
        return self.kernel(contiguous, queue.device)

    def runner_info(self, k: int, usm_type: str, queue: Queue) -> _core.ArrayInfo:
        """The array info of result `k` with this USM type on the queue (for the runner)."""
        return array_info(self.out_dtypes[k], self.ndim, queue, usm_type)

    def _run(self, args: Sequence[Any], queue: Queue) -> Any:
        shape = self.shape(args)
        if shape is None:
            return NotImplemented
        values = self.host_values(args) if self.steps else []
        contiguous = self.contiguity(args, shape)
        kernel = self.kernel(contiguous, queue.device)
        usm_types = {args[i]._usm_type for i in self.arrays}
        if len(usm_types) == 1:  # the common case: one USM type for every result
            (usm,) = usm_types
            outs = [allocate(shape, dt, queue, usm) for dt in self.out_dtypes]
        else:
            outs = [
                allocate(shape, dt, queue, coerce_usm_types(args[i]._usm_type for i in deps) or "device")
                for deps, dt in zip(self.out_deps, self.out_dtypes)
            ]
        size = math.prod(shape)
        if size:
            slots: list[int] = []
            for kind, k in self.order:
                if kind == "array":
                    a = args[self.arrays[k]]
                    if contiguous[k]:
                        slots.append(a._ptr)
                    else:
                        slots.extend(_array_slots(a, False, shape))
                elif kind == "scalar":
                    ref, dt = self.scalars[k]
                    slots.append(_bits(_value(ref, args, values), dt))
                else:
                    slots.append(outs[k]._ptr)
            slots.extend(shape)
            slots.append(size)
            kernel.launch(queue, slots)
        results = tuple(outs[k] for k in self.returns)
        return results if self.returns_tuple else results[0]


def _host_values(steps: Sequence[HostStep | None], args: Sequence[Any]) -> list[Any]:
    """The values of the host steps, in order (None for dead code)."""
    values: list[Any] = []
    for step in steps:
        if step is None:  # dead code
            values.append(None)
        else:
            fn, refs = step
            values.append(fn(*(_value(r, args, values) for r in refs)))
    return values


@dataclass
class ScalarPlan:
    """Scalar results of a function that runs in steps (``np.sqrt(np.sum(x * x))``): host
    arithmetic, with Numba's typing, on the arguments and the steps' results."""

    #: host steps in order, as :class:`Plan`'s
    steps: list[HostStep | None]
    #: per result: where its value comes from
    returns: tuple[Ref, ...]

    def values(self, args: Sequence[Any]) -> tuple[Any, ...]:
        """The results as Numba returns them (Python floats and ints)."""
        values = _host_values(self.steps, args)
        found = (_value(r, args, values) for r in self.returns)
        return tuple(v.item() if isinstance(v, np.generic) else v for v in found)


def specialize_scalars(program: Program, kinds: tuple[Kind | None, ...]) -> ScalarPlan | None:
    """The plan of `program`'s results, every one a scalar computed on the host, or None when Numba
    must compile the call. The statements are typed (an array statement the path does not cover
    leaves the call to Numba); the calls among them are kept, as Numba keeps them."""
    if any(k is None for k in kinds):
        return None
    try:
        sp = _Specializer(program, kinds)
        for st in program.statements:
            sp.value(st)
        rets = [sp.value(e) for e in program.returns]
    except _Unsupported:
        return None
    if any(r.ref is None for r in rets):
        return None
    roots = [r.ref[1] for r in rets if r.ref is not None and r.ref[0] == "host"] + sorted(sp.calls)
    return ScalarPlan(_live_steps(sp.steps, roots), tuple(r.ref for r in rets if r.ref is not None))


def _live_steps(steps: list[HostStep], roots: list[int]) -> list[HostStep | None]:
    """`steps` with those that `roots` (host step indices) do not need, directly or through their
    operands, replaced by None (dead code)."""
    needed: set[int] = set()
    todo = list(roots)
    while todo:
        j = todo.pop()
        if j not in needed:
            needed.add(j)
            todo.extend(r[1] for r in steps[j][1] if r[0] == "host")
    return [step if j in needed else None for j, step in enumerate(steps)]


def _value(ref: Ref, args: Sequence[Any], values: list[Any]) -> Any:
    kind, v = ref
    if kind == "param":
        a = args[v]
        return a.item() if isinstance(a, np.generic) else a
    return v if kind == "number" else values[v]


def _bits(value: float | int, dtype: str) -> int:
    if dtype == "float64":
        return int(struct.unpack("<Q", struct.pack("<d", float(value)))[0])
    return int(value) & 0xFFFF_FFFF_FFFF_FFFF


def _array_slots(a: ndarray, contiguous: bool, shape: tuple[int, ...]) -> list[int]:
    """An array's data address and, when it is strided or broadcast, its byte strides over the
    iteration space (0 along broadcast dimensions)."""
    if contiguous:
        return [a._data_ptr]
    d = a._desc
    pad = len(shape) - d.ndim
    strides = [0] * pad + [0 if n == 1 and m != 1 else s for n, s, m in zip(d.shape, d.strides, shape[pad:])]
    return [a._data_ptr] + [s & 0xFFFF_FFFF_FFFF_FFFF for s in strides]


class _Unsupported(Exception):
    pass


def specialize(program: Program, kinds: tuple[Kind | None, ...]) -> Plan | None:
    """The plan for arguments of `kinds`, or None when Numba must compile the call."""
    if any(k is None for k in kinds):
        return None
    try:
        return _Specializer(program, kinds).plan()
    except _Unsupported:
        return None


@dataclass(eq=False)
class _Value:
    """A value while specialising: an array (`expr` computes it in the kernel; `deps` its array
    parameters) or a scalar (`ref`, of `dtype`)."""

    dtype: str
    expr: Expr | None = None
    deps: frozenset[int] = frozenset()
    ref: Ref | None = None


class _Specializer:
    def __init__(self, program: Program, kinds: tuple[Kind | None, ...]) -> None:
        if len(kinds) != len(program.params):
            raise _Unsupported
        self.program = program
        self.kinds = kinds
        self.steps: list[tuple[Callable[..., Any], tuple[Ref, ...]]] = []
        self.memo: dict[int, _Value] = {}
        self.calls: set[int] = set()  # the host steps that are function calls
        self.array_scalars: set[int] = set()  # the host steps an array expression takes
        self.wheres: list[Where] = []

    def plan(self) -> Plan:
        for st in self.program.statements:
            self.value(st)
        rets = [self.value(e) for e in self.program.returns]
        if any(r.expr is None or isinstance(r.expr, Param) for r in rets):
            raise _Unsupported  # scalars and the arguments themselves come back as Numba returns them
        # scalar arithmetic no result needs is dead code, as Numba removes it (no ZeroDivisionError
        # from an unused `k / 0`, unless a call uses it); array statements are not: Numba evaluates
        # them, result or not, with the scalars they take (a `t = b + k / 0` that nothing uses still
        # raises) and the broadcasting of their arrays (checked at each call)
        used = sorted({i for r in rets for i in r.deps})
        reached: set[int] = set()
        stack = list(self.program.returns)
        while stack:
            e = stack.pop()
            if id(e) not in reached:
                reached.add(id(e))
                stack.extend(e.args if isinstance(e, (Op, Where)) else ())
        unused_deps = [
            tuple(sorted(self.memo[id(st)].deps))
            for st in self.program.statements
            if id(st) not in reached and self.memo[id(st)].expr is not None
        ]
        ndim = max(self._ndim(i) for i in used)
        outs: list[Expr] = []
        for r in rets:
            if not any(r.expr is o for o in outs):
                outs.append(r.expr)  # type: ignore[arg-type]
        returns = tuple(next(k for k, o in enumerate(outs) if o is r.expr) for r in rets)
        out_deps = [tuple(sorted(self.memo[id(o)].deps)) for o in outs]
        # the kernel's parameters: as the builder meets them, then the outputs
        order: list[tuple[str, int]] = []
        arrays: list[int] = []
        scalars: list[tuple[Ref, str]] = []
        memo = self.memo

        out_dtypes: list[np.dtype] = []
        # a statement's value (an assignment's, a returned expression's) is cast to the dtype typing
        # gives it, as Numba's compiled form stores each statement in an array of that dtype; within
        # a statement values keep the dtype of the loop that computed them (integer true division
        # computes in float64 where typing says float32 for small integers)
        roots = {id(e) for e in (*self.program.statements, *self.program.returns)}
        roots.update(id(a) for w in self.wheres for a in w.args)  # np.where takes stored arrays

        def build(contiguous: tuple[bool, ...]) -> KernelSpec:
            b = CompiledSpecBuilder(ndim)
            nodes: dict[int, tuple[int, str]] = {}
            params: dict[Any, int] = {}
            record = not order

            def node(e: Expr) -> tuple[int, str]:
                if id(e) in nodes:
                    return nodes[id(e)]
                v = memo[id(e)]
                dt = v.dtype
                if v.expr is None:  # a scalar: a constant, or a kernel parameter
                    assert v.ref is not None
                    if v.ref[0] == "number":
                        n = b.const(v.dtype, v.ref[1])
                    else:
                        carrier = _carrier(v.dtype)
                        if v.ref not in params:
                            named = (
                                self.program.params[v.ref[1]] if v.ref[0] == "param" else f"s{len(params)}"
                            )
                            params[v.ref] = b.scalar_param(named, carrier)
                            if record:
                                order.append(("scalar", len(scalars)))
                                scalars.append((v.ref, carrier))
                        n = b.node(ScalarArg(carrier, params[v.ref]))
                        if carrier != v.dtype:
                            n = b.cast(n, carrier, v.dtype)
                elif isinstance(e, Param):
                    if e not in params:
                        k = len([o for o in params if isinstance(o, Param)])
                        nd = self._ndim(e.index)
                        params[e] = b.array_param(self.program.params[e.index], v.dtype, nd, contiguous[k])
                        if record:
                            order.append(("array", len(arrays)))
                            arrays.append(e.index)
                    n = b.node(Load(v.dtype, params[e]))
                elif isinstance(e, Where):
                    (c, cdt), (x, xdt), (y, ydt) = (node(a) for a in e.args)
                    n = b.node(Select(dt, b.cast(c, cdt, "bool"), b.cast(x, xdt, dt), b.cast(y, ydt, dt)))
                else:
                    assert isinstance(e, Op)
                    n, dt = b.apply_ufunc(e.ufunc, [node(a) for a in e.args])
                    if id(e) in roots:
                        n, dt = b.cast(n, dt, v.dtype), v.dtype
                nodes[id(e)] = (n, dt)
                return n, dt

            values = [node(o) for o in outs]
            for k, (v, dt) in enumerate(values):
                p = b.array_param(f"$out{k}", dt, ndim, True)  # not a name of the source
                if record:
                    order.append(("out", k))
                    out_dtypes.append(np.dtype(dt))
                b.node(Store(dt, p, v))
            return b.spec()

        try:  # fixes the parameter order (the same for every layout)
            build(tuple(True for _ in used))
        except UnsupportedError:
            raise _Unsupported from None
        # live: what the kernel takes, and every call of a function on scalars with its inputs
        # (Numba keeps calls, which may have effects, even when their value is unused)
        live = [ref[1] for ref, _ in scalars if ref[0] == "host"] + sorted(self.calls | self.array_scalars)
        plan = Plan(
            kinds=self.kinds,
            steps=_live_steps(self.steps, live),
            arrays=arrays,
            scalars=scalars,
            order=order,
            out_deps=out_deps,
            out_dtypes=out_dtypes,
            unused_deps=unused_deps,
            returns=returns,
            returns_tuple=self.program.returns_tuple,
            ndim=ndim,
            build=lambda contiguous: build(contiguous[: sum(1 for o in order if o[0] == "array")]),
        )
        return plan

    def _ndim(self, index: int) -> int:
        kind = self.kinds[index]
        assert isinstance(kind, tuple)
        return kind[1]

    def value(self, e: Expr) -> _Value:
        v = self.memo.get(id(e))
        if v is not None:
            return v
        if isinstance(e, Param):
            kind = self.kinds[e.index]
            if isinstance(kind, tuple):
                v = _Value(kind[2], expr=e, deps=frozenset((e.index,)))
            else:
                assert kind is not None  # specialize refuses unknown kinds
                v = _Value(_SCALAR_KINDS.get(kind, kind), ref=("param", e.index))
        elif isinstance(e, Number):
            v = _Value("float64" if type(e.value) is float else "int64", ref=("number", e.value))
        elif isinstance(e, (Reduce, View)):
            raise _Unsupported  # reductions and slices run in steps: see .staged
        elif isinstance(e, Where):
            args = [self.value(a) for a in e.args]
            if all(a.expr is None for a in args):
                raise _Unsupported  # np.where of scalars: Numba's
            deps = frozenset().union(*(a.deps for a in args))
            v = _Value(_where_dtype(args[1], args[2]), expr=e, deps=deps)
            self.array_scalars.update(a.ref[1] for a in args if a.ref is not None and a.ref[0] == "host")
            self.wheres.append(e)
        else:
            args = [self.value(a) for a in e.args]
            if any(a.expr is not None for a in args):  # an array expression: typed by its loop
                loop = numba_loops.find_loop(e.ufunc, [a.dtype for a in args])
                if e.ufunc not in _ARRAY_UFUNCS or loop is None:
                    raise _Unsupported
                typed = loop[1]
                if e.ufunc is np.true_divide and all(np.dtype(a.dtype).kind in "biu" for a in args):
                    typed = "float64"  # the compiled form's typing: integers divide in float64, as NumPy
                v = _Value(typed, expr=e, deps=frozenset().union(*(a.deps for a in args)))
                self.array_scalars.update(a.ref[1] for a in args if a.ref is not None and a.ref[0] == "host")
            else:
                v = self._host(e, args)
        self.memo[id(e)] = v
        return v

    def _host(self, e: Op, args: list[_Value]) -> _Value:
        dts = [a.dtype for a in args]
        if "float32" in dts and _SINGLE_HOST_DTYPES.issuperset(dts):
            found = _single(e, dts)  # a float32 scalar (a reduction's result)
            if found is None:
                raise _Unsupported
            fn, out = found
        elif not _HOST_DTYPES.issuperset(dts):
            raise _Unsupported  # arithmetic on an unsigned or small integer scalar: Numba's typing
        elif e.operator:
            found = _operator(e.ufunc, dts)
            if found is None:
                raise _Unsupported
            fn, out = found
        else:
            found = _typed_call(e.ufunc, dts)
            if found is None:
                raise _Unsupported  # inexact functions, and integer loops that may not be exact
            fn, out = found
        if not e.operator:
            self.calls.add(len(self.steps))
        self.steps.append((fn, tuple(a.ref for a in args)))  # type: ignore[misc]
        return _Value(out, ref=("host", len(self.steps) - 1))
