"""PNG charts from a results JSON: ``python benchmarks/plot.py [benchmarks/out/<timestamp>.json]``.

Writes next to the JSON (or into ``--out``):

* ``<stem>_time.png``: median time per call of every variant that ran, min-max bars, log scale;
* ``<stem>_speedup.png``: speed-up over NumPy (NumPy's median over the variant's);
* ``<stem>_bandwidth.png``: STREAM triad and copy bandwidth (GB/s from the median) per variant, with
  the measured copy bandwidths as lines: the device's (the best numba_ext copy variant of
  ``stream_copy``, named in the legend), the CUDA copy's where CuPy or numba-cuda ran (the best of
  their ``stream_copy`` variants, e.g. ``cupy_memcpy``, a device-to-device ``cudaMemcpyAsync``) and the
  host's (NumPy's ``np.copy``). Needs ``stream_triad`` or ``stream_copy`` in the run.

Uses the newest JSON in benchmarks/out/ (or ``$BENCH_OUT_DIR``) when none is given. Without
matplotlib it prints a message and does nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import harness

BANDWIDTH_WORKLOADS = ("stream_triad", "stream_copy")


def _grouped_bars(ax, workloads, variants, colors, value, err=None):
    """Bars per workload, one per variant that has a value there (packed, so groups stay compact)."""
    done = set()
    for j, (_, rows) in enumerate(workloads):
        present = [v for v in variants if v in rows and value(rows[v]) is not None]
        width = 0.8 / max(1, len(present))
        for i, v in enumerate(present):
            r = rows[v]
            y = value(r)
            yerr = [[y - err(r)[0]], [err(r)[1] - y]] if err else None
            ax.bar(
                j + (i - (len(present) - 1) / 2) * width,
                y,
                width,
                color=colors[v],
                yerr=yerr,
                capsize=2,
                label=None if v in done else v,
            )
            done.add(v)
    ax.set_xticks(range(len(workloads)))
    ax.set_xticklabels([w for w, _ in workloads], rotation=30, ha="right")
    _legend(ax)


def _legend(ax):
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)


def _by_workload(results):
    workloads = []
    for r in results:
        if not workloads or workloads[-1][0] != r["workload"]:
            workloads.append((r["workload"], {}))
        workloads[-1][1][r["variant"]] = r
    return workloads


def copy_bandwidths(results) -> dict:
    """The measured copy bandwidths (GB/s, from the median) the bandwidth chart draws as lines."""
    copies = [r for r in results if r["workload"] == "stream_copy" and r.get("gbps")]
    out = {}
    device = [r for r in copies if r.get("backend") == "numba_ext"]
    if device:
        best = max(device, key=lambda r: r["gbps"])
        out["device"] = (best["variant"], best["gbps"])
    cuda = [r for r in copies if r.get("backend") in ("cupy", "numba_cuda")]
    if cuda:
        best = max(cuda, key=lambda r: r["gbps"])
        out["cuda"] = (best["variant"], best["gbps"])
    host = [r for r in copies if r["variant"] == "numpy"]
    if host:
        out["host"] = ("numpy", host[0]["gbps"])
    return out


def plot_records(meta: dict, records: list[dict], out_dir: Path, stem: str) -> list[Path]:
    """The PNGs for one run; returns their paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    results = [r for r in records if r["status"] == "ok"]
    variants = list(dict.fromkeys(r["variant"] for r in results))
    cmap = plt.get_cmap("tab20")
    colors = {v: cmap(i % 20) for i, v in enumerate(variants)}  # same colour for a variant in every chart
    workloads = _by_workload(results)
    title = f"preset {meta['preset']}, {meta['device']['name']}, {meta['date']} (n/a variants omitted)"
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = [
        _time_chart(plt, workloads, variants, colors, title, out_dir / f"{stem}_time.png"),
        _speedup_chart(plt, workloads, variants, colors, title, out_dir / f"{stem}_speedup.png"),
    ]
    bw = [(w, rows) for w, rows in workloads if w in BANDWIDTH_WORKLOADS]
    if bw:
        path = out_dir / f"{stem}_bandwidth.png"
        written.append(_bandwidth_chart(plt, bw, results, variants, colors, title, path))
    plt.close("all")
    return written


