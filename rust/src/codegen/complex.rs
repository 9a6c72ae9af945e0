//! Complex values (`complex64`, `complex128`): an LLVM struct `{T, T}` (real, imaginary) of the
//! component float type, which is also NumPy's memory layout. Every operation is lowered to real
//! arithmetic and the target's real math functions, with the textbook formulas:
//!
//! * `x ** y` as `exp(y log x)` (`0 ** 0 = 1`, `0 ** y = 0`);
//! * `a / b` by Smith's algorithm (the larger component of the divisor scales the other), as Numba
//!   does, so the intermediate `|b|^2` never overflows or underflows;
//! * `abs` through `hypot`; `log z = log|z| + i atan2(im, re)`; `exp z = e^re (cos im + i sin im)`;
//! * `sqrt` by the stable form `t = sqrt((|re| + |z|) / 2)`, giving `(t, im / 2t)` for `re >= 0`
//!   and `(|im| / 2t, copysign(t, im))` otherwise (so the branch cut follows the sign of `im`);
//! * `sin`, `cos`, `sinh`, `cosh` by their real and imaginary parts (`sin z = sin re cosh im + i cos
//!   re sinh im`, ...).
//!
//! Special values (infinities, NaN) are not given C99 Annex G's treatment: finite inputs whose
//! results are finite agree with NumPy within a few ulp.

use inkwell::types::StructType;
use inkwell::values::{BasicValueEnum, FloatValue, StructValue};
use inkwell::{FloatPredicate, IntPredicate};

use super::builder::{cg, KernelBuilder};
use super::intrinsics;
use crate::error::{Error, Result};
use crate::ir::{BinaryOp, DType, UnaryOp};

