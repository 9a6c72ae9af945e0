"""Results on disk (JSON) and on screen: the table as text and as Markdown."""

from __future__ import annotations

import datetime
import json
import os
from pathlib import Path

OUT_DIR = Path(os.environ.get("BENCH_OUT_DIR") or Path(__file__).resolve().parents[1] / "out")


def write_json(
    meta: dict, records: list[dict], out_dir: Path | None = None, path: Path | None = None
) -> Path:
    """Write ``{"meta", "results"}`` to ``path``, or to a new ``<out_dir>/<timestamp>.json``."""
    if path is None:
        out_dir = Path(out_dir or OUT_DIR)
        out_dir.mkdir(parents=True, exist_ok=True)
        stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
        path = out_dir / f"{stamp}.json"
        n = 1
        while path.exists():
            path, n = out_dir / f"{stamp}-{n}.json", n + 1
    path = Path(path)
    path.write_text(json.dumps({"meta": meta, "results": records}, indent=1, allow_nan=True) + "\n")
    return path


def newest_json(out_dir: Path | None = None) -> Path | None:
    return max(Path(out_dir or OUT_DIR).glob("*.json"), key=lambda f: f.stat().st_mtime, default=None)


def load_json(path: Path) -> tuple[dict, list[dict]]:
    data = json.loads(Path(path).read_text())
    return data["meta"], data["results"]


def fmt_ms(x) -> str:
    return "-" if x is None else f"{x:.4g}"


def _speedup(x) -> str:
    return "-" if x is None else f"{x:.2f}x" if x >= 0.1 else f"{x:.2g}x"


def status_text(r: dict) -> str:
    if r["status"] == "ok":
        return f"ok ({r['validation']['error']:.1e})"
    if r["status"] == "n/a":
        return r["reason"]
    return f"{r['status']}: {r['reason']}"


HEADER = (
    "workload",
    "size",
    "variant",
    "median ms",
    "min ms",
    "max ms",
    "first call ms",
    "transfer ms",
    "vs NumPy",
    "GB/s",
    "validation",
)


def _row(r: dict) -> tuple:
    gbps = f"{r['gbps']:.3g}" if r.get("gbps") else "-"
    return (
        r["workload"],
        r["size"],
        r["variant"],
        fmt_ms(r.get("median_ms")),
        fmt_ms(r.get("min_ms")),
        fmt_ms(r.get("max_ms")),
        fmt_ms(r.get("first_call_ms")),
        fmt_ms(r.get("transfer_ms")),
        _speedup(r.get("speedup_vs_numpy")),
        gbps,
        status_text(r),
    )


def table(records: list[dict]) -> str:
    rows = [HEADER, *map(_row, records)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(HEADER) - 1)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)) + "  " + row[-1] for row in rows]
    lines.insert(1, "-" * len(lines[0]))
    return "\n".join(lines)


def markdown_table(records: list[dict]) -> str:
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(_row(r)) + " |" for r in records]
    return "\n".join(lines)
