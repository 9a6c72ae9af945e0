"""The before-inference rewrite of numba_ext's creation functions in jitted code.

``numba_ext.empty/zeros/ones/full(...)`` become ``usm_alloc(...)`` and ``numba_ext.arange/linspace/
eye/asarray(...)`` the ``nx_*`` functions below (overloaded in ``alloc_sequences``), each with every
parameter in a fixed order (constants for those not given) and, last, a tuple of the function's
arguments: the arrays whose queue an allocation without ``device=`` / ``sycl_queue=`` follows
(``alloc_target``). Positional parameters follow dpnp's signatures, so code written for dpnp keeps
its meaning."""

from __future__ import annotations

from dataclasses import dataclass, field

from numba.core import ir
from numba.core.rewrites import Rewrite

from .. import arrays
from ..errors import UnsupportedError
from .alloc import usm_alloc
from .redirects import emit_call, resolve_global

_PLACE = ("device", "usm_type", "sycl_queue")


# The functions the calls become (their overloads are in ``alloc_sequences``).
def nx_arange(start, stop, step, dtype, usm_type, device, sycl_queue, sources):
    raise NotImplementedError  # replaced by its overload in jitted code


def nx_linspace(start, stop, num, endpoint, dtype, usm_type, device, sycl_queue, sources):
    raise NotImplementedError


def nx_eye(N, M, k, dtype, order, usm_type, device, sycl_queue, sources):
    raise NotImplementedError


def nx_asarray(a, dtype, order, usm_type, device, sycl_queue, copy, sources):
    raise NotImplementedError


@dataclass(frozen=True)
class Form:
    """How a call of one creation function maps onto the function it becomes: the names it takes
    positionally and by keyword only, the target's parameters in order (before the sources) and the
    constants of those not given (None unless listed)."""

    target: object
    positional: tuple[str, ...]
    keywords: tuple[str, ...]
    params: tuple[str, ...]
    defaults: dict = field(default_factory=dict)
    required: tuple[str, ...] = ()


_ALLOC = ("shape", "dtype", "usm_type", "device", "sycl_queue", "order", "fill_value")


def _filled(fill) -> Form:
    return Form(usm_alloc, ("shape", "dtype", "order"), _PLACE, _ALLOC, {"fill_value": fill}, ("shape",))


FORMS = {
    arrays.empty: _filled(None),
    arrays.zeros: _filled(0.0),  # a float: without dtype=, the device's default float
    arrays.ones: _filled(1.0),
    arrays.full: Form(
        usm_alloc, ("shape", "fill_value", "dtype", "order"), _PLACE, _ALLOC, {}, ("shape", "fill_value")
    ),
    arrays.arange: Form(
        nx_arange,
        ("start", "stop", "step", "dtype"),
        _PLACE,
        ("start", "stop", "step", "dtype", "usm_type", "device", "sycl_queue"),
        {"step": 1},
        ("start",),
    ),
    arrays.linspace: Form(
        nx_linspace,
        ("start", "stop", "num"),
        ("dtype", "endpoint", *_PLACE),
        ("start", "stop", "num", "endpoint", "dtype", "usm_type", "device", "sycl_queue"),
        {"num": 50, "endpoint": True},
        ("start", "stop"),
    ),
    arrays.eye: Form(
        nx_eye,
        ("N", "M", "k", "dtype", "order"),
        _PLACE,
        ("N", "M", "k", "dtype", "order", "usm_type", "device", "sycl_queue"),
        {"k": 0},
        ("N",),
    ),
    arrays.asarray: Form(
        nx_asarray,
        ("a", "dtype", "order"),
        ("copy", *_PLACE),
        ("a", "dtype", "order", "usm_type", "device", "sycl_queue", "copy"),
        {},
        ("a",),
    ),
}


def given_arguments(form: Form, call: ir.Expr, name: str, line: int) -> dict:
    """The call's arguments by parameter name; an UnsupportedError naming what is wrong."""
    where = f"numba_ext.{name}() in jitted code (line {line})"
    if call.vararg is not None or getattr(call, "varkwarg", None) is not None:
        raise UnsupportedError(f"{where} takes no *args or **kwargs")
    if len(call.args) > len(form.positional):
        raise UnsupportedError(f"{where} takes at most {len(form.positional)} positional arguments")
    given = dict(zip(form.positional, call.args))
    for k, v in call.kws:
        if k in given:
            raise UnsupportedError(f"{where}: {k} given twice")
        if k not in form.positional and k not in form.keywords:
            allowed = ", ".join(form.positional + tuple(f"{n}=" for n in form.keywords))
            raise UnsupportedError(f"{where} takes {allowed}; not {k}=")
        given[k] = v
    missing = [r for r in form.required if r not in given]
    if missing:
        raise UnsupportedError(f"{where} needs {', '.join(missing)}")
    return given


class RewriteAllocations(Rewrite):
    """numba_ext.empty(shape, dtype, order, device=, usm_type=, sycl_queue=) -> usm_alloc(shape,
    dtype, usm_type, device, sycl_queue, order, fill, (the function's arguments...)); likewise
    arange, linspace, eye and asarray to their functions in ``alloc_sequences``."""

    def match(self, func_ir, block, typemap, calltypes):
        self.func_ir, self.block = func_ir, block
        self.calls = []
        for inst in block.body:
            if isinstance(inst, ir.Assign) and isinstance(inst.value, ir.Expr) and inst.value.op == "call":
                fn = resolve_global(func_ir, inst.value.func)
                if fn in FORMS:
                    self.calls.append((inst, fn))
        return bool(self.calls)

    def apply(self):
        args = [
            s.target
            for s in self.func_ir.blocks[min(self.func_ir.blocks)].body
            if isinstance(s, ir.Assign) and isinstance(s.value, ir.Arg)
        ]
        new = self.block.copy()
        new.clear()
        todo = {id(i): f for i, f in self.calls}
        func_vars = {i.value.func.name for i, _ in self.calls}
        for inst in self.block.body:
            fn = todo.get(id(inst))
            if fn is None:
                if isinstance(inst, ir.Assign) and inst.target.name in func_vars:
                    # the getattr(numba_ext, "empty") the call used is no longer called
                    c = ir.Const(None, inst.loc)
                    inst = ir.Assign(c, inst.target, inst.loc)
                    self.func_ir._definitions[inst.target.name] = [c]
                new.append(inst)
                continue
            self._redirect(new, inst, fn, args)
        return new

    def _redirect(self, new: list, inst: ir.Assign, fn, args) -> None:
        form, call, loc, scope = FORMS[fn], inst.value, inst.loc, inst.target.scope
        given = given_arguments(form, call, fn.__name__, loc.line)

        def const(value, hint):
            v = ir.Var(scope, scope.redefine(f"$nx_{hint}", loc).name, loc)
            new.append(ir.Assign(ir.Const(value, loc), v, loc))
            return v

        values = [given.get(p) or const(form.defaults.get(p), p) for p in form.params]
        srcs = ir.Var(scope, scope.redefine("$nx_args", loc).name, loc)
        new.append(ir.Assign(ir.Expr.build_tuple(list(args), loc), srcs, loc))
        emit_call(new, self.func_ir, form.target, [*values, srcs], inst.target, loc)
