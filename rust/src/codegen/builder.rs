//! `KernelBuilder`: lowers a verified dataflow graph to one LLVM kernel function.

use std::collections::HashMap;

use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::types::{BasicMetadataTypeEnum, BasicType, BasicTypeEnum};
use inkwell::values::BasicValue;
use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum, FloatValue, FunctionValue, IntValue, PointerValue};
use inkwell::{AddressSpace, FloatPredicate, IntPredicate};

use super::intrinsics::{self, Flavor};
use crate::error::{Error, Result};
use crate::ir::{BinaryOp, DType, Graph, Op, ParamKind, UnaryOp};
use crate::target::address_space;

pub struct KernelBuilder<'ctx> {
    pub(super) ctx: &'ctx Context,
    pub(super) module: Module<'ctx>,
    pub(super) b: Builder<'ctx>,
    pub(super) flavor: Flavor,
}

/// Where an array parameter's current element lives.
struct ArrayArg<'ctx> {
    base: PointerValue<'ctx>,
    offset: IntValue<'ctx>,
    strides: Option<Vec<IntValue<'ctx>>>,
}

pub(super) fn cg<T, E: std::fmt::Display>(r: std::result::Result<T, E>) -> Result<T> {
    r.map_err(|e| Error::Codegen(e.to_string()))
}

impl<'ctx> KernelBuilder<'ctx> {
    pub fn new(ctx: &'ctx Context, flavor: Flavor) -> Self {
        let module = ctx.create_module("numba_ext");
        module.set_triple(&inkwell::targets::TargetTriple::create(flavor.triple()));
        KernelBuilder { ctx, module, b: ctx.create_builder(), flavor }
    }

