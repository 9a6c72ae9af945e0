"""Matrix products in jitted code with the eager products' tiled kernels (``ir.products``'
``tiled_function`` on CPUs, ``group_tiled_function`` on GPUs): ``in_tiles(a, b, out)`` launches
the device's from compiled code where it applies and
tells whether it did, so the jitted product helper (``reduction_helpers.dot_function``) falls back
on its loop of one work-item per result element otherwise.

It applies to C-contiguous matrices of one real dtype (not bool) where eager products take tiles
(``arrays.reductions.tiled``: by work-groups on GPUs, in vector lanes elsewhere), all three on
equivalent queues (else the ``ExecutionPlacementError`` of any launch); the kernel is compiled for
the arrays' device when the helper is, and referred to through a ``KernelRef``, so the helper
caches on disk as any jitted function."""

from __future__ import annotations

import numpy as np
from numba.core import cgutils, types
from numba.extending import intrinsic
from numba.np import numpy_support

from .. import _core
from ..arrays.reductions import tile_groups
from ..devices import device_by_filter
from ..ir.products import TILE_FEWEST_COLUMNS, group_tiled_function, tile_launch, tiled_function
from .host_abi import I8P, I32, I64, declare
from .lazy_refs import KernelRef, lazy_address
from .types import USMArrayType


def _applies(a, b, out) -> bool:
    ts = (a, b, out)
    return (
        all(isinstance(t, USMArrayType) and t.ndim == 2 and t.layout == "C" for t in ts)
        and a.dtype == b.dtype == out.dtype
        and isinstance(a.dtype, (types.Float, types.Integer))  # real: not bool, not complex
        and a.device == b.device == out.device
    )


@intrinsic
def in_tiles(typingctx, a, b, out):
    """``out[...] = a @ b`` by the tiled kernel where it applies (see the module's documentation),
    returning whether it ran; False, with nothing done, where it does not."""
    if not all(isinstance(t, types.Array) for t in (a, b, out)):
        return None
    sig = types.boolean(a, b, out)
    if not _applies(a, b, out):
        return sig, lambda context, builder, sig, args: cgutils.false_bit

    dtype, device = np.dtype(numpy_support.as_dtype(a.dtype)).name, a.device

    def codegen(context, builder, sig, args):
        groups = tile_groups(device_by_filter(device))
        function = (group_tiled_function if groups else tiled_function)(dtype)
        kref = KernelRef(_core.compile_function(function, device_by_filter(device)), function, device)
        arrays = [context.make_array(t)(context, builder, value=v) for t, v in zip(sig.args, args)]
        (m, k), (_, n) = (cgutils.unpack_tuple(builder, x.shape, 2) for x in arrays[:2])
        ran = cgutils.alloca_once_value(builder, cgutils.false_bit)
        fewest = 1 if groups else TILE_FEWEST_COLUMNS
        go = builder.and_(
            builder.icmp_signed(">=", n, n.type(fewest)), builder.icmp_signed(">", m, m.type(0))
        )
        with builder.if_then(go):
            queues = cgutils.alloca_once(builder, I8P, size=3)
            for i, x in enumerate(arrays):
                builder.store(builder.bitcast(x.queue, I8P), builder.gep(queues, [I32(i)]))
            names = context.insert_const_string(builder.module, "a,b,out")
            check = declare(builder, "nx_check_queues", I32, [I8P.as_pointer(), I32, I8P])
            with cgutils.if_unlikely(
                builder, builder.icmp_signed("!=", builder.call(check, [queues, I32(3), names]), I32(0))
            ):
                context.call_conv.return_exc(builder)
            zero = I64(0)
            values = []
            for x, (rows, cols) in zip(arrays, ((m, k), (k, n), (m, n))):
                values += [builder.ptrtoint(x.data, I64), rows, cols, zero, zero]
            slots = cgutils.alloca_once(builder, I64, size=len(values))
            for i, v in enumerate(values):
                builder.store(v, builder.gep(slots, [I32(i)]))

            extents, local = tile_launch(groups)

            def extent(e):  # Extent.of in IR
                size = I64(e.times)
                for length, per in ((m, e.per_row), (n, e.per_column)):
                    if per:
                        size = builder.mul(size, builder.sdiv(builder.add(length, I64(per - 1)), I64(per)))
                return size

            launch_sizes = [extent(e) for e in extents] + [I64(x) for x in local]
            sizes = cgutils.alloca_once(builder, I64, size=len(launch_sizes))
            for i, v in enumerate(launch_sizes):
                builder.store(v, builder.gep(sizes, [I32(i)]))
            launch = declare(
                builder,
                "nx_launch_nd",
                I32,
                [I8P, I8P, I64.as_pointer(), I32, I32, I64.as_pointer(), I64.as_pointer()],
            )
            queue = builder.bitcast(arrays[0].queue, I8P)
            kaddr = lazy_address(context, builder, kref)
            st = builder.call(
                launch,
                [
                    kaddr,
                    queue,
                    slots,
                    I32(len(values)),
                    I32(len(extents)),
                    sizes,
                    builder.gep(sizes, [I32(len(extents))]),
                ],
            )
            with cgutils.if_unlikely(builder, builder.icmp_signed("!=", st, I32(0))):
                context.call_conv.return_exc(builder)
            builder.store(cgutils.true_bit, ran)
        return builder.load(ran)

    return sig, codegen