def _save(fig, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return path


def _time_chart(plt, workloads, variants, colors, title, path: Path) -> Path:
    """Median time per call of every variant, min-max bars, log scale."""
    fig, ax = plt.subplots(figsize=(13, 5.5))
    _grouped_bars(
        ax, workloads, variants, colors, lambda r: r["median_ms"], err=lambda r: (r["min_ms"], r["max_ms"])
    )
    ax.set_yscale("log")
    ax.set_ylabel("median time per call [ms] (min-max)")
    ax.set_title(f"Time per variant: {title}", fontsize="medium")
    return _save(fig, path)


def _speedup_chart(plt, workloads, variants, colors, title, path: Path) -> Path:
    """Speed-up over NumPy of every other variant, log scale, with the line at 1."""
    fig, ax = plt.subplots(figsize=(13, 5.5))
    speed = [(w, rows) for w, rows in workloads if any(r.get("speedup_vs_numpy") for r in rows.values())]
    others = [v for v in variants if v != "numpy"]
    _grouped_bars(ax, speed, others, colors, lambda r: r.get("speedup_vs_numpy"))
    ax.set_yscale("log")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_ylabel("speed-up over NumPy (median)")
    ax.set_title(f"Speed-up over NumPy: {title}", fontsize="medium")
    return _save(fig, path)


# The lines of the bandwidth chart: key of copy_bandwidths, colour, line style, width and label.
COPY_LINES = (
    ("device", "black", "--", 1, "device copy bandwidth: {g:.3g} GB/s (stream_copy {v})"),
    ("cuda", "tab:green", "-.", 1, "CUDA copy bandwidth: {g:.3g} GB/s (stream_copy {v})"),
    ("host", "grey", ":", 1.2, "host copy bandwidth: {g:.3g} GB/s (stream_copy numpy np.copy)"),
)


def _bandwidth_chart(plt, bw, results, variants, colors, title, path: Path) -> Path:
    """GB/s of the STREAM workloads per variant, with the measured copy bandwidths as lines."""
    fig, ax = plt.subplots(figsize=(12, 5.5))
    bw_variants = [v for v in variants if any(v in rows and rows[v].get("gbps") for _, rows in bw)]
    _grouped_bars(ax, bw, bw_variants, colors, lambda r: r.get("gbps"))
    lines = copy_bandwidths(results)
    for key, color, style, width, label in COPY_LINES:
        if key in lines:
            v, g = lines[key]
            ax.axhline(g, color=color, linestyle=style, linewidth=width, label=label.format(g=g, v=v))
    _legend(ax)
    ax.set_ylabel("GB/s (bytes read + written per call / median time)")
    sizes = ", ".join(f"{w} {next(iter(rows.values()))['size']}" for w, rows in bw)
    ax.set_title(f"Bandwidth against the measured copy bandwidth ({sizes}):\n{title}", fontsize="medium")
    return _save(fig, path)


def plot(path: Path, out_dir: Path | None = None) -> list[Path]:
    data = json.loads(Path(path).read_text())
    return plot_records(data["meta"], data["results"], Path(out_dir or Path(path).parent), Path(path).stem)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("json", nargs="?", type=Path, help="results file (default: newest in benchmarks/out/)")
    p.add_argument("--out", type=Path, help="folder for the PNGs (default: next to the JSON)")
    args = p.parse_args(argv)
    path = args.json or harness.newest_json()
    if path is None:
        p.error(f"no JSON given and none in {harness.OUT_DIR}; run benchmarks/run.py first")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("matplotlib is not installed: skipping the plots (pip install matplotlib to get them)")
        return 0
    for f in plot(path, args.out):
        print(f"wrote {f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
