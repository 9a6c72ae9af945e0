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
import types
from collections.abc import Callable
from pathlib import Path

import numpy as np

OUT_DIR = Path(os.environ.get("BENCH_OUT_DIR") or Path(__file__).resolve().parent / "out")
PRESETS = ("S", "M", "L")

# Relative L2 error tolerances by result dtype (integer results must match exactly).
RTOL = {np.dtype("float64"): 1e-9, np.dtype("float32"): 1e-5}


# -- optional libraries --------------------------------------------------------------------------


class Missing:
    """Stands for a library that cannot be imported: attribute access, calls and decorators all give
    a Missing again, so workload modules define their variants unconditionally; the harness lists
    every variant of that backend as n/a with ``reason``."""

    def __init__(self, name: str, reason: str):
        self._name, self.reason = name, reason

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return self

    def __call__(self, *args, **kwargs):
        return self

    def __getitem__(self, key):
        return self

    def __bool__(self):
        return False

    def __repr__(self):
        return f"<missing {self._name}: {self.reason}>"


def _import_numba_ext():
    try:
        import numba_ext

        return numba_ext
    except Exception as e:  # ImportError, or OSError for a missing OpenCL/LLVM library
        return Missing("numba_ext", f"{type(e).__name__}: {str(e).splitlines()[0][:160]}")


# numba_ext (or a Missing): workload modules use ``from harness import nx`` and decorate kernels with it.
nx = _import_numba_ext()


def _walk(obj):
    if isinstance(obj, (tuple, list)):
        for o in obj:
            yield from _walk(o)
    else:
        yield obj


class Backend:
    """Where a variant's data lives: how to copy inputs there, wait for results and copy them back."""

    name = "host"
    label = "host"

    def __init__(self):
        self._loaded, self.module, self.reason, self.importable = False, None, None, True
        self.shims: list[str] = []  # compatibility shims applied when loading (reported with every result)

    def _load(self):  # -> module; raises when unavailable
        return None

    def load(self):
        if not self._loaded:
            self._loaded = True
            try:
                self.module = self._load()
            except Exception as e:
                self.module, self.reason = None, f"{type(e).__name__}: {str(e).splitlines()[0][:160]}"
                self.importable = not isinstance(e, ImportError)
        return self.module

    def unavailable(self) -> str | None:
        """None when the backend can run, else the text of its n/a rows."""
        self.load()
        if self.reason is None:
            return None
        return f"n/a ({self.label} {'unavailable' if self.importable else 'not importable'}: {self.reason})"

    def to_device(self, args: tuple) -> tuple:
        return args

    def sync(self, obj) -> None:
        pass

    def to_host(self, obj):
        if isinstance(obj, (tuple, list)):
            return tuple(self.to_host(o) for o in obj)
        return np.asarray(obj)

    def info(self) -> dict:
        return {}


class NumbaExtBackend(Backend):
    name = label = "numba_ext"

    def _load(self):
        if isinstance(nx, Missing):
            raise ImportError(nx.reason)
        nx.default_queue()  # the device named by NUMBA_EXT_DEVICE (or the default) must exist
        return nx

    def to_device(self, args):
        dev = tuple(nx.asarray(a) if isinstance(a, np.ndarray) else a for a in args)
        self.sync(dev)
        return dev

    def sync(self, obj):
        for o in _walk(obj):
            q = getattr(o, "sycl_queue", None)
            if q is not None:
                q.wait()

    def to_host(self, obj):
        if isinstance(obj, (tuple, list)):
            return tuple(self.to_host(o) for o in obj)
        return nx.asnumpy(obj) if isinstance(obj, nx.ndarray) else np.asarray(obj)

    def info(self):
        dev = nx.default_queue().device
        return {
            "version": nx.__version__,
            "device": dev.name,
            "filter_string": dev.filter_string,
            "vendor": dev.vendor,
            "driver_version": dev.driver_version,
            "max_compute_units": dev.max_compute_units,
            "target": str(dev.target),
        }


