"""Timing one variant: the input transfer, the first call, warm-up and timed samples (each ending with
the backend synchronised), the read-back, and the validation of the last result."""

from __future__ import annotations

import dataclasses
import os
import statistics
import time

import numpy as np

from .backends import BACKENDS, Backend, walk
from .validation import validate
from .variants import Variant


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


@dataclasses.dataclass
class _Samples:
    """What the timed part of a variant gives: seconds of the first call (with the ``make`` factory's
    in ``made``), the timed samples in ms, the last result on the device and on the host."""

    first: float
    made: float
    times: list[float]
    out: object
    host: object
    readback: float


def run_variant(v: Variant, host_args: tuple, ref, *, reps: int, warmup: int, calls: int) -> dict:
    """The record of one variant: n/a (with the reason), ERROR (with the exception), or its times and
    the validation of its last result (ok or FAILED)."""
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
        s = _measure(v, backend, rec, host_args, reps=reps, warmup=warmup, calls=calls)
    except Exception as e:  # reported, never hidden
        rec.update(
            status="ERROR", reason=f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"
        )
        return rec
    check = _validated(v, s, ref, on_device)
    rec.update(
        status="ok" if check["passed"] else "FAILED",
        reason=None if check["passed"] else check["detail"],
        validation=check,
        first_call_ms=(s.first + (0.0 if v.self_timed else s.made)) * 1e3,
        times_ms=s.times,
        median_ms=statistics.median(s.times),
        min_ms=min(s.times),
        max_ms=max(s.times),
        readback_ms=s.readback if on_device else None,
    )
    return rec


def _measure(v: Variant, backend: Backend, rec: dict, host_args: tuple, *, reps, warmup, calls) -> _Samples:
    """Transfer, first call, warm-up, timed samples and read-back of one variant; ``transfer_ms`` and
    ``kernels`` go into ``rec`` as soon as they are known (an error later leaves them there)."""
    on_device = v.backend != "host"
    t0 = time.perf_counter()
    args = backend.to_device(host_args)
    rec["transfer_ms"] = (time.perf_counter() - t0) * 1e3 if on_device else None
    t0 = time.perf_counter()
    fn = v.make(*args) if v.make else v.fn
    made = time.perf_counter() - t0
    first = None if v.self_timed else _sample(fn, args, 1, backend)[0]
    _reach_steady_state(fn, args, backend)
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
    return _Samples(first, made, times, out, host, readback)


def _reach_steady_state(fn, args, backend: Backend) -> None:
    """A ``numba_ext.jit`` function served from its source (array expressions, no Numba) switches to
    Numba's compiled code, whose overhead per call is lowest, at its ``NUMBA_EXT_HOT_CALLS``-th call
    (default 10000): one more call with the threshold at 1 makes the switch before the samples, which
    then show the steady state (the first call is measured before). A threshold set to 0 or below
    (Numba from the start, or never) is left as it is."""
    if type(fn).__module__ != "numba_ext.functions.jit_function":
        return
    saved = os.environ.get("NUMBA_EXT_HOT_CALLS")
    try:
        if saved is not None and int(saved) <= 0:
            return
    except ValueError:
        pass
    os.environ["NUMBA_EXT_HOT_CALLS"] = "1"
    try:
        _sample(fn, args, 1, backend)
    finally:
        if saved is None:
            del os.environ["NUMBA_EXT_HOT_CALLS"]
        else:
            os.environ["NUMBA_EXT_HOT_CALLS"] = saved


def _validated(v: Variant, s: _Samples, ref, on_device: bool) -> dict:
    """The validation of the last result; a device variant whose result came back as NumPy arrays
    fails it (a silent host fallback is not a device result) unless it says so (``host_result``)."""
    check = validate(s.host, ref)
    on_host = [type(o).__name__ for o in walk(s.out) if isinstance(o, np.ndarray)]
    if on_device and on_host and not v.host_result:
        check = {
            "passed": False,
            "error": check["error"],
            "detail": "the result came back as numpy.ndarray (computed or finished on the host); "
            + check["detail"],
        }
    return check
