"""Helpers for package authors who make their data compatible with numba_ext arrays: the execution
queue of a set of queues and the USM type of a result."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .devices import Queue, as_queue
from .placement import coerce_usm_types, common_queue


def get_execution_queue(queues: Iterable[Queue | Any]) -> Queue | Any | None:
    """The common queue when all `queues` are equivalent (the first of them), else None. A
    ``dpctl.SyclQueue`` counts as the numba_ext queue on its OpenCL context and device."""
    given = list(queues)
    return None if common_queue([as_queue(q) for q in given]) is None else given[0]


def get_coerced_usm_type(usm_types: Iterable[str]) -> str | None:
    """The USM type of a result computed from arrays of `usm_types` (precedence device < shared <
    host); None for an empty list; ValueError for an unknown name."""
    return coerce_usm_types(usm_types)


__all__ = ["get_coerced_usm_type", "get_execution_queue"]
