"""Every place numba_ext changes or registers with Numba's internals, and the supported Numba range.

The compiler's other modules use only Numba's extension API (``numba.extending``: ``typeof_impl``,
``register_model``, ``box``/``unbox``, ``overload``, ``intrinsic``, ``lower_builtin``) next to what
they define. Among them, for calls: ``jit_function`` (a ``JitFunction`` types as its dispatcher
through ``_numba_type_``, so jitted code calls it), ``device_functions`` (``@numba_ext.func`` called
from host jitted code: ``lower_builtin`` per function), ``boxing`` (returned arguments box to
their own objects), ``eager_calls`` (reductions along an axis call the eager library from compiled
code: an ``intrinsic`` that boxes, calls and unboxes) and ``products_tiled`` (products launch the
tiled kernel: an ``intrinsic``); and, in the kernels layer, ``numba_ext.kernels.jit_launch`` (``call_kernel``,
``Range``, ``NdRange`` and kernel objects in jitted code). Everything else that reaches into Numba
is here, each with why:

==============================================================  ===========================================
Numba symbol                                                    why
==============================================================  ===========================================
``numba.core.runtime._nrt_python.c_helpers["get_api"]``          the extension allocates NRT meminfos for
                                                                arrays it returns to compiled code
``llvmlite.binding.add_symbol``                                 compiled host code calls the extension's
                                                                C ABI (``nx_box``, ``nx_launch``, ...)
                                                                and its half-precision conversions
                                                                (``__truncdfhf2``, ...)
``numba.np.arrayobj.populate_array`` (wrapped)                  arrays of our type take their queue from
                                                                their meminfo, so views keep the queue
``numba.parfors.parfor_lowering._lower_parfor_parallel``        ``prange`` loops over USM arrays in plain
(wrapped)                                                       ``@numba.njit(parallel=True)`` offload
``numba.parfors.parfor.swap_functions_map[("mean", "numpy")]``  ``np.mean`` of an empty USM array is NaN,
                                                                as in NumPy (Numba's loop divides by 0)
``numba.core.ir_utils.remove_call_handlers``                    allocations are free of side effects, so
                                                                parfor fusion can move them
``numba.core.ir_utils.alias_func_extensions``                   the results of reshape, of products into
                                                                ``out`` and of the reductions' views
                                                                alias an argument (parfor dead-code
                                                                removal must know)
``numba.core.rewrites.register_rewrite``                        NumPy calls and array expressions on USM
                                                                arrays become device kernels
``numba.core.compiler_machinery.register_pass``                 the passes of :class:`OffloadCompiler`
``types.Array._is_internal`` on ``USMArrayType``                Numba's array-expression fusion accepts
                                                                our type (it follows NumPy's semantics)
``Dispatcher._reset_overloads`` (per jitted function)           ``recompile()`` clears the launch fast
                                                                path's cached entry points too
``numba.core.caching.Cache._index_key`` (wrapped)              entries of functions cached on disk
                                                                (``cache=True``) are keyed by numba_ext's
                                                                version and build too: their kernels'
                                                                device code and ABI come from it
``numba.core.codegen.CPUCodeLibrary._optimize_functions``       host code's per-function optimization runs
(replaced)                                                      on the functions a module defines, not on
                                                                its declarations (nothing to optimize
                                                                there, as LLVM's own function-pass adaptor
                                                                skips them): each run makes an llvmlite
                                                                pass builder whose instrumentation LLVM
                                                                keeps for the life of the process (about
                                                                80 kB), some 40 runs per compiled function
                                                                (for the code libraries not adopted below)
``numba.core.codegen.CPUCodeLibrary.add_llvm_module``,          the host code of ``numba_ext.jit``
``_optimize_final_module`` and ``_finalize_final_module``       functions (their code libraries,
(wrapped, see ``host_libraries.py``), and                       which :class:`OffloadCompiler` creates
``numba.core.typed_passes.BaseNativeLowering.run_pass``         and adopts, as lowering does for
(wrapped)                                                       ``numba.njit`` functions that handle
                                                                numba_ext's types) is optimized with
                                                                Numba's pipelines in numba_ext's LLVM
                                                                and loaded into the JIT engine from
                                                                object code: llvmlite's pipelines and
                                                                the engine's modules stay for the life
                                                                of the process (0.4 MB per function)
``numba.core.base.BaseContext.compile_subroutine`` (wrapped)    a subroutine compiled without caching (an
                                                                array expression's) is not kept in the
                                                                target's cache: its key holds a code
                                                                object made for that one compilation,
                                                                never looked up again
``numba.np.arraymath.get_ret_dtype_if_any`` (wrapped; Numba     sums of USM arrays of unsigned integers
0.68.0 only: later versions type sums as below themselves)      narrower than 64 bits are uint64, as in
                                                                NumPy (Numba 0.68.0 typed them int64, so
                                                                ``a - a.sum()`` came out signed)
``numba.core.datamodel.default_manager``,                       host code holds float16 arrays and values
``numba.core.pythonapi._boxers`` and ``_unboxers`` (their       (``half.py``): Numba's CPU target has no
``types.Float`` handlers wrapped)                               float16 model or boxing (CUDA has)
==============================================================  ===========================================

:func:`install` applies all of them once (idempotent); Numba calls it through the ``numba_extensions``
entry point before its first compilation, and ``import numba_ext`` calls it too.
"""

