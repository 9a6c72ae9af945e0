//! Code generation: the optimised dataflow graph is lowered to LLVM IR by [`builder::KernelBuilder`]
//! (inkwell) and emitted as SPIR-V (devices that take IL) or PTX (NVIDIA) by [`emit`].
//!
//! Kernel ABI (shared by both targets and by the launcher):
//! * array parameter: `ptr addrspace(1) base, i64 byte_offset`, then, unless it is contiguous with the
//!   iteration shape, one `i64` byte stride per iteration dimension (0 for broadcast dimensions);
//! * scalar parameter: its value (bool as `i8`);
//! * then the iteration shape (`i64` per dimension) and the element count `n` (`i64`).
//!
//! One work-item per element; work-items with a global id `>= n` do nothing.

mod builder;
pub mod emit;
pub mod intrinsics;

use crate::error::{Error, Result};
use crate::ir::{passes, DType, Graph, KernelSpec, ParamKind};
use crate::runtime::Target;
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
            ParamKind::Scalar { dtype } => slots.push(ArgSlot::Scalar(dtype)),
        }
    }
    slots.extend(std::iter::repeat_n(ArgSlot::I64, g.ndim + 1));
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
}

/// Options that depend on the device.
#[derive(Clone, Debug)]
pub struct DeviceCaps {
    pub target: Target,
    pub has_fp64: bool,
    pub name: String,
}

/// Verify, optimise, lower and emit one kernel for a device.
pub fn compile(spec: &KernelSpec, caps: &DeviceCaps) -> Result<Binary> {
    if spec.uses_f64() && !caps.has_fp64 {
        return Err(Error::Unsupported(format!(
            "kernel '{}' uses float64, but device '{}' has no fp64 support; use float32 data",
            spec.name, caps.name
        )));
    }
    let (flavor, cpu) = match &caps.target {
        Target::SpirV => (Flavor::Spirv, String::new()),
        Target::Ptx(sm) => (Flavor::Nvptx, sm.clone()),
        Target::None => {
            return Err(Error::Unsupported(format!(
                "device '{}' takes neither SPIR-V nor PTX; numba_ext cannot build programs for it",
                caps.name
            )))
        }
    };
    let graph = passes::optimize(&Graph::from_spec(spec)?)?;
    let ctx = inkwell::context::Context::create();
    let module = builder::KernelBuilder::new(&ctx, flavor).build(&graph)?;
    let (bytes, llvm_ir) = emit::emit(&module, flavor, &cpu)?;
    Ok(Binary { kernel_name: graph.name.clone(), flavor, bytes, llvm_ir, slots: arg_slots(&graph), graph_nodes: graph.node_count() })
}

/// Lower to LLVM IR text without emitting device code (for tests and `inspect_llvm`).
pub fn llvm_ir(spec: &KernelSpec, flavor: Flavor) -> Result<String> {
    let graph = passes::optimize(&Graph::from_spec(spec)?)?;
    let ctx = inkwell::context::Context::create();
    let module = builder::KernelBuilder::new(&ctx, flavor).build(&graph)?;
    Ok(module.print_to_string().to_string())
}
