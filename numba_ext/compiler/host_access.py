"""Host-side access to array elements, checked at compile time for devices whose memory the host
cannot address.

On the buffer back end (devices without USM, e.g. NVIDIA's OpenCL; see docs/architecture.md) an
array's data address names a ``cl_mem`` buffer, not host memory; ``device`` USM of a GPU is not
host-addressable either. Jitted code may use such arrays in
everything that runs on the device (array expressions, ``prange`` loops of parallel functions,
kernels, reductions) and may pass them around, slice them and read their shape; code that would
read or write their elements *on the host* (a sequential loop, scalar indexing, ``for x in a``, a
NumPy function Numba runs on the host) is rejected here with the construct and its line, instead
of faulting at run time. Where the host can address the memory (every USM type of the CPU device,
``shared`` and ``host`` USM elsewhere) host-side access keeps working.
"""

from __future__ import annotations

import functools
import os

import numba
from numba import pndindex, prange
from numba.core import ir, types
from numba.core.analysis import compute_cfg_from_blocks
from numba.parfors.parfor import internal_prange

from ..devices import device_by_filter
from ..errors import UnsupportedError
from .eager_calls import FOURIER
from .redirects import is_offloadable
from .types import USMArrayType

_NUMBA_DIR = os.path.dirname(os.path.realpath(numba.__file__)) + os.sep

# Array attributes that never touch the data.
_META_ATTRS = {
    "shape",
    "ndim",
    "size",
    "dtype",
    "strides",
    "itemsize",
    "nbytes",
    "flags",
    "T",
    "usm_type",
    "device",
    "sycl_queue",
    "layout",
    "transpose",
    "reshape",
    "view",
}
# NumPy functions whose Numba implementations make views (new shapes and strides) without reading
# or writing elements.
_VIEW_FUNCTIONS = {
    *("atleast_1d", "atleast_2d", "atleast_3d", "broadcast_to", "expand_dims", "flip", "fliplr"),
    *("flipud", "moveaxis", "rot90", "swapaxes", "transpose"),
}
# NumPy reductions that Numba's parfor pass turns into parallel loops (offloaded) in parallel functions.
_PARALLEL_NP = {"sum", "prod", "min", "max", "mean", "amin", "amax", "dot", "argmin", "argmax"}


# Code objects of numba_ext's own replacements for Numba's parallel implementations (reductions.py):
# like Numba's own, Numba's parfor pass inlines them into parallel code, where their loops become
# device loops; their statements (found by source location) are not host access.
TRUSTED_CODE: set = set()


def _trusted(loc) -> bool:
    for code in TRUSTED_CODE:
        if loc.filename == code.co_filename:
            lines = [ln for _, _, ln in code.co_lines() if ln is not None]
            if lines and min(lines) <= loc.line <= max(lines):
                return True
    return False


@functools.cache
def _host_inaccessible(device: str, usm_type: str) -> bool:
    """Whether the host cannot address memory of `usm_type` on `device`: every array of the buffer
    back end, and `device` USM of devices other than CPUs (USM `shared` and `host` memory, and all
    USM memory of a CPU device, is host-addressable)."""
    try:
        d = device_by_filter(device)
    except Exception:  # unknown device: other checks report it
        return False
    return d.memory_backend == "buffer" or (usm_type == "device" and d.device_type != "cpu")


def _inaccessible(typ) -> bool:
    return isinstance(typ, USMArrayType) and _host_inaccessible(typ.device, typ.usm_type)


def _prange_loop_blocks(func_ir) -> set:
    """Labels of blocks inside loops over ``prange`` (they become device loops in parallel code)."""
    defs = {}
    for blk in func_ir.blocks.values():
        for st in blk.find_insts(ir.Assign):
            defs[st.target.name] = st.value

    def value(var):
        v = defs.get(var.name)
        for _ in range(16):  # through copies (phi moves)
            if not isinstance(v, ir.Var):
                break
            v = defs.get(v.name)
        return v

    def const(var):
        """The Python object a variable holds when it is a global or an attribute chain of one."""
        v = value(var)
        if isinstance(v, (ir.Global, ir.FreeVar)):
            return v.value
        if isinstance(v, ir.Expr) and v.op == "getattr":
            return getattr(const(v.value), v.attr, None)
        return None

    def is_prange_call(var):
        v = value(var)
        if isinstance(v, ir.Expr) and v.op == "getiter":
            v = value(v.value)
        if not (isinstance(v, ir.Expr) and v.op == "call"):
            return False
        return const(v.func) in (prange, internal_prange, pndindex)

    out = set()
    cfg = compute_cfg_from_blocks(func_ir.blocks)
    for loop in cfg.loops().values():
        header = func_ir.blocks[loop.header]
        if any(
            isinstance(st, ir.Assign)
            and isinstance(st.value, ir.Expr)
            and st.value.op == "iternext"
            and is_prange_call(st.value.value)
            for st in header.body
        ):
            out |= set(loop.body)
    return out


