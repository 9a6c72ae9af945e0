"""Time of the first call of a small ``@numba_ext.jit`` function (a Black-Scholes-like expression) in
fresh processes: Numba typing + our graph + LLVM + SPIR-V emission + the driver's program build.

    python benchmarks/first_call.py [runs]

Each run is a new interpreter (spawned, never forked); prints the per-run times and their median.
"""

from __future__ import annotations

import statistics
import subprocess
import sys

CHILD = r"""
import time, warnings
warnings.simplefilter("error")
import numpy as np
import numba_ext

@numba_ext.jit
def bs(price, strike, t, rate, vol):
    sig_sqrt_t = vol * np.sqrt(t)
    d1 = (np.log(price / strike) + (rate + 0.5 * vol * vol) * t) / sig_sqrt_t
    d2 = d1 - sig_sqrt_t
    nd1 = 0.5 + 0.5 * np.tanh(0.7978845608 * (d1 + 0.044715 * d1 * d1 * d1))
    nd2 = 0.5 + 0.5 * np.tanh(0.7978845608 * (d2 + 0.044715 * d2 * d2 * d2))
    return price * nd1 - strike * np.exp(-rate * t) * nd2

rng = np.random.default_rng(0)
args = [numba_ext.asarray(rng.uniform(10, 50, 1024)) for _ in range(2)] + [numba_ext.asarray(rng.uniform(0.1, 2, 1024))]
numba_ext.asnumpy(args[0])  # the queue and context exist before timing
t0 = time.perf_counter()
out = bs(*args, 0.02, 0.3)
numba_ext.asnumpy(out)
first = time.perf_counter() - t0
t0 = time.perf_counter()
out = bs(*args, 0.02, 0.3)
numba_ext.asnumpy(out)
print(f"{first * 1e3:.1f} {(time.perf_counter() - t0) * 1e3:.2f}")
"""


def main(runs: int = 7) -> None:
    firsts = []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, check=False)
        if out.returncode != 0 or out.stderr.strip():
            raise SystemExit(f"child failed ({out.returncode}):\n{out.stdout}\n{out.stderr}")
        first, second = map(float, out.stdout.split())
        firsts.append(first)
        print(f"first call {first:8.1f} ms   second call {second:6.2f} ms", flush=True)
    print(f"median first call over {runs} fresh processes: {statistics.median(firsts):.1f} ms")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 7)
