"""Running workloads: every selected variant of a workload at a preset, the speed-ups over NumPy, the
progress bar, and the whole suite (the API behind ``run.py`` and the notebooks)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

import numpy as np

from .goal_checks import goals
from .report import fmt_ms
from .run_info import environment, finish_environment
from .timing import run_variant
from .variants import selected

PRESETS = ("S", "M", "L")


def size_label(size: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in size.items())


def run_workload(
    name: str,
    module,
    preset: str,
    *,
    reps: int,
    warmup: int,
    seed: int,
    size: dict | None = None,
    variants: set[str] | None = None,
    progress=None,
) -> list[dict]:
    """Every variant of one workload (``variants``: only these names) at ``preset`` (``size``
    overrides single keys)."""
    size = {**module.SIZES[preset], **(size or {})}
    host_args = module.make_inputs(np.random.default_rng(seed), **size)
    ref = module.reference(*host_args)
    calls = getattr(module, "CALLS", 1)
    reps = min(reps, getattr(module, "MAX_REPS", reps))
    warmup = min(warmup, getattr(module, "WARMUP", warmup))
    nbytes = module.BYTES(**size) if hasattr(module, "BYTES") else None
    records = []
    for v in selected(module, variants):
        rec = {
            "workload": name,
            "size": size_label(size),
            "calls_per_sample": calls,
            **run_variant(v, host_args, ref, reps=reps, warmup=warmup, calls=calls),
        }
        if nbytes and rec.get("median_ms"):
            rec["bytes_per_call"] = nbytes
            rec["gbps"] = nbytes / (rec["median_ms"] * 1e-3) / 1e9
            rec["gbps_best"] = nbytes / (rec["min_ms"] * 1e-3) / 1e9
        records.append(rec)
        if progress:
            progress(rec)
    base = next((r for r in records if r["variant"] == "numpy" and r["status"] == "ok"), None)
    for r in records:
        ok = base is not None and r["status"] == "ok"
        r["speedup_vs_numpy"] = base["median_ms"] / r["median_ms"] if ok else None
    return records


class Progress:
    """A text progress bar on stderr: one line per finished variant (a terminal rewrites the line)."""

    def __init__(self, total: int, stream=None, width: int = 24):
        self.total, self.done, self.width = total, 0, width
        self.stream = stream or sys.stderr
        self.start = time.perf_counter()
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()

    def __call__(self, rec: dict) -> None:
        self.done += 1
        filled = self.width * self.done // max(1, self.total)
        bar = "#" * filled + "-" * (self.width - filled)
        what = fmt_ms(rec.get("median_ms")) + " ms" if rec["status"] == "ok" else rec["status"]
        line = (
            f"[{bar}] {self.done:>3}/{self.total} {time.perf_counter() - self.start:6.1f} s  "
            f"{rec['workload']}/{rec['variant']}: {what}"
        )
        if self.tty:
            end = "\n" if self.done == self.total else ""
            print("\r\033[K" + line, end=end, file=self.stream, flush=True)
            if rec["status"] in ("FAILED", "ERROR"):
                print(f"\n  {rec['reason']}", file=self.stream, flush=True)
        else:
            print(line, file=self.stream, flush=True)


def run_suite(
    preset: str = "S",
    names=None,
    *,
    reps: int = 7,
    warmup: int = 1,
    seed: int = 777,
    size: dict | None = None,
    variants: set[str] | None = None,
    progress: bool | Callable = True,
):
    """Run workloads (default: all) and return ``(meta, records)``; the API behind ``run.py`` and
    the notebooks. ``progress=True`` draws a progress bar on stderr."""
    import workloads

    names = list(names or workloads.NAMES)
    modules = {n: workloads.load(n) for n in names}
    meta = environment()
    meta.update(
        preset=preset,
        reps=reps,
        warmup=warmup,
        seed=seed,
        workloads=names,
        size_override=size or None,
        variants=sorted(variants) if variants else None,
    )
    total = sum(len(selected(m, variants)) for m in modules.values())
    if progress is True:
        progress = Progress(total)
    records, start = [], time.perf_counter()
    for name, mod in modules.items():
        records += run_workload(
            name,
            mod,
            preset,
            reps=reps,
            warmup=warmup,
            seed=seed,
            size=size,
            variants=variants,
            progress=progress or None,
        )
    finish_environment(meta, records)
    meta["elapsed_s"] = time.perf_counter() - start
    meta["goals"] = goals(records)
    return meta, records
