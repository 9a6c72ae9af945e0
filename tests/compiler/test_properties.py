"""Property tests: random elementwise expression trees over random (broadcastable) shapes and dtypes.
The reference is the same Python function compiled by plain Numba on NumPy arrays (the same typing
rules), so results must agree to dtype-appropriate tolerances. Every graph the Rust compiler sees is
verified (the verifier runs on every compile).

np.where types Python scalars as NumPy 2 does (``np.where(c, float32_array, 2)`` is float32), where
plain Numba makes them int64 / float64: the reference computes np.where with NumPy 2's result dtype
(``np2_where`` below), everything else with Numba's own typing."""

import os
import re
import warnings

import numba
import numpy as np
from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st
from numba.core import types as nbtypes
from numba.extending import overload
from numba.np import numpy_support

import numba_ext

from ..conftest import check_device_binary


def np2_where(c, a, b):
    return np.where(c, a, b)


def _weak(t):
    """An operand for np.result_type with NumPy 2's rules: arrays by dtype, scalars as weak Python
    scalars of their kind."""
    if isinstance(t, nbtypes.Array):
        return np.empty(0, numpy_support.as_dtype(t.dtype))
    t = getattr(t, "literal_type", t)
    return False if isinstance(t, nbtypes.Boolean) else 0 if isinstance(t, nbtypes.Integer) else 0.0


@overload(np2_where)
def _ov_np2_where(c, a, b):
    result = np.result_type(_weak(a), _weak(b)).type
    return lambda c, a, b: np.where(c, a, b).astype(result)


def _reference(src: str):
    """The plain-Numba reference of a function's source, with NumPy 2's np.where result dtype."""
    ns: dict = {"np": np, "np2_where": np2_where, "materialize": materialize}
    exec(src.replace("np.where(", "np2_where("), ns)
    return numba.njit(ns["f"])


BINARY = [
    "{} + {}",
    "{} - {}",
    "{} * {}",
    "np.maximum({}, {})",
    "np.minimum({}, {})",
    "np.where({0} > {1}, {0}, {1})",
]
UNARY_ANY = ["-{}", "np.abs({})"]
UNARY_FLOAT = [
    "np.sin({})",
    "np.cos({})",
    "np.tanh({})",
    "np.sqrt(np.abs({}))",
    "np.exp(-np.abs({}))",
    "np.log1p(np.abs({}))",
]


@st.composite
def expressions(draw, names, is_float, depth=0):
    if depth >= 3 or draw(st.integers(0, 3)) == 0:
        if draw(st.booleans()):
            return draw(st.sampled_from(names))
        return repr(draw(st.sampled_from([2, 3, -1, 0.5, 1.5] if is_float else [2, 3, -1])))
    kind = draw(st.sampled_from(["binary", "binary", "unary"]))
    if kind == "binary":
        a = draw(expressions(names, is_float, depth + 1))
        b = draw(expressions(names, is_float, depth + 1))
        has_array = re.search(r"\b(" + "|".join(names) + r")\b", a + " " + b)
        ops = BINARY if has_array else BINARY[:-1]  # np.where of scalars only is a host array
        return "(" + draw(st.sampled_from(ops)).format(a, b) + ")"
    ops = UNARY_ANY + (UNARY_FLOAT if is_float else [])
    return draw(st.sampled_from(ops)).format(draw(expressions(names, is_float, depth + 1)))


@st.composite
def cases(draw):
    dtype = draw(st.sampled_from(["float64", "float32", "int64", "int32"]))
    ndim = draw(st.integers(1, 3))
    base = tuple(draw(st.integers(1, 5)) for _ in range(ndim))
    shapes = []
    for _ in range(3):
        drop = draw(st.integers(0, ndim - 1))  # fewer leading dimensions
        s = tuple(1 if draw(st.integers(0, 4)) == 0 else n for n in base[drop:])
        shapes.append(s)
    shapes[0] = base  # one operand has the full shape
    expr = draw(expressions(["a", "b", "c"], dtype.startswith("float")))
    if not re.search(r"\b[abc]\b", expr):
        expr = f"a + {expr}"
    seed = draw(st.integers(0, 2**31 - 1))
    return dtype, shapes, expr, seed


