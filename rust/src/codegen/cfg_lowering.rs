//! Lowering of the control-flow form ([`crate::ir::Function`]) with the same [`KernelBuilder`]
//! (and so the same per-target tables) as elementwise graphs.
//!
//! Kernel ABI of a function: each global array parameter is `ptr addrspace(1) base, i64 byte_offset`
//! followed by its shape and byte strides (`i64` each per dimension); scalars by value (bool as `i8`).
//! The launch's ND-range comes from the caller. A function with [`Function::bounds`] set checks
//! every array access against the array's extents (`bounds.rs`).

use std::collections::HashMap;

use inkwell::basic_block::BasicBlock;
use inkwell::module::{Linkage, Module};
use inkwell::types::{BasicMetadataTypeEnum, BasicType, FunctionType};
use inkwell::values::{BasicValue, BasicValueEnum, FunctionValue, IntValue, PointerValue};
use inkwell::AddressSpace;

use super::bounds::Access;
use super::builder::{cg, KernelBuilder};
use super::intrinsics::{self, Flavor};
use crate::error::{Error, Result};
use crate::ir::cfg::{Function, Inst, KParam, Operand, Space, Term, WorkItem};
use crate::ir::DType;
use crate::target::address_space;

/// How an array is addressed in the kernel.
pub(super) enum ArrayPlace<'ctx> {
    Global {
        base: PointerValue<'ctx>,
        offset: IntValue<'ctx>,
        shape: Vec<IntValue<'ctx>>,
        strides: Vec<IntValue<'ctx>>,
    },
    /// Local (addrspace 3) or private (stack) memory with a constant C-order shape.
    Fixed { base: PointerValue<'ctx>, shape: Vec<usize> },
}

impl<'ctx> KernelBuilder<'ctx> {
    /// Byte strides of a C-contiguous array of `shape` (see `ArrayDecl::contiguous`).
    fn c_strides(&self, shape: &[IntValue<'ctx>], d: DType) -> Result<Vec<IntValue<'ctx>>> {
        let i64t = self.ctx.i64_type();
        let mut strides = vec![i64t.const_int(d.size() as u64, false); shape.len()];
        for k in (0..shape.len().saturating_sub(1)).rev() {
            strides[k] = cg(self.b.build_int_mul(strides[k + 1], shape[k + 1], "cstride"))?;
        }
        Ok(strides)
    }

    pub fn build_function(self, f: &Function) -> Result<Module<'ctx>> {
        f.verify()?;
        let func = self.module.add_function(&f.name, self.function_signature(f), None);
        func.set_call_conventions(self.flavor.kernel_cc());
        let entry = self.ctx.append_basic_block(func, "entry");
        let bbs: Vec<BasicBlock> =
            (0..f.blocks.len()).map(|i| self.ctx.append_basic_block(func, &format!("b{i}"))).collect();
        self.b.position_at_end(entry);

        // Locals live in stack slots; mem2reg turns them into SSA values.
        let slots: Vec<PointerValue> = f
            .locals
            .iter()
            .enumerate()
            .map(|(i, d)| cg(self.b.build_alloca(self.reg_ty(*d), &format!("l{i}"))))
            .collect::<Result<_>>()?;
        let mut places = self.fixed_arrays(f)?;
        self.unpack_function_params(func, f, &slots, &mut places)?;
        cg(self.b.build_unconditional_branch(bbs[0]))?;

        let nonneg = crate::ir::nonneg::nonneg_locals(f);
        let lw = Lowering { kb: &self, f, slots: &slots, places: &places, nonneg: &nonneg };
        for (bi, block) in f.blocks.iter().enumerate() {
            self.b.position_at_end(bbs[bi]);
            for inst in &block.insts {
                lw.inst(inst)?;
            }
            match &block.term {
                Term::Jump(t) => cg(self.b.build_unconditional_branch(bbs[*t]))?,
                Term::Branch { cond, then, otherwise } => {
                    let c = lw.operand(cond)?.into_int_value();
                    cg(self.b.build_conditional_branch(c, bbs[*then], bbs[*otherwise]))?
                }
                Term::Return => cg(self.b.build_return(None))?,
            };
        }
        if let Err(e) = self.module.verify() {
            return Err(Error::Codegen(format!("LLVM verifier: {}", e.to_string())));
        }
        Ok(self.module)
    }

    /// The kernel's signature (see the module documentation).
    fn function_signature(&self, f: &Function) -> FunctionType<'ctx> {
        let i64t = self.ctx.i64_type();
        let gptr = self.ctx.ptr_type(AddressSpace::from(address_space::GLOBAL));
        let mut tys: Vec<BasicMetadataTypeEnum> = Vec::new();
        for p in &f.params {
            match p {
                KParam::Array(a) => {
                    tys.push(gptr.into());
                    tys.extend(std::iter::repeat_n(BasicMetadataTypeEnum::from(i64t), 1 + 2 * f.arrays[*a].ndim));
                }
                KParam::Scalar { local } => tys.push(self.mem_ty(f.locals[*local]).into()),
            }
        }
        self.ctx.void_type().fn_type(&tys, false)
    }

