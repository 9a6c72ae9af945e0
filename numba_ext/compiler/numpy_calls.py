"""The before-inference rewrite of the NumPy calls that search, count, reshape and multiply into a
given output: ``np.searchsorted``, ``np.bincount``, ``np.histogram``, ``x.reshape`` / ``np.reshape``,
``np.dot(a, b, out)`` and ``np.matmul(a, b, out=)``.

Each becomes a call of a dispatch function defined here, with its keyword arguments made positional
(a missing one becomes its NumPy default). Their overloads (``search_and_count``, ``reshape_views``,
``products_out``) give NumPy's implementation for anything but numba_ext arrays and device helpers for
numba_ext arrays. This module only names the dispatch functions, so the rewrite (installed by
``numba_hooks``) does not depend on the helpers the overloads compile."""

from __future__ import annotations

import os

import numba
import numpy as np
from numba.core import ir
from numba.core.rewrites import Rewrite

from .eager_numpy import METHODS as EAGER_METHODS
from .eager_numpy import NOT_REWRITTEN as EAGER_DISPATCH
from .eager_numpy import dispatcher, eager_name, refresh_contexts
from .redirects import emit_call, resolve_global
from .reduction_rules import method_of


def nx_searchsorted(a, v, side):
    return np.searchsorted(a, v, side=side)


def nx_bincount(x, weights, minlength):
    return np.bincount(x, weights=weights, minlength=minlength)


def nx_histogram(a, bins, range):
    return np.histogram(a, bins=bins, range=range)


def nx_reshape(a, shape):
    return a.reshape(shape)


def nx_dot_out(a, b, out):
    return np.dot(a, b, out)


def nx_matmul_out(a, b, out):
    return np.matmul(a, b, out=out)


# The host implementations the overloads give NumPy arrays; the rewrite leaves them alone.
def host_searchsorted(a, v, side):
    return np.searchsorted(a, v, side=side)


def host_bincount(x, weights, minlength):
    return np.bincount(x, weights=weights, minlength=minlength)


def host_histogram(a, bins, range):
    return np.histogram(a, bins=bins, range=range)


def host_reshape(a, shape):
    return a.reshape(shape)


def result_aliases(position: int):
    """An alias-analysis handler for Numba's parfor passes: the call's result may be (a view of) its
    argument at `position`, so loops writing into the result are not dead code when only that
    argument is used afterwards (``nx_reshape`` returns views, the products return ``out``)."""

    def add_alias(lhs, args, alias_map, arg_aliases):
        rhs = args[position].name
        if rhs in arg_aliases:
            arg_aliases.add(lhs)
            return
        alias_map.setdefault(rhs, set()).add(lhs)
        alias_map.setdefault(lhs, set()).add(rhs)

    return add_alias


#: (dispatch function, the position of the argument its result may alias)
ALIASING = ((nx_reshape, 0), (nx_dot_out, 2), (nx_matmul_out, 2))

_NUMBA_DIR = os.path.dirname(os.path.realpath(numba.__file__)) + os.sep

NOT_REWRITTEN: set = {host_searchsorted, host_bincount, host_histogram, host_reshape}

#: NumPy function -> (dispatch function, its parameters after the first ones, their defaults)
_CALLS = {
    np.searchsorted: (nx_searchsorted, ("a", "v", "side"), {"side": "left"}),
    np.bincount: (nx_bincount, ("x", "weights", "minlength"), {"weights": None, "minlength": 0}),
    np.histogram: (nx_histogram, ("a", "bins", "range"), {"bins": 10, "range": None}),
}


def _positional(call, params, defaults):
    """The call's arguments in the order of `params` (values, or constants for the missing ones with
    a default), or None when the call has arguments the dispatch function does not take."""
    if call.vararg or len(call.args) > len(params):
        return None
    given = dict(zip(params, call.args))
    for k, v in call.kws:
        if k not in params or k in given:
            return None
        given[k] = v
    if any(p not in given and p not in defaults for p in params):
        return None
    return [given.get(p, defaults.get(p)) for p in params]


