"""The Numba integration: the supported Numba range (declared in pyproject.toml, checked at import)
and the hooks installed once."""

import pathlib
import tomllib

import numba
import pytest
from numba.core import rewrites

from numba_ext.compiler import numba_hooks
from numba_ext.compiler.types import USMArrayType

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_pyproject_declares_the_checked_range():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert numba_hooks.supported_numba_range() in deps


def test_installed_numba_is_in_range():
    numba_hooks.check_numba_version()  # the tested version itself
    assert numba_hooks.SUPPORTED_NUMBA[0] <= numba.version_info.short < numba_hooks.SUPPORTED_NUMBA[1]


@pytest.mark.parametrize("version", [(0, 59), (0, 67), (0, 69), (1, 0)])
def test_unsupported_numba_is_refused_with_the_range(version):
    with pytest.raises(ImportError, match=r"numba>=0\.68,<0\.69") as e:
        numba_hooks.check_numba_version(version)
    assert "pip install" in str(e.value)


def test_install_is_idempotent():
    numba_hooks.install()
    numba_hooks.install()
    for stage in ("before-inference", "after-inference"):
        names = [r.__name__ for r in rewrites.rewrite_registry.rewrites[stage]]
        assert len(names) == len(set(names)), names
    assert USMArrayType._is_internal
