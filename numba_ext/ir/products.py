"""The kernels of ``np.dot`` of 1-d and 2-d arrays in the control-flow form
(:class:`~.kernel_ir.Function`), for eager products. Both operands hold the result dtype already
(the caller converts them, as NumPy computes in the result type); products accumulate in it, so
integers wrap as in NumPy, and booleans count their true products in int64, then test the count.

* A matrix with a matrix or a vector, or a vector with a matrix (:func:`product_function`): one
  work-item per result element, a sequential loop over the shared dimension, in the order of the
  compiler layer's jitted helpers (``compiler.reduction_helpers``).
* Two C-contiguous matrices of a real dtype with a result of at least ``TILE_COLUMNS * TILE_GROUP``
  columns (:func:`tiled_function`): each work-item computes a tile of ``TILE_ROWS`` consecutive rows
  by ``TILE_COLUMNS`` columns, the columns a fixed distance apart so that neighbouring work-items
  take neighbouring columns: the CPU runtime turns ``TILE_GROUP`` work-items into vector lanes (one
  vector load of `b` per column and step along the shared dimension, one broadcast of `a` per
  row), and a GPU's neighbouring work-items read neighbouring addresses.
* Two vectors (:func:`vector_function`): the pattern of a reduction over every element (a capped
  number of work-items, each a grid-stride loop into a private partial, combined with an atomic add
  into a one-element accumulator of ``accumulator_dtype``), so float results agree with the compiled
  form's within rounding.
"""

from __future__ import annotations

from dataclasses import dataclass

from .kernel_ir import (
    ArrayDecl,
    Atomic,
    Barrier,
    BinaryInst,
    Branch,
    Dim,
    Function,
    Imm,
    Jump,
    LoadInst,
    Local,
    Operand,
    Return,
    StoreInst,
    WorkItem,
)
from .reductions import FunctionBuilder, ResultLanes, accumulator_dtype, constant

_I64 = "int64"


def _zero(dtype: str) -> Imm:
    return Imm(dtype, 0.0 if dtype.startswith("float") else 0)


def accumulation_dtype(dtype: str) -> str:
    """The dtype a product of `dtype` accumulates in: int64 for booleans (a count), else `dtype`."""
    return _I64 if dtype == "bool" else dtype


