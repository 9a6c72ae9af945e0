"""The seven fuzz families: each a case generator and the time a case may take before it counts as
a hang (compiling cases get longer: a program build on a loaded machine takes seconds)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from .cases import interface, selector
from .cases_compiled import eager, jit_call, launch
from .cases_creation import creation
from .cases_linalg import linalg
from .choosers import Chooser


class Family(NamedTuple):
    generate: Callable[[Chooser, str], Any]
    timeout: float


FAMILIES: dict[str, Family] = {
    "selectors": Family(selector, 20.0),
    "interfaces": Family(interface, 20.0),
    "creation": Family(creation, 20.0),
    "launches": Family(launch, 60.0),
    "jit": Family(jit_call, 90.0),
    "eager": Family(eager, 60.0),
    "linalg": Family(linalg, 90.0),
}
