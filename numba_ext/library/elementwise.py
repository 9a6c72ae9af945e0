"""Eager elementwise operations on numba_ext arrays outside jitted code (``a + b``, ``-a``,
``np.sqrt(a)``): the same KernelSpec builder and Rust compiler as jitted code, with NumPy's
broadcasting and its type rules for Python scalars, launched on the queue chosen by compute follows
data. Each distinct (operation, operand kinds, dtypes, layout, device) is compiled once, and each
call is registered as a *kind* with ``_core.known_call`` (arrays on one queue with one USM type, by
element type and layout, contiguous, strided or broadcast, and Python numbers), which serves the
next calls of that kind in one native step: the results allocated, the numbers converted as NumPy
converts them, the kernel enqueued."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import _core
from ..arrays import allocate, array_info, full, ndarray
from ..arrays.hooks import ASSIGNMENT
from ..devices import Device, Queue
from ..errors import ExecutionPlacementError, UnsupportedError
from ..ir import complex_lowering
from ..ir.kernel_ir import Load, ScalarArg, Select, Store
from ..ir.spec_builder import UFUNC_OPS, CompiledSpecBuilder
from ..placement import coerce_usm_types, execution_queue

_cache_lock = threading.Lock()
_cache: dict = {}


def _apart_from_outputs(operands: Sequence[Any], outs: Sequence[Any]) -> tuple[Any, ...]:
    """`operands` with each array that shares memory with an output, other than as that output's
    very elements (the same view), copied first: the result is then NumPy's (``a += a[::-1]``,
    ``a[1:] += a[:-1]``), where one kernel would read elements it has already written."""

    def overlaps(o: ndarray, w: ndarray) -> bool:
        d, e = o._desc, w._desc  # the descriptors hold the device addresses (never read)
        if not np.may_share_memory(d, e):
            return False
        return not (d.ctypes.data == e.ctypes.data and d.shape == e.shape and d.strides == e.strides)

    written = [w for w in outs if isinstance(w, ndarray)]
    return tuple(
        o.copy() if isinstance(o, ndarray) and any(overlaps(o, w) for w in written) else o for o in operands
    )


def _value_checked(ufunc: np.ufunc, operands: Sequence[Any], in_dts: Sequence[np.dtype]) -> bool:
    """Whether `apply` checks the values of these operands, not only their kinds: an integer power,
    a Python int compared with an integer array, a Python int taken as a bool."""
    if ufunc is np.power and all(d.kind in "iu" for d in in_dts):
        return True
    ints = [dt for o, dt in zip(operands, in_dts) if type(o) is int]
    if any(dt.kind == "b" for dt in ints):
        return True
    return bool(ints) and ufunc in _COMPARISONS and any(d.kind in "iu" for d in in_dts)


def _scalar_bits(value: float | np.generic, dtype: np.dtype) -> int:
    return int(np.asarray(value, dtype=dtype).reshape(1).view(np.dtype(f"u{dtype.itemsize}"))[0])


def _resolve(ufunc: np.ufunc, operands: Sequence[Any]) -> list[np.dtype]:
    """NumPy's loop dtypes for these operands (Python scalars are 'weak', as in NumPy 2)."""
    probe: list[np.dtype | type] = []
    for o in operands:
        if isinstance(o, ndarray):
            probe.append(o.dtype)
        elif type(o) in (int, float, complex):  # Python numbers are weak; NumPy scalars and bools are not
            probe.append(type(o))
        else:
            probe.append(np.asarray(o).dtype)
    try:
        return [np.dtype(d) for d in ufunc.resolve_dtypes(tuple(probe) + (None,) * ufunc.nout)]
    except Exception as e:
        raise UnsupportedError(f"np.{ufunc.__name__} is not supported for {probe}: {e}") from None


