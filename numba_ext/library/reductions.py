"""Eager reductions (``x.sum(axis=1)``, ``x.argmax()``) and products (``np.dot``, ``@``) of numba_ext
arrays, on the arrays' queue. ``sum``, ``prod``, ``mean``, ``min``, ``max``, ``any``, ``all``,
``argmin`` and ``argmax`` of real and bool arrays run the kernels of ``ir.reductions`` directly
(``arrays.reductions``: no Numba compile, one kernel per operation, dtype, rank and device), and so
do their products (``ir.products``); the others call the ``numba_ext.jit`` helpers jitted code calls
(``compiler.reduction_helpers``), importing the compiler layer and Numba on their first use.
Reductions over every element give a 0-d array on the input's queue with its USM type, as dpnp's do
(``float(x.sum())`` or ``x.sum().item()`` bring the value to the host)."""

from __future__ import annotations

import math
import operator
import threading
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import _core
from ..arrays import allocate, full, ndarray
from ..arrays.reductions import (
    CPU_WIDE_LANES,
    WholeReduction,
    axis_lanes,
    contiguous_function,
    dot_accumulator,
    dot_vectors,
    dot_vectors_on_device,
    first_extreme,
    first_extreme_in_runs,
    product,
    reduce_axis,
    tile_groups,
    tiled,
    tiled_product,
    unroll,
)
from ..devices import Device
from ..errors import ExecutionPlacementError, UnsupportedError
from ..ir import complex_lowering, products
from ..ir.kernel_ir import Function
from ..ir.reductions import (
    ARG_OPS,
    AXIS_OPS,
    BOOL_EXTREMES,
    EMPTY_MESSAGES,
    arg_axis_function,
    arg_combine_function,
    arg_runs_function,
    axis_function,
    check_dot_ndims,
    dot_dtype,
    first_index_function,
    normalize_axis,
    result_dtype,
)
from ..placement import coerce_usm_types, execution_queue

if TYPE_CHECKING:
    from numpy.typing import DTypeLike


def check_unsupported(what: str, **given: object) -> None:
    bad = [f"{k}={v!r}" for k, v in given.items() if v is not None and v is not False]
    if bad:
        raise UnsupportedError(f"{what}({', '.join(bad)}) on numba_ext arrays is not supported")


_AXIS_MESSAGE = "{name}(axis={axis!r}): an axis is an integer, a tuple of them or None (as in NumPy)"


def _reduce_general(
    name: str, x: ndarray, axis: Any, dtype: DTypeLike | None, out: ndarray | None, keepdims: bool
) -> ndarray:
    """`x.<name>` with what the kernels do not take themselves: ``dtype=`` (the data cast to it
    first, so the sum or product accumulates in it, and the result given in it, as NumPy's), several
    axes (reduced one after another; a mean is the sum over them divided by their count; none: the
    data in the result's dtype) and ``keepdims`` (the result viewed with the reduced axes kept as
    length 1)."""
    check_unsupported(f"{name}", out=out)
    want = None
    if dtype is not None:
        if name not in ("sum", "prod", "mean"):
            raise TypeError(f"{name}() got an unexpected keyword argument 'dtype'")
        want = np.dtype(dtype)
        x = x.astype(want, copy=False)
    if isinstance(axis, tuple) and name in ARG_OPS:
        raise TypeError("'tuple' object cannot be interpreted as an integer")  # NumPy's
    given = axis if isinstance(axis, tuple) else (axis,)
    if axis is None:
        axes = tuple(range(x.ndim))
        result = reduce(name, x, None)
    elif x.ndim == 0 and isinstance(axis, tuple) and axis:
        raise np.exceptions.AxisError(operator.index(axis[0]), 0)  # NumPy's, for any axis of a 0-d array
    elif x.ndim == 0 or len(given) == 1:
        if x.ndim and (isinstance(given[0], (bool, np.bool_)) or not isinstance(given[0], (int, np.integer))):
            raise TypeError(_AXIS_MESSAGE.format(name=name, axis=axis))
        axes = (normalize_axis(int(given[0]), x.ndim),) if x.ndim and given else ()
        result = reduce(name, x, given[0]) if given else x.astype(result_dtype(name, x.dtype), copy=True)
    else:
        if any(isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)) for a in given):
            raise TypeError(_AXIS_MESSAGE.format(name=name, axis=axis))
        axes = tuple(normalize_axis(int(a), x.ndim) for a in given)
        if len(set(axes)) != len(axes):
            raise ValueError("duplicate value in 'axis'")
        if not axes:  # NumPy's reduction over no axis: the data in the result's dtype
            result = x.astype(result_dtype(name, x.dtype), copy=True)
        elif name == "mean" and len(axes) < x.ndim:
            count = math.prod(x.shape[a] for a in axes)
            data = x.astype(np.float64) if x.dtype.kind in "biu" else x
            if count == 0:
                warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=3)  # as NumPy; NaN
            total: Any = _reduce_general("sum", data, axes, None, None, False)
            result = total / count
        elif len(axes) == x.ndim:
            result = reduce(name, x, None)
        else:
            result = x
            for a in sorted(axes, reverse=True):
                result = reduce(name, result, a)
    if want is not None and result.dtype != want:
        result = result.astype(want)
    if keepdims and x.ndim:
        result = result.reshape(tuple(1 if i in axes else n for i, n in enumerate(x.shape)))
    return result


