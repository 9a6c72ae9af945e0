"""Running a test's child script in a new process that shares a cache directory."""

import os
import subprocess
import sys
from pathlib import Path


def kernels_compiled_in_child(script: Path, cache_dir: Path) -> int:
    """Run `script` in a new process with `cache_dir` as numba_ext's cache directory; the number it
    prints last (the kernels it compiled). A failed child fails the test with its error output."""
    env = {**os.environ, "NUMBA_EXT_CACHE_DIR": str(cache_dir)}
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return int(out.stdout.split()[-1])
