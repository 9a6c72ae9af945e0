"""Functions compiled from their source that reduce or slice arrays: their steps in order.

Each reduction (``np.sum(x, axis=1)``, ``x.max(0)``, ``np.sum(a * b)``, ...) and each slice
(``a[1:]``) is a step, as in the function's Numba-compiled form: its operand is computed into an
array of its own by one fused kernel (a :class:`~.plan.Plan` over the arguments and the earlier
steps' results; none when the operand is an argument or an earlier result), then reduced by a kernel
of :mod:`numba_ext.ir.reductions` (along an axis: an array; over every element: a scalar of NumPy's
result dtype), or viewed through the slices (the same memory). One more plan computes the
function's array results from the arguments and every step's result (none when the function returns
the steps' results themselves; one plan per result when the results differ in shape), and a
:class:`~.plan.ScalarPlan` its scalar results (``np.sqrt(np.sum(x * x))``). The kernels, their order
and their arithmetic are those of the compiled form, so both give the same bits, but for sums and
products over every element of floats, which the device combines in its own order (the compiled
form's results differ from run to run in the same way), and on GPUs for float sums and products
along a long contiguous axis, which a work-group combines as a tree (within rounding).

Covered: reductions along an axis of operands of two or more dimensions, reductions over every
element (or along the one axis of a 1-d operand), ``min`` and ``max`` of a dtype other than bool,
and as many slices as the operand has dimensions or fewer. Other calls go to Numba, which raises
NumPy's errors (a bad axis, shapes that do not broadcast).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import _core
from ..arrays import ndarray
from ..arrays.reductions import (
    CPU_WIDE_LANES,
    WholeReduction,
    axis_lanes,
    contiguous_function,
    reduce_axis,
)
from ..devices import Device, Queue
from ..ir.reductions import axis_function, result_dtype
from .plan import Kind, Plan, ScalarPlan, signature_of, specialize_scalars
from .plan import specialize as specialize_plan
from .program import Expr, Op, Param, Program, Reduce, View, Where


@dataclass(eq=False)
class _Operand:
    """A step's operand: the call's value `source` (an argument or an earlier result), or the array
    `plan` computes from the first `nvalues` values."""

    source: int | None
    plan: Plan | None
    nvalues: int

    def operand(self, values: list[Any], queue: Queue, used: list[_core.Kernel] | None) -> Any:
        if self.plan is None:
            assert self.source is not None
            return values[self.source]
        return _run(self.plan, values[: self.nvalues], queue, used)


@dataclass(eq=False)
class _ViewStep(_Operand):
    """A view of the operand through slices (as Numba makes it: the same memory)."""

    index: tuple[slice, ...]

    def apply(self, x: ndarray, queue: Queue, used: list[_core.Kernel] | None) -> ndarray:
        return x[self.index]


@dataclass(eq=False)
class _Step(_Operand):
    """One reduction: `op` along `axis` of the operand."""

    op: str
    axis: int
    #: the operand's dtype and rank
    dtype: str
    ndim: int
    out_dtype: np.dtype
    #: the kernels by (form, device): "lanes" (a work-item per result element or several),
    #: "wide" (``CPU_WIDE_LANES`` of them: ``arrays.reductions.wide``) or "contiguous" (a long
    #: contiguous axis: ``arrays.reductions.contiguous_form``)
    kernels: dict[tuple[str, Device], _core.Kernel] = field(default_factory=dict)

    def kernel(self, form: str, device: Device) -> _core.Kernel:
        k = self.kernels.get((form, device))
        if k is None:
            if form == "contiguous":
                function = contiguous_function(self.op, self.dtype, self.ndim, self.axis, device)
            else:
                lanes = CPU_WIDE_LANES if form == "wide" else axis_lanes(device)
                function = axis_function(self.op, self.dtype, self.ndim, self.axis, lanes)
            k = self.kernels[form, device] = _core.compile_function(function, device)
        return k

    def apply(self, x: ndarray, queue: Queue, used: list[_core.Kernel] | None) -> ndarray:
        """The result of the reduction of `x` on `queue`, with `x`'s USM type."""
        return reduce_axis(
            self.op,
            x,
            self.axis,
            self.out_dtype,
            queue,
            lambda _, d: self.kernel("lanes", d),
            used,
            lambda _, d: self.kernel("contiguous", d),
            lambda _, d: self.kernel("wide", d),
        )


