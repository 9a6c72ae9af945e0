"""The on-disk program cache: a second process loads the built program and the generated device code
from it; concurrent writers leave one valid entry; invalid entries are ignored and rebuilt; an
unwritable directory warns once; ``NUMBA_EXT_CACHE=0`` writes nothing; least-recently-used
eviction; ``python -m numba_ext cache`` (``--clear`` also deletes the ``kernels/`` folder of earlier
versions). Every compile runs in a child process (tests/devices/program_cache_child.py), so that the
in-process caches cannot hide the disk cache."""

import hashlib
import json
import os
import struct
import subprocess
import sys
import time

import pytest

from ..conftest import DEV, require_device_in_child_process

CHILD = os.path.join(os.path.dirname(__file__), "program_cache_child.py")
MAGIC = b"NXPROGC\0"
HEADER = struct.Struct("<8sI32sQ32s")  # magic, format version, key, payload length, payload SHA-256


def child_env(cache_dir, **extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_EXT_CACHE")}
    env.update(NUMBA_EXT_CACHE_DIR=str(cache_dir), NUMBA_EXT_DEVICE=DEV, **extra)
    return env


def child_cmd(rng, names, sync=None):
    cmd = [sys.executable, CHILD, str(int(rng.integers(2**31))), names]
    return cmd + ([str(sync)] if sync else [])


def finish(proc_out, rc, err):
    assert rc == 0, err
    info = json.loads(proc_out.strip().splitlines()[-1])
    assert info["checked"] >= 1
    return info


def run_child(rng, cache_dir, names="a", **extra):
    """Run the named kernels in a fresh process (each result checked against NumPy there); returns
    that process's program cache state."""
    p = subprocess.run(
        child_cmd(rng, names), env=child_env(cache_dir, **extra), capture_output=True, text=True
    )
    return finish(p.stdout, p.returncode, p.stderr)


def entries(cache_dir, suffix=".bin"):
    """The entries of built programs (``.bin``) or of generated device code (``.code``)."""
    return sorted(f for f in os.listdir(cache_dir) if f.endswith(suffix)) if os.path.isdir(cache_dir) else []


def assert_valid_entry(path):
    with open(path, "rb") as f:
        data = f.read()
    magic, version, key, length, digest = HEADER.unpack_from(data)
    payload = data[HEADER.size :]
    assert magic == MAGIC and version >= 1
    assert os.path.basename(path) in (key.hex() + ".bin", key.hex() + ".code")
    assert length == len(payload) > 0 and hashlib.sha256(payload).digest() == digest


@pytest.fixture(autouse=True)
def _child_sees_device():
    require_device_in_child_process()


def test_second_process_loads_the_program_from_the_cache(rng, tmp_path):
    first = run_child(rng, tmp_path)
    assert (first["hits"], first["misses"], first["stores"]) == (0, 1, 1)
    assert first["dir"] == str(tmp_path) and first["enabled"]
    [entry] = entries(tmp_path)
    assert_valid_entry(tmp_path / entry)
    second = run_child(rng, tmp_path)
    assert (second["hits"], second["misses"], second["stores"], second["rejected"]) == (1, 0, 0, 0)
    assert entries(tmp_path) == [entry]


def test_eager_operations_use_the_cache(rng, tmp_path):
    first = run_child(rng, tmp_path, "e")
    assert first["stores"] >= 1 and first["hits"] == 0
    second = run_child(rng, tmp_path, "e")
    assert second["hits"] == first["stores"] and second["misses"] == 0


def test_second_process_generates_no_device_code(rng, tmp_path):
    """Kernels and eager operations: a new process takes their SPIR-V / PTX from the disk."""
    first = run_child(rng, tmp_path, "a,b,e")
    assert first["code_hits"] == 0 and first["code_misses"] == first["code_stores"] >= 3
    assert first["code_entries"] == first["code_stores"]
    second = run_child(rng, tmp_path, "a,b,e")
    assert (second["code_hits"], second["code_misses"], second["code_stores"]) == (first["code_stores"], 0, 0)
    assert second["hits"] == first["stores"] and second["misses"] == 0


def test_eight_processes_compiling_at_once_leave_one_valid_entry(rng, tmp_path):
    cache, sync = tmp_path / "cache", tmp_path / "sync"
    sync.mkdir()
    procs = [
        subprocess.Popen(
            child_cmd(rng, "a", sync),
            env=child_env(cache),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(8)
    ]
    deadline = time.monotonic() + 240
    while len([f for f in os.listdir(sync) if f.startswith("ready.")]) < 8:
        assert time.monotonic() < deadline and all(p.poll() is None for p in procs), "a child did not start"
        time.sleep(0.05)
    (sync / "go").touch()  # all eight compile from here on
    infos = [finish(*_wait(p)) for p in procs]
    assert sum(i["stores"] for i in infos) >= 1
    left = sorted(os.listdir(cache))
    assert left == sorted(entries(cache) + entries(cache, ".code")), "temporary files left behind"
    [entry] = entries(cache)
    assert_valid_entry(cache / entry)
    [code] = entries(cache, ".code")
    assert_valid_entry(cache / code)
    after = run_child(rng, cache)
    assert (after["hits"], after["rejected"]) == (1, 0)


def _wait(p):
    out, err = p.communicate(timeout=240)
    return out, p.returncode, err


def _truncate(data):
    return data[: len(data) // 2]


def _flip_payload_byte(data):
    i = HEADER.size + (len(data) - HEADER.size) // 2
    return data[:i] + bytes([data[i] ^ 0xFF]) + data[i + 1 :]


def _wrong_magic(data):
    return b"NOTOURS\0" + data[8:]


def _wrong_version(data):
    return data[:8] + struct.pack("<I", 9999) + data[12:]


def _other_key(data):
    # an entry of another program (another numba_ext version, device or driver) under this name
    return data[:12] + hashlib.sha256(b"another program").digest() + data[44:]


def _header_only(data):
    return data[: HEADER.size]


def _garbage_with_valid_checksum(data):
    # a whole, self-consistent entry whose binary the driver cannot load: refused, then rebuilt
    payload = b"\x7fnot a device binary" * 40
    magic, version, key, _, _ = HEADER.unpack_from(data)
    return HEADER.pack(magic, version, key, len(payload), hashlib.sha256(payload).digest()) + payload


@pytest.mark.parametrize(
    "damage",
    [
        _truncate,
        _flip_payload_byte,
        _wrong_magic,
        _wrong_version,
        _other_key,
        _header_only,
        _garbage_with_valid_checksum,
    ],
)
def test_invalid_entries_are_ignored_and_rebuilt(rng, tmp_path, damage):
    run_child(rng, tmp_path)
    [entry] = entries(tmp_path)
    path = tmp_path / entry
    path.write_bytes(damage(path.read_bytes()))
    info = run_child(rng, tmp_path)
    assert (info["hits"], info["rejected"], info["stores"]) == (0, 1, 1)
    assert entries(tmp_path) == [entry]
    assert_valid_entry(path)


@pytest.mark.parametrize(
    "damage",
    [_truncate, _flip_payload_byte, _wrong_version, _other_key, _header_only, _garbage_with_valid_checksum],
)
def test_invalid_code_entries_are_ignored_and_generated_again(rng, tmp_path, damage):
    run_child(rng, tmp_path)
    [entry] = entries(tmp_path, ".code")
    path = tmp_path / entry
    path.write_bytes(damage(path.read_bytes()))
    info = run_child(rng, tmp_path)  # the result is checked against NumPy in the child
    assert (info["code_hits"], info["code_rejected"], info["code_stores"]) == (0, 1, 1)
    assert info["hits"] == 1  # the same device code, so the same built program
    assert entries(tmp_path, ".code") == [entry]
    assert_valid_entry(path)
    assert run_child(rng, tmp_path)["code_hits"] == 1


def _unwritable_child(rng, cache_dir):
    info = run_child(rng, cache_dir, "a,b")
    assert info["checked"] == 2  # both results correct, from programs built in memory
    assert len(info["cache_warnings"]) == 1, info["cache_warnings"]
    assert str(cache_dir) in info["cache_warnings"][0] and "NUMBA_EXT_CACHE_DIR" in info["cache_warnings"][0]
    assert info["stores"] == 0 and info["last_error"]


@pytest.mark.skipif(
    hasattr(os, "geteuid") and os.geteuid() == 0,
    reason="running as root: chmod 0o500 does not stop root writing (the path-below-a-file test covers it)",
)
def test_read_only_directory_warns_once_and_still_computes(rng, tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    cache.chmod(0o500)
    try:
        _unwritable_child(rng, cache)
        assert entries(cache) == []
    finally:
        cache.chmod(0o700)


def test_directory_below_a_file_warns_once_and_still_computes(rng, tmp_path):
    (tmp_path / "file").write_text("not a directory")
    _unwritable_child(rng, tmp_path / "file" / "cache")


def test_cache_off_writes_nothing(rng, tmp_path):
    cache = tmp_path / "cache"
    info = run_child(rng, cache, "a,e", NUMBA_EXT_CACHE="0")
    assert not info["enabled"] and (info["hits"], info["misses"], info["stores"]) == (0, 0, 0)
    assert (info["code_hits"], info["code_misses"], info["code_stores"]) == (0, 0, 0)
    assert not cache.exists()


def test_tiny_bound_keeps_only_the_newest_entry(rng, tmp_path):
    info = run_child(rng, tmp_path, "a,b,c", NUMBA_EXT_CACHE_MAX_MB="0.001")
    assert info["stores"] == 3 and info["evicted"] == 2
    assert len(entries(tmp_path)) == 1
    # generated device code shares the bound: each kernel's code was written before its program
    assert info["code_stores"] == info["code_evicted"] == 3 and entries(tmp_path, ".code") == []
    alone = run_child(rng, tmp_path / "alone", "c")  # the same program in a cache of its own
    assert entries(tmp_path) == entries(tmp_path / "alone")
    assert alone["stores"] == 1


def test_least_recently_used_entry_is_evicted(rng, tmp_path):
    def size(d, names):
        return sum(os.path.getsize(d / e) for e in names)

    programs, alone = {}, {}
    for name in "abc":  # each program's entry, and all it leaves (generated code too), alone
        run_child(rng, tmp_path / name, name)
        [programs[name]] = entries(tmp_path / name)
        alone[name] = size(tmp_path / name, entries(tmp_path / name) + entries(tmp_path / name, ".code"))
    cache = tmp_path / "lru"
    run_child(rng, cache, "a,b")
    assert run_child(rng, cache, "a")["hits"] == 1  # a is now more recently used than b
    codes = entries(cache, ".code")
    total = size(cache, entries(cache) + codes)
    # c's entries added, there is room for all but the generated code and half of b's program, so
    # the code may go first (it is as old as b), then b; a's program, used since, stays (the
    # margin absorbs entries of one kernel differing in size between processes, as NVIDIA's do)
    bound = total + alone["c"] - size(cache, codes) - os.path.getsize(cache / programs["b"]) // 2
    info = run_child(rng, cache, "c", NUMBA_EXT_CACHE_MAX_MB=repr(bound / 2**20))
    assert info["evicted"] == 1
    assert entries(cache) == sorted([programs["a"], programs["c"]])


def test_command_line_shows_and_clears_the_cache(rng, tmp_path):
    run_child(rng, tmp_path, "a,b")
    legacy = tmp_path / "kernels"  # what earlier versions kept for functions compiled from their source
    legacy.mkdir()
    (legacy / "0123abcd.nxk").write_bytes(b"NXK1" + bytes(40))
    env = child_env(tmp_path)
    cmd = [sys.executable, "-m", "numba_ext", "cache"]
    shown = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    assert f"unused: {legacy}" in shown
    every = entries(tmp_path) + entries(tmp_path, ".code")
    assert len(entries(tmp_path, ".code")) == 2  # the code of the two kernels
    size = sum(os.path.getsize(tmp_path / e) for e in every)
    assert str(tmp_path) in shown and "\nentries: 2\n" in shown
    assert "generated device code: 2 entries" in shown
    assert f"{size / 1024:.1f} KiB of" in shown or f"{size} bytes of" in shown
    cleared = subprocess.run(cmd + ["--clear"], env=env, capture_output=True, text=True, check=True).stdout
    assert "removed 5 entries" in cleared and "\nentries: 0\n" in cleared
    assert entries(tmp_path) == [] and entries(tmp_path, ".code") == []
    assert not legacy.exists() and "unused:" not in cleared
    devices = subprocess.run(
        [sys.executable, "-m", "numba_ext"], env=env, capture_output=True, text=True, check=True
    )
    assert DEV in devices.stdout  # the device listing stays the default command
