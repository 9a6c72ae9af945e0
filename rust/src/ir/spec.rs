//! The typed, plain description of one kernel: what Python builds for an offloaded region.
//!
//! Semantics: the kernel runs once per element of an `ndim`-dimensional iteration space. `Load` of an
//! array parameter reads the element at the current index (broadcast dimensions have stride 0),
//! `Store` writes it. Scalars are passed by value.

use crate::error::{Error, Result};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    Bool,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    /// NumPy's float16: IEEE half precision in memory; values compute in float32 registers and
    /// every result is rounded to half precision (see `codegen/builder.rs`).
    F16,
    F32,
    F64,
    /// NumPy's complex64: two float32 (real, imaginary) interleaved in memory.
    C64,
    /// NumPy's complex128: two float64 (real, imaginary) interleaved in memory.
    C128,
}

impl DType {
    /// NumPy's names (`float64`, `int32`, `bool`, ...).
    pub fn parse(s: &str) -> Result<DType> {
        Ok(match s {
            "bool" => DType::Bool,
            "int8" => DType::I8,
            "int16" => DType::I16,
            "int32" => DType::I32,
            "int64" => DType::I64,
            "uint8" => DType::U8,
            "uint16" => DType::U16,
            "uint32" => DType::U32,
            "uint64" => DType::U64,
            "float16" => DType::F16,
            "float32" => DType::F32,
            "float64" => DType::F64,
            "complex64" => DType::C64,
            "complex128" => DType::C128,
            _ => return Err(Error::Graph(format!("unsupported dtype '{s}'"))),
        })
    }
    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::I8 => "int8",
            DType::I16 => "int16",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::U8 => "uint8",
            DType::U16 => "uint16",
            DType::U32 => "uint32",
            DType::U64 => "uint64",
            DType::F16 => "float16",
            DType::F32 => "float32",
            DType::F64 => "float64",
            DType::C64 => "complex64",
            DType::C128 => "complex128",
        }
    }
    /// Bytes in memory (bool is one byte).
    pub fn size(self) -> usize {
        match self {
            DType::Bool | DType::I8 | DType::U8 => 1,
            DType::I16 | DType::U16 | DType::F16 => 2,
            DType::I32 | DType::U32 | DType::F32 => 4,
            DType::I64 | DType::U64 | DType::F64 | DType::C64 => 8,
            DType::C128 => 16,
        }
    }
    /// Alignment in memory: the size, or for complex dtypes that of one component (as in NumPy).
    pub fn align(self) -> usize {
        match self {
            DType::C64 | DType::C128 => self.component().size(),
            _ => self.size(),
        }
    }
    /// Real floating-point dtypes (complex dtypes are not).
    pub fn is_float(self) -> bool {
        matches!(self, DType::F16 | DType::F32 | DType::F64)
    }
    /// The dtype values of this dtype compute in: float32 for float16, else the dtype itself.
    pub fn compute(self) -> DType {
        if self == DType::F16 {
            DType::F32
        } else {
            self
        }
    }
    pub fn is_complex(self) -> bool {
        matches!(self, DType::C64 | DType::C128)
    }
    /// The dtype of one component of a complex dtype (the dtype itself otherwise).
    pub fn component(self) -> DType {
        match self {
            DType::C64 => DType::F32,
            DType::C128 => DType::F64,
            d => d,
        }
    }
    /// Whether values of this dtype compute in float64 (needs fp64 on the device).
    pub fn needs_fp64(self) -> bool {
        matches!(self, DType::F64 | DType::C128)
    }
    /// Whether values of this dtype need half precision on the device (`cl_khr_fp16`).
    pub fn needs_fp16(self) -> bool {
        self == DType::F16
    }
    pub fn is_signed(self) -> bool {
        matches!(self, DType::I8 | DType::I16 | DType::I32 | DType::I64)
    }
    pub fn is_int(self) -> bool {
        !self.is_float() && !self.is_complex() && self != DType::Bool
    }
}

/// `x` rounded to the nearest IEEE half-precision value (ties to even; beyond the largest half,
/// infinity), as an f64: how constants of dtype float16 are stored and folded.
pub fn round_f16(x: f64) -> f64 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    let a = x.abs();
    if a >= 65520.0 {
        return f64::INFINITY.copysign(x);
    }
    // the spacing of halves near `a`: 2^(e - 10), with e >= -14 (subnormals below 2^-14)
    let e = (((a.to_bits() >> 52) & 0x7ff) as i32 - 1023).max(-14);
    let q = 2f64.powi(e - 10);
    ((a / q).round_ties_even() * q).copysign(x)
}

