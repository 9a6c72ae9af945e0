"""Fuzzing of array creation (empty, zeros, ones, full, arange, linspace, eye, asarray, the *_like forms)
with odd shapes, dtypes, fill values and orders (correct: NumPy's result, or an error where NumPy raises
one). Cases run in a child process: a crash or a hang fails the test."""

from hypothesis import given
from hypothesis import strategies as st

from .props import check_case, fuzz_settings


@fuzz_settings(1000)
@given(st.data())
def test_fuzz_creation(fuzz_worker, data):
    check_case(fuzz_worker, "creation", data)