def reduce(
    name: str,
    x: ndarray,
    axis: int | None = None,
    *,
    dtype: DTypeLike | None = None,
    out: ndarray | None = None,
    keepdims: bool = False,
) -> ndarray:
    """`x.<name>(axis=axis)` (sum prod min max mean any all argmin argmax), computed by a kernel on
    `x`'s queue: a numba_ext array of NumPy's result dtype on the same queue with the same USM type,
    0-d over all elements."""
    if dtype is not None or keepdims or isinstance(axis, tuple):
        return _reduce_general(name, x, axis, dtype, out, keepdims)
    check_unsupported(f"{name}", out=out)
    complex_lowering.check_ordered(name, x.dtype)  # before the axis: argmin/argmax give int64
    if axis is not None:
        if isinstance(axis, tuple):
            raise UnsupportedError(
                f"{name}(axis=<tuple>) on numba_ext arrays is not supported; reduce one axis at a time"
            )
        if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, (int, np.integer)):
            raise TypeError(f"{name}(axis={axis!r}): an axis is an integer or None (as in NumPy)")
        if x.ndim == 0:
            if name == "mean" or axis not in (0, -1):
                raise np.exceptions.AxisError(axis, 0)
            axis = None  # NumPy reduces a 0-d array over axis 0 or -1 as over all (mean excepted)
        else:
            axis = normalize_axis(axis, x.ndim)
        if x.ndim == 1:
            axis = None
    if name == "mean" and (x.size if axis is None else x.shape[axis]) == 0:
        warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=3)  # as NumPy; the result is NaN
    dt = result_dtype(name, x.dtype)  # NumPy's (float32 for float32 data)
    extreme_of_bools = name in BOOL_EXTREMES and x.dtype == bool
    op = BOOL_EXTREMES[name] if extreme_of_bools else name  # the minimum of bools is their all
    direct = (op in AXIS_OPS or op in ARG_OPS) and x.dtype in DIRECT_DTYPES
    if x.dtype in COMPLEX_DTYPES:  # sums, means, truth values and products
        if name == "prod" and axis is None:
            return _complex_product(x)
        direct = op in COMPLEX_OPS
    if direct and extreme_of_bools and (x.size == 0 if axis is None else x.shape[axis] == 0):
        raise ValueError(EMPTY_MESSAGES[name])  # as NumPy's min/max, where all/any have a value
    if axis is None:
        x = x if x.ndim else x.reshape(1)
        value: np.generic
        if direct and op in ARG_OPS:
            queue = x._queue
            if unroll(queue.device) > 1:  # CPUs: one pass, each work-item's run, then the runs in order
                combine = _kernels_of(op, x.dtype, form="combine")(1, queue.device)
                return first_extreme_in_runs(op, x, queue, _kernels_of(op, x.dtype), combine, x.usm_type)
            extreme = BOOL_EXTREMES[op[3:]] if x.dtype == bool else op[3:]  # argmin: min (bools: all)
            kernels = _kernels_of(extreme, x.dtype), _kernels_of(op, x.dtype)
            return first_extreme(op, x, _whole(extreme, x.dtype), queue, *kernels, x.usm_type)
        if direct:
            whole = _whole(op, x.dtype)
            kernel_for = _kernels_of(op, x.dtype)
            if whole.device_result:  # the accumulator is the result: no copy to the host and back
                _, acc = whole.on_device(x, x._queue, kernel_for, usm_type=x.usm_type, shape=())
                if acc is not None:
                    return acc
            value = whole(x, x._queue, kernel_for)
        else:
            from ..compiler import reduction_helpers

            value = reduction_helpers.whole_function(name, x.ndim, x.dtype, x.flags.c_contiguous)(x)
        return full((), dt.type(value), dt, sycl_queue=x.queue, usm_type=x.usm_type)
    if direct:
        along, contiguous, wide = (
            _kernels_of(op, x.dtype, axis, form) for form in ("", "contiguous", "wide")
        )
        return reduce_axis(op, x, axis, dt, x._queue, along, contiguous_for=contiguous, wide_for=wide)
    from ..compiler import reduction_helpers

    return reduction_helpers.axis_reducer(name, x.ndim, dt.name, x.usm_type)(x, axis)


