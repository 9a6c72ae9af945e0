"""Shared benchmark harness (modelled on IntelPython/dpbench).

A workload is a module in ``benchmarks/workloads/`` with:

* ``SIZES``: ``{"S": {...}, "M": {...}, "L": {...}}``, keyword arguments of ``make_inputs``;
* ``make_inputs(rng, **size)``: a tuple of positional arguments (NumPy arrays, float64 data, and scalars)
  drawn from ``rng``, a generator seeded once per workload and run;
* ``reference(*args)``: the NumPy result (an array or a tuple of arrays), computed once, untimed;
* ``VARIANTS``: a list of :class:`Variant` (``Variant.unavailable`` for what cannot run yet);
* optionally ``CALLS``: calls per timed sample (micro-benchmarks; times are reported per call).

For every variant the harness measures, separately: the input transfer to the device (device
variants only, one measurement), the first call (includes JIT compilation for Numba and numba_ext),
then ``warmup`` untimed calls and ``reps`` timed samples. Every sample ends by waiting on the queue of
each numba_ext array in the result before the clock stops. The last result is copied back (timed once
as ``readback_ms``) and validated against the reference: a failed validation is reported as FAILED.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

import numpy as np

import numba_ext

OUT_DIR = Path(__file__).resolve().parent / "out"
PRESETS = ("S", "M", "L")

# Relative L2 error tolerances by result dtype (integer results must match exactly).
RTOL = {np.dtype("float64"): 1e-9, np.dtype("float32"): 1e-5}


@dataclasses.dataclass(frozen=True)
class Variant:
    """One implementation of a workload. ``device=True``: array inputs are copied to the default
    numba_ext device before timing; ``na``: why it cannot run yet (it is listed, never run)."""

    name: str
    fn: Callable | None = None
    device: bool = False
    na: str | None = None
    note: str = ""
    adapt: Callable | None = None  # host result -> reference layout, for validation only (untimed)

    @classmethod
    def unavailable(cls, name: str, needs: str) -> "Variant":
        return cls(name, na=f"n/a (needs {needs})")


# -- device helpers ------------------------------------------------------------------------------

def _walk(obj):
    if isinstance(obj, (tuple, list)):
        for o in obj:
            yield from _walk(o)
    else:
        yield obj


def to_device(args: tuple) -> tuple:
    dev = tuple(numba_ext.asarray(a) if isinstance(a, np.ndarray) else a for a in args)
    sync(dev)
    return dev


def sync(obj) -> None:
    """Wait for every queue holding a numba_ext array in `obj` (a result or argument tuple)."""
    for o in _walk(obj):
        if isinstance(o, numba_ext.ndarray):
            o.sycl_queue.wait()


def to_host(obj):
    if isinstance(obj, (tuple, list)):
        return tuple(to_host(o) for o in obj)
    if isinstance(obj, numba_ext.ndarray):
        return numba_ext.asnumpy(obj)
    return np.asarray(obj)


# -- validation ----------------------------------------------------------------------------------

def validate(got, ref) -> dict:
    """Relative L2 error per output component (float), exact match (integer); the worst counts."""
    got_t = got if isinstance(got, tuple) else (got,)
    ref_t = ref if isinstance(ref, tuple) else (ref,)
    if len(got_t) != len(ref_t):
        return {"passed": False, "error": None, "detail": f"{len(got_t)} outputs, expected {len(ref_t)}"}
    worst, passed, details = 0.0, True, []
    for i, (g, r) in enumerate(zip(got_t, ref_t)):
        g, r = np.asarray(g), np.asarray(r)
        if g.shape != r.shape:
            passed = False
            details.append(f"output {i}: shape {g.shape}, expected {r.shape}")
            continue
        if r.dtype.kind == "f":
            tol = RTOL.get(r.dtype, 1e-5)
            norm = float(np.linalg.norm(r.ravel()))
            err = float(np.linalg.norm((g.astype(r.dtype) - r).ravel())) / (norm if norm > 0 else 1.0)
            method = "rel_l2"
        else:
            tol, err, method = 0.0, float(np.mean(g != r)) if r.size else 0.0, "mismatch_fraction"
        ok = bool(np.isfinite(err) and err <= tol)
        passed &= ok
        worst = max(worst, err) if np.isfinite(err) else float("nan")
        details.append(f"output {i}: {method} {err:.2e} (tol {tol:g})")
    return {"passed": passed, "error": worst, "detail": "; ".join(details)}


# -- timing --------------------------------------------------------------------------------------

def _sample(fn, args, calls: int):
    """One timed sample: `calls` calls, then wait for the result's queue; seconds per call."""
    t0 = time.perf_counter()
    for _ in range(calls):
        out = fn(*args)
    sync(out)
    return (time.perf_counter() - t0) / calls, out