class DpnpBackend(NumbaExtBackend):
    """dpnp arrays on dpctl's default device (the Intel OpenCL CPU device with ``setup_dpnp_env.sh``)."""

    name = label = "dpnp"

    def _load(self):
        import dpctl  # noqa: F401
        import dpnp

        return dpnp

    def to_device(self, args):
        dev = tuple(self.module.asarray(a) if isinstance(a, np.ndarray) else a for a in args)
        self.sync(dev)
        return dev

    def to_host(self, obj):
        if isinstance(obj, (tuple, list)):
            return tuple(self.to_host(o) for o in obj)
        return self.module.asnumpy(obj) if hasattr(obj, "sycl_queue") else np.asarray(obj)

    def info(self):
        import dpctl

        dev = dpctl.select_default_device()
        return {
            "version": self.module.__version__,
            "dpctl": dpctl.__version__,
            "device": dev.name,
            "filter_string": dev.filter_string,
            "driver_version": dev.driver_version,
            "max_compute_units": dev.max_compute_units,
        }


class CupyBackend(Backend):
    name = label = "cupy"

    def _load(self):
        import cupy

        if cupy.cuda.runtime.getDeviceCount() < 1:
            raise RuntimeError("no CUDA device")
        return cupy

    def to_device(self, args):
        dev = tuple(self.module.asarray(a) if isinstance(a, np.ndarray) else a for a in args)
        self.sync(dev)
        return dev

    def sync(self, obj):
        self.module.cuda.Device().synchronize()

    def to_host(self, obj):
        if isinstance(obj, (tuple, list)):
            return tuple(self.to_host(o) for o in obj)
        return self.module.asnumpy(obj)

    def info(self):
        cp = self.module
        props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
        return {
            "version": cp.__version__,
            "device": props["name"].decode(),
            "cuda_runtime": cp.cuda.runtime.runtimeGetVersion(),
            "driver": cp.cuda.runtime.driverGetVersion(),
        }


class NumbaCudaBackend(Backend):
    name = label = "numba_cuda"

    def _load(self):
        import warnings

        if not hasattr(np, "row_stack"):
            # COMPATIBILITY SHIM (benchmarks only, never in numba_ext): numba-cuda refers to
            # np.row_stack, an alias of np.vstack that NumPy 2.5 removed, so `from numba import cuda`
            # fails with AttributeError under NumPy >= 2.5. Restoring the alias before the import is
            # all it needs; it is reported in the backend info and in the note of every numba_cuda
            # result, so numbers taken with it are marked.
            np.row_stack = np.vstack
            self.shims.append(
                f"np.row_stack = np.vstack (NumPy {np.__version__} has no row_stack; numba-cuda refers to it)"
            )
        from numba import cuda

        warnings.filterwarnings(
            "ignore", message=".*Grid size .* will likely result in GPU under-utilization"
        )
        if not cuda.is_available():
            raise RuntimeError("no CUDA device: numba.cuda.is_available() is False")
        return cuda

    def to_device(self, args):
        dev = tuple(self.module.to_device(a) if isinstance(a, np.ndarray) else a for a in args)
        self.sync(dev)
        return dev

    def sync(self, obj):
        self.module.synchronize()

    def to_host(self, obj):
        if isinstance(obj, (tuple, list)):
            return tuple(self.to_host(o) for o in obj)
        return obj.copy_to_host() if hasattr(obj, "copy_to_host") else np.asarray(obj)

    def info(self):
        dev = self.module.get_current_device()
        try:
            from importlib.metadata import version

            ver = version("numba-cuda")
        except Exception:
            ver = None
        info = {
            "version": ver,
            "device": dev.name.decode() if isinstance(dev.name, bytes) else dev.name,
            "compute_capability": list(dev.compute_capability),
        }
        if self.shims:
            info["shims"] = list(self.shims)
        return info


BACKENDS = {
    b.name: b for b in (Backend(), NumbaExtBackend(), DpnpBackend(), CupyBackend(), NumbaCudaBackend())
}


