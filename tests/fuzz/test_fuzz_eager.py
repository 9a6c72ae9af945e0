"""Fuzzing of eager operations: binary and unary ufuncs, operators, reductions and matmul on arrays of mixed
dtypes and broadcast shapes with scalars and junk (correct: NumPy's result within the dtype's tolerance,
or an error of NumPy's kind). Cases run in a child process: a crash or a hang fails the test."""

from hypothesis import given
from hypothesis import strategies as st

from .props import check_case, fuzz_settings


@fuzz_settings(120)
@given(st.data())
def test_fuzz_eager(fuzz_worker, data):
    check_case(fuzz_worker, "eager", data)
