//! float16 in both kernel forms: values are stored as `half` and computed in `float`, every float16
//! result rounded to half (`fptrunc` + `fpext`); the kernels validate as SPIR-V and emit PTX with
//! libdevice linked in (no device needed); kernels using float16 are refused on a device without
//! half precision; atomics on float16 are refused by the verifier.

mod common;
use common::{ptx_caps, spirv_val};
use numba_ext_core::codegen::{self, DeviceCaps};
use numba_ext_core::ir::cfg::{
    ArrayDecl, AtomicOp, Block, Function, Inst, KParam, MemOrder, MemScope, Operand, Space, Term, WorkItem,
};
use numba_ext_core::ir::{
    f16_bits, f16_value, round_f16, BinaryOp, DType, Graph, KernelSpec, Node, Op, Param, ParamKind, UnaryOp,
};
use numba_ext_core::target::{DeviceTarget, Target};

fn arr(name: &str, dtype: DType) -> Param {
    Param { name: name.into(), kind: ParamKind::Array { dtype, ndim: 1, contiguous: true } }
}

/// out = where(a < b, f(a, b, s), 0.1) in float16, wide = float32(out) + float32 x, back = float16(x),
/// dh = float16(d) for float64 d.
fn f16_spec() -> KernelSpec {
    let h = DType::F16;
    let n = |op, dtype| Node { op, dtype };
    let mut nodes = vec![
        n(Op::Load { param: 0 }, h),             // 0 a
        n(Op::Load { param: 1 }, h),             // 1 b
        n(Op::Scalar { param: 2 }, h),           // 2 s
        n(Op::Const { value: 0.1, bits: 0 }, h), // 3 0.1 as a half
        n(Op::Load { param: 3 }, DType::F32),    // 4 x
    ];
    let mut acc = 0;
    for op in [BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Div, BinaryOp::Pow, BinaryOp::Max] {
        nodes.push(n(Op::Binary { op, lhs: acc, rhs: 1 }, h));
        acc = nodes.len() - 1;
    }
    for op in [UnaryOp::Abs, UnaryOp::Sqrt, UnaryOp::Exp, UnaryOp::Log1p, UnaryOp::Sin, UnaryOp::Cos, UnaryOp::Tanh] {
        nodes.push(n(Op::Unary { op, arg: acc }, h));
        acc = nodes.len() - 1;
    }
    nodes.push(n(Op::Binary { op: BinaryOp::Mul, lhs: acc, rhs: 2 }, h));
    let m = nodes.len() - 1;
    nodes.push(n(Op::Binary { op: BinaryOp::Lt, lhs: 0, rhs: 1 }, DType::Bool));
    let lt = nodes.len() - 1;
    nodes.push(n(Op::Select { cond: lt, a: m, b: 3 }, h));
    let sel = nodes.len() - 1;
    nodes.push(n(Op::Store { param: 4, value: sel }, h));
    nodes.push(n(Op::Cast { arg: sel }, DType::F32));
    let wide = nodes.len() - 1;
    nodes.push(n(Op::Binary { op: BinaryOp::Add, lhs: wide, rhs: 4 }, DType::F32));
    let w2 = nodes.len() - 1;
    nodes.push(n(Op::Store { param: 5, value: w2 }, DType::F32));
    nodes.push(n(Op::Cast { arg: 4 }, h));
    let back = nodes.len() - 1;
    nodes.push(n(Op::Store { param: 6, value: back }, h));
    // float64 rounds to half directly
    nodes.push(n(Op::Load { param: 7 }, DType::F64));
    let d = nodes.len() - 1;
    nodes.push(n(Op::Cast { arg: d }, h));
    let dh = nodes.len() - 1;
    nodes.push(n(Op::Store { param: 8, value: dh }, h));
    KernelSpec {
        name: "k_half".into(),
        ndim: 1,
        params: vec![
            arr("a", h),
            arr("b", h),
            Param { name: "s".into(), kind: ParamKind::Scalar { dtype: h } },
            arr("x", DType::F32),
            arr("out", h),
            arr("wide", DType::F32),
            arr("back", h),
            arr("d", DType::F64),
            arr("dh", h),
        ],
        nodes,
    }
}

fn spirv_caps() -> DeviceCaps {
    DeviceCaps::new(Target::SpirV, true, "cpu".into())
}

#[test]
fn half_rounding_of_constants() {
    assert_eq!(round_f16(0.1), 0.0999755859375);
    assert_eq!(round_f16(65504.0), 65504.0);
    assert_eq!(round_f16(65519.0), 65504.0);
    assert_eq!(round_f16(65520.0), f64::INFINITY);
    assert_eq!(round_f16(-1e6), f64::NEG_INFINITY);
    assert_eq!(round_f16(2f64.powi(-24)), 2f64.powi(-24)); // the smallest subnormal
    assert_eq!(round_f16(2f64.powi(-26)), 0.0); // below half of it
    assert_eq!(round_f16(1.0 + 2f64.powi(-11)), 1.0); // a tie rounds to even
    assert_eq!(round_f16(1.0 + 3.0 * 2f64.powi(-11)), 1.0 + 2f64.powi(-9));
    assert!(round_f16(f64::NAN).is_nan());
}