def _scalar_slots(value: Any, dt: np.dtype) -> list[int]:
    """The argument slots of a scalar operand passed as `dt`: its bits (a complex one: two)."""
    return complex_lowering.scalar_slots(value, dt) if dt.kind == "c" else [_scalar_bits(value, dt)]


def _scalars(operands: Sequence[Any]) -> tuple[Any, ...]:
    """The operands with 0-d NumPy arrays as scalars (NumPy hands scalars on the left of an operator
    over as 0-d arrays: ``np.int64(3) > x``)."""
    return tuple(o[()] if isinstance(o, np.ndarray) and o.ndim == 0 else o for o in operands)


#: ufuncs of several outputs: the single-output ufunc computing each output
MULTI_OUTPUT: dict[str, tuple[np.ufunc, ...]] = {"divmod": (np.floor_divide, np.remainder)}


def apply(
    ufunc: np.ufunc, *operands: Any, name: str | None = None, out: tuple[Any, ...] | None = None
) -> Any:
    """`ufunc(*operands)` on the execution queue of the array operands (`name` overrides the ufunc's
    name, for ufuncs made with numba.vectorize). `out`: NumPy's normalized ``out=`` tuple, one
    entry (a numba_ext array or None) per output; the results are written there and returned."""
    named = name is not None
    if not named and (out is None or len(out) == 1):
        # a call of a kind served before: one native step (_core.known_call; None when not served)
        served = _core.known_call(ufunc, operands, None if out is None else out[0])
        if served is not None:
            return served
    name = name or ufunc.__name__
    if name not in UFUNC_OPS and name not in MULTI_OUTPUT:
        raise UnsupportedError(f"np.{name} cannot be offloaded yet")
    operands = _scalars(operands)
    outs = tuple(out) if out is not None else (None,) * ufunc.nout
    queue, usm_type, shape = _placement(name, operands, outs)
    beyond = _beyond_range(ufunc, operands) if out is None else None
    if beyond is not None:
        return full(shape, beyond, dtype=np.bool_, sycl_queue=queue, usm_type=usm_type)
    dts = _resolve(ufunc, operands)
    in_dts, out_dts = dts[: ufunc.nin], dts[ufunc.nin :]
    for o, dt in zip(operands, in_dts):
        if type(o) is int and dt.kind == "b" and not -(2**63) <= o < 2**63:
            raise OverflowError("Python int too large to convert to C long")  # NumPy's error
    negative_power = name == "power" and all(d.kind in "iu" for d in in_dts)
    if negative_power and 0 not in shape and _negative(operands[1]):  # NumPy checks computed elements
        raise ValueError("Integers to negative integer powers are not allowed.")  # NumPy's error
    _check_outputs(name, outs, out_dts, shape)
    if out is not None:
        operands = _apart_from_outputs(operands, outs)
    parts = MULTI_OUTPUT.get(name)

    def body(b: CompiledSpecBuilder, vals: list[tuple[int, str]]) -> list[tuple[int, str]]:
        return [b.apply_ufunc(u, vals) for u in parts] if parts else [b.apply_ufunc(ufunc, vals, name=name)]

    results, kernel = _launch(name, operands, in_dts, out_dts, (queue, usm_type, shape), outs, body)
    if not named:
        _register_known(ufunc, operands, in_dts, out_dts, kernel, (queue, usm_type, shape), outs)
    return results[0] if len(results) == 1 else tuple(results)


def _register_known(
    ufunc: np.ufunc,
    operands: Sequence[Any],
    in_dts: Sequence[np.dtype],
    out_dts: Sequence[np.dtype],
    kernel: _core.Kernel,
    placed: tuple[Queue, str, tuple[int, ...]],
    outs: Sequence[Any],
) -> None:
    """Let later calls of this kind (``_core.known_call``: the operands' element types and layouts
    or Python types, the `out=` array's, the device, USM type and rank) run in one native step,
    unless an operand's value decides more than its bits."""
    given = [o for o in outs if o is not None]
    if _value_checked(ufunc, operands, in_dts) or (given and len(outs) != 1):
        return
    queue, usm_type, shape = placed
    infos = [] if given else [(array_info(dt, len(shape), queue, usm_type), dt.itemsize) for dt in out_dts]
    scalar_dts = [None if isinstance(o, ndarray) else dt.str for o, dt in zip(operands, in_dts)]
    _core.known_add(ufunc, tuple(operands), kernel, infos, scalar_dts, given[0] if given else None)


