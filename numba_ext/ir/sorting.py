"""Sorting on the device (``np.sort``, ``np.argsort``, ``np.searchsorted``), as kernels in the
control-flow form (:class:`~.kernel_ir.Function`).

The ordering: ascending, with NaN greater than every number (all NaNs equivalent; ``-0.0`` and
``0.0`` equivalent), as NumPy's; descending is that ordering reversed. Equivalent elements keep
their original order in both (a stable sort: a descending sort is not the reverse of an ascending
one). Keys are compared in :func:`key_dtype` (booleans as ``uint8``, ``float16`` as ``float32``,
both exact).

A sort of rows (each row sorted on its own; the caller moves the sorted axis last) takes:

1. :func:`chunk_sort_function`: one work-item per run of ``chunk`` consecutive positions of a row
   reads its elements from the input (any layout) and sorts them by insertion (stable) into a
   C-contiguous ``(rows, n)`` buffer of keys (and, for ``argsort``, of their positions in the row);
2. :func:`merge_pass_function`, once per width ``w = chunk, 2 * chunk, ...`` while ``w < n`` (at
   least once): the sorted runs ``[s, s + w)`` and ``[s + w, s + 2w)`` of each row merged by rank,
   one work-item per element. An element of the left run goes to its own offset in its run plus the
   number of elements of the right run strictly before it, an element of the right run to its
   offset plus the number of elements of the left run not after it (binary searches), so ties keep
   their order. Passes ping-pong between two buffers; the last writes the result (keys cast back to
   the input's dtype for ``sort``, positions for ``argsort``) through the strides of any
   destination, such as a view of the result with the sorted axis moved last. On CPUs
   :func:`merge_path_function` does the same merges with each work-item writing a share of
   consecutive elements: a binary search along the merge path finds where its share starts in
   both runs, then it merges sequentially (the left run first among equal keys).

:func:`searchsorted_function`: one work-item per needle binary-searches a 1-d array (through a
``sorter`` permutation where given), with NumPy's sides and NaN order.

No kernel here takes an integer minimum, maximum or select (which makes the Intel CPU runtime build
a kernel without optimisation, see ``rust/src/runtime/program.rs``): bounds are clamped by branches.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .complex_lowering import component
from .kernel_ir import (
    ArrayDecl,
    BinaryInst,
    Branch,
    Dim,
    FnArrayParam,
    FnScalarParam,
    Function,
    Imm,
    Jump,
    LoadInst,
    Local,
    Operand,
    Return,
    StoreInst,
    UnaryInst,
    WorkItem,
)
from .reductions import FunctionBuilder

_I64 = "int64"
#: the elements each work-item of :func:`chunk_sort_function` sorts by insertion (the first runs)
CHUNK = 16
#: the most elements each work-item of :func:`merge_path_function` writes (fewer in the first
#: passes: a share stays within one merged run)
PATH_ITEMS = 1024
#: the dtypes sorting takes (real, complex and bool; ``float16`` compared in ``float32``)
SORTABLE = frozenset(
    np.dtype(t)
    for t in (
        "bool",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "float16",
        "float32",
        "float64",
        "complex64",
        "complex128",
    )
)


def key_dtype(dtype: str) -> str:
    """The dtype in which elements of `dtype` are compared (and kept between passes): booleans as
    ``uint8``, ``float16`` as ``float32`` (both exact), others as themselves."""
    dt = np.dtype(dtype)
    if dt not in SORTABLE:
        raise ValueError(f"{dt} values cannot be sorted by these kernels")
    return {"bool": "uint8", "float16": "float32"}.get(dt.name, dt.name)


def merge_passes(n: int, chunk: int = CHUNK) -> int:
    """The merge passes of a sort of rows of `n` elements after runs of `chunk` are sorted: one per
    doubling of the run width from `chunk` below `n`, and at least one (the last pass writes the
    result)."""
    passes, width = 1, chunk
    while width * 2 < n:
        passes, width = passes + 1, width * 2
    return passes


def before(b: FunctionBuilder, x: Operand, y: Operand, key: str, descending: bool) -> Local:
    """Whether `x` comes strictly before `y` (keys of dtype `key`) in the ordering: ascending with NaN
    greatest, or (`descending`) that ordering reversed."""
    if descending:
        x, y = y, x
    if np.dtype(key).kind == "c":
        return _complex_before(b, x, y, component(key))
    lt = b.binary("bool", "lt", x, y)
    if np.dtype(key).kind != "f":
        return lt
    y_nan = b.binary("bool", "ne", y, y)
    x_number = b.binary("bool", "eq", x, x)
    return b.binary("bool", "or", lt, b.binary("bool", "and", y_nan, x_number))


def _complex_before(b: FunctionBuilder, x: Operand, y: Operand, part: str) -> Local:
    """NumPy's order of complex values: by real part, then imaginary part, with NaN parts last
    (``[R + Rj, R + nanj, nan + Rj, nan + nanj]``)."""

    def parts(z: Operand) -> tuple[Local, Local]:
        found = []
        for op in ("real", "imag"):
            dst = b.local(part)
            b.emit(UnaryInst(dst, op, z))
            found.append(Local(dst))
        return found[0], found[1]

    def both(p: Local, q: Local) -> Local:
        return b.binary("bool", "and", p, q)

    def either(p: Local, q: Local) -> Local:
        return b.binary("bool", "or", p, q)

    (xr, xi), (yr, yi) = parts(x), parts(y)
    xr_nan, yr_nan = b.binary("bool", "ne", xr, xr), b.binary("bool", "ne", yr, yr)
    xi_number, yi_nan = b.binary("bool", "eq", xi, xi), b.binary("bool", "ne", yi, yi)
    real_lt, real_gt = b.binary("bool", "lt", xr, yr), b.binary("bool", "gt", xr, yr)
    real_same = either(b.binary("bool", "eq", xr, yr), both(xr_nan, yr_nan))
    imag_before = either(b.binary("bool", "lt", xi, yi), both(yi_nan, xi_number))
    unordered = _not(b, either(either(real_lt, real_gt), real_same))  # one real part NaN
    return either(
        either(both(real_lt, either(xi_number, yi_nan)), both(real_gt, both(yi_nan, xi_number))),
        either(both(real_same, imag_before), both(unordered, yr_nan)),
    )


def _clamp(b: FunctionBuilder, dst: int, limit: Operand) -> None:
    """``dst = min(dst, limit)`` (int64) by a branch (no integer minimum: see the module
    documentation); the builder is left after it."""
    clamp, after = b.new_block(), b.new_block()
    b.end(Branch(b.binary("bool", "lt", limit, Local(dst)), clamp, after), then=clamp)
    b.set(dst, limit)
    b.end(Jump(after), then=after)


def _search(b: FunctionBuilder, lo: Operand, hi: Operand, goes_right: Callable[[Local], Local]) -> Local:
    """Emit a binary search over positions ``lo .. hi - 1`` for the first position whose
    `goes_right(position)` is False (it holds for a prefix of the range): returns the local
    holding that position (`hi` where it holds everywhere); the builder is left after the loop."""
    low, high = b.local(_I64), b.local(_I64)
    b.set(low, lo)
    b.set(high, hi)
    head, body, right, left, done = (b.new_block() for _ in range(5))
    b.end(Jump(head), then=head)
    b.end(Branch(b.binary("bool", "lt", Local(low), Local(high)), body, done), then=body)
    middle = b.binary(_I64, "floordiv", b.binary(_I64, "add", Local(low), Local(high)), Imm(_I64, 2))
    b.end(Branch(goes_right(middle), right, left), then=right)
    b.emit(BinaryInst(low, "add", middle, Imm(_I64, 1)))
    b.end(Jump(head), then=left)
    b.set(high, middle)
    b.end(Jump(head), then=done)
    return Local(low)


def _rows_of(b: FunctionBuilder, extents: list[Operand]) -> Operand:
    """The product of `extents` (1 for none)."""
    rows: Operand = Imm(_I64, 1)
    for e in extents:
        rows = b.binary(_I64, "mul", rows, e)
    return rows


def chunk_sort_function(
    dtype: str, ndim: int, index: bool, descending: bool = False, chunk: int = CHUNK
) -> Function:
    """The first step of a sort of the rows of an `ndim`-d array of `dtype` (any layout; its last
    axis is the sorted one, the others index the rows in C order): each work-item sorts one run of
    `chunk` consecutive positions of a row (the last run of a row may be shorter) by insertion,
    stably, into the C-contiguous ``(rows, n)`` buffer of keys (:func:`key_dtype`) and, with
    `index`, the int64 buffer of the elements' positions in their row. Parameters: the input, the
    keys[, the positions]; launched over at least ``rows * ceil(n / chunk)`` work-items."""
    if ndim < 1:
        raise ValueError("a sort of a 0-d array")
    if chunk < 1:
        raise ValueError(f"runs of {chunk} elements")
    key = key_dtype(dtype)
    b = FunctionBuilder(1)
    t = b.local(_I64)
    b.emit(WorkItem(t, "get_global_id", 0))
    extents, _ = b.extents(0, ndim)
    n = extents[-1]
    chunks = b.binary(_I64, "floordiv", b.binary(_I64, "add", n, Imm(_I64, chunk - 1)), Imm(_I64, chunk))
    total = b.binary(_I64, "mul", _rows_of(b, extents[:-1]), chunks)
    setup, done = b.new_block(), b.new_block()
    b.end(Branch(b.binary("bool", "lt", Local(t), total), setup, done), then=setup)
    # this work-item's row and run [lo, hi) of it
    row = b.binary(_I64, "floordiv", Local(t), chunks)
    lo = b.binary(
        _I64, "mul", b.binary(_I64, "sub", Local(t), b.binary(_I64, "mul", row, chunks)), Imm(_I64, chunk)
    )
    hi = b.local(_I64)
    b.set(hi, b.binary(_I64, "add", lo, Imm(_I64, chunk)))
    _clamp(b, hi, n)
    fixed = b.unflatten(row, extents[:-1]) if ndim > 1 else []
    base = b.binary(_I64, "mul", row, n)
    # insertion: element j of the run goes into the sorted prefix [lo, j) of the buffers
    j, k = b.local(_I64), b.local(_I64)
    b.set(j, lo)
    head, body, shift_head, shift_test, shift, place, next_j = (b.new_block() for _ in range(7))
    b.end(Jump(head), then=head)
    b.end(Branch(b.binary("bool", "lt", Local(j), Local(hi)), body, done), then=body)
    e = b.local(dtype)
    b.emit(LoadInst(e, 0, (*fixed, Local(j))))
    v = b.cast(key, Local(e), dtype)
    b.set(k, b.binary(_I64, "add", base, Local(j)))
    start = b.binary(_I64, "add", base, lo)
    b.end(Jump(shift_head), then=shift_head)
    # while k > start and v comes before keys[k - 1]: move keys[k - 1] up one
    b.end(Branch(b.binary("bool", "gt", Local(k), start), shift_test, place), then=shift_test)
    prev = b.binary(_I64, "sub", Local(k), Imm(_I64, 1))
    u = b.local(key)
    b.emit(LoadInst(u, 1, (prev,)))
    b.end(Branch(before(b, v, Local(u), key, descending), shift, place), then=shift)
    b.emit(StoreInst(1, (Local(k),), Local(u)))
    if index:
        p = b.local(_I64)
        b.emit(LoadInst(p, 2, (prev,)))
        b.emit(StoreInst(2, (Local(k),), Local(p)))
    b.set(k, prev)
    b.end(Jump(shift_head), then=place)
    b.emit(StoreInst(1, (Local(k),), v))
    if index:
        b.emit(StoreInst(2, (Local(k),), Local(j)))
    b.end(Jump(next_j), then=next_j)
    b.emit(BinaryInst(j, "add", Local(j), Imm(_I64, 1)))
    b.end(Jump(head), then=done)
    b.end(Return())
    arrays = [ArrayDecl("x", dtype, ndim, "global"), ArrayDecl("keys", key, 1, "global", contiguous=True)]
    if index:
        arrays.append(ArrayDecl("positions", _I64, 1, "global", contiguous=True))
    order = "desc" if descending else "asc"
    what = "argsort" if index else "sort"
    return b.function(f"{what}_runs{chunk}_{order}_of_{dtype}_{ndim}d", *arrays)


class _Destination:
    """The arrays a merge pass reads and writes, after :func:`chunk_sort_function`: the source keys
    (:func:`key_dtype` of `dtype`) and, with `index`, positions, each a C-contiguous ``(rows, n)``
    buffer; then (not `final`) another such pair, or (`final`) the result, an `out_ndim`-d array of
    any strides whose last axis has the rows' length and whose other axes index the rows in C
    order: the keys as `dtype` (a sort), or with `index` the positions (int64, an argsort)."""

    def __init__(self, b: FunctionBuilder, dtype: str, index: bool, final: bool, out_ndim: int) -> None:
        if final and out_ndim < 1:
            raise ValueError("a sort into a 0-d array")
        self.b, self.dtype, self.key, self.index = b, dtype, key_dtype(dtype), index
        self.final, self.out_ndim = final, out_ndim
        self.arrays = [ArrayDecl("keys", self.key, 2, "global", contiguous=True)]
        if index:
            self.arrays.append(ArrayDecl("positions", _I64, 2, "global", contiguous=True))
        self.first_out = len(self.arrays)
        if not final:
            self.arrays.append(ArrayDecl("out_keys", self.key, 2, "global", contiguous=True))
            if index:
                self.arrays.append(ArrayDecl("out_positions", _I64, 2, "global", contiguous=True))
        else:
            self.arrays.append(ArrayDecl("out", _I64 if index else dtype, out_ndim, "global"))
        self.fixed: list[Operand] = []

    def key_at(self, row: Operand, position: Operand) -> Local:
        """The source key at `position` of `row`."""
        u = self.b.local(self.key)
        self.b.emit(LoadInst(u, 0, (row, position)))
        return Local(u)

    def set_row(self, row: Operand) -> None:
        """Where the destination's row `row` is (the index of its other axes)."""
        b = self.b
        if not self.final:
            self.fixed = [row]
            return
        extents: list[Operand] = []
        for d in range(self.out_ndim - 1):
            e = b.local(_I64)
            b.emit(Dim(e, self.first_out, d))
            extents.append(Local(e))
        self.fixed = b.unflatten(row, extents) if self.out_ndim > 1 else []

    def move(self, row: Operand, source: Operand, dest: Operand, key: Local | None = None) -> None:
        """The element at `source` of `row` (its key `key` where already loaded) stored at `dest` of
        the destination's row (:meth:`set_row`)."""
        b, at = self.b, (*self.fixed, dest)
        if self.index:
            p = b.local(_I64)
            b.emit(LoadInst(p, 1, (row, source)))
        if not self.final or not self.index:
            v = self.key_at(row, source) if key is None else key
            if self.final:
                v = b.cast(self.dtype, v, self.key)
            b.emit(StoreInst(self.first_out, at, v))
        if self.index:
            b.emit(StoreInst(self.first_out + (0 if self.final else 1), at, Local(p)))

    def function(self, name: str, descending: bool, *scalars: int) -> Function:
        what = "argsort" if self.index else "sort"
        order = "desc" if descending else "asc"
        into = f"_into_{self.out_ndim}d" if self.final else ""
        function = self.b.function(f"{what}_{name}_{order}_of_{self.dtype}{into}", *self.arrays)
        return _with_scalars(function, *scalars)


