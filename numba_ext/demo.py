"""``python -m numba_ext.demo``: the main job. Runs a fused array expression (Black-Scholes call
price) on the default device, shows where it ran and checks it against NumPy."""

from __future__ import annotations

import math
import time

import numpy as np

import numba_ext


def reference(price, strike, t, rate, vol):
    sig_sqrt_t = vol * np.sqrt(t)
    d1 = (np.log(price / strike) + (rate + 0.5 * vol * vol) * t) / sig_sqrt_t
    d2 = d1 - sig_sqrt_t
    nd1 = 0.5 + 0.5 * np.tanh(0.7978845608 * (d1 + 0.044715 * d1 * d1 * d1))
    nd2 = 0.5 + 0.5 * np.tanh(0.7978845608 * (d2 + 0.044715 * d2 * d2 * d2))
    return price * nd1 - strike * np.exp(-rate * t) * nd2


# one fused kernel: every temporary stays in registers
black_scholes_call = numba_ext.jit(reference)


def main(n: int = 1 << 22) -> None:
    rng = np.random.default_rng()
    host = [rng.uniform(10, 50, n), rng.uniform(10, 50, n), rng.uniform(0.1, 2.0, n)]
    q = numba_ext.default_queue()
    print(f"default device : {q.device.name} [{q.device.filter_string}], target {q.device.target}")
    args = [numba_ext.asarray(h, sycl_queue=q) for h in host]
    rate, vol = 0.02, 0.3

    t0 = time.perf_counter()
    out = black_scholes_call(*args, rate, vol)
    first = time.perf_counter() - t0
    print(f"inferred queue : {out.sycl_queue!r} (same as the inputs': {out.sycl_queue == q})")
    kernels = black_scholes_call.inspect_kernels(*args, rate, vol)
    print(f"kernels        : {len(kernels)} fused kernel(s) {[k.name for k in kernels]}")

    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        out = black_scholes_call(*args, rate, vol)
        times.append(time.perf_counter() - t0)
    t0 = time.perf_counter()
    ref = reference(host[0], host[1], host[2], rate, vol)
    t_np = time.perf_counter() - t0

    got = numba_ext.asnumpy(out)
    err = float(np.max(np.abs(got - ref) / (np.abs(ref) + 1e-12)))
    ok = bool(np.allclose(got, ref, rtol=1e-9, atol=1e-9))
    print(
        f"result         : {out.shape} {out.dtype} usm_type={out.usm_type}, max rel. error vs NumPy {err:.2e}"
        f" -> {'OK' if ok else 'MISMATCH'}"
    )
    print(
        f"time           : first call {first * 1e3:.1f} ms (includes compilation), "
        f"then median {sorted(times)[len(times) // 2] * 1e3:.2f} ms; NumPy {t_np * 1e3:.1f} ms"
    )
    if not ok or not math.isfinite(err):
        raise SystemExit("demo result does not match NumPy")


if __name__ == "__main__":
    main()
