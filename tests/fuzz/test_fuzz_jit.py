"""Fuzzing of jitted functions called with arrays of other dtypes, shapes and layouts, scalars, NumPy arrays
and objects of the wrong kind (correct: Numba's result on the CPU or NumPy's, or an error where Numba
raises one). Cases run in a child process: a crash or a hang fails the test."""

from hypothesis import given
from hypothesis import strategies as st

from .props import check_case, fuzz_settings


@fuzz_settings(50)
@given(st.data())
def test_fuzz_jit(fuzz_worker, data):
    check_case(fuzz_worker, "jit", data)
