"""The benchmarks' item-style kernel variants (``numba_ext_kernel_item``: numba-dpex's kernel API) run
through the harness at preset S and validate against NumPy, and the goal check comparing them with
the OpenCL-style variants reads the ratio of the median times."""

import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
if str(BENCHMARKS) not in sys.path:  # the workloads import the harness as a top-level package
    sys.path.insert(0, str(BENCHMARKS))

import harness  # noqa: E402
import workloads  # noqa: E402

ITEM = "numba_ext_kernel_item"


def _item_workloads() -> list[str]:
    # black_scholes_goal shares black_scholes' variant list (the same kernels at 2^22 options)
    seen, names = set(), []
    for name in workloads.NAMES:
        variants = workloads.load(name).VARIANTS
        if any(v.name == ITEM for v in variants) and id(variants) not in seen:
            seen.add(id(variants))
            names.append(name)
    return names


ITEM_WORKLOADS = _item_workloads()


def test_every_kernel_workload_has_an_item_variant():
    for name in workloads.NAMES:
        names = [v.name for v in workloads.load(name).VARIANTS]
        if "numba_ext_kernel" in names:
            assert names[names.index("numba_ext_kernel") + 1] == ITEM, name
    assert len(ITEM_WORKLOADS) >= 9


def check_variant_validates(name, variant, rng):
    """The workload `name`'s `variant` runs through the harness at preset S on fresh inputs and
    validates against NumPy."""
    seed = int(rng.integers(2**31))
    (rec,) = harness.run_workload(
        name, workloads.load(name), "S", reps=1, warmup=0, seed=seed, variants={variant}
    )
    assert rec["variant"] == variant and rec["backend"] == "numba_ext"
    assert rec["status"] == "ok", rec["reason"]
    assert rec["validation"]["passed"], rec["validation"]


@pytest.mark.parametrize("name", ITEM_WORKLOADS)
def test_item_variant_validates_against_numpy(name, rng):
    check_variant_validates(name, ITEM, rng)


def _rec(workload, variant, median, status="ok"):
    return {
        "workload": workload,
        "variant": variant,
        "size": "n=8",
        "status": status,
        "median_ms": median,
        "min_ms": None if median is None else median / 2,
    }


def test_item_goal_is_the_ratio_of_median_times():
    records = [
        _rec("a", "numba_ext_kernel", 2.0),
        _rec("a", ITEM, 2.1),  # 1.05x: met
        _rec("b", "numba_ext_kernel", 2.0),
        _rec("b", ITEM, 2.2),  # 1.1x: not met
        _rec("c", "numba_ext_kernel", 1.0),
        {**_rec("c", ITEM, None, "FAILED"), "reason": "mismatch"},
        _rec("d", "numpy", 1.0),  # no kernel variant ran: no line
    ]
    item = [g for g in harness.goals(records) if "item-style" in g["goal"]]
    assert [(g["goal"].split(" ")[0], g["status"]) for g in item] == [
        ("a", "met"),
        ("b", "not met"),
        ("c", "not measured"),
    ]
    assert "1.100x (goal <= 1.05x; best samples 1.100x)" in item[1]["detail"]
    assert "FAILED" in item[2]["detail"]
    (none,) = [g for g in harness.goals(records[-1:]) if "item-style" in g["goal"]]
    assert none["status"] == "not measured"
