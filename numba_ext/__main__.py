"""``python -m numba_ext``: list the OpenCL devices with their filter strings."""

import numba_ext


def main() -> None:
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


if __name__ == "__main__":
    main()
