"""Property test: random array-expression functions (statements of operators, comparisons, ufunc
calls and ``np.where`` over arrays of the real dtypes and bool, a float and an int, with scalar-only
subexpressions the host computes) served from their source give exactly Numba's results: the same
dtypes and bits, or the same exception type. Every generated function is inside the source path's
subset, which the test checks too (it never silently compares Numba with itself)."""

import importlib.util
import itertools
import os
import tempfile
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import numba_ext

ARRAY_UNARY = [
    "np.negative",
    "np.absolute",
    "np.fabs",
    "np.sqrt",
    "np.exp",
    "np.expm1",
    "np.exp2",
    "np.log",
    "np.log1p",
    "np.log2",
    "np.log10",
    "np.sin",
    "np.cos",
    "np.tan",
    "np.arcsin",
    "np.arccos",
    "np.arctan",
    "np.sinh",
    "np.cosh",
    "np.tanh",
    "np.arcsinh",
    "np.arccosh",
    "np.arctanh",
    "np.floor",
    "np.ceil",
    "np.trunc",
    "np.rint",
    "np.cbrt",
    "np.square",
]
ARRAY_BINARY = [
    "np.add",
    "np.subtract",
    "np.multiply",
    "np.true_divide",
    "np.floor_divide",
    "np.remainder",
    "np.power",
    "np.minimum",
    "np.maximum",
    "np.arctan2",
    "np.hypot",
    "np.copysign",
    "np.fmod",
]
OPERATORS = ["+", "-", "*", "/", "//", "%", "**"]
COMPARISONS = ["<", "<=", ">", ">=", "==", "!="]
# what the host computes for scalars (exact results, Numba's rules)
SCALAR_UNARY = ["np.sqrt", "np.floor", "np.ceil", "np.trunc", "np.rint", "np.fabs", "np.square"]
SCALAR_BINARY = ["np.minimum", "np.maximum", "np.copysign", "np.fmod"]
NUMBERS = ["0.5", "2.0", "-1.25", "3", "0", "1e300", "7"]

_DIR = Path(tempfile.mkdtemp(prefix="nx_source_props_"))
_count = itertools.count()


@st.composite
def expression(draw, env, depth=0):
    """(text, kind, depends on `a`, computed): kind "array", "float" or "int"; computed: not just an
    argument (a function returning an argument itself is Numba's)."""
    if depth >= 3 or draw(st.integers(0, 3)) == 0:
        if draw(st.booleans()):
            name = draw(st.sampled_from(sorted(env)))
            return name, *env[name]
        num = draw(st.sampled_from(NUMBERS))
        return num, ("int" if "." not in num and "e" not in num else "float"), False, True
    x = draw(expression(env, depth + 1))
    shape = draw(st.sampled_from(["operator", "unary", "binary", "neg", "compare", "where"]))
    if shape == "where":
        y, z = draw(expression(env, depth + 1)), draw(expression(env, depth + 1))
        if "array" in (x[1], y[1], z[1]):
            return f"np.where({x[0]}, {y[0]}, {z[0]})", "array", x[2] or y[2] or z[2], True
    if shape == "neg":
        return f"(-{x[0]})", x[1], x[2], True
    if shape == "unary":
        if x[1] == "array":
            return f"{draw(st.sampled_from(ARRAY_UNARY))}({x[0]})", "array", x[2], True
        if x[1] == "int":
            return f"(-{x[0]})", "int", False, True
        return f"{draw(st.sampled_from(SCALAR_UNARY))}({x[0]})", "float", False, True
    y = draw(expression(env, depth + 1))
    if shape == "compare" and "array" in (x[1], y[1]):
        return f"({x[0]} {draw(st.sampled_from(COMPARISONS))} {y[0]})", "array", x[2] or y[2], True
    if "array" in (x[1], y[1]):
        op = draw(st.sampled_from(OPERATORS + ARRAY_BINARY))
        text = f"({x[0]} {op} {y[0]})" if op in OPERATORS else f"{op}({x[0]}, {y[0]})"
        return text, "array", x[2] or y[2], True
    if shape == "binary" and "float" in (x[1], y[1]):
        return f"{draw(st.sampled_from(SCALAR_BINARY))}({x[0]}, {y[0]})", "float", False, True
    op = draw(st.sampled_from(OPERATORS[:-1]))  # scalar ** is Numba's
    kind = "float" if "float" in (x[1], y[1]) or op == "/" else "int"
    return f"({x[0]} {op} {y[0]})", kind, False, True


