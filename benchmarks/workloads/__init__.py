"""Benchmark workloads, one module each (see ``benchmarks/harness.py`` for the interface)."""

import importlib

NAMES = (
    "black_scholes", "stream_triad", "l2_norm", "pairwise_distance", "rambo", "gpairs", "kmeans", "knn",
    "call_overhead",
)

# Why a numba_ext_jit variant cannot run yet (shown in the table as "n/a (needs ...)"). These are
# limits of the array-expression path (@numba_ext.jit); the same workloads run as explicit kernels
# in their numba_ext_kernel variants.
NEEDS_REDUCTIONS = "reductions"
NEEDS_KERNELS = "reductions/prange in @jit"


def load(name: str):
    if name not in NAMES:
        raise KeyError(f"unknown workload {name!r}; available: {', '.join(NAMES)}")
    return importlib.import_module(f"{__name__}.{name}")
