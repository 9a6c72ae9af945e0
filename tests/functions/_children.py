"""Running a test's child script in a new process that shares a cache directory."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path


def _run_child(script: Path, cache_dir: Path) -> str:
    """Run `script` in a new process with `cache_dir` as numba_ext's cache directory; its output. A
    failed child fails the test with its error output."""
    env = {**os.environ, "NUMBA_EXT_CACHE_DIR": str(cache_dir)}
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def kernels_compiled_in_child(script: Path, cache_dir: Path) -> int:
    """Run `script` (see :func:`_run_child`); the number it prints last (the kernels it compiled)."""
    return int(_run_child(script, cache_dir).split()[-1])


def code_generated_in_child(script: Path, cache_dir: Path) -> tuple[int, int]:
    """Run `script`, made by :func:`numba_free_child`; the kernels whose device code it generated and
    those whose device code came from the disk (the generated-code cache's ``code_misses`` and
    ``code_hits`` in that process)."""
    line = next(s for s in _run_child(script, cache_dir).splitlines() if s.startswith("device code: "))
    generated, loaded = line.removeprefix("device code: ").split()
    return int(generated), int(loaded)


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
info = _core.program_cache_info()
print("device code:", info["code_misses"], info["code_hits"])
print(len(compiled))
"""


def numba_free_child(tmp_path: Path, module: str, source: str, check: str) -> Path:
    """Write `source` as the module `module` under `tmp_path`, and a child script that counts the
    kernels it compiles while it runs `check` (code that imports from `module` and checks its
    results), then asserts that Numba was never imported and prints the generated-code cache's
    counters and the count. Returns the script, for :func:`kernels_compiled_in_child` and
    :func:`code_generated_in_child`."""
    (tmp_path / f"{module}.py").write_text(textwrap.dedent(source))
    child = tmp_path / "child.py"
    child.write_text(_NUMBA_FREE_CHILD.format(here=str(tmp_path), check=textwrap.dedent(check).strip()))
    return child
