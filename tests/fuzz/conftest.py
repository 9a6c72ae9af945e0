"""The fuzz tests share one child process per test process (``harness.Worker``): a crash or a hang
of one case is that test's failure, and the next case gets a fresh child."""

import pytest

from .harness import Worker


@pytest.fixture(scope="session")
def fuzz_worker():
    w = Worker()
    yield w
    w.close()
