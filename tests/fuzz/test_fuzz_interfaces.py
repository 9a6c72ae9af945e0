"""Fuzzing of __sycl_usm_array_interface__ import: the interface of a real array with fields removed,
replaced or moved (correct: an array whose values are the bytes the interface describes within the source,
else ArrayInterfaceError). Cases run in a child process: a crash or a hang fails the test."""

from hypothesis import given
from hypothesis import strategies as st

from .props import check_case, fuzz_settings


@fuzz_settings(800)
@given(st.data())
def test_fuzz_interfaces(fuzz_worker, data):
    check_case(fuzz_worker, "interfaces", data)