def run_variant(v: Variant, host_args: tuple, ref, *, reps: int, warmup: int, calls: int) -> dict:
    rec = {"variant": v.name, "note": v.note, "status": "n/a", "reason": v.na}
    if v.na:
        return rec
    try:
        t0 = time.perf_counter()
        args = to_device(host_args) if v.device else host_args
        rec["transfer_ms"] = (time.perf_counter() - t0) * 1e3 if v.device else None
        first, out = _sample(v.fn, args, 1)
        for _ in range(warmup):
            _sample(v.fn, args, calls)
        times = []
        for _ in range(reps):
            t, out = _sample(v.fn, args, calls)
            times.append(t * 1e3)
        t0 = time.perf_counter()
        host = to_host(out)
        readback = (time.perf_counter() - t0) * 1e3
        if v.adapt:
            host = v.adapt(host)
        if hasattr(v.fn, "inspect_kernels"):  # numba_ext.jit: how many device kernels one call runs
            rec["kernels"] = len(v.fn.inspect_kernels(*args))
    except Exception as e:  # reported, never hidden
        rec.update(status="ERROR", reason=f"{type(e).__name__}: {str(e).splitlines()[0][:200]}")
        return rec
    check = validate(host, ref)
    rec.update(
        status="ok" if check["passed"] else "FAILED",
        reason=None if check["passed"] else check["detail"],
        validation=check,
        first_call_ms=first * 1e3,
        times_ms=times,
        median_ms=statistics.median(times),
        min_ms=min(times),
        max_ms=max(times),
        readback_ms=readback if v.device else None,
    )
    return rec


def size_label(size: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in size.items())


def run_workload(name: str, module, preset: str, *, reps: int, warmup: int, seed: int,
                 progress=None) -> list[dict]:
    size = module.SIZES[preset]
    host_args = module.make_inputs(np.random.default_rng(seed), **size)
    ref = module.reference(*host_args)
    calls = getattr(module, "CALLS", 1)
    records = []
    for v in module.VARIANTS:
        rec = {"workload": name, "size": size_label(size), "calls_per_sample": calls,
               **run_variant(v, host_args, ref, reps=reps, warmup=warmup, calls=calls)}
        records.append(rec)
        if progress:
            progress(rec)
    base = next((r for r in records if r["variant"] == "numpy" and r["status"] == "ok"), None)
    for r in records:
        ok = base is not None and r["status"] == "ok"
        r["speedup_vs_numpy"] = base["median_ms"] / r["median_ms"] if ok else None
    return records


# -- environment and output ----------------------------------------------------------------------

def environment() -> dict:
    import numba

    q = numba_ext.default_queue()
    dev = q.device
    now = datetime.datetime.now().astimezone()
    try:
        affinity = len(os.sched_getaffinity(0))
    except AttributeError:
        affinity = None
    return {
        "date": now.date().isoformat(),
        "timestamp": now.isoformat(timespec="seconds"),
        "device": {"name": dev.name, "filter_string": dev.filter_string, "vendor": dev.vendor,
                   "driver_version": dev.driver_version, "max_compute_units": dev.max_compute_units,
                   "target": str(dev.target)},
        "versions": {"python": platform.python_version(), "numpy": np.__version__,
                     "numba": numba.__version__, "numba_ext": numba_ext.__version__},
        "machine": {"platform": platform.platform(), "processor": platform.processor() or platform.machine(),
                    "cpu_count": os.cpu_count(), "cpus_usable": affinity,
                    "numba_threads": numba.get_num_threads(), "loadavg_start": os.getloadavg()},
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "git": _git_state(),
    }


def _git_state() -> dict | None:
    """Commit of the checkout and uncommitted changes to the library (they affect the numbers)."""
    root = Path(__file__).resolve().parent.parent

    def git(*args):
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout

    try:
        dirty = git("status", "--porcelain", "--", "numba_ext", "rust").splitlines()
        return {"commit": git("rev-parse", "--short", "HEAD").strip(), "library_changes": [d.strip() for d in dirty]}
    except (OSError, subprocess.CalledProcessError):
        return None


def finish_environment(meta: dict) -> None:
    import numba

    meta["machine"]["loadavg_end"] = os.getloadavg()
    try:
        meta["machine"]["numba_threading_layer"] = numba.threading_layer()
    except ValueError:  # no parallel function ran
        meta["machine"]["numba_threading_layer"] = None


def write_json(meta: dict, records: list[dict], out_dir: Path = OUT_DIR) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    path = out_dir / f"{stamp}.json"
    n = 1
    while path.exists():
        path, n = out_dir / f"{stamp}-{n}.json", n + 1
    path.write_text(json.dumps({"meta": meta, "results": records}, indent=1, allow_nan=True) + "\n")
    return path


def fmt_ms(x) -> str:
    return "-" if x is None else f"{x:.4g}"


def _speedup(x) -> str:
    return "-" if x is None else f"{x:.2f}x" if x >= 0.1 else f"{x:.2g}x"


def status_text(r: dict) -> str:
    if r["status"] == "ok":
        return f"ok ({r['validation']['error']:.1e})"
    if r["status"] == "n/a":
        return r["reason"]
    return f"{r['status']}: {r['reason']}"


HEADER = ("workload", "size", "variant", "median ms", "min ms", "max ms", "first call ms", "transfer ms",
          "vs NumPy", "validation")


def _row(r: dict) -> tuple:
    return (r["workload"], r["size"], r["variant"], fmt_ms(r.get("median_ms")), fmt_ms(r.get("min_ms")),
            fmt_ms(r.get("max_ms")), fmt_ms(r.get("first_call_ms")), fmt_ms(r.get("transfer_ms")),
            _speedup(r.get("speedup_vs_numpy")), status_text(r))


def table(records: list[dict]) -> str:
    rows = [HEADER, *map(_row, records)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(HEADER) - 1)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)) + "  " + row[-1] for row in rows]
    lines.insert(1, "-" * len(lines[0]))
    return "\n".join(lines)


def markdown_table(records: list[dict]) -> str:
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(_row(r)) + " |" for r in records]
    return "\n".join(lines)
