//! Target emission: SPIR-V binaries through LLVM's SPIR-V back end (in helper processes, see
//! [`spirv_helper`]), PTX text through NVPTX.

pub mod spirv_helper;

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

pub(crate) fn init_targets() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| unsafe {
        LLVMInitializeSPIRVTargetInfo();
        LLVMInitializeSPIRVTarget();
        LLVMInitializeSPIRVTargetMC();
        LLVMInitializeSPIRVAsmPrinter();
        Target::initialize_nvptx(&inkwell::targets::InitializationConfig::default());
    });
}

pub(crate) fn machine(flavor: Flavor, cpu: &str) -> Result<TargetMachine> {
    init_targets();
    let triple = TargetTriple::create(flavor.triple());
    let target =
        Target::from_triple(&triple).map_err(|e| Error::Codegen(format!("target {}: {}", flavor.triple(), e)))?;
    target
        .create_target_machine(&triple, cpu, "", OptimizationLevel::Default, RelocMode::Default, CodeModel::Default)
        .ok_or_else(|| Error::Codegen(format!("cannot create a target machine for {}", flavor.triple())))
}

/// The lock every use of LLVM 22 takes (building, optimising and emitting): one kernel at a time.
pub static CODEGEN_LOCK: Mutex<()> = Mutex::new(());

/// Optimise and emit `module`: returns the device code and the final LLVM IR text. The caller holds
/// [`CODEGEN_LOCK`].
///
/// The optimisation runs here; SPIR-V is emitted by a helper process ([`spirv_helper`]): LLVM 22's
/// SPIR-V back end emits only the first module of a process correctly, and a crash in it ends only the
/// helper.
pub fn emit(
    module: &Module,
    flavor: Flavor,
    cpu: &str,
    libdevice: Option<&std::path::Path>,
) -> Result<(Vec<u8>, String)> {
    let tm = machine(flavor, cpu)?;
    // Light clean-up only for SPIR-V: the OpenCL driver's own compiler optimises and vectorises
    // across work-items; NVPTX gets the full pipeline. A bare `instcombine` in a pass string checks
    // that it reached a fixpoint in one iteration and aborts the process (`LLVM ERROR`) when it did
    // not (seen on a bool product reduction); the default pipelines do not check, nor do we.
    // The IR returned for inspection: for SPIR-V after the light clean-up (what the driver gets);
    // for PTX before libdevice is linked in (after linking and inlining it is mostly libdevice).
    let (passes, early_ir) = match flavor {
        Flavor::Spirv => ("sroa,mem2reg,instcombine<no-verify-fixpoint>,simplifycfg", None),
        Flavor::Nvptx => {
            allow_contraction(module);
            let ir = module.print_to_string().to_string();
            link_libdevice(module, libdevice)?;
            ("default<O3>", Some(ir))
        }
    };
    module
        .run_passes(passes, &tm, inkwell::passes::PassBuilderOptions::create())
        .map_err(|e| Error::Codegen(format!("LLVM passes: {e}")))?;
    if flavor == Flavor::Spirv {
        drop_bool_bitreverse(module);
        select_for_bool_sitofp(module);
    }
    let ir = early_ir.unwrap_or_else(|| module.print_to_string().to_string());
    let bytes = match flavor {
        Flavor::Spirv => spirv_helper::emit(module, cpu)?,
        Flavor::Nvptx => tm
            .write_to_memory_buffer(module, FileType::Assembly)
            .map_err(|e| Error::Codegen(format!("emitting {}: {e}", flavor.triple())))?
            .as_slice()
            .to_vec(),
    };
    Ok((bytes, ir))
}

/// Replace calls of `llvm.bitreverse.i1` by their operand (reversing one bit changes nothing).
/// `instcombine` forms them from some bool arithmetic (`b | b * max(b, b)` widened to an integer), and
/// LLVM 22's SPIR-V back end cannot legalize a one-bit bit reverse: it aborts.
fn drop_bool_bitreverse(module: &Module) {
    use inkwell::llvm_sys::core::{
        LLVMDeleteFunction, LLVMGetFirstUse, LLVMGetOperand, LLVMGetUser, LLVMInstructionEraseFromParent,
        LLVMIsACallInst, LLVMReplaceAllUsesWith,
    };
    use inkwell::values::AsValueRef;
    let Some(f) = module.get_function("llvm.bitreverse.i1") else { return };
    let fv = f.as_value_ref();
    unsafe {
        loop {
            let u = LLVMGetFirstUse(fv);
            if u.is_null() {
                break;
            }
            let call = LLVMGetUser(u);
            if LLVMIsACallInst(call).is_null() {
                // not a call (the function's address taken): leave the module as it is
                return;
            }
            LLVMReplaceAllUsesWith(call, LLVMGetOperand(call, 0));
            LLVMInstructionEraseFromParent(call);
        }
        LLVMDeleteFunction(fv);
    }
}