@dataclass(eq=False)
class _WholeStep(_Operand):
    """One reduction over every element of the operand: a scalar of NumPy's result dtype."""

    reduction: WholeReduction
    #: the kernels by (rank read, device): a C-contiguous operand is read as one flat run
    kernels: dict[tuple[int, Device], _core.Kernel] = field(default_factory=dict)

    def kernel(self, ndim: int, device: Device) -> _core.Kernel:
        k = self.kernels.get((ndim, device))
        if k is None:
            function = self.reduction.function(ndim, device)
            k = self.kernels[ndim, device] = _core.compile_function(function, device)
        return k

    def apply(self, x: ndarray, queue: Queue, used: list[_core.Kernel] | None) -> np.generic:
        """The reduction of `x` on `queue`, as the compiled form's helper computes it."""
        return self.reduction(x, queue, self.kernel, used)


@dataclass(eq=False)
class StagedPlan:
    """One specialisation of a function with reductions or slices (see the module documentation)."""

    kinds: tuple[Kind | None, ...]
    steps: list[_Step | _WholeStep | _ViewStep]
    #: the plan of the array results that are not steps' results (over the arguments and every
    #: step's result)
    final: Plan | None
    #: per returned value: ("value", index of a step's result among the call's values),
    #: ("final", index among the final plan's results) or ("scalar", index among the scalar
    #: plan's results)
    returns: tuple[tuple[str, int], ...]
    returns_tuple: bool
    #: the results one plan each, for calls whose results differ in shape (None: one result)
    separate: list[Plan] | None = None
    #: a plan whose host steps (only) each call computes: the scalar calls no result needs, which
    #: Numba keeps, when no other plan has the statements
    scalar_steps: Plan | None = None
    #: the plan of the scalar results (None: there are none)
    scalars: ScalarPlan | None = None
    #: calls run so far; `hot`: Numba has compiled these types since (see ``jit_function``)
    calls: int = 0
    hot: bool = False

    def plans(self) -> list[Plan]:
        steps = [s.plan for s in self.steps]
        return [p for p in (*steps, self.final, *(self.separate or ())) if p is not None]

    def reductions(self) -> list[_Step | _WholeStep]:
        return [s for s in self.steps if isinstance(s, (_Step, _WholeStep))]

    @property
    def kernels(self) -> list[_core.Kernel]:
        """The kernels compiled so far."""
        found = [k for s in self.reductions() for k in s.kernels.values()]
        return found + [k for p in self.plans() for k in p.kernels.values()]

    def signature(self) -> tuple[str, ...]:
        return signature_of(self.kinds)

    def run(self, args: Sequence[Any], queue: Queue, used: list[_core.Kernel] | None = None) -> Any:
        """The call on `queue`, or NotImplemented when the shapes need Numba's handling; `used`
        collects the kernels launched, in order."""
        values = list(args)
        if self.scalar_steps is not None:
            self.scalar_steps.host_values(values)  # raises as the compiled form's code would
        for step in self.steps:
            x = step.operand(values, queue, used)
            if x is NotImplemented:
                return NotImplemented
            values.append(step.apply(x, queue, used))
        finals: tuple[Any, ...] = ()
        if self.final is not None:
            finals = _run(self.final, values, queue, used)
            if finals is NotImplemented and self.separate is not None:
                # results of different shapes (`a[1:] - a[:-1], a * 2`): one kernel each
                parts = [_run(p, values, queue, used) for p in self.separate]
                finals = (
                    NotImplemented if any(p is NotImplemented for p in parts) else tuple(p[0] for p in parts)
                )
            if finals is NotImplemented:
                return NotImplemented
        scalars = self.scalars.values(values) if self.scalars is not None else ()
        results = tuple(
            _boxed(values[k]) if kind == "value" else finals[k] if kind == "final" else scalars[k]
            for kind, k in self.returns
        )
        return results if self.returns_tuple else results[0]


