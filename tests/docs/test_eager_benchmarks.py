"""The benchmarks' eager variants (``numba_ext_eager``: a workload's NumPy source run unchanged on
numba_ext arrays, outside jitted code, as dpnp and CuPy users write it) run through the harness at
preset S and validate against NumPy; the workloads that need functions the library lacks say so."""

import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
if str(BENCHMARKS) not in sys.path:  # the workloads import the harness as a top-level package
    sys.path.insert(0, str(BENCHMARKS))

import workloads  # noqa: E402

from .test_item_benchmarks import check_variant_validates  # noqa: E402

EAGER = "numba_ext_eager"


def _eager(name):
    return [v for v in workloads.load(name).VARIANTS if v.name == EAGER]


RUNNABLE = [n for n in workloads.NAMES if any(v.na is None for v in _eager(n))]


def test_every_numpy_workload_has_an_eager_variant():
    for name in workloads.NAMES:
        if any(v.name == "numpy" for v in workloads.load(name).VARIANTS) and name != "first_call":
            (variant,) = _eager(name)
            assert variant.na is None or "numba_ext arrays" in variant.na, (name, variant.na)
    assert len(RUNNABLE) >= 10


@pytest.mark.parametrize("name", RUNNABLE)
def test_eager_variant_validates_against_numpy(name, rng):
    check_variant_validates(name, EAGER, rng)