/// Replace each `sitofp i1 %b to <float type>` by `select i1 %b, -1.0, 0.0`. `instcombine` forms it
/// from the negation of a widened bool (`-(x > 0)`, an int8 -1 in Numba's typing, made a float), and
/// a one-bit integer is a SPIR-V bool, which the OpenCL CPU runtime converts as unsigned: 1.0, not
/// -1.0. A select means the same for every consumer.
fn select_for_bool_sitofp(module: &Module) {
    use inkwell::llvm_sys::core::{
        LLVMBuildSelect, LLVMConstReal, LLVMCreateBuilderInContext, LLVMDisposeBuilder, LLVMGetFirstBasicBlock,
        LLVMGetFirstFunction, LLVMGetFirstInstruction, LLVMGetInstructionOpcode, LLVMGetIntTypeWidth,
        LLVMGetModuleContext, LLVMGetNextBasicBlock, LLVMGetNextFunction, LLVMGetNextInstruction, LLVMGetOperand,
        LLVMGetTypeKind, LLVMInstructionEraseFromParent, LLVMPositionBuilderBefore, LLVMReplaceAllUsesWith, LLVMTypeOf,
    };
    use inkwell::llvm_sys::{LLVMOpcode, LLVMTypeKind};
    // SAFETY: a walk over the module's own functions, blocks and instructions; each replaced
    // instruction is erased after its uses moved to the select built before it
    unsafe {
        let m = module.as_mut_ptr();
        let builder = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
        let mut f = LLVMGetFirstFunction(m);
        while !f.is_null() {
            let mut bb = LLVMGetFirstBasicBlock(f);
            while !bb.is_null() {
                let mut inst = LLVMGetFirstInstruction(bb);
                while !inst.is_null() {
                    let next = LLVMGetNextInstruction(inst);
                    if LLVMGetInstructionOpcode(inst) == LLVMOpcode::LLVMSIToFP {
                        let arg = LLVMGetOperand(inst, 0);
                        let (from, to) = (LLVMTypeOf(arg), LLVMTypeOf(inst));
                        let scalar_float = matches!(
                            LLVMGetTypeKind(to),
                            LLVMTypeKind::LLVMHalfTypeKind
                                | LLVMTypeKind::LLVMFloatTypeKind
                                | LLVMTypeKind::LLVMDoubleTypeKind
                        );
                        if scalar_float
                            && LLVMGetTypeKind(from) == LLVMTypeKind::LLVMIntegerTypeKind
                            && LLVMGetIntTypeWidth(from) == 1
                        {
                            LLVMPositionBuilderBefore(builder, inst);
                            let select = LLVMBuildSelect(
                                builder,
                                arg,
                                LLVMConstReal(to, -1.0),
                                LLVMConstReal(to, 0.0),
                                c"sitofp_bool".as_ptr(),
                            );
                            LLVMReplaceAllUsesWith(inst, select);
                            LLVMInstructionEraseFromParent(inst);
                        }
                    }
                    inst = next;
                }
                bb = LLVMGetNextBasicBlock(bb);
            }
            f = LLVMGetNextFunction(f);
        }
        LLVMDisposeBuilder(builder);
    }
}

/// Where libdevice (`libdevice.10.bc`, NVIDIA's math library as LLVM bitcode) is looked for, in order:
/// `NUMBA_EXT_LIBDEVICE` (the file), `$CUDA_HOME` and `$CUDA_PATH`, `/usr/local/cuda`, the newest
/// `/usr/local/cuda-*`, `/opt/cuda`, and Debian's `nvidia-cuda-toolkit`. (numba_ext's Python side sets
/// `NUMBA_EXT_LIBDEVICE` when the `nvidia-nvvm` wheel is installed and the variable is unset.)
pub fn find_libdevice() -> Option<std::path::PathBuf> {
    libdevice_candidates().into_iter().find(|p| p.is_file())
}

fn libdevice_candidates() -> Vec<std::path::PathBuf> {
    use std::path::PathBuf;
    let mut out = Vec::new();
    if let Some(p) = std::env::var_os("NUMBA_EXT_LIBDEVICE") {
        out.push(PathBuf::from(p));
    }
    let mut roots: Vec<PathBuf> =
        ["CUDA_HOME", "CUDA_PATH"].iter().filter_map(std::env::var_os).map(PathBuf::from).collect();
    roots.push("/usr/local/cuda".into());
    if let Ok(dir) = std::fs::read_dir("/usr/local") {
        let mut versions: Vec<PathBuf> = dir
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("cuda-")))
            .collect();
        versions.sort();
        roots.extend(versions.into_iter().rev());
    }
    roots.push("/opt/cuda".into());
    out.extend(roots.into_iter().map(|r| r.join("nvvm/libdevice/libdevice.10.bc")));
    out.push("/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc".into());
    out
}

