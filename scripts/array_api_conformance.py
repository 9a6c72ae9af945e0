"""Run the Python array API standard's conformance suite (data-apis/array-api-tests) against the
namespace ``numba_ext`` on the default device and summarise the result by test.

    python scripts/array_api_conformance.py [--suite DIR] [--examples N] [--version 2024.12]
        [--workers 2] [--json OUT.json] [-- EXTRA PYTEST ARGS]

The suite is not part of this repository: give its checkout with ``--suite`` or
``ARRAY_API_TESTS_DIR`` (default ``../shared/array-api-tests`` next to the repository). It needs
``pytest hypothesis ndindex pytest-json-report`` (and ``pytest-xdist`` for ``--workers``). The
hypothesis deadline is off (a test's first call compiles its kernels); both extensions (linalg,
fft) are tested. Prints the passed / failed / skipped counts and, for each failing test,
how many of its cases failed and the first message; exits with pytest's status.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_suite = os.environ.get("ARRAY_API_TESTS_DIR", str(ROOT.parent / "shared" / "array-api-tests"))
    p.add_argument("--suite", default=default_suite, help="the array-api-tests checkout")
    p.add_argument("--examples", type=int, default=20, help="hypothesis examples per test (default 20)")
    p.add_argument("--version", default="2024.12", help="the standard's revision (default 2024.12)")
    p.add_argument("--workers", type=int, default=2, help="pytest-xdist workers (0: none)")
    p.add_argument("--json", help="also keep pytest-json-report's report here")
    p.add_argument("extra", nargs="*", help="more pytest arguments (after --)")
    args = p.parse_args()
    suite = Path(args.suite)
    if not (suite / "array_api_tests").is_dir():
        print(f"no array-api-tests checkout at {suite}; pass --suite DIR or set ARRAY_API_TESTS_DIR")
        return 2
    report = Path(args.json) if args.json else Path(tempfile.mkdtemp()) / "report.json"
    env = dict(os.environ, ARRAY_API_TESTS_MODULE="numba_ext", ARRAY_API_TESTS_VERSION=args.version)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        f"--max-examples={args.examples}",
        "--hypothesis-disable-deadline",
        "--json-report",
        f"--json-report-file={report}",
        *(["-n", str(args.workers)] if args.workers else []),
        *args.extra,
        "array_api_tests",
    ]
    print("$ (cd", suite, "&&", " ".join(cmd), ")", flush=True)
    status = subprocess.run(cmd, cwd=suite, env=env, stdout=subprocess.DEVNULL, check=False).returncode
    data = json.loads(report.read_text())
    summary = data["summary"]
    print(
        f"passed {summary.get('passed', 0)}, failed {summary.get('failed', 0)}, "
        f"skipped {summary.get('skipped', 0)}, in {data['duration']:.0f} s"
    )
    counts: collections.Counter[str] = collections.Counter()
    first: dict[str, str] = {}
    for test in data["tests"]:
        if test["outcome"] != "failed":
            continue
        name = re.sub(r"\[.*", "", test["nodeid"]).removeprefix("array_api_tests/")
        counts[name] += 1
        crash = (test.get("call") or test.get("setup") or {}).get("crash") or {}
        first.setdefault(name, " ".join(str(crash.get("message", "")).split())[:160])
    for name, n in counts.most_common():
        print(f"{n:4d}  {name}: {first[name]}")
    return status


if __name__ == "__main__":
    sys.exit(main())
