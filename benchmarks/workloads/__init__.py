"""Benchmark workloads, one module each (see ``benchmarks/harness/__init__.py`` for the interface)."""

import importlib

NAMES = (
    "black_scholes",
    "black_scholes_goal",
    "stream_triad",
    "stream_copy",
    "l2_norm",
    "pairwise_distance",
    "rambo",
    "gpairs",
    "kmeans",
    "knn",
    "call_overhead",
    "first_call",
)

# Named groups usable wherever workload names are (run.py --workloads): ``gpu`` is what the GPU
# comparison needs (README: Black-Scholes, l2_norm, pairwise distance, gpairs, STREAM triad and copy).
GROUPS = {
    "all": NAMES,
    "gpu": (
        "black_scholes",
        "l2_norm",
        "pairwise_distance",
        "gpairs",
        "stream_triad",
        "stream_copy",
        "call_overhead",
    ),
}


def expand(names) -> list[str]:
    """Workload names with groups replaced by their members, in order, without repeats."""
    out = []
    for n in names:
        for m in GROUPS.get(n, (n,)):
            if m not in out:
                out.append(m)
    return out


# Why a variant cannot run yet is given in each workload ("n/a (needs ...)"): limits of the
# array-expression path (@numba_ext.jit on the NumPy source) or of the prange path. The same
# workloads run as explicit kernels in their numba_ext_kernel variants.


def load(name: str):
    if name not in NAMES:
        raise KeyError(f"unknown workload {name!r}; available: {', '.join(NAMES)}")
    return importlib.import_module(f"{__name__}.{name}")