#: the length of the rows whose products :func:`_complex_product` takes in one step
PRODUCT_ROW = 2048


def _complex_product(x: ndarray) -> ndarray:
    """The product of every element of the complex array `x` (0-d, on its queue): products along
    the rows of the flattened elements, PRODUCT_ROW at a time, then of those, until one row is
    left (a product over every element cannot combine partial results with atomics as a sum
    does). NumPy's order of multiplication is another, so the roundings differ as a sum's do."""
    flat = x.reshape(-1)
    while flat.size > PRODUCT_ROW:
        rows, rest = divmod(flat.size, PRODUCT_ROW)
        head = reduce("prod", flat[: rows * PRODUCT_ROW].reshape(rows, PRODUCT_ROW), 1)
        if rest:
            first: Any = head[:1]  # the operators of arrays are installed by the library
            first *= reduce("prod", flat[rows * PRODUCT_ROW :].reshape(1, rest), 1)
        flat = head
    return reduce("prod", flat.reshape(1, flat.size), 1).reshape(())


#: the dtypes whose reductions in ``AXIS_OPS`` and ``ARG_OPS`` run ``ir.reductions``' kernels (and
#: whose scans run ``ir.scans``')
DIRECT_DTYPES = frozenset(
    np.dtype(t) for t in ("float32", "float64", "int8", "int16", "int32", "int64", "bool")
) | frozenset(np.dtype(t) for t in ("uint8", "uint16", "uint32", "uint64"))
#: complex dtypes and the reductions of theirs that run ``ir.reductions``' kernels (the ordered
#: ones are refused; a product over every element runs as products along rows)
COMPLEX_DTYPES = frozenset(np.dtype(t) for t in ("complex64", "complex128"))
COMPLEX_OPS = frozenset(("sum", "prod", "mean", "any", "all"))
_lock = threading.Lock()
_reductions: dict[tuple[str, np.dtype], WholeReduction] = {}
#: compiled kernels by (operation, dtype, axis or None, form, rank, device)
_kernels: dict[tuple[str, str, int | None, str, int, Device], _core.Kernel] = {}
#: by (dtype, ndims, contiguous operands, device), or (dtype, by work-groups, device) for tiles
_products: dict[tuple[Any, ...], _core.Kernel] = {}


def _whole(name: str, dtype: np.dtype) -> WholeReduction:
    found = _reductions.get((name, dtype))
    if found is None:
        found = WholeReduction(name, dtype.name)
        with _lock:
            _reductions[name, dtype] = found
    return found


_of: dict[tuple[str, np.dtype, int | None, str], _Kernels] = {}


def _kernels_of(name: str, dtype: np.dtype, axis: int | None = None, form: str = "") -> _Kernels:
    """The kernels of a reduction of arrays of `dtype` along `axis` (None: over every element), in
    `form` (see :class:`_Kernels`)."""
    found = _of.get((name, dtype, axis, form))
    if found is None:
        found = _of[name, dtype, axis, form] = _Kernels(name, dtype.name, axis, form)
    return found


