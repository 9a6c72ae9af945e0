"""What the fuzz tests share: hypothesis's settings for them and the check of one case."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, Phase, settings

from .choosers import HypothesisChooser
from .classify import GOOD
from .families import FAMILIES
from .harness import Worker


def fuzz_settings(max_examples: int) -> settings:
    """Reproducible cases (derandomized, no example database), no per-example deadline (compiling
    takes seconds on a loaded machine) and no shrinking: a failing case is reported as it was drawn,
    in the JSON that ``scripts/fuzz_run.py --replay`` runs again."""
    return settings(
        max_examples=max_examples,
        deadline=None,
        derandomize=True,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


def check_case(worker: Worker, family: str, data: object) -> None:
    """A case of `family` drawn from hypothesis's `data` ends correct or in a clean error; anything
    else fails with the case, as JSON to replay."""
    case = FAMILIES[family].generate(HypothesisChooser(data), "quick")
    verdict = worker.run(family, case, FAMILIES[family].timeout)
    assert verdict["outcome"] in GOOD, (
        f"{verdict['outcome']}: {verdict['detail']}\ncase ({family}): {json.dumps(case)}"
    )