from __future__ import annotations

import functools
import importlib.metadata
import os
import warnings
from collections.abc import Callable
from typing import Any

import llvmlite.binding as llvm
import numba
from numba.core import base, caching, codegen, ir_utils
from numba.core import boxing as numba_boxing
from numba.core import types as nb_types
from numba.core.compiler import CompilerBase, DefaultPassBuilder
from numba.core.compiler_machinery import register_pass
from numba.core.datamodel import default_manager
from numba.core.errors import NumbaPerformanceWarning
from numba.core.pythonapi import _boxers, _unboxers
from numba.core.rewrites import register_rewrite
from numba.core.runtime import _nrt_python
from numba.core.typed_passes import NopythonTypeInference, ParforPass, ParforPreLoweringPass
from numba.np import arraymath, arrayobj
from numba.parfors import parfor, parfor_lowering

from .. import _core

#: The Numba versions numba_ext is tested with: ``>= SUPPORTED_NUMBA[0]`` and ``< SUPPORTED_NUMBA[1]``
#: (``major.minor``); pyproject.toml declares the same range.
SUPPORTED_NUMBA = ((0, 68), (0, 69))


def supported_numba_range() -> str:
    low, high = (".".join(map(str, v)) for v in SUPPORTED_NUMBA)
    return f"numba>={low},<{high}"


def check_numba_version(version: tuple[int, int] | None = None) -> None:
    """Raise ImportError unless `version` (default: the installed Numba's ``major.minor``) is in
    the supported range."""
    version = numba.version_info.short if version is None else version
    if not SUPPORTED_NUMBA[0] <= tuple(version) < SUPPORTED_NUMBA[1]:
        raise ImportError(
            f"numba_ext supports {supported_numba_range()}, but Numba {numba.__version__} is installed; "
            f"install a supported Numba (pip install '{supported_numba_range()}')"
        )


check_numba_version()

# Imported after the version check: they use Numba internals of the supported versions.
from ..ir.kernel_ir import KERNEL_IR_VERSION  # noqa: E402
from . import (  # noqa: E402
    alloc,
    alloc_calls,
    boxing,
    elementwise,
    half,
    host_libraries,
    numpy_calls,
    offload,
    reduction_parts,
    reduction_rewrite,
    reduction_rules,
)
from .inplace_broadcast import RewriteInplaceBroadcast  # noqa: E402
from .parfor_offload import OffloadParfors, parfor_lowering_with_offload  # noqa: E402
from .types import USMArrayType  # noqa: E402


