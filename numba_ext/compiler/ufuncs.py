"""Elementwise functions NumPy lacks. They work on NumPy arrays and scalars (on the host), on
numba_ext arrays (a device kernel, eagerly) and inside jitted array expressions (fused into kernels;
see compiler/elementwise.py)."""

from __future__ import annotations

import math
import threading

from ..arrays import hooks, ndarray

_SIGS = ["float32(float32)", "float64(float64)"]
_IMPLS = {"erf": lambda x: math.erf(x), "erfc": lambda x: math.erfc(x)}
_vecs: dict = {}
_lock = threading.Lock()


def vectorized(name: str):
    """The host ufunc (numba.vectorize) for `name`, made on first use (not at import: that would
    start Numba's extension loading while numba_ext itself is being imported)."""
    with _lock:
        v = _vecs.get(name)
        if v is None:
            import numba  # deferred: at import it would start Numba's extension loading mid-import

            v = _vecs[name] = numba.vectorize(_SIGS)(_IMPLS[name])
        return v


def _apply(name, x):
    if isinstance(x, ndarray):
        return hooks.operations.apply(vectorized(name).ufunc, x, name=name)
    return vectorized(name)(x)


def erf(x):
    """The error function, elementwise."""
    return _apply("erf", x)


def erfc(x):
    """The complementary error function, elementwise."""
    return _apply("erfc", x)
