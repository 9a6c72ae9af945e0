"""Run the benchmark suite: ``python benchmarks/run.py --preset S [--workloads a,b] [--reps 7]``.

Prints a progress bar, the table and the goals, writes ``benchmarks/out/<timestamp>.json`` (or into
``$BENCH_OUT_DIR``) and exits with status 1 if any variant FAILED validation or raised an error
(variants marked n/a do not count).
"""

from __future__ import annotations

import argparse
import faulthandler
import os
import sys
from pathlib import Path

import harness
import workloads


def _size(text: str) -> dict:
    out = {}
    for item in filter(None, text.split(",")):
        key, _, value = item.partition("=")
        if not value:
            raise argparse.ArgumentTypeError(f"--size wants KEY=VALUE[,KEY=VALUE], got {item!r}")
        out[key.strip()] = int(value)
    return out


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--preset", choices=harness.PRESETS, default="S", help="problem sizes (default S)")
    p.add_argument(
        "--workloads",
        default=",".join(workloads.NAMES),
        help=f"comma-separated subset of: {','.join(workloads.NAMES)}; or a group: "
        + "; ".join(f"{g} = {','.join(m)}" for g, m in workloads.GROUPS.items() if g != "all"),
    )
    p.add_argument(
        "--variants",
        default=None,
        help="comma-separated variant names to run (default all), e.g. "
        "numpy,numba_parallel,numba_ext_jit; groups: gpu (numpy and every numba_ext, CuPy "
        "and numba-cuda variant), cuda (numpy, CuPy, numba-cuda)",
    )
    p.add_argument(
        "--device",
        default=None,
        help="numba_ext device selector for this run (sets NUMBA_EXT_DEVICE, e.g. gpu, "
        "opencl:cpu:0); default: NUMBA_EXT_DEVICE as set, else numba_ext's default device",
    )
    p.add_argument(
        "--size",
        type=_size,
        default=None,
        help="override size keys of the preset, e.g. --size n=4194304 (the Black-Scholes goal size)",
    )
    p.add_argument("--reps", type=int, default=7, help="timed samples per variant (default 7)")
    p.add_argument("--warmup", type=int, default=1, help="untimed samples after the first call (default 1)")
    p.add_argument("--seed", type=int, default=777, help="input generator seed (default 777)")
    p.add_argument("--markdown", action="store_true", help="also print the table and goals as Markdown")
    p.add_argument(
        "--json",
        type=Path,
        default=None,
        help="write the results here (default: <out>/<timestamp>.json, "
        "out = $BENCH_OUT_DIR or benchmarks/out)",
    )
    return p


def _selection(p: argparse.ArgumentParser, args) -> tuple[list[str], set[str] | None]:
    """The workloads and variants to run (errors through ``p``); sets NUMBA_EXT_DEVICE for --device."""
    if args.reps < 1:
        p.error("--reps must be at least 1")
    names = workloads.expand(n.strip() for n in args.workloads.split(",") if n.strip())
    for n in names:
        if n not in workloads.NAMES:
            p.error(
                f"unknown workload {n!r}; available: {', '.join(workloads.NAMES)} "
                f"(groups: {', '.join(workloads.GROUPS)})"
            )
    variants = {v.strip() for v in args.variants.split(",") if v.strip()} if args.variants else None
    if args.device is not None:
        # read by numba_ext.default_queue() at every call: the inputs of the numba_ext variants go there
        os.environ["NUMBA_EXT_DEVICE"] = args.device
    if variants:
        known = {v.name for n in names for v in workloads.load(n).VARIANTS} | set(harness.VARIANT_GROUPS)
        unknown = sorted(variants - known)
        if unknown:
            p.error(
                f"no variant {', '.join(map(repr, unknown))} in {', '.join(names)}; "
                f"available: {', '.join(sorted(known))}"
            )
    return names, variants


def _print_environment() -> None:
    env = harness.environment()
    m = env["machine"]
    sel = env["device"].get("selector")
    print(
        f"device {env['device']['name']} [{env['device']['filter_string']}]"
        f"{f' (NUMBA_EXT_DEVICE={sel})' if sel is not None else ''}, "
        f"numba_ext {env['versions']['numba_ext']}, numba {env['versions']['numba']}, "
        f"numpy {env['versions']['numpy']}; {m['cpu_count']} CPUs, numba threads {m['numba_threads']}, "
        f"load average {m['loadavg_start'][0]:.2f} (other work on the machine affects timings)",
        flush=True,
    )


def _print_results(meta: dict, records: list[dict], markdown: bool) -> None:
    """The table, the notes, the backends used and the goals (also as Markdown with ``markdown``)."""
    print()
    print(harness.table(records))
    if markdown:
        print()
        print(harness.markdown_table(records))
    for r in records:
        if r["note"] and r["status"] != "n/a":
            print(f"note: {r['workload']}/{r['variant']}: {r['note']}")
    for name, b in meta["backends"].items():
        if b.get("available"):
            print(f"backend {name}: " + ", ".join(f"{k} {v}" for k, v in b.items() if k != "available"))
    print("\ngoals:")
    print(harness.goals_text(meta["goals"]))
    if markdown:
        print()
        print(harness.goals_markdown(meta["goals"]))


def _write_json(meta: dict, records: list[dict], path: Path | None) -> Path:
    if path:
        path.parent.mkdir(parents=True, exist_ok=True)
        return harness.write_json(meta, records, path=path)
    return harness.write_json(meta, records)


def main(argv=None) -> int:
    p = _parser()
    args = p.parse_args(argv)
    faulthandler.enable()  # a native crash in a variant still names the Python frame
    names, variants = _selection(p, args)
    _print_environment()
    meta, records = harness.run_suite(
        args.preset,
        names,
        reps=args.reps,
        warmup=args.warmup,
        seed=args.seed,
        size=args.size,
        variants=variants,
    )
    _print_results(meta, records, args.markdown)
    path = _write_json(meta, records, args.json)
    bad = [r for r in records if r["status"] in ("FAILED", "ERROR")]
    print(f"\n{len(records)} rows in {meta['elapsed_s']:.1f} s; JSON: {path}")
    if bad:
        print(
            f"{len(bad)} variant(s) FAILED or raised: "
            + ", ".join(f"{r['workload']}/{r['variant']}" for r in bad),
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
