"""``python -m numba_ext``: list the OpenCL devices with their filter strings.
``python -m numba_ext cache``: show the on-disk program cache (``--clear`` empties it)."""

import argparse

import numba_ext
from numba_ext import _core


def list_devices() -> None:
    devs = numba_ext.get_devices()
    if not devs:
        print("No OpenCL devices found. Install a runtime, e.g. `pip install intel-opencl-rt`.")
        return
    try:
        default = numba_ext.default_queue().device
    except numba_ext.errors.NumbaExtError as e:  # e.g. NUMBA_EXT_DEVICE names no listed device
        default = None
        print(f"default device: none ({e})")
    print(f"{'filter string':<18} {'type':<6} {'fp64':<5} {'usm':<5} {'target':<12} name")
    for d in devs:
        mark = " (default)" if d == default else ""
        print(
            f"{d.filter_string:<18} {d.device_type:<6} {str(d.has_fp64):<5} {str(d.has_usm):<5} "
            f"{str(d.target):<12} {d.name} [{d.vendor}]{mark}"
        )


def _size(n: float) -> str:
    if n < 1024:
        return f"{int(n)} bytes"
    return f"{n / 1024:.1f} KiB" if n < 1024**2 else f"{n / 1024**2:.1f} MiB"


def show_cache(clear: bool) -> None:
    """Print the program cache's directory, entries and size; with ``clear``, empty it first."""
    if clear:
        removed = _core.program_cache_clear()
        print(f"removed {removed} entries")
    info = _core.program_cache_info()
    state = "on" if info["enabled"] else "off (NUMBA_EXT_CACHE=0)"
    print(f"program cache: {info['dir'] or '<no user cache directory>'}")
    print(f"state: {state}")
    print(f"entries: {info['entries']}")
    print(f"size: {_size(info['bytes'])} of at most {_size(info['max_bytes'])}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m numba_ext", description=__doc__)
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("devices", help="list the OpenCL devices (the default)")
    cache = sub.add_parser("cache", help="show the on-disk program cache")
    cache.add_argument("--clear", action="store_true", help="delete every entry")
    args = parser.parse_args(argv)
    if args.command == "cache":
        show_cache(args.clear)
    else:
        list_devices()


if __name__ == "__main__":
    main()
