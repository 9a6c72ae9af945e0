//! Complex values (`complex64`, `complex128`): an LLVM struct `{T, T}` (real, imaginary) of the
//! component float type, which is also NumPy's memory layout. Every operation is lowered to real
//! arithmetic and the target's real math functions, without control flow (every branch is
//! computed and one selected, part by part, so the driver still vectorises across work-items):
//!
//! * `x ** y` as `exp(y log x)` (`0 ** 0 = 1`, `0 ** y = 0`, small integral exponents by products);
//! * `a / b` by Smith's algorithm (the larger component of the divisor scales the other), as Numba
//!   does, so the intermediate `|b|^2` never overflows or underflows;
//! * `rint` rounds each part; `abs` through `hypot`; `log z = log|z| + i atan2(y, x)` with `log|z|` as
//!   `log1p((a-1)(a+1) + b^2) / 2` near `|z| = 1`; `log2` and `log10` NumPy's way (`log z` times
//!   `log2 e`, `log10 e`); `log1p z = log|1+z| + i atan2(y, 1+x)` with `log|1+z|` as
//!   `log1p(x (2+x) + y^2) / 2` near `z = 0` (NumPy's own is `log(|1+z|)`, inaccurate there);
//! * `exp z = e^x (cos y + i sin y)`; `sin`, `cos`, `sinh`, `cosh` by their real and imaginary parts
//!   (`sinh z = sinh x cos y + i cosh x sin y`, `cos z = cosh iz`, ...); where `e^|x|` alone would
//!   overflow the factor is applied as `e^(|x|/2)` twice, so `exp(750 + 1e-300i)` stays finite;
//!   `expm1 z = (expm1 x cos y - 2 sin^2(y/2)) + i e^x sin y` (NumPy's formula);
//! * `sqrt` by the stable form `t = sqrt((|x| + |z|) / 2)`, giving `(t, y / 2t)` for `x >= 0`
//!   and `(|y| / 2t, copysign(t, y))` otherwise (so the branch cut follows the sign of `y`);
//! * `tanh z = (sinh x cosh x + i sin y cos y) / (sinh^2 x + cos^2 y)` (glibc's: no cancellation in
//!   the denominator), `copysign(1, x) + 4i sin y cos y e^-2|x|` where `sinh^2 x` would overflow;
//!   `tan z = -i tanh iz`;
//! * the inverse functions by Kahan's formulas ("Branch cuts for complex elementary functions"):
//!   `asin`, `acos` and `acosh` from `sqrt(1 +- z)` (`sqrt(z +- 1)`) combined so that no sum
//!   cancels, `asinh z = -i asin iz`; `atanh` on `|x| + i|y|` as `log1p(4|x| / ((1-|x|)^2 + y^2)) / 4
//!   + i atan2(2|y|, (1-|x|)(1+|x|) - y^2) / 2` (`1/z + i pi/2` where `|z|^2` would overflow), signs
//!   restored after; `atan z = -i atanh iz`.
//!
//! Guarantees: finite inputs agree with NumPy within 8 ulp of the component dtype relative to the
//! larger part of the result (tests/library/test_complex_functions.py measures about 2 to 5; for
//! `expm1` relative to its cancelling terms). The special values of C99 Annex G (zeros of either
//! sign, infinities, NaN) of `exp`, `sin`, `cos`, `tan`, `sinh`, `cosh`, `tanh`, `sqrt`, `log` and
//! `abs` are NumPy's (glibc's, where Annex G leaves a sign open) bit for bit, NaN's sign aside: a
//! product `A sin(t)` or `A sinh(t)` with `t = ±0` is that zero signed as multiplication by a finite
//! `A` would give (`t` itself where `A` is NaN), and the remaining cases of the tables are selected
//! explicitly. `expm1` follows NumPy's formula, so its special values are IEEE arithmetic's, as
//! NumPy's are; so are `log1p`'s, `log2`'s and `log10`'s on the grid the tests use. The inverse
//! functions are accurate for finite values and keep NumPy's values on the axes (`asin(±0 + i NaN)`,
//! `atanh(±inf + i NaN)`, ...); `asin`, `acos`, `asinh` and `acosh` of a value with an infinite
//! part take their limits (`acos z = atan2(|y|, x) - i copysign(inf, y)`, ...), which are Annex
//! G's. All of them agree with NumPy on the tests' grid of zeros, ±1.5, infinities and NaN.

