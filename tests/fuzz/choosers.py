"""Two ways to make the choices a case generator asks for: from hypothesis (``HypothesisChooser``,
which shrinks and replays) and from a seeded ``random.Random`` (``RandomChooser``, for long runs of
hundreds of thousands of cases). The generators in ``cases.py`` see only this small interface, so
both draw the same kinds of cases."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Protocol, TypeVar

T = TypeVar("T")


class Chooser(Protocol):
    def choice(self, options: Sequence[T]) -> T: ...
    def integer(self, lo: int, hi: int) -> int: ...
    def real(self, lo: float, hi: float) -> float: ...
    def boolean(self, p: float = 0.5) -> bool: ...
    def text(self, max_size: int = 12) -> str: ...


class RandomChooser:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choice(self, options: Sequence[T]) -> T:
        return options[self.rng.randrange(len(options))]

    def integer(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def real(self, lo: float, hi: float) -> float:
        return self.rng.uniform(lo, hi)

    def boolean(self, p: float = 0.5) -> bool:
        return self.rng.random() < p

    def text(self, max_size: int = 12) -> str:
        n = self.rng.randint(0, max_size)
        alphabet = "abcxyz:._-0123456789 \x00é\U0001f600*,;CPUgpu"
        return "".join(self.choice(alphabet) for _ in range(n))


class HypothesisChooser:
    """Choices drawn from hypothesis's ``st.data()`` object (imported lazily: only the tests need
    hypothesis)."""

    def __init__(self, data: Any) -> None:
        from hypothesis import strategies as st  # the long-run script must not need hypothesis

        self.data = data
        self.st = st

    def choice(self, options: Sequence[T]) -> T:
        return options[self.data.draw(self.st.integers(0, len(options) - 1))]

    def integer(self, lo: int, hi: int) -> int:
        return int(self.data.draw(self.st.integers(lo, hi)))

    def real(self, lo: float, hi: float) -> float:
        return float(self.data.draw(self.st.floats(lo, hi)))

    def boolean(self, p: float = 0.5) -> bool:
        return bool(self.data.draw(self.st.booleans()))

    def text(self, max_size: int = 12) -> str:
        return str(self.data.draw(self.st.text(max_size=max_size)))
