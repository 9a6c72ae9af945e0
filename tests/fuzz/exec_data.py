"""The executors and oracles of the families that compile nothing: selectors, interfaces and
creation."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

import numba_ext as nx
from numba_ext import _core

from .classify import CORRECT, WRONG, brief, classify_error, compare, describe
from .execute import env, host_values
from .values import decode

Verdict = tuple[str, str]


# -- selectors --------------------------------------------------------------------------------------
def run_selector(case: dict) -> Verdict:
    api = case["api"]
    sel = decode(case["sel"], env("nx"))
    try:
        if api == "Device":
            dev = nx.Device(sel)
        elif api == "Queue":
            dev = nx.Queue(sel).device
        elif api == "empty_device":
            dev = nx.empty(2, device=sel).device
        else:
            dev = nx.empty(2, sycl_queue=sel).device
    except Exception as e:
        return classify_error(e, None, (TypeError,)), describe(e)
    problem = selector_problem(api, sel, dev)
    return (WRONG, problem) if problem else (CORRECT, dev.filter_string)


def selector_problem(api: str, sel: Any, dev: nx.Device) -> str | None:
    """What is wrong with `dev` as the device selector `sel` names, None if nothing."""
    devices = nx.get_devices()
    if dev not in devices and dev.parent_device is None:
        return f"{dev!r} is not a device of this machine"
    if api == "empty_queue":
        ok = sel is None or isinstance(sel, nx.Queue) and sel.device == dev
        return None if ok else f"sycl_queue={sel!r} accepted"
    if isinstance(sel, nx.Device):
        return None if dev == sel else f"Device {sel!r} gave {dev!r}"
    if isinstance(sel, nx.Queue):
        return None if dev == sel.device else f"Queue {sel!r} gave {dev!r}"
    if sel is None:
        return None if dev == nx.default_queue().device else f"None gave {dev!r}, not the default device"
    if not isinstance(sel, str):
        return f"a selector of type {type(sel).__name__} ({sel!r}) was accepted"
    kind = None
    for part in (p.strip().lower() for p in sel.split(":")):
        if part in ("", "*", "opencl"):
            continue
        if part in ("cpu", "gpu", "accelerator"):
            kind = part
            if dev.device_type != part:
                return f"selector {sel!r} gave a {dev.device_type} device"
        elif part.isdigit() and part.isascii():
            same = [d for d in devices if kind is None or d.device_type == kind]
            k = int(part)
            if k >= len(same) or same[k] != dev:
                return f"selector {sel!r} gave {dev.filter_string}; the devices are {same}"
        else:
            return f"selector {sel!r} with the unknown part {part!r} was accepted (gave {dev.filter_string})"
    return None


# -- interfaces -------------------------------------------------------------------------------------
class Foreign:
    """An object exporting a (mutated) ``__sycl_usm_array_interface__``."""


def run_interface(case: dict) -> Verdict:
    host = host_values(case["dtype"], case["shape"], case["seed"], False)
    src = nx.asarray(host)
    iface = dict(src.__sycl_usm_array_interface__)
    base = iface["data"][0]
    handlers = env("nx")
    handlers.update(
        ptr=lambda t, e: (base + t["delta"], t["ro"]),
        ptr_list=lambda t, e: [base, False],
        ptr_bool=lambda t, e: (True, False),
        ptr_float=lambda t, e: (float(base), False),
        iface_items=lambda t, e: list(iface.items()),
    )
    for field, value in case["mut"].items():
        if value == "__del__":
            iface.pop(field, None)
        else:
            iface[field] = decode(value, handlers)
    exported: Any = iface if case["whole"] in (None, "iface") else decode(case["whole"], handlers)
    obj = Foreign()
    obj.__sycl_usm_array_interface__ = exported  # type: ignore[attr-defined]
    if case["usm_type"] is not None:
        obj.usm_type = case["usm_type"]  # type: ignore[attr-defined]
    try:
        got = nx.asarray(obj)
    except Exception as e:
        return classify_error(e, None, (TypeError, ValueError)), describe(e)
    so = exported.get("syclobj") if isinstance(exported, dict) else None
    own = getattr(so, "context", so) == src.sycl_queue.context  # the source's own context
    want = interface_view(exported, base, host, own)
    if isinstance(want, str) and _in_other_allocation(exported, src):
        return CORRECT, ""  # a view of another live allocation of the context (as the driver says)
    if isinstance(want, str):
        return WRONG, f"accepted an interface that {want}: {exported!r}"
    if want is None:
        return CORRECT, ""
    problem = compare(nx.asnumpy(got), want)
    return (WRONG, f"{problem}; interface {exported!r}") if problem else (CORRECT, "")


def _in_other_allocation(iface: dict, src: Any) -> bool:
    """Whether a (well-formed, C-contiguous or strided) interface whose data pointer left the source's
    allocation describes bytes inside another allocation of the source's context, by the driver's
    account of that pointer (``clGetMemAllocInfoINTEL``): memory a foreign producer may own."""
    try:
        ptr, shape, dt = (
            int(iface["data"][0]),
            tuple(int(n) for n in iface["shape"]),
            np.dtype(iface["typestr"]),
        )
        strides, offset = iface.get("strides"), int(iface.get("offset", 0) or 0)
    except Exception:
        return False
    found = _core.allocation_extent(src.sycl_queue, ptr)
    if found is None or 0 in shape:
        return False
    el = (
        [int(x) for x in strides]
        if strides is not None
        else [int(np.prod(shape[i + 1 :])) for i in range(len(shape))]
    )
    start = ptr + offset * dt.itemsize
    lo = start + sum(min(0, (n - 1) * x) for n, x in zip(shape, el)) * dt.itemsize
    hi = start + sum(max(0, (n - 1) * x) for n, x in zip(shape, el)) * dt.itemsize + dt.itemsize
    alloc_base, size = found[0], found[1]
    outside_source = not (src._data_ptr <= ptr <= src._data_ptr + max(src.nbytes, 1))
    return outside_source and alloc_base <= lo and hi <= alloc_base + size


def interface_view(iface: Any, base: int, host: np.ndarray, own: bool = True) -> np.ndarray | str | None:
    """The values an interface describes, read from `host` (the source's values; the source's data
    starts at address `base`), or why the interface is invalid (a string), or None where any values
    are right (a view of the one byte allocated for an empty source)."""
    if not isinstance(iface, dict):
        return "is not a dict"
    try:
        data, shape, typestr = iface["data"], iface["shape"], iface["typestr"]
        version, strides, offset = iface["version"], iface.get("strides"), iface.get("offset", 0) or 0
        iface["syclobj"]
    except KeyError as e:
        return f"lacks {e}"
    if not (type(version) is int and version == 1 and isinstance(data, (tuple, list)) and len(data) == 2):
        return "has a bad version or data field"
    if type(data[0]) is not int or not isinstance(data[1], bool) or not isinstance(shape, (tuple, list)):
        return "has a bad data or shape field"
    ints = list(shape) + list(strides or ()) + [offset]
    if not all(type(v) is int or isinstance(v, np.integer) for v in ints):
        return "has a non-integer extent, stride or offset"
    if strides is not None and (not isinstance(strides, (tuple, list)) or len(strides) != len(shape)):
        return "has strides of another rank than its shape"
    if any(n < 0 for n in shape) or not isinstance(typestr, str):
        return "has a negative extent or a bad typestr"
    try:
        dt = np.dtype(typestr)
    except TypeError:
        return "has a typestr NumPy does not know"
    shape = tuple(int(n) for n in shape)
    # numba_ext allocates at least one byte, and the runtime reports that allocation's size
    alloc = max(host.nbytes, 1)
    if 0 in shape:
        # nothing is read; a data pointer inside the source's allocation (of the context the
        # interface names) must keep the (empty) view's first element in it; a pointer elsewhere
        # gets a fresh allocation of its own
        first = data[0] - base + int(offset) * dt.itemsize
        if own and 0 <= data[0] - base < alloc and not 0 <= first <= alloc:
            return f"starts {first} bytes from a {alloc}-byte allocation"
        return np.empty(shape, dt)
    el = (
        [int(s) for s in strides]
        if strides is not None
        else [int(np.prod(shape[i + 1 :])) for i in range(len(shape))]
    )
    start = data[0] - base + int(offset) * dt.itemsize
    lo = start + sum(min(0, (n - 1) * s) for n, s in zip(shape, el)) * dt.itemsize
    hi = start + sum(max(0, (n - 1) * s) for n, s in zip(shape, el)) * dt.itemsize + dt.itemsize
    if lo < 0 or hi > alloc:
        return f"describes bytes {lo} to {hi} of a {alloc}-byte allocation"
    if host.nbytes == 0:
        return None  # the byte of an empty source's allocation: any value
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        view = np.ndarray(
            shape, dt, buffer=host.tobytes(), offset=start, strides=[s * dt.itemsize for s in el]
        )
    return np.array(view)


# -- creation ---------------------------------------------------------------------------------------
NEW_ARRAYS = ("empty", "zeros", "ones", "full", "eye", "arange", "linspace")


def run_creation(case: dict) -> Verdict:
    fn = case["fn"]
    np_args, np_kw = decode(case["args"], env("np")), decode(case["kwargs"], env("np"))
    reference = None
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = getattr(np, fn)(*np_args, **np_kw)
    except Exception as e:
        reference = type(e)
    nx_only = decode(case["nx_kwargs"], env("nx"))
    args, kw = decode(case["args"], env("nx")), decode(case["kwargs"], env("nx"))
    try:
        got = getattr(nx, fn)(*args, **kw, **nx_only)
    except Exception as e:
        return classify_error(e, reference, (TypeError, ValueError) if nx_only else ()), describe(e)
    if reference is not None:
        return WRONG, f"NumPy raises {reference.__name__}; numba_ext returned {brief(got)}"
    if not isinstance(got, nx.ndarray):
        return WRONG, f"returned a {type(got).__name__}, not a numba_ext.ndarray"
    host = nx.asnumpy(got)
    if fn in ("empty", "empty_like"):
        host, want = np.zeros_like(host), np.zeros_like(want)
    problem = compare(host, want, rtol=1e-14 if host.dtype.kind in "fc" else None)
    if problem is None and fn in NEW_ARRAYS and host.ndim >= 2:
        flags = (got.flags.c_contiguous, got.flags.f_contiguous)
        if flags != (want.flags.c_contiguous, want.flags.f_contiguous):
            problem = f"layout (C, F) {flags}, NumPy's {(want.flags.c_contiguous, want.flags.f_contiguous)}"
    return (WRONG, problem) if problem else (CORRECT, "")
