"""The disk cache of ``jit(cache=True)`` functions compiled from their source: each kernel's package
(its SPIR-V or PTX and launch layout, ``Kernel.package``) in a file named by a digest of the kernel
IR, the device (name, driver version, code target), numba_ext's version and the kernel IR's version.
The kernel IR is the whole computation, so a changed source, global or argument type is a different
file, never a stale one. A new process then skips code generation; the device-program cache below it
(``_core``) skips the driver's build.

Files live in ``kernels/`` under the program cache's directory (``NUMBA_EXT_CACHE_DIR``, else the
user's cache directory); ``NUMBA_EXT_CACHE=0`` turns both off. An entry is a header (magic, SHA-256
of the payload) and the payload, written to a temporary file and renamed into place, so concurrent
writers leave one whole entry; at most ``MAX_ENTRIES`` are kept, the least recently used deleted
first; an entry that is truncated, corrupt or of another format is ignored and rewritten. A
directory that cannot be written is reported once (``CacheWarning``) and the function's kernels stay
in memory.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
import threading
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .. import _core
from ..devices import Device
from ..errors import CacheWarning
from ..ir.kernel_ir import KERNEL_IR_VERSION, Function, KernelSpec

MAGIC = b"NXK1"
#: most entries kept; beyond it the least recently used go (a hit touches its entry)
MAX_ENTRIES = 4096
_warned: set[str] = set()
_lock = threading.Lock()


def enabled() -> bool:
    """Whether ``NUMBA_EXT_CACHE`` leaves the disk caches on (the program cache's own rule, read now)."""
    return _core.program_cache_enabled()


def directory() -> Path | None:
    """Where entries live: ``kernels/`` in the program cache's directory as ``_core`` finds it now
    (None: no cache directory is known)."""
    where = _core.program_cache_directory()
    return Path(where) / "kernels" if where else None


def entry_name(spec: KernelSpec | Function, device: Device) -> str:
    from .. import __version__

    key = repr((spec, device.name, device.driver_version, device.target, __version__, KERNEL_IR_VERSION))
    return hashlib.sha256(key.encode()).hexdigest()[:40] + ".nxk"


def read(path: Path) -> bytes | None:
    """An entry's payload, or None when it is missing or not whole."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if len(data) < 36 or data[:4] != MAGIC or hashlib.sha256(data[36:]).digest() != data[4:36]:
        return None
    return data[36:]


def write(path: Path, payload: bytes) -> None:
    """Write an entry (temporary file, then rename); a directory that cannot be written warns once."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".nxk")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(MAGIC + hashlib.sha256(payload).digest() + payload)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        _evict(path.parent, keep=path)
    except OSError as e:
        where = str(path.parent)
        with _lock:
            first = where not in _warned
            _warned.add(where)
        if first:
            warnings.warn(
                f"numba_ext cannot write the kernel cache at {where} ({e}); compiled kernels are kept "
                "in memory for this process only (set NUMBA_EXT_CACHE_DIR to a writable directory)",
                CacheWarning,
                stacklevel=2,
            )


def _evict(where: Path, keep: Path) -> None:
    """Delete the least recently used entries beyond ``MAX_ENTRIES`` (never `keep`)."""
    files = list(where.glob("*.nxk"))
    if len(files) <= MAX_ENTRIES:
        return
    aged = []
    for f in files:
        try:
            aged.append((f.stat().st_mtime, f))
        except OSError:
            continue  # deleted by another process meanwhile
    aged.sort()
    for _, f in aged[: len(aged) - MAX_ENTRIES]:
        if f != keep:
            f.unlink(missing_ok=True)


def _compile(spec: KernelSpec | Function, device: Device) -> _core.Kernel:
    if isinstance(spec, Function):  # a reduction's kernel
        return _core.compile_function(spec, device)
    return _core.compile_kernel(spec, device)


def compiler(py_func: Callable[..., Any]) -> Callable[[Any, Device], _core.Kernel]:
    """The compile step of a ``cache=True`` function (its fused kernels, ``KernelSpec``, and its
    reductions' kernels, ``Function``): from its entry when whole, else compiled and stored."""

    def compile_cached(spec: KernelSpec | Function, device: Device) -> _core.Kernel:
        where = directory() if enabled() else None
        if where is None:
            return _compile(spec, device)
        path = where / entry_name(spec, device)
        payload = read(path)
        if payload is not None:
            try:
                kernel = _core.kernel_from_package(payload, spec, device)
            except Exception:  # a foreign or damaged package: compiled again below, and rewritten
                pass
            else:
                with contextlib.suppress(OSError):
                    os.utime(path)  # recently used
                return kernel
        kernel = _compile(spec, device)
        write(path, kernel.package)
        return kernel

    compile_cached.__qualname__ = f"compile_cached[{getattr(py_func, '__qualname__', '?')}]"
    return compile_cached


def info() -> dict[str, Any]:
    """The entries' directory, count and total size."""
    where = directory()
    files = list(where.glob("*.nxk")) if where is not None and where.is_dir() else []
    return {
        "dir": str(where) if where else None,
        "entries": len(files),
        "bytes": sum(f.stat().st_size for f in files),
    }


def clear() -> int:
    """Delete every entry; the number deleted."""
    where = directory()
    n = 0
    for f in where.glob("*.nxk") if where is not None and where.is_dir() else []:
        f.unlink(missing_ok=True)
        n += 1
    return n