#: what a kernel computes from its operands' nodes (each cast to its input dtype): its results' nodes
Body = Callable[[CompiledSpecBuilder, list[tuple[int, str]]], list[tuple[int, str]]]


def _launch(
    name: str,
    operands: Sequence[Any],
    in_dts: Sequence[np.dtype],
    out_dts: Sequence[np.dtype],
    placed: tuple[Queue, str, tuple[int, ...]],
    outs: Sequence[Any],
    body: Body,
) -> tuple[list[ndarray], _core.Kernel]:
    """Run the elementwise kernel `body` named `name` (with the operand layouts, the key of its
    compiled form) over the broadcast shape on the queue of `placed` (queue, USM type, shape), into
    `outs` where given, else into new arrays of `out_dts`: the results and the kernel."""
    queue, usm_type, shape = placed
    results = [o if o is not None else allocate(shape, dt, queue, usm_type) for o, dt in zip(outs, out_dts)]
    layout = tuple(
        (o._desc.dtype, o._desc.ndim, o._desc.flags.c_contiguous and o._desc.shape == shape)
        if isinstance(o, ndarray)
        else ("scalar", dt)
        for o, dt in zip(operands, in_dts)
    )
    out_layout = tuple((r.dtype, r.flags.c_contiguous) for r in results)
    key = (name, layout, len(shape), out_layout, queue.device)
    with _cache_lock:
        kernel = _cache.get(key)
    if kernel is None:
        kernel = _compile(body, layout, in_dts, len(shape), out_layout, queue.device)
        with _cache_lock:
            _cache[key] = kernel
    slots = _slots(operands, layout, in_dts, shape, results)
    if results[0].size:
        kernel.launch(queue, slots, wait=False)  # left running (runtime/queue.rs)
    return results, kernel


def where(condition: Any, x: Any, y: Any, dtype: np.dtype) -> ndarray:
    """``np.where(condition, x, y)`` with the result dtype `dtype` (NumPy's, from x and y): one
    kernel on the queue of the numba_ext operands; the condition is each value's truth, x and y are
    converted to `dtype` in the kernel."""
    operands = _scalars((condition, x, y))
    placed = _placement("where", operands)
    in_dts = [np.dtype(np.bool_), dtype, dtype]

    def body(b: CompiledSpecBuilder, vals: list[tuple[int, str]]) -> list[tuple[int, str]]:
        (c, _), (a, _), (e, _) = vals
        return [(b.node(Select(dtype.name, c, a, e)), dtype.name)]

    return _launch("where", operands, in_dts, [dtype], placed, (None,), body)[0][0]


def assign(dst: ndarray, src: ndarray) -> None:
    """`src` broadcast to `dst`'s shape and cast to its dtype, written into `dst` (any strides) by
    one kernel on `dst`'s queue; `src`'s queue is `dst`'s or an equivalent one."""

    if _core.known_call(ASSIGNMENT, (src,), dst) is not None:  # an assignment of a kind served before
        return

    def body(b: CompiledSpecBuilder, vals: list[tuple[int, str]]) -> list[tuple[int, str]]:
        return vals

    placed = (dst._queue, dst._usm_type, dst.shape)
    kernel = _launch("assign", (src,), [src.dtype], [dst.dtype], placed, (dst,), body)[1]
    _core.known_add(ASSIGNMENT, (src,), kernel, [], [None], dst)