class QuietParforPass(ParforPass):
    """Numba's ParforPass without its "parallel=True but nothing to parallelise" warning:
    numba_ext.jit turns parfors on for every function, most of which offload array expressions
    instead."""

    _name = "numba_ext_parfor_pass"

    def run_pass(self, state):
        with warnings.catch_warnings():
            warnings.filterwarnings(
                "ignore",
                message="(?s).*parallel=True.* was specified but no transformation",
                category=NumbaPerformanceWarning,
            )
            return super().run_pass(state)


class OffloadCompiler(CompilerBase):
    """Numba's nopython pipeline (with parfors) plus the reduction checks and OffloadParfors; Numba's
    refusals of float16 operations in host code become UnsupportedError."""

    offloads_setitems = True  # OffloadParfors runs the slice assignments left on the host on the device

    def compile_extra(self, func):
        if self.state.library is None:
            self.state.library = host_libraries.adopted_library(self.state.targetctx, func.__qualname__)
        else:
            host_libraries.adopt(self.state.library)
        try:
            return super().compile_extra(func)
        except NotImplementedError as e:
            if "float16" not in str(e):
                raise
            raise half.host_code_error(self.state.func_id.func_qualname, e) from None

    def define_pipelines(self):
        pm = DefaultPassBuilder.define_nopython_pipeline(self.state)
        if self.state.flags.auto_parallel.enabled:
            pm.passes = [(QuietParforPass, d) if cls is ParforPass else (cls, d) for cls, d in pm.passes]
            pm.add_pass_after(reduction_rules.CheckReductionsPass, NopythonTypeInference)
            pm.add_pass_after(OffloadParfors, ParforPreLoweringPass)
        pm.finalize()
        return [pm]


def on_reset_overloads(dispatcher: Any, callback: Callable[[], None]) -> None:
    """Call `callback` whenever `dispatcher` drops its compiled overloads (``recompile()``)."""
    reset = dispatcher._reset_overloads

    def reset_overloads():
        callback()
        reset()

    dispatcher._reset_overloads = reset_overloads


@functools.cache
def build_id() -> tuple:
    """What compiled code cached on disk depends on besides Numba's own key: numba_ext's version,
    the kernel IR version and the compiled extension (its size and modification time, so a rebuilt
    extension invalidates the entries)."""
    try:
        version = importlib.metadata.version("numba_ext")
    except importlib.metadata.PackageNotFoundError:  # run from a source tree
        version = "source"
    st = os.stat(_core.__file__)
    return ("numba_ext", version, KERNEL_IR_VERSION, st.st_size, st.st_mtime_ns)


def index_key_with_build(index_key: Callable[..., Any]) -> Callable[..., Any]:
    def key(self: Any, sig: Any, codegen: Any) -> Any:
        return (*index_key(self, sig, codegen), build_id())

    return key


def optimize_defined_functions(library: Any, ll_module: Any) -> None:
    """Numba's function-level optimization of a module added to a code library, run on the
    functions the module defines (see the table above)."""
    ll_module.data_layout = library._codegen._data_layout
    for func in ll_module.functions:
        if func.is_declaration:
            continue
        fpm, pb = library._codegen._function_pass_manager()
        with library._recorded_timings.record(f"Function passes on {func.name!r}", pb):
            fpm.run(func, pb)


def unsigned_sums_widened(ret_dtype: Callable[..., Any]) -> Callable[..., Any]:
    """Numba 0.68.0's result type of a sum (`ret_dtype`), with NumPy's for USM arrays of unsigned
    integers narrower than 64 bits (uint64, where Numba 0.68.0 gave int64)."""

    def ret(aryty: Any, dtype: Any) -> Any:
        t = aryty.dtype
        if (
            isinstance(aryty, USMArrayType)
            and isinstance(t, nb_types.Integer)
            and not t.signed
            and t.bitwidth < 64
            and isinstance(dtype, (nb_types.NoneType, nb_types.Omitted))
        ):
            return nb_types.uint64
        return ret_dtype(aryty, dtype)

    return ret


