"""Launch configurations of kernels: ``Range`` (a global range), ``NdRange`` (a global and a
work-group range) and the spellings ``k[...]`` and ``call_kernel`` accept, normalised to a global
range and an optional local range (``normalize_range``)."""

from __future__ import annotations

import math
import operator
from typing import Any, SupportsIndex, TypeAlias, overload

import numpy as np

from ..errors import LaunchError

#: a range: an int, or a tuple or list of ints (1 to 3 of them)
RangeArg: TypeAlias = SupportsIndex | tuple[SupportsIndex, ...] | list[SupportsIndex]
#: a launch configuration: a global range, (global range, local range) or an NdRange
LaunchConfig: TypeAlias = "RangeArg | tuple[RangeArg, RangeArg] | NdRange"


class Range(tuple[int, ...]):
    """A global range of 1 to 3 dimensions: ``Range(n)``, ``Range(n, m)``, ``Range(dim0=n, dim1=m)``
    or ``Range((n, m))``."""

    @overload
    def __new__(cls, dims: tuple[SupportsIndex, ...] | list[SupportsIndex], /) -> Range: ...
    @overload
    def __new__(
        cls, dim0: SupportsIndex, dim1: SupportsIndex | None = None, dim2: SupportsIndex | None = None
    ) -> Range: ...
    def __new__(cls, *dims: Any, **named: Any) -> Range:
        if not named and len(dims) == 1 and type(dims[0]) is int and 0 <= dims[0] <= MAX_WORK_ITEMS:
            return tuple.__new__(cls, dims)  # Range(n): kept cheap
        if named:
            unknown = set(named) - {"dim0", "dim1", "dim2"}
            if unknown:
                raise TypeError(f"Range() got unexpected keyword argument(s) {', '.join(sorted(unknown))}")
            given = list(dims) + [named.get(k) for k in ("dim0", "dim1", "dim2")[len(dims) :]]
            dims = tuple(d for d in given if d is not None)
        if (
            1 <= len(dims) <= 3
            and all(type(d) is int and 0 <= d <= MAX_WORK_ITEMS for d in dims)
            and math.prod(dims) <= MAX_WORK_ITEMS
        ):  # the common spelling
            return super().__new__(cls, dims)
        dims = _dims(dims[0] if len(dims) == 1 and isinstance(dims[0], (tuple, list)) else dims, "global")
        return super().__new__(cls, dims)

    @property
    def ndim(self) -> int:
        return len(self)

    def get(self, index: int) -> int:
        """The extent of dimension `index`."""
        return self[index]

    def size(self) -> int:
        """The number of work-items (the product of the extents)."""
        return int(np.prod(self, dtype=np.int64))

    @property
    def dim0(self) -> int:
        return self[0]

    @property
    def dim1(self) -> int:
        """The extent of dimension 1, -1 for a 1-d range."""
        return self[1] if len(self) > 1 else -1

    @property
    def dim2(self) -> int:
        """The extent of dimension 2, -1 for a range of fewer dimensions."""
        return self[2] if len(self) > 2 else -1


class NdRange:
    """A global range and a work-group (local) range of the same dimensions:
    ``NdRange(global_size, local_size)`` (Ranges, tuples or ints)."""

    def __init__(self, global_size: RangeArg, local_size: RangeArg) -> None:
        self.global_range = Range(
            *(global_size if isinstance(global_size, (tuple, list)) else (global_size,))
        )
        self.local_range = Range(*(local_size if isinstance(local_size, (tuple, list)) else (local_size,)))
        if len(self.global_range) != len(self.local_range):
            raise LaunchError(
                f"global range {tuple(self.global_range)} and local range {tuple(self.local_range)} have "
                "different numbers of dimensions"
            )
        for d, (g, lo) in enumerate(zip(self.global_range, self.local_range)):
            if lo < 1:
                raise LaunchError(
                    f"local size {lo} in dimension {d}: work-groups have at least one work-item"
                )
            if g % lo:
                raise LaunchError(f"local size {lo} does not divide global size {g} in dimension {d}")

    @property
    def ndim(self) -> int:
        return len(self.global_range)

    def get_global_range(self) -> Range:
        return self.global_range

    def get_local_range(self) -> Range:
        return self.local_range

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, NdRange)
            and self.global_range == other.global_range
            and self.local_range == other.local_range
        )

    def __hash__(self) -> int:
        return hash((NdRange, self.global_range, self.local_range))

    def __repr__(self) -> str:
        return f"NdRange({tuple(self.global_range)}, {tuple(self.local_range)})"


#: the largest number of work-items in a launch (counts are signed 64-bit in the runtimes)
MAX_WORK_ITEMS = 2**63 - 1


def _extent(d: Any) -> int | None:
    """`d` as an integer extent (anything ``operator.index`` takes, but not a bool), else None."""
    if isinstance(d, (bool, np.bool_)):
        return None
    try:
        return operator.index(d)
    except TypeError:
        return None


def _dims(dims: Any, what: str) -> tuple[int, ...]:
    if not isinstance(dims, (tuple, list)):
        dims = (dims,)
    out = tuple(_extent(d) for d in dims)
    if not 1 <= len(out) <= 3 or not all(d is not None and d >= 0 for d in out):
        raise LaunchError(f"a {what} range is 1 to 3 non-negative integers, got {tuple(dims)!r}")
    ext = tuple(int(d) for d in out if d is not None)
    if int(np.prod(ext, dtype=object)) > MAX_WORK_ITEMS or max(ext) > MAX_WORK_ITEMS:
        raise LaunchError(f"a {what} range of {ext} has more than 2**63 - 1 work-items (or in one dimension)")
    return ext


def cache_key(cfg: Any) -> tuple | None:
    """A key under which a launch configuration's normalised ranges may be cached: exact types only
    (``(64.0,)`` equals ``(64,)`` but is no valid range), None for anything else."""
    t = type(cfg)
    if t is int or t is Range or t is NdRange:
        return (t, cfg)
    if t is tuple and all(type(c) is int for c in cfg):
        return (t, cfg)
    if t is tuple and len(cfg) == 2 and all(type(c) in (int, Range) or _int_tuple(c) for c in cfg):
        return (t, tuple((type(c), c) for c in cfg))
    return None


def _int_tuple(c: Any) -> bool:
    return type(c) is tuple and all(type(x) is int for x in c)


def normalize_range(cfg: LaunchConfig) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
    """The global range and the local range (None: the driver chooses) of a launch configuration."""
    if isinstance(cfg, NdRange):
        return tuple(cfg.global_range), tuple(cfg.local_range)
    if isinstance(cfg, Range):
        return tuple(cfg), None
    if (
        isinstance(cfg, tuple)
        and len(cfg) == 2
        and all(isinstance(c, (tuple, list, int, np.integer, Range)) for c in cfg)
        and not all(isinstance(c, (int, np.integer)) for c in cfg)
    ):
        nd = NdRange(cfg[0], cfg[1])
        return tuple(nd.global_range), tuple(nd.local_range)
    if isinstance(cfg, tuple) and len(cfg) == 2 and all(isinstance(c, (int, np.integer)) for c in cfg):
        # k[global, local] with two integers: a 1-D launch
        nd = NdRange(cfg[0], cfg[1])
        return tuple(nd.global_range), tuple(nd.local_range)
    return _dims(cfg, "global"), None
