//! Atomic operations and fences of the control-flow form. Integer read-modify-writes map to LLVM's
//! `atomicrmw` / `cmpxchg`; float add and subtract are one instruction on NVIDIA GPUs; every other
//! float operation (and integer multiply) is a compare-and-swap loop on the bits, which every device
//! supports. Atomic loads and stores of floats move their bits.
//!
//! Each operation carries its memory order and scope. Orders are LLVM's orderings: relaxed =
//! `monotonic`, `acquire`, `release`, acq_rel = `acq_rel`, seq_cst = `seq_cst`; the read half of an
//! operation (a compare-exchange's failure order, a compare-and-swap loop's first load) drops
//! release. Scopes are LLVM sync scopes:
//!
//! | scope      | SPIR-V                                   | NVPTX                          |
//! |------------|------------------------------------------|--------------------------------|
//! | work_item  | `singlethread` (Invocation)              | `block` (`.cta`)               |
//! | sub_group  | `subgroup` (Subgroup)                    | `block` (`.cta`)               |
//! | work_group | `workgroup` (Workgroup)                  | `block` (`.cta`)               |
//! | device     | `device` (Device)                        | `device` (`.gpu`)              |
//! | system     | the default scope (CrossDevice)          | the default scope (`.sys`)     |
//!
//! PTX has no scope narrower than a thread block (CTA), and LLVM's NVPTX back end aborts on
//! `singlethread` atomics and on ordered `singlethread` fences, so the three narrow scopes widen to
//! `block` there.
//!
//! Where LLVM 22's back ends fall short, the lowering differs from plain LLVM atomics:
//! * SPIR-V turns `load atomic` / `store atomic` into plain loads and stores, so atomic loads and
//!   stores are `__spirv_AtomicLoad` / `__spirv_AtomicStore` calls (OpAtomicLoad / OpAtomicStore);
//!   and an LLVM `fence` becomes an OpMemoryBarrier whose semantics name no memory class (which
//!   SPIR-V's memory model lets order nothing), so fences are `__spirv_MemoryBarrier` calls naming
//!   work-group and cross-work-group memory, as DPC++ emits them.
//! * NVPTX ignores the ordering and scope of `atomicrmw` (it always emits a relaxed `atom`, which is
//!   `.gpu`-scoped), and aborts on ordered loads, stores and `cmpxchg` for sm_60 and older. So an
//!   ordered operation there is a relaxed one (of its scope) between fences of its scope, PTX's own
//!   release and acquire patterns, which every compute capability has (`fence.acq_rel` / `fence.sc`
//!   from sm_70, `membar` before): a release fence before it when it releases (a seq_cst fence for
//!   seq_cst), an acquire fence after it when it acquires (not after a store). A compare-and-swap
//!   loop is fenced once, outside the loop. A system-scope `atomicrmw` is thus atomic at device
//!   scope on NVIDIA GPUs (its fences, loads, stores and compare-exchanges are system-wide).

use inkwell::llvm_sys::core::{
    LLVMBuildAtomicCmpXchgSyncScope, LLVMBuildAtomicRMWSyncScope, LLVMBuildFenceSyncScope, LLVMGetSyncScopeID,
    LLVMSetAtomicSyncScopeID,
};
use inkwell::llvm_sys::LLVMAtomicRMWBinOp as Rmw;
use inkwell::types::{BasicMetadataTypeEnum, BasicType, IntType};
use inkwell::values::{
    AsValueRef, BasicMetadataValueEnum, BasicValue, BasicValueEnum, IntValue, PointerValue, StructValue,
};
use inkwell::{AddressSpace, AtomicOrdering};

use super::builder::cg;
use super::cfg_lowering::Lowering;
use super::intrinsics::Flavor;
use crate::error::{Error, Result};
use crate::ir::cfg::{AtomicOp, MemOrder, MemScope, Operand};
use crate::ir::{BinaryOp, DType};
use crate::target::address_space;

/// The memory order and scope of one atomic operation.
#[derive(Clone, Copy, Debug)]
pub(super) struct Sync {
    pub order: MemOrder,
    pub scope: MemScope,
}

impl Sync {
    /// The same scope with order `order`.
    fn with(self, order: MemOrder) -> Sync {
        Sync { order, scope: self.scope }
    }
}

