"""One set of rules for where the disk caches live and whether they are on: the kernel store of
``jit(cache=True)`` (``functions.disk``) takes both from the program cache of the Rust core, read
from the environment at each call."""

import sys
from pathlib import Path

import numpy as np
import pytest

import numba_ext
from numba_ext import _core
from numba_ext.functions import disk

_VARIABLES = ("NUMBA_EXT_CACHE_DIR", "XDG_CACHE_HOME", "HOME", "NUMBA_EXT_CACHE")


def _environment(monkeypatch, **values):
    for name in _VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for name, value in values.items():
        monkeypatch.setenv(name, str(value))


def _agree(expected):
    """Both caches name `expected` (the program cache's directory, or None) right now."""
    assert _core.program_cache_directory() == (None if expected is None else str(expected))
    assert _core.program_cache_info()["dir"] == _core.program_cache_directory()
    assert disk.directory() == (None if expected is None else Path(expected) / "kernels")
    assert disk.info()["dir"] == (None if expected is None else str(Path(expected) / "kernels"))


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


def scaled_sum(a, b):
    return a * 1.5 + np.sqrt(np.abs(b))


@pytest.mark.parametrize("off", ["0", "off", "False", " no "])
def test_numba_ext_cache_off_disables_the_kernel_store(tmp_path, monkeypatch, rng, off):
    _environment(monkeypatch, NUMBA_EXT_CACHE_DIR=tmp_path, NUMBA_EXT_CACHE=off)
    assert not disk.enabled() and not _core.program_cache_enabled()
    assert _core.program_cache_info()["enabled"] is False
    a, b = rng.standard_normal(64), rng.standard_normal(64)
    expected = a * 1.5 + np.sqrt(np.abs(b))
    f = numba_ext.jit(cache=True)(scaled_sum)
    got = numba_ext.asnumpy(f(numba_ext.asarray(a), numba_ext.asarray(b)))
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-14)
    assert f._impl is None  # served from the source, where the kernel store applies
    assert list(tmp_path.rglob("*.nxk")) == []

    monkeypatch.setenv("NUMBA_EXT_CACHE", "1")  # read again at the next compile: now stored
    assert disk.enabled() and _core.program_cache_enabled()
    g = numba_ext.jit(cache=True)(scaled_sum)
    got = numba_ext.asnumpy(g(numba_ext.asarray(a), numba_ext.asarray(b)))
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-14)
    assert len(list((tmp_path / "kernels").glob("*.nxk"))) == 1
