"""Array-expression functions read from their source: the straight-line subset of Python that a jitted
function needs no Numba for.

A function qualifies when its body (after an optional docstring) is assignments of one name each and
a final ``return`` of one expression or a tuple of them, and every expression is built from its
parameters, earlier names, numbers (literals, or module-level and closure names bound to Python
numbers, ``math.pi``), the operators ``+ - * / // % **``, unary ``-``/``+`` and one comparison
(``< <= > >= == !=``), calls of the NumPy ufuncs below and of ``np.where(condition, x, y)`` with
positional arguments, reductions over every element or along one axis given as an integer:
``np.sum(x)``, ``np.sum(x, axis=1)``, ``np.prod``, ``np.mean``, ``np.min``/``np.amin``,
``np.max``/``np.amax``, or the methods ``x.sum()``, ``x.sum(1)``, ``x.mean(axis=-1)``, ... (the axis
positional or as ``axis=``, ``None`` for every element), and slices with integer
bounds and steps (``a[1:]``, ``a[:-1, ::2]``: views, as in Numba). Anything else (loops, conditions,
other attributes of arrays, integer or array indices, other keyword arguments, other functions) is
left to Numba; so is a call whose argument types :mod:`.plan` and :mod:`.staged` do not cover. Globals are
read when the function is first specialised, as Numba freezes them when it compiles.
"""

from __future__ import annotations

import ast
import copy
import dis
import inspect
import linecache
import textwrap
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

#: ufuncs with a float64 -> float64 loop that the path compiles (operators map to these too)
UNARY = frozenset(
    {
        np.negative,
        np.positive,
        np.absolute,
        np.fabs,
        np.sqrt,
        np.exp,
        np.expm1,
        np.exp2,
        np.log,
        np.log1p,
        np.log2,
        np.log10,
        np.sin,
        np.cos,
        np.tan,
        np.arcsin,
        np.arccos,
        np.arctan,
        np.sinh,
        np.cosh,
        np.tanh,
        np.arcsinh,
        np.arccosh,
        np.arctanh,
        np.floor,
        np.ceil,
        np.trunc,
        np.rint,
        np.cbrt,
        np.square,
    }
)
BINARY = frozenset(
    {
        np.add,
        np.subtract,
        np.multiply,
        np.true_divide,
        np.floor_divide,
        np.remainder,
        np.power,
        np.minimum,
        np.maximum,
        np.arctan2,
        np.hypot,
        np.copysign,
        np.fmod,
    }
)
#: comparison ufuncs (boolean results; on arrays only: comparing scalars is Numba's)
COMPARISONS = frozenset({np.less, np.less_equal, np.greater, np.greater_equal, np.equal, np.not_equal})
_COMPARE: dict[type, np.ufunc] = {
    ast.Lt: np.less,
    ast.LtE: np.less_equal,
    ast.Gt: np.greater,
    ast.GtE: np.greater_equal,
    ast.Eq: np.equal,
    ast.NotEq: np.not_equal,
}
#: the reductions along an axis the path compiles, by function and by method name
REDUCTIONS = {np.sum: "sum", np.prod: "prod", np.mean: "mean", np.min: "min", np.max: "max"}
REDUCTIONS.update({np.amin: "min", np.amax: "max"})
_REDUCTION_METHODS = frozenset({"sum", "prod", "mean", "min", "max"})
_OPERATORS: dict[type, np.ufunc] = {
    ast.Add: np.add,
    ast.Sub: np.subtract,
    ast.Mult: np.multiply,
    ast.Div: np.true_divide,
    ast.FloorDiv: np.floor_divide,
    ast.Mod: np.remainder,
    ast.Pow: np.power,
    ast.USub: np.negative,
    ast.UAdd: np.positive,
}


@dataclass(frozen=True)
class Param:
    """The function's parameter `index`."""

    index: int


@dataclass(frozen=True)
class Number:
    """A Python number from the source or its globals (int within int64, or float)."""

    value: int | float


@dataclass(frozen=True, eq=False)
class Op:
    """`ufunc` applied to `args`; `operator`: written as a Python operator (scalar operands then follow
    Python's rules, as in Numba: division by zero raises). Compared by identity: a name used twice
    is one ``Op``, computed once."""

    ufunc: np.ufunc
    args: tuple[Expr, ...]
    operator: bool


@dataclass(frozen=True, eq=False)
class Where:
    """``np.where(condition, x, y)``; compared by identity, as ``Op``."""

    args: tuple[Expr, ...]