def product_function(
    dtype: str, ndim_a: int, ndim_b: int, contiguous: bool = False, lanes: int = 1
) -> Function:
    """``np.dot`` of an `ndim_a`-d and an `ndim_b`-d array of `dtype` (1 or 2 each, not both 1) into a
    C-contiguous result of `dtype`, or (both 3) the products of two stacks of matrices, ``out[s] =
    a[s] @ b[s]`` (``np.matmul``; a stack broadcast has stride 0); with `contiguous`, for
    C-contiguous operands (their strides computed from their shapes, which spares the kernel the
    loads and multiplications of strides).
    Parameters: a, b, the result (each: data address, shape, byte strides); launched over the
    result's size (at least: work-items beyond it do nothing) with `lanes` 1, else over
    ``ceil(size / lanes)`` work-items each computing `lanes` neighbouring result elements in one loop
    over the shared dimension (CPUs, in work-groups of one: see ``reductions.ResultLanes``)."""
    stacks = ndim_a == ndim_b == 3
    if not (stacks or (ndim_a in (1, 2) and ndim_b in (1, 2) and ndim_a + ndim_b > 2)):
        raise ValueError(f"no product kernel of a {ndim_a}-d and a {ndim_b}-d array")
    acc = accumulation_dtype(dtype)
    ndim_out = 3 if stacks else ndim_a + ndim_b - 2
    b = FunctionBuilder(1)
    done = b.new_block()
    result = ResultLanes(b, 2, ndim_out, lanes, done)
    # set-up: the shared length, the sums' start
    n = b.local(_I64)
    b.emit(Dim(n, 0, ndim_a - 1))
    k = b.local(_I64)
    sums = [b.local(acc) for _ in range(lanes)]
    b.set(k, Imm(_I64, 0))
    for s in sums:
        b.set(s, _zero(acc))
    head, body, finish = b.new_block(), b.new_block(), b.new_block()
    b.end(Jump(head), then=head)
    b.end(Branch(b.binary("bool", "lt", Local(k), Local(n)), body, finish), then=body)

    def load(array: int, index: tuple[Operand, ...]) -> Local:
        v = b.local(dtype)
        b.emit(LoadInst(v, array, index))
        return Local(v)

    for out_index, s in zip(result.indices, sums):
        if stacks:
            x = load(0, (out_index[0], out_index[1], Local(k)))
            y = load(1, (out_index[0], Local(k), out_index[2]))
        else:
            row = out_index[0] if ndim_a == 2 else None
            column = out_index[-1] if ndim_b == 2 else None
            x = load(0, (Local(k),) if row is None else (row, Local(k)))
            y = load(1, (Local(k),) if column is None else (Local(k), column))
        term = b.binary(acc, "mul", b.cast(acc, x, dtype), b.cast(acc, y, dtype))
        b.emit(BinaryInst(s, "add", Local(s), term))
    b.emit(BinaryInst(k, "add", Local(k), Imm(_I64, 1)))
    b.end(Jump(head), then=finish)
    result.store(2, [b.cast(dtype, Local(s), acc) for s in sums], done)
    b.end(Return())
    return b.function(
        f"dot_{ndim_a}d_{ndim_b}d_of_{dtype}{'_c' if contiguous else ''}"
        + (f"_by{lanes}" if lanes > 1 else ""),
        ArrayDecl("a", dtype, ndim_a, "global", contiguous=contiguous),
        ArrayDecl("b", dtype, ndim_b, "global", contiguous=contiguous),
        ArrayDecl("out", dtype, ndim_out, "global", contiguous=True),
    )


def _zeroed(b: FunctionBuilder, dtype: str, rows: int, columns: int) -> list[list[int]]:
    """A `rows` x `columns` tile of accumulators of `dtype` (locals), set to 0."""
    sums = [[b.local(dtype) for _ in range(columns)] for _ in range(rows)]
    for row in sums:
        for s in row:
            b.set(s, _zero(dtype))
    return sums


def _inside(b: FunctionBuilder, r: Operand, rows: Operand, c: Operand, cols: Operand) -> Local:
    """Whether (r, c) lies in a matrix of `rows` x `cols` (r and c non-negative)."""
    return b.binary("bool", "and", b.binary("bool", "lt", r, rows), b.binary("bool", "lt", c, cols))


def _store_inside(
    b: FunctionBuilder,
    array: int,
    r: Operand,
    c: Operand,
    rows: Operand,
    cols: Operand,
    value: Operand,
    lead: tuple[Operand, ...] = (),
) -> None:
    """``array[*lead, r, c] = value`` where (r, c) lies inside its matrices (`rows` x `cols`)."""
    store, after = b.new_block(), b.new_block()
    b.end(Branch(_inside(b, r, rows, c, cols), store, after), then=store)
    b.emit(StoreInst(array, (*lead, r, c), value))
    b.end(Jump(after), then=after)


#: a tile's rows and columns, and the work-items per work-group along the columns (a multiple of
#: every CPU vector width of 32- and 64-bit values). One column of 16 lanes keeps the tile's
#: accumulators in vector registers for float64 too (two columns spilled: 2000x2000 in 430 ms
#: against 340).
TILE_ROWS, TILE_COLUMNS, TILE_GROUP = 8, 1, 16
#: the fewest result columns :func:`tiled_function` takes (its columns past the end read on into the
#: next row of `b`, at most ``TILE_FEWEST_COLUMNS - 1`` elements further)
TILE_FEWEST_COLUMNS = TILE_COLUMNS * TILE_GROUP


