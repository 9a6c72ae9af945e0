"""Functions compiled from their source that reduce along an axis: their kernels in order.

Each reduction (``np.sum(x, axis=1)``, ``x.max(0)``, ...) is a step, as in the function's
Numba-compiled form: its operand is computed into an array of its own by one fused kernel (a
:class:`~.plan.Plan` over the arguments and the earlier reductions' results; none when the operand is
an argument or an earlier result), then reduced by the axis kernel of :mod:`numba_ext.ir.reductions`.
One more plan computes the function's results from the arguments and every reduction's result (none
when the function returns the reductions themselves). The kernels, their order and their arithmetic
are those of the compiled form, so both give the same bits.

Covered: operands of two or more dimensions (the result is an array), an axis within them, and for
``min`` and ``max`` a dtype other than bool. Other calls go to Numba, which raises NumPy's errors (a
bad axis, shapes that do not broadcast).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import _core
from ..arrays import allocate, ndarray
from ..devices import Device, Queue
from ..ir.kernel_ir import Function
from ..ir.reductions import EMPTY_MESSAGES, axis_function, result_dtype
from .plan import Kind, Plan, signature_of
from .plan import specialize as specialize_plan
from .program import Expr, Op, Param, Program, Reduce, Where

Compile = Callable[[Any, Device], _core.Kernel]
_MASK = 0xFFFF_FFFF_FFFF_FFFF


@dataclass(eq=False)
class _Step:
    """One reduction: `op` along `axis` of its operand, an `ndim`-d array of `dtype` that is the
    call's value `source` (an argument or an earlier result) or that `plan` computes from the first
    `nvalues` values."""

    op: str
    axis: int
    source: int | None
    plan: Plan | None
    nvalues: int
    function: Function
    out_dtype: np.dtype
    compile: Compile | None = None
    kernels: dict[Device, _core.Kernel] = field(default_factory=dict)

    def kernel(self, device: Device) -> _core.Kernel:
        k = self.kernels.get(device)
        if k is None:
            k = self.kernels[device] = (self.compile or _core.compile_function)(self.function, device)
        return k

    def reduce(self, x: ndarray, queue: Queue, used: list[_core.Kernel] | None) -> ndarray:
        """The result of the reduction of `x` on `queue`, with `x`'s USM type."""
        image = x._nx_if_set()  # results of the steps before hold only their native image
        shape: tuple[int, ...]
        strides: Sequence[int]
        if image is not None:
            ptr, shape, strides, usm_type = image.data, tuple(image.shape), image.strides, image.usm_type
        else:
            d = x._desc
            ptr, shape, strides, usm_type = x._data_ptr, d.shape, d.strides, x._usm_type
        if shape[self.axis] == 0 and self.op in EMPTY_MESSAGES:
            raise ValueError(EMPTY_MESSAGES[self.op])
        out_shape = shape[: self.axis] + shape[self.axis + 1 :]
        out = allocate(out_shape, self.out_dtype, queue, usm_type)
        size = math.prod(out_shape)
        if size or used is not None:
            kernel = self.kernel(queue.device)
            if used is not None:
                used.append(kernel)
            if size:
                # the result is C-contiguous: its kernel parameter computes its strides (any here)
                slots = [ptr, *shape, *(s & _MASK for s in strides), out._nx.data, *out_shape]
                slots += [0] * len(out_shape)
                kernel.launch_nd(queue, slots, [size], None)
        return out


