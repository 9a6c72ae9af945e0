"""Building the dataflow form of the kernel IR (``KernelSpec``) node by node, with NumPy's semantics
for ufuncs: the builder the eager library, the compiler layer and Numba-free jitted functions share.
Nothing here imports Numba."""

from __future__ import annotations

import hashlib

import numpy as np

from ..errors import UnsupportedError
from . import complex_lowering, numba_loops
from .kernel_ir import (
    ArrayParam,
    Binary,
    Cast,
    Const,
    KernelSpec,
    Node,
    Param,
    Scalar,
    ScalarArg,
    ScalarParam,
    Select,
    Store,
    Unary,
)
from .ufunc_compose import BINARY as _COMPOSED2
from .ufunc_compose import UNARY as _COMPOSED1
from .ufunc_compose import compose

# ufunc name -> (kind, our op name)
UFUNC_OPS = {
    "add": ("binary", "add"),
    "subtract": ("binary", "sub"),
    "multiply": ("binary", "mul"),
    "true_divide": ("binary", "div"),
    "divide": ("binary", "div"),
    "floor_divide": ("binary", "floordiv"),
    "remainder": ("binary", "rem"),
    "mod": ("binary", "rem"),
    "power": ("binary", "pow"),
    "minimum": ("binary", "min"),
    "maximum": ("binary", "max"),
    "arctan2": ("binary", "arctan2"),
    "left_shift": ("binary", "left_shift"),
    "right_shift": ("binary", "right_shift"),
    "fmod": ("binary", "fmod"),
    "copysign": ("binary", "copysign"),
    "nextafter": ("binary", "nextafter"),
    "gcd": ("binary", "gcd"),
    "float_power": ("binary", "pow"),
    "ldexp": ("composed", None),
    **{n: ("composed", None) for n in (*_COMPOSED1, *_COMPOSED2)},
    "hypot": ("binary", "hypot"),
    "bitwise_and": ("binary", "and"),
    "bitwise_or": ("binary", "or"),
    "bitwise_xor": ("binary", "xor"),
    "less": ("binary", "lt"),
    "less_equal": ("binary", "le"),
    "greater": ("binary", "gt"),
    "greater_equal": ("binary", "ge"),
    "equal": ("binary", "eq"),
    "not_equal": ("binary", "ne"),
    "logical_and": ("logical", "and"),
    "logical_or": ("logical", "or"),
    "logical_xor": ("logical", "xor"),
    "negative": ("unary", "neg"),
    "positive": ("identity", None),
    "conjugate": ("identity", None),
    "fabs": ("unary", "abs"),
    "absolute": ("unary", "abs"),
    "invert": ("unary", "not"),
    "logical_not": ("logical_not", None),
    "square": ("square", None),
    **{
        n: ("unary", n)
        for n in (
            "sqrt",
            "exp",
            "expm1",
            "log",
            "log1p",
            "log2",
            "log10",
            "sin",
            "cos",
            "tan",
            "arcsin",
            "arccos",
            "arctan",
            "sinh",
            "cosh",
            "tanh",
            "floor",
            "ceil",
            "trunc",
            "erf",
            "erfc",
            "arcsinh",
            "arccosh",
            "arctanh",
            "exp2",
            "cbrt",
            "rint",
        )
    },
    **complex_lowering.COMPLEX_UFUNC_OPS,
}

_ROUNDING = frozenset(("floor", "ceil", "trunc", "rint"))

COMPARISONS = frozenset(("lt", "le", "gt", "ge", "eq", "ne"))