@dataclass(frozen=True)
class Extent:
    """A launch's global size along one dimension for a result of ``m`` rows and ``n`` columns:
    ``times * ceil(m / per_row) * ceil(n / per_column)`` (a factor of ``per_*`` 0 left out), so the
    eager library (:meth:`of`) and compiled code (``compiler.products_tiled``) launch alike."""

    times: int
    per_row: int = 0
    per_column: int = 0

    def of(self, m: int, n: int) -> int:
        size = self.times
        for length, per in ((m, self.per_row), (n, self.per_column)):
            if per:
                size *= -(-length // per)
        return size


def tile_launch(groups: bool) -> tuple[tuple[Extent, ...], tuple[int, ...]]:
    """The global extents and the work-group of a tiled product's launch: of
    :func:`group_tiled_function` with `groups`, else of :func:`tiled_function`."""
    if groups:
        return (
            Extent(GROUP_SIDE, per_column=GROUP_BLOCK),
            Extent(GROUP_SIDE, per_row=GROUP_BLOCK),
        ), (GROUP_SIDE, GROUP_SIDE)
    return (
        Extent(TILE_GROUP),
        Extent(1, per_row=TILE_ROWS),
        Extent(1, per_column=TILE_COLUMNS * TILE_GROUP),
    ), (TILE_GROUP, 1, 1)


def tiled_function(dtype: str, stacked: bool = False) -> Function:
    """``a @ b`` of C-contiguous matrices of `dtype` (a real dtype) into a C-contiguous result of ``m``
    rows and ``n >= columns * TILE_GROUP`` columns (``rows, columns = TILE_ROWS, TILE_COLUMNS``), in
    tiles: launched over ``(TILE_GROUP, ceil(m / rows), ceil(n / (columns * TILE_GROUP)))`` work-items in
    work-groups of ``(TILE_GROUP, 1, 1)`` (:func:`tile_launch`). Work-item ``(j, t, s)`` computes rows ``t
    * rows ..`` and columns ``s * columns * TILE_GROUP + j + i * TILE_GROUP`` (``i < columns``),
    accumulating in `dtype` in order of the shared dimension, and stores the elements inside the result.
    The strip of columns is the slowest dimension: the CPU runtime takes work-groups in order, so a strip
    of `b` stays in cache while the rows of `a` pass (2000x2000 float64 in 340 ms against 560 the other
    way round). Nothing is tested in the loop: rows past the end read row ``m - 1``, and columns past the
    end read on into the next row of `b` (at most ``columns * TILE_GROUP - 1 <= n`` elements further),
    except in `b`'s last row, whose step reads column ``c % n``. Parameters: a, b, the result (each: data
    address, shape, byte strides). With `stacked`, the three are C-contiguous stacks of matrices
    (``out[s] = a[s] @ b[s]``), the third launch dimension is the stack (not the strips) and each
    work-item takes the strips in turn: ``(j, t, s)`` computes matrix s's rows ``t * rows ..`` in
    every strip (no division of work-item ids: the CPU runtime's vectorizer then no longer sees the
    stack's index as the same for a whole work-group, and gathers, 6x slower)."""
    i64, rows, columns = _I64, TILE_ROWS, TILE_COLUMNS
    b = FunctionBuilder(1)
    lane, group, strip = b.local(i64), b.local(i64), b.local(i64)
    shared, m, n = b.local(i64), b.local(i64), b.local(i64)
    d = 1 if stacked else 0  # the matrices' first dimension
    b.emit(WorkItem(lane, "get_global_id", 0))
    b.emit(WorkItem(group, "get_global_id", 1))
    lead: tuple[Operand, ...] = ()
    if stacked:
        matrix = b.local(i64)
        b.emit(WorkItem(matrix, "get_global_id", 2))
        b.set(strip, Imm(i64, 0))
        lead = (Local(matrix),)
    else:
        b.emit(WorkItem(strip, "get_global_id", 2))
    b.emit(Dim(shared, 0, d + 1))
    b.emit(Dim(m, 2, d))
    b.emit(Dim(n, 2, d + 1))
    first = b.binary(i64, "mul", Local(group), Imm(i64, rows))
    row_at = [first] + [b.binary(i64, "add", first, Imm(i64, i)) for i in range(1, rows)]
    # rows past the end read the last row: r - (r >= m) * (r - (m - 1)), arithmetic that keeps the
    # row the same for every work-item of a work-group (an integer remainder, minimum or select
    # would not: the CPU runtime then gathers the rows of `a` element by element)
    top = b.binary(i64, "sub", Local(m), Imm(i64, 1))
    row_read = [first]
    for r in row_at[1:]:
        past = b.cast(i64, b.binary("bool", "ge", r, Local(m)), "bool")
        row_read.append(b.binary(i64, "sub", r, b.binary(i64, "mul", past, b.binary(i64, "sub", r, top))))
    if stacked:  # every strip in turn: while strip * columns * TILE_GROUP < n
        strip_head, strip_body, strips_done = b.new_block(), b.new_block(), b.new_block()
        b.end(Jump(strip_head), then=strip_head)
        start = b.binary(i64, "mul", Local(strip), Imm(i64, columns * TILE_GROUP))
        b.end(Branch(b.binary("bool", "lt", start, Local(n)), strip_body, strips_done), then=strip_body)
    start = b.binary(i64, "mul", Local(strip), Imm(i64, columns * TILE_GROUP))
    column = b.binary(i64, "add", start, Local(lane))
    col_at: list[Operand] = [column]
    col_at += [b.binary(i64, "add", column, Imm(i64, j * TILE_GROUP)) for j in range(1, columns)]
    sums = _zeroed(b, dtype, rows, columns)
    k = b.local(i64)
    b.set(k, Imm(i64, 0))
    last = b.binary(i64, "sub", Local(shared), Imm(i64, 1))

    def step(cols: list[Operand]) -> None:
        ys = []
        for c in cols:
            y = b.local(dtype)
            b.emit(LoadInst(y, 1, (*lead, Local(k), c)))
            ys.append(Local(y))
        for r, row in zip(row_read, sums):
            x = b.local(dtype)
            b.emit(LoadInst(x, 0, (*lead, r, Local(k))))
            for y_, s in zip(ys, row):
                b.emit(BinaryInst(s, "add", Local(s), b.binary(dtype, "mul", Local(x), y_)))

    head, body, peel, finish = b.new_block(), b.new_block(), b.new_block(), b.new_block()
    b.end(Jump(head), then=head)
    b.end(Branch(b.binary("bool", "lt", Local(k), last), body, peel), then=body)
    step(col_at)
    b.emit(BinaryInst(k, "add", Local(k), Imm(i64, 1)))
    b.end(Jump(head), then=peel)
    # the last step (where the shared dimension is not empty), columns past the end read inside
    last_step = b.new_block()
    b.end(Branch(b.binary("bool", "lt", Local(k), Local(shared)), last_step, finish), then=last_step)
    step([b.binary(i64, "rem", c, Local(n)) for c in col_at])
    b.end(Jump(finish), then=finish)
    for r, row in zip(row_at, sums):
        for c, s in zip(col_at, row):
            _store_inside(b, 2, r, c, Local(m), Local(n), Local(s), lead)
    if stacked:
        b.emit(BinaryInst(strip, "add", Local(strip), Imm(i64, 1)))
        b.end(Jump(strip_head), then=strips_done)
    b.end(Return())
    ndim = 2 + d
    return b.function(
        f"dot_tiles_{rows}x{columns}_of_{dtype}" + ("_stacked" if stacked else ""),
        ArrayDecl("a", dtype, ndim, "global", contiguous=True),
        ArrayDecl("b", dtype, ndim, "global", contiguous=True),
        ArrayDecl("out", dtype, ndim, "global", contiguous=True),
    )


#: the work-group form for GPUs (:func:`group_tiled_function`): a block of ``GROUP_BLOCK`` x
#: ``GROUP_BLOCK`` result elements per work-group of ``GROUP_SIDE`` x ``GROUP_SIDE`` work-items, the
#: shared dimension in steps of ``GROUP_STEP`` through local memory
GROUP_SIDE, GROUP_BLOCK, GROUP_STEP = 16, 64, 16


def group_tiled_function(dtype: str) -> Function:
    """``a @ b`` of C-contiguous matrices of `dtype` (a real dtype) into a C-contiguous result of
    any shape, by work-groups (GPUs): launched over ``(ceil(n / GROUP_BLOCK) * GROUP_SIDE, ceil(m /
    GROUP_BLOCK) * GROUP_SIDE)`` work-items in work-groups of ``(GROUP_SIDE, GROUP_SIDE)``. Each
    work-group computes a ``GROUP_BLOCK`` square block of the result: per step of ``GROUP_STEP``
    along the shared dimension its work-items copy the block's rows of `a` and columns of `b` into
    local memory (zeros outside the operands), then each accumulates its ``R x R`` elements (``R =
    GROUP_BLOCK / GROUP_SIDE``; rows ``ty + GROUP_SIDE * i``, columns ``tx + GROUP_SIDE * j``) in
    `dtype`, in order of the shared dimension. Parameters: a, b, the result (each: data address,
    shape, byte strides)."""
    i64, side, block, step = _I64, GROUP_SIDE, GROUP_BLOCK, GROUP_STEP
    per = block // side  # result rows (and columns) per work-item
    loads = block * step // (side * side)  # elements of each operand's tile per work-item
    pitch = block + 1  # the rows of a's tile in local memory (padded: no bank conflicts)
    b = FunctionBuilder(1)
    tx, ty, gx, gy = (b.local(i64) for _ in range(4))
    b.emit(WorkItem(tx, "get_local_id", 0))
    b.emit(WorkItem(ty, "get_local_id", 1))
    b.emit(WorkItem(gx, "get_group_id", 0))
    b.emit(WorkItem(gy, "get_group_id", 1))
    m, shared, n = b.local(i64), b.local(i64), b.local(i64)
    b.emit(Dim(m, 0, 0))
    b.emit(Dim(shared, 0, 1))
    b.emit(Dim(n, 1, 1))
    row0 = b.binary(i64, "mul", Local(gy), Imm(i64, block))
    col0 = b.binary(i64, "mul", Local(gx), Imm(i64, block))
    lid = b.binary(i64, "add", b.binary(i64, "mul", Local(ty), Imm(i64, side)), Local(tx))
    a_row, a_k = b.binary(i64, "floordiv", lid, Imm(i64, step)), b.binary(i64, "rem", lid, Imm(i64, step))
    b_k, b_col = b.binary(i64, "floordiv", lid, Imm(i64, block)), b.binary(i64, "rem", lid, Imm(i64, block))
    sums = _zeroed(b, dtype, per, per)
    k0 = b.local(i64)
    b.set(k0, Imm(i64, 0))
    A, B, OUT, TA, TB = 0, 1, 2, 3, 4

    def copy(src: int, dst: int, r: Operand, c: Operand, at: Operand, rows: Operand, cols: Operand) -> None:
        """tile[at] = src[r, c] where inside `src` (rows x cols), else 0."""
        load, zero, after = b.new_block(), b.new_block(), b.new_block()
        b.end(Branch(_inside(b, r, rows, c, cols), load, zero), then=load)
        v = b.local(dtype)
        b.emit(LoadInst(v, src, (r, c)))
        b.emit(StoreInst(dst, (at,), Local(v)))
        b.end(Jump(after), then=zero)
        b.emit(StoreInst(dst, (at,), _zero(dtype)))
        b.end(Jump(after), then=after)

    head, body, finish = b.new_block(), b.new_block(), b.new_block()
    b.end(Jump(head), then=head)
    b.end(Branch(b.binary("bool", "lt", Local(k0), Local(shared)), body, finish), then=body)
    for q in range(loads):
        r = b.binary(i64, "add", a_row, Imm(i64, q * (side * side // step)))
        kk = b.binary(i64, "add", Local(k0), a_k)
        at = b.binary(i64, "add", b.binary(i64, "mul", a_k, Imm(i64, pitch)), r)
        copy(A, TA, b.binary(i64, "add", row0, r), kk, at, Local(m), Local(shared))
        kb = b.binary(i64, "add", b_k, Imm(i64, q * (side * side // block)))
        at = b.binary(i64, "add", b.binary(i64, "mul", kb, Imm(i64, block)), b_col)
        copy(
            B,
            TB,
            b.binary(i64, "add", Local(k0), kb),
            b.binary(i64, "add", col0, b_col),
            at,
            Local(shared),
            Local(n),
        )
    b.emit(Barrier(1))
    for t in range(step):
        xs, ys = [], []
        for i in range(per):
            x = b.local(dtype)
            b.emit(LoadInst(x, TA, (b.binary(i64, "add", Local(ty), Imm(i64, t * pitch + side * i)),)))
            xs.append(Local(x))
        for j in range(per):
            y = b.local(dtype)
            b.emit(LoadInst(y, TB, (b.binary(i64, "add", Local(tx), Imm(i64, t * block + side * j)),)))
            ys.append(Local(y))
        for x_, row in zip(xs, sums):
            for y_, s in zip(ys, row):
                b.emit(BinaryInst(s, "add", Local(s), b.binary(dtype, "mul", x_, y_)))
    b.emit(Barrier(1))
    b.emit(BinaryInst(k0, "add", Local(k0), Imm(i64, step)))
    b.end(Jump(head), then=finish)
    for i, row in enumerate(sums):
        r = b.binary(i64, "add", row0, b.binary(i64, "add", Local(ty), Imm(i64, side * i)))
        for j, s in enumerate(row):
            c = b.binary(i64, "add", col0, b.binary(i64, "add", Local(tx), Imm(i64, side * j)))
            _store_inside(b, OUT, r, c, Local(m), Local(n), Local(s))
    b.end(Return())
    return b.function(
        f"dot_groups_{block}_of_{dtype}",
        ArrayDecl("a", dtype, 2, "global", contiguous=True),
        ArrayDecl("b", dtype, 2, "global", contiguous=True),
        ArrayDecl("out", dtype, 2, "global", contiguous=True),
        ArrayDecl("a_tile", dtype, 1, "local", shape=(step * pitch,)),
        ArrayDecl("b_tile", dtype, 1, "local", shape=(step * block,)),
    )


def vector_function(dtype: str, unroll: int = 1) -> Function:
    """``np.dot`` of two vectors of `dtype` (of one length) into a one-element accumulator of
    ``accumulator_dtype(accumulation_dtype(dtype))`` that holds 0 before the launch. Parameters: a,
    b, the accumulator (each: data address, shape, byte strides); `unroll` and the launch as
    ``reductions.whole_function``'s (strided for GPUs, blocked for CPUs)."""
    part = accumulation_dtype(dtype)
    acc = accumulator_dtype(part)
    b = FunctionBuilder(1)
    n = b.local(_I64)
    b.emit(Dim(n, 0, 0))
    partials = [b.local(part) for _ in range(unroll)]
    for p in partials:
        b.set(p, _zero(part))

    def step(lane: int, at: Operand) -> None:
        x, y = b.local(dtype), b.local(dtype)
        b.emit(LoadInst(x, 0, (at,)))
        b.emit(LoadInst(y, 1, (at,)))
        term = b.binary(part, "mul", b.cast(part, Local(x), dtype), b.cast(part, Local(y), dtype))
        b.emit(BinaryInst(partials[lane], "add", Local(partials[lane]), term))

    b.flat_loop(Local(n), unroll, step)
    b.combine_lanes("add", partials)
    b.emit(Atomic(None, "add", 2, (Imm(_I64, 0),), b.cast(acc, Local(partials[0]), part)))
    b.end(Return())
    return b.function(
        f"dot_vectors_of_{dtype}" + (f"_by{unroll}" if unroll > 1 else ""),
        ArrayDecl("a", dtype, 1, "global"),
        ArrayDecl("b", dtype, 1, "global"),
        ArrayDecl("acc", acc, 1, "global", contiguous=True),
    )


def correlate_function(dtype: str) -> Function:
    """The full cross-correlation ``out[k] = sum_n a[n + k - (m - 1)] * w[n]`` of the 1-d arrays `a`
    (length ``N``) and `w` (length ``m``) of `dtype` (any strides), for ``k`` in ``[0, N + m - 1)``,
    the terms whose position lies outside `a` left out (``np.correlate`` of ``w = conj(v)``,
    ``np.convolve`` of ``w = v[::-1]``): one work-item per result element, a sequential loop over
    the overlapping positions, accumulating as the products do (booleans count in int64).
    Parameters: a, w, the C-contiguous result; launched over at least its size."""
    acc = accumulation_dtype(dtype)
    b = FunctionBuilder(1)
    gid, n_a, m, total = b.local(_I64), b.local(_I64), b.local(_I64), b.local(_I64)
    b.emit(WorkItem(gid, "get_global_id", 0))
    b.emit(Dim(n_a, 0, 0))
    b.emit(Dim(m, 1, 0))
    b.emit(Dim(total, 2, 0))
    setup, done = b.new_block(), b.new_block()
    b.end(Branch(b.binary("bool", "lt", Local(gid), Local(total)), setup, done), then=setup)
    # the overlap: n from max(0, m - 1 - k) to min(m, N + m - 1 - k), branches rather than selects
    shift = b.binary(_I64, "sub", Local(gid), b.binary(_I64, "sub", Local(m), Imm(_I64, 1)))  # k - (m - 1)
    lo, hi = b.local(_I64), b.local(_I64)
    b.set(lo, b.binary(_I64, "sub", Imm(_I64, 0), shift))
    b.set(hi, b.binary(_I64, "sub", Local(n_a), shift))
    for bound, op, limit in ((lo, "lt", Imm(_I64, 0)), (hi, "gt", Local(m))):
        clamp, after = b.new_block(), b.new_block()
        b.end(Branch(b.binary("bool", op, Local(bound), limit), clamp, after), then=clamp)
        b.set(bound, limit)
        b.end(Jump(after), then=after)
    s, n = b.local(acc), b.local(_I64)
    b.set(s, constant(acc, 0))
    b.set(n, Local(lo))
    head, body, finish = b.new_block(), b.new_block(), b.new_block()
    b.end(Jump(head), then=head)
    b.end(Branch(b.binary("bool", "lt", Local(n), Local(hi)), body, finish), then=body)
    x, y = b.local(dtype), b.local(dtype)
    b.emit(LoadInst(x, 0, (b.binary(_I64, "add", Local(n), shift),)))
    b.emit(LoadInst(y, 1, (Local(n),)))
    term = b.binary(acc, "mul", b.cast(acc, Local(x), dtype), b.cast(acc, Local(y), dtype))
    b.emit(BinaryInst(s, "add", Local(s), term))
    b.emit(BinaryInst(n, "add", Local(n), Imm(_I64, 1)))
    b.end(Jump(head), then=finish)
    b.emit(StoreInst(2, (Local(gid),), b.cast(dtype, Local(s), acc)))
    b.end(Jump(done), then=done)
    b.end(Return())
    return b.function(
        f"correlate_of_{dtype}",
        ArrayDecl("a", dtype, 1, "global"),
        ArrayDecl("w", dtype, 1, "global"),
        ArrayDecl("out", dtype, 1, "global", contiguous=True),
    )