@dataclass(eq=False)
class StagedPlan:
    """One specialisation of a function with reductions (see the module documentation)."""

    kinds: tuple[Kind | None, ...]
    steps: list[_Step]
    #: the plan of the results that are not reductions (over the arguments and every step's result)
    final: Plan | None
    #: per returned value: ("value", index of a step's result among the call's values) or
    #: ("final", index among the final plan's results)
    returns: tuple[tuple[str, int], ...]
    returns_tuple: bool
    #: calls run so far; `hot`: Numba has compiled these types since (see ``jit_function``)
    calls: int = 0
    hot: bool = False

    def plans(self) -> list[Plan]:
        return [p for p in (*(s.plan for s in self.steps), self.final) if p is not None]

    @property
    def compile(self) -> Compile | None:
        return self.steps[0].compile

    @compile.setter
    def compile(self, compile_kernel: Compile | None) -> None:
        """The compile step of every kernel (``cache=True`` sets its own)."""
        for s in self.steps:
            s.compile = compile_kernel
        for p in self.plans():
            p.compile = compile_kernel

    @property
    def kernels(self) -> list[_core.Kernel]:
        """The kernels compiled so far."""
        found = [k for s in self.steps for k in s.kernels.values()]
        return found + [k for p in self.plans() for k in p.kernels.values()]

    def signature(self) -> tuple[str, ...]:
        return signature_of(self.kinds)

    def run(self, args: Sequence[Any], queue: Queue, used: list[_core.Kernel] | None = None) -> Any:
        """The call on `queue`, or NotImplemented when the shapes need Numba's handling; `used`
        collects the kernels launched, in order."""
        values = list(args)
        for step in self.steps:
            if step.plan is None:
                assert step.source is not None
                x = values[step.source]
            else:
                x = _run(step.plan, values[: step.nvalues], queue, used)
                if x is NotImplemented:
                    return NotImplemented
            values.append(step.reduce(x, queue, used))
        finals: tuple[Any, ...] = ()
        if self.final is not None:
            finals = _run(self.final, values, queue, used)
            if finals is NotImplemented:
                return NotImplemented
        results = tuple(values[k] if kind == "value" else finals[k] for kind, k in self.returns)
        return results if self.returns_tuple else results[0]


def _run(plan: Plan, values: list[Any], queue: Queue, used: list[_core.Kernel] | None) -> Any:
    if used is not None:
        shape = plan.shape(values)
        if shape is None:
            return NotImplemented
        used.append(plan.kernel(plan.contiguity(values, shape), queue.device))
    return plan.run(tuple(values), queue)


class _Unsupported(Exception):
    pass


def _operands(e: Expr) -> tuple[Expr, ...]:
    return e.args if isinstance(e, (Op, Where)) else (e.arg,) if isinstance(e, Reduce) else ()


def has_reductions(program: Program) -> bool:
    seen: set[int] = set()
    stack: list[Expr] = [*program.statements, *program.returns]
    while stack:
        e = stack.pop()
        if isinstance(e, Reduce):
            return True
        if id(e) not in seen and isinstance(e, (Op, Where)):
            seen.add(id(e))
            stack.extend(e.args)
    return False


def specialize(program: Program, kinds: tuple[Kind | None, ...]) -> Plan | StagedPlan | None:
    """The plan for arguments of `kinds` (staged when the function reduces along an axis), or None
    when Numba must compile the call."""
    if not has_reductions(program):
        return specialize_plan(program, kinds)
    if any(k is None for k in kinds):
        return None
    try:
        return _Stager(program, kinds).plan()
    except _Unsupported:
        return None


