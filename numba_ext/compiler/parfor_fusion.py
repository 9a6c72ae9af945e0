"""Fusion of offloaded array-expression regions with the ``prange`` loops next to them.

Array expressions become region kernels in an after-inference rewrite (``offload.py``), before
Numba's parfor pass exists; ``prange`` loops become parfors later, and Numba's own parfor fusion
joins adjacent parfors. This pass, run on parfors just before they are lowered, joins the two
kinds where they are connected only through elementwise dataflow:

* **prologue**: a region whose one output ``t`` is read only inside the following parfor, and only
  as ``t[index]`` at the parfor's own index. The kernel computes the region's expression at that
  index instead of loading ``t``, so ``t`` is never allocated. The region's inputs are read through
  their broadcast strides (computed on the host at launch, with NumPy's broadcasting error), so any
  shapes the region accepted are still right.
* **epilogue**: a region after the parfor whose array inputs are each either written by the parfor
  only at its own index, or not written by it at all, and whose iteration space is provably the
  parfor's (loops from 0 to the inputs' shape: every input's dimensions are the loop bounds by
  construction, e.g. ``n = a.shape[0]``, ``out = numba_ext.empty(n)``, ``prange(n)``). Each
  iteration then also computes the region's element from the values just stored; the region's
  result is allocated before the launch.

Neither moves a computation past a statement that could change its inputs: only statements
without side effects (constants, shape arithmetic, allocations, other regions) may sit between the
two. The fused region's kernel is dropped from ``inspect_kernels``.
"""

from __future__ import annotations

from numba.core import ir, types
from numba.parfors.parfor import Parfor

from .alloc import usm_alloc
from .types import USMArrayType


def region_of(func_ir, inst):
    """(intrinsic, args) when `inst` assigns the result of an offloaded region's launch."""
    if not (isinstance(inst, ir.Assign) and isinstance(inst.value, ir.Expr) and inst.value.op == "call"):
        return None
    try:
        d = func_ir.get_definition(inst.value.func)
    except Exception:
        return None
    fn = getattr(d, "value", None)
    if isinstance(d, ir.Global) and getattr(fn, "_nx_spec", None) is not None and len(fn._nx_out_types) == 1:
        return fn, list(inst.value.args)
    return None


def _is_allocation(func_ir, inst) -> bool:
    try:
        d = func_ir.get_definition(inst.value.func)
    except Exception:
        return False
    return getattr(d, "value", None) is usm_alloc


def _harmless(func_ir, typemap, inst) -> bool:
    """Statements that change no array: constants, scalar and shape arithmetic, tuples, allocations
    and other offloaded regions (which only create new arrays)."""
    if isinstance(inst, ir.Del):
        return True
    if not isinstance(inst, ir.Assign):
        return False
    v = inst.value
    if isinstance(v, (ir.Const, ir.Global, ir.FreeVar, ir.Var)):
        return True
    if not isinstance(v, ir.Expr):
        return False
    if v.op in ("getattr", "static_getitem", "build_tuple", "cast"):
        return True
    if v.op in ("binop", "unary", "inplace_binop"):
        return all(isinstance(typemap.get(x.name), (types.Number, types.Boolean)) for x in v.list_vars())
    if v.op == "call":
        return _is_allocation(func_ir, inst) or region_of(func_ir, inst) is not None
    return False


# -- symbolic shapes ----------------------------------------------------------------------------------
def _scalar_symbol(func_ir, var, depth=0):
    """A symbol for an integer value: ('shape', array, dim) when it is an array's dimension, a
    constant, or the variable's own name."""
    if isinstance(var, int):
        return ("const", var)
    if depth > 8:
        return ("var", var.name)
    try:
        d = func_ir.get_definition(var)
    except Exception:
        return ("var", var.name)
    if isinstance(d, ir.Const) and isinstance(d.value, int):
        return ("const", d.value)
    if isinstance(d, ir.Var):
        return _scalar_symbol(func_ir, d, depth + 1)
    if isinstance(d, ir.Expr) and d.op == "static_getitem" and isinstance(d.index, int):
        try:
            base = func_ir.get_definition(d.value)
        except Exception:
            base = None
        if isinstance(base, ir.Expr) and base.op == "getattr" and base.attr == "shape":
            dims = _array_dims(func_ir, base.value, None, depth + 1)
            return dims[d.index] if dims and d.index < len(dims) else ("shape", base.value.name, d.index)
    return ("var", var.name)


