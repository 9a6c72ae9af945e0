"""Fuzzing of the linear algebra: np.linalg's functions of numba_ext arrays and numba_ext.linalg's
(decompositions, solvers, norms) on stacks of random and structured matrices (singular, Hermitian,
positive definite, graded, scaled towards the ends of the dtype's range, with NaN), in each
factorization form, against NumPy: invariants where results are not unique, NumPy's values
otherwise, NumPy's dtypes, shapes and kinds of error. Cases run in a child process: a crash or a
hang fails the test."""

from hypothesis import given
from hypothesis import strategies as st

from .props import check_case, fuzz_settings


@fuzz_settings(100)
@given(st.data())
def test_fuzz_linalg(fuzz_worker, data):
    check_case(fuzz_worker, "linalg", data)