use inkwell::types::{FloatType, StructType};
use inkwell::values::{BasicValueEnum, FloatValue, IntValue, StructValue};
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
        let (re, im) = self.parts(v)?;
        let f = Fx { kb: self, d, t: re.get_type() };
        let z = (re, im);
        // i z = -y + i x, and -i w = Im w - i Re w
        let iz = |(x, y): Parts<'ctx>| -> Result<Parts<'ctx>> { Ok((f.neg(y)?, x)) };
        let mi = |w: Parts<'ctx>| -> Result<Parts<'ctx>> { Ok((w.1, f.neg(w.0)?)) };
        let w = match op {
            UnaryOp::Real => return Ok(re.into()),
            UnaryOp::Imag => return Ok(im.into()),
            UnaryOp::Abs => return Ok(f.m2(BinaryOp::Hypot, re, im)?.into()),
            UnaryOp::Conj => (re, f.neg(im)?),
            UnaryOp::Neg => (f.neg(re)?, f.neg(im)?),
            UnaryOp::Rint => (f.m1(op, re)?, f.m1(op, im)?), // NumPy's: each part rounded
            UnaryOp::Exp => f.exp(z)?,
            UnaryOp::Expm1 => f.expm1(z)?,
            UnaryOp::Log => f.log(z)?,
            UnaryOp::Log1p => f.log1p(z)?,
            UnaryOp::Log2 | UnaryOp::Log10 => {
                // NumPy's: the natural logarithm times log2(e) or log10(e)
                let k = f.k(if op == UnaryOp::Log2 { std::f64::consts::LOG2_E } else { std::f64::consts::LOG10_E });
                let (a, b) = f.log(z)?;
                (f.mul(a, k)?, f.mul(b, k)?)
            }
            UnaryOp::Sqrt => f.sqrt(z)?,
            UnaryOp::Sinh => f.sinh_cosh(z, false)?,
            UnaryOp::Cosh => f.sinh_cosh(z, true)?,
            UnaryOp::Sin => f.sin(z)?,
            UnaryOp::Cos => f.sinh_cosh(iz(z)?, true)?, // cos z = cosh iz
            UnaryOp::Tanh => f.tanh(z)?,
            UnaryOp::Tan => mi(f.tanh(iz(z)?)?)?, // tan z = -i tanh iz
            UnaryOp::Asin => f.asin(z)?,
            UnaryOp::Acos => f.acos(z)?,
            UnaryOp::Asinh => mi(f.asin(iz(z)?)?)?, // asinh z = -i asin iz
            UnaryOp::Acosh => f.acosh(z)?,
            UnaryOp::Atanh => f.atanh(z)?,
            UnaryOp::Atan => mi(f.atanh(iz(z)?)?)?, // atan z = -i atanh iz
            _ => {
                return Err(Error::Unsupported(format!("{op:?} of {} values is not supported", d.name())));
            }
        };
        self.make_complex(d, w.0, w.1)
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

/// Float helpers of the complex lowering: one instruction or one builtin call each, on values of
/// the component type of the complex dtype `d`.
struct Fx<'a, 'ctx> {
    kb: &'a KernelBuilder<'ctx>,
    d: DType,
    t: FloatType<'ctx>,
}

type Parts<'c> = (FloatValue<'c>, FloatValue<'c>);
type Fr<'c> = Result<FloatValue<'c>>;
type Br<'c> = Result<IntValue<'c>>;

