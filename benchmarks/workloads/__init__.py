"""Benchmark workloads, one module each (see ``benchmarks/harness.py`` for the interface)."""

import importlib

NAMES = (
    "black_scholes", "black_scholes_goal", "stream_triad", "stream_copy", "l2_norm", "pairwise_distance", "rambo",
    "gpairs", "kmeans", "knn", "call_overhead", "first_call",
)

# Why a variant cannot run yet is given in each workload ("n/a (needs ...)"): limits of the
# array-expression path (@numba_ext.jit on the NumPy source) or of the prange path. The same
# workloads run as explicit kernels in their numba_ext_kernel variants.


def load(name: str):
    if name not in NAMES:
        raise KeyError(f"unknown workload {name!r}; available: {', '.join(NAMES)}")
    return importlib.import_module(f"{__name__}.{name}")
