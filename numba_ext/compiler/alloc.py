"""``numba_ext.empty/zeros/ones/full`` and the ``*_like`` forms (``numba_ext``'s and NumPy's) inside
jitted code.

Without ``device=``, the queue is the one of the function's USM array arguments (the first of them;
compute-follows-data checks cover the rest), else the default queue. A before-inference rewrite
passes the function's arguments to the allocation, so typing can find that queue's device and the
lowering can read it from the array struct."""

from __future__ import annotations

import numpy as np
from numba.core import cgutils, ir, types
from numba.core.rewrites import Rewrite
from numba.core.typing import signature
from numba.extending import intrinsic, overload
from numba.np import numpy_support

from .. import arrays
from ..devices import Device, default_queue, device_by_filter, device_queue
from ..errors import UnsupportedError
from .elementwise import dtype_arg
from .host_abi import I8P, I32, I64, allocate_result, declare
from .redirects import emit_call, resolve_global
from .types import USMArrayType

# fill values (floats: without dtype=, the result's dtype is the fill value's, float64 for zeros/ones)
_FILL = {arrays.empty: None, arrays.zeros: 0.0, arrays.ones: 1.0, arrays.full: "arg"}
_KEEP_QUEUES: list = []  # queues embedded in compiled code by address


def _new_var(block: list, scope, value, hint: str, loc) -> ir.Var:
    """A fresh variable assigned `value` at the end of `block` (a rewrite's new block)."""
    v = ir.Var(scope, scope.redefine(f"$nx_{hint}", loc).name, loc)
    block.append(ir.Assign(value, v, loc))
    return v


class RewriteAllocations(Rewrite):
    """numba_ext.empty(shape, dtype, device=, usm_type=) -> usm_alloc(shape, dtype, usm_type, device,
    fill, (the function's arguments...))."""

    def match(self, func_ir, block, typemap, calltypes):
        self.func_ir, self.block = func_ir, block
        self.calls = []
        for inst in block.body:
            if isinstance(inst, ir.Assign) and isinstance(inst.value, ir.Expr) and inst.value.op == "call":
                fn = resolve_global(func_ir, inst.value.func)
                if fn in _FILL:
                    self.calls.append((inst, fn))
        return bool(self.calls)

    def apply(self):
        args = [
            s.target
            for s in self.func_ir.blocks[min(self.func_ir.blocks)].body
            if isinstance(s, ir.Assign) and isinstance(s.value, ir.Arg)
        ]
        new = self.block.copy()
        new.clear()
        todo = {id(i): f for i, f in self.calls}
        func_vars = {i.value.func.name for i, _ in self.calls}
        for inst in self.block.body:
            fn = todo.get(id(inst))
            if fn is None:
                if isinstance(inst, ir.Assign) and inst.target.name in func_vars:
                    # the getattr(numba_ext, "empty") the call used: rebind it to the intrinsic
                    g = ir.Global("usm_alloc", usm_alloc, inst.loc)
                    inst = ir.Assign(g, inst.target, inst.loc)
                    self.func_ir._definitions[inst.target.name] = [g]  # so match() does not see it again
                new.append(inst)
                continue
            new.append(ir.Assign(self._allocation_call(new, inst, fn, args), inst.target, inst.loc))
        return new

    @staticmethod
    def _allocation_call(new: list, inst, fn, args) -> ir.Expr:
        """The usm_alloc call replacing `inst`'s call of numba_ext.`fn` (its extra variables are
        appended to `new`); `args` are the function's arguments (the call's sources)."""
        call, scope, loc = inst.value, inst.target.scope, inst.loc
        names = ["shape", "fill_value", "dtype"] if fn is arrays.full else ["shape", "dtype"]
        given = dict(zip(names, call.args))
        given.update(dict(call.kws))
        if "shape" not in given or set(given) - {
            "shape",
            "dtype",
            "device",
            "usm_type",
            "fill_value",
            "sycl_queue",
        }:
            raise UnsupportedError(
                f"numba_ext.{fn.__name__}() in jitted code takes shape, dtype, device=, usm_type= "
                f"(line {loc.line})"
            )
        if "sycl_queue" in given:
            raise UnsupportedError(
                f'sycl_queue= cannot be used in jitted code; use device="<selector>" (line {loc.line})'
            )

        def var(value, hint):
            return _new_var(new, scope, value, hint, loc)

        def none(hint):
            return var(ir.Const(None, loc), hint)

        fill = (
            given.get("fill_value")
            if fn is arrays.full
            else (none("fill") if _FILL[fn] is None else var(ir.Const(_FILL[fn], loc), "fill"))
        )
        srcs = var(ir.Expr.build_tuple(list(args), loc), "args")
        new_call = ir.Expr.call(
            call.func,
            [
                given["shape"],
                given.get("dtype") or none("dtype"),
                given.get("usm_type") or none("usm"),
                given.get("device") or none("device"),
                fill,
                srcs,
            ],
            (),
            loc,
        )
        return new_call


