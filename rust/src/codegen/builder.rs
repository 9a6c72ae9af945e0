//! `KernelBuilder`: lowers a verified dataflow graph to one LLVM kernel function.

use std::collections::HashMap;

use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::types::{BasicMetadataTypeEnum, BasicType, BasicTypeEnum, FunctionType};
use inkwell::values::BasicValue;
use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum, FunctionValue, IntValue, PointerValue};
use inkwell::{AddressSpace, IntPredicate};

use super::intrinsics::{self, Flavor};
use crate::error::{Error, Result};
use crate::ir::{DType, Graph, Node, Op, ParamKind};
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

/// The unpacked parameters of an elementwise kernel, by parameter index.
struct Params<'ctx> {
    arrays: HashMap<usize, ArrayArg<'ctx>>,
    scalars: HashMap<usize, BasicValueEnum<'ctx>>,
    shape: Vec<IntValue<'ctx>>,
    /// The element count.
    n: IntValue<'ctx>,
}

/// The element a work-item handles: its linear id and its multi-index (used by strided arrays).
struct Element<'a, 'ctx> {
    gid: IntValue<'ctx>,
    index: &'a [IntValue<'ctx>],
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

    /// Register type of a dtype (bool is `i1` in registers, `i8` in memory; float16 is `float` in
    /// registers, `half` in memory).
    ///
    /// float16: values are stored as IEEE half and computed in float32; every operation whose result
    /// is float16 rounds it to half precision (`round_half`), so a chain of float16 operations gives
    /// NumPy's float16 results, which NumPy also computes in float32 and rounds per operation. Single
    /// precision has more than twice half's significand bits plus two, so rounding the float32 result
    /// of `+ - * / sqrt` once more to half gives the correctly rounded half result. (The optimiser
    /// may narrow such an operation into a `half` one, which is exact; LLVM's SPIR-V back end then
    /// declares the Float16 capability, and the device needs cl_khr_fp16: `DeviceTarget::has_fp16`.)
    pub(super) fn reg_ty(&self, d: DType) -> BasicTypeEnum<'ctx> {
        match d {
            DType::F16 => self.ctx.f32_type().into(),
            DType::Bool => self.ctx.bool_type().into(),
            DType::I8 | DType::U8 => self.ctx.i8_type().into(),
            DType::I16 | DType::U16 => self.ctx.i16_type().into(),
            DType::I32 | DType::U32 => self.ctx.i32_type().into(),
            DType::I64 | DType::U64 => self.ctx.i64_type().into(),
            DType::F32 => self.ctx.f32_type().into(),
            DType::F64 => self.ctx.f64_type().into(),
            DType::C64 | DType::C128 => self.complex_ty(d).into(),
        }
    }
    pub(super) fn mem_ty(&self, d: DType) -> BasicTypeEnum<'ctx> {
        match d {
            DType::Bool => self.ctx.i8_type().into(),
            DType::F16 => self.ctx.f16_type().into(),
            _ => self.reg_ty(d),
        }
    }

    /// A value of dtype `d` as loaded from memory (or received as an argument) in its register form.
    pub(super) fn mem_to_reg(&self, v: BasicValueEnum<'ctx>, d: DType) -> Result<BasicValueEnum<'ctx>> {
        Ok(match d {
            DType::Bool => self.i8_to_bool(v.into_int_value())?,
            DType::F16 => cg(self.b.build_float_ext(v.into_float_value(), self.ctx.f32_type(), "h2f"))?.into(),
            _ => v,
        })
    }

    /// A register value of dtype `d` in its memory form (float16 values are already rounded to half,
    /// so the truncation is exact).
    pub(super) fn reg_to_mem(&self, v: BasicValueEnum<'ctx>, d: DType) -> Result<BasicValueEnum<'ctx>> {
        Ok(match d {
            DType::Bool => cg(self.b.build_int_z_extend(v.into_int_value(), self.ctx.i8_type(), "b8"))?.into(),
            DType::F16 => cg(self.b.build_float_trunc(v.into_float_value(), self.ctx.f16_type(), "f2h"))?.into(),
            _ => v,
        })
    }

    /// A float value (float32 or float64) rounded to half precision, in float16's register form.
    pub(super) fn round_half(&self, v: BasicValueEnum<'ctx>) -> Result<BasicValueEnum<'ctx>> {
        let h = cg(self.b.build_float_trunc(v.into_float_value(), self.ctx.f16_type(), "rh"))?;
        Ok(cg(self.b.build_float_ext(h, self.ctx.f32_type(), "h2f"))?.into())
    }

    pub fn build(self, g: &Graph) -> Result<Module<'ctx>> {
        let f = self.module.add_function(&g.name, self.signature(g), None);
        f.set_call_conventions(self.flavor.kernel_cc());
        let entry = self.ctx.append_basic_block(f, "entry");
        let body = self.ctx.append_basic_block(f, "body");
        let exit = self.ctx.append_basic_block(f, "exit");
        self.b.position_at_end(entry);
        let p = self.unpack_params(f, g)?;
        let gid = self.global_id()?;
        // Launches cover exactly `n` work-items on SPIR-V devices, so no guard there (a branch here
        // keeps the driver from vectorising across work-items); PTX launches round up to blocks.
        if self.flavor == Flavor::Spirv {
            cg(self.b.build_unconditional_branch(body))?;
        } else {
            let inb = cg(self.b.build_int_compare(IntPredicate::ULT, gid, p.n, "in_range"))?;
            cg(self.b.build_conditional_branch(inb, body, exit))?;
        }
        self.b.position_at_end(body);
        let index = self.multi_index(&p, gid)?;
        let at = Element { gid, index: &index };
        let mut vals: HashMap<usize, BasicValueEnum> = HashMap::new();
        for i in g.topo_order()? {
            if let Some(v) = self.lower_node(g, g.node(i), &p, &at, &vals)? {
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

    /// The kernel's signature per the kernel ABI (codegen/mod.rs).
    fn signature(&self, g: &Graph) -> FunctionType<'ctx> {
        let i64t = self.ctx.i64_type();
        let gptr = self.ctx.ptr_type(AddressSpace::from(address_space::GLOBAL));
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
                ParamKind::Scalar { dtype } if dtype.is_complex() => {
                    tys.extend(std::iter::repeat_n(BasicMetadataTypeEnum::from(self.reg_ty(dtype.component())), 2))
                }
                ParamKind::Scalar { dtype } => tys.push(self.mem_ty(dtype).into()),
            }
        }
        tys.extend(std::iter::repeat_n(BasicMetadataTypeEnum::from(i64t), g.ndim + 1));
        self.ctx.void_type().fn_type(&tys, false)
    }

    /// Name and unpack the parameters of kernel `f` (bool scalars become `i1`).
    fn unpack_params(&self, f: FunctionValue<'ctx>, g: &Graph) -> Result<Params<'ctx>> {
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
                ParamKind::Scalar { dtype } if dtype.is_complex() => {
                    let (re, im) = (param(k).into_float_value(), param(k + 1).into_float_value());
                    scalars.insert(pi, self.make_complex(dtype, re, im)?);
                    k += 2;
                }
                ParamKind::Scalar { dtype } => {
                    let v = param(k);
                    v.set_name(&p.name);
                    scalars.insert(pi, self.mem_to_reg(v, dtype)?);
                    k += 1;
                }
            }
        }
        let shape: Vec<IntValue> = (0..g.ndim).map(|d| param(k + d as u32).into_int_value()).collect();
        let n = param(k + g.ndim as u32).into_int_value();
        n.set_name("n");
        Ok(Params { arrays, scalars, shape, n })
    }

    /// The multi-index of work-item `gid` (only needed for strided arrays, else zeros): the linear id
    /// unravelled over the shape, C order.
    fn multi_index(&self, p: &Params<'ctx>, gid: IntValue<'ctx>) -> Result<Vec<IntValue<'ctx>>> {
        let ndim = p.shape.len();
        let mut index: Vec<IntValue> = vec![self.ctx.i64_type().const_zero(); ndim];
        if p.arrays.values().any(|a| a.strides.is_some()) {
            let mut rest = gid;
            for d in (0..ndim).rev() {
                if d == 0 {
                    index[0] = rest;
                } else {
                    index[d] = cg(self.b.build_int_unsigned_rem(rest, p.shape[d], &format!("i{d}")))?;
                    rest = cg(self.b.build_int_unsigned_div(rest, p.shape[d], "rest"))?;
                }
            }
        }
        Ok(index)
    }

    /// Lower one node; its value (None for stores).
    fn lower_node(
        &self,
        g: &Graph,
        node: &Node,
        p: &Params<'ctx>,
        at: &Element<'_, 'ctx>,
        vals: &HashMap<usize, BasicValueEnum<'ctx>>,
    ) -> Result<Option<BasicValueEnum<'ctx>>> {
        Ok(Some(match node.op {
            Op::Load { param } => {
                let ptr = self.element_ptr(&p.arrays[&param], at, node.dtype)?;
                let ld =
                    cg(self.b.build_load(self.mem_ty(node.dtype), ptr, &format!("{}_elem", g.params[param].name)))?;
                if let Some(inst) = ld.as_instruction_value() {
                    let _ = inst.set_alignment(node.dtype.align() as u32);
                }
                self.mem_to_reg(ld, node.dtype)?
            }
            Op::Scalar { param } => p.scalars[&param],
            Op::Const { value, bits } => self.constant(node.dtype, value, bits),
            Op::Cast { arg } => self.cast(vals[&arg], g.node(arg).dtype, node.dtype)?,
            Op::Unary { op, arg } => self.unary(op, vals[&arg], g.node(arg).dtype)?,
            Op::Binary { op, lhs, rhs } => self.binary(op, vals[&lhs], vals[&rhs], g.node(lhs).dtype)?,
            Op::Select { cond, a, b } => {
                cg(self.b.build_select(vals[&cond].into_int_value(), vals[&a], vals[&b], "sel"))?
            }
            Op::Store { param, value } => {
                let ptr = self.element_ptr(&p.arrays[&param], at, node.dtype)?;
                let v = self.reg_to_mem(vals[&value], node.dtype)?;
                let st = cg(self.b.build_store(ptr, v))?;
                let _ = st.set_alignment(node.dtype.align() as u32);
                return Ok(None);
            }
        }))
    }

    /// A bool in memory (`i8`) as a register value (`i1`).
    pub(super) fn i8_to_bool(&self, v: IntValue<'ctx>) -> Result<BasicValueEnum<'ctx>> {
        Ok(cg(self.b.build_int_compare(IntPredicate::NE, v, self.ctx.i8_type().const_zero(), "b"))?.into())
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

    fn element_ptr(&self, a: &ArrayArg<'ctx>, at: &Element<'_, 'ctx>, dt: DType) -> Result<PointerValue<'ctx>> {
        let i64t = self.ctx.i64_type();
        let byte_off = match &a.strides {
            None => cg(self.b.build_int_mul(at.gid, i64t.const_int(dt.size() as u64, false), "off"))?,
            Some(strides) => {
                let mut acc = i64t.const_zero();
                for (i, s) in at.index.iter().zip(strides) {
                    let t = cg(self.b.build_int_mul(*i, *s, "t"))?;
                    acc = cg(self.b.build_int_add(acc, t, "off"))?;
                }
                acc
            }
        };
        let total = cg(self.b.build_int_add(a.offset, byte_off, "boff"))?;
        unsafe { cg(self.b.build_gep(self.ctx.i8_type(), a.base, &[total], "ptr")) }
    }
}