def clip(a: Any, lo: Any, hi: Any, dtype: np.dtype) -> ndarray:
    """``np.clip(a, lo, hi)`` in `dtype` (NumPy's, from all three): ``minimum(maximum(a, lo), hi)``
    in one kernel, as NumPy computes it (NaN anywhere gives NaN; lo > hi gives hi)."""
    operands = _scalars((a, lo, hi))
    placed = _placement("clip", operands)

    def body(b: CompiledSpecBuilder, vals: list[tuple[int, str]]) -> list[tuple[int, str]]:
        low = b.apply_ufunc(np.maximum, vals[:2])
        return [b.apply_ufunc(np.minimum, [low, vals[2]])]

    return _launch("clip", operands, [dtype] * 3, [dtype], placed, (None,), body)[0][0]


_COMPARISONS = (np.less, np.less_equal, np.greater, np.greater_equal, np.equal, np.not_equal)


def _beyond_range(ufunc: np.ufunc, operands: Sequence[Any]) -> bool | None:
    """The result of comparing an integer array with a Python int outside its dtype's range (NumPy 2
    compares the values: ``int8_array < 1000`` is true everywhere), the same for every element; None
    for any other operation. Such an int cannot be passed to a kernel as a scalar of the array's type."""
    if ufunc not in _COMPARISONS or len(operands) != 2:
        return None
    for i, (a, s) in enumerate((operands, operands[::-1])):
        if isinstance(a, ndarray) and a.dtype.kind in "iu" and type(s) is int:
            info = np.iinfo(a.dtype)
            if not info.min <= s <= info.max:
                probe = (np.zeros(1, a.dtype), s)
                return bool(ufunc(*(probe if i == 0 else probe[::-1]))[0])
    return None


def _negative(exponent: Any) -> bool:
    """Whether an integer exponent (a scalar or a numba_ext array) has a negative value."""
    if isinstance(exponent, ndarray):
        if exponent.dtype.kind != "i" or exponent.size == 0:
            return False
        below: Any = np.less(exponent, 0)  # an eager comparison on the array's queue
        return bool(below.any())
    return bool(np.any(np.asarray(exponent) < 0))


def _check_outputs(
    name: str, outs: Sequence[Any], out_dts: Sequence[np.dtype], shape: tuple[int, ...]
) -> None:
    """`out=` arrays as NumPy accepts them: numba_ext arrays of the broadcast shape whose dtype the
    result casts to with 'same_kind' casting."""
    for i, (o, dt) in enumerate(zip(outs, out_dts)):
        if o is None:
            continue
        if o.shape != shape:
            raise ValueError(f"np.{name}: out[{i}] has shape {o.shape}, the operands broadcast to {shape}")
        if not np.can_cast(dt, o.dtype, casting="same_kind"):
            raise TypeError(
                f"np.{name}: cannot cast the {dt} result to out[{i}] of dtype {o.dtype} with casting "
                "rule 'same_kind'"
            )


