"""Numba's runtime (NRT), which owns the memory of every numba_ext array: the extension makes each
array's meminfo through NRT's C API so that compiled code can take and drop references to it.

NRT is a small C extension module inside Numba (``numba.core.runtime._nrt_python``). Importing it the
usual way would run ``numba/__init__.py`` (the compiler, most of the package's import time), so until
Numba is imported it is loaded from its file under its own name; Numba then finds that same module
in ``sys.modules`` and uses it (one memory system, one set of statistics).
"""

from __future__ import annotations

import importlib
import importlib.machinery
import os
import sys
from types import ModuleType

from .. import _core

NAME = "numba.core.runtime._nrt_python"


def _load() -> ModuleType:
    module = sys.modules.get(NAME)
    if module is not None:
        return module
    # finds the package without importing it (importlib.machinery only: importlib.util and pathlib
    # would add ~10 ms to `import numba_ext`)
    spec = importlib.machinery.PathFinder.find_spec("numba")
    if spec is None or spec.origin is None:
        raise ImportError("numba_ext needs Numba (pip install numba): it was not found")
    runtime = os.path.join(os.path.dirname(spec.origin), "core", "runtime")
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = os.path.join(runtime, f"_nrt_python{suffix}")
        if os.path.isfile(path):
            break
    else:
        # an unusual layout: the plain import (which imports Numba) finds it
        return importlib.import_module(NAME)
    loader = importlib.machinery.ExtensionFileLoader(NAME, path)
    loaded = importlib.machinery.ModuleSpec(NAME, loader, origin=path)
    module = loader.create_module(loaded)
    module.__spec__, module.__loader__, module.__file__ = loaded, loader, path
    sys.modules[NAME] = module
    try:
        loader.exec_module(module)
    except BaseException:
        del sys.modules[NAME]
        raise
    return module


def install() -> None:
    """Give the extension NRT's C API (idempotent)."""
    _core._set_nrt_api(_load().c_helpers["get_api"])


install()
