"""The forms a kernel function takes: OpenCL style (``def k(a, b)`` with ``get_global_id``) or item
style (``def k(item, a, b)``: the work-item comes first, an ``Item`` for launches over a ``Range``,
an ``NdItem`` over an ``NdRange``), its parameters (keywords and defaults bind as in Python), and
explicit signatures (``@numba_ext.kernel(sig)``): the argument types a launch is compiled for."""

from __future__ import annotations

import dis
import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numba.core import types
from numba.np.numpy_support import from_dtype as numba_from_dtype

from ..compiler.item_api import ITEM_ATTRIBUTES, ITEM_ONLY, ND_ITEM_ONLY
from ..compiler.item_typing import ItemType, NdItemType
from ..compiler.signatures import Signature, describe, match_signature, parse_signatures
from ..errors import KernelArgumentError, KernelTypingError, LaunchError

#: decorator options numba-dpex's and Numba's decorators take that change nothing here
COMPILE_HINTS = frozenset(
    {
        "debug",
        "inline_threshold",
        "release_gil",
        "no_compile",
        "no_cpython_wrapper",
        "no_cfunc_wrapper",
        "fastmath",
    }
)


def item_kind(py_func: Callable[..., Any]) -> str | None:
    """ "Item" or "NdItem" for a kernel whose first parameter is annotated so, "auto" for one whose
    first parameter is used through the item API (its kind follows the launch), None for an
    OpenCL-style kernel."""
    params = list(inspect.signature(py_func).parameters.values())
    if not params:
        return None
    first = params[0]
    ann = first.annotation
    if ann is not inspect.Parameter.empty:
        name = (ann if isinstance(ann, str) else getattr(ann, "__name__", "")).rsplit(".", 1)[-1]
        if name in ("Item", "NdItem"):
            return name
    code = getattr(py_func, "__code__", None)
    if code is None:
        return None
    ins = list(dis.get_instructions(code))
    used = {
        b.argval
        for a, b in zip(ins, ins[1:])
        if a.opname == "LOAD_FAST"
        and a.argval == first.name
        and b.opname in ("LOAD_ATTR", "LOAD_METHOD")
        and b.argval in ITEM_ATTRIBUTES
    }
    if not used:
        return None
    if used & ND_ITEM_ONLY:
        return "NdItem"
    return "Item" if used & ITEM_ONLY else "auto"


class KernelForm:
    """A kernel function's form: its item kind, the signature of the arguments a launch passes (the
    item excluded), and its explicit signatures if any."""

    def __init__(self, py_func: Callable[..., Any], signatures: list[Signature] | None) -> None:
        self.name = py_func.__name__
        self.item = item_kind(py_func)
        sig = inspect.signature(py_func)
        params = list(sig.parameters.values())
        if self.item is not None:
            params = params[1:]
        for p in params:
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                raise KernelArgumentError(
                    f"kernel {self.name}: *args and **kwargs parameters are not supported"
                )
        self.signature = sig.replace(parameters=params)
        self.params = [p.name for p in params]
        self.has_defaults = any(p.default is not p.empty for p in params)
        self.signatures = signatures

    def bind(self, args: Sequence[Any], kwargs: dict[str, Any] | None) -> tuple[Any, ...]:
        """The launch's arguments in parameter order, defaults filled in."""
        if not kwargs and len(args) == len(self.params):
            return tuple(args)
        try:
            b = self.signature.bind(*args, **(kwargs or {}))
        except TypeError as e:
            got = f"{len(args)} positional" + (f" and {len(kwargs)} keyword" if kwargs else "")
            raise KernelArgumentError(
                f"kernel {self.name} takes {len(self.params)} arguments {self.signature}, got {got}: {e}"
            ) from None
        b.apply_defaults()
        return tuple(b.arguments.values())

    def item_type(self, global_range: Sequence[int], local_range: Sequence[int] | None) -> ItemType | None:
        """The item argument's type for a launch over these ranges (None: OpenCL style)."""
        if self.item is None:
            return None
        ndim = len(global_range)
        if self.item == "NdItem" and local_range is None:
            raise LaunchError(
                f"kernel {self.name} takes an NdItem: launch it over an NdRange (global and local sizes), "
                "e.g. call_kernel(k, NdRange(global_size, local_size), ...)"
            )
        if self.item == "NdItem" or (self.item == "auto" and local_range is not None):
            return NdItemType(ndim)
        return ItemType(ndim)

    def specialize(
        self, argtys: tuple[Any, ...], args: tuple[Any, ...]
    ) -> tuple[tuple[Any, ...], tuple[Any, ...], bool]:
        """For kernels with explicit signatures: (the signature's types, the arguments converted to
        them, whether any scalar was converted); KernelTypingError if none matches."""
        if self.signatures is None:
            return argtys, args, False
        sig = match_signature(self.signatures, argtys)
        if sig is None:
            raise KernelTypingError(
                f"kernel {self.name} was compiled for the signatures {describe(self.signatures)}, not for "
                f"the arguments ({', '.join(map(str, argtys))}); pass arguments of those types or add the "
                "signature"
            )
        converted = False
        out = list(args)
        for i, (f, a) in enumerate(zip(sig, argtys)):
            if f != a and isinstance(f, (types.Number, types.Boolean)):
                out[i] = np.dtype(str(f)).type(args[i])
                converted = True
        return sig, tuple(out), converted


def USMNdArray(ndim: int, dtype: Any, layout: str = "C") -> types.Array:
    """The type of a numba_ext array argument in an explicit signature: `ndim` dimensions of `dtype` (a
    Numba type or anything ``numpy.dtype`` takes), layout ``"C"``, ``"F"`` or ``"A"`` (any). It matches
    arrays of any memory kind on any device."""
    dt = dtype if isinstance(dtype, types.Type) else numba_from_dtype(np.dtype(dtype))
    if layout not in ("C", "F", "A"):
        raise ValueError(f"layout must be 'C', 'F' or 'A', not {layout!r}")
    return types.Array(dt, int(ndim), layout)  # type: ignore[call-overload]


def kernel_signatures(spec: Any, item: str | None, name: str) -> list[Signature]:
    """The explicit signatures of a kernel as argument types without the item (an item type in a
    signature must be the kernel's first parameter's)."""
    out = []
    for sig in parse_signatures(spec, f"kernel {name}"):
        if sig and isinstance(sig[0], ItemType):
            if item is None:
                raise KernelTypingError(
                    f"kernel {name}: the signature starts with {sig[0]}, but the kernel takes no item"
                )
            sig = sig[1:]
        out.append(sig)
    return out