def _dtype(t):
    if t is None or isinstance(t, (types.NoneType, types.Omitted)):
        return types.float64
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


@intrinsic(prefer_literal=True)
def usm_alloc(typingctx, shape, dtype, usm_type, device, fill, sources):
    """The allocation of numba_ext.empty & co. in jitted code: typing, then the lowering (one Numba
    intrinsic, so the typer and its codegen closure stay one function of about 70 lines)."""
    if isinstance(shape, types.Integer):
        ndim = 1
    elif isinstance(shape, types.BaseTuple) and all(isinstance(t, types.Integer) for t in shape.types):
        ndim = len(shape.types)
    else:
        return None
    if isinstance(dtype, (types.NoneType, types.Omitted)) and isinstance(fill, (types.Number, types.Boolean)):
        dt = (
            fill.literal_type if isinstance(fill, types.Literal) else fill
        )  # NumPy's full(): the value's type
    else:
        dt = _dtype(dtype)
    usm = _literal_str(usm_type, "usm_type") or "device"
    if usm not in ("device", "shared", "host"):
        raise UnsupportedError(f"unknown usm_type {usm!r}")
    selector = _literal_str(device, "device")
    src_index = None
    if selector is not None:
        dev = Device(selector).filter_string
    else:
        for i, t in enumerate(sources.types):
            if isinstance(t, USMArrayType):
                src_index, dev = i, t.device
                break
        else:
            dev = default_queue().device.filter_string
    ret = USMArrayType(dt, ndim, "C", usm_type=usm, device=dev)

    def codegen(context, builder, sig, args):
        shape_v, _, _, _, fill_v, srcs = args
        shape_t = sig.args[0]
        dims = (
            [shape_v]
            if ndim == 1 and isinstance(shape_t, types.Integer)
            else cgutils.unpack_tuple(builder, shape_v, ndim)
        )
        dims = [
            context.cast(builder, d, t, types.intp)
            for d, t in zip(dims, [shape_t] if isinstance(shape_t, types.Integer) else shape_t.types)
        ]
        if src_index is not None:
            src_t = sig.args[5].types[src_index]
            src = context.make_array(src_t)(context, builder, value=builder.extract_value(srcs, src_index))
            queue = builder.bitcast(src.queue, I8P)
        else:
            q = default_queue() if selector is None else device_queue(device_by_filter(dev))
            _KEEP_QUEUES.append(q)
            queue = context.add_dynamic_addr(builder, q._handle, info="numba_ext queue")  # not cacheable
        nitems = cgutils.intp_t(1)
        for d in dims:
            nitems = builder.mul(nitems, d)
        out = allocate_result(context, builder, ret, queue, dims, nitems)
        if not isinstance(sig.args[4], (types.NoneType, types.Omitted)):
            value = context.cast(builder, fill_v, sig.args[4], dt)
            slot = cgutils.alloca_once_value(builder, value)
            size = context.get_abi_sizeof(context.get_data_type(dt))
            fill_fn = declare(builder, "nx_usm_fill", I32, [I8P, I8P, I8P, I64, I64])
            nbytes = builder.mul(nitems, cgutils.intp_t(size))
            st = builder.call(
                fill_fn,
                [queue, builder.bitcast(out.data, I8P), builder.bitcast(slot, I8P), I64(size), nbytes],
            )
            with cgutils.if_unlikely(builder, builder.icmp_signed("!=", st, I32(0))):
                context.nrt.decref(builder, ret, out._getvalue())
                context.call_conv.return_exc(builder)
        return out._getvalue()

    return signature(ret, shape, dtype, usm_type, device, fill, sources), codegen


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
# numba_ext.*_like in jitted code takes dtype=, usm_type= and device= as outside it. A before-inference
# rewrite turns each call into nx_like_<kind>(a, fill, dtype, usm_type, device), whose overload picks
# the implementation from a's type.

_LIKE_KINDS = {"empty": None, "zeros": 0, "ones": 1, "full": "arg"}


