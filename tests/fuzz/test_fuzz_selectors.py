"""Fuzzing of device selectors: Device(sel), Queue(sel) and the device= and sycl_queue= keywords with
strings, numbers, None and objects of the wrong kind (correct: a device of this machine the selector
names, else DeviceSelectorError or TypeError). Cases run in a child process: a crash or a hang fails the
test."""

from hypothesis import given
from hypothesis import strategies as st

from .props import check_case, fuzz_settings


@fuzz_settings(600)
@given(st.data())
def test_fuzz_selectors(fuzz_worker, data):
    check_case(fuzz_worker, "selectors", data)
