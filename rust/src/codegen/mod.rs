//! Code generation: the optimised dataflow graph is lowered to LLVM IR by [`builder::KernelBuilder`]
//! (inkwell) and emitted as SPIR-V (devices that take IL) or PTX (NVIDIA) by [`emit`].
//!
//! Kernel ABI (shared by both targets and by the launcher):
//! * array parameter: `ptr addrspace(1) base, i64 byte_offset`, then, unless it is contiguous with the
//!   iteration shape, one `i64` byte stride per iteration dimension (0 for broadcast dimensions);
//! * scalar parameter: its value (bool as `i8`; a complex value as two arguments, its real and
//!   imaginary parts);
//! * then the iteration shape (`i64` per dimension) and the element count `n` (`i64`).
//!
//! One work-item per element; work-items with a global id `>= n` do nothing.

mod atomics;
mod bounds;
mod builder;
mod cfg_lowering;
mod complex;
pub mod emit;
pub mod host;
pub mod intrinsics;
mod ops;

use crate::error::{Error, Result};
use crate::ir::cfg::{KParam, Operand};
use crate::ir::{passes, DType, Function, Graph, KernelSpec, ParamKind};
use crate::target::{DeviceTarget, Target};
pub use intrinsics::Flavor;

/// How the launcher fills one host-side slot (one `u64` each) into kernel arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgSlot {
    /// A data address: becomes the (base, byte offset) pair of the memory back end.
    Mem,
    /// A 64-bit integer (strides, shape, `n`).
    I64,
    /// A scalar of this dtype, passed by value (its bits in the low bytes of the slot).
    Scalar(DType),
}

impl ArgSlot {
    /// Size in bytes of the kernel argument (for `Mem`, of the offset that follows the pointer).
    pub fn scalar_size(self) -> usize {
        match self {
            ArgSlot::Mem | ArgSlot::I64 => 8,
            ArgSlot::Scalar(d) => d.size(),
        }
    }
}

/// The slot layout of a kernel (see the module docs).
pub fn arg_slots(g: &Graph) -> Vec<ArgSlot> {
    let mut slots = Vec::new();
    for p in &g.params {
        match p.kind {
            ParamKind::Array { contiguous, .. } => {
                slots.push(ArgSlot::Mem);
                if !contiguous {
                    slots.extend(std::iter::repeat_n(ArgSlot::I64, g.ndim));
                }
            }
            // a complex scalar travels as its real and imaginary parts
            ParamKind::Scalar { dtype } if dtype.is_complex() => {
                slots.extend(std::iter::repeat_n(ArgSlot::Scalar(dtype.component()), 2))
            }
            ParamKind::Scalar { dtype } => slots.push(ArgSlot::Scalar(dtype)),
        }
    }
    slots.extend(std::iter::repeat_n(ArgSlot::I64, g.ndim + 1));
    slots
}

/// The slot layout of a control-flow kernel (see `cfg_lowering.rs`): arrays as a data address
/// followed by shape and byte strides, scalars by value. No element count: the ND-range is explicit.
pub fn function_slots(f: &Function) -> Vec<ArgSlot> {
    let mut slots = Vec::new();
    for p in &f.params {
        match p {
            KParam::Array(a) => {
                slots.push(ArgSlot::Mem);
                slots.extend(std::iter::repeat_n(ArgSlot::I64, 2 * f.arrays[*a].ndim));
            }
            KParam::Scalar { local } => slots.push(ArgSlot::Scalar(f.locals[*local])),
        }
    }
    slots
}

/// Device code ready to load.
#[derive(Clone, Debug)]
pub struct Binary {
    pub kernel_name: String,
    pub flavor: Flavor,
    /// SPIR-V module or PTX text.
    pub bytes: Vec<u8>,
    /// The LLVM IR the binary was emitted from (after optimisation).
    pub llvm_ir: String,
    pub slots: Vec<ArgSlot>,
    /// Nodes in the optimised graph (for tests and debugging).
    pub graph_nodes: usize,
    /// The kernel computes an integer min/max or select (a pattern one OpenCL CPU driver
    /// miscompiles when it optimises; the runtime builds such SPIR-V kernels without its optimiser).
    pub int_minmax: bool,
}

/// What compiling for one device needs: the device's [`DeviceTarget`], and for PTX targets the
/// libdevice file (see [`emit::find_libdevice`]; needed only by kernels using math).
#[derive(Clone, Debug)]
pub struct DeviceCaps {
    pub device: DeviceTarget,
    pub libdevice: Option<std::path::PathBuf>,
}

impl DeviceCaps {
    /// Capabilities of a device of `target`: libdevice is looked up for PTX targets.
    pub fn new(target: Target, has_fp64: bool, name: String) -> Self {
        DeviceCaps::for_device(DeviceTarget::new(target, has_fp64, name))
    }

    /// Capabilities of `device`: libdevice is looked up for PTX targets.
    pub fn for_device(device: DeviceTarget) -> Self {
        let libdevice = matches!(device.target, Target::Ptx(_)).then(emit::find_libdevice).flatten();
        DeviceCaps { device, libdevice }
    }
}