def _runs(b: FunctionBuilder, i: Operand, w: Local, n: Operand) -> tuple[Local, Local, Local]:
    """The start of the pair of runs of width `w` holding position `i` of a row of `n`, the start of
    its right run and its end (both clamped to `n`)."""
    two = b.binary(_I64, "add", w, w)
    s = b.binary(_I64, "mul", b.binary(_I64, "floordiv", i, two), two)
    mid, end = b.local(_I64), b.local(_I64)
    b.set(mid, b.binary(_I64, "add", s, w))
    _clamp(b, mid, n)
    b.set(end, b.binary(_I64, "add", s, two))
    _clamp(b, end, n)
    return s, Local(mid), Local(end)


def _not(b: FunctionBuilder, x: Local) -> Local:
    return b.binary("bool", "eq", x, Imm("bool", False))


def merge_pass_function(
    dtype: str, index: bool, descending: bool = False, final: bool = False, out_ndim: int = 2
) -> Function:
    """One merge pass of a sort of rows (after :func:`chunk_sort_function`): the sorted runs of width
    ``w`` (a scalar parameter) of each row merged by rank into runs of ``2w`` (see the module
    documentation), one work-item per element (GPUs: neighbouring work-items read and write
    neighbouring elements). Parameters: the arrays of :class:`_Destination` (sources, then
    destinations or the result), then ``w`` (int64); launched over at least ``rows * n``
    work-items."""
    key = key_dtype(dtype)
    b = FunctionBuilder(1)
    g, w = b.local(_I64), b.local(_I64)
    dst = _Destination(b, dtype, index, final, out_ndim)
    b.emit(WorkItem(g, "get_global_id", 0))
    (rows, n), total = b.extents(0, 2)
    setup, done = b.new_block(), b.new_block()
    b.end(Branch(b.binary("bool", "lt", Local(g), total), setup, done), then=setup)
    row = b.binary(_I64, "floordiv", Local(g), n)
    i = b.binary(_I64, "sub", Local(g), b.binary(_I64, "mul", row, n))
    s, mid, end = _runs(b, i, Local(w), n)
    v = dst.key_at(row, i)
    # the rank of the element in the other run: where it lands is i + rank - mid either way
    rank = b.local(_I64)
    left, right, place = b.new_block(), b.new_block(), b.new_block()
    b.end(Branch(b.binary("bool", "lt", i, mid), left, right), then=left)
    found = _search(b, mid, end, lambda m: before(b, dst.key_at(row, m), v, key, descending))
    b.set(rank, found)
    b.end(Jump(place), then=right)
    found = _search(b, s, mid, lambda m: _not(b, before(b, v, dst.key_at(row, m), key, descending)))
    b.set(rank, found)
    b.end(Jump(place), then=place)
    dest = b.binary(_I64, "sub", b.binary(_I64, "add", i, Local(rank)), mid)
    dst.set_row(row)
    dst.move(row, i, dest, v)
    b.end(Jump(done), then=done)
    b.end(Return())
    return dst.function("merge", descending, w)