class _Kernels:
    """The kernel of a reduction over every element (`axis` None) or along `axis`, per rank and
    device, compiled once. `form`: "" (the device's own form), "contiguous" (along a long
    contiguous axis: ``arrays.reductions.contiguous_form``), "wide" (``CPU_WIDE_LANES`` result
    elements per work-item: ``arrays.reductions.wide``) or "combine" (the runs of ``argmin`` /
    ``argmax`` over every element on CPUs, combined in order; any rank)."""

    def __init__(self, name: str, dtype: str, axis: int | None = None, form: str = "") -> None:
        self.name, self.dtype, self.axis, self.form = name, dtype, axis, form

    def __call__(self, ndim: int, device: Device) -> _core.Kernel:
        key = (self.name, self.dtype, self.axis, self.form, ndim, device)
        k = _kernels.get(key)
        if k is None:
            k = _core.compile_function(self._function(ndim, device), device)
            with _lock:
                _kernels[key] = k
        return k

    def _function(self, ndim: int, device: Device) -> Function:
        op, dtype, axis = self.name, self.dtype, self.axis
        if self.form == "combine":
            return arg_combine_function(op, dtype)
        if axis is None and op in ARG_OPS:  # CPUs: each run's best value and index; else the first
            return (
                arg_runs_function(op, dtype, ndim, unroll(device))
                if unroll(device) > 1
                else first_index_function(dtype, ndim)
            )
        if axis is None:
            return _whole(op, np.dtype(dtype)).function(ndim, device)
        if self.form == "contiguous":
            return contiguous_function(op, dtype, ndim, axis, device)
        lanes = CPU_WIDE_LANES if self.form == "wide" else axis_lanes(device)
        build = arg_axis_function if op in ARG_OPS else axis_function
        return build(op, dtype, ndim, axis, lanes)


def dot(a: ndarray, b: ndarray, what: str = "np.dot", out: ndarray | None = None) -> ndarray:
    """`np.dot(a, b)` / `a @ b` of 1-D and 2-D numba_ext arrays, computed on their queue (0-d for
    two vectors); with `out`, stored into it (NumPy's dtype rules: np.dot's exactly the result's,
    matmul's a same_kind cast)."""
    if (
        what in ("np.matmul", "matmul")
        and isinstance(a, ndarray)
        and isinstance(b, ndarray)
        and (a.ndim > 2 or b.ndim > 2 or (out is not None and out.ndim > 2))
    ):
        return _matmul_stacks(a, b, out)
    if out is not None:
        return _dot_into(a, b, out, what)
    if not (isinstance(a, ndarray) and isinstance(b, ndarray)):
        other = b if isinstance(a, ndarray) else a
        if np.ndim(other) == 0 and not isinstance(other, (np.ndarray, list, tuple)):
            raise UnsupportedError(f"{what} of a numba_ext array and a scalar is not supported: use *")
        other = type(other).__name__
        raise ExecutionPlacementError(
            f"{what} of a numba_ext array and a {other}: the queue of the other operand cannot be inferred "
            "(compute follows data); convert it with numba_ext.asarray(x, sycl_queue=<the array's queue>)"
        )
    check_dot_ndims(a.ndim, b.ndim, what)
    dt = dot_dtype(a.dtype, b.dtype)
    a, b = _as_result_type(a, b, dt)
    usm_type = coerce_usm_types([a.usm_type, b.usm_type])
    if dt in DIRECT_DTYPES:
        return _direct_dot(a, b, dt, usm_type or a.usm_type)
    from ..compiler import reduction_helpers

    result = reduction_helpers.dot_function(a.ndim, b.ndim, dt.name, usm_type)(a, b)
    if isinstance(result, ndarray):
        return result
    # two vectors: a 0-d array on their queue, as dpnp gives
    return full((), dt.type(result), dt, sycl_queue=a.queue, usm_type=usm_type or a.usm_type)


#: the deepest product of matrices that GPUs compute one result element per work-item, the operands
#: read in place (deeper ones: in tiles of work-groups, from C-contiguous operands)
THIN_DEPTH = 8


