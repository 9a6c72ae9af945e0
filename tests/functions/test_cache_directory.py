"""Where the disk caches live and whether they are on: the Rust core's rules (``NUMBA_EXT_CACHE_DIR``,
else the user's cache directory; ``NUMBA_EXT_CACHE``), read from the environment at each call. The
kernels of ``jit(cache=True)`` functions compiled from their source follow them: their device code
goes to the generated-code cache every compile uses."""

import importlib.util
import sys

import numpy as np
import pytest

import numba_ext
from numba_ext import _core

_VARIABLES = ("NUMBA_EXT_CACHE_DIR", "XDG_CACHE_HOME", "HOME", "NUMBA_EXT_CACHE")


def _environment(monkeypatch, **values):
    for name in _VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for name, value in values.items():
        monkeypatch.setenv(name, str(value))


def _agree(expected):
    """The program cache names `expected` (its directory, or None) right now."""
    assert _core.program_cache_directory() == (None if expected is None else str(expected))
    assert _core.program_cache_info()["dir"] == _core.program_cache_directory()


def test_numba_ext_cache_dir_comes_first(tmp_path, monkeypatch):
    _environment(
        monkeypatch, NUMBA_EXT_CACHE_DIR=tmp_path / "mine", XDG_CACHE_HOME=tmp_path / "xdg", HOME=tmp_path
    )
    _agree(tmp_path / "mine")


@pytest.mark.skipif(sys.platform == "win32", reason="Windows uses LOCALAPPDATA instead")
def test_xdg_cache_home(tmp_path, monkeypatch):
    _environment(monkeypatch, XDG_CACHE_HOME=tmp_path / "xdg", HOME=tmp_path / "home")
    _agree(tmp_path / "xdg" / "numba_ext" / "programs")
    monkeypatch.setenv("NUMBA_EXT_CACHE_DIR", "")  # empty: as if unset
    _agree(tmp_path / "xdg" / "numba_ext" / "programs")


@pytest.mark.skipif(sys.platform == "win32", reason="Windows uses LOCALAPPDATA instead")
def test_only_home(tmp_path, monkeypatch):
    _environment(monkeypatch, HOME=tmp_path / "home")
    _agree(tmp_path / "home" / ".cache" / "numba_ext" / "programs")
    monkeypatch.delenv("HOME")
    _agree(None)


@pytest.mark.parametrize("off", ["0", "off", "False", " no "])
def test_numba_ext_cache_off_is_read_at_each_call(tmp_path, monkeypatch, off):
    _environment(monkeypatch, NUMBA_EXT_CACHE_DIR=tmp_path, NUMBA_EXT_CACHE=off)
    assert not _core.program_cache_enabled()
    assert _core.program_cache_info()["enabled"] is False
    monkeypatch.setenv("NUMBA_EXT_CACHE", "1")
    assert _core.program_cache_enabled() and _core.program_cache_info()["enabled"] is True


def _cached_function(where, scale):
    """A ``jit(cache=True)`` function of a module of its own (its kernel, with `scale` in it, is
    compiled by no other test)."""
    name = f"scaled_{where.name}"
    path = where / f"{name}.py"
    where.mkdir()
    path.write_text(
        "import numpy as np\nimport numba_ext\n\n\n@numba_ext.jit(cache=True)\n"
        f"def scaled_sum(a, b):\n    return a * {scale!r} + np.sqrt(np.abs(b))\n"
    )
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.scaled_sum


def test_cache_true_source_kernels_follow_the_cache_rules(tmp_path, monkeypatch, rng):
    cache = tmp_path / "cache"
    _environment(monkeypatch, NUMBA_EXT_CACHE_DIR=cache, NUMBA_EXT_CACHE="0")
    a, b = rng.standard_normal(64), rng.standard_normal(64)
    scale = float(rng.uniform(1.0, 2.0))
    f = _cached_function(tmp_path / "off", scale)
    got = numba_ext.asnumpy(f(numba_ext.asarray(a), numba_ext.asarray(b)))
    np.testing.assert_allclose(got, a * scale + np.sqrt(np.abs(b)), rtol=1e-12, atol=1e-14)
    assert f._impl is None  # served from the source
    assert not cache.exists()  # off: nothing written

    monkeypatch.setenv("NUMBA_EXT_CACHE", "1")  # read again at the next compile: now stored
    before = _core.program_cache_info()["code_stores"]
    g = _cached_function(tmp_path / "on", scale + 1.0)
    got = numba_ext.asnumpy(g(numba_ext.asarray(a), numba_ext.asarray(b)))
    np.testing.assert_allclose(got, a * (scale + 1.0) + np.sqrt(np.abs(b)), rtol=1e-12, atol=1e-14)
    assert g._impl is None
    assert _core.program_cache_info()["code_stores"] == before + 1
    assert len(list(cache.glob("*.code"))) == 1
    assert not (cache / "kernels").exists()