# In CI the examples are fixed (derandomize): a submission must not fail on a newly drawn example;
# local runs keep exploring (and found the bugs fixed in this file's history).
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=os.environ.get("CI") == "true",
)
@given(cases())
def test_random_expressions_match_numba_on_the_host(case):
    dtype, shapes, expr, seed = case
    rng = np.random.default_rng(seed)
    hs = [(rng.standard_normal(s) * 3).astype(dtype) for s in shapes]
    ns: dict = {"np": np}
    src = f"def f(a, b, c):\n    return a * 0 + ({expr})\n"
    exec(src, ns)
    want = _reference(src)(*hs)
    jf = numba_ext.jit(ns["f"])
    args = [numba_ext.asarray(h) for h in hs]
    got = numba_ext.asnumpy(jf(*args))
    for k in jf.inspect_kernels(*args):  # every emitted module is valid device code
        check_device_binary(k.format, k.binary)
    assert got.dtype == want.dtype, expr
    assert got.shape == want.shape, expr
    if want.dtype.kind == "f":
        # float32 math (device vs libm) may differ by an ulp, even when the result is float64
        tol = 1e-5 if (want.dtype == np.float32 or dtype == "float32") else 1e-10
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=expr)
    else:
        np.testing.assert_array_equal(got, want, err_msg=expr)


# -- every dtype: bool, small and unsigned integers; 0-d and empty shapes; division, comparisons,
# bitwise and logical operators, astype -----------------------------------------------------------------
# Expressions are typed while they are drawn (kind "int", "float" or "bool" of each subexpression), so
# every operator gets operands it is defined for. Left out, because a dedicated test covers it:
# Python-int literals with uint64 arrays in jitted code (test_elementwise_ops.py::
# test_comparisons_with_python_int_literals).
TYPED_DTYPES = [
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float32",
    "float64",
]
NAMES = ["a", "b", "c"]


def _strip_marks(expr: str) -> str:
    """The expression without its M marks (their parentheses stay)."""
    return re.sub(r"\bM\(", "(", expr)


def materialize(x):
    return x


@overload(materialize)
def _ov_materialize(x):
    return (lambda x: x.copy()) if isinstance(x, nbtypes.Array) else (lambda x: x)


# Plain Numba fuses an array expression into one loop of scalar operations, whose intermediate values
# have Numba's scalar types (int16 * int16 is int64, uint16 / uint16 float64): no int16 wraparound, no
# float32 rounding between operations. NumPy, and numba_ext, give every operation's value its array
# dtype. The reference copies each marked value (a call Numba does not fuse across), so that every
# operation is computed by Numba as an array operation of its own.
def _materialized(expr: str) -> str:
    return re.sub(r"\bM\(", "materialize(", expr)


def _kind(dtype: str) -> str:
    return {"b": "bool", "f": "float"}.get(np.dtype(dtype).kind, "int")


