"""What ``import numba_ext`` loads: the array layer and the extension, not Numba, LLVM's Python
bindings, the compiler or the kernels (loaded on first use), nor modules that only annotations or
rare paths need. Each one missed here costs every process that imports the package."""

from __future__ import annotations

import subprocess
import sys

#: loaded on first use only
LAZY = (
    "numba",
    "llvmlite",
    "numba_ext.compiler",
    "numba_ext.kernels",
    "numba_ext.functions",
    "numba_ext.library",
    "numpy.typing",  # annotations only
    "pathlib",
    "importlib.util",
    "subprocess",
)


def test_import_leaves_first_use_modules_unloaded():
    # what numba_ext adds to an interpreter that has NumPy (the site may load some of these itself)
    code = (
        "import sys, numpy\nbefore = set(sys.modules)\nimport numba_ext\n"
        f"print(','.join(m for m in {LAZY!r} if m in sys.modules and m not in before))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip() == "", f"import numba_ext loaded {out.stdout.strip()}"
