"""Benchmark workloads, one module each (see ``benchmarks/harness.py`` for the interface)."""

import importlib

NAMES = (
    "black_scholes", "stream_triad", "l2_norm", "pairwise_distance", "rambo", "gpairs", "kmeans", "knn",
    "call_overhead",
)

# Why a numba_ext variant cannot run yet (shown in the table as "n/a (needs ...)").
NEEDS_REDUCTIONS = "reductions"
NEEDS_KERNELS = "reductions/prange/kernels"


def load(name: str):
    if name not in NAMES:
        raise KeyError(f"unknown workload {name!r}; available: {', '.join(NAMES)}")
    return importlib.import_module(f"{__name__}.{name}")
