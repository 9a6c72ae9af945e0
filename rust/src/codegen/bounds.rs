//! Negative-index wrap and bounds checking of the control-flow form.
//!
//! [`Inst::Wrap`](crate::ir::cfg::Inst::Wrap) is NumPy's `i < 0 ? i + n : i`, one compare and
//! select, left out where the index is provably non-negative (`ir::nonneg`: work-item ids, loop
//! counters from zero, unsigned values), so the common kernel `c[i] = a[i] + b[i]` over
//! `get_global_id` compiles to the same code as without it.
//!
//! In a function with [`Function::bounds`](crate::ir::Function::bounds) set, every load, store and
//! atomic on another array first compares each index, as an unsigned number, with the extent of its
//! dimension (one `icmp ult` per dimension: a negative index is out of bounds too). An access out of
//! bounds is skipped (a load or atomic gives 0) and the first such access of the launch records
//! itself in the bounds array ([`BOUNDS_RECORD_LEN`](crate::ir::cfg::BOUNDS_RECORD_LEN) `int64`s):
//! a compare-exchange of element 0 from 0 to 1 elects it, and it stores the array, the dimension,
//! the index and the extent. The host reads the record after the launch. An index through a view
//! made inside the function ([`Inst::ViewIndex`](crate::ir::cfg::Inst::ViewIndex)) is checked
//! against the view's own extent first and recorded as the view's.

use inkwell::basic_block::BasicBlock;
use inkwell::values::{IntValue, PointerValue};
use inkwell::IntPredicate;

use super::atomics::Sync;
use super::builder::cg;
use super::cfg_lowering::{ArrayPlace, Lowering};
use crate::error::Result;
use crate::ir::cfg::{AtomicOp, MemOrder, MemScope, Operand};
use crate::ir::DType;

/// How a checked access uses its element (recorded for the error message).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Access {
    Read = 0,
    Write = 1,
    Atomic = 2,
}

fn imm(v: i64) -> Operand {
    Operand::Const { value: v as f64, bits: v, dtype: DType::I64 }
}

