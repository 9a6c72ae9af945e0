"""Registration of OpenCL drivers with the ICD loader, done before the first OpenCL call (and of
libdevice from a Python wheel for the PTX path, see ``register_libdevice``).

The Intel OpenCL CPU runtime from PyPI (``intel-opencl-rt``) installs ``libintelocl.so`` into
``<prefix>/lib`` with an ``.icd`` file that points nowhere useful, and NVIDIA's driver is often not
registered either. The ICD loader reads the folder named by ``OCL_ICD_VENDORS``; we build such a
folder (the system's vendor files plus the drivers found here) and point the variable at it, so
users never set anything. A user who set ``OCL_ICD_VENDORS`` themselves keeps their choice.
"""

from __future__ import annotations

import glob
import os
import sys
import zlib

_SYSTEM_VENDORS = "/etc/OpenCL/vendors"


def _candidate_intel_cpu() -> list[str]:
    prefixes = {sys.prefix, sys.base_prefix, os.path.dirname(os.path.dirname(sys.executable))}
    found = []
    for p in prefixes:
        for lib in glob.glob(os.path.join(p, "lib", "libintelocl.so")):
            found.append(os.path.realpath(lib))
    return sorted(set(found))


def _candidate_nvidia() -> list[str]:
    """NVIDIA's OpenCL driver library where the machine has NVIDIA's kernel driver: the usual
    folders first, then the dynamic linker's search (``ldconfig``, a subprocess: run only there, as
    this runs at every import)."""
    for d in ("/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/nvidia/lib64"):
        p = os.path.join(d, "libnvidia-opencl.so.1")
        if os.path.exists(p):
            return [p]
    if not (os.path.exists("/dev/nvidiactl") or os.path.isdir("/proc/driver/nvidia")):
        return []  # no NVIDIA driver: no NVIDIA OpenCL device either
    import ctypes.util

    name = ctypes.util.find_library("nvidia-opencl")
    return [name] if name else []


def _system_vendor_files() -> dict[str, str]:
    out = {}
    if os.path.isdir(_SYSTEM_VENDORS):
        for f in sorted(os.listdir(_SYSTEM_VENDORS)):
            if f.endswith(".icd"):
                try:
                    with open(os.path.join(_SYSTEM_VENDORS, f)) as fh:
                        out[f] = fh.read().strip()
                except OSError:
                    pass
    return out


def register() -> str | None:
    """Point the ICD loader at a vendors folder that includes the drivers installed with Python
    packages. Returns the folder used, or None when the user's own setting is kept. A folder of
    ours already named there (inherited from the process that started this one) is set up again,
    so that this process's ``OCL_ICD_FILENAMES`` names the drivers too."""
    vendors = os.environ.get("OCL_ICD_VENDORS")
    if vendors and not _is_our_folder(vendors):
        return None
    entries = _system_vendor_files()
    listed = set(entries.values())
    for lib in _candidate_intel_cpu():
        if lib not in listed and os.path.basename(lib) not in listed:
            entries["numba_ext-intel-cpu.icd"] = lib
    has_nvidia = any("nvidia" in v for v in entries.values())
    if not has_nvidia:
        for lib in _candidate_nvidia():
            entries["numba_ext-nvidia.icd"] = lib
    if not entries:
        return None
    listing = repr(sorted(entries.items())).encode()
    digest = f"{zlib.crc32(listing):08x}{zlib.adler32(listing):08x}"  # names the folder of this listing
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = os.path.join(base, "numba_ext", "icd", digest)
    try:
        _write_folder(folder, entries)
    except OSError:
        import tempfile

        folder = os.path.join(tempfile.gettempdir(), f"numba_ext-icd-{os.getuid()}-{digest}")
        _write_folder(folder, entries)
    os.environ["OCL_ICD_VENDORS"] = folder
    # The Khronos loader (the libOpenCL.so.1 of NVIDIA's CUDA toolkit, for one) ignores such a folder
    # but loads the libraries listed in OCL_ICD_FILENAMES in addition to its vendors folder: name the
    # drivers we add there too (Debian's ocl-icd reads only the folder). A driver listed by both
    # routes is one platform twice, which device discovery drops (same platform id).
    ours = [lib for name, lib in entries.items() if name.startswith("numba_ext-")]
    current = [f for f in os.environ.get("OCL_ICD_FILENAMES", "").split(":") if f]
    added = [lib for lib in ours if lib not in current and os.path.basename(lib) not in current]
    if added:
        os.environ["OCL_ICD_FILENAMES"] = ":".join(current + added)
    return folder


def _is_our_folder(folder: str) -> bool:
    """Whether `folder` is a vendors folder ``register`` made (its cache folder or the fallback)."""
    parent, leaf = os.path.split(os.path.normpath(folder))
    return (
        os.path.split(parent)[1] == "icd"
        and os.path.basename(os.path.dirname(parent)) == "numba_ext"
        or (leaf.startswith("numba_ext-icd-"))
    )


def _write_folder(folder: str, entries: dict[str, str]) -> None:
    if os.path.isdir(folder) and sorted(os.listdir(folder)) == sorted(entries):
        return
    os.makedirs(folder, exist_ok=True)
    for name, lib in entries.items():
        tmp = os.path.join(folder, f".{name}.{os.getpid()}")
        with open(tmp, "w") as fh:
            fh.write(lib + "\n")
        os.replace(tmp, os.path.join(folder, name))


def find_libdevice_wheel() -> str | None:
    """libdevice (``libdevice.10.bc``) from NVIDIA's ``nvidia-nvvm`` wheel (CUDA 13: ``nvidia/cu13``;
    CUDA 12 ``nvidia-cuda-nvcc-cu12``: ``nvidia/cuda_nvcc``), if installed."""
    for entry in sys.path:
        for sub in ("cu13", "cu12", "cuda_nvcc", "nvvm"):
            for p in glob.glob(
                os.path.join(entry or ".", "nvidia", sub, "nvvm", "libdevice", "libdevice*.bc")
            ) + glob.glob(os.path.join(entry or ".", "nvidia", sub, "libdevice", "libdevice*.bc")):
                return p
    return None


def register_libdevice() -> str | None:
    """Let the PTX compiler (Rust side, which also searches the CUDA toolkit's usual places) find
    libdevice in a Python wheel: sets ``NUMBA_EXT_LIBDEVICE`` unless the user set it."""
    if os.environ.get("NUMBA_EXT_LIBDEVICE"):
        return None
    p = find_libdevice_wheel()
    if p:
        os.environ["NUMBA_EXT_LIBDEVICE"] = p
    return p
