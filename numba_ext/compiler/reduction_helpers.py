"""The ``numba_ext.jit`` helpers that compute reductions and ``np.dot`` on USM arrays, generated per
(operation, rank, result dtype, USM type): an axis reduction moves the (run-time) axis last with a
transposed view and runs one work-item per output element with a sequential loop along it, reading
through the strides, so slices with steps, negative strides and transposes work; one compilation
per input type serves every axis. Jitted code (through the overloads in ``reductions``) and the
eager methods call the same helpers."""

from __future__ import annotations

import functools

import numpy as np
from numba import prange

from .. import arrays
from .jit_function import jit
from .reduction_rules import BOOL_EXTREMES, EMPTY_MESSAGES, check_dot_ndims, result_dtype


def jit_from_source(src: str, name: str):
    """``numba_ext.jit`` of the function `name` defined by `src`."""
    ns = {"np": np, "prange": prange, "numba_ext": arrays}
    exec(compile(src, f"<numba_ext {name}>", "exec"), ns)
    return jit(ns[name])


def _parallel_loops(loops: list[tuple[str, str]], body: list[str]) -> list[str]:
    """Source running `body` for every combination of the index variables `loops` ((name, bound)
    pairs): one flat prange over the product of the bounds, unravelled in C order, so one kernel
    with one work-item per combination (a nested prange would run sequentially inside the kernel).
    `t`, the flat index, is the C-order position of the combination."""
    lines = [f"    nx_n{j} = {bound}" for j, (_, bound) in enumerate(loops)]
    lines.append(f"    for t in prange({' * '.join(f'nx_n{j}' for j in range(len(loops)))}):")
    rest = "t"  # each step a new name: reassigning one would count as overwriting the loop index
    for j in reversed(range(1, len(loops))):
        lines += [f"        {loops[j][0]} = {rest} % nx_n{j}", f"        nx_q{j} = {rest} // nx_n{j}"]
        rest = f"nx_q{j}"
    lines.append(f"        {loops[0][0]} = {rest}")
    return lines + ["        " + b for b in body]


def whole_function(op: str, ndim: int, dtype, contiguous: bool):
    """The numba_ext.jit function computing `np.<op>(a)` over all elements of an `ndim`-d array of
    `dtype`: a scalar, raising NumPy's ValueError for min/max/argmin/argmax of nothing. C-contiguous
    arrays (`contiguous`) are read as one flat run, which saves unravelling N-D indices."""
    boolean = np.dtype(dtype) == np.bool_
    flat = contiguous and ndim > 1
    if op.startswith("arg"):
        return arg_reducer(op[3:], 1 if flat else ndim, boolean, flat)
    empty_message = EMPTY_MESSAGES.get(op)  # NumPy's error for min/max of nothing, booleans too
    op = BOOL_EXTREMES.get(op, op) if boolean else op
    if op in ("any", "all"):
        return anyall_reducer(op, 1 if flat else ndim, flat, empty_message)
    if op == "mean":
        return mean_reducer(result_dtype("mean", dtype).name, 1 if flat else ndim, flat)
    return whole_reducer(op, EMPTY_MESSAGES.get(op), flat)


def _flatten(flat: bool) -> list[str]:
    return ["    a = a.reshape(a.size)"] if flat else []


@functools.cache
def whole_reducer(op: str, empty_message: str | None, flat: bool):
    lines = ["def reduce_all(a):"]
    if empty_message:
        lines += ["    if a.size == 0:", f"        raise ValueError({empty_message!r})"]
    lines += [*_flatten(flat), f"    return np.{op}(a)"]
    return jit_from_source("\n".join(lines), "reduce_all")