@dataclass(frozen=True, eq=False)
class Reduce:
    """``np.<op>(arg, axis=axis)`` (`op` one of ``REDUCTIONS``' names); `axis` as written (checked
    against the operand's dimensions when specialised), None over every element. Compared by
    identity, as ``Op``."""

    op: str
    arg: Expr
    axis: int | None


@dataclass(frozen=True, eq=False)
class View:
    """``arg[index]``: a view of an array through slices (a tuple of ``slice`` objects with int or
    None bounds and a nonzero int or None step), one per leading dimension. Compared by identity."""

    arg: Expr
    index: tuple[slice, ...]


Expr = Param | Number | Op | Where | Reduce | View


@dataclass(frozen=True)
class Program:
    """A qualifying function: its parameter names, the expressions of its assignments in order (all
    of them typed; what no result needs is dead code, dropped as Numba drops it) and of its return
    value."""

    params: tuple[str, ...]
    statements: tuple[Expr, ...]
    returns: tuple[Expr, ...]
    returns_tuple: bool


class _NotHere(Exception):
    """The function is outside the subset (the message says where)."""


def parse(py_func: Callable[..., Any]) -> Program | str:
    """The function as a :class:`Program`, or why it is not one."""
    try:
        return _Reader(py_func).program()
    except _NotHere as e:
        return str(e)