class _Gen:
    """Draws expressions of a given kind over arrays of `dtype`."""

    def __init__(self, draw, dtype: str, eager: bool):
        self.draw, self.dtype, self.eager = draw, np.dtype(dtype), eager
        self.base = _kind(dtype)
        unsigned = self.dtype.kind == "u"
        if self.dtype == np.uint64 and not eager:
            self.int_literals = []
        else:
            self.int_literals = [2, 3] if unsigned else [2, 3, -1]
        self.int_casts = ["np.uint8", "np.uint16"] if unsigned else ["np.int8", "np.int16", "np.int64"]
        self.float_casts = ["np.float32", "np.float64"]

    def pick(self, options):
        return self.draw(st.sampled_from(options))

    def name(self):
        return self.pick(NAMES)

    def leaf(self, kind, need_array):
        """A leaf of `kind`: an array or a literal of the arrays' kind, or a conversion of an array."""
        if kind == self.base:
            literals = {"int": self.int_literals, "float": [0.5, 1.5, -2.0, 3], "bool": [True, False]}[kind]
            if need_array or not literals or self.draw(st.booleans()):
                return self.name()
            return repr(self.pick(literals))
        n = self.name()
        if kind == "bool":
            return "M" + self.pick(
                [f"({n} > {self.name()})", f"({n} != {self.name()})", f"({n}.astype(np.bool_))"]
            )
        if kind == "float":
            options = [f"({n}.astype({self.pick(self.float_casts)}))"]
            if self.base == "int":
                options.append(f"({n} / {self.name()})")  # true division of integers
            return "M" + self.pick(options)
        return f"M({n}.astype({self.pick(self.int_casts)}))"  # int from bool

    def kinds(self):
        """The kinds reachable from the arrays' kind."""
        return {
            "bool": ["bool", "int", "float"],
            "int": ["int", "bool", "float"],
            "float": ["float", "bool"],
        }[self.base]

    def expr(self, kind, depth=0, need_array=True):
        """An expression of `kind`; with `need_array` it reads an array. Eager expressions read an
        array in every subexpression (a scalar-only one would be computed by Python/NumPy). Every
        operation's value is marked M(...) (see _materialized)."""
        if depth > 0 and (depth >= 3 or self.draw(st.integers(0, 3)) == 0):
            return self.leaf(kind, need_array or self.eager)
        return f"M({self._op(kind, depth, need_array)})"

    def _op(self, kind, depth, need_array):
        def x(k=kind, need=False):  # a second operand; eagerly an array expression or a literal
            if self.eager and not need and self.draw(st.integers(0, 2)) == 0:
                return self.leaf(k, False)
            return self.expr(k, depth + 1, need or self.eager)

        first = lambda k=kind: self.expr(k, depth + 1, need_array or self.eager)
        arr = lambda k=kind: self.expr(k, depth + 1, True)
        if kind == "int":
            op = self.pick(
                ["+", "-", "*", "&", "|", "^", "max", "min", "where", "neg", "abs", "invert", "narrow"]
            )
        elif kind == "float":
            op = self.pick(
                [
                    "+",
                    "-",
                    "*",
                    "/",
                    "/abs",
                    "max",
                    "min",
                    "where",
                    "neg",
                    "abs",
                    "sin",
                    "tanh",
                    "sqrt",
                    "exp",
                    "cast",
                ]
            )
        else:
            op = self.pick(
                ["and", "or", "xor", "&", "|", "^", "not", "invert", "cmp", "cmp", "where", "tobool"]
            )
        if op in ("+", "-", "*", "&", "|", "^", "/"):
            return f"({first()} {op} {x()})"
        if op == "/abs":
            return f"({first()} / (np.abs({x()}) + 1))"
        if op in ("max", "min"):
            return f"np.{op}imum({first()}, {x()})"
        if op in ("and", "or", "xor"):
            return f"np.logical_{op}({first()}, {x()})"
        if op == "where":
            if self.eager:  # np.where is not a ufunc: no eager form
                return f"({first()} + {x()})" if kind != "bool" else f"({first()} & {x()})"
            return f"np.where({x('bool')}, {first()}, {x()})"
        if op == "neg":
            return f"(-{first()})"
        if op in ("abs", "tanh"):
            return f"np.{op}({first()})"
        if op == "sin":
            return f"np.sin({first()})"
        if op == "sqrt":
            return f"np.sqrt(np.abs({first()}))"
        if op == "exp":
            return f"np.exp(-np.abs({first()}))"
        if op == "invert":
            return f"(~{first()})"
        if op == "not":
            return f"np.logical_not({first()})"
        if op == "narrow":  # int -> int casts wrap around as in NumPy
            return f"({arr()}).astype({self.pick(self.int_casts)})"
        if op == "cast":  # float -> float
            return f"({arr()}).astype({self.pick(self.float_casts)})"
        if op == "tobool":
            return (
                f"({arr(self.pick([k for k in self.kinds() if k != 'bool'] or ['bool']))}).astype(np.bool_)"
            )
        # comparison of two operands of one kind
        k = self.pick([k for k in self.kinds() if k != "bool"] or ["bool"])
        return f"({first(k)} {self.pick(['<', '<=', '==', '!=', '>', '>='])} {x(k)})"


@st.composite
def typed_cases(draw, eager=False):
    dtype = draw(st.sampled_from(TYPED_DTYPES))
    ndim = draw(st.sampled_from([1, 2, 2, 0]))  # 0-d about one case in four
    base = tuple(draw(st.sampled_from([3, 4, 5, 1, 2, 0])) for _ in range(ndim))  # 0: empty
    shapes = [base]
    for _ in range(2):
        drop = draw(st.integers(0, ndim))  # fewer leading dimensions, down to 0-d
        shapes.append(tuple(1 if draw(st.integers(0, 3)) == 0 else n for n in base[drop:]))
    g = _Gen(draw, dtype, eager)
    expr = g.expr(draw(st.sampled_from(g.kinds())))
    return dtype, shapes, expr, draw(st.integers(0, 2**31 - 1))


