"""Shared benchmark harness (modelled on IntelPython/dpbench).

A workload is a module in ``benchmarks/workloads/`` with:

* ``SIZES``: ``{"S": {...}, "M": {...}, "L": {...}}``, keyword arguments of ``make_inputs``;
* ``make_inputs(rng, **size)``: a tuple of positional arguments (NumPy arrays, float64 data, and scalars)
  drawn from ``rng``, a generator seeded once per workload and run;
* ``reference(*args)``: the NumPy result (an array or a tuple of arrays), computed once, untimed;
* ``VARIANTS``: a list of :class:`Variant` (``Variant.unavailable`` for what cannot run yet);
* optionally ``CALLS`` (calls per timed sample, for micro-benchmarks; times are reported per call),
  ``MAX_REPS`` and ``WARMUP`` (caps for slow samples), ``BYTES(**size)`` (bytes one call reads and
  writes, for the bandwidth columns).

A variant runs on a *backend*: ``host`` (NumPy, Numba on the CPU), ``numba_ext``, ``dpnp``, ``cupy`` or
``numba_cuda``. A backend is imported only when one of its variants runs; one that cannot be imported
(or has no device) turns its variants into ``n/a (<backend> not importable: ...)`` rows, so the suite
runs with any subset installed (the dpnp environment of ``setup_dpnp_env.sh``, a CUDA machine without
numba_ext, ...).

For every variant the harness measures, separately: the input transfer to the device (device
variants only, one measurement), the first call (includes JIT compilation; for variants with a
``make`` factory, the factory too), then ``warmup`` untimed samples and ``reps`` timed samples. Every
sample ends by synchronising the variant's backend (waiting on the queue of every USM array in the
result, or the CUDA device) before the clock stops. The last result is copied back (timed once as
``readback_ms``) and validated against the reference: a failed validation is reported as FAILED.

The harness is a package: ``backends`` (where data lives), ``variants`` (the implementations of a
workload), ``validation``, ``timing`` (one variant), ``suite`` (workloads and the whole run),
``goal_checks``, ``run_info`` (what a run records about itself) and ``report`` (JSON, tables). The
names below are its API, used by ``run.py``, ``plot.py``, the notebooks and the workloads.
"""

from __future__ import annotations

from .backends import (
    BACKENDS,
    Backend,
    CupyBackend,
    DpnpBackend,
    Missing,
    NumbaCudaBackend,
    NumbaExtBackend,
    backend_module,
    kapi,
    nx,
    sync,
    to_device,
    to_host,
)
from .goal_checks import BS_GOAL_N, goals, goals_markdown, goals_text
from .report import (
    HEADER,
    OUT_DIR,
    fmt_ms,
    load_json,
    markdown_table,
    newest_json,
    status_text,
    table,
    write_json,
)
from .run_info import environment, finish_environment
from .suite import PRESETS, Progress, run_suite, run_workload, size_label
from .timing import run_variant
from .validation import RTOL, validate
from .variants import VARIANT_GROUPS, Variant, eager_variant, namespace_variant, selected, with_globals

__all__ = [
    "BACKENDS",
    "BS_GOAL_N",
    "HEADER",
    "OUT_DIR",
    "PRESETS",
    "RTOL",
    "VARIANT_GROUPS",
    "Backend",
    "CupyBackend",
    "DpnpBackend",
    "Missing",
    "NumbaCudaBackend",
    "NumbaExtBackend",
    "Progress",
    "Variant",
    "backend_module",
    "eager_variant",
    "environment",
    "finish_environment",
    "fmt_ms",
    "goals",
    "goals_markdown",
    "goals_text",
    "kapi",
    "load_json",
    "markdown_table",
    "namespace_variant",
    "newest_json",
    "nx",
    "run_suite",
    "run_variant",
    "run_workload",
    "selected",
    "size_label",
    "status_text",
    "sync",
    "table",
    "to_device",
    "to_host",
    "validate",
    "with_globals",
    "write_json",
]