    /// Places of the local and private arrays: private ones on the stack, local ones as module
    /// globals in local memory.
    fn fixed_arrays(&self, f: &Function) -> Result<HashMap<usize, ArrayPlace<'ctx>>> {
        let mut places = HashMap::new();
        for (ai, a) in f.arrays.iter().enumerate() {
            let len: usize = a.shape.iter().product::<usize>().max(1);
            match a.space {
                Space::Global => {}
                Space::Private => {
                    let ty = self.mem_ty(a.dtype).array_type(len as u32);
                    let base = cg(self.b.build_alloca(ty, &a.name))?;
                    places.insert(ai, ArrayPlace::Fixed { base, shape: a.shape.clone() });
                }
                Space::Local => {
                    let ty = self.mem_ty(a.dtype).array_type(len as u32);
                    let g = self.module.add_global(
                        ty,
                        Some(AddressSpace::from(address_space::LOCAL)),
                        &format!("{}_{}", f.name, a.name),
                    );
                    g.set_linkage(Linkage::Internal);
                    g.set_initializer(&ty.get_poison());
                    g.set_alignment(16);
                    places.insert(ai, ArrayPlace::Fixed { base: g.as_pointer_value(), shape: a.shape.clone() });
                }
            }
        }
        Ok(places)
    }

    /// Unpack the parameters of kernel `func`: global arrays into `places`, scalars into their
    /// locals' stack `slots` (bools become `i1`).
    fn unpack_function_params(
        &self,
        func: FunctionValue<'ctx>,
        f: &Function,
        slots: &[PointerValue<'ctx>],
        places: &mut HashMap<usize, ArrayPlace<'ctx>>,
    ) -> Result<()> {
        let mut k = 0u32;
        let param = |k: u32| func.get_nth_param(k).expect("parameter count follows the signature");
        for p in &f.params {
            match p {
                KParam::Array(ai) => {
                    let a = &f.arrays[*ai];
                    let base = param(k).into_pointer_value();
                    base.set_name(&a.name);
                    let offset = param(k + 1).into_int_value();
                    let shape: Vec<IntValue> = (0..a.ndim).map(|d| param(k + 2 + d as u32).into_int_value()).collect();
                    let strides = if a.contiguous {
                        self.c_strides(&shape, a.dtype)?
                    } else {
                        (0..a.ndim).map(|d| param(k + 2 + (a.ndim + d) as u32).into_int_value()).collect()
                    };
                    places.insert(*ai, ArrayPlace::Global { base, offset, shape, strides });
                    k += 2 + 2 * a.ndim as u32;
                }
                KParam::Scalar { local } => {
                    let v = self.mem_to_reg(param(k), f.locals[*local])?;
                    cg(self.b.build_store(slots[*local], v))?;
                    k += 1;
                }
            }
        }
        Ok(())
    }
}

/// Lowers the instructions of one function (the builder positioned in the current block).
pub(super) struct Lowering<'a, 'ctx> {
    pub(super) kb: &'a KernelBuilder<'ctx>,
    pub(super) f: &'a Function,
    pub(super) slots: &'a [PointerValue<'ctx>],
    pub(super) places: &'a HashMap<usize, ArrayPlace<'ctx>>,
    /// Per local: provably non-negative (`ir::nonneg`), so a wrap of it is the identity.
    pub(super) nonneg: &'a [bool],
}

