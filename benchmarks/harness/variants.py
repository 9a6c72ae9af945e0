"""Variants: the implementations of a workload, how the dpnp and CuPy variants run the NumPy source
unchanged, and the selection of variants by name or group."""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable

from .backends import backend_module


def with_globals(fn: Callable, **names) -> Callable:
    """The same source and code object with some globals replaced (e.g. ``np=dpnp``): how the dpnp
    and CuPy variants run the NumPy source unchanged."""
    g = dict(fn.__globals__)
    g.update(names)
    new = types.FunctionType(fn.__code__, g, fn.__name__, fn.__defaults__, fn.__closure__)
    new.__qualname__ = fn.__qualname__
    return new


@dataclasses.dataclass(frozen=True)
class Variant:
    """One implementation of a workload.

    ``backend``: where the inputs are copied before timing (``host`` leaves them as NumPy arrays);
    ``na``: why it cannot run yet (listed, never run); ``make``: a factory called with the device
    inputs before the first call (its time counts as part of the first call) that returns the
    function to time, for variants that need the device arrays or a lazily imported library;
    ``self_timed``: the function returns ``(seconds, result)`` and its seconds are the sample (used
    for measurements in a child process; they have no separate first call: their first sample is
    reported as ``first_call_ms`` too); ``adapt``: host result -> reference layout, untimed."""

    name: str
    fn: Callable | None = None
    backend: str = "host"
    na: str | None = None
    note: str = ""
    adapt: Callable | None = None
    make: Callable | None = None
    self_timed: bool = False
    requires: str | None = None  # a backend that must be available although the data stays on ``backend``
    host_result: bool = False  # a device variant that returns NumPy arrays on purpose (stop-gaps)

    @classmethod
    def unavailable(cls, name: str, needs: str, backend: str = "host") -> Variant:
        return cls(name, backend=backend, na=f"n/a (needs {needs})")


def namespace_variant(
    name: str, fn: Callable, backend: str, note: str = "", helpers: tuple = (), **kw
) -> Variant:
    """``fn`` (a NumPy source) run with ``np`` bound to the backend's array module (dpnp, cupy);
    ``helpers``: names of module functions ``fn`` calls that need the same rebinding."""

    def make(*args):
        mod = backend_module(backend)
        names = {"np": mod, **{h: with_globals(fn.__globals__[h], np=mod) for h in helpers}}
        return with_globals(fn, **names)

    return Variant(
        name, backend=backend, make=make, note=note or f"the NumPy source with np = {backend}", **kw
    )


def eager_variant(fn: Callable, note: str = "") -> Variant:
    """``fn`` (a NumPy source) run unchanged on numba_ext arrays, outside any jitted function: each
    NumPy call an eager operation on the arrays' queue (NumPy's protocols hand the calls over), as
    dpnp and CuPy run their modules' functions. The library's speed, next to theirs."""
    return Variant(
        "numba_ext_eager",
        fn,
        backend="numba_ext",
        note=note or "the NumPy source on numba_ext arrays, no jit: one eager operation per NumPy call",
    )


# Groups usable in a ``variants`` selection next to variant names: ``gpu`` is NumPy (the reference of
# the speed-ups) and every variant on a device backend (numba_ext on NUMBA_EXT_DEVICE, CuPy, numba-cuda).
VARIANT_GROUPS: dict[str, Callable[[Variant], bool]] = {
    "gpu": lambda v: v.name == "numpy" or v.backend in ("numba_ext", "cupy", "numba_cuda"),
    "cuda": lambda v: v.name == "numpy" or v.backend in ("cupy", "numba_cuda"),
}


def selected(module, variants: set[str] | None) -> list[Variant]:
    """The variants of ``module`` named in ``variants`` (names or groups of VARIANT_GROUPS; None: all)."""
    if variants is None:
        return list(module.VARIANTS)
    groups = [pred for g, pred in VARIANT_GROUPS.items() if g in variants]
    return [v for v in module.VARIANTS if v.name in variants or any(pred(v) for pred in groups)]
