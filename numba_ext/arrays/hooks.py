"""Extension points through which the layers above give arrays what they own.

The arrays layer sits below the compiler and the eager library, yet an array needs both: its Numba
type (for the dispatcher and for the native image compiled code copies) and its operators
(``a + b``, ``a.sum()``, ``np.where(a, ...)``). Rather than importing upward, ``ndarray`` asks the
providers registered here; the compiler registers :class:`ArrayTyping` and the library registers
:class:`ArrayOperations` when they are imported. ``numba_ext/__init__.py`` does not import them (they
import Numba, most of the package's import time): it gives each a *loader* here, which the first use
of a missing provider calls (the first operator, reduction or Numba type of an array).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol


class _Assignment:
    """The operation of an assignment into a view (``dst[...] = src`` on the device)."""

    def __repr__(self) -> str:
        return "<numba_ext assignment>"


#: the key of assignments among the call kinds served in one native step (``_core.known_call``):
#: the library registers them (``library.elementwise.assign``), ``ndarray.__setitem__`` calls them
ASSIGNMENT = _Assignment()


class ArrayTyping(Protocol):
    """What the compiler tells arrays about their Numba types."""

    def numba_type_of(self, array: Any) -> Any:
        """The Numba type of a numba_ext array (computed once per array)."""
        ...

    def array_info(self, numba_type: Any) -> Any:
        """The extension's ``ArrayInfo`` for arrays of `numba_type` (boxing, native images)."""
        ...

    def new_array_info(self, dtype: Any, ndim: int, usm_type: str, device: str) -> Any:
        """The ``ArrayInfo`` of new C-contiguous arrays of this dtype, ndim, USM type and device."""
        ...


class ArrayOperations(Protocol):
    """The eager operations of arrays, computed on the arrays' queue."""

    def apply(
        self, ufunc: Any, *operands: Any, name: str | None = None, out: tuple[Any, ...] | None = None
    ) -> Any:
        """``ufunc(*operands)`` elementwise (`name` overrides the ufunc's own name; `out`: NumPy's
        ``out=`` tuple, one entry per output)."""
        ...

    def reduce(
        self,
        name: str,
        x: Any,
        axis: Any = None,
        *,
        dtype: Any = None,
        out: Any = None,
        keepdims: bool = False,
    ) -> Any:
        """``x.<name>(axis)`` for the reductions of ``ndarray``."""
        ...

    def dot(self, a: Any, b: Any, what: str = "np.dot", out: Any = None) -> Any:
        """``np.dot(a, b)`` / ``a @ b``, into ``out`` where given."""
        ...

    def assign(self, dst: Any, value: Any) -> bool:
        """``dst[...] = value`` on the device where `value` is an array it can copy there (then
        True); False leaves the assignment to the caller."""
        ...

    def getitem(self, x: Any, key: Any) -> Any:
        """``x[key]`` for an advanced `key` (arrays or lists among its items)."""
        ...

    def setitem(self, x: Any, key: Any, value: Any) -> None:
        """``x[key] = value`` for an advanced `key`."""
        ...

    def ufunc_at(self, ufunc: Any, a: Any, indices: Any, b: Any = None) -> None:
        """``ufunc.at(a, indices, b)``: `a` updated in place at `indices`."""
        ...

    @property
    def array_functions(self) -> Mapping[Callable[..., Any], Callable[..., Any]]:
        """NumPy functions (``__array_function__``) computed on the arrays' queue, by function."""
        ...

    @property
    def like_functions(self) -> Mapping[Callable[..., Any], Callable[..., Any]]:
        """NumPy's creation functions called with ``like=`` an array (NEP 35), by function: each
        takes that array first and makes its result on the array's queue."""
        ...


class _Missing:
    """Stands in for a provider that is not registered yet: the first attribute asked of it runs the
    loader that imports the providing layer (which registers the real provider), or says which layer
    must be imported when there is no loader."""

    def __init__(self, what: str, layer: str, slot: str) -> None:
        self._what, self._layer, self._slot = what, layer, slot  # slot: the module global it stands in
        self.loader: Callable[[], None] | None = None

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        if self.loader is None:
            raise RuntimeError(
                f"numba_ext arrays need {self._what}, provided by numba_ext.{self._layer}; import "
                "numba_ext (the package) rather than one of its layers alone"
            )
        self.loader()
        provider = globals()[self._slot]
        if isinstance(provider, _Missing):
            raise RuntimeError(f"importing numba_ext.{self._layer} did not register {self._what}")
        return getattr(provider, name)


_missing_typing = _Missing("their Numba types", "compiler", "typing")
_missing_operations = _Missing("their eager operations", "library", "operations")
typing: ArrayTyping = _missing_typing
operations: ArrayOperations = _missing_operations

#: NumPy functions that layers above the library implement (``np.linalg``'s on ``numba_ext.linalg``),
#: registered by the package as proxies that import their layer on first call; arrays consult them
#: after the library's own (``ArrayOperations.array_functions``)
upper_array_functions: dict[Callable[..., Any], Callable[..., Any]] = {}


def typing_loaded() -> bool:
    """Whether the compiler layer has registered the arrays' Numba typing."""
    return not isinstance(typing, _Missing)


def set_loaders(typing_loader: Callable[[], None], operations_loader: Callable[[], None]) -> None:
    """Called by the package: how to import the compiler and the library on first use."""
    _missing_typing.loader = typing_loader
    _missing_operations.loader = operations_loader


def register_typing(provider: ArrayTyping) -> None:
    """Called once by the compiler layer."""
    global typing
    typing = provider


def register_operations(provider: ArrayOperations) -> None:
    """Called once by the library layer."""
    global operations
    operations = provider
