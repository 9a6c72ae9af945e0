"""The on-disk caches of ``@numba_ext.jit(cache=True)`` functions and
``@numba_ext.kernel(cache=True)`` kernels, through Numba's cache machinery.

Jitted functions: Numba's own entries (the compiled host code, its environment with the references
to the device kernels it launches, see ``lazy_refs.py``), each checksummed: a damaged entry is
ignored with a warning and compiled again, never loaded.

Kernels: Numba's cache machinery (``numba.core.caching``: its locators, the index file per function
with Numba's version and the source file's stamp, the data file per signature): an entry maps (argument types,
device, launch rank) to the kernel's package (device binary and slot layout) and its kernel IR. A
new process loads the kernel without typing and code generation; the program cache under it spares
the driver's build too. Entries are keyed by the function's bytecode and closure as Numba's are, and
by numba_ext's build (``numba_hooks.build_id``)."""

from __future__ import annotations

import hashlib
import pickle
import warnings
from typing import Any

from numba.core import caching
from numba.core.runtime import rtsys
from numba.core.serialize import dumps

from ..errors import CacheWarning
from .numba_hooks import build_id


def _sealed(payload: Any) -> tuple[str, bytes]:
    data = dumps(payload)
    return hashlib.sha256(data).hexdigest(), data


def _unsealed(sealed: Any, what: str) -> Any:
    """The payload of a sealed entry, or None (with a warning) if it is damaged."""
    try:
        digest, data = sealed
        if hashlib.sha256(data).hexdigest() != digest:
            raise ValueError("checksum mismatch")
        return pickle.loads(data)
    except Exception as e:
        warnings.warn(f"ignoring a damaged cache entry of {what} ({e}); compiling again", CacheWarning, 3)
        return None


class _FunctionCacheImpl(caching.CompileResultCacheImpl):
    def reduce(self, cres: Any) -> tuple[str, bytes]:
        return _sealed(cres._reduce())

    def rebuild(self, target_context: Any, payload: Any) -> Any:
        reduced = _unsealed(payload, self._locator._py_file)
        return None if reduced is None else caching.compiler.CompileResult._rebuild(target_context, *reduced)


class FunctionDiskCache(caching.FunctionCache):
    """Numba's cache of compiled functions with checksummed entries (``numba_ext.jit(cache=True)``)."""

    _impl_class = _FunctionCacheImpl

    def load_overload(self, sig: Any, target_context: Any) -> Any:
        # Numba refreshes the whole target context first (importing and installing every typing and
        # lowering registry: most of a cache hit's time); loading compiled code needs only the
        # runtime (NRT) its code calls. A compile after a miss refreshes the context itself.
        rtsys.initialize(target_context)
        return self._load_overload(sig, target_context)

    def _load_overload(self, sig: Any, target_context: Any) -> Any:
        try:
            return super()._load_overload(sig, target_context)
        except Exception as e:  # an index or data file Numba cannot read
            warnings.warn(f"ignoring an unreadable cache entry ({e}); compiling again", CacheWarning, 2)
            return None


class _KernelCacheImpl(caching.CacheImpl):
    def reduce(self, data: Any) -> Any:
        return data

    def rebuild(self, target_context: Any, payload: Any) -> Any:
        return payload

    def check_cachable(self, data: Any) -> bool:
        return True


class _NoTarget:
    """Numba's cache asks a target context for its code generator; kernel entries do not use it."""

    def codegen(self) -> None:
        return None

    def refresh(self) -> None:
        pass


class KernelDiskCache(caching.Cache):
    """The disk cache of one kernel function: ``load(key)`` gives a saved (package, kernel IR) pair
    or None; ``save(key, package, spec)``."""

    _impl_class = _KernelCacheImpl

    def _index_key(self, sig: Any, codegen: Any) -> tuple:
        func = self._py_func
        cells = b"" if func.__closure__ is None else dumps(tuple(c.cell_contents for c in func.__closure__))
        digest = hashlib.sha256(func.__code__.co_code).hexdigest(), hashlib.sha256(cells).hexdigest()
        return (sig, build_id(), digest)

    def load(self, key: Any) -> tuple[bytes, Any] | None:
        try:
            sealed = self._load_overload(key, _NoTarget())
        except Exception as e:  # an index or data file Numba cannot read
            warnings.warn(f"ignoring an unreadable cache entry ({e}); compiling again", CacheWarning, 2)
            return None
        return None if sealed is None else _unsealed(sealed, self._impl.locator._py_file)

    def save(self, key: Any, package: bytes, spec: Any) -> None:
        self.save_overload(key, _sealed((package, spec)))

    def _save_overload(self, sig: Any, data: Any) -> None:
        if not self._enabled:
            return
        self._impl.locator.ensure_cache_path()
        self._cache_file.save(self._index_key(sig, None), data)
