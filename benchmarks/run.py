"""Run the benchmark suite: ``python benchmarks/run.py --preset S [--workloads a,b] [--reps 7]``.

Prints a table, writes ``benchmarks/out/<timestamp>.json`` and exits with status 1 if any variant
FAILED validation or raised an error (variants marked n/a do not count).
"""

from __future__ import annotations

import argparse
import faulthandler
import itertools
import sys
import time

import harness
import workloads


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--preset", choices=harness.PRESETS, default="S", help="problem sizes (default S)")
    p.add_argument("--workloads", default=",".join(workloads.NAMES),
                   help=f"comma-separated subset of: {','.join(workloads.NAMES)}")
    p.add_argument("--reps", type=int, default=7, help="timed samples per variant (default 7)")
    p.add_argument("--warmup", type=int, default=1, help="untimed calls after the first call (default 1)")
    p.add_argument("--seed", type=int, default=777, help="input generator seed (default 777)")
    p.add_argument("--markdown", action="store_true", help="also print the table as Markdown")
    args = p.parse_args(argv)
    faulthandler.enable()  # a native crash in a variant still names the Python frame
    if args.reps < 1:
        p.error("--reps must be at least 1")
    names = [n.strip() for n in args.workloads.split(",") if n.strip()]
    try:
        modules = {n: workloads.load(n) for n in names}
    except KeyError as e:
        p.error(str(e.args[0]))

    meta = harness.environment()
    meta.update(preset=args.preset, reps=args.reps, warmup=args.warmup, seed=args.seed, workloads=names)
    m = meta["machine"]
    print(f"device {meta['device']['name']} [{meta['device']['filter_string']}], "
          f"numba_ext {meta['versions']['numba_ext']}, numba {meta['versions']['numba']}, "
          f"numpy {meta['versions']['numpy']}; {m['cpu_count']} CPUs, numba threads {m['numba_threads']}, "
          f"load average {m['loadavg_start'][0]:.2f} (other work on the machine affects timings)", flush=True)

    records, start = [], time.perf_counter()
    total, counter = sum(len(mod.VARIANTS) for mod in modules.values()), itertools.count(1)

    def progress(rec):
        what = harness.fmt_ms(rec.get("median_ms")) + " ms" if rec["status"] == "ok" else rec["status"]
        print(f"[{next(counter):>2}/{total}] {rec['workload']} {rec['variant']}: {what}",
              file=sys.stderr, flush=True)

    for name, mod in modules.items():
        records += harness.run_workload(name, mod, args.preset, reps=args.reps, warmup=args.warmup,
                                        seed=args.seed, progress=progress)
    harness.finish_environment(meta)
    meta["elapsed_s"] = time.perf_counter() - start

    print()
    print(harness.table(records))
    if args.markdown:
        print()
        print(harness.markdown_table(records))
    for r in records:
        if r["note"]:
            print(f"note: {r['workload']}/{r['variant']}: {r['note']}")
    path = harness.write_json(meta, records)
    bad = [r for r in records if r["status"] in ("FAILED", "ERROR")]
    print(f"\n{len(records)} rows in {meta['elapsed_s']:.1f} s; JSON: {path}")
    if bad:
        print(f"{len(bad)} variant(s) FAILED or raised: "
              + ", ".join(f"{r['workload']}/{r['variant']}" for r in bad), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