class _Reader:
    def __init__(self, py_func: Callable[..., Any]) -> None:
        self.func = py_func
        code = getattr(py_func, "__code__", None)
        if code is None:
            raise _NotHere("not a Python function")
        self.params = code.co_varnames[: code.co_argcount]
        if code.co_kwonlyargcount or code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS):
            raise _NotHere("keyword-only, *args or **kwargs parameters")
        if py_func.__defaults__:
            raise _NotHere("parameters with defaults")
        if code.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR):
            raise _NotHere("a generator or coroutine")
        self.closure = dict(zip(code.co_freevars, (c.cell_contents for c in py_func.__closure__ or ())))
        self.names: dict[str, Expr] = {n: Param(i) for i, n in enumerate(self.params)}

    def _body(self) -> list[ast.stmt]:
        """The statements of the function (a lambda's: ``return <its expression>``)."""
        tree = _def_block(self.func) if self.func.__name__ != "<lambda>" else None
        if tree is None:
            try:
                tree = ast.parse(textwrap.dedent(inspect.getsource(self.func)))
            except (OSError, TypeError, SyntaxError, IndentationError):
                raise _NotHere("source not available") from None
        if self.func.__name__ == "<lambda>":
            # the line(s) holding the lambda: it must be the only one there with these parameters
            found = [
                n
                for n in ast.walk(tree)
                if isinstance(n, ast.Lambda) and tuple(a.arg for a in n.args.args) == self.params
            ]
            if len(found) != 1:
                raise _NotHere("the lambda cannot be told apart in its source line")
            self._check_compiles_to_the_code(found[0])
            return [ast.Return(value=found[0].body, lineno=found[0].lineno, col_offset=0)]
        fn = tree.body[0] if len(tree.body) == 1 else None
        if not isinstance(fn, ast.FunctionDef) or fn.name != self.func.__name__:
            raise _NotHere("source is not one def statement")
        self._check_compiles_to_the_code(fn)
        return fn.body

    def _check_compiles_to_the_code(self, node: ast.FunctionDef | ast.Lambda) -> None:
        """The source read is the function's: compiled again (inside a function giving it the same
        free variables) it gives the same bytecode, constants and names. A file edited since the
        function was defined, or source that `inspect` attributed wrongly, is refused."""
        code = self.func.__code__
        if isinstance(node, ast.FunctionDef):
            inner: ast.stmt = copy.copy(node)
            inner.decorator_list = []  # type: ignore[attr-defined]
            inner_name = node.name
        else:
            inner = ast.Assign(targets=[ast.Name("__nx_f", ast.Store())], value=node)
            inner_name = "__nx_f"
        cells = [
            ast.Assign(targets=[ast.Name(v, ast.Store())], value=ast.Constant(None)) for v in code.co_freevars
        ]
        outer = ast.parse("def __nx_outer():\n    pass").body[0]
        assert isinstance(outer, ast.FunctionDef)
        outer.body = [*cells, inner, ast.Return(ast.Name(inner_name, ast.Load()))]
        module = ast.fix_missing_locations(ast.Module(body=[outer], type_ignores=[]))
        try:
            namespace: dict[str, Any] = {}
            exec(compile(module, "<source check>", "exec"), namespace)
            again = namespace["__nx_outer"]().__code__
        except Exception:
            raise _NotHere("the source read does not compile") from None
        same = (
            _instructions(again) == _instructions(code)
            and _const_key(again.co_consts) == _const_key(code.co_consts)
            and again.co_names == code.co_names
            and again.co_varnames == code.co_varnames
            and again.co_freevars == code.co_freevars
        )
        if not same:
            raise _NotHere("the source on disk is not the function's code (edited since it was defined?)")

    def program(self) -> Program:
        body = list(self._body())
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]  # docstring
        if not body or not isinstance(body[-1], ast.Return) or body[-1].value is None:
            raise _NotHere("the function does not end in `return <value>`")
        statements = []
        for st in body[:-1]:
            if isinstance(st, ast.Pass):
                continue
            if not (
                isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name)
            ):
                raise _NotHere(f"line {st.lineno}: only `name = expression` statements")
            value = self._expr(st.value)
            statements.append(value)
            self.names[st.targets[0].id] = value
        ret = body[-1].value
        as_tuple = isinstance(ret, ast.Tuple)
        returns = tuple(self._expr(e) for e in ret.elts) if isinstance(ret, ast.Tuple) else (self._expr(ret),)
        if not returns:
            raise _NotHere("returns an empty tuple")
        return Program(tuple(self.params), tuple(statements), returns, as_tuple)

    def _expr(self, node: ast.expr) -> Expr:
        if isinstance(node, ast.Constant):
            return _number(node.value, f"line {node.lineno}: the constant {node.value!r}")
        if isinstance(node, ast.Name):
            if node.id in self.names:
                return self.names[node.id]
            return _number(self._global(node.id), f"line {node.lineno}: the name {node.id!r}")
        if isinstance(node, ast.Attribute):
            return _number(self._object(node), f"line {node.lineno}: {ast.unparse(node)}")
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            return Op(_OPERATORS[type(node.op)], (self._expr(node.left), self._expr(node.right)), True)
        if isinstance(node, ast.UnaryOp) and type(node.op) in _OPERATORS:
            return Op(_OPERATORS[type(node.op)], (self._expr(node.operand),), True)
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _COMPARE:
            operands = (self._expr(node.left), self._expr(node.comparators[0]))
            return Op(_COMPARE[type(node.ops[0])], operands, True)
        if isinstance(node, ast.Subscript):
            parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            if not parts or not all(isinstance(p, ast.Slice) for p in parts):
                raise _NotHere(f"line {node.lineno}: {ast.unparse(node)!r} (slices only)")
            return View(self._expr(node.value), tuple(self._slice(p) for p in parts))  # type: ignore[arg-type]
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and not self._module(node.func.value)
        ):
            if node.func.attr in _REDUCTION_METHODS:  # x.sum(axis): a method of an array expression
                return self._reduce(node.func.attr, node.func.value, node.args, node)
        elif isinstance(node, ast.Call) and (op := _reduction(self._object(node.func))) is not None:
            if not node.args:
                raise _NotHere(f"line {node.lineno}: {ast.unparse(node)!r}")
            return self._reduce(op, node.args[0], node.args[1:], node)
        if isinstance(node, ast.Call) and not node.keywords:
            fn = self._object(node.func)
            n = len(node.args)
            starred = any(isinstance(a, ast.Starred) for a in node.args)
            if (n == 1 and fn in UNARY or n == 2 and (fn in BINARY or fn in COMPARISONS)) and not starred:
                return Op(fn, tuple(self._expr(a) for a in node.args), False)
            if n == 3 and fn is np.where and not starred:
                return Where(tuple(self._expr(a) for a in node.args))
        raise _NotHere(f"line {getattr(node, 'lineno', '?')}: {ast.unparse(node)!r}")

    def _reduce(self, op: str, operand: ast.expr, rest: list[ast.expr], node: ast.Call) -> Reduce:
        """A reduction of `operand` along the one axis given by `rest` (positional) or ``axis=``,
        over every element when none is given (or ``None``)."""
        given = list(rest) + [k.value for k in node.keywords if k.arg == "axis"]
        if (
            len(given) > 1
            or any(k.arg != "axis" for k in node.keywords)
            or any(isinstance(g, ast.Starred) for g in given)
        ):
            raise _NotHere(f"line {node.lineno}: {ast.unparse(node)!r} (one axis, as an integer)")
        if not given or (isinstance(given[0], ast.Constant) and given[0].value is None):
            return Reduce(op, self._expr(operand), None)
        axis = self._integer(given[0], f"the axis of {ast.unparse(node)!r}")  # -1: the last axis
        return Reduce(op, self._expr(operand), axis)

    def _integer(self, node: ast.expr, what: str) -> int:
        """An integer literal (``-1`` too) or a global or closure name bound to one."""
        sign = 1
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            node, sign = node.operand, -1
        value = self._expr(node)
        if not (isinstance(value, Number) and type(value.value) is int):
            raise _NotHere(f"line {node.lineno}: {what} {ast.unparse(node)!r} is not an integer")
        return sign * value.value

    def _slice(self, node: ast.Slice) -> slice:
        lower, upper, step = (
            None if part is None else self._integer(part, "the slice bound")
            for part in (node.lower, node.upper, node.step)
        )
        if step == 0:
            raise _NotHere(f"line {node.lineno}: a slice step of zero")
        return slice(lower, upper, step)

    def _module(self, node: ast.expr) -> bool:
        """Whether `node` names a module (``np`` in ``np.sum``), not a value of the function."""
        try:
            return inspect.ismodule(self._object(node))
        except _NotHere:
            return False

    def _global(self, name: str) -> Any:
        if name in self.closure:
            return self.closure[name]
        g = self.func.__globals__
        if name in g:
            return g[name]
        raise _NotHere(f"the name {name!r} is not a global of the function")

    def _object(self, node: ast.expr) -> Any:
        """The object a dotted name (``np.exp``, ``math.pi``) refers to, through modules only."""
        if isinstance(node, ast.Name) and node.id not in self.names:
            return self._global(node.id)
        if isinstance(node, ast.Attribute):
            base = self._object(node.value)
            if inspect.ismodule(base) and hasattr(base, node.attr):
                return getattr(base, node.attr)
        raise _NotHere(f"line {getattr(node, 'lineno', '?')}: {ast.unparse(node)!r}")