def _direct_dot(a: ndarray, b: ndarray, dt: np.dtype, usm_type: str) -> ndarray:
    """`np.dot` of real or bool operands of the result dtype `dt` with ``ir.products``' kernels, on
    the queue of both (compute follows data)."""
    queue = execution_queue([("a", a), ("b", b)])
    k = a.ndim - 1
    if a.shape[k] != b.shape[0]:
        shape = lambda s: "(" + ",".join(map(str, s)) + ("," if len(s) == 1 else "") + ")"
        raise ValueError(  # NumPy's message
            f"shapes {shape(a.shape)} and {shape(b.shape)} not aligned: {a.shape[k]} (dim {k}) != "
            f"{b.shape[0]} (dim 0)"
        )
    # a thin product on a GPU (x @ y.T of points in 3 dimensions): one work-item per result element
    # reads its operands where they are, as the result's writes take most of the time
    thin = a.ndim == b.ndim == 2 and a.shape[1] <= THIN_DEPTH and tile_groups(queue.device)
    matrices = a.ndim == b.ndim == 2 and dt.kind in "fiu" and not thin
    if matrices and tiled(b.shape[1], queue.device):
        # the tiles read C-contiguous matrices: copying a strided operand (x @ y.T) costs one pass
        # over it, the product k passes over the result (2048x3 @ 3x2048: 24 -> 10 ms on a CPU)
        a = a if a.flags.c_contiguous else a.copy()
        b = b if b.flags.c_contiguous else b.copy()
    contiguous = a.flags.c_contiguous and b.flags.c_contiguous
    tiles = matrices and contiguous and tiled(b.shape[1], queue.device)
    groups = tiles and tile_groups(queue.device)
    key = (dt.name, groups, queue.device) if tiles else (dt.name, a.ndim, b.ndim, contiguous, queue.device)
    kernel = _products.get(key)
    if kernel is None:
        if tiles:
            function = (products.group_tiled_function if groups else products.tiled_function)(dt.name)
        elif a.ndim == b.ndim == 1:
            function = products.vector_function(dt.name, unroll(queue.device))
        else:
            function = products.product_function(
                dt.name, a.ndim, b.ndim, contiguous, axis_lanes(queue.device)
            )
        kernel = _core.compile_function(function, queue.device)
        with _lock:
            _products[key] = kernel
    if a.ndim == b.ndim == 1:  # a 0-d array on their queue, as dpnp gives
        if dot_accumulator(dt) == dt:  # the accumulator is the result: no copy to the host and back
            acc = dot_vectors_on_device(a, b, dt, queue, kernel, usm_type, ())
            if acc is not None:
                return acc
        value = dot_vectors(a, b, dt, queue, kernel)
        return full((), value, dt, sycl_queue=queue, usm_type=usm_type)
    if tiles:
        return tiled_product(a, b, dt, queue, usm_type, kernel)
    return product(a, b, dt, queue, usm_type, kernel)


def _matmul_stacks(a: ndarray, b: ndarray, out: ndarray | None) -> ndarray:
    """``np.matmul`` / ``@`` with an operand of more than two dimensions: stacks of matrices,
    broadcast together, on the operands' queue. Stacks times one matrix are one product of the
    stacked rows; two stacks of real or bool values are one kernel (``ir.products.product_function``
    of 3-d operands, a broadcast stack read with stride 0); other dtypes take one product per
    matrix. A 1-d operand is a row (first) or column (second) vector dropped from the result, as in
    NumPy."""
    for i, x in enumerate((a, b)):
        if x.ndim == 0:
            raise ValueError(
                f"matmul: Input operand {i} does not have enough dimensions (has 0, gufunc core with "
                "signature (n?,k),(k,m?)->(n?,m?) requires 1)"
            )
    a2 = a if a.ndim > 1 else a.reshape(1, -1)
    b2 = b if b.ndim > 1 else b.reshape(-1, 1)
    (n, k), (k2, m) = a2.shape[-2:], b2.shape[-2:]
    if k != k2:
        raise ValueError(
            "matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
            f"(n?,k),(k,m?)->(n?,m?) (size {k2} is different from {k})"
        )
    try:
        batch = np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2])
    except ValueError:
        raise ValueError(
            f"operands could not be broadcast together with remapped shapes [original->remapped]: "
            f"{a.shape} and {b.shape} (the stacks of matrices {a2.shape[:-2]} and {b2.shape[:-2]})"
        ) from None
    queue = execution_queue([("x1", a), ("x2", b)])
    usm_type = coerce_usm_types([a.usm_type, b.usm_type]) or a.usm_type
    dt = dot_dtype(a.dtype, b.dtype)
    a2, b2 = _as_result_type(a2, b2, dt)
    _np: Any = np
    if b2.ndim == 2:  # stacks times one matrix: the stacked rows times it
        result = dot(a2.reshape(-1, k), b2, "np.matmul").reshape(batch + (n, m))
    else:
        stack = math.prod(batch)
        a3 = _np.broadcast_to(a2, batch + (n, k))
        b3 = _np.broadcast_to(b2, batch + (k, m))
        if dt in DIRECT_DTYPES:
            if len(batch) != 1:
                a3, b3 = a3.reshape(stack, n, k), b3.reshape(stack, k, m)
            result = _stacked_product(a3, b3, dt, queue, usm_type).reshape(batch + (n, m))
        else:
            result = allocate(batch + (n, m), dt, queue, usm_type)
            for index in np.ndindex(*batch):
                result[index] = dot(a3[index], b3[index], "np.matmul")
    if a.ndim == 1:
        result = result[..., 0, :]
    if b.ndim == 1:
        result = result[..., 0]
    if out is None:
        return result
    if not isinstance(out, ndarray):
        raise ExecutionPlacementError(
            "np.matmul(a, b, out) needs a numba_ext array for out (compute follows data)"
        )
    if out.shape != result.shape:
        raise ValueError(
            f"matmul: Output operand 0 has a mismatch in its core dimension: the result has shape "
            f"{result.shape}, out {out.shape}"
        )
    if not np.can_cast(dt, out.dtype, "same_kind"):
        raise TypeError(
            f"Cannot cast ufunc 'matmul' output from dtype('{dt}') to dtype('{out.dtype}') with casting rule "
            "'same_kind'"
        )
    from .manipulation import copy_into

    copy_into(out, result)
    return out


