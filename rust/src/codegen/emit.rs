//! Target emission: SPIR-V binaries through LLVM's SPIR-V back end, PTX text through NVPTX.

use std::sync::{Mutex, Once};

use inkwell::module::Module;
use inkwell::targets::{CodeModel, FileType, RelocMode, Target, TargetMachine, TargetTriple};
use inkwell::OptimizationLevel;

use super::intrinsics::Flavor;
use crate::error::{Error, Result};

unsafe extern "C" {
    fn LLVMInitializeSPIRVTargetInfo();
    fn LLVMInitializeSPIRVTarget();
    fn LLVMInitializeSPIRVTargetMC();
    fn LLVMInitializeSPIRVAsmPrinter();
}

fn init_targets() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| unsafe {
        LLVMInitializeSPIRVTargetInfo();
        LLVMInitializeSPIRVTarget();
        LLVMInitializeSPIRVTargetMC();
        LLVMInitializeSPIRVAsmPrinter();
        Target::initialize_nvptx(&inkwell::targets::InitializationConfig::default());
    });
}

/// A fresh LLVM context for one kernel, never freed.
///
/// LLVM 22's SPIR-V back end keeps state between emissions that refers to LLVM objects by address:
/// once a context (or module) is freed and a later kernel's objects reuse those addresses, the back end
/// can assign one result id twice (seen: `Id 2 is defined more than once` from spirv-val, and a crash
/// in the Intel driver's SPIR-V reader, while `llc` on the same IR in a fresh process is fine). Keeping
/// every context and module alive avoids address reuse; a kernel's IR is small and kernels are
/// compiled once per process.
pub fn context() -> &'static inkwell::context::Context {
    Box::leak(Box::new(inkwell::context::Context::create()))
}

fn machine(flavor: Flavor, cpu: &str) -> Result<TargetMachine> {
    init_targets();
    let triple = TargetTriple::create(flavor.triple());
    let target = Target::from_triple(&triple).map_err(|e| Error::Codegen(format!("target {}: {}", flavor.triple(), e)))?;
    target
        .create_target_machine(&triple, cpu, "", OptimizationLevel::Default, RelocMode::Default, CodeModel::Default)
        .ok_or_else(|| Error::Codegen(format!("cannot create a target machine for {}", flavor.triple())))
}

/// Optimise and emit `module`: returns the device code and the final LLVM IR text.
///
/// Emission is serialised process-wide: LLVM 22's SPIR-V back end keeps state that is not safe to
/// use from two threads at once (two concurrent emissions interleave into one corrupt module; seen
/// in `cargo test` with parallel tests).
pub fn emit(module: &Module, flavor: Flavor, cpu: &str) -> Result<(Vec<u8>, String)> {
    static EMIT_LOCK: Mutex<()> = Mutex::new(());
    let _guard = EMIT_LOCK.lock().unwrap_or_else(|p| p.into_inner());
    // A fresh target machine per kernel: the SPIR-V back end keeps its global registry in the
    // subtarget the target machine owns, and reusing it across modules crashes in machine passes.
    // It is leaked with the module's context (see `context`).
    let tm: &'static TargetMachine = Box::leak(Box::new(machine(flavor, cpu)?));
    // Light clean-up only for SPIR-V: the OpenCL driver's own compiler optimises and vectorises
    // across work-items; NVPTX gets the full pipeline.
    let passes = match flavor {
        Flavor::Spirv => "sroa,mem2reg,instcombine,simplifycfg",
        Flavor::Nvptx => "default<O3>",
    };
    module
        .run_passes(passes, tm, inkwell::passes::PassBuilderOptions::create())
        .map_err(|e| Error::Codegen(format!("LLVM passes: {e}")))?;
    let ir = module.print_to_string().to_string();
    let ft = match flavor {
        Flavor::Spirv => FileType::Object,
        Flavor::Nvptx => FileType::Assembly,
    };
    let buf = tm.write_to_memory_buffer(module, ft).map_err(|e| Error::Codegen(format!("emitting {}: {e}", flavor.triple())))?;
    Ok((buf.as_slice().to_vec(), ir))
}
