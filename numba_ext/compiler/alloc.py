"""The allocation of ``numba_ext.empty/zeros/ones/full`` (``usm_alloc``) and the ``*_like`` forms
(``numba_ext``'s and NumPy's) inside jitted code.

Without ``device=`` / ``sycl_queue=``, the queue is the one of the function's USM array arguments
(the first of them; compute-follows-data checks cover the rest), else the default queue
(``alloc_target``). The before-inference rewrite (``alloc_calls``) passes the function's arguments to
the allocation, so typing can find that queue's device and the lowering can read it from the array
struct."""

from __future__ import annotations

import numpy as np
from numba.core import cgutils, ir, types
from numba.core.rewrites import Rewrite
from numba.core.typing import signature
from numba.extending import intrinsic, overload
from numba.np import numpy_support

from .. import arrays
from ..errors import UnsupportedError
from .alloc_target import default_float, given, resolve_target, target_queue
from .elementwise import dtype_arg
from .host_abi import I8P, I32, I64, allocate_result, declare
from .redirects import emit_call, resolve_global
from .types import USMArrayType


def _dtype(t, target=None):
    if t is None or isinstance(t, (types.NoneType, types.Omitted)):
        return types.float64 if target is None else default_float(target)
    dt = dtype_arg(t)
    if dt is None:
        raise UnsupportedError(f"dtype {t} is not supported by numba_ext allocation in jitted code")
    return dt


def _literal_str(t, what):
    if isinstance(t, (types.NoneType, types.Omitted)):
        return None
    if isinstance(t, types.StringLiteral):
        return t.literal_value
    raise UnsupportedError(f"{what}= must be a constant string in jitted code, got {t}")


def _ndim(shape) -> int | None:
    if isinstance(shape, types.Integer):
        return 1
    if isinstance(shape, types.BaseTuple) and all(isinstance(t, types.Integer) for t in shape.types):
        return len(shape.types)
    return None


def _layout(order, ndim: int) -> str:
    o = _literal_str(order, "order") or "C"
    if o not in ("C", "F"):
        raise UnsupportedError(f"order={o!r}: numba_ext allocations in jitted code take order='C' or 'F'")
    return "F" if o == "F" and ndim > 1 else "C"


def _result_dtype(dtype, fill, target):
    """dtype=, else NumPy's full(): the fill value's type (floats: the device's default float)."""
    if given(dtype) or not isinstance(fill, (types.Number, types.Boolean)):
        return _dtype(dtype, target)
    dt = fill.literal_type if isinstance(fill, types.Literal) else fill
    return default_float(target) if dt == types.float64 else dt


def _dims(context, builder, shape_t, shape_v, ndim):
    """The intp dimensions of a shape argument (an integer or a tuple of integers)."""
    if isinstance(shape_t, types.Integer):
        return [context.cast(builder, shape_v, shape_t, types.intp)]
    items = cgutils.unpack_tuple(builder, shape_v, ndim)
    return [context.cast(builder, d, t, types.intp) for d, t in zip(items, shape_t.types)]


def _fill(context, builder, queue, out, ret, dt, fill_t, fill_v, nitems):
    """Fill the new array `out` with the scalar `fill_v` on `queue` (propagates a failure)."""
    value = context.cast(builder, fill_v, fill_t, dt)
    slot = cgutils.alloca_once_value(builder, value)
    size = context.get_abi_sizeof(context.get_data_type(dt))
    fill_fn = declare(builder, "nx_usm_fill", I32, [I8P, I8P, I8P, I64, I64])
    nbytes = builder.mul(nitems, cgutils.intp_t(size))
    st = builder.call(
        fill_fn, [queue, builder.bitcast(out.data, I8P), builder.bitcast(slot, I8P), I64(size), nbytes]
    )
    with cgutils.if_unlikely(builder, builder.icmp_signed("!=", st, I32(0))):
        context.nrt.decref(builder, ret, out._getvalue())
        context.call_conv.return_exc(builder)


@intrinsic(prefer_literal=True)
def usm_alloc(typingctx, shape, dtype, usm_type, device, sycl_queue, order, fill, sources):
    """The allocation of numba_ext.empty & co. in jitted code: a new array of `shape` on the queue
    ``alloc_target`` resolves from device=, sycl_queue= and the `sources` arrays, filled with `fill`
    unless it is None."""
    ndim = _ndim(shape)
    if ndim is None:
        return None
    target = resolve_target(device, sycl_queue, sources)
    dt = _result_dtype(dtype, fill, target)
    usm = _literal_str(usm_type, "usm_type") or "device"
    if usm not in ("device", "shared", "host"):
        raise UnsupportedError(f"unknown usm_type {usm!r}: expected 'device', 'shared' or 'host'")
    layout = _layout(order, ndim)
    ret = USMArrayType(dt, ndim, layout, usm_type=usm, device=target.device)

    def codegen(context, builder, sig, args):
        shape_v, _, _, device_v, queue_v, _, fill_v, srcs = args
        dims = _dims(context, builder, sig.args[0], shape_v, ndim)
        queue = target_queue(context, builder, target, device_v, queue_v, sig.args[7], srcs)
        nitems = cgutils.intp_t(1)
        for d in dims:
            nitems = builder.mul(nitems, d)
        out = allocate_result(context, builder, ret, queue, dims, nitems, layout)
        if given(sig.args[6]):
            _fill(context, builder, queue, out, ret, dt, sig.args[6], fill_v, nitems)
        return out._getvalue()

    return signature(ret, shape, dtype, usm_type, device, sycl_queue, order, fill, sources), codegen