class _Stager:
    def __init__(self, program: Program, kinds: tuple[Kind | None, ...]) -> None:
        self.program = program
        self.names = list(program.params)
        self.kinds = list(kinds)
        self.statements = {id(st) for st in program.statements}
        #: the expressions over the call's values, by the original expression's id
        self.new: dict[int, Expr] = {}
        self.steps: list[_Step] = []

    def plan(self) -> StagedPlan:
        program = self.program
        # every reduction is evaluated, in the order of the statements, as the compiled form does
        statements = [self.sub(st) for st in program.statements]
        rets = [self.sub(e) for e in program.returns]
        finals: list[Expr] = []
        returns = []
        for r in rets:
            if isinstance(r, Param):
                if r.index < len(program.params):
                    raise _Unsupported  # an argument returned: as Numba returns it
                returns.append(("value", r.index))
            else:
                k = next((k for k, f in enumerate(finals) if f is r), len(finals))
                if k == len(finals):
                    finals.append(r)
                returns.append(("final", k))
        if not finals:
            # array statements no result needs: Numba evaluates them (their operands must broadcast,
            # the scalars they take are computed), so the last plan computes one, for nothing, and
            # checks the others as it checks unused statements
            finals = self._unreached_arrays(statements)[:1]
        final = None
        if finals:
            final = specialize_plan(
                Program(tuple(self.names), tuple(statements), tuple(finals), True), tuple(self.kinds)
            )
            if final is None:
                raise _Unsupported
        return StagedPlan(self.program_kinds(), self.steps, final, tuple(returns), program.returns_tuple)

    def program_kinds(self) -> tuple[Kind | None, ...]:
        return tuple(self.kinds[: len(self.program.params)])

    def _unreached_arrays(self, statements: list[Expr]) -> list[Expr]:
        """The array statements (of `statements`, over the call's values) not part of what the
        function returns, other than reductions (evaluated in their steps). Scalar statements no
        result needs are dead code, as in Numba (the functions they may call on scalars raise
        nothing)."""
        reached: set[int] = set()
        stack: list[Expr] = list(self.program.returns)
        while stack:
            e = stack.pop()
            if id(e) not in reached:
                reached.add(id(e))
                stack.extend(_operands(e))
        return [
            new
            for st, new in zip(self.program.statements, statements)
            if id(st) not in reached and not isinstance(new, Param) and self._reads_an_array(new)
        ]

    def _reads_an_array(self, e: Expr) -> bool:
        stack = [e]
        while stack:
            x = stack.pop()
            if isinstance(x, Param) and isinstance(self.kinds[x.index], tuple):
                return True
            stack.extend(_operands(x))
        return False

    def sub(self, e: Expr) -> Expr:
        """`e` over the call's values: every reduction in it replaced by its result (staged now)."""
        got = self.new.get(id(e))
        if got is not None:
            return got
        r: Expr
        if isinstance(e, Reduce):
            r = self.stage(e)
        elif isinstance(e, Op):
            r = Op(e.ufunc, tuple(self.sub(a) for a in e.args), e.operator)
        elif isinstance(e, Where):
            r = Where(tuple(self.sub(a) for a in e.args))
        else:
            r = e
        self.new[id(e)] = r
        return r

    def stage(self, r: Reduce) -> Param:
        operand = self.sub(r.arg)
        plan = None
        if isinstance(operand, Param):
            kind = self.kinds[operand.index]
            if not isinstance(kind, tuple):
                raise _Unsupported  # a reduction of a scalar: Numba's
            ndim, dtype, source = kind[1], kind[2], operand.index
        else:
            # the operand's program keeps the statements it reads, whose values the compiled form
            # stores in arrays of their typed dtypes (the plan casts statement values to them)
            program = Program(tuple(self.names), self._statements_in(r.arg), (operand,), False)
            plan = specialize_plan(program, tuple(self.kinds))
            if plan is None:
                raise _Unsupported
            ndim, dtype, source = plan.ndim, plan.out_dtypes[0].name, None
        if ndim < 2 or not -ndim <= r.axis < ndim or (r.op in ("min", "max") and dtype == "bool"):
            raise _Unsupported
        axis = r.axis % ndim
        out = result_dtype(r.op, dtype)
        step = _Step(r.op, axis, source, plan, len(self.names), axis_function(r.op, dtype, ndim, axis), out)
        self.steps.append(step)
        self.names.append(f"$r{len(self.steps) - 1}")  # not a name of the source
        self.kinds.append(("array", ndim - 1, out.name))
        return Param(len(self.names) - 1)

    def _statements_in(self, e: Expr) -> tuple[Expr, ...]:
        """The statements `e` reads (not through reductions, whose results it takes), over the
        call's values, in the function's order."""
        found: set[int] = set()
        seen: set[int] = set()
        stack = [e]
        while stack:
            x = stack.pop()
            if id(x) in seen:
                continue
            seen.add(id(x))
            if id(x) in self.statements:
                found.add(id(x))
            if isinstance(x, (Op, Where)):
                stack.extend(x.args)
        return tuple(self.new[id(st)] for st in self.program.statements if id(st) in found)