/// Let the NVPTX back end fuse multiplies and adds into FMAs (as CUDA compilers do by default,
/// `--fmad=true`): marks our float add/sub/mul instructions `contract` (libdevice keeps its own),
/// except those whose result is rounded to half (float16 results round after every operation, as
/// NumPy's do; the back end would otherwise fuse them into half-precision FMAs).
fn allow_contraction(module: &Module) {
    use inkwell::llvm_sys::core::{LLVMGetFastMathFlags, LLVMSetFastMathFlags};
    use inkwell::llvm_sys::LLVMFastMathAllowContract;
    use inkwell::values::{AsValueRef, InstructionOpcode};
    let mut f = module.get_first_function();
    while let Some(func) = f {
        for bb in func.get_basic_blocks() {
            let mut i = bb.get_first_instruction();
            while let Some(inst) = i {
                if matches!(
                    inst.get_opcode(),
                    InstructionOpcode::FAdd | InstructionOpcode::FSub | InstructionOpcode::FMul
                ) && !rounded_to_half(inst)
                {
                    unsafe {
                        let v = inst.as_value_ref();
                        LLVMSetFastMathFlags(v, LLVMGetFastMathFlags(v) | LLVMFastMathAllowContract);
                    }
                }
                i = inst.get_next_instruction();
            }
        }
        f = func.get_next_function();
    }
}

/// Whether a use of `inst` truncates it to `half`.
fn rounded_to_half(inst: inkwell::values::InstructionValue) -> bool {
    use inkwell::llvm_sys::core::{
        LLVMGetFirstUse, LLVMGetInstructionOpcode, LLVMGetNextUse, LLVMGetTypeKind, LLVMGetUser, LLVMIsAInstruction,
        LLVMTypeOf,
    };
    use inkwell::llvm_sys::{LLVMOpcode, LLVMTypeKind};
    use inkwell::values::AsValueRef;
    unsafe {
        let mut u = LLVMGetFirstUse(inst.as_value_ref());
        while !u.is_null() {
            let user = LLVMGetUser(u);
            if !LLVMIsAInstruction(user).is_null()
                && LLVMGetInstructionOpcode(user) == LLVMOpcode::LLVMFPTrunc
                && LLVMGetTypeKind(LLVMTypeOf(user)) == LLVMTypeKind::LLVMHalfTypeKind
            {
                return true;
            }
            u = LLVMGetNextUse(u);
        }
    }
    false
}

/// Link libdevice into `module` when it calls libdevice functions (`__nv_*`), and make every
/// non-kernel function internal so the optimiser keeps only what is used. libdevice's `__nvvm_reflect`
/// queries are answered by the NVPTX pipeline's NVVMReflect pass (flush-to-zero off).
fn link_libdevice(module: &Module, libdevice: Option<&std::path::Path>) -> Result<()> {
    let mut f = module.get_first_function();
    let mut needs = false;
    while let Some(func) = f {
        if func.count_basic_blocks() == 0 && func.get_name().to_bytes().starts_with(b"__nv_") {
            needs = true;
        }
        f = func.get_next_function();
    }
    if !needs {
        return Ok(());
    }
    let Some(path) = libdevice else {
        let tried: Vec<String> = libdevice_candidates().iter().map(|p| p.display().to_string()).collect();
        return Err(Error::Codegen(format!(
            "math functions on NVIDIA devices need libdevice (libdevice.10.bc), which was not found; looked in: {}. \
             Install the CUDA toolkit or the `nvidia-nvvm` wheel (pip install nvidia-nvvm), or set NUMBA_EXT_LIBDEVICE to the file",
            tried.join(", ")
        )));
    };
    let lib = Module::parse_bitcode_from_path(path, module.get_context())
        .map_err(|e| Error::Codegen(format!("reading libdevice {}: {e}", path.display())))?;
    lib.set_triple(&module.get_triple());
    lib.set_data_layout(&module.get_data_layout());
    module.link_in_module(lib).map_err(|e| Error::Codegen(format!("linking libdevice {}: {e}", path.display())))?;
    let i32t = module.get_context().i32_type();
    module.add_basic_value_flag("nvvm-reflect-ftz", inkwell::module::FlagBehavior::Override, i32t.const_zero());
    let mut f = module.get_first_function();
    while let Some(func) = f {
        let kernel = func.get_call_conventions() == super::intrinsics::CC_PTX_KERNEL;
        if func.count_basic_blocks() > 0 && !kernel {
            func.set_linkage(inkwell::module::Linkage::Internal);
        }
        f = func.get_next_function();
    }
    Ok(())
}