@functools.cache
def mean_reducer(out_dtype: str, ndim: int, flat: bool):
    """np.mean(a) of an `ndim`-d array: a device sum over the size, in NumPy's result type. As NumPy,
    integers are summed in float64 (an int64 sum would wrap) and float32 in float32; an empty array
    gives NaN (where Numba's own mean divides by zero)."""
    acc = "float32" if out_dtype == "float32" else "float64"
    index = ", ".join(f"i{d}" for d in range(ndim))
    src = "\n".join(
        [
            "def reduce_mean(a):",
            "    if a.size == 0:",
            f"        return np.{out_dtype}(np.nan)",
            *_flatten(flat),
            f"    s = np.{acc}(0)",
            *_parallel_loops(
                [(f"i{d}", f"a.shape[{d}]") for d in range(ndim)], [f"s += np.{acc}(a[{index}])"]
            ),
            f"    return np.{out_dtype}(s / a.size)",
        ]
    )
    return jit_from_source(src, "reduce_mean")


@functools.cache
def anyall_reducer(op: str, ndim: int, flat: bool, empty_message: str | None = None):
    """np.any / np.all of an `ndim`-d array of any layout as one prange max / min reduction: Numba's
    parfor pass leaves np.any / np.all to host code, which must not read device memory. (Also
    min / max of booleans, which raise `empty_message` for an empty array.)"""
    index = ", ".join(f"i{d}" for d in range(ndim))
    fold = "max" if op == "any" else "min"
    check = ["    if a.size == 0:", f"        raise ValueError({empty_message!r})"] if empty_message else []
    src = "\n".join(
        [
            "def reduce_anyall(a):",
            *check,
            *_flatten(flat),
            f"    s = {0 if op == 'any' else 1}",
            *_parallel_loops(
                [(f"i{d}", f"a.shape[{d}]") for d in range(ndim)],
                [f"s = {fold}(s, 1 if a[{index}] != 0 else 0)"],
            ),
            "    return s > 0",
        ]
    )
    return jit_from_source(src, "reduce_anyall")


@functools.cache
def arg_reducer(kind: str, ndim: int, boolean: bool, flat: bool):
    """np.arg<kind>(a) of an `ndim`-d array of any layout (`flat`: a C-contiguous one, reshaped to
    1-D): the flat C-order index of the first extreme element (or of the first NaN, as NumPy)."""
    index = ", ".join(f"i{d}" for d in range(ndim))
    # `t` is the flat C-order index of a[i0, i1, ...]
    body = [f"v = a[{index}]", "hit = (v != v) if nan else (v == m)", "if hit:", "    best = min(best, t)"]
    src = "\n".join(
        [
            "def arg_reduce(a):",
            "    size = a.size",
            "    if size == 0:",
            f"        raise ValueError({EMPTY_MESSAGES['arg' + kind]!r})",
            *_flatten(flat),
            f"    m = np.{BOOL_EXTREMES[kind] if boolean else kind}(a)",
            "    nan = m != m  # NumPy returns the first NaN",
            "    best = size",
            *_parallel_loops([(f"i{d}", f"a.shape[{d}]") for d in range(ndim)], body),
            "    return best",
        ]
    )
    return jit_from_source(src, "arg_reduce")


_AXIS_BODIES = {
    # op: (initial value, loop start, step, result); `x` is the element, `s` the accumulator
    "sum": ("np.{acc}(0)", 0, ["s += x"], "s"),
    "prod": ("np.{acc}(1)", 0, ["s *= x"], "s"),
    "mean": ("np.{acc}(0)", 0, ["s += x"], "s / n if n != 0 else np.nan"),
    "min": ("FIRST", 1, ["if (x < s) | (x != x):", "    s = x"], "s"),  # NaN propagates
    "max": ("FIRST", 1, ["if (x > s) | (x != x):", "    s = x"], "s"),
    # arg*: strict comparisons keep the first of equal values; once `s` is NaN it stays (the first NaN)
    "argmin": ("FIRST", 1, ["if ((x < s) | (x != x)) & (s == s):", "    s = x", "    b = k"], "b"),
    "argmax": ("FIRST", 1, ["if ((x > s) | (x != x)) & (s == s):", "    s = x", "    b = k"], "b"),
    "any": ("False", 0, ["if x != 0:", "    s = True"], "s"),
    "all": ("True", 0, ["if x == 0:", "    s = False"], "s"),
}