def inaccessible(typ) -> bool:
    """Whether `typ` is a USM array type whose memory the host cannot address."""
    return _inaccessible(typ)


def _late_setitem(st, typemap) -> bool:
    """A slice or mask assignment, which the parfor pass or ``setitem_offload.py`` runs on the
    device (the latter refuses what is left on the host)."""
    if not isinstance(st, (ir.SetItem, ir.StaticSetItem)):
        return False
    idx = st.index if isinstance(st, ir.SetItem) else st.index_var
    t = typemap.get(idx.name) if idx is not None else None
    if t is None and isinstance(st, ir.StaticSetItem):
        return isinstance(st.index, (slice, tuple))
    if isinstance(t, types.BaseTuple):
        return not all(isinstance(x, types.Integer) for x in t.types)
    return isinstance(t, (types.SliceType, types.Array))


def host_setitem_error(st, typemap) -> str:
    """The message refusing assignment `st` on the host to memory the host cannot address."""
    return (
        f"assigning to array elements reads or writes array elements on the host, but the array lives "
        f"in memory the host cannot address ({_memory_of(st, typemap)}). Compute it on the device (an "
        "array expression, a prange loop in @numba_ext.jit, a kernel) or copy the data with "
        f"numba_ext.asnumpy() first {_at(st.loc)}"
    )


def check(func_ir, typemap, calltypes, parallel: bool, late_setitems: bool = False) -> None:
    """Raise UnsupportedError at the first host-side element access of an array whose device memory
    the host cannot address. Runs before the array expressions are offloaded (they count as device
    code). With `late_setitems` (numba_ext.jit's pipeline), slice and mask assignments are left to
    the parfor pass and ``setitem_offload.py``."""
    if not any(_inaccessible(t) for t in typemap.values()):
        return
    if os.path.realpath(func_ir.loc.filename).startswith(_NUMBA_DIR):
        # Numba's own implementations (of np.sum, ...) are compiled while typing a call; the call is
        # checked in the caller (where a parallel function turns it into a device loop instead).
        return
    device_loops = _prange_loop_blocks(func_ir) if parallel else set()
    for label, blk in func_ir.blocks.items():
        if label in device_loops:
            continue
        for st in blk.body:
            if is_offloadable(st, typemap, func_ir) or _trusted(st.loc):
                continue
            if late_setitems and parallel and _late_setitem(st, typemap):
                continue
            what = _host_access(st, typemap, calltypes, parallel)
            if what:
                raise UnsupportedError(
                    f"{what} reads or writes array elements on the host, but the array lives in memory "
                    f"the host cannot address ({_memory_of(st, typemap)}). Compute it on the device (an "
                    "array expression, a "
                    f"prange loop in @numba_ext.jit, a kernel) or copy the data with numba_ext.asnumpy() "
                    f"first {_at(st.loc)}"
                )


def _memory_of(st, typemap) -> str:
    for v in st.list_vars():
        t = typemap.get(v.name)
        if _inaccessible(t):
            kind = (
                "a cl_mem buffer"
                if device_by_filter(t.device).memory_backend == "buffer"
                else f"'{t.usm_type}' USM"
            )
            return f"{kind} of device '{t.device}'"
    return "?"


def _host_access(st, typemap, calltypes, parallel) -> str | None:
    def bad(var):
        return _inaccessible(typemap.get(var.name))

    if isinstance(st, (ir.SetItem, ir.StaticSetItem)):
        return "assigning to array elements" if bad(st.target) else None
    if not isinstance(st, ir.Assign) or not isinstance(st.value, ir.Expr):
        return None
    e, result = st.value, typemap.get(st.target.name)
    if e.op in ("getitem", "static_getitem"):
        # views (slices) stay on the device; reading an element does not
        return "indexing an array element" if bad(e.value) and not isinstance(result, types.Array) else None
    if e.op == "getiter":
        return "iterating over an array" if bad(e.value) else None
    if e.op == "exhaust_iter":
        return "unpacking an array (a, b = x)" if bad(e.value) else None
    if e.op in ("binop", "inplace_binop", "unary"):
        if any(bad(v) for v in e.list_vars()) and not isinstance(result, types.Array):
            op = getattr(e.fn, "__name__", e.fn)
            return f"the operator '{op}' with a scalar result on arrays (e.g. 0-d arrays)"
        if e.op == "inplace_binop" and any(bad(v) for v in e.list_vars()):
            return "an in-place operator on arrays"
        return None
    if e.op == "arrayexpr":
        return (
            "an array expression with a scalar result"
            if not isinstance(result, types.Array) and any(bad(v) for v in e.list_vars())
            else None
        )
    if e.op == "call":
        if not any(bad(v) for v in e.args) and not any(bad(v) for _, v in e.kws):
            return None
        ftype = typemap.get(e.func.name)
        if _device_safe_callee(ftype, parallel):
            return None
        return f"calling {_callee_name(ftype)}() on the array"
    return None


