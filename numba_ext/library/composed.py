"""NumPy functions of numba_ext arrays composed from the library's operations, each with NumPy's
signature, values, dtypes and errors: triangles (``np.tril``, ``np.triu``), repetition and grids
(``np.tile``, ``np.meshgrid``, ``np.kron``, ``np.vander``, ``np.diag``, ``np.diagflat``), stacking
(``np.column_stack``, ``np.append``, ``np.ediff1d``), selection (``np.select``, ``np.digitize``,
``np.nan_to_num``), and small numerical helpers (``np.trapezoid``, ``np.sinc``, ``np.angle``,
``np.polyval``, ``np.inner``, ``np.vdot``, ``np.cross``) and numerical derivatives
(``np.gradient``). Every one runs on the queue compute
follows data infers from its numba_ext operands; host data among them (bins, polynomial
coefficients, values to append) is copied to that queue, as for index arrays.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..arrays import arange, asarray, asnumpy, empty, full, ndarray, zeros
from ..ir.reductions import normalize_axis
from .gather import on_common_queue

_np: Any = np  # NumPy's functions, untyped: on numba_ext arrays they dispatch to this library


# -- triangles, repetition, grids ------------------------------------------------------------------
def _triangle_mask(x: ndarray, k: int, lower: bool) -> tuple[ndarray, ndarray]:
    if x.ndim == 0:
        raise TypeError(
            f"np.{'tril' if lower else 'triu'} of a 0-d array: a triangle needs at least one dimension"
        )
    n, m = x.shape[-2:] if x.ndim >= 2 else (x.shape[0], x.shape[0])
    rows = arange(n, dtype=np.int64, sycl_queue=x.sycl_queue, usm_type=x.usm_type).reshape(n, 1)
    cols = arange(m, dtype=np.int64, sycl_queue=x.sycl_queue, usm_type=x.usm_type)
    offset = _np.subtract(cols, rows)
    keep = _np.less_equal(offset, k) if lower else _np.greater_equal(offset, k)
    return keep, zeros((), dtype=x.dtype, sycl_queue=x.sycl_queue, usm_type=x.usm_type)


def tril(m: ndarray, k: int = 0) -> ndarray:
    """np.tril: the elements above the `k`-th diagonal of the last two axes zeroed (a 1-d array
    makes the square matrix of its rows, as NumPy's)."""
    keep, zero = _triangle_mask(m, operator.index(k), lower=True)
    result: ndarray = _np.where(keep, m, zero)
    return result


def triu(m: ndarray, k: int = 0) -> ndarray:
    """np.triu: the elements below the `k`-th diagonal of the last two axes zeroed."""
    keep, zero = _triangle_mask(m, operator.index(k), lower=False)
    result: ndarray = _np.where(keep, m, zero)
    return result


def tile(A: ndarray, reps: Any) -> ndarray:
    """np.tile: `A` repeated `reps` times along each axis (a broadcast view copied on the device)."""
    reps = tuple(operator.index(r) for r in (reps if isinstance(reps, (tuple, list)) else (reps,)))
    d = max(A.ndim, len(reps))
    shape = (1,) * (d - A.ndim) + A.shape
    reps = (1,) * (d - len(reps)) + reps
    if any(r < 0 for r in reps):
        raise ValueError("negative dimensions are not allowed")
    spread = A.reshape(tuple(v for s in shape for v in (1, s)))
    tiled = _np.broadcast_to(spread, tuple(v for r, s in zip(reps, shape) for v in (r, s))).copy()
    result: ndarray = tiled.reshape(tuple(r * s for r, s in zip(reps, shape)))
    return result


def meshgrid(
    *xi: ndarray, copy: bool = True, sparse: bool = False, indexing: str = "xy"
) -> tuple[ndarray, ...]:
    """np.meshgrid: coordinate arrays from the (flattened) inputs, as NumPy builds them."""
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    ndim = len(xi)
    s0 = (1,) * ndim
    output = [x.reshape(s0[:i] + (-1,) + s0[i + 1 :]) for i, x in enumerate(xi)]
    if indexing == "xy" and ndim > 1:
        output[0] = output[0].reshape((1, -1) + s0[2:])
        output[1] = output[1].reshape((-1, 1) + s0[2:])
    if not sparse:
        shape = np.broadcast_shapes(*(o.shape for o in output))
        output = [_np.broadcast_to(o, shape) for o in output]
    if copy:
        output = [o.copy() for o in output]
    return tuple(output)


def kron(a: ndarray, b: ndarray) -> ndarray:
    """np.kron: the blocks ``a[i] * b``, as one broadcast product reshaped."""
    a, b = on_common_queue(a, b, names=("a", "b"))
    nd = max(a.ndim, b.ndim)
    sa, sb = (1,) * (nd - a.ndim) + a.shape, (1,) * (nd - b.ndim) + b.shape
    left = a.reshape(tuple(v for s in sa for v in (s, 1)))
    right = b.reshape(tuple(v for s in sb for v in (1, s)))
    result: ndarray = _np.multiply(left, right).reshape(tuple(p * q for p, q in zip(sa, sb)))
    return result


def vander(x: ndarray, N: int | None = None, increasing: bool = False) -> ndarray:
    """np.vander: the powers of `x` (a running product, NumPy's order of multiplications)."""
    if x.ndim != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    n = x.shape[0] if N is None else operator.index(N)
    dt = np.promote_types(x.dtype, int)
    columns = [full((x.shape[0], 1), 1, dt, sycl_queue=x.sycl_queue, usm_type=x.usm_type)] if n > 0 else []
    if n > 1:
        spread = _np.astype(_np.broadcast_to(x[:, None], (x.shape[0], n - 1)), dt)
        columns.append(_np.cumprod(spread, axis=1))
    if not columns:
        return zeros((x.shape[0], 0), dtype=dt, sycl_queue=x.sycl_queue, usm_type=x.usm_type)
    powers = _np.concatenate(columns, axis=1)
    result: ndarray = powers if increasing else powers[:, ::-1].copy()
    return result


def diag(v: ndarray, k: int = 0) -> ndarray:
    """np.diag: the `k`-th diagonal of a 2-d `v` (a view), or a square matrix of zeros with the
    1-d `v` on its `k`-th diagonal."""
    k = operator.index(k)
    if v.ndim == 2:
        result: ndarray = _np.diagonal(v, k)
        return result
    if v.ndim != 1:
        raise ValueError("Input must be 1- or 2-d.")
    n = v.shape[0] + abs(k)
    result = zeros((n, n), dtype=v.dtype, sycl_queue=v.sycl_queue, usm_type=v.usm_type)
    at = arange(v.shape[0], dtype=np.int64, sycl_queue=v.sycl_queue, usm_type=v.usm_type)
    rows, cols = (at, _np.add(at, k)) if k >= 0 else (_np.subtract(at, k), at)
    result[rows, cols] = v
    return result


def diagflat(v: ndarray, k: int = 0) -> ndarray:
    """np.diagflat: the flattened `v` on the `k`-th diagonal of a square matrix."""
    return diag(v.reshape(-1), k)


# -- stacking -----------------------------------------------------------------------------------------
def column_stack(tup: Sequence[ndarray]) -> ndarray:
    """np.column_stack: 1-d arrays as columns, 2-d ones as they are, joined along axis 1."""
    arrays = [a.reshape(-1, 1) if a.ndim < 2 else a for a in tup]
    result: ndarray = _np.concatenate(arrays, axis=1)
    return result


def append(arr: ndarray, values: Any, axis: int | None = None) -> ndarray:
    """np.append: `values` after `arr` (both flattened without `axis`)."""
    arr, values = on_common_queue(arr, values, names=("arr", "values"))
    if axis is None:
        arr, values = arr.reshape(-1), values.reshape(-1)
        axis = arr.ndim - 1
    result: ndarray = _np.concatenate((arr, values), axis=axis)
    return result


def ediff1d(ary: ndarray, to_end: Any = None, to_begin: Any = None) -> ndarray:
    """np.ediff1d: the differences of the flattened `ary`, with `to_begin` and `to_end` around them
    (cast to its dtype by the 'same_kind' rule, NumPy's TypeError otherwise)."""
    flat = ary.reshape(-1)

    def extra(name: str, value: Any) -> list[ndarray]:
        if value is None:
            return []
        host = asnumpy(value) if isinstance(value, ndarray) else np.asanyarray(value)
        if not np.can_cast(host, ary.dtype, casting="same_kind"):
            raise TypeError(
                f"dtype of `{name}` must be compatible with input `ary` under the `same_kind` rule."
            )
        return [asarray(host.astype(ary.dtype).reshape(-1), sycl_queue=ary.sycl_queue, usm_type=ary.usm_type)]

    parts = [*extra("to_begin", to_begin), _np.subtract(flat[1:], flat[:-1]), *extra("to_end", to_end)]
    result: ndarray = _np.concatenate(parts) if len(parts) > 1 else parts[0]
    return result


# -- selection ----------------------------------------------------------------------------------------
def select(condlist: Sequence[Any], choicelist: Sequence[Any], default: Any = 0) -> ndarray:
    """np.select: for each element the choice of the first true condition, else `default`."""
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if len(condlist) == 0:
        raise ValueError("select with an empty condition list is not possible")
    for i, c in enumerate(condlist):
        if not isinstance(c, ndarray) or c.dtype != np.bool_:
            raise TypeError(f"invalid entry {i} in condlist: should be boolean ndarray")
    dtype = np.result_type(*(c.dtype if isinstance(c, ndarray) else c for c in choicelist), default)
    shape = np.broadcast_shapes(*(np.shape(c) for c in [*condlist, *choicelist]))
    first = condlist[0]
    fill = asarray(np.asarray(default, dtype), sycl_queue=first.sycl_queue, usm_type=first.usm_type)
    result: ndarray = _np.broadcast_to(fill, shape)
    for cond, choice in zip(reversed(condlist), reversed(choicelist)):
        value = _np.astype(choice, dtype) if isinstance(choice, ndarray) else dtype.type(choice)
        result = _np.where(cond, value, result)
    return result.copy() if not result.flags.writeable else result


def digitize(x: ndarray, bins: Any, right: bool = False) -> ndarray:
    """np.digitize: the index of the bin of each `x` (``np.searchsorted`` on the monotonic
    `bins`, reversed when they decrease)."""
    x, bins = on_common_queue(x, bins, names=("x", "bins"))
    if x.dtype.kind == "c":
        raise TypeError("x may not be complex")
    if bins.ndim != 1:
        depth = "of too small depth" if bins.ndim == 0 else "too deep"
        raise ValueError(f"object {depth} for desired array")
    steps = _np.subtract(bins[1:], bins[:-1])
    if bool(_np.all(_np.greater_equal(steps, 0))):
        increasing = True
    elif bool(_np.all(_np.less_equal(steps, 0))):
        increasing = False
    else:
        raise ValueError("bins must be monotonically increasing or decreasing")
    side = "left" if right else "right"
    if increasing:
        result: ndarray = _np.searchsorted(bins, x, side=side)
        return result
    result = _np.subtract(bins.shape[0], _np.searchsorted(bins[::-1], x, side=side))
    return result


def nan_to_num(
    x: ndarray, copy: bool = True, nan: float = 0.0, posinf: Any = None, neginf: Any = None
) -> ndarray:
    """np.nan_to_num: NaN, +inf and -inf replaced (by 0 and the dtype's largest and smallest
    finite values unless given), in both parts of complex values; integers unchanged."""
    if x.dtype.kind not in "fc":
        return x.copy() if copy else x
    parts = (x.real, x.imag) if x.dtype.kind == "c" else (x,)
    info = np.finfo(parts[0].dtype)
    big = info.max if posinf is None else posinf
    small = info.min if neginf is None else neginf
    fixed = []
    for p in parts:
        p = _np.where(_np.isnan(p), nan, p)
        p = _np.where(_np.isposinf(p), big, p)
        fixed.append(_np.astype(_np.where(_np.isneginf(p), small, p), parts[0].dtype))
    target = x.copy() if copy else x
    if x.dtype.kind == "c":
        target.real[...] = fixed[0]
        target.imag[...] = fixed[1]
    else:
        target[...] = fixed[0]
    return target


# -- numerical helpers --------------------------------------------------------------------------------
def trapezoid(y: ndarray, x: Any = None, dx: float = 1.0, axis: int = -1) -> ndarray:
    """np.trapezoid: ``sum(d * (y[1:] + y[:-1]) / 2.0)`` along `axis`, `d` the spacing of `x` (or
    `dx`)."""
    if x is not None:
        y, x = on_common_queue(y, x, names=("y", "x"))
    along = normalize_axis(axis, y.ndim)

    def part(a: ndarray, at: int, start: int | None, stop: int | None) -> ndarray:
        key = [slice(None)] * a.ndim
        key[at] = slice(start, stop)
        piece: ndarray = a[tuple(key)]
        return piece

    if x is None:
        d: Any = dx
    elif x.ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    else:  # NumPy's diff(x) of a 1-d `x`, shaped along `axis` of `y`, else diff(x, axis=axis)
        at = 0 if x.ndim == 1 else normalize_axis(axis, x.ndim)
        d = _np.subtract(part(x, at, 1, None), part(x, at, None, -1))
        if x.ndim == 1:
            shape = [1] * y.ndim
            shape[along] = d.shape[0]
            d = d.reshape(shape)
    total: ndarray = _np.true_divide(
        _np.multiply(d, _np.add(part(y, along, 1, None), part(y, along, None, -1))), 2.0
    ).sum(axis=along)
    return total


def sinc(x: ndarray) -> ndarray:
    """np.sinc: ``sin(pi y) / (pi y)``, with NumPy's 1e-20 in place of 0."""
    y = _np.multiply(np.pi, _np.where(_np.equal(x, 0), 1.0e-20, x))
    result: ndarray = _np.true_divide(_np.sin(y), y)
    return result


def angle(z: ndarray, deg: bool = False) -> ndarray:
    """np.angle: the argument of each element (``arctan2(imag, real)``), in degrees with `deg`."""
    if z.dtype.kind == "c":
        a = _np.arctan2(z.imag, z.real)
    else:
        a = _np.arctan2(0, z)
    result: ndarray = _np.multiply(a, 180 / np.pi) if deg else a
    return result


def polyval(p: Any, x: Any) -> ndarray:
    """np.polyval: Horner's rule with the coefficients of `p` (copied to the host: a handful of
    numbers) over the array `x`."""
    coefficients = asnumpy(p) if isinstance(p, ndarray) else np.asarray(p)
    if not isinstance(x, ndarray):
        x, _ = on_common_queue(x, p, names=("x", "p"))
    y = _np.zeros_like(x)
    for c in coefficients:
        y = _np.add(_np.multiply(y, x), c)
    result: ndarray = y
    return result


def inner(a: ndarray, b: ndarray) -> ndarray:
    """np.inner: the sums of products over the last axes of both."""
    if a.ndim == 0 or b.ndim == 0:
        product: ndarray = _np.multiply(a, b)
        return product
    result: ndarray = _np.tensordot(a, b, axes=([a.ndim - 1], [b.ndim - 1]))
    return result


def vdot(a: ndarray, b: ndarray) -> ndarray:
    """np.vdot: the dot product of the flattened arrays, the first conjugated."""
    first = _np.conjugate(a) if a.dtype.kind == "c" else a
    result: ndarray = _np.dot(first.reshape(-1), b.reshape(-1))
    return result


def cross(
    a: ndarray, b: ndarray, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis: int | None = None
) -> ndarray:
    """np.cross of 3-vectors along the given axes (NumPy's formula, operands broadcast)."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a = _np.moveaxis(a, normalize_axis(axisa, a.ndim), -1)
    b = _np.moveaxis(b, normalize_axis(axisb, b.ndim), -1)
    if a.shape[-1] != 3 or b.shape[-1] != 3:
        raise ValueError(
            "incompatible dimensions for cross product (dimension must be 3; numba_ext does not take the "
            "2-vectors NumPy deprecated)"
        )
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    cp = [
        _np.subtract(_np.multiply(a1, b2), _np.multiply(a2, b1)),
        _np.subtract(_np.multiply(a2, b0), _np.multiply(a0, b2)),
        _np.subtract(_np.multiply(a0, b1), _np.multiply(a1, b0)),
    ]
    stacked = _np.stack(cp, axis=-1)
    result: ndarray = _np.moveaxis(stacked, -1, normalize_axis(axisc, stacked.ndim))
    return result


# -- numerical derivatives -------------------------------------------------------------------------
def _spacings(f: ndarray, axes: tuple[int, ...], varargs: tuple[Any, ...]) -> list[Any]:
    """NumPy's spacing of each axis: a scalar, or the differences of 1-d coordinates (a scalar
    again where they are uniform)."""
    if not varargs:
        return [1.0] * len(axes)
    if len(varargs) == 1 and np.ndim(varargs[0]) == 0:
        return list(varargs) * len(axes)
    if len(varargs) != len(axes):
        raise TypeError("invalid number of arguments")
    spacings: list[Any] = []
    for ax, distances in zip(axes, varargs):
        if np.ndim(distances) == 0:
            spacings.append(distances)
            continue
        if np.ndim(distances) != 1:
            raise ValueError("distances must be either scalars or 1d")
        if len(distances) != f.shape[ax]:
            raise ValueError("when 1d, distances must match the length of the corresponding dimension")
        coords = on_common_queue(f, distances)[1]
        if coords.dtype.kind in "iub":
            coords = _np.astype(coords, np.float64)  # differences of integers, not modular ones
        step = _np.diff(coords)
        spacings.append(step[0] if bool(_np.all(_np.equal(step, step[0]))) else step)
    return spacings


def _edge_weights(dx: Any, uniform: bool, first: bool) -> tuple[Any, Any, Any]:
    """The second-order one-sided weights of the first (last) three points, as NumPy's."""
    if uniform:
        return (-1.5 / dx, 2.0 / dx, -0.5 / dx) if first else (0.5 / dx, -2.0 / dx, 1.5 / dx)
    d1, d2 = (dx[0], dx[1]) if first else (dx[-2], dx[-1])
    total = _np.add(d1, d2)
    if first:
        a = _np.negative(_np.true_divide(_np.add(_np.multiply(2.0, d1), d2), _np.multiply(d1, total)))
        b = _np.true_divide(total, _np.multiply(d1, d2))
        c = _np.negative(_np.true_divide(d1, _np.multiply(d2, total)))
    else:
        a = _np.true_divide(d2, _np.multiply(d1, total))
        b = _np.negative(_np.true_divide(total, _np.multiply(d1, d2)))
        c = _np.true_divide(_np.add(_np.multiply(2.0, d2), d1), _np.multiply(d2, total))
    return a, b, c


