"""``python -m numba_ext --check``: compile and run code on every device and compare it with NumPy.

Per device: an axpy kernel (``numba_ext.kernel``) and a fused jitted array expression
(``numba_ext.jit``) on a queue of that device, each timed twice (compilation plus the first run,
then a warm run) and checked against NumPy within the floating-point policy's tolerances
(docs/numerics.md: a multiply-add may be one fused operation on NVIDIA GPUs). A device that fails
is reported with its error message, never a traceback; a device numba_ext cannot compile for at all
(no SPIR-V, not NVIDIA's: e.g. PoCL's CPU device) is listed as not checked and fails the check only
when it is the default device."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

import numba_ext

N = 100_003  # not a multiple of any work-group or vector width


@numba_ext.kernel
def axpy(a, x, y, out):  # arguments typed by Numba per launch
    i = numba_ext.get_global_id(0)
    if i < out.shape[0]:
        out[i] = a * x[i] + y[i]


@numba_ext.jit
def expression(x, y):  # arguments typed by Numba per call
    return np.sqrt(x) * y + np.exp(-x)


@dataclass
class Outcome:
    """One device's result: ``error`` is empty when every check passed."""

    device: numba_ext.Device
    error: str = ""
    timings: tuple[tuple[str, float, float], ...] = ()  # (what, compile + first run, warm run) in s

    @property
    def ok(self) -> bool:
        return not self.error


def tolerances(dtype: np.dtype) -> tuple[float, float]:
    """(rtol, atol) of the floating-point policy for results of magnitude about 1 to 10."""
    return (1e-5, 1e-6) if dtype == np.float32 else (1e-12, 1e-14)


def _timed(run: Callable[[], np.ndarray]) -> tuple[np.ndarray, float, float]:
    t0 = time.perf_counter()
    first = run()
    t1 = time.perf_counter()
    warm = run()
    t2 = time.perf_counter()
    np.testing.assert_array_equal(first, warm, err_msg="two runs of the same code differ")
    return warm, t1 - t0, t2 - t1


def _compare(what: str, got: np.ndarray, want: np.ndarray) -> None:
    rtol, atol = tolerances(want.dtype)
    if got.dtype != want.dtype or got.shape != want.shape:
        raise AssertionError(f"{what}: got {got.dtype}{got.shape}, NumPy gives {want.dtype}{want.shape}")
    bad = ~np.isclose(got, want, rtol=rtol, atol=atol)
    if bad.any():
        i = int(np.argmax(bad))
        raise AssertionError(
            f"{what}: {int(bad.sum())} of {got.size} values differ from NumPy "
            f"(at {i}: {got[i]!r}, NumPy {want[i]!r})"
        )


def check_device(dev: numba_ext.Device, rng: np.random.Generator) -> Outcome:
    """Run the checks on ``dev``; every failure (including a device numba_ext cannot use) is
    reported in the outcome, never raised."""
    outcome = Outcome(dev)
    try:
        dtype = np.dtype(np.float64 if dev.has_fp64 else np.float32)
        q = numba_ext.Queue(dev)
        hx, hy = (rng.uniform(0.0, 4.0, N).astype(dtype) for _ in range(2))
        x, y = (numba_ext.asarray(h, sycl_queue=q) for h in (hx, hy))
        out = numba_ext.empty(N, dtype=dtype, sycl_queue=q)
        a = dtype.type(2.5)

        def run_kernel() -> np.ndarray:
            axpy[numba_ext.Range(N)](a, x, y, out)
            return numba_ext.asnumpy(out)

        got, first, warm = _timed(run_kernel)
        _compare("kernel a * x + y", got, a * hx + hy)
        timings = [("kernel", first, warm)]
        got, first, warm = _timed(lambda: numba_ext.asnumpy(expression(x, y)))
        _compare("jit sqrt(x) * y + exp(-x)", got, np.sqrt(hx) * hy + np.exp(-hx))
        timings.append(("jit", first, warm))
        outcome.timings = tuple(timings)
    except Exception as e:  # any failure is the device's result: reported, not raised
        message = " ".join(line.strip() for line in str(e).splitlines() if line.strip())
        outcome.error = f"{type(e).__name__}: {message[:400]}"
    return outcome


def format_outcome(o: Outcome) -> str:
    head = f"{o.device.filter_string} {o.device.name}: "
    if not o.ok:
        return head + f"FAIL ({o.error})"
    times = ", ".join(
        f"{what} {c * 1e3:.0f} ms compile+first run, {r * 1e3:.2f} ms warm" for what, c, r in o.timings
    )
    return head + f"pass ({times})"


UNSUPPORTED = (
    "not checked: numba_ext cannot compile for it (its driver takes no SPIR-V and it is not NVIDIA's)"
)


def _default_problem(failed: set[str], unsupported: set[str]) -> str:
    """Why the default device cannot run numba_ext's code ("" when it can)."""
    try:
        default = numba_ext.default_queue().device.filter_string
    except numba_ext.errors.NumbaExtError as e:  # e.g. NUMBA_EXT_DEVICE names no listed device
        return f"{type(e).__name__}: {e}"
    if default in failed:
        return f"{default} failed above"
    return f"{default} is {UNSUPPORTED}" if default in unsupported else ""


def run() -> int:
    """Check every device numba_ext can compile for, print one line per device (the others are
    listed as not checked); 0 when all passed and the default device resolves to one that passed,
    else 1."""
    devs = numba_ext.get_devices()
    if not devs:
        print("check: FAIL (no OpenCL devices found)")
        return 1
    rng = np.random.default_rng()
    outcomes = [check_device(d, rng) for d in devs if d.target is not None]
    unsupported = [d for d in devs if d.target is None]
    print("check (a kernel and a jitted expression per device, compared with NumPy):")
    for o in outcomes:
        print("  " + format_outcome(o))
    for d in unsupported:
        print(f"  {d.filter_string} {d.name}: {UNSUPPORTED}")
    failed = [o for o in outcomes if not o.ok]
    problem = _default_problem(
        {o.device.filter_string for o in failed}, {d.filter_string for d in unsupported}
    )
    if problem:
        print(f"  default device: FAIL ({problem})")
    bad = bool(failed) or bool(problem) or not outcomes
    summary = f"{len(outcomes) - len(failed)} of {len(outcomes)} devices passed"
    if unsupported:
        summary += f", {len(unsupported)} not checked"
    print(f"check: {'FAIL' if bad else 'pass'} ({summary})")
    return 1 if bad else 0