def _placement(
    name: str, operands: Sequence[Any], outs: Sequence[Any] = ()
) -> tuple[Queue, str, tuple[int, ...]]:
    """The execution queue, the result's USM type and the broadcast shape of the operands of
    np.<name> (compute follows data; host data among them is an error, and so is an `out=` array
    that is not a numba_ext array)."""
    for i, o in enumerate(outs):
        if o is not None and not isinstance(o, ndarray):
            raise TypeError(
                f"np.{name}: out[{i}] is a {type(o).__name__}; with numba_ext operands out= takes "
                "numba_ext arrays on the operands' queue (numba_ext.empty(...) or numba_ext.empty_like(x))"
            )
    arrays = [o for o in operands if isinstance(o, ndarray)]
    first = arrays[0]
    given = [o for o in outs if o is not None]
    if (
        all(
            a._queue is first._queue and a._usm_type == first._usm_type and a._desc.shape == first._desc.shape
            for a in arrays
        )
        and not any(isinstance(o, (np.ndarray, list, tuple)) for o in operands)
        and all(o._queue is first._queue for o in given)
    ):
        return first._queue, first._usm_type, first._desc.shape  # the common case
    named = [(f"operand {i}", o) for i, o in enumerate(operands) if isinstance(o, ndarray)]
    foreign = [i for i, o in enumerate(operands) if isinstance(o, (np.ndarray, list, tuple))]
    if foreign:
        raise ExecutionPlacementError(
            f"np.{name} mixes numba_ext arrays with host data (operand(s) {foreign}); the queue of host "
            "data cannot be inferred (compute follows data). Convert it first with "
            "numba_ext.asarray(x, sycl_queue=<the array's queue>)"
        )
    queue = execution_queue(named + [(f"out[{i}]", o) for i, o in enumerate(outs) if o is not None])
    usm_type = coerce_usm_types([a.usm_type for _, a in named]) or first._usm_type
    return queue, usm_type, np.broadcast_shapes(*[a.shape for a in arrays])


def _slots(
    operands: Sequence[Any],
    layout: Sequence[tuple[Any, ...]],
    in_dts: Sequence[np.dtype],
    shape: tuple[int, ...],
    outs: Sequence[ndarray],
) -> list[int]:
    """The kernel's argument slots: per operand its bits (scalars) or its data address and, when it
    is strided or broadcast, its byte strides over the iteration space; then the result's address,
    the shape and the element count."""
    slots = []
    for o, (kind, *rest), dt in zip(operands, layout, in_dts):
        if isinstance(kind, str):
            slots.extend(_scalar_slots(o, dt))
        else:
            slots.extend(_array_slots(o, rest[1], shape))
    for r in outs:
        slots.extend(_array_slots(r, r.flags.c_contiguous, shape))
    slots.extend(shape)
    slots.append(outs[0].size)
    return slots


def _array_slots(o: ndarray, contiguous: bool, shape: tuple[int, ...]) -> list[int]:
    """An array's data address and, when it is strided or broadcast, its byte strides over the
    iteration space."""
    if contiguous:
        return [o._data_ptr]
    pad = len(shape) - o.ndim
    strides = [0] * pad + [0 if n == 1 and m != 1 else s for n, s, m in zip(o.shape, o.strides, shape[pad:])]
    return [o._data_ptr] + [s & 0xFFFFFFFFFFFFFFFF for s in strides]


def _compile(
    body: Body,
    layout: Sequence[tuple[Any, ...]],
    in_dts: Sequence[np.dtype],
    ndim: int,
    out_layout: Sequence[tuple[np.dtype, bool]],
    device: Device,
) -> _core.Kernel:
    """The kernel of one eager operation. Operands are cast to `in_dts` first (for ufuncs NumPy's
    loop dtypes: NumPy's choice, e.g. float64 for int32 + float32, where Numba's own loop selection
    would compute in float32)."""
    b = CompiledSpecBuilder(ndim)
    vals: list[tuple[int, str]] = []
    for i, ((kind, *rest), want) in enumerate(zip(layout, in_dts)):
        if isinstance(kind, str):  # ("scalar", dtype)
            dt = rest[0].name
            p = b.scalar_param(f"s{i}", dt)
            vals.append((b.node(ScalarArg(dt, p)), dt))
        else:  # (dtype, ndim, contiguous)
            p = b.array_param(f"x{i}", kind.name, ndim, rest[1])
            vals.append((b.cast(b.node(Load(kind.name, p)), kind.name, want.name), want.name))
    results = body(b, vals)
    for i, ((val, dt), (out_dt, contiguous)) in enumerate(zip(results, out_layout)):
        out = b.array_param(f"out{i}", out_dt.name, ndim, contiguous)
        b.node(Store(out_dt.name, out, b.cast(val, dt, out_dt.name)))
    return _core.compile_kernel(b.spec(), device)
