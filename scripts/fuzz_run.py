"""Long fuzzing run: many cases of the families in tests/fuzz (the generators the tests draw from
with hypothesis, here from a seeded random source), run in one child process that is restarted
after a crash or a hang. Prints the counts per family and outcome (correct, clean error, crash,
hang, wrong, raw internal error) and writes every case that did not end correct or in a clean
error to a JSON file, which ``--replay`` runs again.

    python scripts/fuzz_run.py --cases 100000 --seed 1
    python scripts/fuzz_run.py --cases 2000 --families eager,jit --profile quick
    python scripts/fuzz_run.py --replay fuzz_failures.json
"""

from __future__ import annotations

import argparse
import json
import random
import signal
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fuzz.choosers import RandomChooser
from tests.fuzz.classify import GOOD, OUTCOMES
from tests.fuzz.families import FAMILIES
from tests.fuzz.harness import Worker

#: the share of each family in a run: the compiling families cost far more per case
DEFAULT_WEIGHTS = {
    "selectors": 20,
    "interfaces": 25,
    "creation": 25,
    "launches": 20,
    "eager": 8,
    "jit": 2,
    "linalg": 5,
}


def parse_families(spec: str | None) -> dict[str, float]:
    """``name[:weight],...`` (default: all families with DEFAULT_WEIGHTS)."""
    if not spec:
        return dict(DEFAULT_WEIGHTS)
    out = {}
    for item in spec.split(","):
        name, _, w = item.partition(":")
        if name not in FAMILIES:
            raise SystemExit(f"unknown family {name!r}; the families are {', '.join(FAMILIES)}")
        out[name] = float(w) if w else float(DEFAULT_WEIGHTS[name])
    return out


def table(counts: dict[str, dict[str, int]]) -> str:
    cols = ["family", *OUTCOMES, "total"]
    rows = [[f, *(str(c.get(o, 0)) for o in OUTCOMES), str(sum(c.values()))] for f, c in counts.items()]
    totals = {o: sum(c.get(o, 0) for c in counts.values()) for o in OUTCOMES}
    rows.append(["all", *(str(totals[o]) for o in OUTCOMES), str(sum(totals.values()))])
    widths = [max(len(r[i]) for r in [cols, *rows]) for i in range(len(cols))]
    line = lambda r: "| " + " | ".join(v.rjust(w) for v, w in zip(r, widths)) + " |"
    sep = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return "\n".join([line(cols), sep, *(line(r) for r in rows)])


def save(
    path: Path, args: argparse.Namespace, counts: Any, failures: list, done: int, elapsed: float
) -> None:
    summary = {"seed": args.seed, "profile": args.profile, "cases": done, "seconds": round(elapsed, 1)}
    path.write_text(json.dumps({"summary": summary, "counts": counts, "failures": failures}, indent=1))


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt  # SIGTERM (and SIGINT, which background jobs ignore) end the run cleanly


def run(args: argparse.Namespace) -> int:
    signal.signal(signal.SIGTERM, _interrupt)
    weights = parse_families(args.families)
    names, w = list(weights), list(weights.values())
    counts: dict[str, dict[str, int]] = {n: {} for n in names}
    failures: list[dict[str, Any]] = []
    worker = Worker()
    start = time.monotonic()
    done = 0
    out = Path(args.failures)
    try:
        for i in range(args.cases):
            rng = random.Random(f"{args.seed}:{i}")  # case i is reproducible on its own
            family = rng.choices(names, w)[0]
            case = FAMILIES[family].generate(RandomChooser(rng), args.profile)
            verdict = worker.run(family, case, FAMILIES[family].timeout)
            outcome = verdict["outcome"]
            counts[family][outcome] = counts[family].get(outcome, 0) + 1
            if outcome not in GOOD:
                failures.append(
                    {
                        "index": i,
                        "family": family,
                        "outcome": outcome,
                        "case": case,
                        "detail": verdict["detail"][:3000],
                    }
                )
            done += 1
            if done % args.progress == 0:
                rate = done / (time.monotonic() - start)
                print(f"{done} cases, {rate:.1f}/s, {len(failures)} failures", file=sys.stderr, flush=True)
                save(out, args, counts, failures, done, time.monotonic() - start)
            if args.time_limit and time.monotonic() - start > args.time_limit:
                print(f"time limit reached after {done} cases", file=sys.stderr)
                break
    except KeyboardInterrupt:
        print(f"interrupted after {done} cases", file=sys.stderr)
    finally:
        worker.close()
    elapsed = time.monotonic() - start
    save(out, args, counts, failures, done, elapsed)
    print(
        f"{done} cases in {elapsed:.0f} s (seed {args.seed}, profile {args.profile}, "
        f"{worker.starts} child processes); failing cases in {out}"
    )
    print(table(counts))
    return 1 if failures else 0


def replay(path: str) -> int:
    data = json.loads(Path(path).read_text())
    worker = Worker()
    bad = 0
    try:
        for f in data["failures"] if isinstance(data, dict) else data:
            verdict = worker.run(f["family"], f["case"], FAMILIES[f["family"]].timeout)
            bad += verdict["outcome"] not in GOOD
            print(
                f"{f['family']} #{f.get('index')}: {verdict['outcome']} (was {f.get('outcome')}): "
                f"{verdict['detail'][:300]}"
            )
    finally:
        worker.close()
    return 1 if bad else 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cases", type=int, default=100_000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--families", help="name[:weight],... (default: all, weighted)")
    p.add_argument("--profile", choices=["full", "quick"], default="full")
    p.add_argument("--failures", default="fuzz_failures.json", help="JSON file of the failing cases")
    p.add_argument("--time-limit", type=float, default=0, help="stop after this many seconds")
    p.add_argument("--progress", type=int, default=1000, help="report every this many cases")
    p.add_argument("--replay", help="run the cases of a failures file again")
    args = p.parse_args()
    return replay(args.replay) if args.replay else run(args)


if __name__ == "__main__":
    sys.exit(main())