def _weighted(a: Any, x: ndarray, b: Any, y: ndarray, c: Any, z: ndarray) -> ndarray:
    result: ndarray = _np.add(_np.add(_np.multiply(a, x), _np.multiply(b, y)), _np.multiply(c, z))
    return result


def gradient(f: Any, *varargs: Any, axis: Any = None, edge_order: int = 1) -> Any:
    """np.gradient: second-order central differences inside, one-sided differences of order
    `edge_order` (1 or 2) at the edges, along each of the axes (all by default) with NumPy's
    spacings (scalars, or 1-d coordinates, uniform or not); one array for one axis, else a tuple."""
    if not isinstance(f, ndarray):
        raise TypeError(f"np.gradient of numba_ext arrays takes a numba_ext array, not {type(f).__name__}")
    ndim = f.ndim
    given = () if axis is None else axis if isinstance(axis, (tuple, list)) else (axis,)
    axes = (
        tuple(range(ndim)) if axis is None else tuple(normalize_axis(operator.index(a), ndim) for a in given)
    )
    if len(set(axes)) != len(axes):
        raise ValueError("repeated axis")
    spacings = _spacings(f, axes, varargs)
    if edge_order > 2:
        raise ValueError("'edge_order' greater than 2 not supported")
    otype = f.dtype
    if otype.kind not in "fc":
        if otype.kind in "iu":
            f = _np.astype(f, np.float64)  # differences of integers, not modular ones
        otype = np.dtype(np.float64)
    results = []
    for ax, dx in zip(axes, spacings):
        if f.shape[ax] < edge_order + 1:
            raise ValueError(
                "Shape of array too small to calculate a numerical gradient, at least (edge_order + 1) "
                "elements are required."
            )
        out = empty(f.shape, dtype=otype, sycl_queue=f.sycl_queue, usm_type=f.usm_type)

        def at(index: Any, ax: int = ax) -> tuple[Any, ...]:
            return (slice(None),) * ax + (index,)

        uniform = not (isinstance(dx, ndarray) and dx.ndim == 1)
        inner, before, after = f[at(slice(1, -1))], f[at(slice(None, -2))], f[at(slice(2, None))]
        if uniform:
            out[at(slice(1, -1))] = _np.true_divide(_np.subtract(after, before), 2.0 * dx)
        else:
            dx1, dx2 = dx[:-1], dx[1:]
            shape = [1] * ndim
            shape[ax] = -1
            total = _np.add(dx1, dx2)
            a = _np.negative(_np.true_divide(dx2, _np.multiply(dx1, total))).reshape(shape)
            b = _np.true_divide(_np.subtract(dx2, dx1), _np.multiply(dx1, dx2)).reshape(shape)
            c = _np.true_divide(dx1, _np.multiply(dx2, total)).reshape(shape)
            out[at(slice(1, -1))] = _weighted(a, before, b, inner, c, after)
        if edge_order == 1:
            out[at(0)] = _np.true_divide(_np.subtract(f[at(1)], f[at(0)]), dx if uniform else dx[0])
            out[at(-1)] = _np.true_divide(_np.subtract(f[at(-1)], f[at(-2)]), dx if uniform else dx[-1])
        else:
            a, b, c = _edge_weights(dx, uniform, True)
            out[at(0)] = _weighted(a, f[at(0)], b, f[at(1)], c, f[at(2)])
            a, b, c = _edge_weights(dx, uniform, False)
            out[at(-1)] = _weighted(a, f[at(-3)], b, f[at(-2)], c, f[at(-1)])
        results.append(out)
    return results[0] if len(axes) == 1 else tuple(results)


COMPOSED_FUNCTIONS: dict[Callable[..., Any], Callable[..., Any]] = {
    np.tril: tril,
    np.triu: triu,
    np.tile: tile,
    np.meshgrid: meshgrid,
    np.kron: kron,
    np.vander: vander,
    np.diag: diag,
    np.diagflat: diagflat,
    np.column_stack: column_stack,
    np.append: append,
    np.ediff1d: ediff1d,
    np.select: select,
    np.digitize: digitize,
    np.nan_to_num: nan_to_num,
    np.trapezoid: trapezoid,
    np.sinc: sinc,
    np.angle: angle,
    np.polyval: polyval,
    np.inner: inner,
    np.vdot: vdot,
    np.cross: cross,
    np.gradient: gradient,
}
