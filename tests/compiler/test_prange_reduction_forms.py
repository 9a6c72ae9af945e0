"""``prange`` reductions in both of their kernel forms, each forced on the default device: strided
(GPUs: ``gid, gid + global size, ...``) and blocked (CPUs: one contiguous run per work-item, in
work-groups of one). Lengths around the runs' boundaries (one element, fewer than a run, a run and
one more, runs that end past the data) give NumPy's values; a value from before the loop is kept."""

import numpy as np
import pytest
from numba import prange

import numba_ext as nx
from numba_ext.arrays.reductions import CPU_ELEMENTS_PER_WORK_ITEM
from numba_ext.compiler import parfor_offload

from ..checks import sum_tol

RUN = CPU_ELEMENTS_PER_WORK_ITEM
LENGTHS = [1, 3, RUN - 1, RUN, RUN + 1, 5 * RUN + 3, 100_003]


@pytest.mark.parametrize("blocked", [False, True])
def test_prange_reductions_of_both_forms(rng, monkeypatch, blocked):
    monkeypatch.setattr(parfor_offload, "reduction_unroll", lambda device: 8 if blocked else 1)

    @nx.jit
    def stats(a, b):
        s = 1.5
        m = -np.inf
        c = 0
        for i in prange(a.shape[0]):
            s += a[i] * 2.0
            m = max(m, a[i])
            c += b[i]
        return s, m, c

    for n in LENGTHS:
        ha, hb = rng.standard_normal(n), rng.integers(-9, 10, n)
        s, m, c = stats(nx.asarray(ha), nx.asarray(hb))
        np.testing.assert_allclose(s, 1.5 + (ha * 2.0).sum(), **sum_tol(ha * 2.0))
        assert m == ha.max() and c == hb.sum(), n


@pytest.mark.parametrize("blocked", [False, True])
def test_prange_reductions_over_a_nest_of_both_forms(rng, monkeypatch, blocked):
    monkeypatch.setattr(parfor_offload, "reduction_unroll", lambda device: 8 if blocked else 1)

    @nx.jit
    def total(a):
        s = 0
        for i in prange(a.shape[0]):
            for j in prange(a.shape[1]):
                s += a[i, j]
        return s

    for shape in ((1, 1), (3, RUN + 1), (257, 129)):
        h = rng.integers(-100, 100, shape)
        assert total(nx.asarray(h)) == h.sum(), shape
        assert total(nx.asarray(h.T)) == h.sum(), shape