def merge_path_function(
    dtype: str,
    index: bool,
    descending: bool = False,
    final: bool = False,
    out_ndim: int = 2,
) -> Function:
    """One merge pass as :func:`merge_pass_function`, each work-item writing ``k`` consecutive
    elements of a merged run (CPUs: sequential reads and writes). The work-item finds how many of
    its first output's predecessors come from the left run by a binary search along the merge path
    (the largest ``i`` whose left element ``i - 1`` is not after the right element before it), then
    merges its share sequentially, the left run first among equal keys (stable). ``k`` (a scalar
    parameter after ``w``) is a power of two dividing ``2w``, so that a share stays in one merged
    run. Parameters as :func:`merge_pass_function`'s, then ``k``; launched over at least
    ``rows * ceil(n / k)`` work-items (on CPUs in work-groups of one: the runtime runs them as
    scalar code, where packing work-items into vector lanes would make every load a gather)."""
    key = key_dtype(dtype)
    b = FunctionBuilder(1)
    t, w, k = b.local(_I64), b.local(_I64), b.local(_I64)
    per_item = Local(k)
    dst = _Destination(b, dtype, index, final, out_ndim)
    b.emit(WorkItem(t, "get_global_id", 0))
    (rows, n), _ = b.extents(0, 2)
    shares = b.binary(
        _I64, "floordiv", b.binary(_I64, "add", n, b.binary(_I64, "sub", per_item, Imm(_I64, 1))), per_item
    )
    setup, done = b.new_block(), b.new_block()
    b.end(
        Branch(b.binary("bool", "lt", Local(t), b.binary(_I64, "mul", rows, shares)), setup, done), then=setup
    )
    row = b.binary(_I64, "floordiv", Local(t), shares)
    o = b.binary(_I64, "mul", b.binary(_I64, "sub", Local(t), b.binary(_I64, "mul", row, shares)), per_item)
    s, mid, end = _runs(b, o, Local(w), n)
    # the merge path: i of the first d = o - s outputs come from the left run, d - i from the right
    d = b.binary(_I64, "sub", o, s)
    lo, hi = b.local(_I64), b.local(_I64)
    b.set(lo, b.binary(_I64, "sub", d, b.binary(_I64, "sub", end, mid)))
    raise_lo, lo_set = b.new_block(), b.new_block()
    b.end(Branch(b.binary("bool", "lt", Local(lo), Imm(_I64, 0)), raise_lo, lo_set), then=raise_lo)
    b.set(lo, Imm(_I64, 0))
    b.end(Jump(lo_set), then=lo_set)
    b.set(hi, d)
    _clamp(b, hi, b.binary(_I64, "sub", mid, s))

    def taken(m: Local) -> Local:
        """Whether left element m is among the first d outputs: not after right element d - m - 1."""
        left = dst.key_at(row, b.binary(_I64, "add", s, m))
        right = dst.key_at(
            row, b.binary(_I64, "sub", b.binary(_I64, "add", mid, d), b.binary(_I64, "add", m, Imm(_I64, 1)))
        )
        return _not(b, before(b, right, left, key, descending))

    i_rel = _search(b, Local(lo), Local(hi), taken)
    i, j, out, stop = b.local(_I64), b.local(_I64), b.local(_I64), b.local(_I64)
    b.set(i, b.binary(_I64, "add", s, i_rel))
    b.set(j, b.binary(_I64, "sub", b.binary(_I64, "add", mid, d), i_rel))
    b.set(out, o)
    b.set(stop, b.binary(_I64, "add", o, per_item))
    _clamp(b, stop, end)
    dst.set_row(row)
    head, body, check_right, compare, take_left, take_right = (b.new_block() for _ in range(6))
    b.end(Jump(head), then=head)
    b.end(Branch(b.binary("bool", "lt", Local(out), Local(stop)), body, done), then=body)
    b.end(Branch(b.binary("bool", "lt", Local(i), mid), check_right, take_right), then=check_right)
    b.end(Branch(b.binary("bool", "lt", Local(j), end), compare, take_left), then=compare)
    right_first = before(b, dst.key_at(row, Local(j)), dst.key_at(row, Local(i)), key, descending)
    b.end(Branch(right_first, take_right, take_left), then=take_left)
    dst.move(row, Local(i), Local(out))
    b.emit(BinaryInst(i, "add", Local(i), Imm(_I64, 1)))
    b.emit(BinaryInst(out, "add", Local(out), Imm(_I64, 1)))
    b.end(Jump(head), then=take_right)
    dst.move(row, Local(j), Local(out))
    b.emit(BinaryInst(j, "add", Local(j), Imm(_I64, 1)))
    b.emit(BinaryInst(out, "add", Local(out), Imm(_I64, 1)))
    b.end(Jump(head), then=done)
    b.end(Return())
    return dst.function("path", descending, w, k)


