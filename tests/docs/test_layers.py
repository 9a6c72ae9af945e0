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