class RewriteNumpyCalls(Rewrite):
    """np.searchsorted(a, v, side=), np.bincount(x, weights=, minlength=), np.histogram(a, bins=,
    range=), x.reshape(*shape), np.reshape(x, shape), np.dot(a, b, out), np.matmul(a, b, out=) -> the
    dispatch functions above. Other forms (np.histogram(density=), x.reshape(order=)) stay as written."""

    def __init__(self, state):
        super().__init__(state)
        self.state = state

    def match(self, func_ir, block, typemap, calltypes):
        self.func_ir, self.block, self.todo, self.dead = func_ir, block, [], {}
        if func_ir.func_id.func in NOT_REWRITTEN or func_ir.func_id.func in EAGER_DISPATCH:
            return False
        # Numba's own implementations call NumPy functions on their temporaries as Numba does
        self.eager = not os.path.realpath(func_ir.loc.filename).startswith(_NUMBA_DIR)
        for inst in block.body:
            if isinstance(inst, ir.Assign) and isinstance(inst.value, ir.Expr) and inst.value.op == "call":
                found = self._dispatch(func_ir, inst.value)
                if found is not None:
                    self.todo.append((inst, *found))
        return bool(self.todo)

    def _dispatch(self, func_ir, call):
        """(dispatch function, arguments) for a call this rewrite handles, else None."""
        fn = resolve_global(func_ir, call.func)
        name = eager_name(fn, len(call.args), len(call.kws)) if self.eager and not call.vararg else None
        if name is not None:  # computed by the eager library (eager_numpy)
            kwnames = tuple(k for k, _ in call.kws)
            args = [self._tuple_for_list(a) for a in [*call.args, *(v for _, v in call.kws)]]
            target = dispatcher(name, len(call.args), kwnames)
            refresh_contexts(self.state.typingctx, self.state.targetctx)
            # Numba need not type the NumPy function (it cannot type those it lacks, np.compress)
            self.dead[call.func.name] = target
            return target, args
        if fn in _CALLS:
            target, params, defaults = _CALLS[fn]
            args = _positional(call, params, defaults)
            return None if args is None else (target, args)
        if fn is np.reshape:
            args = _positional(call, ("a", "shape"), {})
            return None if args is None else (nx_reshape, args)
        if fn in (np.dot, np.matmul):
            args = _positional(call, ("a", "b", "out"), {})
            if args is None:
                return None
            self.dead[call.func.name] = nx_dot_out if fn is np.dot else nx_matmul_out
            return (nx_dot_out if fn is np.dot else nx_matmul_out), args
        m = method_of(func_ir, call.func)
        if m is not None and m[0] in EAGER_METHODS and self.eager and not call.vararg:
            kwnames = tuple(k for k, _ in call.kws)
            args = [m[1], *call.args, *(v for _, v in call.kws)]
            target = dispatcher(m[0], 1 + len(call.args), kwnames, method=True)
            refresh_contexts(self.state.typingctx, self.state.targetctx)
            self.dead[call.func.name] = None  # the bound method is no longer called
            return target, args
        if m is not None and m[0] == "reshape" and call.args and not call.kws and not call.vararg:
            self.dead[call.func.name] = None
            shape = call.args[0] if len(call.args) == 1 else ir.Expr.build_tuple(list(call.args), call.loc)
            return nx_reshape, [m[1], shape]
        return None

    def _tuple_for_list(self, var):
        """A list display given to an eager call (``np.concatenate([a, b])``) as a tuple of its items:
        the call takes tuples of arrays, not lists."""
        try:
            d = self.func_ir.get_definition(var)
        except Exception:  # no single definition
            return var
        if isinstance(d, ir.Expr) and d.op == "build_list":
            return ir.Expr.build_tuple(list(d.items), var.loc)
        return var

    def apply(self):
        new = self.block.copy()
        new.clear()
        todo = {id(i): (f, a) for i, f, a in self.todo}
        for inst in self.block.body:
            if isinstance(inst, ir.Assign) and inst.target.name in self.dead:
                # the callee of a rewritten call (`x.reshape`, np.matmul) is no longer called: Numba
                # need not type it (it cannot type np.matmul, nor x.reshape of a strided view)
                value = self.dead[inst.target.name]
                c = ir.Const(None, inst.loc) if value is None else ir.Global(value.__name__, value, inst.loc)
                inst = ir.Assign(c, inst.target, inst.loc)
                self.func_ir._definitions[inst.target.name] = [c]
            if id(inst) not in todo:
                new.append(inst)
                continue
            fn, args = todo[id(inst)]
            emit_call(new, self.func_ir, fn, [self._var(new, a, inst) for a in args], inst.target, inst.loc)
        return new

    def _var(self, new, value, inst):
        """`value` as a variable: constants and built tuples are assigned to a new one first."""
        if isinstance(value, ir.Var):
            return value
        scope, loc = inst.target.scope, inst.loc
        v = ir.Var(scope, scope.redefine("$nx_arg", loc).name, loc)
        expr = value if isinstance(value, ir.Expr) else ir.Const(value, loc)
        new.append(ir.Assign(expr, v, loc))
        self.func_ir._definitions[v.name] = [expr]
        return v
