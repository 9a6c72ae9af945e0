"""Fuzzing of kernel launch configurations (ints, tuples, lists, Range, NdRange, (global, local) pairs with
floats, bools, negative, huge and zero extents and mismatched ranks) through k[cfg] and call_kernel
(correct: every work-item of the range ran once, else LaunchError). Cases run in a child process: a crash
or a hang fails the test."""

from hypothesis import given
from hypothesis import strategies as st

from .props import check_case, fuzz_settings


@fuzz_settings(500)
@given(st.data())
def test_fuzz_launches(fuzz_worker, data):
    check_case(fuzz_worker, "launches", data)