impl<'ctx> Lowering<'_, 'ctx> {
    fn dtype(&self, o: &Operand) -> DType {
        match o {
            Operand::Local(l) => self.f.locals[*l],
            Operand::Const { dtype, .. } => *dtype,
        }
    }

    pub(super) fn operand(&self, o: &Operand) -> Result<BasicValueEnum<'ctx>> {
        match o {
            Operand::Local(l) => cg(self.kb.b.build_load(self.kb.reg_ty(self.f.locals[*l]), self.slots[*l], "v")),
            Operand::Const { value, bits, dtype } => Ok(self.kb.constant(*dtype, *value, *bits)),
        }
    }

    pub(super) fn set(&self, dst: usize, v: BasicValueEnum<'ctx>) -> Result<()> {
        cg(self.kb.b.build_store(self.slots[dst], v)).map(|_| ())
    }

    pub(super) fn index_i64(&self, o: &Operand) -> Result<IntValue<'ctx>> {
        let v = self.operand(o)?;
        let d = self.dtype(o);
        Ok(self.kb.cast(v, d, DType::I64)?.into_int_value())
    }

    /// Address of `array[index]`.
    pub(super) fn address(&self, array: usize, index: &[Operand]) -> Result<PointerValue<'ctx>> {
        let b = &self.kb.b;
        let i64t = self.kb.ctx.i64_type();
        let idx: Vec<IntValue> = index.iter().map(|o| self.index_i64(o)).collect::<Result<_>>()?;
        match &self.places[&array] {
            ArrayPlace::Global { base, offset, strides, .. } => {
                let mut off = *offset;
                for (i, s) in idx.iter().zip(strides) {
                    off = cg(b.build_int_add(off, cg(b.build_int_mul(*i, *s, "t"))?, "off"))?;
                }
                unsafe { cg(b.build_gep(self.kb.ctx.i8_type(), *base, &[off], "p")) }
            }
            ArrayPlace::Fixed { base, shape } => {
                let mut lin = i64t.const_zero();
                for (d, i) in idx.iter().enumerate() {
                    let stride: usize = shape[d + 1..].iter().product();
                    lin = cg(b.build_int_add(
                        lin,
                        cg(b.build_int_mul(*i, i64t.const_int(stride as u64, false), "t"))?,
                        "lin",
                    ))?;
                }
                let et = self.kb.mem_ty(self.f.arrays[array].dtype);
                unsafe { cg(b.build_gep(et, *base, &[lin], "p")) }
            }
        }
    }

    fn load(&self, array: usize, index: &[Operand]) -> Result<BasicValueEnum<'ctx>> {
        let d = self.f.arrays[array].dtype;
        let p = self.address(array, index)?;
        let v = cg(self.kb.b.build_load(self.kb.mem_ty(d), p, "ld"))?;
        if let Some(i) = v.as_instruction_value() {
            let _ = i.set_alignment(d.align() as u32);
        }
        self.kb.mem_to_reg(v, d)
    }

    fn inst(&self, inst: &Inst) -> Result<()> {
        let kb = self.kb;
        match inst {
            Inst::Copy { dst, src } => self.set(*dst, self.operand(src)?),
            Inst::Cast { dst, src } => {
                self.set(*dst, kb.cast(self.operand(src)?, self.dtype(src), self.f.locals[*dst])?)
            }
            Inst::Unary { dst, op, src } => self.set(*dst, kb.unary(*op, self.operand(src)?, self.dtype(src))?),
            Inst::Binary { dst, op, a, b } => {
                self.set(*dst, kb.binary(*op, self.operand(a)?, self.operand(b)?, self.dtype(a))?)
            }
            Inst::Select { dst, cond, a, b } => {
                let v = cg(kb.b.build_select(
                    self.operand(cond)?.into_int_value(),
                    self.operand(a)?,
                    self.operand(b)?,
                    "sel",
                ))?;
                self.set(*dst, v)
            }
            Inst::Load { dst, array, index } => {
                let guard = self.guard(*array, index, Access::Read, Some(*dst))?;
                self.set(*dst, self.load(*array, index)?)?;
                self.end_guard(guard)
            }
            Inst::Store { array, index, src } => {
                let guard = self.guard(*array, index, Access::Write, None)?;
                let d = self.f.arrays[*array].dtype;
                let p = self.address(*array, index)?;
                let v = kb.reg_to_mem(self.operand(src)?, d)?;
                let st = cg(kb.b.build_store(p, v))?;
                let _ = st.set_alignment(d.align() as u32);
                self.end_guard(guard)
            }
            Inst::Wrap { dst, index, extent } => self.set(*dst, self.wrap(index, extent)?.into()),
            Inst::ViewIndex { dst, base_index, index, extent, array, dim, access } => {
                let v = self.view_index(base_index, index, extent, *array, *dim, *access)?;
                self.set(*dst, v.into())
            }
            Inst::Dim { dst, array, dim } => {
                let v = match &self.places[array] {
                    ArrayPlace::Global { shape, .. } => shape[*dim],
                    ArrayPlace::Fixed { shape, .. } => kb.ctx.i64_type().const_int(shape[*dim] as u64, false),
                };
                self.set(*dst, v.into())
            }
            Inst::WorkItem { dst, query, dim } => self.set(*dst, self.work_item(*query, *dim)?.into()),
            Inst::Barrier { flags } => self.barrier(*flags),
            Inst::Atomic { dst, op, array, index, value, cmp, order, scope } => {
                let guard = self.guard(*array, index, Access::Atomic, *dst)?;
                let sync = super::atomics::Sync { order: *order, scope: *scope };
                let old = self.atomic(*op, *array, index, value, cmp.as_ref(), sync)?;
                if let (Some(d), Some(old)) = (dst, old) {
                    self.set(*d, old)?;
                }
                self.end_guard(guard)
            }
            Inst::Fence { order, scope } => self.fence(*order, *scope),
        }
    }

    fn work_item(&self, q: WorkItem, dim: u32) -> Result<IntValue<'ctx>> {
        let kb = self.kb;
        let i64t = kb.ctx.i64_type();
        let i32t = kb.ctx.i32_type();
        match kb.flavor {
            Flavor::Spirv => {
                let name = intrinsics::spirv_id_builtin(q.opencl_name());
                Ok(kb
                    .call_builtin(&name, i64t.into(), &[i32t.const_int(dim as u64, false).into()], &[i32t.into()])?
                    .into_int_value())
            }
            Flavor::Nvptx => {
                let axis = ["x", "y", "z"][dim as usize];
                let sreg = |n: &str| -> Result<IntValue<'ctx>> {
                    let f = kb.declare(&format!("llvm.nvvm.read.ptx.sreg.{n}.{axis}"), i32t.into(), &[]);
                    let v = cg(kb.b.build_call(f, &[], n))?.try_as_basic_value().unwrap_basic().into_int_value();
                    cg(kb.b.build_int_z_extend(v, i64t, "z"))
                };
                let b = &kb.b;
                Ok(match q {
                    WorkItem::LocalId => sreg("tid")?,
                    WorkItem::GroupId => sreg("ctaid")?,
                    WorkItem::LocalSize => sreg("ntid")?,
                    WorkItem::NumGroups => sreg("nctaid")?,
                    WorkItem::GlobalId => cg(b.build_int_add(
                        cg(b.build_int_mul(sreg("ctaid")?, sreg("ntid")?, "m"))?,
                        sreg("tid")?,
                        "gid",
                    ))?,
                    WorkItem::GlobalSize => cg(b.build_int_mul(sreg("nctaid")?, sreg("ntid")?, "gs"))?,
                })
            }
        }
    }

    fn barrier(&self, flags: u32) -> Result<()> {
        let kb = self.kb;
        let i32t = kb.ctx.i32_type();
        match kb.flavor {
            Flavor::Spirv => {
                let void_fn = kb.module.get_function("_Z7barrierj").unwrap_or_else(|| {
                    let f = kb.module.add_function(
                        "_Z7barrierj",
                        kb.ctx.void_type().fn_type(&[i32t.into()], false),
                        Some(Linkage::External),
                    );
                    f.set_call_conventions(kb.flavor.builtin_cc());
                    f
                });
                let c = cg(kb.b.build_call(void_fn, &[i32t.const_int(flags as u64, false).into()], ""))?;
                c.set_call_convention(kb.flavor.builtin_cc());
            }
            Flavor::Nvptx => {
                // `bar.sync 0` (LLVM 22 spells __syncthreads this way; llvm.nvvm.barrier0 is gone)
                let name = "llvm.nvvm.barrier.cta.sync.aligned.all";
                let f = kb.module.get_function(name).unwrap_or_else(|| {
                    kb.module.add_function(name, kb.ctx.void_type().fn_type(&[i32t.into()], false), None)
                });
                cg(kb.b.build_call(f, &[i32t.const_zero().into()], ""))?;
            }
        }
        Ok(())
    }
}
