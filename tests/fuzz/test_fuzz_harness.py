"""The fuzz harness itself: a case that kills the child is a crash, one that does not answer in time
a hang, and the next case runs in a fresh child."""

from .classify import CORRECT, CRASH, HANG
from .harness import Worker


def test_crash_and_hang_are_recorded_and_the_child_restarted():
    w = Worker()
    try:
        first = w.run("_selftest", "ok", 120)
        assert first["outcome"] == CORRECT
        crash = w.run("_selftest", "crash", 120)
        assert crash["outcome"] == CRASH and "SIGABRT" in crash["detail"], crash
        after = w.run("_selftest", "ok", 120)
        assert after["outcome"] == CORRECT and after["detail"] != first["detail"]  # another process
        hang = w.run("_selftest", "hang", 2)
        assert hang["outcome"] == HANG, hang
        assert w.run("_selftest", "ok", 120)["outcome"] == CORRECT
        assert w.starts == 3
    finally:
        w.close()


def test_sum_tolerance_follows_the_least_precise_input():
    """Numba (and numba_ext) compute complex64 * int64 in complex64 where NumPy's terms are
    complex128: the oracle's tolerance takes complex64's eps then (a fuzz finding of the oracle)."""
    import numpy as np

    from .exec_compiled import _sum_tolerance

    terms = np.full(15, 10 + 10j)
    tight, _ = _sum_tolerance(terms)
    loose, _ = _sum_tolerance(terms, [np.ones(3, np.complex64), 2])
    assert tight == 4 * 15 * np.finfo(np.complex128).eps
    assert loose == 4 * 15 * np.finfo(np.complex64).eps