def backend_module(name: str):
    """The imported module of a backend (raises when unavailable); for ``make`` factories."""
    b = BACKENDS[name]
    if b.load() is None:
        raise ImportError(b.reason)
    return b.module


def with_globals(fn: Callable, **names) -> Callable:
    """The same source and code object with some globals replaced (e.g. ``np=dpnp``): how the dpnp
    and CuPy variants run the NumPy source unchanged."""
    g = dict(fn.__globals__)
    g.update(names)
    new = types.FunctionType(fn.__code__, g, fn.__name__, fn.__defaults__, fn.__closure__)
    new.__qualname__ = fn.__qualname__
    return new


# -- variants ------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Variant:
    """One implementation of a workload.

    ``backend``: where the inputs are copied before timing (``host`` leaves them as NumPy arrays);
    ``na``: why it cannot run yet (listed, never run); ``make``: a factory called with the device
    inputs before the first call (its time counts as part of the first call) that returns the
    function to time, for variants that need the device arrays or a lazily imported library;
    ``self_timed``: the function returns ``(seconds, result)`` and its seconds are the sample (used
    for measurements in a child process; they have no separate first call: their first sample is
    reported as ``first_call_ms`` too); ``adapt``: host result -> reference layout, untimed."""

    name: str
    fn: Callable | None = None
    backend: str = "host"
    na: str | None = None
    note: str = ""
    adapt: Callable | None = None
    make: Callable | None = None
    self_timed: bool = False
    requires: str | None = None  # a backend that must be available although the data stays on ``backend``
    host_result: bool = False  # a device variant that returns NumPy arrays on purpose (stop-gaps)

    @classmethod
    def unavailable(cls, name: str, needs: str, backend: str = "host") -> Variant:
        return cls(name, backend=backend, na=f"n/a (needs {needs})")


def namespace_variant(
    name: str, fn: Callable, backend: str, note: str = "", helpers: tuple = (), **kw
) -> Variant:
    """``fn`` (a NumPy source) run with ``np`` bound to the backend's array module (dpnp, cupy);
    ``helpers``: names of module functions ``fn`` calls that need the same rebinding."""

    def make(*args):
        mod = backend_module(backend)
        names = {"np": mod, **{h: with_globals(fn.__globals__[h], np=mod) for h in helpers}}
        return with_globals(fn, **names)

    return Variant(
        name, backend=backend, make=make, note=note or f"the NumPy source with np = {backend}", **kw
    )


# -- device helpers (numba_ext; kept for callers of the previous API) -----------------------------


def to_device(args: tuple) -> tuple:
    return BACKENDS["numba_ext"].to_device(args)


def sync(obj) -> None:
    BACKENDS["numba_ext"].sync(obj)


def to_host(obj):
    return BACKENDS["numba_ext"].to_host(obj)


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


def _sample(fn, args, calls: int, backend: Backend, self_timed: bool = False):
    """One timed sample: `calls` calls, then synchronise the backend; seconds per call."""
    if self_timed:
        total = 0.0
        for _ in range(calls):
            t, out = fn(*args)
            total += t
        return total / calls, out
    t0 = time.perf_counter()
    for _ in range(calls):
        out = fn(*args)
    backend.sync(out)
    return (time.perf_counter() - t0) / calls, out