/// The IEEE half bits of `x`, rounded to nearest even (NaN stays a quiet NaN with its sign).
pub fn f16_bits(x: f64) -> u16 {
    let sign: u16 = if x.is_sign_negative() { 0x8000 } else { 0 };
    if x.is_nan() {
        return sign | 0x7e00;
    }
    let v = round_f16(x).abs();
    if v.is_infinite() {
        return sign | 0x7c00;
    }
    if v < 2f64.powi(-14) {
        // subnormal (or zero): a multiple of 2^-24
        return sign | (v * 2f64.powi(24)) as u16;
    }
    let e = ((v.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    let mantissa = (v * 2f64.powi(10 - e)) as u16 - 1024;
    sign | (((e + 15) as u16) << 10) | mantissa
}

/// The value of the IEEE half with bits `h`.
pub fn f16_value(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = ((h >> 10) & 0x1f) as i32;
    let m = (h & 0x3ff) as f64;
    sign * match e {
        0 => m * 2f64.powi(-24),
        31 if m == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (1.0 + m / 1024.0) * 2f64.powi(e - 15),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Neg,
    Not,
    Abs,
    Sqrt,
    Exp,
    Expm1,
    Log,
    Log1p,
    Log2,
    Log10,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Floor,
    Ceil,
    Trunc,
    Erf,
    Erfc,
    /// The real part of a complex value (a float of its component dtype).
    Real,
    /// The imaginary part of a complex value.
    Imag,
    /// The complex conjugate (the identity on real values).
    Conj,
    Asinh,
    Acosh,
    Atanh,
    Exp2,
    Cbrt,
    Rint,
}

impl UnaryOp {
    pub fn parse(s: &str) -> Result<UnaryOp> {
        use UnaryOp::*;
        Ok(match s {
            "neg" => Neg,
            "not" => Not,
            "abs" => Abs,
            "sqrt" => Sqrt,
            "exp" => Exp,
            "expm1" => Expm1,
            "log" => Log,
            "log1p" => Log1p,
            "log2" => Log2,
            "log10" => Log10,
            "sin" => Sin,
            "cos" => Cos,
            "tan" => Tan,
            "arcsin" => Asin,
            "arccos" => Acos,
            "arctan" => Atan,
            "sinh" => Sinh,
            "cosh" => Cosh,
            "tanh" => Tanh,
            "floor" => Floor,
            "ceil" => Ceil,
            "trunc" => Trunc,
            "erf" => Erf,
            "erfc" => Erfc,
            "real" => Real,
            "imag" => Imag,
            "conj" => Conj,
            "arcsinh" => Asinh,
            "arccosh" => Acosh,
            "arctanh" => Atanh,
            "exp2" => Exp2,
            "cbrt" => Cbrt,
            "rint" => Rint,
            _ => return Err(Error::Graph(format!("unsupported unary operation '{s}'"))),
        })
    }
    /// Operations that are math-library calls on floats.
    pub fn is_math(self) -> bool {
        !matches!(self, UnaryOp::Neg | UnaryOp::Not | UnaryOp::Abs | UnaryOp::Real | UnaryOp::Imag | UnaryOp::Conj)
    }
    /// The dtype this operation yields for an operand of dtype `arg`: the component dtype for
    /// `abs`, `real` and `imag` of complex values, else the operand's dtype.
    pub fn result_dtype(self, arg: DType) -> DType {
        match self {
            UnaryOp::Abs | UnaryOp::Real | UnaryOp::Imag => arg.component(),
            _ => arg,
        }
    }
    /// Whether the operation is defined on complex values (code generation: `codegen/complex.rs`).
    pub fn supports_complex(self) -> bool {
        use UnaryOp::*;
        matches!(
            self,
            Neg | Abs
                | Rint
                | Sqrt
                | Exp
                | Expm1
                | Log
                | Log1p
                | Log2
                | Log10
                | Sin
                | Cos
                | Tan
                | Asin
                | Acos
                | Atan
                | Sinh
                | Cosh
                | Tanh
                | Asinh
                | Acosh
                | Atanh
                | Real
                | Imag
                | Conj
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Rem,
    Pow,
    Min,
    Max,
    Atan2,
    Hypot,
    And,
    Or,
    Xor,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    /// `l << r`; shifts by the bit width or more (or by a negative count) give 0, as in NumPy.
    Shl,
    /// `l >> r` (arithmetic for signed dtypes); shifts by the bit width or more give 0, or -1 for
    /// negative signed `l`, as in NumPy.
    Shr,
    /// C's `fmod` for floats; the truncated remainder for integers (0 for a zero divisor).
    Fmod,
    Copysign,
    Nextafter,
    /// `l * 2**r`: `r` carries an integer exponent in the float dtype of `l`.
    Ldexp,
    /// The greatest common divisor of integers (non-negative, as NumPy's `gcd`).
    Gcd,
}

impl BinaryOp {
    pub fn parse(s: &str) -> Result<BinaryOp> {
        use BinaryOp::*;
        Ok(match s {
            "add" => Add,
            "sub" => Sub,
            "mul" => Mul,
            "div" => Div,
            "floordiv" => FloorDiv,
            "rem" => Rem,
            "pow" => Pow,
            "min" => Min,
            "max" => Max,
            "arctan2" => Atan2,
            "hypot" => Hypot,
            "and" => And,
            "or" => Or,
            "xor" => Xor,
            "lt" => Lt,
            "le" => Le,
            "gt" => Gt,
            "ge" => Ge,
            "eq" => Eq,
            "ne" => Ne,
            "left_shift" => Shl,
            "right_shift" => Shr,
            "fmod" => Fmod,
            "copysign" => Copysign,
            "nextafter" => Nextafter,
            "ldexp" => Ldexp,
            "gcd" => Gcd,
            _ => return Err(Error::Graph(format!("unsupported binary operation '{s}'"))),
        })
    }
    pub fn is_comparison(self) -> bool {
        matches!(self, BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge | BinaryOp::Eq | BinaryOp::Ne)
    }
    /// Whether the operation is defined on complex values (code generation: `codegen/complex.rs`).
    pub fn supports_complex(self) -> bool {
        matches!(
            self,
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div | BinaryOp::Pow | BinaryOp::Eq | BinaryOp::Ne
        )
    }
    pub fn is_commutative(self) -> bool {
        matches!(
            self,
            BinaryOp::Add
                | BinaryOp::Mul
                | BinaryOp::Min
                | BinaryOp::Max
                | BinaryOp::Hypot
                | BinaryOp::Gcd
                | BinaryOp::And
                | BinaryOp::Or
                | BinaryOp::Xor
                | BinaryOp::Eq
                | BinaryOp::Ne
        )
    }
}

/// Check a unary operation `op` of an operand of dtype `arg` yielding `result`: the result dtype
/// the operation yields, math on floats or complex values, bitwise not on integers and bools.
pub fn check_unary(op: UnaryOp, arg: DType, result: DType) -> std::result::Result<(), String> {
    if op.result_dtype(arg) != result {
        return Err(format!("{op:?} of {} typed {}", arg.name(), result.name()));
    }
    if arg.is_complex() {
        if !op.supports_complex() {
            return Err(format!("{op:?} is not defined for complex values"));
        }
    } else if matches!(op, UnaryOp::Real | UnaryOp::Imag) {
        return Err(format!("{op:?} needs a complex operand, got {}", arg.name()));
    } else if op.is_math() && !arg.is_float() && op != UnaryOp::Conj {
        return Err(format!("{op:?} needs a float operand, got {}", arg.name()));
    }
    if op == UnaryOp::Not && (arg.is_float() || arg.is_complex()) {
        return Err("bitwise not of a float".into());
    }
    Ok(())
}

/// One operation. Operand fields are indices of earlier nodes.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// The current element of array parameter `param`.
    Load {
        param: usize,
    },
    /// The value of scalar parameter `param`.
    Scalar {
        param: usize,
    },
    /// A constant (integers and bools are carried exactly in `bits`; floats as f64; complex values
    /// as the real part in `value` and the bits of the imaginary part, an f64, in `bits`).
    Const {
        value: f64,
        bits: i64,
    },
    /// Convert to the node's dtype with NumPy's casting (float->int truncates).
    Cast {
        arg: usize,
    },
    Unary {
        op: UnaryOp,
        arg: usize,
    },
    /// Operands already have the operation's computation dtype; comparisons yield bool.
    Binary {
        op: BinaryOp,
        lhs: usize,
        rhs: usize,
    },
    /// `cond ? a : b` (np.where).
    Select {
        cond: usize,
        a: usize,
        b: usize,
    },
    /// Write `value` to the current element of array parameter `param`.
    Store {
        param: usize,
        value: usize,
    },
}

impl Op {
    pub fn operands(&self) -> Vec<usize> {
        match *self {
            Op::Load { .. } | Op::Scalar { .. } | Op::Const { .. } => vec![],
            Op::Cast { arg } | Op::Unary { arg, .. } => vec![arg],
            Op::Binary { lhs, rhs, .. } => vec![lhs, rhs],
            Op::Select { cond, a, b } => vec![cond, a, b],
            Op::Store { value, .. } => vec![value],
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub op: Op,
    /// The dtype of the value this node produces (for `Store`, the stored dtype).
    pub dtype: DType,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ParamKind {
    /// An array; `contiguous` means C-contiguous with exactly the iteration shape, so the element
    /// offset is the linear index (no strides are passed).
    Array {
        dtype: DType,
        ndim: usize,
        contiguous: bool,
    },
    Scalar {
        dtype: DType,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Param {
    pub name: String,
    pub kind: ParamKind,
}

#[derive(Clone, Debug, PartialEq)]
pub struct KernelSpec {
    pub name: String,
    /// Dimensions of the iteration space.
    pub ndim: usize,
    pub params: Vec<Param>,
    pub nodes: Vec<Node>,
}

impl KernelSpec {
    /// Whether any value or parameter is float64 or complex128 (needs fp64 on the device).
    pub fn uses_f64(&self) -> bool {
        self.uses(DType::needs_fp64)
    }
    /// Whether any value or parameter is float16 (needs fp16 on the device).
    pub fn uses_f16(&self) -> bool {
        self.uses(DType::needs_fp16)
    }
    fn uses(&self, pred: fn(DType) -> bool) -> bool {
        self.nodes.iter().any(|n| pred(n.dtype))
            || self.params.iter().any(|p| match p.kind {
                ParamKind::Array { dtype, .. } | ParamKind::Scalar { dtype } => pred(dtype),
            })
    }
}