class SpecBuilder:
    """Accumulates params and nodes; nodes are hash-consed so repeated subtrees appear once. Ufunc
    loops are NumPy's; :class:`CompiledSpecBuilder` picks them as Numba's typing does."""

    def __init__(self, ndim: int) -> None:
        self.ndim = ndim
        self.params: list[Param] = []
        self.nodes: list[Node] = []
        self._memo: dict[Node, int] = {}

    def array_param(self, name: str, dtype: str, ndim: int, contiguous: bool) -> int:
        self.params.append(ArrayParam(name, dtype, ndim, bool(contiguous)))
        return len(self.params) - 1

    def scalar_param(self, name: str, dtype: str) -> int:
        self.params.append(ScalarParam(name, dtype))
        return len(self.params) - 1

    def node(self, node: Node) -> int:
        if isinstance(node, Binary):
            complex_lowering.check_binary(node.op, node.dtype)
        if isinstance(node, Store):
            self.nodes.append(node)
            return len(self.nodes) - 1
        if node not in self._memo:
            self.nodes.append(node)
            self._memo[node] = len(self.nodes) - 1
        return self._memo[node]

    def const(self, dtype: str, value: Scalar | np.generic) -> int:
        """A constant node (NumPy scalars become Python numbers; bools stay bools)."""
        v = value.item() if isinstance(value, np.generic) else value
        return self.node(Const(dtype, bool(v) if dtype == "bool" else v))

    def cast(self, idx: int, frm: str, to: str) -> int:
        return idx if frm == to else self.node(Cast(to, idx))

    def apply_ufunc(
        self, ufunc: np.ufunc, vals: list[tuple[int, str]], name: str | None = None
    ) -> tuple[int, str]:
        """Nodes computing `ufunc` on operand nodes `vals` ((node, dtype) pairs) with NumPy's
        semantics: :meth:`find_loop` picks the computation dtypes."""
        return self._apply_loop(ufunc, vals, name)

    def find_loop(self, ufunc: np.ufunc, dts: list[str]) -> tuple[list[str], str] | None:
        """The input dtypes and the output dtype of `ufunc`'s loop for operands of dtypes `dts`
        (every operand a value of its dtype, none weak), or None when it has none: NumPy's own
        resolution."""
        try:
            loop = ufunc.resolve_dtypes(tuple(np.dtype(d) for d in dts) + (None,) * ufunc.nout)
        except (TypeError, ValueError):
            return None
        return [d.name for d in loop[: ufunc.nin]], loop[ufunc.nin].name

    def _apply_loop(
        self, ufunc: np.ufunc, vals: list[tuple[int, str]], name: str | None = None
    ) -> tuple[int, str]:
        found = self.find_loop(ufunc, [dt for _, dt in vals])
        if found is None:
            raise UnsupportedError(f"np.{ufunc.__name__} has no loop for {[dt for _, dt in vals]}")
        in_dts, out_dt = found
        if ufunc is np.true_divide and all(np.dtype(dt).kind in "biu" for _, dt in vals):
            in_dts, out_dt = ["float64", "float64"], "float64"  # NumPy's resolution for integers
        args = [self.cast(v, dt, want) for (v, dt), want in zip(vals, in_dts)]
        name = name or ufunc.__name__
        kind, op = UFUNC_OPS.get(name, (None, None))
        composed = compose(self, name, args, in_dts, out_dt) if kind == "composed" else None
        if composed is not None:
            return composed, out_dt
        if kind == "unary" and op in _ROUNDING and np.dtype(in_dts[0]).kind in "biu":
            kind = "identity"  # the integer loops of floor / ceil / trunc / rint: the value itself
        if kind == "binary" and op in COMPARISONS and in_dts[0] != in_dts[1]:
            return self.mixed_sign_compare(op, args, in_dts), "bool"
        if kind == "binary" and op is not None:
            complex_lowering.check_binary(op, in_dts[0])
            res_dt = "bool" if op in COMPARISONS else in_dts[0]
            return self.cast(self.node(Binary(res_dt, op, args[0], args[1])), res_dt, out_dt), out_dt
        if kind == "unary" and op is not None:
            res_dt = complex_lowering.unary_result(op, in_dts[0])
            return self.cast(self.node(Unary(res_dt, op, args[0])), res_dt, out_dt), out_dt
        if kind == "identity":
            return self.cast(args[0], in_dts[0], out_dt), out_dt
        if kind == "square":
            return self.cast(self.node(Binary(in_dts[0], "mul", args[0], args[0])), in_dts[0], out_dt), out_dt
        if kind == "logical_not":
            return self.node(Unary("bool", "not", self.cast(args[0], in_dts[0], "bool"))), "bool"
        if kind == "logical" and op is not None:
            bs = [self.cast(a, d, "bool") for a, d in zip(args, in_dts)]
            return self.node(Binary("bool", op, bs[0], bs[1])), "bool"
        raise UnsupportedError(f"np.{ufunc.__name__} cannot be offloaded yet")

    def mixed_sign_compare(self, name: str, args: list[int], dts: list[str]) -> int:
        """NumPy's exact comparison of uint64 with int64 (its loops 'Qq->?' and 'qQ->?'): a negative
        signed operand decides the result; otherwise both compare as uint64."""
        if sorted(dts) != ["int64", "uint64"]:
            raise UnsupportedError(f"comparison of {dts[0]} with {dts[1]} cannot be offloaded")
        s = 0 if dts[0] == "int64" else 1  # the signed operand
        neg = self.node(Binary("bool", "lt", args[s], self.const("int64", 0)))
        as_u = [self.cast(a, d, "uint64") for a, d in zip(args, dts)]
        both = self.node(Binary("bool", name, as_u[0], as_u[1]))
        # with the signed side negative, it is the smaller one
        smaller_left = s == 0
        when_neg = {
            "lt": smaller_left,
            "le": smaller_left,
            "gt": not smaller_left,
            "ge": not smaller_left,
            "eq": False,
            "ne": True,
        }[name]
        return self.node(Select("bool", neg, self.const("bool", when_neg), both))

    def spec(self) -> KernelSpec:
        """The spec, named by a digest of its content."""
        body = repr((self.ndim, self.params, self.nodes)).encode()
        name = "nx_k" + hashlib.sha1(body).hexdigest()[:16]
        return KernelSpec(name, self.ndim, tuple(self.params), tuple(self.nodes))


class CompiledSpecBuilder(SpecBuilder):
    """The builder of compiled code (jitted functions, compiled by Numba or from their source, and
    the eager operations): ufunc loops as Numba's typing picks them (``numba_loops``), and NumPy's own
    loops where an operand is float16. Nothing here imports Numba, so eager operations build their
    kernels without it."""

    def apply_ufunc(
        self, ufunc: np.ufunc, vals: list[tuple[int, str]], name: str | None = None
    ) -> tuple[int, str]:
        """Nodes computing `ufunc` on operand nodes `vals` ((node, dtype) pairs) with NumPy's
        semantics: the same loop selection Numba's typing uses picks the computation types, except
        where an operand is float16 (NumPy's loop, ``numba_loops.numpy_half_loop``; scalars are
        weak)."""
        loop = None
        if "float16" in (dt for _, dt in vals):
            ops = [
                numba_loops.promotion_operand(dt, isinstance(self.nodes[v], (Const, ScalarArg)))
                for v, dt in vals
            ]
            loop = numba_loops.numpy_half_loop(ufunc, ops)
        if loop is not None:
            vals = [(self.cast(v, dt, want), want) for (v, dt), want in zip(vals, loop[0])]
        v, dt = self._apply_loop(ufunc, vals, name)
        return (v, dt) if loop is None else (self.cast(v, dt, loop[1]), loop[1])

    def find_loop(self, ufunc: np.ufunc, dts: list[str]) -> tuple[list[str], str] | None:
        return numba_loops.find_loop(ufunc, dts)