@st.composite
def statements(draw, least, most):
    """(lines, names): `least` to `most` statements ``t<i> = <expression>`` over the arguments `a`, `b`
    (arrays), `k` (a float), `n` (an int) and the earlier statements; each name's (kind, depends on
    `a`, computed)."""
    env = {
        "a": ("array", True, False),
        "b": ("array", False, False),
        "k": ("float", False, False),
        "n": ("int", False, False),
    }
    lines = []
    for i in range(draw(st.integers(least, most))):
        text, kind, uses_a, computed = draw(expression(env))
        lines.append(f"    t{i} = {text}")
        env[f"t{i}"] = (kind, uses_a, computed)
    return lines, env


@st.composite
def programs(draw):
    lines, env = draw(statements(1, 4))
    # results: computed arrays of the one iteration space (each reads `a`, the full-shape argument)
    outs = [n for n, (kind, uses_a, computed) in env.items() if kind == "array" and uses_a and computed]
    chosen = draw(st.lists(st.sampled_from(outs), min_size=1, max_size=2)) if outs else []
    rets = chosen or ["a * 0.5"]
    lines.append(f"    return {', '.join(rets)}" + ("," if len(rets) == 1 and draw(st.booleans()) else ""))
    return "def f(a, b, k, n):\n" + "\n".join(lines) + "\n"


def _load(source: str):
    path = _DIR / f"generated_{next(_count)}.py"
    path.write_text("import numpy as np\n\n\n" + source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.f


def _outcome(fn, args):
    try:
        out = fn(*args)
    except Exception as e:  # the exception type is part of the result
        return type(e)
    return tuple(numba_ext.asnumpy(o) for o in out) if isinstance(out, tuple) else numba_ext.asnumpy(out)


DTYPES = [
    "float64",
    "float32",
    "int64",
    "int32",
    "int16",
    "int8",
    "uint64",
    "uint32",
    "uint16",
    "uint8",
    "bool",
]


def _values(rng, shape, dtype):
    """Random values of `dtype`: normal floats, or small integers with zeros (division by zero)."""
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.startswith("float"):
        return (rng.standard_normal(shape) * 3).astype(dtype)
    low = 0 if dtype.startswith("u") else -9
    return rng.integers(low, 10, shape).astype(dtype)


#: examples per run: 40 in the test suite; set NUMBA_EXT_PROPERTY_EXAMPLES for a longer search
EXAMPLES = int(os.environ.get("NUMBA_EXT_PROPERTY_EXAMPLES", "40"))


#: the arguments every generated function takes besides its source
ARGUMENTS = {
    "seed": st.integers(0, 2**32 - 1),
    "a_dtype": st.sampled_from(DTYPES),
    "b_dtype": st.sampled_from(DTYPES),
    "b_shape": st.sampled_from(["full", "one", "row"]),
    "strided": st.booleans(),
    "k": st.sampled_from([0.0, -0.0, 1.5, -2.75, 1e308, float("inf"), float("nan")]),
    "n": st.sampled_from([0, 3, -7, 2**62]),
}


def check_against_numba(source, seed, a_dtype, b_dtype, b_shape, strided, k, n, rows=2, served_if_ok=False):
    """Run `source` served from its source and compiled by Numba on random arguments (`a` of `rows`
    rows, strided or not; `b` of a broadcasting shape; a float and an int): the same exception type,
    or results of the same dtypes, shapes and values. The served function must not have gone to
    Numba (`served_if_ok`: only for calls Numba completes)."""
    rng = np.random.default_rng(seed)
    m = 12
    ha = _values(rng, (rows, 2 * m) if strided else (rows, m), a_dtype)
    hb = _values(rng, {"full": (rows, m), "one": (1,), "row": (m,)}[b_shape], b_dtype)
    a = numba_ext.asarray(ha)[:, ::2] if strided else numba_ext.asarray(ha)
    args = (a, numba_ext.asarray(hb), k, n)
    f = _load(source)
    served = numba_ext.jit(f)
    got = _outcome(served, args)
    outside = f"outside the source path's subset ({a_dtype}, {b_dtype}):\n{source}"
    assert served_if_ok or served._impl is None, outside
    want = _outcome(numba_ext.compiler.jit(f), args)
    if isinstance(want, type):
        assert got is want, (source, got, want)
        return
    assert served._impl is None, outside
    assert not isinstance(got, type), (source, got, want)
    got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape, source
        np.testing.assert_array_equal(g, w, err_msg=source)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(source=programs(), **ARGUMENTS)
def test_source_path_gives_numbas_bits(source, seed, a_dtype, b_dtype, b_shape, strided, k, n):
    # the sign of a NaN arithmetic returns is unspecified (docs/numerics.md), and these read it
    assume(k == k or not any(f in source for f in ("copysign", "signbit")))
    check_against_numba(source, seed, a_dtype, b_dtype, b_shape, strided, k, n)