#[test]
fn half_bits_round_trip() {
    assert_eq!(f16_bits(1.0), 0x3c00);
    assert_eq!(f16_bits(-2.0), 0xc000);
    assert_eq!(f16_bits(65504.0), 0x7bff);
    assert_eq!(f16_bits(1e9), 0x7c00);
    assert_eq!(f16_bits(2f64.powi(-24)), 0x0001);
    assert_eq!(f16_bits(0.1), 0x2e66);
    assert_eq!(f16_bits(-0.0), 0x8000);
    assert_eq!(f16_bits(f64::NAN) & 0x7e00, 0x7e00);
    for h in (0u16..0x7c00).chain(0x8000..0xfc00) {
        assert_eq!(f16_bits(f16_value(h)), h, "{h:#x}");
    }
}

#[test]
fn half_elementwise_kernels_build_for_both_targets() {
    let spec = f16_spec();
    Graph::from_spec(&spec).unwrap().verify().unwrap();
    let spv = codegen::compile(&spec, &spirv_caps()).unwrap();
    spirv_val(&spv.bytes);
    let ir = &spv.llvm_ir;
    assert!(ir.contains("load half") && ir.contains("store half"), "{ir}");
    assert!(ir.contains("fpext half") && ir.contains("fptrunc float"), "{ir}");
    assert!(ir.contains("fptrunc double") && ir.contains("to half"), "{ir}");
    // the constant 0.1 is the half nearest to it, held as a float
    assert!(ir.contains("0x3FB9980000000000"), "{ir}");
    // math runs in single precision
    assert!(ir.contains("_Z4sqrtf") && !ir.contains("_Z4sqrtd"), "{ir}");
    let ptx = String::from_utf8(codegen::compile(&spec, &ptx_caps()).unwrap().bytes).unwrap();
    assert!(ptx.contains(".entry k_half") && !ptx.contains(".extern .func"), "{ptx}");
    assert!(ptx.contains("ld.global.b16") || ptx.contains("ld.global.u16"), "{ptx}");
    assert!(ptx.contains("cvt.rn.f16.f32") && ptx.contains("cvt.f32.f16"), "{ptx}");
    assert!(ptx.contains("cvt.rn.f16.f64"), "{ptx}");
}

/// out[g] = a[g] * a[g] + s through a local float16 array; acc[0] += a[g] (refused: an atomic).
fn f16_function(atomic: bool) -> Function {
    let h = DType::F16;
    let decl =
        |space, shape: Vec<usize>| ArrayDecl { name: "x".into(), dtype: h, ndim: 1, space, shape, contiguous: true };
    let l = Operand::Local;
    let zero = Operand::Const { value: 0.0, bits: 0, dtype: DType::I64 };
    let mut insts = vec![
        Inst::WorkItem { dst: 0, query: WorkItem::GlobalId, dim: 0 },
        Inst::Load { dst: 1, array: 0, index: vec![l(0)] },
        Inst::Binary { dst: 2, op: BinaryOp::Mul, a: l(1), b: l(1) },
        Inst::Binary { dst: 2, op: BinaryOp::Add, a: l(2), b: l(3) },
        Inst::Store { array: 2, index: vec![zero], src: l(2) },
        Inst::Load { dst: 4, array: 2, index: vec![zero] },
        Inst::Cast { dst: 5, src: l(4) },
        Inst::Store { array: 1, index: vec![l(0)], src: l(4) },
    ];
    if atomic {
        insts.push(Inst::Atomic {
            dst: None,
            op: AtomicOp::Add,
            array: 1,
            index: vec![zero],
            value: l(1),
            cmp: None,
            order: MemOrder::Relaxed,
            scope: MemScope::Device,
        });
    }
    Function {
        name: "k_cfg_half".into(),
        params: vec![KParam::Array(0), KParam::Array(1), KParam::Scalar { local: 3 }],
        arrays: vec![decl(Space::Global, vec![]), decl(Space::Global, vec![]), decl(Space::Private, vec![1])],
        locals: vec![DType::I64, h, h, h, h, DType::F64],
        blocks: vec![Block { insts, term: Term::Return }],
        bounds: None,
    }
}

#[test]
fn half_control_flow_kernels_build_for_both_targets() {
    let f = f16_function(false);
    f.verify().unwrap();
    let spv = codegen::compile_function(&f, &spirv_caps()).unwrap();
    spirv_val(&spv.bytes);
    assert!(spv.llvm_ir.contains("half"), "{}", spv.llvm_ir);
    let ptx = String::from_utf8(codegen::compile_function(&f, &ptx_caps()).unwrap().bytes).unwrap();
    // NVPTX narrows float operations rounded to half into native half instructions (sm_53 on), but
    // does not fuse them: every float16 result rounds, as in NumPy
    assert!(ptx.contains(".entry k_cfg_half") && ptx.contains(".f16"), "{ptx}");
    assert!(!ptx.contains("fma.rn.f16"), "{ptx}");
    let e = f16_function(true).verify().unwrap_err().to_string();
    assert!(e.contains("float16") && e.contains("not supported"), "{e}");
}

#[test]
fn half_needs_fp16_on_the_device() {
    let caps = DeviceCaps::for_device(DeviceTarget::new(Target::SpirV, true, "no-half".into()).with_fp16(false));
    let e = codegen::compile(&f16_spec(), &caps).unwrap_err().to_string();
    assert!(e.contains("float16") && e.contains("no-half") && e.contains("float32"), "{e}");
    let e = codegen::compile_function(&f16_function(false), &caps).unwrap_err().to_string();
    assert!(e.contains("float16") && e.contains("no-half"), "{e}");
}
