"""Host code of numba_ext's jitted functions: optimized in numba_ext's LLVM, loaded into Numba's JIT
from object code, so a dropped function leaves almost nothing behind.

Numba keeps two things per compiled function for the life of the process, whether or not the
function is still alive:

* what llvmlite's pass builders leave after each run of a pipeline (their instrumentation callbacks
  are never freed: about 80 kB a run, five runs per function);
* the function's whole LLVM module, which its JIT engine owns once the module is added (Numba does
  not remove modules from the engine: removal crashed).

For the code libraries of ``numba_ext.jit`` compiles (:class:`OffloadCompiler` adopts them) and of
plain ``numba.njit`` functions that handle numba_ext's types (arrays, queues, devices: adopted as
Numba's lowering creates their library), both are avoided, with the same optimization:

* the pipelines Numba asks llvmlite for run in numba_ext's LLVM (``_core.optimize_host_module``),
  which frees everything after each run: per-function simplification when a module is added, then
  the "cheap" and the full module pipelines, with Numba's optimization level, vectorization settings
  and host CPU. The module travels as bitcode, so both LLVMs must share their major version. Numba's
  reference-count pruning still runs in llvmlite after each stage (a run of that pass alone keeps
  nothing);
* the optimized module is compiled to object code by Numba's own target machine, and the engine gets
  an empty module whose code comes from Numba's object-cache hook, the way Numba loads a function
  from its disk cache. The full module stays with the library (inspection, linking into callers,
  the disk cache) and is freed with it.

Other code libraries (``numba.njit`` on NumPy arrays alone, Numba's own helpers) keep Numba's path. So does
everything when the LLVM versions differ, when this build has no target for the host CPU, or when
Numba records LLVM pass timings (``NUMBA_LLVM_PASS_TIMINGS``).
"""

from __future__ import annotations

import functools
import warnings
import weakref
from collections.abc import Callable
from typing import Any

import llvmlite.binding as llvm
from numba.core import codegen, config, typed_passes

from .. import _core
from ..errors import CodegenError

_ADOPTED = "_numba_ext_host"
# Numba's object-cache hooks find their library through this attribute of the module the engine
# compiles (``ll_module.__library`` inside ``CPUCodeLibrary``).
_LIBRARY_OF_MODULE = "_CPUCodeLibrary__library"


@functools.cache
def available() -> bool:
    """Whether host modules can be optimized here: numba_ext's LLVM has the host's target and reads
    and writes the bitcode of llvmlite's LLVM (same major version)."""
    ready, ours = _core.host_optimizer()
    return ready and tuple(llvm.llvm_version_info)[:1] == ours[:1]


def adopt(library: Any) -> None:
    """Optimize and load `library` (a Numba CPU code library, not finalized) the way this module
    describes."""
    if available() and not config.LLVM_PASS_TIMINGS:
        setattr(library, _ADOPTED, True)


def adopted(library: Any) -> bool:
    return getattr(library, _ADOPTED, False)


def _handles_numba_ext_types(state: Any) -> bool:
    types = [*(state.typemap or {}).values(), *(state.args or ()), state.return_type]
    return any(type(t).__module__.startswith("numba_ext.") for t in types)


def adopted_library(targetctx: Any, name: str) -> Any:
    """A new code library for the function `name`, created as Numba's lowering creates one (object
    caching on, so it can go to the disk cache), and adopted."""
    library = targetctx.codegen().create_library(name)
    library.enable_object_caching()
    adopt(library)
    return library