def _array_dims(func_ir, var, ndim, depth=0):
    """Symbols of an array's dimensions: the shape it was allocated with (numba_ext.empty & co.), else
    its own shape."""
    if depth > 8:
        return None
    try:
        d = func_ir.get_definition(var)
    except Exception:
        d = None
    if isinstance(d, ir.Var):
        return _array_dims(func_ir, d, ndim, depth + 1)
    if isinstance(d, ir.Expr) and d.op == "call":
        try:
            fd = func_ir.get_definition(d.func)
        except Exception:
            fd = None
        if getattr(fd, "value", None) is usm_alloc and d.args:
            shape = d.args[0]
            try:
                sd = func_ir.get_definition(shape)
            except Exception:
                sd = None
            if isinstance(sd, ir.Expr) and sd.op == "build_tuple":
                return tuple(_scalar_symbol(func_ir, x, depth + 1) for x in sd.items)
            return (_scalar_symbol(func_ir, shape, depth + 1),)
    if ndim is None:
        return None
    return tuple(("shape", var.name, k) for k in range(ndim))


# -- the pass -------------------------------------------------------------------------------------------
def _uses(func_ir, name):
    """Every statement (in any block, inside parfors too) that mentions `name`, with its parfor."""
    out = []

    def walk(blocks, owner):
        for blk in blocks:
            for st in blk.body:
                if isinstance(st, Parfor):
                    walk([st.init_block], None)
                    walk(st.loop_body.values(), st)
                    nest_vars = {
                        x.name
                        for n in st.loop_nests
                        for x in (n.start, n.stop, n.step)
                        if isinstance(x, ir.Var)
                    }
                    if name in nest_vars:
                        out.append((st, None))
                elif name in {v.name for v in st.list_vars()}:
                    out.append((st, owner))

    walk(func_ir.blocks.values(), None)
    return out


def _index_names(parfor) -> set[str]:
    names = {parfor.index_var.name}
    if len(parfor.loop_nests) == 1:
        names.add(parfor.loop_nests[0].index_variable.name)
    return names


def _written(parfor) -> dict[str, bool]:
    """Arrays the parfor's body writes (or hands to calls): name -> written only at the index."""
    idx = _index_names(parfor)
    out: dict[str, bool] = {}

    def walk(blocks):
        for blk in blocks:
            for st in blk.body:
                if isinstance(st, Parfor):
                    walk(st.loop_body.values())
                    for n in {v.name for b in st.loop_body.values() for s in b.body for v in s.list_vars()}:
                        out[n] = False  # anything a nested loop touches: no claims
                elif isinstance(st, ir.SetItem):
                    at_index = st.index.name in idx
                    out[st.target.name] = out.get(st.target.name, True) and at_index
                elif isinstance(st, ir.StaticSetItem):
                    out[st.target.name] = False
                elif isinstance(st, ir.Assign) and isinstance(st.value, ir.Expr) and st.value.op == "call":
                    for a in st.value.args:
                        out[a.name] = False

    walk(parfor.loop_body.values())
    return out


def _reads_only_at_index(parfor, name) -> bool:
    """`name` appears in the parfor's body only as ``name[index]`` (a load at the parfor's index)."""
    idx = _index_names(parfor)
    for blk in parfor.loop_body.values():
        for st in blk.body:
            if isinstance(st, Parfor):
                if name in {v.name for b in st.loop_body.values() for s in b.body for v in s.list_vars()}:
                    return False
                continue
            if name not in {v.name for v in st.list_vars()}:
                continue
            if not (
                isinstance(st, ir.Assign)
                and isinstance(st.value, ir.Expr)
                and st.value.op == "getitem"
                and st.value.value.name == name
                and st.value.index.name in idx
                and st.target.name != name
            ):
                return False
    return True


def _attach(parfor, name, value) -> None:
    # a Parfor is an ir.Expr, whose __setattr__ files attributes under its keywords (where
    # attribute lookup of names starting with "_" does not look): set it on the instance itself
    object.__setattr__(parfor, name, value)


def _keep_alive(func_ir, typemap, parfor, names) -> None:
    """Make the parfor use `names` (a fused region's arguments, which the kernel reads) in the IR,
    so that Numba's variable lifetimes (the `del`s it places after the last use) cover its launch: a
    tuple of them built in the parfor's host set-up block."""
    loc = parfor.loc
    scope = parfor.init_block.scope
    items = [ir.Var(scope, n, loc) for n in names]
    v = ir.Var(scope, scope.redefine("$nx_fused_args", loc).name, loc)
    typemap[v.name] = types.BaseTuple.from_types([typemap[n] for n in names])
    e = ir.Expr.build_tuple(items, loc)
    parfor.init_block.body.append(ir.Assign(e, v, loc))
    func_ir._definitions[v.name] = [e]


def _assigned_between(block, lo, hi, names) -> bool:
    return any(isinstance(st, ir.Assign) and st.target.name in names for st in block.body[lo:hi])


