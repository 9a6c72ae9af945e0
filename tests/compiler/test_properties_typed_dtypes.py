"""Property tests on every dtype: expressions typed while they are drawn, over bool, small and unsigned
integers and floats, 0-d and empty shapes; in jitted code against plain Numba (each operation
materialised in its array dtype), eagerly against NumPy."""

import os
import re
import warnings

import numba
import numpy as np
from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st

import numba_ext

from ..conftest import check_device_binary
from .conftest import numba_reference as _reference

# -- every dtype: bool, small and unsigned integers; 0-d and empty shapes; division, comparisons,
# bitwise and logical operators, astype -----------------------------------------------------------------
# Expressions are typed while they are drawn (kind "int", "float" or "bool" of each subexpression), so
# every operator gets operands it is defined for. Left out, because a dedicated test covers it:
# Python-int literals with uint64 arrays in jitted code
# (tests/library/test_elementwise_bitwise_logic.py::test_comparisons_with_python_int_literals).
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


# Plain Numba fuses an array expression into one loop of scalar operations, whose intermediate values
# have Numba's scalar types (int16 * int16 is int64, uint16 / uint16 float64): no int16 wraparound, no
# float32 rounding between operations. NumPy, and numba_ext, give every operation's value its array
# dtype. The reference copies each marked value (materialize in conftest.py: a call Numba does not
# fuse across), so that every operation is computed by Numba as an array operation of its own.
def _materialized(expr: str) -> str:
    return re.sub(r"\bM\(", "materialize(", expr)


def _kind(dtype: str) -> str:
    return {"b": "bool", "f": "float"}.get(np.dtype(dtype).kind, "int")


# The operations an expression of each kind is drawn from (_Gen._binary, _unary and _comparison
# write them).
OPS = {
    "int": ["+", "-", "*", "&", "|", "^", "max", "min", "where", "neg", "abs", "invert", "narrow"],
    "float": [
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
    ],
    "bool": ["and", "or", "xor", "&", "|", "^", "not", "invert", "cmp", "cmp", "where", "tobool"],
}


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
        """One operation of `kind` over operands drawn as they are written (left to right)."""

        def x(k=kind, need=False):  # a second operand; eagerly an array expression or a literal
            if self.eager and not need and self.draw(st.integers(0, 2)) == 0:
                return self.leaf(k, False)
            return self.expr(k, depth + 1, need or self.eager)

        first = lambda k=kind: self.expr(k, depth + 1, need_array or self.eager)
        arr = lambda k=kind: self.expr(k, depth + 1, True)
        op = self.pick(OPS[kind])
        return self._binary(op, kind, first, x) or self._unary(op, first, arr) or self._comparison(first, x)

    def _binary(self, op, kind, first, x):
        """The operations of two (np.where: three) operands; None for the others."""
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
        return None

    def _unary(self, op, first, arr):
        """The operations of one operand, casts included; None for the others."""
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
        return None

    def _comparison(self, first, x):
        """A comparison of two operands of one kind ("cmp")."""
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


def _small_int_true_division(dtype, expr):
    small = dtype in ("int8", "uint8", "int16", "uint16", "bool") or re.search(
        r"astype\(np\.(u?int(8|16)|bool)", expr
    )
    return bool(small) and re.search(r"(?<!/)/(?!/)|true_divide|divide", expr) is not None


def _compare(got, want, dtype, expr):
    got, want = np.asarray(got), np.asarray(want)
    if want.dtype == np.float32 and got.dtype == np.float64 and _small_int_true_division(dtype, expr):
        # numba_ext divides 8- and 16-bit integers and bools in float64 as NumPy does; plain Numba
        # in float32 (compared below at float32's tolerance)
        want = want.astype(np.float64)
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
        # (tests/compiler/test_jit_elementwise.py::test_zero_d_arrays)
        if args[0].device.memory_backend == "buffer" and () in shapes and "cannot address" in str(e):
            return
        raise
    except numba_ext.ExecutionPlacementError as e:
        # np.where of 0-d operands or of scalars only (np.where(np.logical_not(True), ...), whatever
        # the arrays' shapes) is Numba's np.where of scalars, a 0-d NumPy array, which numba_ext
        # arrays do not mix with (docs/jit.md)
        if "np.where" in expr and "mixes a numba_ext array with a NumPy array" in str(e):
            return
        raise
    if np.ndim(want) > 0:
        assert isinstance(got, numba_ext.ndarray), expr
        for k in jf.inspect_kernels(*args):
            check_device_binary(k.format, k.binary)
    # a 0-d result (0-d operands only): computed on the host as in plain Numba, a scalar or 0-d array
    got = numba_ext.asnumpy(got) if isinstance(got, numba_ext.ndarray) else got
    if np.ndim(want) == 0 and np.asarray(got).dtype != np.asarray(want).dtype:
        # 0-d operands only, computed from the source with NumPy's rules where Numba's scalar typing
        # differs (Numba negates an unsigned integer into a signed one): NumPy's value is the reference
        with np.errstate(all="ignore"):
            numpy_want = ns["f"](*hs)
        if np.asarray(numpy_want).dtype == np.asarray(got).dtype:
            want = numpy_want
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