def _boxed(value: Any) -> Any:
    """A step's result as Numba returns it: arrays as they are, scalars as Python numbers."""
    return value.item() if isinstance(value, np.generic) else value


def _run(plan: Plan, values: list[Any], queue: Queue, used: list[_core.Kernel] | None) -> Any:
    if used is not None:
        shape = plan.shape(values)
        if shape is None:
            return NotImplemented
        used.append(plan.kernel(plan.contiguity(values, shape), queue.device))
    return plan.run(tuple(values), queue)


class _Unsupported(Exception):
    pass


def _calls(e: Expr) -> bool:
    """Whether `e` calls a function (a ufunc written as a call, not an operator)."""
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, Op) and not x.operator:
            return True
        stack.extend(_operands(x))
    return False


def _operands(e: Expr) -> tuple[Expr, ...]:
    return e.args if isinstance(e, (Op, Where)) else (e.arg,) if isinstance(e, (Reduce, View)) else ()


def has_steps(program: Program) -> bool:
    """Whether the function reduces along an axis or slices: it then runs in steps."""
    seen: set[int] = set()
    stack: list[Expr] = [*program.statements, *program.returns]
    while stack:
        e = stack.pop()
        if isinstance(e, (Reduce, View)):
            return True
        if id(e) not in seen and isinstance(e, (Op, Where)):
            seen.add(id(e))
            stack.extend(e.args)
    return False


