"""Property tests: random elementwise expression trees over random (broadcastable) shapes and float
or integer dtypes. The reference is the same Python function compiled by plain Numba on NumPy arrays
(the same typing rules), so results must agree to dtype-appropriate tolerances. Every graph the Rust
compiler sees is verified (the verifier runs on every compile)."""

import os
import re

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import numba_ext

from ..conftest import check_device_binary
from .conftest import numba_reference as _reference

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