def _device_safe_callee(ftype, parallel: bool) -> bool:
    """Callees that keep array data on the device: other jitted functions (checked when compiled),
    numba_ext's own intrinsics and overloads, array metadata methods, and, in parallel code, the
    NumPy reductions that become offloaded parallel loops."""
    if isinstance(ftype, types.Dispatcher):
        return True
    if isinstance(ftype, types.BoundFunction):
        name = (
            ftype.typing_key.rsplit(".", 1)[-1]
            if isinstance(ftype.typing_key, str)
            else getattr(ftype.typing_key, "__name__", "")
        )
        return name in _META_ATTRS or (parallel and name in _PARALLEL_NP)
    if isinstance(ftype, types.Function):
        key = ftype.typing_key
        mod = getattr(key, "__module__", "") or ""
        name = getattr(key, "__name__", "")
        if mod.startswith("numba_ext") or (mod == "numpy.fft" and name in FOURIER):
            return True  # (the Fourier transforms of USM arrays call the eager library)
        if mod.startswith("numpy") and name in _VIEW_FUNCTIONS:
            return True
        if key is len or key is abs:  # abs() of an array is numba_ext's overload (np.abs, offloaded)
            return True
        return parallel and mod.startswith("numpy") and name in _PARALLEL_NP
    return False


def _holds_arrays(t, usm: bool) -> bool:
    """Whether a value of type `t` is or holds (in tuples) a numba_ext array (`usm`) or a NumPy array."""
    if isinstance(t, types.Array):
        return isinstance(t, USMArrayType) == usm
    if isinstance(t, types.BaseTuple):
        return any(_holds_arrays(x, usm) for x in t.types)
    return False


def _at(loc) -> str:
    """'(at file, line N: source)' of a statement."""
    return f"(at {loc.filename}, line {loc.line}: {loc.strformat().strip().splitlines()[-1].strip()})"


def _callee_name(ftype) -> str:
    key = getattr(ftype, "typing_key", None)
    if isinstance(key, str):
        return key.replace("array.", "ndarray.")
    mod, name = getattr(key, "__module__", "") or "", getattr(key, "__name__", "") or str(ftype)
    return f"np.{name}" if mod.startswith("numpy") else (f"{mod}.{name}" if mod else name)


def check_host_results(func_ir, typemap, calltypes) -> None:
    """Raise UnsupportedError where a function Numba runs on the host (a NumPy function numba_ext
    does not offload, e.g. np.unique or np.concatenate) takes numba_ext arrays and returns a NumPy
    array: the result would leave the queue silently, and NumPy and numba_ext arrays do not mix
    (outside jitted code such a call is refused as well)."""
    if not any(isinstance(t, USMArrayType) for t in typemap.values()):
        return
    if os.path.realpath(func_ir.loc.filename).startswith(_NUMBA_DIR):
        return
    for blk in func_ir.blocks.values():
        for st in blk.body:
            if not (isinstance(st, ir.Assign) and isinstance(st.value, ir.Expr) and st.value.op == "call"):
                continue
            e = st.value
            args = list(e.args) + [v for _, v in e.kws]
            if e.vararg is not None:
                args.append(e.vararg)
            if not any(_holds_arrays(typemap.get(v.name), usm=True) for v in args):
                continue
            ftype = typemap.get(e.func.name)
            if isinstance(ftype, types.Dispatcher) or _trusted(st.loc):
                continue  # a jitted function is checked when it is compiled
            if _holds_arrays(typemap.get(st.target.name), usm=False):
                raise UnsupportedError(
                    f"{_callee_name(ftype)}() is not offloaded by numba_ext: it would run on the host and "
                    f"return a NumPy array computed from numba_ext arrays (NumPy and numba_ext arrays do "
                    f"not mix). Write it as array expressions or a prange loop, or copy the data with "
                    f"numba_ext.asnumpy() outside jitted code first {_at(st.loc)}"
                )