def specialize(program: Program, kinds: tuple[Kind | None, ...]) -> Plan | StagedPlan | None:
    """The plan for arguments of `kinds` (staged when the function reduces along an axis), or None
    when Numba must compile the call."""
    if not has_steps(program):
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
        self.steps: list[_Step | _WholeStep | _ViewStep] = []

    def plan(self) -> StagedPlan:
        program = self.program
        # every reduction is evaluated, in the order of the statements, as the compiled form does
        statements = [self.sub(st) for st in program.statements]
        rets = [self.sub(e) for e in program.returns]
        finals: list[Expr] = []
        scalar_finals: list[Expr] = []
        returns = []
        for r in rets:
            if isinstance(r, Param):
                if r.index < len(program.params):
                    raise _Unsupported  # an argument returned: as Numba returns it
                returns.append(("value", r.index))
            elif not self._reads_an_array(r):  # a scalar: host arithmetic on the steps' results
                returns.append(("scalar", len(scalar_finals)))
                scalar_finals.append(r)
            else:
                k = next((k for k, f in enumerate(finals) if f is r), len(finals))
                if k == len(finals):
                    finals.append(r)
                returns.append(("final", k))
        checks = None
        if not finals:
            # array statements no result needs: Numba evaluates them (their operands must broadcast,
            # the scalars they take are computed), so the last plan computes one, for nothing, and
            # checks the others as it checks unused statements
            unreached = self._unreached(statements)
            arrays = [e for e in unreached if self._reads_an_array(e)]
            finals = arrays[:1]
            if not arrays and not scalar_finals and any(_calls(e) for e in unreached):
                # a call on scalars no result needs: Numba keeps it, and the scalar arithmetic of its
                # operands, which may raise (`np.sqrt(1 / k)` with k = 0): a plan of the statements,
                # whose host steps each call computes (its kernel, of a step's result, never runs)
                dummy = Op(np.positive, (Param(len(program.params)),), False)
                checks = specialize_plan(
                    Program(tuple(self.names), tuple(statements), (dummy,), True), tuple(self.kinds)
                )
                if checks is None:
                    raise _Unsupported
        final = None
        if finals:
            final = specialize_plan(
                Program(tuple(self.names), tuple(statements), tuple(finals), True), tuple(self.kinds)
            )
            if final is None:
                raise _Unsupported
        separate = None
        if len(finals) > 1:
            found = [
                specialize_plan(Program(tuple(self.names), tuple(statements), (f,), True), tuple(self.kinds))
                for f in finals
            ]
            separate = [p for p in found if p is not None]
            if len(separate) < len(found):
                raise _Unsupported
        scalars = None
        if scalar_finals:  # its host steps keep the calls on scalars, as Numba does
            scalars = specialize_scalars(
                Program(tuple(self.names), tuple(statements), tuple(scalar_finals), True), tuple(self.kinds)
            )
            if scalars is None:
                raise _Unsupported
        kinds = self.program_kinds()
        return StagedPlan(
            kinds, self.steps, final, tuple(returns), program.returns_tuple, separate, checks, scalars
        )

    def program_kinds(self) -> tuple[Kind | None, ...]:
        return tuple(self.kinds[: len(self.program.params)])

    def _unreached(self, statements: list[Expr]) -> list[Expr]:
        """The statements (of `statements`, over the call's values) not part of what the function
        returns, other than reductions and slices (evaluated in their steps). Numba evaluates the
        array statements among them and the calls on scalars; the rest is dead code."""
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
            if id(st) not in reached and not isinstance(new, Param)
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
        elif isinstance(e, View):
            r = self.stage_view(e)
        elif isinstance(e, Op):
            r = Op(e.ufunc, tuple(self.sub(a) for a in e.args), e.operator)
        elif isinstance(e, Where):
            r = Where(tuple(self.sub(a) for a in e.args))
        else:
            r = e
        self.new[id(e)] = r
        return r

    def operand(self, arg: Expr) -> tuple[int | None, Plan | None, int, str]:
        """A step's operand: (the call's value it is, or the plan computing it; its ndim, dtype)."""
        operand = self.sub(arg)
        if isinstance(operand, Param):
            kind = self.kinds[operand.index]
            if not isinstance(kind, tuple):
                raise _Unsupported  # a reduction or slice of a scalar: Numba's
            return operand.index, None, kind[1], kind[2]
        # the operand's program keeps the statements it reads, whose values the compiled form
        # stores in arrays of their typed dtypes (the plan casts statement values to them)
        program = Program(tuple(self.names), self._statements_in(arg), (operand,), False)
        plan = specialize_plan(program, tuple(self.kinds))
        if plan is None:
            raise _Unsupported
        return None, plan, plan.ndim, plan.out_dtypes[0].name

    def add_step(self, step: _Step | _WholeStep | _ViewStep, kind: Kind) -> Param:
        self.steps.append(step)
        self.names.append(f"$r{len(self.steps) - 1}")  # not a name of the source
        self.kinds.append(kind)
        return Param(len(self.names) - 1)

    def stage(self, r: Reduce) -> Param:
        source, plan, ndim, dtype = self.operand(r.arg)
        if (r.op in ("min", "max") and dtype == "bool") or not (r.axis is None or -ndim <= r.axis < ndim):
            raise _Unsupported  # Numba's error
        if r.axis is None or ndim == 1:  # a scalar, as NumPy gives for a 1-d operand too
            out = result_dtype(r.op, dtype)
            kind = {"float64": "float", "int64": "int"}.get(out.name, out.name)
            return self.add_step(_WholeStep(source, plan, len(self.names), WholeReduction(r.op, dtype)), kind)
        axis = r.axis % ndim
        out = result_dtype(r.op, dtype)
        step = _Step(source, plan, len(self.names), r.op, axis, dtype, ndim, out)
        return self.add_step(step, ("array", ndim - 1, out.name))

    def stage_view(self, v: View) -> Param:
        source, plan, ndim, dtype = self.operand(v.arg)
        if len(v.index) > ndim:
            raise _Unsupported  # too many indices: Numba raises
        return self.add_step(_ViewStep(source, plan, len(self.names), v.index), ("array", ndim, dtype))

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
