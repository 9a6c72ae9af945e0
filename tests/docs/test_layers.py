"""The package's layers as documented: each layer's docstring says what it owns and what it may
import, and no module inside a layer imports the package root (import-linter, run by `make test`,
checks the imports between layers; the root is invisible to it because the compiled extension is
imported through it)."""

import ast
import importlib
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[2] / "numba_ext"
LAYERS = ["devices", "arrays", "placement", "compiler", "kernels", "library"]


@pytest.mark.parametrize("layer", LAYERS)
def test_layer_docstring_states_ownership_and_imports(layer):
    doc = importlib.import_module(f"numba_ext.{layer}").__doc__
    assert doc and "Owns:" in doc and "May import:" in doc, f"numba_ext.{layer} lacks its contract"


def _root_imports(path: pathlib.Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [f"line {node.lineno}: import {a.name}" for a in node.names if a.name == "numba_ext"]
        elif isinstance(node, ast.ImportFrom):
            depth = len(path.relative_to(PACKAGE).parts)  # how many dots reach the root
            to_root = (node.level == 0 and node.module == "numba_ext") or (
                node.level == depth and not node.module
            )
            names = [a.name for a in node.names if a.name != "_core"]
            if to_root and node.level and any(n not in LAYERS + ["errors"] for n in names):
                found.append(f"line {node.lineno}: from {'.' * node.level} import {', '.join(names)}")
            elif node.level == 0 and node.module == "numba_ext":
                found.append(f"line {node.lineno}: from numba_ext import ...")
    return found


@pytest.mark.parametrize("layer", LAYERS)
def test_layers_never_import_the_package_root(layer):
    bad = {
        str(p.relative_to(PACKAGE)): hits
        for p in sorted((PACKAGE / layer).rglob("*.py"))
        if (hits := _root_imports(p))
    }
    assert not bad, bad


def _child(code: str) -> str:
    import subprocess
    import sys

    from tests.conftest import require_device_in_child_process

    require_device_in_child_process()
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout


def test_import_loads_numba_on_first_use():
    """`import numba_ext` imports neither Numba nor the layers built on it; arrays are made, copied
    and described without them; the first operator loads them, and its result is right."""
    out = _child(
        """
import sys
import numpy as np
import numba_ext as nx
heavy = ("numba", "llvmlite", "numba_ext.compiler", "numba_ext.kernels", "numba_ext.library")
print("after import:", sorted(m for m in heavy if m in sys.modules))
a = np.random.default_rng().standard_normal(1000)
x = nx.asarray(a)
y = nx.full(1000, 2.5, dtype=np.float32)
z = nx.arange(7)
assert np.array_equal(nx.asnumpy(x), a) and np.all(nx.asnumpy(y) == np.float32(2.5))
assert np.array_equal(nx.asnumpy(z[::2]), np.arange(7)[::2])
assert x.shape == (1000,) and x.usm_type == "device" and len(x.__dlpack_device__()) == 2
print("after arrays:", sorted(m for m in heavy if m in sys.modules))
got = nx.asnumpy(x * 2.0 + 1.0)
assert np.allclose(got, a * 2.0 + 1.0), got
print("after an operator:", sorted(m for m in heavy if m in sys.modules))
"""
    )
    lines = out.splitlines()
    assert lines[0] == "after import: []", out
    assert lines[1] == "after arrays: []", out
    assert "numba_ext.library" in lines[2] and "numba" in lines[2], out


def test_arrays_made_before_numba_loads_work_in_compiled_code():
    """Arrays made before Numba is imported (their Numba type not yet known) are typed on first use:
    by plain ``numba.njit`` (Numba's entry point installs the extension), ``numba.typeof`` and
    ``numba_ext.jit``; kernels launch on them."""
    out = _child(
        """
import numpy as np
import numba_ext as nx
a = np.random.default_rng().standard_normal(64)
x = nx.asarray(a)
out = nx.full(64, np.nan)
import numba
t = str(numba.typeof(x))
assert t == f"USMArray(float64, 1d, C, device, {x.device.filter_string})", t
f = numba.njit(lambda v: v * 3.0)
assert np.allclose(nx.asnumpy(f(x)), a * 3.0)
g = nx.jit(lambda v: (v - 1.0).sum())
assert np.isclose(g(x), (a - 1.0).sum())
@nx.kernel
def k(v, o):
    i = nx.get_global_id(0)
    o[i] = v[i] + 1.0
k[64](x, out)
assert np.allclose(nx.asnumpy(out), a + 1.0)
print("ok")
"""
    )
    assert out.strip() == "ok", out