@functools.cache
def axis_reducer(op: str, ndim: int, out_dtype: str, usm_type: str):
    """`np.<op>(a, axis=axis)` for an `ndim`-d array (ndim >= 2) of any layout, as a numba_ext.jit
    function of (a, axis) with 0 <= axis < ndim a run-time value: a view with `axis` moved last
    (a transpose: no copy), then one work-item per output element and a sequential loop along it.
    One compilation per input type serves every axis."""
    keep = range(ndim - 1)
    perm = ", ".join([f"{j} if {j} < axis else {j + 1}" for j in keep] + ["axis"])
    outer = ", ".join(f"i{j}" for j in keep)
    init, start, step, final = _AXIS_BODIES[op]
    # sums accumulate in the result type, as NumPy does
    init = f"v[{outer}, 0]" if init == "FIRST" else init.format(acc=out_dtype)
    body = [
        "s = " + init,
        *(["b = 0"] if op.startswith("arg") else []),
        f"for k in range({start}, n):",
        f"    x = v[{outer}, k]",
        *["    " + s for s in step],
        f"out[{outer}] = {final}",
    ]
    lines = ["def reduce_axis(a, axis):", f"    v = a.transpose(({perm}))", f"    n = v.shape[{ndim - 1}]"]
    if op in EMPTY_MESSAGES:
        lines += ["    if n == 0:", f"        raise ValueError({EMPTY_MESSAGES[op]!r})"]
    shape = "(" + "".join(f"v.shape[{j}], " for j in keep) + ")"
    lines.append(f"    out = numba_ext.empty({shape}, np.{out_dtype}, usm_type={usm_type!r})")
    lines += _parallel_loops([(f"i{j}", f"v.shape[{j}]") for j in keep], body)
    lines.append("    return out")
    return jit_from_source("\n".join(lines), "reduce_axis")


def _shape_expr(var: str, ndim: int) -> str:
    """Numba source spelling `var`'s shape as NumPy prints it: '(3,4)', '(5,)'."""
    dims = ' + "," + '.join(f"str({var}.shape[{d}])" for d in range(ndim))
    return f'"(" + {dims} + "{"," if ndim == 1 else ""})"'


@functools.cache
def dot_function(ndim_a: int, ndim_b: int, out_dtype: str, usm_type: str):
    """`np.dot(a, b)` of 1-D/2-D arrays as a numba_ext.jit function. Vector . vector is a
    whole-array sum of the product; otherwise one work-item per output element loops over the
    shared dimension. Products accumulate in the result type (integers wrap as in NumPy); booleans
    count, then test."""
    check_dot_ndims(ndim_a, ndim_b)
    k = ndim_a - 1  # the contracted dimension of `a` (that of `b` is 0)
    boolean = out_dtype == "bool"
    lines = [
        "def dot(a, b):",
        f"    if a.shape[{k}] != b.shape[0]:",
        f"        raise ValueError('shapes ' + {_shape_expr('a', ndim_a)} + ' and ' + "
        f"{_shape_expr('b', ndim_b)} + ' not aligned: ' + str(a.shape[{k}]) + ' (dim {k}) != ' + "
        "str(b.shape[0]) + ' (dim 0)')",
    ]
    if ndim_a == ndim_b == 1:
        total = "np.sum(a * b)"
        lines.append(f"    return {total} != 0" if boolean else f"    return np.{out_dtype}({total})")
        return jit_from_source("\n".join(lines), "dot")
    loops = [("i", "a.shape[0]")] * (ndim_a == 2) + [("j", "b.shape[1]")] * (ndim_b == 2)
    body = [
        f"s = np.{'int64' if boolean else out_dtype}(0)",
        f"for p in range(a.shape[{k}]):",
        f"    s += a[{'i, p' if ndim_a == 2 else 'p'}] * b[{'p, j' if ndim_b == 2 else 'p'}]",
        f"out[{', '.join(v for v, _ in loops)}] = {'s != 0' if boolean else 's'}",
    ]
    shape = "(" + "".join(f"{n}, " for _, n in loops) + ")"
    lines.append(f"    out = numba_ext.empty({shape}, np.{out_dtype}, usm_type={usm_type!r})")
    lines += _parallel_loops(loops, body)
    lines.append("    return out")
    return jit_from_source("\n".join(lines), "dot")