impl<'ctx> Lowering<'_, 'ctx> {
    /// `index < 0 ? index + extent : index`, or `index` where it is provably non-negative.
    pub(super) fn wrap(&self, index: &Operand, extent: &Operand) -> Result<IntValue<'ctx>> {
        let i = self.operand(index)?.into_int_value();
        let known = match index {
            Operand::Local(l) => self.nonneg[*l],
            Operand::Const { bits, .. } => *bits >= 0,
        };
        if known {
            return Ok(i);
        }
        let b = &self.kb.b;
        let n = self.operand(extent)?.into_int_value();
        let neg = cg(b.build_int_compare(IntPredicate::SLT, i, i.get_type().const_zero(), "neg"))?;
        let up = cg(b.build_int_add(i, n, "wrapped"))?;
        Ok(cg(b.build_select(neg, up, i, "idx"))?.into_int_value())
    }

    /// The extents of `array`'s dimensions.
    fn extents(&self, array: usize) -> Vec<IntValue<'ctx>> {
        let i64t = self.kb.ctx.i64_type();
        match &self.places[&array] {
            ArrayPlace::Global { shape, .. } => shape.clone(),
            ArrayPlace::Fixed { shape, .. } => shape.iter().map(|&n| i64t.const_int(n as u64, false)).collect(),
        }
    }

    /// Start a checked access of `array[index]` (nothing to do where the function has no bounds
    /// array, or for the bounds array itself): branch on the check, record a failure, and leave the
    /// builder where the access goes. Returns the block where control continues after the access.
    pub(super) fn guard(
        &self,
        array: usize,
        index: &[Operand],
        access: Access,
        dst: Option<usize>,
    ) -> Result<Option<BasicBlock<'ctx>>> {
        let Some(err) = self.f.bounds.filter(|&e| e != array) else { return Ok(None) };
        let kb = self.kb;
        let b = &kb.b;
        let idx: Vec<IntValue> = index.iter().map(|o| self.index_i64(o)).collect::<Result<_>>()?;
        let ext = self.extents(array);
        let oks: Vec<IntValue> = idx
            .iter()
            .zip(&ext)
            .map(|(i, n)| cg(b.build_int_compare(IntPredicate::ULT, *i, *n, "inb")))
            .collect::<Result<_>>()?;
        let mut ok = kb.ctx.bool_type().const_all_ones();
        for o in &oks {
            ok = cg(b.build_and(ok, *o, "inb"))?;
        }
        let func = b.get_insert_block().and_then(|bb| bb.get_parent()).expect("the builder is in a function");
        let access_bb = kb.ctx.append_basic_block(func, "in_bounds");
        let fail_bb = kb.ctx.append_basic_block(func, "out_of_bounds");
        let cont = kb.ctx.append_basic_block(func, "after_access");
        cg(b.build_conditional_branch(ok, access_bb, fail_bb))?;

        b.position_at_end(fail_bb);
        if let Some(d) = dst {
            self.set(d, kb.constant(self.f.locals[d], 0.0, 0))?;
        }
        let i64t = kb.ctx.i64_type();
        // the first dimension out of bounds: its index and extent (selects only for several
        // dimensions: a 1-d array's checks have no integer select, see `Binary::int_minmax`)
        let (mut dim, mut bad_i, mut bad_n) = (i64t.const_zero(), idx[0], ext[0]);
        for d in (0..idx.len()).rev().filter(|_| idx.len() > 1) {
            let out = cg(b.build_not(oks[d], "out"))?;
            dim = cg(b.build_select(out, i64t.const_int(d as u64, false), dim, "dim"))?.into_int_value();
            bad_i = cg(b.build_select(out, idx[d], bad_i, "bad_i"))?.into_int_value();
            bad_n = cg(b.build_select(out, ext[d], bad_n, "bad_n"))?.into_int_value();
        }
        let fields = [i64t.const_int(array as u64, false), dim, bad_i, bad_n, i64t.const_int(access as u64, false)];
        self.record_first(err, &fields, cont)?;

        b.position_at_end(access_bb);
        Ok(Some(cont))
    }

    /// [`Inst::ViewIndex`](crate::ir::cfg::Inst::ViewIndex): `base_index`, or where the function
    /// checks bounds and the view's `index` lies outside its `extent`, `i64::MIN` (which the access's
    /// own check then skips) after recording the view's dimension, index and extent.
    pub(super) fn view_index(
        &self,
        base_index: &Operand,
        index: &Operand,
        extent: &Operand,
        array: usize,
        dim: usize,
        access: u8,
    ) -> Result<IntValue<'ctx>> {
        let base = self.index_i64(base_index)?;
        let Some(err) = self.f.bounds.filter(|&e| e != array) else { return Ok(base) };
        let kb = self.kb;
        let b = &kb.b;
        let i64t = kb.ctx.i64_type();
        let (i, n) = (self.index_i64(index)?, self.index_i64(extent)?);
        let ok = cg(b.build_int_compare(IntPredicate::ULT, i, n, "view_inb"))?;
        let poisoned = i64t.const_int(i64::MIN as u64, false);
        let out = cg(b.build_select(ok, base, poisoned, "view_idx"))?.into_int_value();
        let func = b.get_insert_block().and_then(|bb| bb.get_parent()).expect("the builder is in a function");
        let fail_bb = kb.ctx.append_basic_block(func, "view_out_of_bounds");
        let cont = kb.ctx.append_basic_block(func, "view_checked");
        cg(b.build_conditional_branch(ok, cont, fail_bb))?;

        b.position_at_end(fail_bb);
        let fields = [
            i64t.const_int(array as u64, false),
            i64t.const_int(dim as u64, false),
            i,
            n,
            i64t.const_int(access as u64, false),
            i64t.const_int(1, false), // through a view
        ];
        self.record_first(err, &fields, cont)?;
        b.position_at_end(cont);
        Ok(out)
    }

    /// In a failed check's block: elect the launch's first failure (a compare-exchange of the bounds
    /// array's element 0 from 0 to 1), store `fields` from element 1 on if this one won, then
    /// continue at `cont`.
    fn record_first(&self, err: usize, fields: &[IntValue<'ctx>], cont: BasicBlock<'ctx>) -> Result<()> {
        let kb = self.kb;
        let b = &kb.b;
        let func = b.get_insert_block().and_then(|bb| bb.get_parent()).expect("the builder is in a function");
        let record_bb = kb.ctx.append_basic_block(func, "record");
        let sync = Sync { order: MemOrder::Relaxed, scope: MemScope::Device };
        let old = self.atomic(AtomicOp::CompareExchange, err, &[imm(0)], &imm(1), Some(&imm(0)), sync)?;
        let old = old.expect("a compare-exchange returns the old value").into_int_value();
        let first = cg(b.build_int_compare(IntPredicate::EQ, old, old.get_type().const_zero(), "first"))?;
        cg(b.build_conditional_branch(first, record_bb, cont))?;
        b.position_at_end(record_bb);
        for (k, v) in fields.iter().enumerate() {
            let p: PointerValue = self.address(err, &[imm(k as i64 + 1)])?;
            cg(b.build_store(p, *v))?;
        }
        cg(b.build_unconditional_branch(cont))?;
        Ok(())
    }

    /// End a checked access begun by [`Self::guard`].
    pub(super) fn end_guard(&self, cont: Option<BasicBlock<'ctx>>) -> Result<()> {
        if let Some(cont) = cont {
            cg(self.kb.b.build_unconditional_branch(cont))?;
            self.kb.b.position_at_end(cont);
        }
        Ok(())
    }
}
