//! Lowering of the value operations shared by both kernel forms: constants, casts, and the unary
//! and binary operators with NumPy's semantics (integer division by zero gives 0, floor division and
//! remainder round toward negative infinity, integer powers wrap around).

use inkwell::types::IntType;
use inkwell::values::{BasicValueEnum, FloatValue, IntValue};
use inkwell::{FloatPredicate, IntPredicate};

use super::builder::{cg, KernelBuilder};
use super::intrinsics;
use crate::error::{Error, Result};
use crate::ir::{round_f16, BinaryOp, DType, UnaryOp};

impl<'ctx> KernelBuilder<'ctx> {
    pub(super) fn constant(&self, d: DType, value: f64, bits: i64) -> BasicValueEnum<'ctx> {
        match d {
            DType::F16 => self.ctx.f32_type().const_float(round_f16(value)).into(),
            DType::C64 | DType::C128 => self.complex_constant(d, value, f64::from_bits(bits as u64)),
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
        if to == DType::F16 {
            // float64 rounds to half directly (through float32 it could round twice)
            let wide = if from.is_float() || from.is_complex() { from.component() } else { DType::F32 };
            let wide = if wide == DType::F16 { DType::F32 } else { wide };
            return self.round_half(self.cast(v, from, wide)?);
        }
        if from == DType::F16 {
            return self.cast(v, DType::F32, to);
        }
        if from.is_complex() || to.is_complex() {
            return self.complex_cast(v, from, to);
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
                    self.float_to_unsigned(fv, ty.into_int_type())?.into()
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

    /// A float as an unsigned integer, as NumPy converts on its usual hosts: through a signed 64-bit
    /// integer, so that a negative value wraps (`-1.0` is 255 as uint8, 2**64 - 1 as uint64); values
    /// from 2**63 up convert unsigned. LLVM's `fptoui` leaves negative values undefined, and devices
    /// differ on them (the OpenCL CPU runtime gives the magnitude, PTX saturates to 0).
    fn float_to_unsigned(&self, fv: FloatValue<'ctx>, to: IntType<'ctx>) -> Result<IntValue<'ctx>> {
        let b = &self.b;
        let i64t = self.ctx.i64_type();
        let signed = cg(b.build_float_to_signed_int(fv, i64t, "fptosi"))?;
        if to.get_bit_width() < 64 {
            return cg(b.build_int_truncate(signed, to, "trunc"));
        }
        let big = fv.get_type().const_float(9_223_372_036_854_775_808.0);
        let is_big = cg(b.build_float_compare(FloatPredicate::OGE, fv, big, "big"))?;
        let unsigned = cg(b.build_float_to_unsigned_int(fv, to, "fptoui"))?;
        Ok(cg(b.build_select(is_big, unsigned, signed, "tou64"))?.into_int_value())
    }

    pub(super) fn math1(&self, name: String, v: FloatValue<'ctx>) -> Result<BasicValueEnum<'ctx>> {
        let t = v.get_type();
        self.call_builtin(&name, t.into(), &[v.into()], &[t.into()])
    }

    pub(super) fn math2(&self, name: String, a: FloatValue<'ctx>, c: FloatValue<'ctx>) -> Result<BasicValueEnum<'ctx>> {
        let t = a.get_type();
        self.call_builtin(&name, t.into(), &[a.into(), c.into()], &[t.into(), t.into()])
    }

    /// Unary operation `op` on `v`, a value of dtype `d`.
    pub(super) fn unary(&self, op: UnaryOp, v: BasicValueEnum<'ctx>, d: DType) -> Result<BasicValueEnum<'ctx>> {
        if d == DType::F16 {
            return self.round_half(self.unary(op, v, DType::F32)?);
        }
        if d.is_complex() {
            return self.complex_unary(op, v, d);
        }
        let b = &self.b;
        Ok(match op {
            UnaryOp::Conj => v,
            UnaryOp::Real | UnaryOp::Imag => return Err(Error::Codegen(format!("{op:?} of a {} value", d.name()))),
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
        if d == DType::F16 {
            let v = self.binary(op, l, r, DType::F32)?;
            return if op.is_comparison() { Ok(v) } else { self.round_half(v) };
        }
        if d.is_complex() {
            self.complex_binary(op, l, r, d)
        } else if d.is_float() {
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
            BinaryOp::FloorDiv => self.float_divmod(l, r, d)?.0.into(),
            BinaryOp::Rem => self.float_divmod(l, r, d)?.1.into(),
            BinaryOp::Pow
            | BinaryOp::Atan2
            | BinaryOp::Hypot
            | BinaryOp::Fmod
            | BinaryOp::Copysign
            | BinaryOp::Nextafter => self.math2(intrinsics::binary_math(self.flavor, op, d).unwrap(), l, r)?,
            BinaryOp::Ldexp => self.ldexp(l, r, d)?,
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
            BinaryOp::And | BinaryOp::Or | BinaryOp::Xor | BinaryOp::Shl | BinaryOp::Shr | BinaryOp::Gcd => {
                return Err(Error::Codegen(format!("integer operation {op:?} of floats")))
            }
        })
    }

    /// Floor division and remainder of floats as NumPy computes them (`npy_divmod`): the remainder
    /// takes the divisor's sign (+-0 included), the quotient is `(l - mod) / r` snapped to an
    /// integral value; a zero divisor gives `l / r` and `fmod(l, r)`.
    fn float_divmod(
        &self,
        l: FloatValue<'ctx>,
        r: FloatValue<'ctx>,
        d: DType,
    ) -> Result<(FloatValue<'ctx>, FloatValue<'ctx>)> {
        let b = &self.b;
        let t = l.get_type();
        let (zero, one, half) = (t.const_zero(), t.const_float(1.0), t.const_float(0.5));
        let cmp =
            |p: FloatPredicate, x: FloatValue<'ctx>, y: FloatValue<'ctx>| cg(b.build_float_compare(p, x, y, "cmp"));
        let sel = |c, x: FloatValue<'ctx>, y: FloatValue<'ctx>| -> Result<FloatValue<'ctx>> {
            Ok(cg(b.build_select(c, x, y, "sel"))?.into_float_value())
        };
        let copysign = |x: FloatValue<'ctx>, y: FloatValue<'ctx>| -> Result<FloatValue<'ctx>> {
            Ok(self.math2(intrinsics::copysign(self.flavor, d), x, y)?.into_float_value())
        };
        let m = self.math2(intrinsics::binary_math(self.flavor, BinaryOp::Fmod, d).unwrap(), l, r)?.into_float_value();
        let quotient = cg(b.build_float_div(l, r, "q"))?;
        let div = cg(b.build_float_div(cg(b.build_float_sub(l, m, "lm"))?, r, "div"))?;
        // a nonzero remainder of the other sign than the divisor moves by one divisor
        let m_nz = cmp(FloatPredicate::UNE, m, zero)?;
        let differ = cg(b.build_xor(cmp(FloatPredicate::OLT, r, zero)?, cmp(FloatPredicate::OLT, m, zero)?, "differ"))?;
        let fix = cg(b.build_and(m_nz, differ, "fix"))?;
        let m_fixed = sel(fix, cg(b.build_float_add(m, r, "m_adj"))?, m)?;
        let m_fixed = sel(m_nz, m_fixed, copysign(zero, r)?)?;
        let div = sel(fix, cg(b.build_float_sub(div, one, "div_adj"))?, div)?;
        // snap the quotient to the nearest integral value
        let fl = self.math1(intrinsics::unary_math(self.flavor, UnaryOp::Floor, d).unwrap(), div)?.into_float_value();
        let up = cmp(FloatPredicate::OGT, cg(b.build_float_sub(div, fl, "frac"))?, half)?;
        let fl = sel(up, cg(b.build_float_add(fl, one, "fl1"))?, fl)?;
        let div_nz = cmp(FloatPredicate::UNE, div, zero)?;
        let floordiv = sel(div_nz, fl, copysign(zero, quotient)?)?;
        let r_zero = cmp(FloatPredicate::OEQ, r, zero)?;
        Ok((sel(r_zero, quotient, floordiv)?, sel(r_zero, m, m_fixed)?))
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
            BinaryOp::FloorDiv | BinaryOp::Rem | BinaryOp::Div => self.int_div(op, l, r, s)?,
            BinaryOp::Pow => self.int_pow(l, r, d)?,
            BinaryOp::Shl | BinaryOp::Shr => self.shift(op, l, r, s)?,
            BinaryOp::Fmod => self.int_fmod(l, r, s)?,
            BinaryOp::Gcd => self.gcd(l, r, s)?,
            BinaryOp::Atan2 | BinaryOp::Hypot | BinaryOp::Copysign | BinaryOp::Nextafter | BinaryOp::Ldexp => {
                return Err(Error::Unsupported(format!("{op:?} of {} values is not supported yet", d.name())))
            }
        })
    }

    /// Integer `/`, `//` and `%` (`op`) as NumPy computes them: division by zero gives 0, and for
    /// `signed` operands `//` and `%` round toward negative infinity.
    fn int_div(
        &self,
        op: BinaryOp,
        l: IntValue<'ctx>,
        r: IntValue<'ctx>,
        signed: bool,
    ) -> Result<BasicValueEnum<'ctx>> {
        let b = &self.b;
        let zero = l.get_type().const_zero();
        let one = l.get_type().const_int(1, false);
        let rz = cg(b.build_int_compare(IntPredicate::EQ, r, zero, "rz"))?;
        let safe_r = cg(b.build_select(rz, one, r, "safe"))?.into_int_value();
        let (q, m) = if signed {
            (cg(b.build_int_signed_div(l, safe_r, "q"))?, cg(b.build_int_signed_rem(l, safe_r, "m"))?)
        } else {
            (cg(b.build_int_unsigned_div(l, safe_r, "q"))?, cg(b.build_int_unsigned_rem(l, safe_r, "m"))?)
        };
        let (q, m) = if signed && op != BinaryOp::Div {
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
        cg(b.build_select(rz, zero, res, "divres"))
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

    /// `l * 2**r` through the target's ldexp; `r` holds an integer in the float dtype, clamped to a
    /// range beyond which every result is 0 or infinite before it becomes the builtin's 32-bit int.
    fn ldexp(&self, l: FloatValue<'ctx>, r: FloatValue<'ctx>, d: DType) -> Result<BasicValueEnum<'ctx>> {
        let b = &self.b;
        let t = l.get_type();
        let hi = t.const_float(4096.0);
        let lo = t.const_float(-4096.0);
        let above = cg(b.build_float_compare(FloatPredicate::OGT, r, hi, "above"))?;
        let r = cg(b.build_select(above, hi, r, "r_hi"))?.into_float_value();
        let below = cg(b.build_float_compare(FloatPredicate::OLT, r, lo, "below"))?;
        let r = cg(b.build_select(below, lo, r, "r_lo"))?.into_float_value();
        let i32t = self.ctx.i32_type();
        let n = cg(b.build_float_to_signed_int(r, i32t, "n"))?;
        let name = intrinsics::ldexp(self.flavor, d);
        self.call_builtin(&name, t.into(), &[l.into(), n.into()], &[t.into(), i32t.into()])
    }

    /// `l << r` and `l >> r` as NumPy computes them: a count outside `[0, bits)` shifts every bit
    /// out (0, or -1 for a negative signed `l` shifted right).
    fn shift(&self, op: BinaryOp, l: IntValue<'ctx>, r: IntValue<'ctx>, signed: bool) -> Result<BasicValueEnum<'ctx>> {
        let b = &self.b;
        let t = l.get_type();
        let bits = t.const_int(t.get_bit_width() as u64, false);
        let inside = cg(b.build_int_compare(IntPredicate::ULT, r, bits, "inside"))?;
        if op == BinaryOp::Shr && signed {
            let last = t.const_int(t.get_bit_width() as u64 - 1, false);
            let count = cg(b.build_select(inside, r, last, "count"))?.into_int_value();
            return Ok(cg(b.build_right_shift(l, count, true, "shr"))?.into());
        }
        let count = cg(b.build_select(inside, r, t.const_zero(), "count"))?.into_int_value();
        let v = if op == BinaryOp::Shl {
            cg(b.build_left_shift(l, count, "shl"))?
        } else {
            cg(b.build_right_shift(l, count, false, "shr"))?
        };
        cg(b.build_select(inside, v, t.const_zero(), "shift"))
    }

    /// C's truncated remainder (np.fmod of integers): 0 for a zero divisor, and for -1 (where the
    /// machine instruction overflows on the smallest value).
    fn int_fmod(&self, l: IntValue<'ctx>, r: IntValue<'ctx>, signed: bool) -> Result<BasicValueEnum<'ctx>> {
        let b = &self.b;
        let t = l.get_type();
        let one = t.const_int(1, false);
        let mut bad = cg(b.build_int_compare(IntPredicate::EQ, r, t.const_zero(), "rz"))?;
        if signed {
            let m1 = cg(b.build_int_compare(IntPredicate::EQ, r, t.const_all_ones(), "rm1"))?;
            bad = cg(b.build_or(bad, m1, "bad"))?;
        }
        let safe = cg(b.build_select(bad, one, r, "safe"))?.into_int_value();
        Ok(if signed {
            cg(b.build_int_signed_rem(l, safe, "fmod"))?.into()
        } else {
            cg(b.build_int_unsigned_rem(l, safe, "fmod"))?.into()
        })
    }

    /// The greatest common divisor of `|l|` and `|r|` by Euclid's algorithm (a loop in the kernel).
    fn gcd(&self, l: IntValue<'ctx>, r: IntValue<'ctx>, signed: bool) -> Result<BasicValueEnum<'ctx>> {
        let b = &self.b;
        let t = l.get_type();
        let abs = |v: IntValue<'ctx>| -> Result<IntValue<'ctx>> {
            if !signed {
                return Ok(v);
            }
            let neg = cg(b.build_int_neg(v, "neg"))?;
            let lt = cg(b.build_int_compare(IntPredicate::SLT, v, t.const_zero(), "lt0"))?;
            Ok(cg(b.build_select(lt, neg, v, "abs"))?.into_int_value())
        };
        let (a0, b0) = (abs(l)?, abs(r)?);
        let pre = b.get_insert_block().ok_or_else(|| Error::Codegen("gcd outside a block".into()))?;
        let f = pre.get_parent().ok_or_else(|| Error::Codegen("gcd outside a function".into()))?;
        let head = self.ctx.append_basic_block(f, "gcd_head");
        let step = self.ctx.append_basic_block(f, "gcd_step");
        let done = self.ctx.append_basic_block(f, "gcd_done");
        cg(b.build_unconditional_branch(head))?;
        b.position_at_end(head);
        let x = cg(b.build_phi(t, "x"))?;
        let y = cg(b.build_phi(t, "y"))?;
        let (xv, yv) = (x.as_basic_value().into_int_value(), y.as_basic_value().into_int_value());
        let more = cg(b.build_int_compare(IntPredicate::NE, yv, t.const_zero(), "more"))?;
        cg(b.build_conditional_branch(more, step, done))?;
        b.position_at_end(step);
        let safe = cg(b.build_select(more, yv, t.const_int(1, false), "safe"))?.into_int_value();
        let rem = cg(b.build_int_unsigned_rem(xv, safe, "rem"))?;
        cg(b.build_unconditional_branch(head))?;
        x.add_incoming(&[(&a0, pre), (&yv, step)]);
        y.add_incoming(&[(&b0, pre), (&rem, step)]);
        b.position_at_end(done);
        Ok(xv.into())
    }
}