def _stacked_product(a: ndarray, b: ndarray, dt: np.dtype, queue: Any, usm_type: str) -> ndarray:
    """The products ``a[s] @ b[s]`` of two 3-d stacks of `dt` (any strides) on `queue`: one kernel."""
    lanes = axis_lanes(queue.device)
    # CPUs: the vector tiles of 2-d products, the stack as the third launch dimension (7x faster
    # for (4096, 16, 16) float64 stacks than neighbouring result elements per work-item); GPUs:
    # one result element per work-item, the operands read through their strides
    cpu = not tile_groups(queue.device)
    contiguous = cpu and a.flags.c_contiguous and b.flags.c_contiguous
    tiles = contiguous and dt.kind in "fiu" and tiled(b.shape[2], queue.device)
    key = (dt.name, "stacks", contiguous, tiles, lanes, queue.device)
    kernel = _products.get(key)
    if kernel is None:
        if tiles:
            function = products.tiled_function(dt.name, stacked=True)
        else:
            function = products.product_function(dt.name, 3, 3, contiguous, lanes)
        kernel = _core.compile_function(function, queue.device)
        with _lock:
            _products[key] = kernel
    if tiles:
        return tiled_product(a, b, dt, queue, usm_type, kernel)
    return product(a, b, dt, queue, usm_type, kernel)


def _dot_into(a: ndarray, b: ndarray, out: ndarray, what: str) -> ndarray:
    if not all(isinstance(t, ndarray) for t in (a, b, out)):
        raise ExecutionPlacementError(
            f"{what}(a, b, out) needs numba_ext arrays for a, b and out (compute follows data); convert the "
            "others with numba_ext.asarray(x, sycl_queue=<the arrays' queue>)"
        )
    check_dot_ndims(a.ndim, b.ndim, what)
    result = dot_dtype(a.dtype, b.dtype)
    a, b = _as_result_type(a, b, result)
    from ..compiler import products_out

    if out.ndim != products_out.product_out_ndim(a.ndim, b.ndim) or not products_out.check_out_dtype(
        what, result, out.dtype
    ):
        raise ValueError(products_out.DOT_OUT_MESSAGE)
    products_out.product_into_function(
        a.ndim, b.ndim, result.name, coerce_usm_types([a.usm_type, b.usm_type]), out.dtype.name
    )(a, b, out)
    return out


def _as_result_type(a: ndarray, b: ndarray, dt: np.dtype) -> tuple[ndarray, ndarray]:
    """The operands of a product of mixed dtypes converted to the result's (NumPy computes
    complex64 . int64 in complex128; the compiled products would multiply in Numba's complex64)."""
    if a.dtype == b.dtype == dt:
        return a, b
    return (a if a.dtype == dt else a.astype(dt)), (b if b.dtype == dt else b.astype(dt))