def _reduction(fn: Any) -> str | None:
    """The name of the reduction `fn` is (``np.sum``: ``"sum"``), or None."""
    try:
        return REDUCTIONS.get(fn)
    except TypeError:  # an unhashable global called as a function
        return None


def _def_block(func: Callable[..., Any]) -> ast.Module | None:
    """The parsed lines of a ``def`` (with its decorators), found from its first line to the next
    line indented no deeper; None where that is not one parsable statement (a signature closed at
    the def's own indentation, a string running out to the margin: ``inspect.getsource`` reads
    those). Quicker than ``inspect``, whose tokenizer costs a new process ~15 ms; what this reads is
    checked against the function's bytecode like any source."""
    code = func.__code__
    lines = linecache.getlines(code.co_filename, func.__globals__)
    start = code.co_firstlineno - 1
    if not 0 <= start < len(lines):
        return None
    indent = len(lines[start]) - len(lines[start].lstrip())
    end = start + 1
    while end < len(lines):
        text = lines[end].strip()
        if text and not text.startswith("#") and len(lines[end]) - len(lines[end].lstrip()) <= indent:
            break
        end += 1
    try:
        tree = ast.parse(textwrap.dedent("".join(lines[start:end])))
    except (SyntaxError, ValueError):
        return None
    return tree if len(tree.body) == 1 else None


#: instructions that carry no meaning of the function (call set-up, padding, line markers)
_NOISE = frozenset({"PRECALL", "PUSH_NULL", "NOP", "CACHE", "RESUME", "KW_NAMES", "EXTENDED_ARG"})


def _instructions(code: Any) -> list[tuple[str, Any]]:
    """A code object's instructions as (operation, argument), without the details in which two
    compilations of the same source may differ (a method load or an attribute load for
    ``np.exp(x)``, jump offsets, cache entries)."""
    out = []
    for ins in dis.get_instructions(code):
        if ins.opname in _NOISE:
            continue
        op = "LOAD_ATTR" if ins.opname == "LOAD_METHOD" else ins.opname
        out.append((op, None if "JUMP" in op else _const_key(ins.argval)))
    return out


def _const_key(value: Any) -> Any:
    """A constant in a form that compares by value and bits (a NaN the compiler folded, ``-(1e300 *
    1e300) // 0.5``, equals itself; ``0.0`` and ``-0.0`` differ); code objects by their instructions."""
    if type(value) is float:
        return ("float", value.hex())
    if type(value) is complex:
        return ("complex", value.real.hex(), value.imag.hex())
    if type(value) in (tuple, frozenset):
        return (type(value).__name__, tuple(_const_key(v) for v in value))
    if isinstance(value, types.CodeType):
        return ("code", tuple(_instructions(value)), _const_key(value.co_consts))
    return value


def _number(value: Any, what: str) -> Number:
    if type(value) is float or type(value) is np.float64:
        return Number(float(value))
    if (type(value) is int or type(value) is np.int64) and -(2**63) <= value < 2**63:
        return Number(int(value))
    raise _NotHere(f"{what} is not a float or a 64-bit int")
