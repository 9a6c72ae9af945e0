"""The self-contained wheel (scripts/build_wheel.sh, `make wheel`): the build configuration that links
LLVM statically into wheels and dynamically into development builds, and the shared libraries the
loaded extension needs. The full check (build, `auditwheel repair`, install in a clean environment)
is `scripts/gpu_check.sh pack` + `selftest`; these tests are the cheap part."""

import ctypes
import pathlib
import struct
import tomllib
from importlib import metadata

import pytest

from numba_ext import _core

ROOT = pathlib.Path(__file__).resolve().parents[2]
LINK_PREFERENCES = ("prefer-static", "prefer-dynamic", "force-static", "force-dynamic")


def needed_libraries(path: str) -> list[str]:
    """The DT_NEEDED entries of an ELF64 little-endian shared object (what `ldd` starts from)."""
    data = pathlib.Path(path).read_bytes()
    assert data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1, "not an ELF64 little-endian file"
    shoff, shentsize, shnum = struct.unpack_from("<Q", data, 0x28)[0], *struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    dynamic = next(s for s in sections if s[1] == 6)  # SHT_DYNAMIC
    strtab = sections[dynamic[6]]  # its sh_link: the string table (.dynstr)
    out = []
    for off in range(dynamic[4], dynamic[4] + dynamic[5], 16):
        tag, val = struct.unpack_from("<qQ", data, off)
        if tag == 0:  # DT_NULL
            break
        if tag == 1:  # DT_NEEDED
            start = strtab[4] + val
            out.append(data[start : data.index(b"\0", start)].decode())
    return out


def installed_from_wheel() -> bool:
    """Whether the loaded extension is the file a wheel installed (listed in the RECORD of the
    numba_ext distribution), rather than a build in the source tree (`make build`, cargo)."""
    try:
        dist = metadata.distribution("numba_ext")
    except metadata.PackageNotFoundError:
        return False
    core = pathlib.Path(_core.__file__).resolve()
    return any(pathlib.Path(dist.locate_file(f)).resolve() == core for f in dist.files or [])


def test_wheels_ask_for_static_llvm():
    maturin = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["maturin"]
    assert set(maturin["features"]) == {"python", "static-llvm"}
    # without it, the default feature (dynamic-llvm) would join and llvm-sys refuses two link kinds
    assert maturin["no-default-features"] is True


def test_link_kind_is_one_cargo_feature():
    cargo = tomllib.loads((ROOT / "Cargo.toml").read_text())
    inkwell = cargo["dependencies"]["inkwell"]["features"]
    # the dependency itself names no link preference: the two features below choose one
    assert not [f for f in inkwell if f.endswith(LINK_PREFERENCES)], inkwell
    features = cargo["features"]
    assert features["static-llvm"] == ["inkwell/llvm22-1-force-static"]
    assert features["dynamic-llvm"] == ["inkwell/llvm22-1-prefer-dynamic"]
    assert features["default"] == ["dynamic-llvm"]


def test_development_builds_link_libllvm_dynamically():
    # `make build` replaces the wheel's features from pyproject.toml by these
    makefile = (ROOT / "Makefile").read_text()
    assert "maturin develop --release -q \\\n\t  -F python -F dynamic-llvm" in makefile


def test_extension_links_no_opencl_or_spirv_tools():
    # the OpenCL ICD loader is opened at run time (cl3's dlopen), the system's, never bundled;
    # SPIR-V is emitted by LLVM itself (spirv-val is for the tests only)
    needed = needed_libraries(_core.__file__)
    assert needed, "no DT_NEEDED entries read"
    assert not [n for n in needed if n.startswith(("libOpenCL", "libSPIRV", "libclang"))], needed


def test_wheel_extension_needs_no_llvm():
    if not installed_from_wheel():
        pytest.skip(
            f"numba_ext._core is a source-tree build ({_core.__file__}); the wheel's static link is "
            "checked by scripts/build_wheel.sh and `scripts/gpu_check.sh selftest`"
        )
    needed = needed_libraries(_core.__file__)
    assert not [n for n in needed if n.startswith(("libLLVM", "libz3", "libxml2", "libicu"))], needed


def test_spirv_helper_entry_point_is_exported_and_inert_outside_a_helper():
    # the helper command calls it after loading the library (LLVM's constructors first); in a process
    # not started as a helper it returns at once
    lib = ctypes.CDLL(_core.__file__)
    lib.numba_ext_spirv_helper.restype = None
    assert lib.numba_ext_spirv_helper() is None