def lowering_adopts(run_pass: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """``BaseNativeLowering.run_pass``: a function that handles numba_ext's types gets its code
    library created here and adopted."""

    def run(self: Any, state: Any) -> Any:
        if (
            state.library is None
            and isinstance(state.targetctx.codegen(), codegen.JITCPUCodegen)
            and _handles_numba_ext_types(state)
        ):
            state.library = adopted_library(state.targetctx, state.func_id.func_qualname)
        return run_pass(self, state)

    return run


def _level(opt: Any) -> str:
    return f"O{int(opt)}"


def _optimized(module: Any, codegen_: Any, passes: str, loop_vectorize: bool, slp_vectorize: bool) -> Any:
    data = _core.optimize_host_module(
        module.as_bitcode(),
        passes,
        codegen_._get_host_cpu_name(),
        codegen_._tm_features,
        bool(loop_vectorize),
        bool(slp_vectorize),
    )
    out = llvm.parse_bitcode(data)
    out.name = module.name
    return out


def _refpruned(module: Any, codegen_: Any) -> Any:
    """Numba's reference-count pruning pass, which ends each of its pipelines (when it is on)."""
    if config.LLVM_REFPRUNE_PASS:
        pb = codegen_._pass_builder()
        pm = llvm.create_new_module_pass_manager()
        pm.add_refprune_pass(codegen._parse_refprune_flags())
        pm.run(module, pb)
    return module


def _warn_and_release(library: Any, error: Exception) -> None:
    setattr(library, _ADOPTED, False)
    warnings.warn(
        f"numba_ext could not optimize the host code of {library.name!r} with its own LLVM ({error}); "
        "Numba's optimizer takes over for it",
        RuntimeWarning,
        stacklevel=3,
    )


def add_llvm_module(original: Callable[[Any, Any], None]) -> Callable[[Any, Any], None]:
    """``CPUCodeLibrary.add_llvm_module``: per-function simplification of an adopted library's
    module in numba_ext's LLVM."""

    def add(self: Any, ll_module: Any) -> None:
        if not adopted(self):
            return original(self, ll_module)
        cg = self._codegen
        ll_module.data_layout = cg._data_layout
        if int(config.OPT) > 0:
            try:
                ll_module = _optimized(
                    ll_module,
                    cg,
                    f"function(function-simplification<{_level(config.OPT)}>)",
                    config.LOOP_VECTORIZE,
                    config.SLP_VECTORIZE,
                )
            except CodegenError as e:
                _warn_and_release(self, e)
                return original(self, ll_module)
        ll_module = _refpruned(ll_module, cg)
        if not config.LLVM_REFPRUNE_PASS:
            ll_module = codegen.remove_redundant_nrt_refct(ll_module)
        self._final_module.link_in(ll_module)

    return add


def optimize_final_module(original: Callable[[Any], None]) -> Callable[[Any], None]:
    """``CPUCodeLibrary._optimize_final_module``: Numba's "cheap" pipeline (its inlining before
    reference-count pruning), then its full pipeline, in numba_ext's LLVM."""

    def optimize(self: Any) -> None:
        if not adopted(self):
            return original(self)
        cg = self._codegen
        cheap = f"default<{_level(cg._opt_level)}>"
        if int(config.OPT) != 0:
            # What Numba adds to its cheap pipeline, in its order: loop rotation, instruction
            # combining (no fixpoint check, as in Numba's pass) and jump threading.
            cheap += (
                ",function(loop(loop-rotate))"
                ",function(instcombine<no-verify-fixpoint>)"
                ",function(jump-threading)"
            )
        try:
            module = _refpruned(_optimized(self._final_module, cg, cheap, cg._loopvect, False), cg)
            if not config.LLVM_REFPRUNE_PASS:
                module = codegen.remove_redundant_nrt_refct(module)
            full = f"default<{_level(config.OPT)}>"
            module = _optimized(module, cg, full, config.LOOP_VECTORIZE, config.SLP_VECTORIZE)
        except CodegenError as e:
            _warn_and_release(self, e)
            return original(self)
        self._final_module = _refpruned(module, cg)

    return optimize


def finalize_final_module(original: Callable[[Any], None]) -> Callable[[Any], None]:
    """``CPUCodeLibrary._finalize_final_module``: an adopted library's module is compiled to object
    code here and the JIT engine loads that object through an empty module, so the engine never
    owns the full module."""

    def finalize(self: Any) -> None:
        if not (adopted(self) and self._object_caching_enabled):
            return original(self)
        self._finalize_dynamic_globals()
        self._verify_declare_only_symbols()
        cg = self._codegen
        module = self._final_module
        obj = cg._tm.emit_object(module)
        stub = llvm.parse_assembly(str(cg._create_empty_module(self.name)))
        setattr(stub, _LIBRARY_OF_MODULE, weakref.proxy(self))
        self._compiled_object = obj  # given to the engine by Numba's object-cache hook
        cg._engine._load_defined_symbols(module)
        cleanup = cg._add_module(stub)
        if cleanup:
            weakref.finalize(self, cleanup)
        self._finalize_specific()
        # As after Numba's own compilation: the object stays for the disk cache.
        self._compiled_object = obj
        self._compiled = True
        self._finalized = True
        if config.DUMP_OPTIMIZED:
            codegen.dump(f"OPTIMIZED DUMP {self.name}", self.get_llvm_str(), "llvm")
        if config.DUMP_ASSEMBLY:
            codegen.dump(f"ASSEMBLY {self.name}", self.get_asm_str(), "asm")

    return finalize


def install() -> None:
    typed_passes.BaseNativeLowering.run_pass = lowering_adopts(typed_passes.BaseNativeLowering.run_pass)
    lib = codegen.CPUCodeLibrary
    lib.add_llvm_module = add_llvm_module(lib.add_llvm_module)
    lib._optimize_final_module = optimize_final_module(lib._optimize_final_module)
    lib._finalize_final_module = finalize_final_module(lib._finalize_final_module)