def run_variant(v: Variant, host_args: tuple, ref, *, reps: int, warmup: int, calls: int) -> dict:
    backend = BACKENDS[v.backend]
    rec = {"variant": v.name, "backend": v.backend, "note": v.note, "status": "n/a", "reason": v.na}
    if v.na:
        return rec
    na = backend.unavailable() or (BACKENDS[v.requires].unavailable() if v.requires else None)
    if na:
        rec["reason"] = na
        return rec
    if backend.shims:  # numbers taken with a compatibility shim say so
        rec["shims"] = list(backend.shims)
        rec["note"] = "; ".join(filter(None, [v.note, *(f"compatibility shim: {x}" for x in backend.shims)]))
    on_device = v.backend != "host"
    try:
        t0 = time.perf_counter()
        args = backend.to_device(host_args)
        rec["transfer_ms"] = (time.perf_counter() - t0) * 1e3 if on_device else None
        t0 = time.perf_counter()
        fn = v.make(*args) if v.make else v.fn
        made = time.perf_counter() - t0
        first = None if v.self_timed else _sample(fn, args, 1, backend)[0]
        for _ in range(warmup):
            _sample(fn, args, calls, backend, v.self_timed)
        times = []
        for _ in range(reps):
            t, out = _sample(fn, args, calls, backend, v.self_timed)
            times.append(t * 1e3)
        if first is None:
            first = times[0] * 1e-3
        t0 = time.perf_counter()
        host = backend.to_host(out)
        readback = (time.perf_counter() - t0) * 1e3
        if v.adapt:
            host = v.adapt(host)
        if hasattr(fn, "inspect_kernels"):  # numba_ext.jit: how many device kernels one call runs
            rec["kernels"] = len(fn.inspect_kernels(*args))
    except Exception as e:  # reported, never hidden
        rec.update(
            status="ERROR", reason=f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"
        )
        return rec
    check = validate(host, ref)
    on_host = [type(o).__name__ for o in _walk(out) if isinstance(o, np.ndarray)]
    if on_device and on_host and not v.host_result:  # a silent host fallback is not a device result
        check = {
            "passed": False,
            "error": check["error"],
            "detail": "the result came back as numpy.ndarray (computed or finished on the host); "
            + check["detail"],
        }
    rec.update(
        status="ok" if check["passed"] else "FAILED",
        reason=None if check["passed"] else check["detail"],
        validation=check,
        first_call_ms=(first + (0.0 if v.self_timed else made)) * 1e3,
        times_ms=times,
        median_ms=statistics.median(times),
        min_ms=min(times),
        max_ms=max(times),
        readback_ms=readback if on_device else None,
    )
    return rec


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


# Groups usable in a ``variants`` selection next to variant names: ``gpu`` is NumPy (the reference of
# the speed-ups) and every variant on a device backend (numba_ext on NUMBA_EXT_DEVICE, CuPy, numba-cuda).
VARIANT_GROUPS: dict[str, Callable[[Variant], bool]] = {
    "gpu": lambda v: v.name == "numpy" or v.backend in ("numba_ext", "cupy", "numba_cuda"),
    "cuda": lambda v: v.name == "numpy" or v.backend in ("cupy", "numba_cuda"),
}


def selected(module, variants: set[str] | None) -> list[Variant]:
    """The variants of ``module`` named in ``variants`` (names or groups of VARIANT_GROUPS; None: all)."""
    if variants is None:
        return list(module.VARIANTS)
    groups = [pred for g, pred in VARIANT_GROUPS.items() if g in variants]
    return [v for v in module.VARIANTS if v.name in variants or any(pred(v) for pred in groups)]


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


# -- goals ---------------------------------------------------------------------------------------

BS_GOAL_N = 1 << 22


def _find(records, workload, variant, size=None):
    for r in records:
        if r["workload"] == workload and r["variant"] == variant and (size is None or r["size"] == size):
            return r
    return None


def _ok(r):
    return r is not None and r["status"] == "ok"