def allocation_has_no_side_effect(rhs, lives, call_list) -> bool:
    """Numba's hook for calls without side effects (``ir_utils.remove_call_handlers``): an
    allocation may move and, unused, go away. Numba's parfor fusion moves statements between two
    parallel loops out of the way only when they have no side effects, so this is what lets
    ``t = numba_ext.empty(n)`` between two prange loops leave them fusable (one kernel)."""
    return call_list == [usm_alloc] or (len(call_list) == 1 and call_list[0] in _SIDE_EFFECT_FREE)


# -- *_like ------------------------------------------------------------------------------------------
#
# np.empty_like/zeros_like/ones_like/full_like(a) of a numba_ext array is a numba_ext array on a's
# queue with a's USM type (as dpnp's functions do: compute follows data), of a NumPy array NumPy's.
# numba_ext.*_like in jitted code takes dtype=, order=, shape=, usm_type=, device= and sycl_queue= as
# dpnp's do (order "K", the default, keeps a Fortran-contiguous layout). A before-inference rewrite
# turns each call into nx_like_<kind>(a, fill, dtype, order, shape, usm_type, device, sycl_queue),
# whose overload picks the implementation from a's type.

_LIKE_KINDS = {"empty": None, "zeros": 0, "ones": 1, "full": "arg"}


def _np_empty_like(a, fill, dtype, order=None, shape=None, usm_type=None, device=None, sycl_queue=None):
    return np.empty_like(a, dtype)


def _np_zeros_like(a, fill, dtype, order=None, shape=None, usm_type=None, device=None, sycl_queue=None):
    return np.zeros_like(a, dtype)


def _np_ones_like(a, fill, dtype, order=None, shape=None, usm_type=None, device=None, sycl_queue=None):
    return np.ones_like(a, dtype)


def _np_full_like(a, fill, dtype, order=None, shape=None, usm_type=None, device=None, sycl_queue=None):
    return np.full_like(a, fill, dtype)


_NP_LIKE = {"empty": _np_empty_like, "zeros": _np_zeros_like, "ones": _np_ones_like, "full": _np_full_like}


def _like_order(a, order, shape) -> str:
    """The layout of an array like `a`: order= "C" or "F", or "K"/"A" (the default): `a`'s when it
    is Fortran-contiguous and keeps its rank."""
    o = _literal_str(order, "order") or "K"
    if o not in ("C", "F", "K", "A"):
        raise UnsupportedError(f"order={o!r}: the *_like functions take 'C', 'F', 'A' or 'K'")
    if o in ("C", "F"):
        return o
    same_rank = not given(shape) or _ndim(shape) == a.ndim
    return "F" if a.layout == "F" and a.ndim > 1 and same_rank else "C"


def _make_like(kind: str):
    def stub(a, fill, dtype, order=None, shape=None, usm_type=None, device=None, sycl_queue=None):
        raise NotImplementedError  # replaced by the overload below in jitted code

    stub.__name__ = stub.__qualname__ = f"nx_like_{kind}"

    @overload(stub, prefer_literal=True)
    def _ov(a, fill, dtype, order=None, shape=None, usm_type=None, device=None, sycl_queue=None):
        ours = isinstance(a, USMArrayType)
        from_numpy = usm_type is None  # np.*_like: usm_type and device omitted (Numba passes the default)
        if not ours and from_numpy:  # np.*_like of anything else: NumPy's (Numba's) behaviour
            if given(order) or given(shape):
                raise UnsupportedError(
                    f"np.{kind}_like() of a NumPy array in jitted code takes no order= or shape="
                )
            return _NP_LIKE[kind]
        if not isinstance(a, types.Array):
            raise UnsupportedError(f"numba_ext.{kind}_like() in jitted code takes an array, got {a}")
        dt = numpy_support.as_dtype(a.dtype if not given(dtype) else _dtype(dtype))
        o = _like_order(a, order, shape)
        # `a` is passed as the allocation's source: its queue when it is ours, else the default queue
        usm = usm_type if not from_numpy and given(usm_type) else (a.usm_type if ours else None)
        if isinstance(usm, types.StringLiteral):
            usm = usm.literal_value
        elif usm is not None and not isinstance(usm, str):
            raise UnsupportedError(f"usm_type= must be a constant string in jitted code, got {usm}")
        if given(shape):
            return (
                lambda a, fill, dtype, order=None, shape=None, usm_type=None, device=None, sycl_queue=None: (
                    usm_alloc(shape, dt, usm, device, sycl_queue, o, fill, (a,))
                )
            )
        return lambda a, fill, dtype, order=None, shape=None, usm_type=None, device=None, sycl_queue=None: (
            usm_alloc(a.shape, dt, usm, device, sycl_queue, o, fill, (a,))
        )

    return stub