def _with_scalars(function: Function, *scalars: int) -> Function:
    """`function` taking the int64 locals `scalars` as scalar parameters after its arrays."""
    params = (*function.params, *(FnScalarParam(local) for local in scalars))
    return Function(function.name, function.locals, function.arrays, params, function.blocks)


def searchsorted_function(
    dtype: str, needle_dtype: str, ndim: int, side: str, sorter: str | None = None
) -> Function:
    """NumPy's ``searchsorted`` of the needles of an `ndim`-d array of `needle_dtype` (any layout) in
    a 1-d array of `dtype` (any strides), each element of both converted to their common dtype
    ``np.promote_types`` (compared as :func:`key_dtype`, NaN greatest): one work-item per needle
    binary-searches the array (read through the `sorter` positions, an integer 1-d array of that
    dtype, where given) for the first position whose element is not before the needle (`side`
    ``"left"``) or comes after it (``"right"``), stored as int64 at the needle's flat position (C
    order) of the result. With a sorter, a position met outside ``[0, len(a))`` is not read: the
    search stops and sets the one-element int32 error flag to 1. Parameters: the array, the
    needles[, the sorter, the flag], the result (1-d, C-contiguous); launched over at least the
    number of needles."""
    if side not in ("left", "right"):
        raise ValueError(f"search side must be 'left' or 'right' (got {side!r})")
    if ndim < 1:
        raise ValueError("needles of a 0-d array: view them as 1-d")
    common = np.promote_types(np.dtype(dtype), np.dtype(needle_dtype)).name
    key = key_dtype(common)
    b = FunctionBuilder(1)
    g = b.local(_I64)
    b.emit(WorkItem(g, "get_global_id", 0))
    extents, total = b.extents(1, ndim)
    n = b.local(_I64)
    b.emit(Dim(n, 0, 0))
    out = 4 if sorter is not None else 2
    flag = 3
    setup, done = b.new_block(), b.new_block()
    b.end(Branch(b.binary("bool", "lt", Local(g), total), setup, done), then=setup)
    e = b.local(needle_dtype)
    b.emit(LoadInst(e, 1, tuple(b.unflatten(Local(g), extents))))
    needle = b.cast(key, b.cast(common, Local(e), needle_dtype), common)

    def goes_right(m: Local) -> Local:
        at: Operand = m
        if sorter is not None:
            s = b.local(sorter)
            b.emit(LoadInst(s, 2, (m,)))
            at = b.cast(_I64, Local(s), sorter)
            inside = b.binary(
                "bool", "and", b.binary("bool", "ge", at, Imm(_I64, 0)), b.binary("bool", "lt", at, Local(n))
            )
            read, bad = b.new_block(), b.new_block()
            b.end(Branch(inside, read, bad), then=bad)
            b.emit(StoreInst(flag, (Imm(_I64, 0),), Imm("int32", 1)))
            b.emit(StoreInst(out, (Local(g),), Imm(_I64, 0)))
            b.end(Jump(done), then=read)
        u = b.local(dtype)
        b.emit(LoadInst(u, 0, (at,)))
        x = b.cast(key, b.cast(common, Local(u), dtype), common)
        if side == "left":
            return before(b, x, needle, key, False)
        return b.binary("bool", "eq", before(b, needle, x, key, False), Imm("bool", False))

    found = _search(b, Imm(_I64, 0), Local(n), goes_right)
    b.emit(StoreInst(out, (Local(g),), found))
    b.end(Jump(done), then=done)
    b.end(Return())
    arrays = [ArrayDecl("a", dtype, 1, "global"), ArrayDecl("v", needle_dtype, ndim, "global")]
    if sorter is not None:
        arrays.append(ArrayDecl("sorter", sorter, 1, "global"))
        arrays.append(ArrayDecl("flag", "int32", 1, "global", contiguous=True))
    arrays.append(ArrayDecl("out", _I64, 1, "global", contiguous=True))
    name = f"searchsorted_{side}_of_{dtype}_{needle_dtype}_{ndim}d" + (f"_by_{sorter}" if sorter else "")
    function = b.function(name, *arrays)
    assert all(isinstance(p, FnArrayParam) for p in function.params)
    return function
