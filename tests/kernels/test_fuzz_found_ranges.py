"""Launch configurations the fuzzer found raising OverflowError: an extent beyond 2**63 - 1 (even in
a range of no work-items, or with a local size that divides it) is a LaunchError, in every spelling."""

import numpy as np
import pytest

import numba_ext as nx


@nx.kernel
def _count(out):
    i = nx.get_global_linear_id()
    out[i] = i + 1


@pytest.mark.parametrize(
    "make",
    [
        lambda: nx.Range(2**64),
        lambda: nx.Range(0, 5, 2**70),
        lambda: nx.NdRange((2**64, 0), (8, 1)),
        lambda: nx.NdRange(2**70, 1),
        lambda: nx.NdRange([8, 2**64, 0], (1, 8, 3)),
    ],
)
def test_huge_extent_is_a_launch_error(make):
    with pytest.raises(nx.LaunchError, match="2\\*\\*63 - 1"):
        make()


@pytest.mark.parametrize("cfg", [2**64, (0, 2**64), ((2**64, 0), (8, 1)), ([8, 2**64, 0], (1, 8, 3))])
def test_huge_extent_launch(cfg):
    out = nx.full(4, -7, dtype="int64")
    with pytest.raises(nx.LaunchError):
        _count[cfg](out)
    with pytest.raises(nx.LaunchError):
        nx.call_kernel(_count, cfg, out)
    np.testing.assert_array_equal(nx.asnumpy(out), [-7] * 4)  # nothing ran


def test_largest_extent_still_a_range():
    assert tuple(nx.Range(2**63 - 1)) == (2**63 - 1,)
    assert tuple(nx.Range(0, 2**63 - 1)) == (0, 2**63 - 1)
    out = nx.full(4, -7, dtype="int64")
    _count[nx.Range(0, 2**63 - 1)](out)  # no work-items: nothing runs
    np.testing.assert_array_equal(nx.asnumpy(out), [-7] * 4)
