"""What a run records about itself: date, device, versions, machine, command and git state, and at the
end the load, the threading layer and the backends that were used."""

from __future__ import annotations

import datetime
import os
import platform
import subprocess
import sys
from pathlib import Path

import numpy as np

from .backends import BACKENDS, Missing, nx


def environment() -> dict:
    import numba

    now = datetime.datetime.now().astimezone()
    try:
        affinity = len(os.sched_getaffinity(0))
    except AttributeError:
        affinity = None
    if isinstance(nx, Missing):
        device = {"name": f"numba_ext not importable ({nx.reason})", "filter_string": None}
    else:
        try:
            info = BACKENDS["numba_ext"].info()
            device = {
                "name": info["device"],
                **{k: v for k, v in info.items() if k not in ("device", "version")},
            }
        except Exception as e:  # e.g. NUMBA_EXT_DEVICE=gpu without a GPU: numba_ext variants are n/a
            device = {
                "name": f"no numba_ext device ({type(e).__name__}: {str(e).splitlines()[0][:160]})",
                "filter_string": None,
            }
    device["selector"] = os.environ.get("NUMBA_EXT_DEVICE")  # NUMBA_EXT_DEVICE as set for this run
    return {
        "date": now.date().isoformat(),
        "timestamp": now.isoformat(timespec="seconds"),
        "device": device,
        "versions": {
            "python": platform.python_version(),
            "numpy": np.__version__,
            "numba": numba.__version__,
            "numba_ext": getattr(nx, "__version__", None),
        },
        "machine": {
            "platform": platform.platform(),
            "processor": platform.processor() or platform.machine(),
            "cpu_count": os.cpu_count(),
            "cpus_usable": affinity,
            "numba_threads": numba.get_num_threads(),
            "loadavg_start": os.getloadavg(),
        },
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "git": _git_state(),
    }


def _git_state() -> dict | None:
    """Commit of the checkout and uncommitted changes to the library (they affect the numbers)."""
    root = Path(__file__).resolve().parents[2]

    def git(*args):
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout

    try:
        dirty = git("status", "--porcelain", "--", "numba_ext", "rust").splitlines()
        return {
            "commit": git("rev-parse", "--short", "HEAD").strip(),
            "library_changes": [d.strip() for d in dirty],
        }
    except (OSError, subprocess.CalledProcessError):
        return None


def finish_environment(meta: dict, records: list[dict] | None = None) -> None:
    import numba

    meta["machine"]["loadavg_end"] = os.getloadavg()
    try:
        meta["machine"]["numba_threading_layer"] = numba.threading_layer()
    except ValueError:  # no parallel function ran
        meta["machine"]["numba_threading_layer"] = None
    used = dict.fromkeys(r.get("backend", "host") for r in records or [])
    meta["backends"] = {}
    for name in used:
        if name == "host":
            continue
        b = BACKENDS[name]
        if b.unavailable():
            meta["backends"][name] = {
                "available": False,
                "reason": b.reason,
                **({"shims": list(b.shims)} if b.shims else {}),
            }
            continue
        try:
            meta["backends"][name] = {"available": True, **b.info()}
        except Exception as e:
            meta["backends"][name] = {"available": True, "info_error": f"{type(e).__name__}: {e}"}