def _inputs(rng, dtype, shapes):
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return [rng.random(s) < 0.5 for s in shapes]
    if dt.kind == "f":
        return [(rng.standard_normal(s) * 3).astype(dt) for s in shapes]
    info = np.iinfo(dt)  # whole range for the small types: arithmetic wraps around
    lo, hi = (info.min, info.max) if dt.itemsize <= 2 else (max(info.min, -1000), 1000)
    return [rng.integers(lo, hi, s, dtype=dt, endpoint=True) for s in shapes]


def _compare(got, want, dtype, expr):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (expr, got.dtype, want.dtype)
    assert got.shape == want.shape, (expr, got.shape, want.shape)
    if want.dtype.kind == "f":
        # float32 anywhere (also implicitly: Numba divides 8- and 16-bit integers in float32): float32's
        # tolerance, as device and host float32 functions may differ in the last place
        narrow = re.search(r"float32|int8|int16|bool", dtype + expr)
        tol = 1e-5 if (want.dtype == np.float32 or narrow) else 1e-10
        finite = np.abs(want[np.isfinite(want)])
        scale = max(1.0, float(finite.max())) if finite.size else 1.0  # divisions amplify cancellation
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol * scale, err_msg=expr)
    else:
        np.testing.assert_array_equal(got, want, err_msg=expr)


# no shrinking: each example compiles twice (about a second), shrinking a failure took minutes; the
# expressions are small enough to read unshrunk
@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=os.environ.get("CI") == "true",
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)
@given(typed_cases())
def test_typed_expressions_on_every_dtype_match_numba(case):
    dtype, shapes, expr, seed = case
    hs = _inputs(np.random.default_rng(seed), dtype, shapes)
    ref_src = f"def f(a, b, c):\n    return {_materialized(expr)}\n"
    expr = _strip_marks(expr)
    ns: dict = {"np": np}
    exec(f"def f(a, b, c):\n    return {expr}\n", ns)
    try:
        with np.errstate(all="ignore"):
            want = _reference(ref_src)(*hs)
    except numba.core.errors.TypingError:
        # plain Numba cannot compile it either (e.g. astype of arithmetic on 0-d arrays, a scalar)
        assume(False)
    jf = numba_ext.jit(ns["f"])
    args = [numba_ext.asarray(h) for h in hs]
    try:
        got = jf(*args)
    except numba_ext.UnsupportedError as e:
        # an operation on 0-d operands only has a scalar result, computed by Numba on the host: the
        # buffer back end (cl_mem memory) refuses it while compiling
        # (tests/compiler/test_jit.py::test_zero_d_arrays)
        if args[0].device.memory_backend == "buffer" and () in shapes and "cannot address" in str(e):
            return
        raise
    if np.ndim(want) > 0:
        assert isinstance(got, numba_ext.ndarray), expr
        for k in jf.inspect_kernels(*args):
            check_device_binary(k.format, k.binary)
    # a 0-d result (0-d operands only): computed on the host as in plain Numba, a scalar or 0-d array
    got = numba_ext.asnumpy(got) if isinstance(got, numba_ext.ndarray) else got
    _compare(got, want, dtype, expr)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=os.environ.get("CI") == "true",
)
@given(typed_cases(eager=True))
def test_typed_expressions_eagerly_match_numpy(case):
    # outside jitted code: NumPy's own rules (NumPy 2, Python scalars are weak), NumPy as the reference
    dtype, shapes, expr, seed = case
    expr = _strip_marks(expr)
    hs = _inputs(np.random.default_rng(seed), dtype, shapes)
    f = eval(f"lambda a, b, c: {expr}", {"np": np})
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = f(*hs)
    got = f(*[numba_ext.asarray(h) for h in hs])
    assert isinstance(got, numba_ext.ndarray), expr
    _compare(numba_ext.asnumpy(got), want, dtype, expr)
