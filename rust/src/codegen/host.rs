//! Optimisation of host code compiled by Numba (the modules of `numba_ext.jit` functions), in this
//! crate's LLVM: the module arrives as bitcode, runs the pass pipeline Numba asks for with Numba's
//! tuning options for the host CPU, and leaves as bitcode.
//!
//! Each call builds its own context, pass builder and instrumentation and frees all of them, so no
//! memory stays behind per compiled function (llvmlite's pass builders keep their instrumentation for
//! the life of the process).

use std::sync::OnceLock;

use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{CodeModel, InitializationConfig, RelocMode, Target};
use inkwell::OptimizationLevel;

use super::emit::CODEGEN_LOCK;
use crate::error::{Error, Result};

/// Whether this build can optimise host code: its LLVM has the host's target (the native one).
pub fn host_target_available() -> bool {
    static READY: OnceLock<bool> = OnceLock::new();
    *READY.get_or_init(|| {
        let config = InitializationConfig {
            asm_parser: false,
            asm_printer: false,
            base: true,
            disassembler: false,
            info: true,
            machine_code: true,
        };
        Target::initialize_native(&config).is_ok()
    })
}

/// The host pipeline's settings: Numba's pipeline tuning options and its target machine's CPU.
pub struct HostOptions<'a> {
    pub cpu: &'a str,
    pub features: &'a str,
    pub loop_vectorize: bool,
    pub slp_vectorize: bool,
}

/// Run `passes` (LLVM's pipeline syntax) on the module in `bitcode`, for the host CPU of `options`;
/// returns the optimised module's bitcode.
pub fn optimize_bitcode(bitcode: &[u8], passes: &str, options: &HostOptions<'_>) -> Result<Vec<u8>> {
    if !host_target_available() {
        return Err(Error::Codegen("this build's LLVM has no target for the host CPU".into()));
    }
    let _guard = CODEGEN_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let context = Context::create();
    let buffer = MemoryBuffer::create_from_memory_range_copy(bitcode, "host");
    let module = Module::parse_bitcode_from_buffer(&buffer, &context)
        .map_err(|e| Error::Codegen(format!("reading host bitcode: {e}")))?;
    let triple = module.get_triple();
    let target = Target::from_triple(&triple).map_err(|e| Error::Codegen(format!("host target {triple}: {e}")))?;
    let machine = target
        .create_target_machine(
            &triple,
            options.cpu,
            options.features,
            OptimizationLevel::Aggressive,
            RelocMode::Default,
            CodeModel::JITDefault,
        )
        .ok_or_else(|| Error::Codegen(format!("cannot create a target machine for {triple} ({})", options.cpu)))?;
    let pass_options = PassBuilderOptions::create();
    pass_options.set_loop_vectorization(options.loop_vectorize);
    pass_options.set_loop_slp_vectorization(options.slp_vectorize);
    module
        .run_passes(passes, &machine, pass_options)
        .map_err(|e| Error::Codegen(format!("host passes {passes:?}: {e}")))?;
    Ok(module.write_bitcode_to_memory().as_slice().to_vec())
}

/// The version of this crate's LLVM (major, minor, patch).
pub fn llvm_version() -> (u32, u32, u32) {
    inkwell::support::get_llvm_version()
}
