"""Property test: random functions that reduce array expressions over every element (``np.sum``,
``np.mean``, ``np.min``, ``np.max``, ``np.prod`` of integers, as functions and methods), then compute
on the scalar results (host arithmetic, and array expressions taking them), served from their source,
give Numba's results: the same Python types, dtypes and values, or the same exception type.

The arguments hold multiples of 1/8 and small integers, so that every sum is exact whatever the
order in which the device combines the partial results (both paths combine in the device's order:
with inexact sums, two runs of one path may differ in the last bits). Calls whose every scalar is a
float64 or an int64 must be served from the source, which the test checks too."""

import os

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import numba_ext

from .test_source_path_properties import DTYPES, _load

#: the dtypes whose reductions give float64, int64 or float32 scalars, which the source path
#: computes on (but floor division, remainders and powers of float32 scalars, which are Numba's)
SERVED = {"float64", "int64", "float32"}
#: array expressions of the arguments, exact on multiples of 1/8 and small integers
OPERANDS = ["a", "b", "(a + b)", "(a - b)", "(a * n)", "(a * k)", "np.abs(a)", "np.maximum(a, b)", "-b"]
OPERANDS.append("a[1:]")  # a view


@st.composite
def whole_programs(draw):
    """(source, a_dtype, b_dtype): reductions of operands, then host arithmetic and array
    expressions on their results, returning some of them."""
    a_dtype, b_dtype = draw(st.sampled_from(DTYPES)), draw(st.sampled_from(DTYPES))
    integers = all(np.dtype(d).kind in "biu" for d in (a_dtype, b_dtype))
    lines = []
    for j in range(draw(st.integers(1, 3))):
        x = draw(st.sampled_from(OPERANDS))
        ops = ["sum", "mean", "min", "max"] + (["prod"] if integers and "k" not in x else [])
        op = draw(st.sampled_from(ops))
        form = draw(st.sampled_from(["np.{op}({x})", "{x}.{op}()", "np.{op}({x}, axis=None)"]))
        lines.append(f"    r{j} = " + form.format(op=op, x=x))
    names = [f"r{j}" for j in range(len(lines))]
    uses = [
        "{r} + {s}",
        "{r} * 2",
        "{r} - n",
        "np.sqrt(np.abs({r}))",
        "{r} / n",
        "a - {r}",
        "b * {s}",
        "np.maximum(a, {r})",
        "{r}",
    ]
    rets = []
    for _ in range(draw(st.integers(1, 3))):
        use = draw(st.sampled_from(uses))
        rets.append(use.format(r=draw(st.sampled_from(names)), s=draw(st.sampled_from(names))))
    lines.append(f"    return {', '.join(rets)}")
    return "def f(a, b, k, n):\n" + "\n".join(lines) + "\n", a_dtype, b_dtype


def _exact_values(rng, shape, dtype):
    """Multiples of 1/8 for floats, small integers with zeros for integers, random booleans."""
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.startswith("float"):
        return (rng.integers(-64, 64, shape) / 8).astype(dtype)
    low = 0 if dtype.startswith("u") else -9
    return rng.integers(low, 10, shape).astype(dtype)


def _outcome(fn, args):
    try:
        out = fn(*args)
    except Exception as e:  # the exception type is part of the result
        return type(e)
    out = out if isinstance(out, tuple) else (out,)
    return tuple(numba_ext.asnumpy(o) if isinstance(o, numba_ext.ndarray) else o for o in out)


#: examples per run: 25 in the test suite; set NUMBA_EXT_PROPERTY_EXAMPLES for a longer search
EXAMPLES = int(os.environ.get("NUMBA_EXT_PROPERTY_EXAMPLES", "25"))


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    program=whole_programs(),
    seed=st.integers(0, 2**32 - 1),
    b_shape=st.sampled_from(["full", "one", "row"]),
    strided=st.booleans(),
    k=st.sampled_from([0.5, -1.25, 2.0, 0.0]),
    n=st.sampled_from([0, 3, -7]),
)
def test_whole_reductions_from_the_source_give_numbas_results(program, seed, b_shape, strided, k, n):
    source, a_dtype, b_dtype = program
    rng = np.random.default_rng(seed)
    rows, m = 3, 12
    ha = _exact_values(rng, (rows, 2 * m) if strided else (rows, m), a_dtype)
    hb = _exact_values(rng, {"full": (rows, m), "one": (1,), "row": (m,)}[b_shape], b_dtype)
    a = numba_ext.asarray(ha)[:, ::2] if strided else numba_ext.asarray(ha)
    args = (a, numba_ext.asarray(hb), k, n)
    f = _load(source)
    served = numba_ext.jit(f)
    got = _outcome(served, args)
    want = _outcome(numba_ext.compiler.jit(f), args)
    if isinstance(want, type):
        assert got is want, (source, got, want)
        return
    if {a_dtype, b_dtype} <= SERVED:
        assert served._impl is None, f"not served from the source ({a_dtype}, {b_dtype}):\n{source}"
    assert not isinstance(got, type), (source, got, want)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert type(g) is type(w), (source, g, w)
        if isinstance(w, np.ndarray):
            assert g.dtype == w.dtype and g.shape == w.shape, source
        np.testing.assert_array_equal(g, w, err_msg=source)  # -0.0 == 0.0: a minimum's zero sign