fn ordering(o: MemOrder) -> AtomicOrdering {
    match o {
        MemOrder::Relaxed => AtomicOrdering::Monotonic,
        MemOrder::Acquire => AtomicOrdering::Acquire,
        MemOrder::Release => AtomicOrdering::Release,
        MemOrder::AcqRel => AtomicOrdering::AcquireRelease,
        MemOrder::SeqCst => AtomicOrdering::SequentiallyConsistent,
    }
}

/// SPIR-V memory semantics of `o`: its order bit and, when ordered, the memory classes the order
/// applies to (work-group 0x100 and cross-work-group 0x200 memory).
fn spirv_semantics(o: MemOrder) -> u64 {
    let order = match o {
        MemOrder::Relaxed => return 0,
        MemOrder::Acquire => 0x2,
        MemOrder::Release => 0x4,
        MemOrder::AcqRel => 0x8,
        MemOrder::SeqCst => 0x10,
    };
    order | 0x100 | 0x200
}

/// SPIR-V's Scope operand of `s`.
fn spirv_scope(s: MemScope) -> u64 {
    match s {
        MemScope::System => 0,
        MemScope::Device => 1,
        MemScope::WorkGroup => 2,
        MemScope::SubGroup => 3,
        MemScope::WorkItem => 4,
    }
}

