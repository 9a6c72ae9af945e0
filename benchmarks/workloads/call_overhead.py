"""Call overhead: ``a + b`` on 16 elements, cached calls. Each timed sample makes ``CALLS`` calls
(then waits on the result's queue); times are per call.

``numba_njit_on_usm`` runs the same plain ``@numba.njit`` function on the numba_ext arrays (the
offload rewrite works in the default pipeline): the gap to ``numba_ext_jit`` is the wrapper's
Python-side compute-follows-data check.
"""

import numba

import numba_ext
from harness import Variant

SIZES = {preset: {"n": 16} for preset in ("S", "M", "L")}
CALLS = 1000


def make_inputs(rng, n):
    return rng.random(n), rng.random(n)


def add(a, b):
    return a + b


reference = add

VARIANTS = [
    Variant("numpy", add),
    Variant("numba_njit", numba.njit(add)),
    Variant("numba_ext_jit", numba_ext.jit(add), device=True),
    Variant("numba_njit_on_usm", numba.njit(add), device=True, note="plain numba.njit on numba_ext arrays"),
]
