"""Launch configurations are validated on every launch: extents are integers (not bools, not floats
that compare equal to one), non-negative, work-groups of at least one work-item dividing the global
range, at most 2**63 - 1 work-items; the cache of launch objects is keyed by exact types, so a bad
spelling is never served a good one's launch."""

import numpy as np
import pytest

import numba_ext as nx


@nx.kernel
def fill(a, v):
    a[nx.get_global_id(0)] = v


@pytest.mark.parametrize(
    "cfg",
    [
        (64.0,),
        64.0,
        (True,),
        True,
        ((64,), 1.0),
        ((64,), True),
        (64, 0),
        ((64,), (0,)),
        -1,
        (-64,),
        "64",
        (2**63,),
        (2**40, 2**40),
        (),
        (1, 2, 3, 4),
        None,
    ],
    ids=repr,
)
def test_bad_launch_configurations_are_refused_every_time(cfg):
    a = nx.asarray(np.full(64, -1.0))
    fill[64](a, 1.0)  # good spellings first: they fill the cache
    fill[(64,)](a, 1.0)
    fill[(64,), 1](a, 1.0) if False else fill[(64,), (1,)](a, 1.0)
    for _ in range(2):
        with pytest.raises(nx.LaunchError):
            fill[cfg](a, 2.0)
    np.testing.assert_array_equal(nx.asnumpy(a), 1.0)  # nothing ran


@pytest.mark.parametrize(
    "cfg",
    [
        64,
        (64,),
        [64],
        np.int64(64),
        (np.int32(64),),
        nx.Range(64),
        nx.NdRange(64, 16),
        (64, 16),
        ((64,), (16,)),
        (nx.Range(64), (16,)),
    ],
    ids=repr,
)
def test_good_launch_configurations(rng, cfg):
    a = nx.asarray(np.full(64, -1.0))
    v = float(rng.standard_normal())
    for _ in range(2):
        fill[cfg](a, v)
        np.testing.assert_array_equal(nx.asnumpy(a), v)


def test_empty_launch_runs_nothing():
    a = nx.asarray(np.full(4, -1.0))
    fill[0](a, 3.0)
    fill[(0,)](a, 3.0)
    np.testing.assert_array_equal(nx.asnumpy(a), -1.0)


def test_local_size_errors_name_the_problem():
    with pytest.raises(nx.LaunchError, match="at least one work-item"):
        nx.NdRange(64, 0)
    with pytest.raises(nx.LaunchError, match="does not divide"):
        nx.NdRange(64, 10)
    with pytest.raises(nx.LaunchError, match="more than 2\\*\\*63"):
        nx.Range(2**32, 2**32)