impl<'ctx> Lowering<'_, 'ctx> {
    /// `op` on `array[index]` with `value` (and `cmp` for compare-exchange): the old value (the
    /// value read for a load; none for a store).
    pub(super) fn atomic(
        &self,
        op: AtomicOp,
        array: usize,
        index: &[Operand],
        value: &Operand,
        cmp: Option<&Operand>,
        s: Sync,
    ) -> Result<Option<BasicValueEnum<'ctx>>> {
        if self.kb.flavor == Flavor::Nvptx && s.order != MemOrder::Relaxed {
            // the fences around a relaxed operation (see the module documentation)
            if s.order.releases() {
                self.fence(if s.order == MemOrder::SeqCst { MemOrder::SeqCst } else { MemOrder::Release }, s.scope)?;
            }
            let old = self.atomic(op, array, index, value, cmp, s.with(MemOrder::Relaxed))?;
            if s.order.acquires() && op != AtomicOp::Store {
                self.fence(MemOrder::Acquire, s.scope)?;
            }
            return Ok(old);
        }
        let d = self.f.arrays[array].dtype;
        let p = self.address(array, index)?;
        if op == AtomicOp::Load {
            return self.atomic_load(d, p, s).map(Some);
        }
        let v = self.operand(value)?;
        if op == AtomicOp::Store {
            return self.atomic_store(d, p, v, s).map(|_| None);
        }
        if d.is_complex() {
            return self.complex_atomic(op, d, p, v, s).map(Some);
        }
        if !d.is_float() && op != AtomicOp::Mul {
            return self.int_atomic(op, d, p, v.into_int_value(), cmp, s).map(Some);
        }
        // NVIDIA GPUs (sm_60 and later) add floats atomically in hardware.
        if d.is_float() && self.kb.flavor == Flavor::Nvptx && matches!(op, AtomicOp::Add | AtomicOp::Sub) {
            let rmw = if op == AtomicOp::Add { Rmw::LLVMAtomicRMWBinOpFAdd } else { Rmw::LLVMAtomicRMWBinOpFSub };
            return self.rmw(rmw, p, v, s).map(Some);
        }
        if op == AtomicOp::CompareExchange || op == AtomicOp::Exchange {
            return self.exchange_bits(op, d, p, v, cmp, s).map(Some);
        }
        self.cas_loop(op, d, p, v, s).map(Some)
    }

    /// A fence of `order` and `scope` (none for relaxed: LLVM has no relaxed fence).
    pub(super) fn fence(&self, order: MemOrder, scope: MemScope) -> Result<()> {
        if order == MemOrder::Relaxed {
            return Ok(());
        }
        match self.kb.flavor {
            Flavor::Spirv => {
                let i32t = self.kb.ctx.i32_type();
                let args = [i32t.const_int(spirv_scope(scope), false), i32t.const_int(spirv_semantics(order), false)];
                self.spirv_void_call("_Z21__spirv_MemoryBarrierjj", &[args[0].into(), args[1].into()])
            }
            Flavor::Nvptx => {
                let b = self.kb.b.as_mut_ptr();
                unsafe { LLVMBuildFenceSyncScope(b, ordering(order).into(), self.sync_scope(scope), c"".as_ptr()) };
                Ok(())
            }
        }
    }

    /// The LLVM sync scope id of `s` on this flavour (see the module documentation).
    fn sync_scope(&self, s: MemScope) -> u32 {
        let name = match (self.kb.flavor, s) {
            (Flavor::Spirv, MemScope::WorkItem) => "singlethread",
            (Flavor::Spirv, MemScope::SubGroup) => "subgroup",
            (Flavor::Spirv, MemScope::WorkGroup) => "workgroup",
            // PTX's narrowest scope is the thread block (and NVPTX rejects "singlethread")
            (Flavor::Nvptx, MemScope::WorkItem | MemScope::SubGroup | MemScope::WorkGroup) => "block",
            (_, MemScope::Device) => "device",
            (_, MemScope::System) => "",
        };
        unsafe { LLVMGetSyncScopeID(self.kb.ctx.raw(), name.as_ptr().cast(), name.len()) }
    }

    /// `atomicrmw` of `rmw` (integer or float `v`) with order and scope `s`: the old value.
    fn rmw(&self, rmw: Rmw, p: PointerValue<'ctx>, v: BasicValueEnum<'ctx>, s: Sync) -> Result<BasicValueEnum<'ctx>> {
        let b = self.kb.b.as_mut_ptr();
        let old = unsafe {
            LLVMBuildAtomicRMWSyncScope(
                b,
                rmw,
                p.as_value_ref(),
                v.as_value_ref(),
                ordering(s.order).into(),
                self.sync_scope(s.scope),
            )
        };
        Ok(unsafe { BasicValueEnum::new(old) })
    }

    /// `cmpxchg` with order `s` (failure order: its read half): the old value and whether it
    /// matched `expected`.
    fn cmpxchg(
        &self,
        p: PointerValue<'ctx>,
        expected: IntValue<'ctx>,
        new: IntValue<'ctx>,
        s: Sync,
    ) -> Result<(IntValue<'ctx>, IntValue<'ctx>)> {
        let b = &self.kb.b;
        let r = unsafe {
            StructValue::new(LLVMBuildAtomicCmpXchgSyncScope(
                b.as_mut_ptr(),
                p.as_value_ref(),
                expected.as_value_ref(),
                new.as_value_ref(),
                ordering(s.order).into(),
                ordering(s.order.read_half()).into(),
                self.sync_scope(s.scope),
            ))
        };
        let old = cg(b.build_extract_value(r, 0, "old"))?.into_int_value();
        let ok = cg(b.build_extract_value(r, 1, "ok"))?.into_int_value();
        Ok((old, ok))
    }

    /// A call of the SPIR-V builtin `name` that returns nothing.
    fn spirv_void_call(&self, name: &str, args: &[BasicMetadataValueEnum<'ctx>]) -> Result<()> {
        let kb = self.kb;
        let f = kb.module.get_function(name).unwrap_or_else(|| {
            let tys: Vec<BasicMetadataTypeEnum> = args
                .iter()
                .map(|a| match a {
                    BasicMetadataValueEnum::PointerValue(p) => p.get_type().into(),
                    BasicMetadataValueEnum::IntValue(i) => i.get_type().into(),
                    other => panic!("unexpected builtin argument {other:?}"),
                })
                .collect();
            let f = kb.module.add_function(name, kb.ctx.void_type().fn_type(&tys, false), None);
            f.set_call_conventions(kb.flavor.builtin_cc());
            f
        });
        let c = cg(kb.b.build_call(f, args, ""))?;
        c.set_call_convention(kb.flavor.builtin_cc());
        Ok(())
    }

    /// An atomic load of the element at `p` (of dtype `d`, loaded as its bits).
    fn atomic_load(&self, d: DType, p: PointerValue<'ctx>, s: Sync) -> Result<BasicValueEnum<'ctx>> {
        let bits = self.load_bits(p, self.bits_type(d), s)?;
        self.bits_to_value(bits, d)
    }

    /// An atomic load of the integer of type `it` at `p`.
    fn load_bits(&self, p: PointerValue<'ctx>, it: IntType<'ctx>, s: Sync) -> Result<IntValue<'ctx>> {
        let kb = self.kb;
        let bits = match kb.flavor {
            Flavor::Spirv => {
                let i32t = kb.ctx.i32_type();
                let name = format!("_Z18__spirv_AtomicLoadPU3AS{}{}ii", spirv_space(p), mangled(it));
                let scope = i32t.const_int(spirv_scope(s.scope), false);
                let sem = i32t.const_int(spirv_semantics(s.order), false);
                let tys = [p.get_type().into(), i32t.into(), i32t.into()];
                kb.call_builtin(&name, it.as_basic_type_enum(), &[p.into(), scope.into(), sem.into()], &tys)?
            }
            Flavor::Nvptx => {
                let ld = cg(kb.b.build_load(it, p, "ald"))?;
                let i = ld.as_instruction_value().ok_or_else(|| Error::Codegen("atomic load folded".into()))?;
                cg(i.set_atomic_ordering(ordering(s.order)))?;
                cg(i.set_alignment(it.get_bit_width() / 8))?;
                unsafe { LLVMSetAtomicSyncScopeID(i.as_value_ref(), self.sync_scope(s.scope)) };
                ld
            }
        };
        Ok(bits.into_int_value())
    }

    /// An atomic store of `v` to the element at `p` (of dtype `d`, stored as its bits).
    fn atomic_store(&self, d: DType, p: PointerValue<'ctx>, v: BasicValueEnum<'ctx>, s: Sync) -> Result<()> {
        let kb = self.kb;
        let it = self.bits_type(d);
        let bits = self.to_bits(v, it)?;
        match kb.flavor {
            Flavor::Spirv => {
                let i32t = kb.ctx.i32_type();
                let m = mangled(it);
                let name = format!("_Z19__spirv_AtomicStorePU3AS{}{m}ii{m}", spirv_space(p));
                let scope = i32t.const_int(spirv_scope(s.scope), false);
                let sem = i32t.const_int(spirv_semantics(s.order), false);
                self.spirv_void_call(&name, &[p.into(), scope.into(), sem.into(), bits.into()])
            }
            Flavor::Nvptx => {
                let st = cg(kb.b.build_store(p, bits))?;
                cg(st.set_atomic_ordering(ordering(s.order)))?;
                cg(st.set_alignment(d.size() as u32))?;
                unsafe { LLVMSetAtomicSyncScopeID(st.as_value_ref(), self.sync_scope(s.scope)) };
                Ok(())
            }
        }
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
        s: Sync,
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
                let rmw = if op == AtomicOp::Add { Rmw::LLVMAtomicRMWBinOpFAdd } else { Rmw::LLVMAtomicRMWBinOpFSub };
                self.rmw(rmw, pi, part, s)?
            } else {
                self.cas_loop(op, c, pi, part, s)?
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
        s: Sync,
    ) -> Result<BasicValueEnum<'ctx>> {
        if op == AtomicOp::CompareExchange {
            let c = self.operand(cmp.expect("verified"))?.into_int_value();
            return Ok(self.cmpxchg(p, c, iv, s)?.0.into());
        }
        let rmw = match (op, d.is_signed()) {
            (AtomicOp::Add, _) => Rmw::LLVMAtomicRMWBinOpAdd,
            (AtomicOp::Sub, _) => Rmw::LLVMAtomicRMWBinOpSub,
            (AtomicOp::Min, true) => Rmw::LLVMAtomicRMWBinOpMin,
            (AtomicOp::Max, true) => Rmw::LLVMAtomicRMWBinOpMax,
            (AtomicOp::Min, false) => Rmw::LLVMAtomicRMWBinOpUMin,
            (AtomicOp::Max, false) => Rmw::LLVMAtomicRMWBinOpUMax,
            (AtomicOp::And, _) => Rmw::LLVMAtomicRMWBinOpAnd,
            (AtomicOp::Or, _) => Rmw::LLVMAtomicRMWBinOpOr,
            (AtomicOp::Xor, _) => Rmw::LLVMAtomicRMWBinOpXor,
            (AtomicOp::Exchange, _) => Rmw::LLVMAtomicRMWBinOpXchg,
            (AtomicOp::CompareExchange | AtomicOp::Mul | AtomicOp::Load | AtomicOp::Store, _) => unreachable!(),
        };
        self.rmw(rmw, p, iv.into(), s)
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

    /// The value of dtype `d` whose bits are `bits` (`bits` itself for integers).
    fn bits_to_value(&self, bits: IntValue<'ctx>, d: DType) -> Result<BasicValueEnum<'ctx>> {
        if d.is_float() {
            cg(self.kb.b.build_bit_cast(bits, self.kb.reg_ty(d), "f"))
        } else {
            Ok(bits.into())
        }
    }

    /// Float exchange and compare-exchange, on the bits.
    fn exchange_bits(
        &self,
        op: AtomicOp,
        d: DType,
        p: PointerValue<'ctx>,
        v: BasicValueEnum<'ctx>,
        cmp: Option<&Operand>,
        s: Sync,
    ) -> Result<BasicValueEnum<'ctx>> {
        let it = self.bits_type(d);
        let new = self.to_bits(v, it)?;
        let old = if op == AtomicOp::Exchange {
            self.rmw(Rmw::LLVMAtomicRMWBinOpXchg, p, new.into(), s)?.into_int_value()
        } else {
            let c = self.to_bits(self.operand(cmp.expect("verified"))?, it)?;
            self.cmpxchg(p, c, new, s)?.0
        };
        self.bits_to_value(old, d)
    }

    /// `op` (add, multiply, subtract, min, max) as a compare-and-swap loop on the bits: the first
    /// load has the read half of the order, each compare-exchange the order.
    fn cas_loop(
        &self,
        op: AtomicOp,
        d: DType,
        p: PointerValue<'ctx>,
        v: BasicValueEnum<'ctx>,
        s: Sync,
    ) -> Result<BasicValueEnum<'ctx>> {
        let (kb, b) = (self.kb, &self.kb.b);
        let it = self.bits_type(d);
        let func =
            b.get_insert_block().and_then(|bb| bb.get_parent()).ok_or_else(|| Error::Codegen("no function".into()))?;
        let lp = kb.ctx.append_basic_block(func, "cas");
        let done = kb.ctx.append_basic_block(func, "cas_done");
        let ld = self.load_bits(p, it, s.with(s.order.read_half()))?;
        let pre = b.get_insert_block().unwrap();
        cg(b.build_unconditional_branch(lp))?;
        b.position_at_end(lp);
        let phi = cg(b.build_phi(it, "expected"))?;
        phi.add_incoming(&[(&ld, pre)]);
        let expected = phi.as_basic_value().into_int_value();
        let cur = self.bits_to_value(expected, d)?;
        let bop = match op {
            AtomicOp::Add => BinaryOp::Add,
            AtomicOp::Mul => BinaryOp::Mul,
            AtomicOp::Sub => BinaryOp::Sub,
            AtomicOp::Min => BinaryOp::Min,
            AtomicOp::Max => BinaryOp::Max,
            _ => unreachable!(),
        };
        let new_v = kb.binary(bop, cur, v, d)?;
        let new = self.to_bits(new_v, it)?;
        let (seen, ok) = self.cmpxchg(p, expected, new, s)?;
        let here = b.get_insert_block().unwrap();
        phi.add_incoming(&[(&seen, here)]);
        cg(b.build_conditional_branch(ok, done, lp))?;
        b.position_at_end(done);
        self.bits_to_value(expected, d)
    }
}

/// The address space number of `p` in SPIR-V builtin names (local or global memory).
fn spirv_space(p: PointerValue<'_>) -> u16 {
    if p.get_type().get_address_space() == AddressSpace::from(address_space::LOCAL) {
        address_space::LOCAL
    } else {
        address_space::GLOBAL
    }
}

/// The Itanium mangling of an integer type in SPIR-V builtin names.
fn mangled(it: IntType<'_>) -> &'static str {
    match it.get_bit_width() {
        8 => "c",
        16 => "s",
        32 => "i",
        _ => "l",
    }
}
