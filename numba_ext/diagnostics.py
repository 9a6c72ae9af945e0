"""What ``python -m numba_ext`` prints: the versions of numba_ext and what it runs on (Numba, NumPy,
llvmlite, Python, the LLVM library the compiled core links), the OpenCL platforms with their
drivers and devices, and the default device. ``selfcheck`` runs code on each device."""

from __future__ import annotations

import platform
import re
import sys
from importlib import metadata

import llvmlite
import llvmlite.binding
import numba
import numpy as np

import numba_ext
from numba_ext.devices import platforms


def core_llvm() -> str:
    """The LLVM shared library the compiled core is linked with, as the process has it mapped
    (e.g. ``22.1 (libLLVM.so.22.1)``); llvmlite's LLVM is linked statically and never appears."""
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if "libLLVM" in line}
    except OSError:
        return "unknown"
    for path in sorted(paths):
        m = re.search(r"libLLVM[-.]?(?:so\.)?(\d+(?:\.\d+)*)", path.rsplit("/", 1)[-1])
        if m:
            return f"{m.group(1)} ({path})"
    return "unknown (no libLLVM mapped)"


def _package_version(name: str, fallback: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return fallback


def versions() -> dict[str, str]:
    """The versions that matter when reporting a problem."""
    llvm = ".".join(map(str, llvmlite.binding.llvm_version_info))
    return {
        "numba_ext": numba_ext.__version__,
        "numba": numba.__version__,
        "numpy": np.__version__,
        "llvmlite": f"{llvmlite.__version__} (LLVM {llvm})",
        "python": f"{platform.python_version()} ({sys.executable})",
        "platform": f"{platform.system()} {platform.machine()} ({platform.release()})",
        "core LLVM": core_llvm(),
        "intel-opencl-rt": _package_version("intel-opencl-rt", "not installed from PyPI"),
    }


def _size(n: int) -> str:
    if n >= 1 << 30:
        return f"{n / (1 << 30):.1f} GiB"
    return f"{n / (1 << 20):.1f} MiB" if n >= 1 << 20 else f"{n / 1024:.0f} KiB"


def _opencl_info(dev: numba_ext.Device, found: list[platforms.PlatformInfo]) -> platforms.DeviceInfo | None:
    """The OpenCL report of ``dev``: the first device with its name, vendor and driver version."""
    for p in found:
        for d in p.devices:
            if (d.name, d.vendor, d.driver_version) == (dev.name, dev.vendor, dev.driver_version):
                return d
    return None


def default_device() -> tuple[numba_ext.Device | None, str]:
    """The default device and a line naming it (or saying why there is none)."""
    try:
        dev = numba_ext.default_queue().device
    except numba_ext.errors.NumbaExtError as e:  # e.g. NUMBA_EXT_DEVICE names no listed device
        return None, f"default device: none ({e})"
    return dev, f"default device: {dev.filter_string} {dev.name} (target {dev.target})"


def device_lines(dev: numba_ext.Device, info: platforms.DeviceInfo | None, default: bool) -> list[str]:
    """The lines describing one device."""
    mark = "  (default)" if default else ""
    ocl = info.opencl_version if info else "unknown"
    mem = _size(info.global_mem_size) if info and info.global_mem_size else "unknown"
    target = dev.target or "none: numba_ext cannot compile for it (no SPIR-V IL support, not NVIDIA)"
    return [
        f"  {dev.filter_string}: {dev.name}{mark}",
        f"      type {dev.device_type}, vendor {dev.vendor}, driver {dev.driver_version}, {ocl}",
        f"      target {target}, memory back end {dev.memory_backend}"
        f" ({'USM' if dev.memory_backend == 'usm' else 'cl_mem buffers'})",
        f"      fp64 {'yes' if dev.has_fp64 else 'no'}, fp16 {'yes' if dev.has_aspect_fp16 else 'no'}, "
        f"max work-group size {dev.max_work_group_size}, compute units {dev.max_compute_units}",
        f"      global memory {mem}, local memory {_size(dev.local_mem_size)}",
    ]


def report() -> list[str]:
    """Everything ``python -m numba_ext`` prints, as lines."""
    lines = [f"{k + ':':<17}{v}" for k, v in versions().items()]
    devs = numba_ext.get_devices()
    if not devs:
        lines.append("No OpenCL devices found. Install a runtime, e.g. `pip install intel-opencl-rt`.")
        return lines
    default, default_line = default_device()
    found = platforms.platforms()
    listed: set[str] = set()
    for p in found:
        lines.append(f"OpenCL platform: {p.name} [{p.vendor}], {p.version}")
        for d in devs:
            if d.filter_string not in listed and _opencl_info(d, [p]) is not None:
                listed.add(d.filter_string)
                lines += device_lines(d, _opencl_info(d, [p]), d == default)
    rest = [d for d in devs if d.filter_string not in listed]
    if rest:
        lines.append("OpenCL platform: unknown (not found through libOpenCL.so.1)")
        for d in rest:
            lines += device_lines(d, None, d == default)
    lines.append(default_line)
    return lines
