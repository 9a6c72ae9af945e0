"""``python -m numba_ext``: the versions of numba_ext and its dependencies, the OpenCL platforms and
devices, and the default device. ``--check`` also compiles and runs a kernel and a jitted expression
on every device and compares them with NumPy (exit status 1 when a device fails).
``python -m numba_ext cache``: show the on-disk program cache (``--clear`` empties it)."""

import argparse
import shutil
import sys
from pathlib import Path

from numba_ext import _core, diagnostics, selfcheck


def _size(n: float) -> str:
    if n < 1024:
        return f"{int(n)} bytes"
    return f"{n / 1024:.1f} KiB" if n < 1024**2 else f"{n / 1024**2:.1f} MiB"


def show_cache(clear: bool) -> None:
    """Print the program cache's directory, its entries (built programs and generated device code)
    and size; with ``clear``, empty it first (and delete the ``kernels/`` folder that earlier versions
    kept there for ``jit(cache=True)`` functions compiled from their source)."""
    where = _core.program_cache_directory()
    legacy = Path(where) / "kernels" if where else None
    if legacy is not None and not legacy.is_dir():
        legacy = None
    if clear:
        removed = _core.program_cache_clear()
        if legacy is not None:
            removed += sum(1 for f in legacy.iterdir() if f.suffix == ".nxk")
            shutil.rmtree(legacy)
            legacy = None
        print(f"removed {removed} entries")
    info = _core.program_cache_info()
    state = "on" if info["enabled"] else "off (NUMBA_EXT_CACHE=0)"
    print(f"program cache: {info['dir'] or '<no user cache directory>'}")
    print(f"state: {state}")
    print(f"entries: {info['entries']}")
    print(f"generated device code: {info['code_entries']} entries, {_size(info['code_bytes'])}")
    print(f"size: {_size(info['bytes'] + info['code_bytes'])} of at most {_size(info['max_bytes'])}")
    if legacy is not None:
        print(f"unused: {legacy}, kernels kept by earlier versions (--clear deletes it)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m numba_ext", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="run a kernel and a jitted expression on every device and compare them with NumPy",
    )
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("devices", help="versions, platforms and devices (the default)")
    cache = sub.add_parser("cache", help="show the on-disk program cache")
    cache.add_argument("--clear", action="store_true", help="delete every entry")
    args = parser.parse_args(argv)
    if args.command == "cache":
        show_cache(args.clear)
        return 0
    print("\n".join(diagnostics.report()))
    if args.check:
        print()
        return selfcheck.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
