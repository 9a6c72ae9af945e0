//! Atomic read-modify-write instructions of the control-flow form. Integer operations map to LLVM's
//! `atomicrmw` / `cmpxchg`; float add and subtract are one instruction on NVIDIA GPUs; every other
//! float operation (and integer multiply) is a compare-and-swap loop on the bits, which every device
//! supports. All are relaxed (`monotonic`), as OpenCL's and CUDA's plain atomics are.

use inkwell::types::IntType;
use inkwell::values::{AsValueRef, BasicValue, BasicValueEnum, IntValue, PointerValue};
use inkwell::{AtomicOrdering, AtomicRMWBinOp};

use super::builder::cg;
use super::cfg_lowering::Lowering;
use super::intrinsics::Flavor;
use crate::error::{Error, Result};
use crate::ir::cfg::{AtomicOp, Operand};
use crate::ir::{BinaryOp, DType};

const ORDER: AtomicOrdering = AtomicOrdering::Monotonic;

impl<'ctx> Lowering<'_, 'ctx> {
    /// `op` on `array[index]` with `value` (and `cmp` for compare-exchange); the old value.
    pub(super) fn atomic(
        &self,
        op: AtomicOp,
        array: usize,
        index: &[Operand],
        value: &Operand,
        cmp: Option<&Operand>,
    ) -> Result<BasicValueEnum<'ctx>> {
        let d = self.f.arrays[array].dtype;
        let p = self.address(array, index)?;
        let v = self.operand(value)?;
        if d.is_complex() {
            return self.complex_atomic(op, d, p, v);
        }
        if !d.is_float() && op != AtomicOp::Mul {
            return self.int_atomic(op, d, p, v.into_int_value(), cmp);
        }
        // NVIDIA GPUs (sm_60 and later) add floats atomically in hardware.
        if d.is_float() && self.kb.flavor == Flavor::Nvptx && matches!(op, AtomicOp::Add | AtomicOp::Sub) {
            return Ok(self.nvptx_float_add(op, p, v));
        }
        if op == AtomicOp::CompareExchange || op == AtomicOp::Exchange {
            return self.exchange_bits(op, d, p, v, cmp);
        }
        self.cas_loop(op, d, p, v)
    }

    /// Complex add or subtract: one float atomic per component (complex addition is componentwise,
    /// so concurrent updates still sum exactly). The old value is read per component, so it is not
    /// one snapshot of the element.
    fn complex_atomic(
        &self,
        op: AtomicOp,
        d: DType,
        p: PointerValue<'ctx>,
        v: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>> {
        if !matches!(op, AtomicOp::Add | AtomicOp::Sub) {
            return Err(Error::Unsupported(format!("atomic {op:?} of {} values is not supported", d.name())));
        }
        let b = &self.kb.b;
        let c = d.component();
        let mut old = Vec::new();
        for i in 0..2u32 {
            let part = cg(b.build_extract_value(v.into_struct_value(), i, "part"))?;
            let off = self.kb.ctx.i64_type().const_int((i as usize * c.size()) as u64, false);
            let pi = unsafe { cg(b.build_gep(self.kb.ctx.i8_type(), p, &[off], "cpart"))? };
            old.push(if self.kb.flavor == Flavor::Nvptx {
                self.nvptx_float_add(op, pi, part)
            } else {
                self.cas_loop(op, c, pi, part)?
            });
        }
        self.kb.make_complex(d, old[0].into_float_value(), old[1].into_float_value())
    }

    fn int_atomic(
        &self,
        op: AtomicOp,
        d: DType,
        p: PointerValue<'ctx>,
        iv: IntValue<'ctx>,
        cmp: Option<&Operand>,
    ) -> Result<BasicValueEnum<'ctx>> {
        let b = &self.kb.b;
        if op == AtomicOp::CompareExchange {
            let c = self.operand(cmp.expect("verified"))?.into_int_value();
            let r = cg(b.build_cmpxchg(p, c, iv, ORDER, ORDER))?;
            return cg(b.build_extract_value(r, 0, "old"));
        }
        let rmw = match (op, d.is_signed()) {
            (AtomicOp::Add, _) => AtomicRMWBinOp::Add,
            (AtomicOp::Sub, _) => AtomicRMWBinOp::Sub,
            (AtomicOp::Min, true) => AtomicRMWBinOp::Min,
            (AtomicOp::Max, true) => AtomicRMWBinOp::Max,
            (AtomicOp::Min, false) => AtomicRMWBinOp::UMin,
            (AtomicOp::Max, false) => AtomicRMWBinOp::UMax,
            (AtomicOp::Exchange, _) => AtomicRMWBinOp::Xchg,
            (AtomicOp::CompareExchange, _) | (AtomicOp::Mul, _) => unreachable!(),
        };
        Ok(cg(b.build_atomicrmw(rmw, p, iv, ORDER))?.into())
    }

    /// Float add or subtract as one `atomicrmw` (NVPTX).
    fn nvptx_float_add(&self, op: AtomicOp, p: PointerValue<'ctx>, v: BasicValueEnum<'ctx>) -> BasicValueEnum<'ctx> {
        // inkwell's build_atomicrmw takes integers only: build the float form through the C API.
        use inkwell::llvm_sys::core::LLVMBuildAtomicRMW;
        use inkwell::llvm_sys::LLVMAtomicRMWBinOp;
        let rmw = if op == AtomicOp::Add {
            LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpFAdd
        } else {
            LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpFSub
        };
        let b = &self.kb.b;
        let old =
            unsafe { LLVMBuildAtomicRMW(b.as_mut_ptr(), rmw, p.as_value_ref(), v.as_value_ref(), ORDER.into(), 0) };
        unsafe { inkwell::values::FloatValue::new(old) }.into()
    }

    /// The integer type of `d`'s bits.
    fn bits_type(&self, d: DType) -> IntType<'ctx> {
        let ctx = self.kb.ctx;
        match d.size() {
            1 => ctx.i8_type(),
            2 => ctx.i16_type(),
            4 => ctx.i32_type(),
            _ => ctx.i64_type(),
        }
    }

    fn to_bits(&self, x: BasicValueEnum<'ctx>, it: IntType<'ctx>) -> Result<IntValue<'ctx>> {
        cg(self.kb.b.build_bit_cast(x, it, "bits")).map(|v| v.into_int_value())
    }

    /// Float exchange and compare-exchange, on the bits.
    fn exchange_bits(
        &self,
        op: AtomicOp,
        d: DType,
        p: PointerValue<'ctx>,
        v: BasicValueEnum<'ctx>,
        cmp: Option<&Operand>,
    ) -> Result<BasicValueEnum<'ctx>> {
        let b = &self.kb.b;
        let it = self.bits_type(d);
        let new = self.to_bits(v, it)?;
        let old = if op == AtomicOp::Exchange {
            cg(b.build_atomicrmw(AtomicRMWBinOp::Xchg, p, new, ORDER))?
        } else {
            let c = self.to_bits(self.operand(cmp.expect("verified"))?, it)?;
            let r = cg(b.build_cmpxchg(p, c, new, ORDER, ORDER))?;
            cg(b.build_extract_value(r, 0, "old"))?.into_int_value()
        };
        cg(b.build_bit_cast(old, self.kb.reg_ty(d), "oldf"))
    }

    /// `op` (add, multiply, subtract, min, max) as a compare-and-swap loop on the bits.
    fn cas_loop(
        &self,
        op: AtomicOp,
        d: DType,
        p: PointerValue<'ctx>,
        v: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>> {
        let (kb, b) = (self.kb, &self.kb.b);
        let (it, ft) = (self.bits_type(d), kb.reg_ty(d));
        let func =
            b.get_insert_block().and_then(|bb| bb.get_parent()).ok_or_else(|| Error::Codegen("no function".into()))?;
        let pre = b.get_insert_block().unwrap();
        let lp = kb.ctx.append_basic_block(func, "cas");
        let done = kb.ctx.append_basic_block(func, "cas_done");
        let ld = cg(b.build_load(it, p, "cur"))?;
        if let Some(i) = ld.as_instruction_value() {
            let _ = i.set_atomic_ordering(ORDER);
            let _ = i.set_alignment(d.size() as u32);
        }
        cg(b.build_unconditional_branch(lp))?;
        b.position_at_end(lp);
        let phi = cg(b.build_phi(it, "expected"))?;
        phi.add_incoming(&[(&ld.into_int_value(), pre)]);
        let expected = phi.as_basic_value().into_int_value();
        let cur_f = if d.is_float() { cg(b.build_bit_cast(expected, ft, "curf"))? } else { expected.into() };
        let bop = match op {
            AtomicOp::Add => BinaryOp::Add,
            AtomicOp::Mul => BinaryOp::Mul,
            AtomicOp::Sub => BinaryOp::Sub,
            AtomicOp::Min => BinaryOp::Min,
            AtomicOp::Max => BinaryOp::Max,
            _ => unreachable!(),
        };
        let new_f = kb.binary(bop, cur_f, v, d)?;
        let new = if d.is_float() { self.to_bits(new_f, it)? } else { new_f.into_int_value() };
        let r = cg(b.build_cmpxchg(p, expected, new, ORDER, ORDER))?;
        let seen = cg(b.build_extract_value(r, 0, "seen"))?.into_int_value();
        let ok = cg(b.build_extract_value(r, 1, "ok"))?.into_int_value();
        let here = b.get_insert_block().unwrap();
        phi.add_incoming(&[(&seen, here)]);
        cg(b.build_conditional_branch(ok, done, lp))?;
        b.position_at_end(done);
        if d.is_float() {
            cg(b.build_bit_cast(expected, ft, "oldf"))
        } else {
            Ok(expected.into())
        }
    }
}