fn target_of(name: &str, uses_f64: bool, uses_f16: bool, caps: &DeviceCaps) -> Result<(Flavor, String)> {
    let device = &caps.device;
    if uses_f16 && !device.has_fp16 {
        return Err(Error::Unsupported(format!(
            "kernel '{name}' uses float16, but device '{}' does not report half precision (cl_khr_fp16, \
             Device.has_aspect_fp16); use float32 data",
            device.name
        )));
    }
    if uses_f64 && !device.has_fp64 {
        return Err(Error::Unsupported(format!(
            "kernel '{name}' uses float64 or complex128, but device '{}' has no fp64 support; use float32 or \
             complex64 data",
            device.name
        )));
    }
    Ok(match &device.target {
        Target::SpirV => (Flavor::Spirv, String::new()),
        Target::Ptx(sm) => (Flavor::Nvptx, sm.clone()),
        Target::None => {
            return Err(Error::Unsupported(format!(
                "device '{}' takes neither SPIR-V nor PTX; numba_ext cannot build programs for it",
                device.name
            )))
        }
    })
}

/// Complex scalars are not arguments of control-flow kernels (explicit kernels and `prange` bodies
/// take scalars through the launch fast path, one slot each); elementwise kernels take them.
fn check_scalar_dtype(kernel: &str, d: DType) -> Result<()> {
    if d.is_complex() {
        return Err(Error::Unsupported(format!(
            "kernel '{kernel}' takes a {} scalar argument, which kernels and prange loops cannot take yet; \
             pass it as a one-element array, or its real and imaginary parts as two float arguments",
            d.name()
        )));
    }
    Ok(())
}

/// Verify, optimise, lower and emit one kernel for a device.
pub fn compile(spec: &KernelSpec, caps: &DeviceCaps) -> Result<Binary> {
    let (flavor, cpu) = target_of(&spec.name, spec.uses_f64(), spec.uses_f16(), caps)?;
    let graph = passes::optimize(&Graph::from_spec(spec)?)?;
    let _llvm = emit::CODEGEN_LOCK.lock().unwrap_or_else(|p| p.into_inner());
    let ctx = inkwell::context::Context::create();
    let module = builder::KernelBuilder::new(&ctx, flavor).build(&graph)?;
    let (bytes, llvm_ir) = emit::emit(&module, flavor, &cpu, caps.libdevice.as_deref())?;
    let int_minmax = graph.g.node_weights().any(|n| {
        matches!(
            n.op,
            crate::ir::Op::Binary { op: crate::ir::BinaryOp::Min | crate::ir::BinaryOp::Max, .. }
                | crate::ir::Op::Select { .. }
        ) && n.dtype.is_int()
    });
    Ok(Binary {
        kernel_name: graph.name.clone(),
        flavor,
        bytes,
        llvm_ir,
        slots: arg_slots(&graph),
        graph_nodes: graph.node_count(),
        int_minmax,
    })
}

/// Verify, lower and emit a control-flow kernel for a device.
pub fn compile_function(f: &Function, caps: &DeviceCaps) -> Result<Binary> {
    for p in &f.params {
        if let KParam::Scalar { local } = p {
            check_scalar_dtype(&f.name, f.locals[*local])?;
        }
    }
    let (flavor, cpu) = target_of(&f.name, f.uses_f64(), f.uses_f16(), caps)?;
    f.verify()?;
    let _llvm = emit::CODEGEN_LOCK.lock().unwrap_or_else(|p| p.into_inner());
    let ctx = inkwell::context::Context::create();
    let module = builder::KernelBuilder::new(&ctx, flavor).build_function(f)?;
    let (bytes, llvm_ir) = emit::emit(&module, flavor, &cpu, caps.libdevice.as_deref())?;
    use crate::ir::cfg::{AtomicOp, Inst};
    // a negative-index wrap is an integer select too, unless the index is provably non-negative;
    // bounds checks of multi-dimensional arrays select the record's fields
    let nonneg = crate::ir::nonneg::nonneg_locals(f);
    let int_minmax = (f.bounds.is_some() && f.arrays.iter().any(|a| a.ndim > 1))
        || f.blocks.iter().flat_map(|b| &b.insts).any(|i| match i {
            Inst::Binary { dst, op: crate::ir::BinaryOp::Min | crate::ir::BinaryOp::Max, .. }
            | Inst::Select { dst, .. } => f.locals[*dst].is_int(),
            Inst::Atomic { op: AtomicOp::Min | AtomicOp::Max, array, .. } => !f.arrays[*array].dtype.is_float(),
            Inst::Wrap { index: Operand::Local(l), .. } => !nonneg[*l],
            Inst::ViewIndex { .. } => f.bounds.is_some(),
            _ => false,
        });
    Ok(Binary {
        kernel_name: f.name.clone(),
        flavor,
        bytes,
        llvm_ir,
        slots: function_slots(f),
        graph_nodes: f.blocks.len(),
        int_minmax,
    })
}

/// Lower a control-flow kernel to LLVM IR text without emitting device code (for tests).
pub fn function_llvm_ir(f: &Function, flavor: Flavor) -> Result<String> {
    f.verify()?;
    let _llvm = emit::CODEGEN_LOCK.lock().unwrap_or_else(|p| p.into_inner());
    let ctx = inkwell::context::Context::create();
    let module = builder::KernelBuilder::new(&ctx, flavor).build_function(f)?;
    Ok(module.print_to_string().to_string())
}

/// Lower to LLVM IR text without emitting device code (for tests and `inspect_llvm`).
pub fn llvm_ir(spec: &KernelSpec, flavor: Flavor) -> Result<String> {
    let graph = passes::optimize(&Graph::from_spec(spec)?)?;
    let _llvm = emit::CODEGEN_LOCK.lock().unwrap_or_else(|p| p.into_inner());
    let ctx = inkwell::context::Context::create();
    let module = builder::KernelBuilder::new(&ctx, flavor).build(&graph)?;
    Ok(module.print_to_string().to_string())
}