def fuse_regions_into_parfors(func_ir, typemap, offloaded, metadata=None) -> int:
    """Attach prologue and epilogue regions to the parfors `offloaded` selects (see the module
    documentation); returns how many regions were fused."""
    fused = 0
    for block in func_ir.blocks.values():
        k = 0
        while k < len(block.body):
            p = block.body[k]
            if isinstance(p, Parfor) and offloaded(p) and all(n.step == 1 for n in p.loop_nests):
                n_pro = _fuse_prologues(func_ir, typemap, block, k, p)
                k -= n_pro
                fused += n_pro
                fused += _fuse_epilogues(func_ir, typemap, block, k, p)
                for fn in getattr(p, "_nx_fused_fns", ()):
                    kernels = [] if metadata is None else metadata.get("numba_ext_kernels", [])
                    kref = fn._numba_ext_kernel()
                    if kref is not None and kref._kernel in kernels:
                        kernels.remove(kref._kernel)
            k += 1
    return fused


def _fuse_prologues(func_ir, typemap, block, k, p) -> int:
    ndim = len(p.loop_nests)
    written = _written(p)
    removed = 0
    j = k - 1
    while j >= 0:
        st = block.body[j]
        reg = region_of(func_ir, st)
        if reg is not None:
            fn, args = reg
            t = st.target.name
            arrays = [a for a in args if isinstance(typemap[a.name], types.Array)]
            uses = [(s, owner) for s, owner in _uses(func_ir, t) if s is not st]
            ok = (
                bool(arrays)
                and isinstance(typemap[t], USMArrayType)
                and typemap[t].ndim == ndim
                and all(owner is p or isinstance(s, ir.Del) for s, owner in uses)
                and any(owner is p for _, owner in uses)
                and _reads_only_at_index(p, t)
                and not any(a.name in written for a in arrays)
                and not _assigned_between(block, j + 1, k - removed, {a.name for a in args})
                and all(
                    isinstance(typemap[a.name], USMArrayType) and typemap[a.name].ndim <= ndim for a in arrays
                )
            )
            if ok:
                _attach(
                    p,
                    "_nx_prologue",
                    [(t, fn, [a.name for a in args])] + list(getattr(p, "_nx_prologue", [])),
                )
                _keep_alive(func_ir, typemap, p, [a.name for a in args])
                _attach(p, "_nx_fused_fns", list(getattr(p, "_nx_fused_fns", [])) + [fn])
                del block.body[j]
                for blk in func_ir.blocks.values():
                    blk.body = [s for s in blk.body if not (isinstance(s, ir.Del) and s.value == t)]
                removed += 1
                j -= 1
                continue
        if not _harmless(func_ir, typemap, st):
            break
        j -= 1
    return removed


def _fuse_epilogues(func_ir, typemap, block, k, p) -> int:
    ndim = len(p.loop_nests)
    if not all(
        isinstance(n.start, int) and n.start == 0 or _scalar_symbol(func_ir, n.start) == ("const", 0)
        for n in p.loop_nests
    ):
        return 0
    loop_dims = tuple(_scalar_symbol(func_ir, n.stop) for n in p.loop_nests)
    written = _written(p)
    at_index = {n for n, only in written.items() if only}
    fused = 0
    j = k + 1
    while j < len(block.body):
        st = block.body[j]
        reg = region_of(func_ir, st)
        if reg is not None:
            fn, args = reg
            arrays = [a for a in args if isinstance(typemap[a.name], types.Array)]
            out_t = typemap[st.target.name]
            ok = (
                bool(arrays)
                and isinstance(out_t, USMArrayType)
                and out_t.ndim == ndim
                and any(a.name in at_index for a in arrays)
                and all(a.name in at_index or a.name not in written for a in arrays)
                and all(
                    isinstance(typemap[a.name], USMArrayType)
                    and typemap[a.name].ndim == ndim
                    and _array_dims(func_ir, a, ndim) == loop_dims
                    for a in arrays
                )
                and not _assigned_between(block, k + 1, j, {a.name for a in args})
            )
            if ok:
                _attach(
                    p,
                    "_nx_epilogue",
                    list(getattr(p, "_nx_epilogue", [])) + [(st.target.name, fn, [a.name for a in args])],
                )
                _keep_alive(func_ir, typemap, p, [a.name for a in args])
                _attach(p, "_nx_fused_fns", list(getattr(p, "_nx_fused_fns", [])) + [fn])
                at_index.add(st.target.name)
                del block.body[j]
                fused += 1
                continue
        if not _harmless(func_ir, typemap, st):
            break
        j += 1
    return fused