def uncached_subroutines_dropped(compile_subroutine: Callable[..., Any]) -> Callable[..., Any]:
    def compile(self: Any, builder: Any, impl: Any, sig: Any, locals=None, flags=None, caching=True) -> Any:
        cres = compile_subroutine(self, builder, impl, sig, locals, flags, caching)
        if not caching:
            key = (impl.__code__, sig, type(self.error_model))
            if self.cached_internal_func.get(key) is cres:
                del self.cached_internal_func[key]
        return cres

    return compile


_installed = False


def install() -> None:
    """Apply every hook in the table above, once."""
    global _installed
    if _installed:
        return
    _core._set_nrt_api(_nrt_python.c_helpers["get_api"])
    for name, addr in _core.capi_addresses().items():
        llvm.add_symbol(name, addr)

    arrayobj.populate_array = boxing.populate_array_with_queue(arrayobj.populate_array)
    parfor_lowering._lower_parfor_parallel = parfor_lowering_with_offload(
        parfor_lowering._lower_parfor_parallel
    )
    key = ("mean", "numpy")
    parfor.swap_functions_map[key] = reduction_rewrite.usm_mean_swap(parfor.swap_functions_map[key])
    ir_utils.remove_call_handlers.append(alloc.allocation_has_no_side_effect)
    for fn, position in (*numpy_calls.ALIASING, *reduction_parts.VIEWS):
        ir_utils.alias_func_extensions[(fn.__name__, fn.__module__)] = numpy_calls.result_aliases(position)

    # Rewrites run in registration order: elementwise calls first (their results are allocations
    # the next two see), then allocations, then reductions, then searching, counting, reshapes and
    # products into out=; after typing, in-place operators that broadcast become calls first, then
    # array expressions are offloaded before the reduction calls are checked.
    for rewrite in (
        elementwise.RewriteElementwiseCalls,
        alloc_calls.RewriteAllocations,
        alloc.RewriteAllocationsLike,
        reduction_rewrite.RewriteReductions,
        numpy_calls.RewriteNumpyCalls,
    ):
        register_rewrite("before-inference")(rewrite)
    for rewrite in (RewriteInplaceBroadcast, offload.OffloadArrayExprs, reduction_rules.CheckReductions):
        register_rewrite("after-inference")(rewrite)
    register_pass(mutates_CFG=False, analysis_only=False)(OffloadParfors)
    caching.Cache._index_key = index_key_with_build(caching.Cache._index_key)
    register_pass(mutates_CFG=True, analysis_only=False)(QuietParforPass)
    register_pass(mutates_CFG=False, analysis_only=True)(reduction_rules.CheckReductionsPass)

    codegen.CPUCodeLibrary._optimize_functions = optimize_defined_functions
    host_libraries.install()
    base.BaseContext.compile_subroutine = uncached_subroutines_dropped(base.BaseContext.compile_subroutine)

    if hasattr(arraymath, "get_ret_dtype_if_any"):  # Numba 0.68.0
        arraymath.get_ret_dtype_if_any = unsigned_sums_widened(arraymath.get_ret_dtype_if_any)
    USMArrayType._is_internal = True
    float_handler = default_manager._handlers[nb_types.Float]
    default_manager.register(nb_types.Float, half.float_model_with_half(float_handler))
    _boxers.functions[nb_types.Float] = half.box_float_with_half(numba_boxing.box_float)
    _unboxers.functions[nb_types.Float] = half.unbox_float_with_half(numba_boxing.unbox_float)
    _installed = True


__all__ = [
    "OffloadCompiler",
    "SUPPORTED_NUMBA",
    "check_numba_version",
    "install",
    "on_reset_overloads",
    "supported_numba_range",
]
