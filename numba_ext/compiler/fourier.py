"""``np.fft``'s transforms of numba_ext arrays in jitted code: overloads that call the eager library
(``eager_calls.fourier``), one array argument each (NumPy's defaults for the others). Numba has no
``np.fft``, so NumPy arrays in jitted code still cannot call them."""

from __future__ import annotations

from typing import Any

import numpy as np
from numba.extending import overload

from .eager_calls import FOURIER, fourier
from .types import USMArrayType


def _overload(name: str) -> Any:
    def typer(a):  # unannotated: Numba compares the signature with the implementation's
        if isinstance(a, USMArrayType):
            return lambda a: fourier(name, a)
        return None

    return typer


for _name in FOURIER:
    overload(getattr(np.fft, _name))(_overload(_name))