def goals(records: list[dict]) -> list[dict]:
    """The issue's goals, each ``met``, ``not met`` or ``not measured`` (with the numbers used)."""
    out = []
    size = f"n={BS_GOAL_N}"
    nxv = [v for v in ("numba_ext_jit", "numba_ext_prange", "numba_ext_kernel")]

    # black_scholes_goal runs 2^22 options in every preset; black_scholes does at preset M
    wl = "black_scholes_goal" if _find(records, "black_scholes_goal", "numpy", size) else "black_scholes"

    def bs_goal(goal, test, what):
        jit = _find(records, wl, "numba_ext_jit", size)
        peer = _find(records, wl, what, size)
        others = [r for r in (_find(records, wl, v, size) for v in nxv) if _ok(r)]
        if not (_ok(jit) and _ok(peer)):
            why = (
                "Black-Scholes at n=2^22 was not run (workload black_scholes_goal, or black_scholes at "
                "preset M)"
                if jit is None and peer is None
                else f"{wl} at n=2^22: "
                + "; ".join(
                    f"{name}: {status_text(r) if r else 'not run'}"
                    for name, r in (("numba_ext_jit", jit), (what, peer))
                    if not _ok(r)
                )
            )
            out.append({"goal": goal, "status": "not measured", "detail": why})
            return
        ratio = jit["median_ms"] / peer["median_ms"]
        detail = (
            f"numba_ext_jit {jit['median_ms']:.4g} ms, {what} {peer['median_ms']:.4g} ms: "
            + test[1](ratio)
            + "; other numba_ext variants: "
            + ", ".join(
                f"{r['variant']} {r['median_ms']:.4g} ms ({test[1](r['median_ms'] / peer['median_ms'])})"
                for r in others
                if r is not jit
            )
        )
        out.append({"goal": goal, "status": "met" if test[0](ratio) else "not met", "detail": detail})

    bs_goal(
        "Black-Scholes 2^22: numba_ext jit time <= 1.0x numba parallel",
        (lambda r: r <= 1.0, lambda r: f"{r:.2f}x numba parallel's time"),
        "numba_parallel",
    )
    bs_goal(
        "Black-Scholes 2^22: numba_ext jit >= 10x faster than NumPy",
        (lambda r: r <= 0.1, lambda r: f"{1 / r:.2f}x faster than NumPy"),
        "numpy",
    )

    def overhead_goal(goal, peer_name, limit, fmt):
        jit, peer = (
            _find(records, "call_overhead", "numba_ext_jit"),
            _find(records, "call_overhead", peer_name),
        )
        if not (_ok(jit) and _ok(peer)):
            why = "; ".join(
                f"{name}: {status_text(r) if r else 'not run'}"
                for name, r in (("numba_ext_jit", jit), (peer_name, peer))
                if not _ok(r)
            )
            out.append({"goal": goal, "status": "not measured", "detail": f"call_overhead {why}"})
            return
        ratio = jit["median_ms"] / peer["median_ms"]
        out.append(
            {
                "goal": goal,
                "status": "met" if ratio <= limit else "not met",
                "detail": f"cached numba_ext_jit call {jit['median_ms'] * 1e3:.3g} us, {peer_name} "
                f"{peer['median_ms'] * 1e3:.3g} us: {fmt(ratio)}",
            }
        )

    overhead_goal(
        "cached jit call (16 elements) <= 1.5x a bare OpenCL enqueue+wait",
        "bare_launch",
        1.5,
        lambda r: f"{r:.2f}x the bare launch",
    )
    overhead_goal(
        "cached jit call (16 elements) <= 1/4 of dpnp's a + b",
        "dpnp",
        0.25,
        lambda r: f"{r:.2f}x dpnp's time (goal <= 0.25x)",
    )
    return out


def goals_text(gs: list[dict]) -> str:
    return "\n".join(f"  [{g['status']:>12}] {g['goal']}: {g['detail']}" for g in gs)


def goals_markdown(gs: list[dict]) -> str:
    lines = ["| goal | status | numbers |", "|---|---|---|"]
    lines += [f"| {g['goal']} | **{g['status']}** | {g['detail']} |" for g in gs]
    return "\n".join(lines)


# -- environment and output ----------------------------------------------------------------------