impl<'ctx> Fx<'_, 'ctx> {
    fn k(&self, v: f64) -> FloatValue<'ctx> {
        self.t.const_float(v)
    }
    fn f32(&self) -> bool {
        self.d.component() == DType::F32
    }
    fn add(&self, a: FloatValue<'ctx>, b: FloatValue<'ctx>) -> Fr<'ctx> {
        cg(self.kb.b.build_float_add(a, b, "a"))
    }
    fn sub(&self, a: FloatValue<'ctx>, b: FloatValue<'ctx>) -> Fr<'ctx> {
        cg(self.kb.b.build_float_sub(a, b, "s"))
    }
    fn mul(&self, a: FloatValue<'ctx>, b: FloatValue<'ctx>) -> Fr<'ctx> {
        cg(self.kb.b.build_float_mul(a, b, "m"))
    }
    fn div(&self, a: FloatValue<'ctx>, b: FloatValue<'ctx>) -> Fr<'ctx> {
        cg(self.kb.b.build_float_div(a, b, "d"))
    }
    fn neg(&self, a: FloatValue<'ctx>) -> Fr<'ctx> {
        cg(self.kb.b.build_float_neg(a, "n"))
    }
    fn sel(&self, c: IntValue<'ctx>, a: FloatValue<'ctx>, b: FloatValue<'ctx>) -> Fr<'ctx> {
        Ok(cg(self.kb.b.build_select(c, a, b, "sel"))?.into_float_value())
    }
    /// Both parts selected by one condition.
    fn psel(&self, c: IntValue<'ctx>, a: Parts<'ctx>, b: Parts<'ctx>) -> Result<Parts<'ctx>> {
        Ok((self.sel(c, a.0, b.0)?, self.sel(c, a.1, b.1)?))
    }
    fn cmp(&self, p: FloatPredicate, a: FloatValue<'ctx>, b: FloatValue<'ctx>) -> Br<'ctx> {
        cg(self.kb.b.build_float_compare(p, a, b, "c"))
    }
    fn and(&self, a: IntValue<'ctx>, b: IntValue<'ctx>) -> Br<'ctx> {
        cg(self.kb.b.build_and(a, b, "and"))
    }
    fn not(&self, a: IntValue<'ctx>) -> Br<'ctx> {
        cg(self.kb.b.build_not(a, "not"))
    }
    fn m1(&self, op: UnaryOp, x: FloatValue<'ctx>) -> Fr<'ctx> {
        self.kb.rmath(op, self.d, x)
    }
    fn m2(&self, op: BinaryOp, x: FloatValue<'ctx>, y: FloatValue<'ctx>) -> Fr<'ctx> {
        self.kb.rmath2(op, self.d, x, y)
    }
    fn abs(&self, x: FloatValue<'ctx>) -> Fr<'ctx> {
        self.m1(UnaryOp::Abs, x)
    }
    fn copysign(&self, x: FloatValue<'ctx>, y: FloatValue<'ctx>) -> Fr<'ctx> {
        Ok(self.kb.math2(intrinsics::copysign(self.kb.flavor, self.d.component()), x, y)?.into_float_value())
    }
    fn is_zero(&self, x: FloatValue<'ctx>) -> Br<'ctx> {
        self.cmp(FloatPredicate::OEQ, x, self.k(0.0))
    }
    fn is_inf(&self, x: FloatValue<'ctx>) -> Br<'ctx> {
        self.cmp(FloatPredicate::OEQ, self.abs(x)?, self.k(f64::INFINITY))
    }
    /// Neither infinite nor NaN.
    fn is_finite(&self, x: FloatValue<'ctx>) -> Br<'ctx> {
        self.cmp(FloatPredicate::OLT, self.abs(x)?, self.k(f64::INFINITY))
    }
    fn is_nan(&self, x: FloatValue<'ctx>) -> Br<'ctx> {
        self.cmp(FloatPredicate::UNO, x, x)
    }

    /// The product `prod = a * s` where `s` is the sine or hyperbolic sine of `arg`, with C99's
    /// zeros: where `arg` is ±0 the product is that zero with the sign multiplication by `a` would
    /// give were `a` finite (`a` may be infinite), or `arg` itself where `a` is NaN.
    fn zero_rule(&self, prod: FloatValue<'ctx>, arg: FloatValue<'ctx>, a: FloatValue<'ctx>) -> Fr<'ctx> {
        let signed = self.mul(arg, self.copysign(self.k(1.0), a)?)?;
        let z = self.sel(self.is_nan(a)?, arg, signed)?;
        self.sel(self.is_zero(arg)?, z, prod)
    }

    /// The real function of `t` that grows exponentially: its value and the means to multiply
    /// by it without overflowing first.
    fn grow(&self, t: FloatValue<'ctx>, exp: bool) -> Result<Grow<'ctx>> {
        let at = if exp { t } else { self.abs(t)? };
        // e^at stays finite below this
        let thr = if self.f32() { 88.0 } else { 709.0 };
        let big = self.cmp(FloatPredicate::OGT, at, self.k(thr))?;
        let h = self.m1(UnaryOp::Exp, self.mul(at, self.k(0.5))?)?;
        Ok(Grow { t, big, h })
    }

    /// `a * f(t)` for `f` of `g.t` valued `ft` (exp, cosh or sinh: `kind`), computed as
    /// `a e^(|t|/2) e^(|t|/2)` (halved for cosh and sinh) where `f(t)` alone would overflow, so
    /// the product is finite wherever it is representable.
    fn times(&self, a: FloatValue<'ctx>, ft: FloatValue<'ctx>, g: &Grow<'ctx>, kind: UnaryOp) -> Fr<'ctx> {
        let plain = self.mul(a, ft)?;
        let first = if kind == UnaryOp::Sinh { self.copysign(g.h, g.t)? } else { g.h };
        let mut v = self.mul(a, first)?;
        if kind != UnaryOp::Exp {
            v = self.mul(v, self.k(0.5))?;
        }
        let scaled = self.mul(v, g.h)?;
        self.sel(g.big, scaled, plain)
    }

    /// C99's `cexp`, NumPy's special values included.
    fn exp(&self, (x, y): Parts<'ctx>) -> Result<Parts<'ctx>> {
        let e = self.m1(UnaryOp::Exp, x)?;
        let (c, s) = (self.m1(UnaryOp::Cos, y)?, self.m1(UnaryOp::Sin, y)?);
        let g = self.grow(x, true)?;
        let re = self.times(c, e, &g, UnaryOp::Exp)?;
        let im = self.zero_rule(self.times(s, e, &g, UnaryOp::Exp)?, y, e)?;
        // an infinite real part with an infinite or NaN imaginary part
        let ny = self.not(self.is_finite(y)?)?;
        let ninf = self.and(ny, self.cmp(FloatPredicate::OEQ, x, self.k(f64::NEG_INFINITY))?)?;
        let pinf = self.and(ny, self.cmp(FloatPredicate::OEQ, x, self.k(f64::INFINITY))?)?;
        let v = self.psel(ninf, (self.k(0.0), self.copysign(self.k(0.0), y)?), (re, im))?;
        self.psel(pinf, (self.k(f64::INFINITY), self.k(f64::NAN)), v)
    }

    /// `sinh` (`cosh` when `cosh`) of `x + iy`: `sinh x cos y + i cosh x sin y`
    /// (`cosh x cos y + i sinh x sin y`), C99's and NumPy's special values included.
    fn sinh_cosh(&self, (x, y): Parts<'ctx>, cosh: bool) -> Result<Parts<'ctx>> {
        let (c, s) = (self.m1(UnaryOp::Cos, y)?, self.m1(UnaryOp::Sin, y)?);
        let (sh, ch) = (self.m1(UnaryOp::Sinh, x)?, self.m1(UnaryOp::Cosh, x)?);
        let g = self.grow(x, false)?;
        let (re, im) = if cosh {
            let re = self.times(c, ch, &g, UnaryOp::Cosh)?;
            let im = self.zero_rule(self.times(s, sh, &g, UnaryOp::Sinh)?, x, s)?;
            // cosh(±0 + i inf) and cosh(±0 + i NaN) are NaN + 0i (C99 leaves the sign open)
            let zx = self.and(self.is_zero(x)?, self.not(self.is_finite(y)?)?)?;
            let im = self.sel(zx, self.k(0.0), im)?;
            (re, self.zero_rule(im, y, sh)?)
        } else {
            let re = self.zero_rule(self.times(c, sh, &g, UnaryOp::Sinh)?, x, c)?;
            (re, self.zero_rule(self.times(s, ch, &g, UnaryOp::Cosh)?, y, ch)?)
        };
        // an infinite real part with an infinite or NaN imaginary part: +inf + i NaN
        let special = self.and(self.is_inf(x)?, self.not(self.is_finite(y)?)?)?;
        self.psel(special, (self.k(f64::INFINITY), self.k(f64::NAN)), (re, im))
    }

    /// `sin(x + iy) = sin x cosh y + i cos x sinh y`, NumPy's special values included.
    fn sin(&self, (x, y): Parts<'ctx>) -> Result<Parts<'ctx>> {
        let (sx, cx) = (self.m1(UnaryOp::Sin, x)?, self.m1(UnaryOp::Cos, x)?);
        let (sh, ch) = (self.m1(UnaryOp::Sinh, y)?, self.m1(UnaryOp::Cosh, y)?);
        let g = self.grow(y, false)?;
        let re = self.zero_rule(self.times(sx, ch, &g, UnaryOp::Cosh)?, x, ch)?;
        let im = self.zero_rule(self.times(cx, sh, &g, UnaryOp::Sinh)?, y, cx)?;
        // sin(inf + i inf), sin(NaN - i inf): NaN + i inf
        let special = self.and(self.not(self.is_finite(x)?)?, self.is_inf(y)?)?;
        self.psel(special, (self.k(f64::NAN), self.k(f64::INFINITY)), (re, im))
    }

    /// `sqrt` by the stable form `t = sqrt((|x| + |z|) / 2)`: `(t, y / 2t)` for `x >= 0`, else
    /// `(|y| / 2t, copysign(t, y))`; `sqrt(x ± i inf) = inf ± i inf` for every `x`.
    fn sqrt(&self, (x, y): Parts<'ctx>) -> Result<Parts<'ctx>> {
        let m = self.m2(BinaryOp::Hypot, x, y)?;
        let ax = self.abs(x)?;
        // (|x| + m) / 2, halving first where the sum could overflow
        let half_small = self.mul(self.add(ax, m)?, self.k(0.5))?;
        let half_big = self.add(self.mul(ax, self.k(0.5))?, self.mul(m, self.k(0.5))?)?;
        let half = self.sel(self.cmp(FloatPredicate::OGT, m, self.k(1.0))?, half_big, half_small)?;
        let s = self.m1(UnaryOp::Sqrt, half)?;
        let den = self.sel(self.is_zero(s)?, self.k(1.0), self.add(s, s)?)?;
        let q = self.div(y, den)?; // y / 2s
        let nonneg = self.cmp(FloatPredicate::OGE, x, self.k(0.0))?;
        let v = self.psel(nonneg, (s, q), (self.abs(q)?, self.copysign(s, y)?))?;
        self.psel(self.is_inf(y)?, (self.k(f64::INFINITY), y), v)
    }

    /// `log z = log|z| + i atan2(y, x)`, with `log|z| = log1p((a - 1)(a + 1) + b^2) / 2`
    /// (`a >= b` the magnitudes of the parts) where `1/2 <= a <= 2`, so it keeps its relative
    /// accuracy near `|z| = 1`.
    fn log(&self, (x, y): Parts<'ctx>) -> Result<Parts<'ctx>> {
        let m = self.m2(BinaryOp::Hypot, x, y)?;
        let plain = self.m1(UnaryOp::Log, m)?;
        let (ax, ay) = (self.abs(x)?, self.abs(y)?);
        let x_big = self.cmp(FloatPredicate::OGE, ax, ay)?;
        let (hi, lo) = (self.sel(x_big, ax, ay)?, self.sel(x_big, ay, ax)?);
        let one = self.k(1.0);
        let u = self.add(self.mul(self.sub(hi, one)?, self.add(hi, one)?)?, self.mul(lo, lo)?)?;
        let near_one = self.m1(UnaryOp::Log1p, u)?;
        let near_one = self.mul(near_one, self.k(0.5))?;
        let near =
            self.and(self.cmp(FloatPredicate::OGE, hi, self.k(0.5))?, self.cmp(FloatPredicate::OLE, hi, self.k(2.0))?)?;
        Ok((self.sel(near, near_one, plain)?, self.m2(BinaryOp::Atan2, y, x)?))
    }

    /// `tanh(x + iy) = (sinh x cosh x + i sin y cos y) / (sinh^2 x + cos^2 y)` (no cancellation in
    /// the denominator); `copysign(1, x) + 4i sin y cos y e^-2|x|` where `sinh^2 x` would overflow.
    fn tanh(&self, (x, y): Parts<'ctx>) -> Result<Parts<'ctx>> {
        let (s, c) = (self.m1(UnaryOp::Sin, y)?, self.m1(UnaryOp::Cos, y)?);
        let (sh, ch) = (self.m1(UnaryOp::Sinh, x)?, self.m1(UnaryOp::Cosh, x)?);
        let ax = self.abs(x)?;
        let den = self.add(self.mul(sh, sh)?, self.mul(c, c)?)?;
        let re = self.div(self.mul(sh, ch)?, den)?;
        let sc = self.mul(s, c)?;
        let im = self.div(sc, den)?;
        let thr = if self.f32() { 44.0 } else { 354.0 };
        let big = self.cmp(FloatPredicate::OGT, ax, self.k(thr))?;
        let e = self.m1(UnaryOp::Exp, self.neg(ax)?)?;
        let im_big = self.mul(self.mul(self.mul(self.k(4.0), sc)?, e)?, e)?;
        let (re, im) = self.psel(big, (self.copysign(self.k(1.0), x)?, im_big), (re, im))?;
        // tanh(±inf + i y) for infinite or NaN y: ±1 + 0i with y's sign
        let inf_nf = self.and(self.is_inf(x)?, self.not(self.is_finite(y)?)?)?;
        let im = self.sel(inf_nf, self.copysign(self.k(0.0), y)?, im)?;
        // a zero part stays (tanh of a real or an imaginary value)
        Ok((self.sel(self.is_zero(x)?, x, re)?, self.sel(self.is_zero(y)?, y, im)?))
    }

    /// NumPy's `expm1(x + iy) = (expm1(x) cos y - 2 sin^2(y/2)) + i e^x sin y`.
    fn expm1(&self, (x, y): Parts<'ctx>) -> Result<Parts<'ctx>> {
        let a = self.m1(UnaryOp::Sin, self.mul(y, self.k(0.5))?)?;
        let em1 = self.m1(UnaryOp::Expm1, x)?;
        let re = self.sub(self.mul(em1, self.m1(UnaryOp::Cos, y)?)?, self.mul(self.mul(self.k(2.0), a)?, a)?)?;
        let im = self.mul(self.m1(UnaryOp::Exp, x)?, self.m1(UnaryOp::Sin, y)?)?;
        Ok((re, im))
    }

    /// `log1p z = log|1 + z| + i atan2(y, 1 + x)` with `log|1 + z| = log1p(x (2 + x) + y^2) / 2`
    /// where `|1 + z|^2 - 1` is in (-1/2, 1), so it keeps its accuracy near `z = 0`.
    fn log1p(&self, (x, y): Parts<'ctx>) -> Result<Parts<'ctx>> {
        let xp1 = self.add(self.k(1.0), x)?;
        let plain = self.m1(UnaryOp::Log, self.m2(BinaryOp::Hypot, xp1, y)?)?;
        let u = self.add(self.mul(x, self.add(self.k(2.0), x)?)?, self.mul(y, y)?)?;
        let near =
            self.and(self.cmp(FloatPredicate::OGT, u, self.k(-0.5))?, self.cmp(FloatPredicate::OLT, u, self.k(1.0))?)?;
        let near_one = self.mul(self.m1(UnaryOp::Log1p, u)?, self.k(0.5))?;
        Ok((self.sel(near, near_one, plain)?, self.m2(BinaryOp::Atan2, y, xp1)?))
    }

    /// `Re(conj(a) b)` and `Im(conj(a) b)`.
    fn conj_mul(&self, a: Parts<'ctx>, b: Parts<'ctx>) -> Result<Parts<'ctx>> {
        let re = self.add(self.mul(a.0, b.0)?, self.mul(a.1, b.1)?)?;
        let im = self.sub(self.mul(a.0, b.1)?, self.mul(a.1, b.0)?)?;
        Ok((re, im))
    }

    /// `sqrt(1 - z)` and `sqrt(1 + z)`.
    fn one_pm_sqrts(&self, (x, y): Parts<'ctx>) -> Result<(Parts<'ctx>, Parts<'ctx>)> {
        let one = self.k(1.0);
        let a = self.sqrt((self.sub(one, x)?, self.neg(y)?))?;
        let b = self.sqrt((self.add(one, x)?, y))?;
        Ok((a, b))
    }

    /// Kahan's `asin z = atan2(x, Re(sqrt(1-z) sqrt(1+z))) + i asinh(Im(conj(sqrt(1-z)) sqrt(1+z)))`
    /// (both combinations add terms of one sign, so nothing cancels).
    fn asin(&self, z: Parts<'ctx>) -> Result<Parts<'ctx>> {
        let (a, b) = self.one_pm_sqrts(z)?;
        let re_ab = self.sub(self.mul(a.0, b.0)?, self.mul(a.1, b.1)?)?;
        let (_, im) = self.conj_mul(a, b)?;
        // asin(±0 + iy) = ±0 + i asinh y, y NaN included
        let re = self.sel(self.is_zero(z.0)?, z.0, self.m2(BinaryOp::Atan2, z.0, re_ab)?)?;
        // an infinite part: atan2(x, |y|) + i copysign(inf, y) (C99's casin, NumPy's)
        let big = self.either_inf(z)?;
        let re = self.sel(big, self.m2(BinaryOp::Atan2, z.0, self.abs(z.1)?)?, re)?;
        let im = self.sel(big, self.copysign(self.k(f64::INFINITY), z.1)?, self.m1(UnaryOp::Asinh, im)?)?;
        Ok((re, im))
    }

    /// Whether either part of `z` is infinite.
    fn either_inf(&self, (x, y): Parts<'ctx>) -> Br<'ctx> {
        self.not(self.and(self.not(self.is_inf(x)?)?, self.not(self.is_inf(y)?)?)?)
    }

    /// Kahan's `acos z = 2 atan2(Re sqrt(1-z), Re sqrt(1+z)) + i asinh(Im(conj(sqrt(1+z)) sqrt(1-z)))`.
    fn acos(&self, z: Parts<'ctx>) -> Result<Parts<'ctx>> {
        let (a, b) = self.one_pm_sqrts(z)?;
        let re = self.m2(BinaryOp::Atan2, a.0, b.0)?;
        let (_, im) = self.conj_mul(b, a)?;
        // acos(±0 + iy) = pi/2 - i asinh y, y NaN included
        let re = self.sel(self.is_zero(z.0)?, self.k(std::f64::consts::FRAC_PI_2), self.add(re, re)?)?;
        // an infinite part: atan2(|y|, x) - i copysign(inf, y) (C99's cacos, NumPy's)
        let big = self.either_inf(z)?;
        let re = self.sel(big, self.m2(BinaryOp::Atan2, self.abs(z.1)?, z.0)?, re)?;
        let im = self.sel(big, self.neg(self.copysign(self.k(f64::INFINITY), z.1)?)?, self.m1(UnaryOp::Asinh, im)?)?;
        Ok((re, im))
    }

    /// Kahan's `acosh z = asinh(Re(conj(sqrt(z-1)) sqrt(z+1))) + 2i atan2(Im sqrt(z-1), Re sqrt(z+1))`.
    fn acosh(&self, (x, y): Parts<'ctx>) -> Result<Parts<'ctx>> {
        let one = self.k(1.0);
        let a = self.sqrt((self.sub(x, one)?, y))?;
        let b = self.sqrt((self.add(x, one)?, y))?;
        let (re, _) = self.conj_mul(a, b)?;
        let im = self.m2(BinaryOp::Atan2, a.1, b.0)?;
        // acosh(±0 + iy) = asinh|y| + i copysign(pi/2, y), y NaN included
        let im =
            self.sel(self.is_zero(x)?, self.copysign(self.k(std::f64::consts::FRAC_PI_2), y)?, self.add(im, im)?)?;
        // an infinite part: inf + i copysign(atan2(|y|, x), y) (C99's cacosh, NumPy's)
        let big = self.either_inf((x, y))?;
        let re = self.sel(big, self.k(f64::INFINITY), self.m1(UnaryOp::Asinh, re)?)?;
        let angle = self.copysign(self.m2(BinaryOp::Atan2, self.abs(y)?, x)?, y)?;
        Ok((re, self.sel(big, angle, im)?))
    }

    /// `atanh z` on `|x| + i|y|` (signs restored at the end): `log1p(4|x| / ((1-|x|)^2 + y^2)) / 4
    /// + i atan2(2|y|, (1-|x|)(1+|x|) - y^2) / 2` (a log1p of a nonnegative value, so nothing
    /// cancels), and `Re(1/z) + i pi/2` where `|z|^2` would overflow.
    fn atanh(&self, (x, y): Parts<'ctx>) -> Result<Parts<'ctx>> {
        let (ax, ay) = (self.abs(x)?, self.abs(y)?);
        let one = self.k(1.0);
        let omx = self.sub(one, ax)?;
        let den = self.add(self.mul(omx, omx)?, self.mul(ay, ay)?)?;
        let re = self.m1(UnaryOp::Log1p, self.div(self.mul(self.k(4.0), ax)?, den)?)?;
        let re = self.mul(re, self.k(0.25))?;
        let d2 = self.sub(self.mul(omx, self.add(one, ax)?)?, self.mul(ay, ay)?)?;
        let im = self.mul(self.m2(BinaryOp::Atan2, self.add(ay, ay)?, d2)?, self.k(0.5))?;
        // |z| beyond sqrt(max) / 4: atanh z = 1/z + i pi/2 to working precision
        let h = self.m2(BinaryOp::Hypot, ax, ay)?;
        let big = self.cmp(FloatPredicate::OGT, h, self.k(if self.f32() { 1e18 } else { 1e150 }))?;
        let re_big = self.div(self.div(ax, h)?, h)?;
        let re_big = self.sel(self.is_inf(h)?, self.k(0.0), re_big)?;
        let (re, im) = self.psel(big, (re_big, self.k(std::f64::consts::FRAC_PI_2)), (re, im))?;
        // atanh(±0 + iy) = ±0 + i atan y and a NaN imaginary part stays NaN, as NumPy's
        let re = self.sel(self.is_zero(x)?, x, self.copysign(re, x)?)?;
        Ok((re, self.sel(self.is_nan(y)?, y, self.copysign(im, y)?)?))
    }
}

/// An exponentially growing real function's argument `t`, whether `e^|t|` overflows (`big`), and
/// `h = e^(|t|/2)` (of `t` itself for exp).
struct Grow<'ctx> {
    t: FloatValue<'ctx>,
    big: IntValue<'ctx>,
    h: FloatValue<'ctx>,
}
