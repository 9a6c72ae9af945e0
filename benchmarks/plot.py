"""PNG charts from a results JSON: ``python benchmarks/plot.py [benchmarks/out/<timestamp>.json]``.

Writes ``<stem>_time.png`` (median time per variant, min-max bars, log scale) and
``<stem>_speedup.png`` (speed-up over NumPy) next to the JSON (or into ``--out``). Uses the newest
JSON in benchmarks/out/ when none is given. Without matplotlib it prints a message and does nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

OUT_DIR = Path(__file__).resolve().parent / "out"


def _grouped_bars(ax, workloads, variants, colors, value, err=None):
    width = 0.8 / max(1, len(variants))
    for i, v in enumerate(variants):
        xs, ys, lo, hi = [], [], [], []
        for j, (_, rows) in enumerate(workloads):
            r = rows.get(v)
            if r is None or value(r) is None:
                continue
            xs.append(j + (i - (len(variants) - 1) / 2) * width)
            ys.append(value(r))
            if err:
                lo.append(value(r) - err(r)[0])
                hi.append(err(r)[1] - value(r))
        if xs:
            ax.bar(xs, ys, width, label=v, color=colors[v], yerr=[lo, hi] if err else None, capsize=2)
    ax.set_xticks(range(len(workloads)))
    ax.set_xticklabels([w for w, _ in workloads], rotation=30, ha="right")
    ax.legend(fontsize="small")


def plot(path: Path, out_dir: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    data = json.loads(path.read_text())
    meta, results = data["meta"], [r for r in data["results"] if r["status"] == "ok"]
    variants = list(dict.fromkeys(r["variant"] for r in results))
    colors = {v: f"C{i}" for i, v in enumerate(variants)}  # same colour for a variant in both charts
    workloads = []
    for r in results:
        if not workloads or workloads[-1][0] != r["workload"]:
            workloads.append((r["workload"], {}))
        workloads[-1][1][r["variant"]] = r
    title = f"preset {meta['preset']}, {meta['device']['name']}, {meta['date']} (n/a variants omitted)"
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []

    fig, ax = plt.subplots(figsize=(11, 5))
    _grouped_bars(ax, workloads, variants, colors, lambda r: r["median_ms"],
                  err=lambda r: (r["min_ms"], r["max_ms"]))
    ax.set_yscale("log")
    ax.set_ylabel("median time per call [ms] (min-max)")
    ax.set_title(f"Time per variant: {title}")
    fig.tight_layout()
    written.append(out_dir / f"{path.stem}_time.png")
    fig.savefig(written[-1], dpi=120)

    fig, ax = plt.subplots(figsize=(11, 5))
    others = [v for v in variants if v != "numpy"]
    _grouped_bars(ax, workloads, others, colors, lambda r: r.get("speedup_vs_numpy"))
    ax.set_yscale("log")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_ylabel("speed-up over NumPy (median)")
    ax.set_title(f"Speed-up over NumPy: {title}")
    fig.tight_layout()
    written.append(out_dir / f"{path.stem}_speedup.png")
    fig.savefig(written[-1], dpi=120)
    plt.close("all")
    return written


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("json", nargs="?", type=Path, help="results file (default: newest in benchmarks/out/)")
    p.add_argument("--out", type=Path, help="folder for the PNGs (default: next to the JSON)")
    args = p.parse_args(argv)
    path = args.json or max(OUT_DIR.glob("*.json"), key=lambda f: f.stat().st_mtime, default=None)
    if path is None:
        p.error(f"no JSON given and none in {OUT_DIR}; run benchmarks/run.py first")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("matplotlib is not installed: skipping the plots (pip install matplotlib to get them)")
        return 0
    for f in plot(path, args.out or path.parent):
        print(f"wrote {f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
