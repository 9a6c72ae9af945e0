"""Compiled code cached on disk: ``numba_ext.jit(cache=True)``, ``numba.njit(cache=True)`` on USM
arrays and ``numba_ext.kernel(cache=True)``. A new process loads them with no Numba typing, no code
generation and no driver build (disk_cache_child.py counts each); a changed source file, a changed
numba_ext build and damaged entries recompile; results always equal NumPy's."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from ..conftest import DEV, require_device_in_child_process

CHILD = os.path.join(os.path.dirname(__file__), "disk_cache_child.py")

SOURCE = """
import numba
import numpy as np
import numba_ext


@numba_ext.jit(cache=True)
def expr(a, b):
    return np.sqrt(a) * b + SCALE


@numba_ext.jit(cache=True)
def reduce(a):
    s = 0.0
    for i in numba.prange(a.shape[0]):
        s += a[i] * SCALE
    return s


@numba.njit(cache=True)
def plain(a, b):
    return a * b - SCALE


@numba_ext.jit(cache=True)
def alloc(n):
    return numba_ext.ones(n, device=DEVICE) * SCALE


@numba_ext.kernel(cache=True)
def kern(a, b, c):
    i = numba_ext.get_global_id(0)
    c[i] = a[i] * SCALE - b[i]
"""


def write_module(path, scale):
    path.write_text(f"SCALE = {scale!r}\nDEVICE = {DEV!r}\n" + textwrap.dedent(SOURCE))


def run(tmp_path, seed, **env):
    e = {
        **os.environ,
        "NUMBA_CACHE_DIR": str(tmp_path / "numba"),
        "NUMBA_EXT_CACHE_DIR": str(tmp_path / "programs"),
    }
    e.update(env)
    p = subprocess.run(
        [sys.executable, CHILD, str(tmp_path), "cached_mod", str(seed)], env=e, capture_output=True, text=True
    )
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1]), p.stderr


def check_results(res, seed, scale):
    rng = np.random.default_rng(seed)
    a, b = rng.random(1000), rng.random(1000)
    np.testing.assert_allclose(res["expr"], np.sqrt(a) * b + scale, rtol=1e-12)
    np.testing.assert_allclose(res["prange"], (a * scale).sum(), rtol=1e-12)
    np.testing.assert_allclose(res["njit"], a * b - scale, rtol=1e-12)
    np.testing.assert_allclose(res["kernel"], a * scale - b, rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(res["alloc"], np.full(5, scale))


@pytest.fixture
def cached_module(tmp_path, rng):
    require_device_in_child_process()
    write_module(tmp_path / "cached_mod.py", 2.5)
    return tmp_path


def test_new_process_loads_everything_without_compiling(cached_module, rng):
    seed = int(rng.integers(2**31))
    first, _ = run(cached_module, seed)
    check_results(first["results"], seed, 2.5)
    assert first["typing"] > 0 and first["codegen"] > 0 and first["driver_builds"] > 0
    seed2 = int(rng.integers(2**31))
    second, _ = run(cached_module, seed2)
    check_results(second["results"], seed2, 2.5)
    assert second["numba_hits"] == 2  # reduce, plain (expr runs from its source)
    assert first["source"] and second["source"]
    assert (second["typing"], second["codegen"], second["driver_builds"]) == (0, 0, 0), second
    assert second["compiles"] == 1  # expr's kernel, its device code from the generated-code cache


def test_changed_source_recompiles(cached_module, rng):
    seed = int(rng.integers(2**31))
    run(cached_module, seed)
    write_module(cached_module / "cached_mod.py", -1.25)
    os.utime(cached_module / "cached_mod.py", (1, 1))  # a different stamp even within the mtime's resolution
    res, _ = run(cached_module, seed)
    check_results(res["results"], seed, -1.25)
    assert res["typing"] > 0 and res["codegen"] > 0


def test_damaged_entries_are_ignored_and_rebuilt(cached_module, rng):
    seed = int(rng.integers(2**31))
    run(cached_module, seed)
    damaged = 0
    for root, _, files in os.walk(cached_module / "numba"):
        for f in files:
            if f.endswith(".nbc") and not f.startswith("cached_mod.plain"):  # plain's are Numba's own
                path = os.path.join(root, f)
                data = bytearray(Path(path).read_bytes())
                data[len(data) // 2] ^= 0xFF  # one flipped byte in the middle
                Path(path).write_bytes(bytes(data))
                damaged += 1
    assert damaged == 3  # reduce, alloc, kern
    code = list((cached_module / "programs").glob("*.code"))  # expr's device code among them
    assert code
    for entry in code:
        data = bytearray(entry.read_bytes())
        data[len(data) // 2] ^= 0xFF
        entry.write_bytes(bytes(data))
    res, err = run(cached_module, seed)
    check_results(res["results"], seed, 2.5)
    assert "CacheWarning" in err and res["codegen"] > 0
    again, _ = run(cached_module, seed)  # the rebuilt entries load (numba_ext's entries are sealed)
    check_results(again["results"], seed, 2.5)
    assert (again["typing"], again["codegen"]) == (0, 0)


def test_truncated_entries_are_ignored(cached_module, rng):
    seed = int(rng.integers(2**31))
    run(cached_module, seed)
    for root, _, files in os.walk(cached_module / "numba"):
        for f in files:
            if f.endswith(".nbc") and not f.startswith("cached_mod.plain"):
                path = os.path.join(root, f)
                data = Path(path).read_bytes()
                Path(path).write_bytes(data[: len(data) // 3])
    res, err = run(cached_module, seed)
    check_results(res["results"], seed, 2.5)
    assert "CacheWarning" in err


def test_another_numba_ext_build_recompiles(cached_module, rng):
    seed = int(rng.integers(2**31))
    run(cached_module, seed)
    res, _ = run(cached_module, seed, CHILD_OTHER_BUILD="1")  # the child reports another build id
    check_results(res["results"], seed, 2.5)
    # (the device code may still come from the generated-code cache, keyed by the compiled library's
    # own identity, which this stand-in for another build leaves as it is)
    assert res["numba_hits"] == 0 and res["compiles"] > 0 and res["typing"] > 0
