//! The per-target tables: how each target spells work-item ids and math functions. The builder is
//! one code base; everything that differs between SPIR-V and NVPTX is answered here.

use crate::ir::{BinaryOp, DType, UnaryOp};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// SPIR-V for OpenCL: builtins are `spir_func` declarations with Itanium-mangled OpenCL names.
    Spirv,
    /// NVPTX: special registers through `llvm.nvvm.read.ptx.sreg.*`, math through libdevice.
    Nvptx,
}

/// LLVM calling convention ids.
pub const CC_SPIR_FUNC: u32 = 75;
pub const CC_SPIR_KERNEL: u32 = 76;
pub const CC_PTX_KERNEL: u32 = 71;

impl Flavor {
    pub fn triple(self) -> &'static str {
        match self {
            Flavor::Spirv => "spirv64-unknown-unknown",
            Flavor::Nvptx => "nvptx64-nvidia-cuda",
        }
    }
    pub fn kernel_cc(self) -> u32 {
        match self {
            Flavor::Spirv => CC_SPIR_KERNEL,
            Flavor::Nvptx => CC_PTX_KERNEL,
        }
    }
    /// Calling convention for calls to the target's builtin functions.
    pub fn builtin_cc(self) -> u32 {
        match self {
            Flavor::Spirv => CC_SPIR_FUNC,
            Flavor::Nvptx => 0,
        }
    }
}

/// OpenCL C name and libdevice base name of a float math function.
fn unary_names(op: UnaryOp) -> Option<(&'static str, &'static str)> {
    use UnaryOp::*;
    Some(match op {
        Sqrt => ("sqrt", "sqrt"),
        Exp => ("exp", "exp"),
        Expm1 => ("expm1", "expm1"),
        Log => ("log", "log"),
        Log1p => ("log1p", "log1p"),
        Log2 => ("log2", "log2"),
        Log10 => ("log10", "log10"),
        Sin => ("sin", "sin"),
        Cos => ("cos", "cos"),
        Tan => ("tan", "tan"),
        Asin => ("asin", "asin"),
        Acos => ("acos", "acos"),
        Atan => ("atan", "atan"),
        Sinh => ("sinh", "sinh"),
        Cosh => ("cosh", "cosh"),
        Tanh => ("tanh", "tanh"),
        Floor => ("floor", "floor"),
        Ceil => ("ceil", "ceil"),
        Trunc => ("trunc", "trunc"),
        Erf => ("erf", "erf"),
        Erfc => ("erfc", "erfc"),
        Abs => ("fabs", "fabs"),
        Asinh => ("asinh", "asinh"),
        Acosh => ("acosh", "acosh"),
        Atanh => ("atanh", "atanh"),
        Exp2 => ("exp2", "exp2"),
        Cbrt => ("cbrt", "cbrt"),
        Rint => ("rint", "rint"),
        Neg | Not | Real | Imag | Conj => return None,
    })
}

fn binary_names(op: BinaryOp) -> Option<(&'static str, &'static str)> {
    Some(match op {
        BinaryOp::Pow => ("pow", "pow"),
        BinaryOp::Atan2 => ("atan2", "atan2"),
        BinaryOp::Hypot => ("hypot", "hypot"),
        BinaryOp::Rem | BinaryOp::Fmod => ("fmod", "fmod"),
        BinaryOp::Copysign => ("copysign", "copysign"),
        BinaryOp::Nextafter => ("nextafter", "nextafter"),
        _ => return None,
    })
}

fn mangle(flavor: Flavor, base: (&str, &str), dtype: DType, arity: usize) -> String {
    match flavor {
        Flavor::Spirv => {
            let code = if dtype == DType::F32 { "f" } else { "d" };
            format!("_Z{}{}{}", base.0.len(), base.0, code.repeat(arity))
        }
        Flavor::Nvptx => {
            let suffix = if dtype == DType::F32 { "f" } else { "" };
            format!("__nv_{}{}", base.1, suffix)
        }
    }
}

/// The function implementing a float unary math op on this target.
pub fn unary_math(flavor: Flavor, op: UnaryOp, dtype: DType) -> Option<String> {
    unary_names(op).map(|n| mangle(flavor, n, dtype, 1))
}

/// The function implementing a float binary math op on this target.
pub fn binary_math(flavor: Flavor, op: BinaryOp, dtype: DType) -> Option<String> {
    binary_names(op).map(|n| mangle(flavor, n, dtype, 2))
}

/// Whether tanh is computed from expm1 (`KernelBuilder::tanh_by_expm1`) instead of the target's
/// tanh. On SPIR-V: the Intel OpenCL CPU runtime's float64 tanh took 8.6 ms for 2^22 elements where
/// expm1 took 3.3 ms and the expansion 3.8 ms (on a 2-core EPYC); Black-Scholes has two.
/// libdevice's tanh (NVPTX) is already fast.
pub fn tanh_by_expm1(flavor: Flavor) -> bool {
    flavor == Flavor::Spirv
}

/// The target's `copysign(x, y)` for a float dtype.
pub fn copysign(flavor: Flavor, dtype: DType) -> String {
    mangle(flavor, ("copysign", "copysign"), dtype, 2)
}

/// The target's `ldexp(x, n)` for a float dtype (`n` a 32-bit int).
pub fn ldexp(flavor: Flavor, dtype: DType) -> String {
    match flavor {
        Flavor::Spirv => format!("_Z5ldexp{}i", if dtype == DType::F32 { "f" } else { "d" }),
        Flavor::Nvptx => format!("__nv_ldexp{}", if dtype == DType::F32 { "f" } else { "" }),
    }
}

/// SPIR-V work-item query builtins (`size_t f(uint)`).
pub fn spirv_id_builtin(name: &str) -> String {
    format!("_Z{}{}j", name.len(), name)
}