def _none(t) -> bool:
    return t is None or isinstance(t, (types.NoneType, types.Omitted))


def _np_empty_like(a, fill, dtype, usm_type=None, device=None):
    return np.empty_like(a, dtype)


def _np_zeros_like(a, fill, dtype, usm_type=None, device=None):
    return np.zeros_like(a, dtype)


def _np_ones_like(a, fill, dtype, usm_type=None, device=None):
    return np.ones_like(a, dtype)


def _np_full_like(a, fill, dtype, usm_type=None, device=None):
    return np.full_like(a, fill, dtype)


_NP_LIKE = {"empty": _np_empty_like, "zeros": _np_zeros_like, "ones": _np_ones_like, "full": _np_full_like}


def _make_like(kind: str):
    def stub(a, fill, dtype, usm_type=None, device=None):  # replaced by the overload below in jitted code
        raise NotImplementedError

    stub.__name__ = stub.__qualname__ = f"nx_like_{kind}"

    @overload(stub, prefer_literal=True)
    def _ov(a, fill, dtype, usm_type=None, device=None):
        ours = isinstance(a, USMArrayType)
        from_numpy = usm_type is None  # np.*_like: usm_type and device omitted (Numba passes the default)
        if not ours and from_numpy:  # np.*_like of anything else: NumPy's (Numba's) behaviour
            return _NP_LIKE[kind]
        if not isinstance(a, types.Array):
            raise UnsupportedError(f"numba_ext.{kind}_like() in jitted code takes an array, got {a}")
        dt = numpy_support.as_dtype(a.dtype if _none(dtype) else _dtype(dtype))
        # `a` is passed as the allocation's source: its queue when it is ours, else the default queue
        if not _none(usm_type):
            return lambda a, fill, dtype, usm_type=None, device=None: usm_alloc(
                a.shape, dt, usm_type, device, fill, (a,)
            )
        usm = a.usm_type if ours else None
        return lambda a, fill, dtype, usm_type=None, device=None: usm_alloc(
            a.shape, dt, usm, device, fill, (a,)
        )

    return stub


NX_LIKE = {kind: _make_like(kind) for kind in _LIKE_KINDS}
_SIDE_EFFECT_FREE = frozenset(NX_LIKE.values())
# the functions the rewrite redirects: (kind, whether it is numba_ext's)
_LIKE_FUNCS = {getattr(np, f"{k}_like"): (k, False) for k in _LIKE_KINDS}
_LIKE_FUNCS.update({getattr(arrays, f"{k}_like"): (k, True) for k in _LIKE_KINDS})


class RewriteAllocationsLike(Rewrite):
    """np.empty_like(a, dtype) / numba_ext.full_like(a, v, dtype=, usm_type=, device=) ->
    nx_like_<kind>(a, fill, dtype, usm_type, device); NumPy's forms leave usm_type and device out
    (numba_ext's pass None), so the overload knows which one it serves."""

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
            (kind, ours), call, loc = todo[id(inst)], inst.value, inst.loc
            scope = inst.target.scope
            names = ["a", "fill_value", "dtype"] if kind == "full" else ["a", "dtype"]
            where = f"{'numba_ext' if ours else 'np'}.{kind}_like() at line {loc.line}"
            if len(call.args) > len(names):
                raise UnsupportedError(f"{where} takes {', '.join(names)} positionally")
            given = dict(zip(names, call.args))
            for k, v in call.kws:
                if k in given:
                    raise UnsupportedError(f"{where}: {k} given twice")
                given[k] = v
            allowed = set(names) | ({"usm_type", "device"} if ours else set())
            if "a" not in given or set(given) - allowed:
                extra = sorted(set(given) - allowed)
                raise UnsupportedError(
                    f"{where} in jitted code takes {', '.join(sorted(allowed))}"
                    + (f", not {', '.join(extra)}" if extra else "")
                )

            def var(value, hint, scope=scope, loc=loc):  # used in this iteration only
                return _new_var(new, scope, value, hint, loc)

            fill = given["fill_value"] if kind == "full" else var(ir.Const(_LIKE_KINDS[kind], loc), "fill")
            args = [given["a"], fill, given.get("dtype") or var(ir.Const(None, loc), "dtype")]
            if ours:
                args += [
                    given.get("usm_type") or var(ir.Const(None, loc), "usm"),
                    given.get("device") or var(ir.Const(None, loc), "device"),
                ]
            emit_call(new, self.func_ir, NX_LIKE[kind], args, inst.target, loc)
        return new
