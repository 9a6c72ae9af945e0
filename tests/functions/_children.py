"""Running a test's child script in a new process that shares a cache directory."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path


def kernels_compiled_in_child(script: Path, cache_dir: Path) -> int:
    """Run `script` in a new process with `cache_dir` as numba_ext's cache directory; the number it
    prints last (the kernels it compiled). A failed child fails the test with its error output."""
    env = {**os.environ, "NUMBA_EXT_CACHE_DIR": str(cache_dir)}
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return int(out.stdout.split()[-1])


_NUMBA_FREE_CHILD = """
import sys
import numpy as np
import numba_ext
from numba_ext import _core

sys.path.insert(0, {here!r})
compiled = []
for name in ("compile_kernel", "compile_function"):
    real = getattr(_core, name)
    setattr(_core, name, lambda *a, _real=real: compiled.append(1) or _real(*a))
{check}
assert not [m for m in ("numba", "llvmlite", "numba_ext.compiler") if m in sys.modules], sorted(sys.modules)
print(len(compiled))
"""


def numba_free_child(tmp_path: Path, module: str, source: str, check: str) -> Path:
    """Write `source` as the module `module` under `tmp_path`, and a child script that counts the
    kernels it compiles while it runs `check` (code that imports from `module` and checks its
    results), then asserts that Numba was never imported and prints the count. Returns the script,
    for :func:`kernels_compiled_in_child`."""
    (tmp_path / f"{module}.py").write_text(textwrap.dedent(source))
    child = tmp_path / "child.py"
    child.write_text(_NUMBA_FREE_CHILD.format(here=str(tmp_path), check=textwrap.dedent(check).strip()))
    return child
