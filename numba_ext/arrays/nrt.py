"""Numba's runtime (NRT), which owns the memory of every numba_ext array: the extension makes each
array's meminfo through NRT's C API so that compiled code can take and drop references to it.

NRT is a small C extension module inside Numba (``numba.core.runtime._nrt_python``). Importing it the
usual way would run ``numba/__init__.py`` (the compiler, most of the package's import time), so until
Numba is imported it is loaded from its file under its own name; Numba then finds that same module
in ``sys.modules`` and uses it (one memory system, one set of statistics).
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from .. import _core

NAME = "numba.core.runtime._nrt_python"


def _load() -> ModuleType:
    module = sys.modules.get(NAME)
    if module is not None:
        return module
    spec = importlib.util.find_spec("numba")  # finds the package without importing it
    if spec is None or spec.origin is None:
        raise ImportError("numba_ext needs Numba (pip install numba): it was not found")
    runtime = Path(spec.origin).parent / "core" / "runtime"
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = runtime / f"_nrt_python{suffix}"
        if path.is_file():
            break
    else:
        # an unusual layout: the plain import (which imports Numba) finds it
        return importlib.import_module(NAME)
    loaded = importlib.util.spec_from_file_location(NAME, path)
    assert loaded is not None and loaded.loader is not None
    module = importlib.util.module_from_spec(loaded)
    sys.modules[NAME] = module
    try:
        loaded.loader.exec_module(module)
    except BaseException:
        del sys.modules[NAME]
        raise
    return module


def install() -> None:
    """Give the extension NRT's C API (idempotent)."""
    _core._set_nrt_api(_load().c_helpers["get_api"])


install()
