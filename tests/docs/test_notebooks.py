"""The benchmark notebooks run headless: suite.ipynb runs the whole suite at preset S (one timed sample
per variant, to stay fast) and must validate every variant that runs; results.ipynb loads the JSON it
wrote and draws the plots."""

import json
from pathlib import Path

import pytest

NOTEBOOKS = Path(__file__).resolve().parents[2] / "benchmarks" / "notebooks"


def _execute(name: str):
    # the dev environment has them (requirements-dev.txt); a bare machine (the GPU check) may not
    nbclient = pytest.importorskip("nbclient", reason="nbclient is not installed (make setup installs it)")
    nbformat = pytest.importorskip("nbformat", reason="nbformat is not installed (make setup installs it)")

    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}}
    )
    client.execute()  # raises CellExecutionError (with the cell's traceback) when a cell fails
    return nb


def _outputs(nb, output_type=None):
    return [
        o
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.outputs
        if output_type is None or o.output_type == output_type
    ]


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_notebooks_run_headless_at_preset_s(tmp_path, monkeypatch):
    # the kernel inherits the environment: preset S, 1 sample, results and plots into tmp_path
    monkeypatch.setenv("BENCH_PRESET", "S")
    monkeypatch.setenv("BENCH_REPS", "1")
    monkeypatch.setenv("BENCH_OUT_DIR", str(tmp_path))
    monkeypatch.setenv("JUPYTER_PLATFORM_DIRS", "1")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.delenv("BENCH_WORKLOADS", raising=False)
    monkeypatch.delenv("BENCH_JSON", raising=False)
    for mod in ("nbclient", "nbformat", "ipykernel", "matplotlib"):
        pytest.importorskip(mod)

    nb = _execute("suite.ipynb")
    assert not _outputs(nb, "error")
    jsons = sorted(tmp_path.glob("*.json"))
    assert len(jsons) == 1
    data = json.loads(jsons[0].read_text())
    assert data["meta"]["preset"] == "S" and data["meta"]["reps"] == 1
    results = data["results"]
    statuses = {r["status"] for r in results}
    assert statuses <= {"ok", "n/a"}, [
        (r["workload"], r["variant"], r["reason"]) for r in results if r["status"] not in ("ok", "n/a")
    ]
    ran = {(r["workload"], r["variant"]) for r in results if r["status"] == "ok"}
    assert ("black_scholes", "numba_ext_jit") in ran and ("black_scholes", "numpy") in ran
    assert all(r["validation"]["passed"] for r in results if r["status"] == "ok")
    text = "".join(o.get("text", "") for o in _outputs(nb, "stream"))
    assert "validated:" in text and "none failed" in text
    for kind in ("time", "speedup", "bandwidth"):
        assert (tmp_path / f"{jsons[0].stem}_{kind}.png").stat().st_size > 0

    monkeypatch.setenv("BENCH_JSON", str(jsons[0]))
    monkeypatch.setenv("BENCH_PLOT_DIR", str(tmp_path / "results-plots"))
    nb = _execute("results.ipynb")
    assert not _outputs(nb, "error")
    images = [o for o in _outputs(nb, "display_data") if "image/png" in o.get("data", {})]
    assert len(images) == 3
    assert sorted(p.name for p in (tmp_path / "results-plots").iterdir()) == sorted(
        f"{jsons[0].stem}_{k}.png" for k in ("bandwidth", "speedup", "time")
    )