NX_LIKE = {kind: _make_like(kind) for kind in _LIKE_KINDS}
_SIDE_EFFECT_FREE = frozenset(NX_LIKE.values())
# the functions the rewrite redirects: (kind, whether it is numba_ext's)
_LIKE_FUNCS = {getattr(np, f"{k}_like"): (k, False) for k in _LIKE_KINDS}
_LIKE_FUNCS.update({getattr(arrays, f"{k}_like"): (k, True) for k in _LIKE_KINDS})
_PARAMS = ("a", "fill_value", "dtype", "order", "shape", "usm_type", "device", "sycl_queue")


def _like_arguments(call, kind: str, ours: bool, line: int) -> dict:
    """The call's arguments by name (dpnp's signature; NumPy's for np.*_like)."""
    names = ["a", "fill_value", "dtype", "order"] if kind == "full" else ["a", "dtype", "order"]
    where = f"{'numba_ext' if ours else 'np'}.{kind}_like() at line {line}"
    if len(call.args) > len(names):
        raise UnsupportedError(f"{where} takes {', '.join(names)} positionally")
    found = dict(zip(names, call.args))
    for k, v in call.kws:
        if k in found:
            raise UnsupportedError(f"{where}: {k} given twice")
        found[k] = v
    allowed = set(names) | {"shape"} | ({"usm_type", "device", "sycl_queue"} if ours else set())
    if "a" not in found or set(found) - allowed:
        extra = sorted(set(found) - allowed)
        raise UnsupportedError(
            f"{where} in jitted code takes {', '.join(sorted(allowed))}"
            + (f", not {', '.join(extra)}" if extra else "")
        )
    return found


class RewriteAllocationsLike(Rewrite):
    """np.empty_like(a, dtype) / numba_ext.full_like(a, v, dtype=, usm_type=, device=, ...) ->
    nx_like_<kind>(a, fill, dtype, order, shape, usm_type, device, sycl_queue); NumPy's forms leave
    the last three out (numba_ext's pass None), so the overload knows which one it serves."""

    def match(self, func_ir, block, typemap, calltypes):
        self.func_ir, self.block = func_ir, block
        self.calls = []
        if func_ir.func_id.func in _NP_LIKE.values():
            return False
        for inst in block.body:
            if isinstance(inst, ir.Assign) and isinstance(inst.value, ir.Expr) and inst.value.op == "call":
                fn = resolve_global(func_ir, inst.value.func)
                if fn in _LIKE_FUNCS and not inst.value.vararg:
                    self.calls.append((inst, _LIKE_FUNCS[fn]))
        return bool(self.calls)

    def apply(self):
        new = self.block.copy()
        new.clear()
        todo = {id(i): kn for i, kn in self.calls}
        func_vars = {i.value.func.name for i, _ in self.calls}
        for inst in self.block.body:
            if id(inst) not in todo:
                if isinstance(inst, ir.Assign) and inst.target.name in func_vars:
                    # the getattr(numba_ext, "empty_like") the call used is no longer called
                    c = ir.Const(None, inst.loc)
                    inst = ir.Assign(c, inst.target, inst.loc)
                    self.func_ir._definitions[inst.target.name] = [c]
                new.append(inst)
                continue
            (kind, ours), loc, scope = todo[id(inst)], inst.loc, inst.target.scope
            found = _like_arguments(inst.value, kind, ours, loc.line)
            if kind != "full":
                found["fill_value"] = _const(new, scope, _LIKE_KINDS[kind], "fill", loc)
            params = _PARAMS if ours else _PARAMS[:5]
            args = [found.get(p) or _const(new, scope, None, p, loc) for p in params]
            emit_call(new, self.func_ir, NX_LIKE[kind], args, inst.target, loc)
        return new


def _const(block: list, scope, value, hint: str, loc) -> ir.Var:
    """A fresh variable assigned the constant `value` at the end of `block` (a rewrite's new block)."""
    v = ir.Var(scope, scope.redefine(f"$nx_{hint}", loc).name, loc)
    block.append(ir.Assign(ir.Const(value, loc), v, loc))
    return v
