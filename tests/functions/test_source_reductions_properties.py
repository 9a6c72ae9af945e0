"""Property test: random functions that reduce array expressions and slices of them along an axis
(``np.sum``, ``np.prod``, ``np.mean``, ``np.min``, ``np.max`` and the methods, over arrays of the real
dtypes and bool with scalars) and compute on the results, served from their source, give exactly
Numba's results: the same dtypes and bits, or the same exception type. Every call that succeeds is
served from the source, which the test checks too."""

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .test_source_path_properties import ARGUMENTS, check_against_numba, expression, statements

OPS = ["sum", "prod", "mean", "min", "max"]
#: slices of the (3, 12) operands, every one leaving at least one element along each axis
SLICES = ["1:", ":-1", "::-1", ":, 1:", ":, ::2", "1:, :-2", "::2, ::-3", "-2:, 3:9"]


@st.composite
def reducing_programs(draw):
    """Statements over the arguments, reductions of some of them along one axis (min and max of
    operands made non-boolean), then statements over the reductions and the scalars only (so every
    result has the reductions' shape), returning some of them or the reductions themselves."""
    lines, env = draw(statements(0, 2))
    operands = [n for n, (kind, uses_a, _) in env.items() if kind == "array" and uses_a]
    axis = draw(st.sampled_from(["0", "1", "-1", "-2"]))
    reduced = {"k": ("float", False, False), "n": ("int", False, False)}
    for j in range(draw(st.integers(1, 3))):
        x = draw(st.sampled_from(operands))
        op = draw(st.sampled_from(OPS))
        if draw(st.booleans()):  # an expression as the operand
            x = f"({x} * {draw(st.sampled_from(['k', 'n', '2', '0.5']))})"
        if draw(st.booleans()):  # a slice of it
            x = f"{x}[{draw(st.sampled_from(SLICES))}]"
        if op in ("min", "max"):
            x = f"np.maximum({x}, -5)"
        call = (
            f"np.{op}({x}, axis={axis})"
            if draw(st.booleans())
            else f"{x}.{op}({axis})"
            if draw(st.booleans())
            else f"np.{op}({x}, {axis})"
        )
        lines.append(f"    r{j} = {call}")
        reduced[f"r{j}"] = ("array", True, True)
    rets = []
    for i in range(draw(st.integers(0, 2))):
        text, kind, uses_r, computed = draw(expression(reduced))
        if kind == "array" and uses_r and computed:
            lines.append(f"    u{i} = {text}")
            rets.append(f"u{i}")
    rets += draw(st.lists(st.sampled_from([n for n in reduced if n.startswith("r")]), max_size=2))
    rets = rets or ["r0"]
    lines.append(f"    return {', '.join(rets)}" + ("," if len(rets) == 1 and draw(st.booleans()) else ""))
    return "def f(a, b, k, n):\n" + "\n".join(lines) + "\n"


#: examples per run: 25 in the test suite; set NUMBA_EXT_PROPERTY_EXAMPLES for a longer search
EXAMPLES = int(os.environ.get("NUMBA_EXT_PROPERTY_EXAMPLES", "25"))


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(source=reducing_programs(), **ARGUMENTS)
def test_reductions_from_the_source_give_numbas_bits(source, seed, a_dtype, b_dtype, b_shape, strided, k, n):
    # slices may give shapes that do not broadcast: Numba raises, and the call may go to it
    check_against_numba(source, seed, a_dtype, b_dtype, b_shape, strided, k, n, rows=3, served_if_ok=True)
