"""Import time of the package in fresh processes: ``import numba_ext`` (which leaves Numba unloaded
until first use), NumPy alone (a floor: the package needs it), and ``import numba_ext`` followed by
what the first jitted call loads (Numba and the compiler layer). Median of --runs processes each;
``python -X importtime``'s cumulative figure for ``numba_ext`` is printed too.

    python benchmarks/import_time.py [--runs 11]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys

CASES = {
    "numpy": "import numpy",
    "numba_ext": "import numba_ext",
    "numba_ext + Numba (first use)": "import numba_ext, numba_ext.compiler",
    "numba (reference)": "import numba",
}


def timed(code: str) -> float:
    prog = f"import time; t = time.perf_counter(); {code}; print(time.perf_counter() - t)"
    out = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def importtime_us() -> int:
    err = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import numba_ext"],
        capture_output=True,
        text=True,
        check=True,
    ).stderr
    line = [ln for ln in err.splitlines() if ln.rstrip().endswith("| numba_ext")][-1]
    return int(line.split("|")[1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=11)
    runs = ap.parse_args().runs
    timed("import numba_ext")  # warm the file-system cache and the .pyc files
    for name, code in CASES.items():
        ts = sorted(timed(code) for _ in range(runs))
        med = statistics.median(ts)
        print(f"{name:32s} median {med * 1e3:7.1f} ms  (min {ts[0] * 1e3:.1f}, max {ts[-1] * 1e3:.1f})")
    its = sorted(importtime_us() for _ in range(runs))
    med = statistics.median(its)
    print(f"{'-X importtime: numba_ext':32s} median {med / 1e3:7.1f} ms  (min {its[0] / 1e3:.1f})")


if __name__ == "__main__":
    main()
