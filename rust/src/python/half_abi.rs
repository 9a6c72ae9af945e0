//! The half-precision conversions LLVM's x86 back end calls in Numba-compiled host code (compiler-rt
//! names `__truncdfhf2`, `__truncsfhf2`, `__extendhfsf2`, `__extendhfdf2`): without them a float16
//! conversion that the CPU has no instruction for (double to half always; float to half and back
//! without F16C) jumps to an unresolved symbol. Handed to llvmlite with the C ABI entry points.
//!
//! ABI: a `half` argument or result travels in the low 16 bits of a floating-point register (the
//! x86-64 and AArch64 conventions for `_Float16`); these functions pass it as an `f32` whose bits
//! are the half's, which occupies the same register.

use crate::ir::{f16_bits as half_bits, f16_value as half_value};

fn as_reg(h: u16) -> f32 {
    f32::from_bits(h as u32)
}

fn from_reg(r: f32) -> u16 {
    (r.to_bits() & 0xffff) as u16
}

pub extern "C" fn nx_truncdfhf2(x: f64) -> f32 {
    as_reg(half_bits(x))
}

pub extern "C" fn nx_truncsfhf2(x: f32) -> f32 {
    as_reg(half_bits(x as f64))
}

pub extern "C" fn nx_extendhfsf2(h: f32) -> f32 {
    half_value(from_reg(h)) as f32
}

pub extern "C" fn nx_extendhfdf2(h: f32) -> f64 {
    half_value(from_reg(h))
}

/// (compiler-rt name, address) of each conversion.
pub fn addresses() -> [(&'static str, usize); 4] {
    [
        ("__truncdfhf2", nx_truncdfhf2 as *const () as usize),
        ("__truncsfhf2", nx_truncsfhf2 as *const () as usize),
        ("__extendhfsf2", nx_extendhfsf2 as *const () as usize),
        ("__extendhfdf2", nx_extendhfdf2 as *const () as usize),
    ]
}