impl<'ctx> KernelBuilder<'ctx> {
    /// The struct type of a complex dtype.
    pub(super) fn complex_ty(&self, d: DType) -> StructType<'ctx> {
        let c = self.reg_ty(d.component());
        self.ctx.struct_type(&[c, c], false)
    }

    /// The (real, imaginary) parts of a complex value.
    fn parts(&self, v: BasicValueEnum<'ctx>) -> Result<(FloatValue<'ctx>, FloatValue<'ctx>)> {
        let s = v.into_struct_value();
        let re = cg(self.b.build_extract_value(s, 0, "re"))?.into_float_value();
        let im = cg(self.b.build_extract_value(s, 1, "im"))?.into_float_value();
        Ok((re, im))
    }

    /// The complex value `re + i im` of complex dtype `d`.
    pub(super) fn make_complex(
        &self,
        d: DType,
        re: FloatValue<'ctx>,
        im: FloatValue<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>> {
        let s: StructValue = self.complex_ty(d).get_undef();
        let s = cg(self.b.build_insert_value(s, re, 0, "c"))?;
        let s = cg(self.b.build_insert_value(s, im, 1, "c"))?;
        Ok(s.into_struct_value().into())
    }

    /// A complex constant.
    pub(super) fn complex_constant(&self, d: DType, re: f64, im: f64) -> BasicValueEnum<'ctx> {
        let t = self.reg_ty(d.component()).into_float_type();
        self.complex_ty(d).const_named_struct(&[t.const_float(re).into(), t.const_float(im).into()]).into()
    }

    /// A cast from or to a complex dtype with NumPy's semantics: reals gain a zero imaginary part,
    /// complex values cast to real types keep their real part (NumPy warns, `ComplexWarning`),
    /// and to bool test both parts against zero.
    pub(super) fn complex_cast(&self, v: BasicValueEnum<'ctx>, from: DType, to: DType) -> Result<BasicValueEnum<'ctx>> {
        if !from.is_complex() {
            let re = self.cast(v, from, to.component())?.into_float_value();
            let zero = re.get_type().const_zero();
            return self.make_complex(to, re, zero);
        }
        let (re, im) = self.parts(v)?;
        if to.is_complex() {
            let re = self.cast(re.into(), from.component(), to.component())?.into_float_value();
            let im = self.cast(im.into(), from.component(), to.component())?.into_float_value();
            return self.make_complex(to, re, im);
        }
        if to == DType::Bool {
            let zero = re.get_type().const_zero();
            let a = cg(self.b.build_float_compare(FloatPredicate::UNE, re, zero, "re_nz"))?;
            let c = cg(self.b.build_float_compare(FloatPredicate::UNE, im, zero, "im_nz"))?;
            return Ok(cg(self.b.build_or(a, c, "tobool"))?.into());
        }
        self.cast(re.into(), from.component(), to)
    }

    /// The target's real math function `op` on one component.
    fn rmath(&self, op: UnaryOp, d: DType, x: FloatValue<'ctx>) -> Result<FloatValue<'ctx>> {
        let name = intrinsics::unary_math(self.flavor, op, d.component())
            .ok_or_else(|| Error::Codegen(format!("no builtin for {op:?}")))?;
        Ok(self.math1(name, x)?.into_float_value())
    }

    fn rmath2(&self, op: BinaryOp, d: DType, x: FloatValue<'ctx>, y: FloatValue<'ctx>) -> Result<FloatValue<'ctx>> {
        let name = intrinsics::binary_math(self.flavor, op, d.component())
            .ok_or_else(|| Error::Codegen(format!("no builtin for {op:?}")))?;
        Ok(self.math2(name, x, y)?.into_float_value())
    }

    /// A unary operation on a complex value of dtype `d` (see the module docs).
    pub(super) fn complex_unary(&self, op: UnaryOp, v: BasicValueEnum<'ctx>, d: DType) -> Result<BasicValueEnum<'ctx>> {
        let b = &self.b;
        let (re, im) = self.parts(v)?;
        let mul = |x, y| cg(b.build_float_mul(x, y, "m"));
        Ok(match op {
            UnaryOp::Real => re.into(),
            UnaryOp::Imag => im.into(),
            UnaryOp::Conj => self.make_complex(d, re, cg(b.build_float_neg(im, "nim"))?)?,
            UnaryOp::Neg => {
                self.make_complex(d, cg(b.build_float_neg(re, "nre"))?, cg(b.build_float_neg(im, "nim"))?)?
            }
            UnaryOp::Abs => self.rmath2(BinaryOp::Hypot, d, re, im)?.into(),
            UnaryOp::Exp => {
                let e = self.rmath(UnaryOp::Exp, d, re)?;
                let (c, s) = (self.rmath(UnaryOp::Cos, d, im)?, self.rmath(UnaryOp::Sin, d, im)?);
                // exp(-inf + iy) is zero even for an infinite or NaN y (C99's cexp, NumPy's)
                let ft = re.get_type();
                let vanish =
                    cg(b.build_float_compare(FloatPredicate::OEQ, re, ft.const_float(f64::NEG_INFINITY), "vanish"))?;
                let zero = ft.const_zero();
                let pick = |v| -> Result<FloatValue<'ctx>> {
                    Ok(cg(b.build_select(vanish, zero, v, "e"))?.into_float_value())
                };
                self.make_complex(d, pick(mul(e, c)?)?, pick(mul(e, s)?)?)?
            }
            UnaryOp::Log => {
                let m = self.rmath2(BinaryOp::Hypot, d, re, im)?;
                let l = self.rmath(UnaryOp::Log, d, m)?;
                self.make_complex(d, l, self.rmath2(BinaryOp::Atan2, d, im, re)?)?
            }
            UnaryOp::Sqrt => self.complex_sqrt(d, re, im)?,
            UnaryOp::Sin | UnaryOp::Cos | UnaryOp::Sinh | UnaryOp::Cosh => {
                // sin and cos take sin/cos of the real part and sinh/cosh of the imaginary part;
                // sinh and cosh the other way round.
                let hyperbolic = matches!(op, UnaryOp::Sinh | UnaryOp::Cosh);
                let (x, y) = if hyperbolic { (im, re) } else { (re, im) };
                let (sx, cx) = (self.rmath(UnaryOp::Sin, d, x)?, self.rmath(UnaryOp::Cos, d, x)?);
                let (shy, chy) = (self.rmath(UnaryOp::Sinh, d, y)?, self.rmath(UnaryOp::Cosh, d, y)?);
                match op {
                    // sin(x+iy) = sin x cosh y + i cos x sinh y
                    UnaryOp::Sin => self.make_complex(d, mul(sx, chy)?, mul(cx, shy)?)?,
                    // cos(x+iy) = cos x cosh y - i sin x sinh y
                    UnaryOp::Cos => self.make_complex(d, mul(cx, chy)?, cg(b.build_float_neg(mul(sx, shy)?, "n"))?)?,
                    // sinh(re+i im) = sinh re cos im + i cosh re sin im  (x = im, y = re)
                    UnaryOp::Sinh => self.make_complex(d, mul(shy, cx)?, mul(chy, sx)?)?,
                    // cosh(re+i im) = cosh re cos im + i sinh re sin im
                    _ => self.make_complex(d, mul(chy, cx)?, mul(shy, sx)?)?,
                }
            }
            _ => {
                return Err(Error::Unsupported(format!("{op:?} of {} values is not supported", d.name())));
            }
        })
    }

    fn complex_sqrt(&self, d: DType, re: FloatValue<'ctx>, im: FloatValue<'ctx>) -> Result<BasicValueEnum<'ctx>> {
        let b = &self.b;
        let t = re.get_type();
        let zero = t.const_zero();
        let m = self.rmath2(BinaryOp::Hypot, d, re, im)?;
        let are = self.rmath(UnaryOp::Abs, d, re)?;
        let half = cg(b.build_float_mul(cg(b.build_float_add(are, m, "s"))?, t.const_float(0.5), "h"))?;
        let s = self.rmath(UnaryOp::Sqrt, d, half)?;
        let two_s = cg(b.build_float_add(s, s, "two_s"))?;
        let is_zero = cg(b.build_float_compare(FloatPredicate::OEQ, s, zero, "s0"))?;
        let den = cg(b.build_select(is_zero, t.const_float(1.0), two_s, "den"))?.into_float_value();
        let q = cg(b.build_float_div(im, den, "q"))?; // im / 2s
        let aq = self.rmath(UnaryOp::Abs, d, q)?;
        let sign_s = self.math2(intrinsics::copysign(self.flavor, d.component()), s, im)?.into_float_value();
        let nonneg = cg(b.build_float_compare(FloatPredicate::OGE, re, zero, "nonneg"))?;
        let out_re = cg(b.build_select(nonneg, s, aq, "sre"))?.into_float_value();
        let out_im = cg(b.build_select(nonneg, q, sign_s, "sim"))?.into_float_value();
        self.make_complex(d, out_re, out_im)
    }

    /// A binary operation on complex values of dtype `d`: `+ - * /`, `**`, `==` and `!=`.
    pub(super) fn complex_binary(
        &self,
        op: BinaryOp,
        l: BasicValueEnum<'ctx>,
        r: BasicValueEnum<'ctx>,
        d: DType,
    ) -> Result<BasicValueEnum<'ctx>> {
        let b = &self.b;
        let (a, bb) = self.parts(l)?;
        let (c, dd) = self.parts(r)?;
        let add = |x, y| cg(b.build_float_add(x, y, "a"));
        let sub = |x, y| cg(b.build_float_sub(x, y, "s"));
        let mul = |x, y| cg(b.build_float_mul(x, y, "m"));
        Ok(match op {
            BinaryOp::Add => self.make_complex(d, add(a, c)?, add(bb, dd)?)?,
            BinaryOp::Sub => self.make_complex(d, sub(a, c)?, sub(bb, dd)?)?,
            BinaryOp::Mul => self.make_complex(d, sub(mul(a, c)?, mul(bb, dd)?)?, add(mul(a, dd)?, mul(bb, c)?)?)?,
            BinaryOp::Div => self.complex_div(d, (a, bb), (c, dd))?,
            BinaryOp::Pow => self.complex_pow(d, l, r)?,
            BinaryOp::Eq | BinaryOp::Ne => {
                let (p, join) =
                    if op == BinaryOp::Eq { (FloatPredicate::OEQ, true) } else { (FloatPredicate::UNE, false) };
                let x = cg(b.build_float_compare(p, a, c, "cre"))?;
                let y = cg(b.build_float_compare(p, bb, dd, "cim"))?;
                if join {
                    cg(b.build_and(x, y, "eq"))?.into()
                } else {
                    cg(b.build_or(x, y, "ne"))?.into()
                }
            }
            _ => return Err(Error::Unsupported(format!("{op:?} of {} values is not supported", d.name()))),
        })
    }

    /// NumPy's complex power: `x ** 0 = 1` (any `x`); `0 ** y` is 0 where `y`'s real part is
    /// positive, NaN otherwise; an integral real exponent `n` with `|n| < 100` multiplies as NumPy
    /// does (`x`, `x x` and `x (x x)` for 1, 2 and 3; otherwise binary powers from 1, then `1 / r`
    /// for `n < 0`), so infinite parts come out as NumPy's; else `exp(y log x)`. All branches are
    /// computed and one selected, part by part (no control flow, no selects of whole structs).
    fn complex_pow(&self, d: DType, x: BasicValueEnum<'ctx>, y: BasicValueEnum<'ctx>) -> Result<BasicValueEnum<'ctx>> {
        type Parts<'c> = (FloatValue<'c>, FloatValue<'c>);
        let b = &self.b;
        let (xr, xi) = self.parts(x)?;
        let (yr, yi) = self.parts(y)?;
        let ft = xr.get_type();
        let zero = ft.const_zero();
        let fcmp = |p, l, r| cg(b.build_float_compare(p, l, r, "c"));
        let and = |p, q| cg(b.build_and(p, q, "and"));
        let fsel = |c, t: FloatValue<'ctx>, e: FloatValue<'ctx>| -> Result<FloatValue<'ctx>> {
            Ok(cg(b.build_select(c, t, e, "pow"))?.into_float_value())
        };
        let csel =
            |c, t: Parts<'ctx>, e: Parts<'ctx>| -> Result<Parts<'ctx>> { Ok((fsel(c, t.0, e.0)?, fsel(c, t.1, e.1)?)) };
        let cmul = |(a, bb): Parts<'ctx>, (c, dd): Parts<'ctx>| -> Result<Parts<'ctx>> {
            let m = |l, r| cg(b.build_float_mul(l, r, "m"));
            Ok((cg(b.build_float_sub(m(a, c)?, m(bb, dd)?, "re"))?, cg(b.build_float_add(m(a, dd)?, m(bb, c)?, "im"))?))
        };
        let is_zero = |re, im| -> Result<inkwell::values::IntValue<'ctx>> {
            and(fcmp(FloatPredicate::OEQ, re, zero)?, fcmp(FloatPredicate::OEQ, im, zero)?)
        };
        // the general case
        let lx = self.parts(self.complex_unary(UnaryOp::Log, x, d)?)?;
        let e = cmul((yr, yi), lx)?;
        let general = self.parts(self.complex_unary(UnaryOp::Exp, self.make_complex(d, e.0, e.1)?, d)?)?;
        // an integral real exponent below 100 in magnitude (the range test before the conversion,
        // which would be poison out of range)
        let i32t = self.ctx.i32_type();
        let abs_yr = self.rmath(UnaryOp::Abs, d, yr)?;
        let small = fcmp(FloatPredicate::OLT, abs_yr, ft.const_float(100.0))?;
        let n = cg(b.build_float_to_signed_int(fsel(small, yr, zero)?, i32t, "n"))?;
        let back = cg(b.build_signed_int_to_float(n, ft, "nf"))?;
        let integral = and(and(small, fcmp(FloatPredicate::OEQ, back, yr)?)?, fcmp(FloatPredicate::OEQ, yi, zero)?)?;
        let xp = (xr, xi);
        let x2 = cmul(xp, xp)?;
        let x3 = cmul(xp, x2)?;
        let neg = cg(b.build_int_compare(IntPredicate::SLT, n, i32t.const_zero(), "neg"))?;
        let m = cg(b.build_select(neg, cg(b.build_int_neg(n, "mn"))?, n, "m"))?.into_int_value();
        let (mut acc, mut p) = ((ft.const_float(1.0), zero), xp);
        for bit in 0..7u64 {
            let set = cg(b.build_and(m, i32t.const_int(1 << bit, false), "bit"))?;
            let set = cg(b.build_int_compare(IntPredicate::NE, set, i32t.const_zero(), "set"))?;
            acc = csel(set, cmul(acc, p)?, acc)?;
            if bit < 6 {
                p = cmul(p, p)?;
            }
        }
        let inverse = self.parts(self.complex_div(d, (ft.const_float(1.0), zero), acc)?)?;
        let looped = csel(neg, inverse, acc)?;
        let is_n = |k: u64| cg(b.build_int_compare(IntPredicate::EQ, n, i32t.const_int(k, false), "n_is"));
        let int_pow = csel(is_n(1)?, xp, csel(is_n(2)?, x2, csel(is_n(3)?, x3, looped)?)?)?;
        let value = csel(integral, int_pow, general)?;
        // a zero base, then a zero exponent
        let nan = ft.const_float(f64::NAN);
        let positive = fcmp(FloatPredicate::OGT, yr, zero)?;
        let at_zero = csel(positive, (zero, zero), (nan, nan))?;
        let value = csel(is_zero(xr, xi)?, at_zero, value)?;
        let value = csel(is_zero(yr, yi)?, (ft.const_float(1.0), zero), value)?;
        self.make_complex(d, value.0, value.1)
    }

    /// `(a + ib) / (c + id)` by Smith's algorithm, both branches computed and one selected (no
    /// control flow, so the driver still vectorises across work-items).
    fn complex_div(
        &self,
        d: DType,
        (a, b_): (FloatValue<'ctx>, FloatValue<'ctx>),
        (c, dd): (FloatValue<'ctx>, FloatValue<'ctx>),
    ) -> Result<BasicValueEnum<'ctx>> {
        let b = &self.b;
        let add = |x, y| cg(b.build_float_add(x, y, "a"));
        let sub = |x, y| cg(b.build_float_sub(x, y, "s"));
        let mul = |x, y| cg(b.build_float_mul(x, y, "m"));
        let div = |x, y| cg(b.build_float_div(x, y, "d"));
        let ac = self.rmath(UnaryOp::Abs, d, c)?;
        let ad = self.rmath(UnaryOp::Abs, d, dd)?;
        let c_big = cg(b.build_float_compare(FloatPredicate::OGE, ac, ad, "c_big"))?;
        // |c| >= |d|: r = d/c, den = c + d r, ((a + b r) / den, (b - a r) / den)
        let r1 = div(dd, c)?;
        let den1 = add(c, mul(dd, r1)?)?;
        let re1 = div(add(a, mul(b_, r1)?)?, den1)?;
        let im1 = div(sub(b_, mul(a, r1)?)?, den1)?;
        // otherwise: r = c/d, den = c r + d, ((a r + b) / den, (b r - a) / den)
        let r2 = div(c, dd)?;
        let den2 = add(mul(c, r2)?, dd)?;
        let re2 = div(add(mul(a, r2)?, b_)?, den2)?;
        let im2 = div(sub(mul(b_, r2)?, a)?, den2)?;
        let re = cg(b.build_select(c_big, re1, re2, "qre"))?.into_float_value();
        let im = cg(b.build_select(c_big, im1, im2, "qim"))?.into_float_value();
        self.make_complex(d, re, im)
    }
}