    /// Register type of a dtype (bool is `i1` in registers, `i8` in memory).
    pub(super) fn reg_ty(&self, d: DType) -> BasicTypeEnum<'ctx> {
        match d {
            DType::Bool => self.ctx.bool_type().into(),
            DType::I8 | DType::U8 => self.ctx.i8_type().into(),
            DType::I16 | DType::U16 => self.ctx.i16_type().into(),
            DType::I32 | DType::U32 => self.ctx.i32_type().into(),
            DType::I64 | DType::U64 => self.ctx.i64_type().into(),
            DType::F32 => self.ctx.f32_type().into(),
            DType::F64 => self.ctx.f64_type().into(),
        }
    }
    pub(super) fn mem_ty(&self, d: DType) -> BasicTypeEnum<'ctx> {
        if d == DType::Bool {
            self.ctx.i8_type().into()
        } else {
            self.reg_ty(d)
        }
    }

    pub fn build(self, g: &Graph) -> Result<Module<'ctx>> {
        let i64t = self.ctx.i64_type();
        let gptr = self.ctx.ptr_type(AddressSpace::from(address_space::GLOBAL));
        // Signature per the kernel ABI (codegen/mod.rs).
        let mut tys: Vec<BasicMetadataTypeEnum> = Vec::new();
        for p in &g.params {
            match p.kind {
                ParamKind::Array { contiguous, .. } => {
                    tys.push(gptr.into());
                    tys.push(i64t.into());
                    if !contiguous {
                        tys.extend(std::iter::repeat_n(BasicMetadataTypeEnum::from(i64t), g.ndim));
                    }
                }
                ParamKind::Scalar { dtype } => tys.push(self.mem_ty(dtype).into()),
            }
        }
        tys.extend(std::iter::repeat_n(BasicMetadataTypeEnum::from(i64t), g.ndim + 1));
        let fn_ty = self.ctx.void_type().fn_type(&tys, false);
        let f = self.module.add_function(&g.name, fn_ty, None);
        f.set_call_conventions(self.flavor.kernel_cc());

        let entry = self.ctx.append_basic_block(f, "entry");
        let body = self.ctx.append_basic_block(f, "body");
        let exit = self.ctx.append_basic_block(f, "exit");
        self.b.position_at_end(entry);

        // Unpack parameters.
        let mut k = 0u32;
        let mut arrays: HashMap<usize, ArrayArg> = HashMap::new();
        let mut scalars: HashMap<usize, BasicValueEnum> = HashMap::new();
        let param = |k: u32| f.get_nth_param(k).expect("parameter count follows the signature");
        for (pi, p) in g.params.iter().enumerate() {
            match p.kind {
                ParamKind::Array { contiguous, .. } => {
                    let base = param(k).into_pointer_value();
                    base.set_name(&format!("{}_base", p.name));
                    let offset = param(k + 1).into_int_value();
                    k += 2;
                    let strides = if contiguous {
                        None
                    } else {
                        let s: Vec<IntValue> = (0..g.ndim).map(|d| param(k + d as u32).into_int_value()).collect();
                        k += g.ndim as u32;
                        Some(s)
                    };
                    arrays.insert(pi, ArrayArg { base, offset, strides });
                }
                ParamKind::Scalar { dtype } => {
                    let v = param(k);
                    v.set_name(&p.name);
                    let v = if dtype == DType::Bool {
                        cg(self.b.build_int_compare(
                            IntPredicate::NE,
                            v.into_int_value(),
                            self.ctx.i8_type().const_zero(),
                            "b",
                        ))?
                        .into()
                    } else {
                        v
                    };
                    scalars.insert(pi, v);
                    k += 1;
                }
            }
        }
        let shape: Vec<IntValue> = (0..g.ndim).map(|d| param(k + d as u32).into_int_value()).collect();
        let n = param(k + g.ndim as u32).into_int_value();
        n.set_name("n");

        let gid = self.global_id()?;
        // Launches cover exactly `n` work-items on SPIR-V devices, so no guard there (a branch here
        // keeps the driver from vectorising across work-items); PTX launches round up to blocks.
        if self.flavor == Flavor::Spirv {
            cg(self.b.build_unconditional_branch(body))?;
        } else {
            let inb = cg(self.b.build_int_compare(IntPredicate::ULT, gid, n, "in_range"))?;
            cg(self.b.build_conditional_branch(inb, body, exit))?;
        }
        self.b.position_at_end(body);

        // Multi-index (only needed for strided arrays): unravel the linear id over the shape, C order.
        let needs_index = arrays.values().any(|a| a.strides.is_some());
        let mut index: Vec<IntValue> = vec![i64t.const_zero(); g.ndim];
        if needs_index {
            let mut rest = gid;
            for d in (0..g.ndim).rev() {
                if d == 0 {
                    index[0] = rest;
                } else {
                    index[d] = cg(self.b.build_int_unsigned_rem(rest, shape[d], &format!("i{d}")))?;
                    rest = cg(self.b.build_int_unsigned_div(rest, shape[d], "rest"))?;
                }
            }
        }

        let mut vals: HashMap<usize, BasicValueEnum> = HashMap::new();
        for i in g.topo_order()? {
            let node = g.node(i);
            let v: Option<BasicValueEnum> = match node.op {
                Op::Load { param } => {
                    let ptr = self.element_ptr(&arrays[&param], gid, &index, node.dtype)?;
                    let ld =
                        cg(self.b.build_load(self.mem_ty(node.dtype), ptr, &format!("{}_elem", g.params[param].name)))?;
                    if let Some(inst) = ld.as_instruction_value() {
                        let _ = inst.set_alignment(node.dtype.size() as u32);
                    }
                    Some(if node.dtype == DType::Bool {
                        cg(self.b.build_int_compare(
                            IntPredicate::NE,
                            ld.into_int_value(),
                            self.ctx.i8_type().const_zero(),
                            "b",
                        ))?
                        .into()
                    } else {
                        ld
                    })
                }
                Op::Scalar { param } => Some(scalars[&param]),
                Op::Const { value, bits } => Some(self.constant(node.dtype, value, bits)),
                Op::Cast { arg } => Some(self.cast(vals[&arg], g.node(arg).dtype, node.dtype)?),
                Op::Unary { op, arg } => Some(self.unary(op, vals[&arg], node.dtype)?),
                Op::Binary { op, lhs, rhs } => Some(self.binary(op, vals[&lhs], vals[&rhs], g.node(lhs).dtype)?),
                Op::Select { cond, a, b } => {
                    Some(cg(self.b.build_select(vals[&cond].into_int_value(), vals[&a], vals[&b], "sel"))?)
                }
                Op::Store { param, value } => {
                    let ptr = self.element_ptr(&arrays[&param], gid, &index, node.dtype)?;
                    let mut v = vals[&value];
                    if node.dtype == DType::Bool {
                        v = cg(self.b.build_int_z_extend(v.into_int_value(), self.ctx.i8_type(), "b8"))?.into();
                    }
                    let st = cg(self.b.build_store(ptr, v))?;
                    let _ = st.set_alignment(node.dtype.size() as u32);
                    None
                }
            };
            if let Some(v) = v {
                vals.insert(i, v);
            }
        }
        cg(self.b.build_unconditional_branch(exit))?;
        self.b.position_at_end(exit);
        cg(self.b.build_return(None))?;
        if let Err(e) = self.module.verify() {
            return Err(Error::Codegen(format!("LLVM verifier: {}", e.to_string())));
        }
        Ok(self.module)
    }

    fn global_id(&self) -> Result<IntValue<'ctx>> {
        let i64t = self.ctx.i64_type();
        let i32t = self.ctx.i32_type();
        match self.flavor {
            Flavor::Spirv => {
                let v = self.call_builtin(
                    &intrinsics::spirv_id_builtin("get_global_id"),
                    i64t.into(),
                    &[i32t.const_zero().into()],
                    &[i32t.into()],
                )?;
                let v = v.into_int_value();
                v.set_name("gid");
                Ok(v)
            }
            Flavor::Nvptx => {
                let sreg = |name: &str| -> Result<IntValue<'ctx>> {
                    let full = format!("llvm.nvvm.read.ptx.sreg.{name}");
                    let f = self.declare(&full, i32t.into(), &[]);
                    let c = cg(self.b.build_call(f, &[], name))?;
                    Ok(c.try_as_basic_value().unwrap_basic().into_int_value())
                };
                let (tid, ctaid, ntid) = (sreg("tid.x")?, sreg("ctaid.x")?, sreg("ntid.x")?);
                let block = cg(self.b.build_int_mul(
                    cg(self.b.build_int_z_extend(ctaid, i64t, "c"))?,
                    cg(self.b.build_int_z_extend(ntid, i64t, "nt"))?,
                    "blk",
                ))?;
                Ok(cg(self.b.build_int_add(block, cg(self.b.build_int_z_extend(tid, i64t, "t"))?, "gid"))?)
            }
        }
    }

    pub(super) fn declare(
        &self,
        name: &str,
        ret: BasicTypeEnum<'ctx>,
        args: &[BasicMetadataTypeEnum<'ctx>],
    ) -> FunctionValue<'ctx> {
        if let Some(f) = self.module.get_function(name) {
            return f;
        }
        let f = self.module.add_function(name, ret.fn_type(args, false), Some(Linkage::External));
        if self.flavor.builtin_cc() != 0 {
            f.set_call_conventions(self.flavor.builtin_cc());
        }
        f
    }

    pub(super) fn call_builtin(
        &self,
        name: &str,
        ret: BasicTypeEnum<'ctx>,
        args: &[BasicMetadataValueEnum<'ctx>],
        arg_tys: &[BasicMetadataTypeEnum<'ctx>],
    ) -> Result<BasicValueEnum<'ctx>> {
        let f = self.declare(name, ret, arg_tys);
        let c = cg(self.b.build_call(f, args, "call"))?;
        if self.flavor.builtin_cc() != 0 {
            c.set_call_convention(self.flavor.builtin_cc());
        }
        Ok(c.try_as_basic_value().unwrap_basic())
    }

    fn element_ptr(
        &self,
        a: &ArrayArg<'ctx>,
        gid: IntValue<'ctx>,
        index: &[IntValue<'ctx>],
        dt: DType,
    ) -> Result<PointerValue<'ctx>> {
        let i64t = self.ctx.i64_type();
        let byte_off = match &a.strides {
            None => cg(self.b.build_int_mul(gid, i64t.const_int(dt.size() as u64, false), "off"))?,
            Some(strides) => {
                let mut acc = i64t.const_zero();
                for (i, s) in index.iter().zip(strides) {
                    let t = cg(self.b.build_int_mul(*i, *s, "t"))?;
                    acc = cg(self.b.build_int_add(acc, t, "off"))?;
                }
                acc
            }
        };
        let total = cg(self.b.build_int_add(a.offset, byte_off, "boff"))?;
        unsafe { cg(self.b.build_gep(self.ctx.i8_type(), a.base, &[total], "ptr")) }
    }

    pub(super) fn constant(&self, d: DType, value: f64, bits: i64) -> BasicValueEnum<'ctx> {
        match d {
            DType::F32 => self.ctx.f32_type().const_float(value).into(),
            DType::F64 => self.ctx.f64_type().const_float(value).into(),
            DType::Bool => self.ctx.bool_type().const_int((bits != 0) as u64, false).into(),
            _ => self.reg_ty(d).into_int_type().const_int(bits as u64, d.is_signed()).into(),
        }
    }

    pub(super) fn cast(&self, v: BasicValueEnum<'ctx>, from: DType, to: DType) -> Result<BasicValueEnum<'ctx>> {
        if from == to {
            return Ok(v);
        }
        let b = &self.b;
        let ty = self.reg_ty(to);
        Ok(match (from.is_float(), to.is_float()) {
            (true, true) => cg(b.build_float_cast(v.into_float_value(), ty.into_float_type(), "fcast"))?.into(),
            (false, true) => {
                let iv = v.into_int_value();
                if from.is_signed() {
                    cg(b.build_signed_int_to_float(iv, ty.into_float_type(), "sitofp"))?.into()
                } else {
                    cg(b.build_unsigned_int_to_float(iv, ty.into_float_type(), "uitofp"))?.into()
                }
            }
            (true, false) => {
                let fv = v.into_float_value();
                if to == DType::Bool {
                    cg(b.build_float_compare(FloatPredicate::UNE, fv, fv.get_type().const_zero(), "tobool"))?.into()
                } else if to.is_signed() {
                    cg(b.build_float_to_signed_int(fv, ty.into_int_type(), "fptosi"))?.into()
                } else {
                    cg(b.build_float_to_unsigned_int(fv, ty.into_int_type(), "fptoui"))?.into()
                }
            }
            (false, false) => {
                let iv = v.into_int_value();
                if to == DType::Bool {
                    cg(b.build_int_compare(IntPredicate::NE, iv, iv.get_type().const_zero(), "tobool"))?.into()
                } else if from.size() >= to.size() && from != DType::Bool {
                    cg(b.build_int_truncate_or_bit_cast(iv, ty.into_int_type(), "trunc"))?.into()
                } else if from.is_signed() {
                    cg(b.build_int_s_extend(iv, ty.into_int_type(), "sext"))?.into()
                } else {
                    cg(b.build_int_z_extend(iv, ty.into_int_type(), "zext"))?.into()
                }
            }
        })
    }

    pub(super) fn math1(&self, name: String, v: FloatValue<'ctx>) -> Result<BasicValueEnum<'ctx>> {
        let t = v.get_type();
        self.call_builtin(&name, t.into(), &[v.into()], &[t.into()])
    }

    pub(super) fn math2(&self, name: String, a: FloatValue<'ctx>, c: FloatValue<'ctx>) -> Result<BasicValueEnum<'ctx>> {
        let t = a.get_type();
        self.call_builtin(&name, t.into(), &[a.into(), c.into()], &[t.into(), t.into()])
    }

    pub(super) fn unary(&self, op: UnaryOp, v: BasicValueEnum<'ctx>, d: DType) -> Result<BasicValueEnum<'ctx>> {
        let b = &self.b;
        Ok(match op {
            UnaryOp::Neg if d.is_float() => cg(b.build_float_neg(v.into_float_value(), "neg"))?.into(),
            UnaryOp::Neg => cg(b.build_int_neg(v.into_int_value(), "neg"))?.into(),
            UnaryOp::Not => cg(b.build_not(v.into_int_value(), "not"))?.into(),
            UnaryOp::Abs if !d.is_float() => {
                if !d.is_signed() {
                    v
                } else {
                    let iv = v.into_int_value();
                    let neg = cg(b.build_int_neg(iv, "neg"))?;
                    let lt = cg(b.build_int_compare(IntPredicate::SLT, iv, iv.get_type().const_zero(), "lt0"))?;
                    cg(b.build_select(lt, neg, iv, "abs"))?
                }
            }
            UnaryOp::Tanh if intrinsics::tanh_by_expm1(self.flavor) => self.tanh_by_expm1(v.into_float_value(), d)?,
            _ => {
                let name = intrinsics::unary_math(self.flavor, op, d)
                    .ok_or_else(|| Error::Codegen(format!("no builtin for {op:?}")))?;
                self.math1(name, v.into_float_value())?
            }
        })
    }

    /// `tanh(x) = copysign(e / (e + 2), x)` with `e = expm1(2|x|)`, and `copysign(1, x)` where
    /// `|x|` is so large that tanh rounds to 1 (and `e` would overflow). Within 3 ulp of the correctly
    /// rounded value over the whole range (the OpenCL bound for tanh is 5 ulp); keeps NaN, -0.0 and
    /// the sign of infinities. See `intrinsics::tanh_by_expm1` for why.
    fn tanh_by_expm1(&self, x: FloatValue<'ctx>, d: DType) -> Result<BasicValueEnum<'ctx>> {
        let b = &self.b;
        let t = x.get_type();
        let ax = self.unary(UnaryOp::Abs, x.into(), d)?.into_float_value();
        let two_ax = cg(b.build_float_add(ax, ax, "two_ax"))?;
        let e = self.math1(intrinsics::unary_math(self.flavor, UnaryOp::Expm1, d).unwrap(), two_ax)?.into_float_value();
        let den = cg(b.build_float_add(e, t.const_float(2.0), "den"))?;
        let r = cg(b.build_float_div(e, den, "r"))?;
        // 1 - tanh(x) < half an ulp of 1 beyond these (2 e^-2x < 2^-54 for f64, 2^-25 for f32)
        let one_from = if d == DType::F32 { 9.0 } else { 19.5 };
        let big = cg(b.build_float_compare(FloatPredicate::OGT, ax, t.const_float(one_from), "big"))?;
        let r = cg(b.build_select(big, t.const_float(1.0), r, "r1"))?.into_float_value();
        self.math2(intrinsics::copysign(self.flavor, d), r, x)
    }

    pub(super) fn binary(
        &self,
        op: BinaryOp,
        l: BasicValueEnum<'ctx>,
        r: BasicValueEnum<'ctx>,
        d: DType,
    ) -> Result<BasicValueEnum<'ctx>> {
        if d.is_float() {
            self.float_binary(op, l.into_float_value(), r.into_float_value(), d)
        } else {
            self.int_binary(op, l.into_int_value(), r.into_int_value(), d)
        }
    }

    fn float_binary(
        &self,
        op: BinaryOp,
        l: FloatValue<'ctx>,
        r: FloatValue<'ctx>,
        d: DType,
    ) -> Result<BasicValueEnum<'ctx>> {
        let b = &self.b;
        let cmp =
            |p: FloatPredicate, x: FloatValue<'ctx>, y: FloatValue<'ctx>| cg(b.build_float_compare(p, x, y, "cmp"));
        Ok(match op {
            BinaryOp::Add => cg(b.build_float_add(l, r, "add"))?.into(),
            BinaryOp::Sub => cg(b.build_float_sub(l, r, "sub"))?.into(),
            BinaryOp::Mul => cg(b.build_float_mul(l, r, "mul"))?.into(),
            BinaryOp::Div => cg(b.build_float_div(l, r, "div"))?.into(),
            BinaryOp::FloorDiv => {
                let q = cg(b.build_float_div(l, r, "q"))?;
                self.math1(intrinsics::unary_math(self.flavor, UnaryOp::Floor, d).unwrap(), q)?
            }
            BinaryOp::Rem => {
                // Python/NumPy remainder: the result takes the divisor's sign.
                let m = self
                    .math2(intrinsics::binary_math(self.flavor, BinaryOp::Rem, d).unwrap(), l, r)?
                    .into_float_value();
                let zero = l.get_type().const_zero();
                let nz = cmp(FloatPredicate::ONE, m, zero)?;
                let m_neg = cmp(FloatPredicate::OLT, m, zero)?;
                let r_neg = cmp(FloatPredicate::OLT, r, zero)?;
                let differ = cg(b.build_xor(m_neg, r_neg, "differ"))?;
                let fix = cg(b.build_and(nz, differ, "fix"))?;
                let adj = cg(b.build_float_add(m, r, "adj"))?;
                cg(b.build_select(fix, adj, m, "rem"))?
            }
            BinaryOp::Pow | BinaryOp::Atan2 | BinaryOp::Hypot => {
                self.math2(intrinsics::binary_math(self.flavor, op, d).unwrap(), l, r)?
            }
            BinaryOp::Min | BinaryOp::Max => {
                // np.minimum / np.maximum propagate NaN from either side.
                let p = if op == BinaryOp::Min { FloatPredicate::OLT } else { FloatPredicate::OGT };
                let pick = cmp(p, l, r)?;
                let m = cg(b.build_select(pick, l, r, "m"))?.into_float_value();
                let l_nan = cmp(FloatPredicate::UNO, l, l)?;
                let m = cg(b.build_select(l_nan, l, m, "m"))?.into_float_value();
                let r_nan = cmp(FloatPredicate::UNO, r, r)?;
                cg(b.build_select(r_nan, r, m, "minmax"))?
            }
            BinaryOp::Lt => cmp(FloatPredicate::OLT, l, r)?.into(),
            BinaryOp::Le => cmp(FloatPredicate::OLE, l, r)?.into(),
            BinaryOp::Gt => cmp(FloatPredicate::OGT, l, r)?.into(),
            BinaryOp::Ge => cmp(FloatPredicate::OGE, l, r)?.into(),
            BinaryOp::Eq => cmp(FloatPredicate::OEQ, l, r)?.into(),
            BinaryOp::Ne => cmp(FloatPredicate::UNE, l, r)?.into(),
            BinaryOp::And | BinaryOp::Or | BinaryOp::Xor => {
                return Err(Error::Codegen(format!("bitwise {op:?} of floats")))
            }
        })
    }

    fn int_binary(&self, op: BinaryOp, l: IntValue<'ctx>, r: IntValue<'ctx>, d: DType) -> Result<BasicValueEnum<'ctx>> {
        let b = &self.b;
        let s = d.is_signed();
        let icmp = |p: IntPredicate| cg(b.build_int_compare(p, l, r, "cmp"));
        let (lt, le, gt, ge) = if s {
            (IntPredicate::SLT, IntPredicate::SLE, IntPredicate::SGT, IntPredicate::SGE)
        } else {
            (IntPredicate::ULT, IntPredicate::ULE, IntPredicate::UGT, IntPredicate::UGE)
        };
        let bool_logic = d == DType::Bool;
        Ok(match op {
            BinaryOp::Add if bool_logic => cg(b.build_or(l, r, "or"))?.into(),
            BinaryOp::Mul if bool_logic => cg(b.build_and(l, r, "and"))?.into(),
            BinaryOp::Add => cg(b.build_int_add(l, r, "add"))?.into(),
            BinaryOp::Sub => cg(b.build_int_sub(l, r, "sub"))?.into(),
            BinaryOp::Mul => cg(b.build_int_mul(l, r, "mul"))?.into(),
            BinaryOp::And => cg(b.build_and(l, r, "and"))?.into(),
            BinaryOp::Or => cg(b.build_or(l, r, "or"))?.into(),
            BinaryOp::Xor => cg(b.build_xor(l, r, "xor"))?.into(),
            BinaryOp::Lt => icmp(lt)?.into(),
            BinaryOp::Le => icmp(le)?.into(),
            BinaryOp::Gt => icmp(gt)?.into(),
            BinaryOp::Ge => icmp(ge)?.into(),
            BinaryOp::Eq => icmp(IntPredicate::EQ)?.into(),
            BinaryOp::Ne => icmp(IntPredicate::NE)?.into(),
            BinaryOp::Min => cg(b.build_select(icmp(lt)?, l, r, "min"))?,
            BinaryOp::Max => cg(b.build_select(icmp(gt)?, l, r, "max"))?,
            BinaryOp::FloorDiv | BinaryOp::Rem | BinaryOp::Div => {
                // NumPy: division by zero gives 0; floor semantics for signed operands.
                let zero = l.get_type().const_zero();
                let one = l.get_type().const_int(1, false);
                let rz = cg(b.build_int_compare(IntPredicate::EQ, r, zero, "rz"))?;
                let safe_r = cg(b.build_select(rz, one, r, "safe"))?.into_int_value();
                let (q, m) = if s {
                    (cg(b.build_int_signed_div(l, safe_r, "q"))?, cg(b.build_int_signed_rem(l, safe_r, "m"))?)
                } else {
                    (cg(b.build_int_unsigned_div(l, safe_r, "q"))?, cg(b.build_int_unsigned_rem(l, safe_r, "m"))?)
                };
                let (q, m) = if s && op != BinaryOp::Div {
                    let nz = cg(b.build_int_compare(IntPredicate::NE, m, zero, "nz"))?;
                    let m_neg = cg(b.build_int_compare(IntPredicate::SLT, m, zero, "mneg"))?;
                    let r_neg = cg(b.build_int_compare(IntPredicate::SLT, safe_r, zero, "rneg"))?;
                    let differ = cg(b.build_xor(m_neg, r_neg, "differ"))?;
                    let fix = cg(b.build_and(nz, differ, "fix"))?;
                    let q1 = cg(b.build_int_sub(q, one, "q1"))?;
                    let m1 = cg(b.build_int_add(m, safe_r, "m1"))?;
                    (
                        cg(b.build_select(fix, q1, q, "fq"))?.into_int_value(),
                        cg(b.build_select(fix, m1, m, "fm"))?.into_int_value(),
                    )
                } else {
                    (q, m)
                };
                let res = if op == BinaryOp::Rem { m } else { q };
                cg(b.build_select(rz, zero, res, "divres"))?
            }
            BinaryOp::Pow => self.int_pow(l, r, d)?,
            BinaryOp::Atan2 | BinaryOp::Hypot => {
                return Err(Error::Unsupported(format!("{op:?} of {} values is not supported yet", d.name())))
            }
        })
    }

    /// Integer `l ** r` by square-and-multiply, unrolled over the exponent's bits (no branches, so
    /// the driver still vectorises across work-items); wraps around on overflow like NumPy. NumPy
    /// refuses negative integer exponents, which a kernel cannot do: they give what `1 / l**-r`
    /// truncates to, as in Numba (1 for `l == 1`, +-1 for `l == -1`, else 0).
    fn int_pow(&self, l: IntValue<'ctx>, r: IntValue<'ctx>, d: DType) -> Result<BasicValueEnum<'ctx>> {
        let b = &self.b;
        let t = l.get_type();
        if d == DType::Bool {
            // x ** False is True, x ** True is x
            let not_r = cg(b.build_not(r, "not_r"))?;
            return Ok(cg(b.build_or(l, not_r, "pow"))?.into());
        }
        let one = t.const_int(1, false);
        let (mut acc, mut base, mut e) = (one, l, r);
        for i in 0..t.get_bit_width() {
            let bit = cg(b.build_and(e, one, "bit"))?;
            let odd = cg(b.build_int_compare(IntPredicate::NE, bit, t.const_zero(), "odd"))?;
            let times = cg(b.build_int_mul(acc, base, "times"))?;
            acc = cg(b.build_select(odd, times, acc, "acc"))?.into_int_value();
            if i + 1 < t.get_bit_width() {
                base = cg(b.build_int_mul(base, base, "sq"))?;
                e = cg(b.build_right_shift(e, one, false, "e"))?;
            }
        }
        if !d.is_signed() {
            return Ok(acc.into());
        }
        let neg = cg(b.build_int_compare(IntPredicate::SLT, r, t.const_zero(), "neg_exp"))?;
        let minus_one = t.const_all_ones();
        let r_odd = cg(b.build_and(r, one, "r_odd"))?;
        let r_odd = cg(b.build_int_compare(IntPredicate::NE, r_odd, t.const_zero(), "r_odd"))?;
        let sign = cg(b.build_select(r_odd, minus_one, one, "sign"))?.into_int_value();
        let is_one = cg(b.build_int_compare(IntPredicate::EQ, l, one, "is_one"))?;
        let is_minus_one = cg(b.build_int_compare(IntPredicate::EQ, l, minus_one, "is_m1"))?;
        let inv = cg(b.build_select(is_minus_one, sign, t.const_zero(), "inv"))?.into_int_value();
        let inv = cg(b.build_select(is_one, one, inv, "inv"))?.into_int_value();
        cg(b.build_select(neg, inv, acc, "pow"))
    }
}