def environment() -> dict:
    import numba

    now = datetime.datetime.now().astimezone()
    try:
        affinity = len(os.sched_getaffinity(0))
    except AttributeError:
        affinity = None
    if isinstance(nx, Missing):
        device = {"name": f"numba_ext not importable ({nx.reason})", "filter_string": None}
    else:
        try:
            info = BACKENDS["numba_ext"].info()
            device = {
                "name": info["device"],
                **{k: v for k, v in info.items() if k not in ("device", "version")},
            }
        except Exception as e:  # e.g. NUMBA_EXT_DEVICE=gpu without a GPU: numba_ext variants are n/a
            device = {
                "name": f"no numba_ext device ({type(e).__name__}: {str(e).splitlines()[0][:160]})",
                "filter_string": None,
            }
    device["selector"] = os.environ.get("NUMBA_EXT_DEVICE")  # NUMBA_EXT_DEVICE as set for this run
    return {
        "date": now.date().isoformat(),
        "timestamp": now.isoformat(timespec="seconds"),
        "device": device,
        "versions": {
            "python": platform.python_version(),
            "numpy": np.__version__,
            "numba": numba.__version__,
            "numba_ext": getattr(nx, "__version__", None),
        },
        "machine": {
            "platform": platform.platform(),
            "processor": platform.processor() or platform.machine(),
            "cpu_count": os.cpu_count(),
            "cpus_usable": affinity,
            "numba_threads": numba.get_num_threads(),
            "loadavg_start": os.getloadavg(),
        },
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
        return {
            "commit": git("rev-parse", "--short", "HEAD").strip(),
            "library_changes": [d.strip() for d in dirty],
        }
    except (OSError, subprocess.CalledProcessError):
        return None


def finish_environment(meta: dict, records: list[dict] | None = None) -> None:
    import numba

    meta["machine"]["loadavg_end"] = os.getloadavg()
    try:
        meta["machine"]["numba_threading_layer"] = numba.threading_layer()
    except ValueError:  # no parallel function ran
        meta["machine"]["numba_threading_layer"] = None
    used = dict.fromkeys(r.get("backend", "host") for r in records or [])
    meta["backends"] = {}
    for name in used:
        if name == "host":
            continue
        b = BACKENDS[name]
        if b.unavailable():
            meta["backends"][name] = {
                "available": False,
                "reason": b.reason,
                **({"shims": list(b.shims)} if b.shims else {}),
            }
            continue
        try:
            meta["backends"][name] = {"available": True, **b.info()}
        except Exception as e:
            meta["backends"][name] = {"available": True, "info_error": f"{type(e).__name__}: {e}"}


def write_json(
    meta: dict, records: list[dict], out_dir: Path | None = None, path: Path | None = None
) -> Path:
    """Write ``{"meta", "results"}`` to ``path``, or to a new ``<out_dir>/<timestamp>.json``."""
    if path is None:
        out_dir = Path(out_dir or OUT_DIR)
        out_dir.mkdir(parents=True, exist_ok=True)
        stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
        path = out_dir / f"{stamp}.json"
        n = 1
        while path.exists():
            path, n = out_dir / f"{stamp}-{n}.json", n + 1
    path = Path(path)
    path.write_text(json.dumps({"meta": meta, "results": records}, indent=1, allow_nan=True) + "\n")
    return path


def newest_json(out_dir: Path | None = None) -> Path | None:
    return max(Path(out_dir or OUT_DIR).glob("*.json"), key=lambda f: f.stat().st_mtime, default=None)


def load_json(path: Path) -> tuple[dict, list[dict]]:
    data = json.loads(Path(path).read_text())
    return data["meta"], data["results"]


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


HEADER = (
    "workload",
    "size",
    "variant",
    "median ms",
    "min ms",
    "max ms",
    "first call ms",
    "transfer ms",
    "vs NumPy",
    "GB/s",
    "validation",
)


def _row(r: dict) -> tuple:
    gbps = f"{r['gbps']:.3g}" if r.get("gbps") else "-"
    return (
        r["workload"],
        r["size"],
        r["variant"],
        fmt_ms(r.get("median_ms")),
        fmt_ms(r.get("min_ms")),
        fmt_ms(r.get("max_ms")),
        fmt_ms(r.get("first_call_ms")),
        fmt_ms(r.get("transfer_ms")),
        _speedup(r.get("speedup_vs_numpy")),
        gbps,
        status_text(r),
    )


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
