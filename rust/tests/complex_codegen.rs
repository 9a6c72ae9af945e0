//! Complex values in both kernel forms: every complex operation lowers, validates as SPIR-V and
//! emits PTX with libdevice linked in (no NVIDIA device needed); complex128 needs fp64; the verifier
//! types `abs`, `real` and `imag` of complex values as their component dtype.

mod common;
use common::{ptx_caps, spirv_val};
use numba_ext_core::codegen::{self, DeviceCaps};
use numba_ext_core::ir::cfg::{
    ArrayDecl, AtomicOp, Block, Function, Inst, KParam, MemOrder, MemScope, Operand, Space, Term, WorkItem,
};
use numba_ext_core::ir::{BinaryOp, DType, Graph, KernelSpec, Node, Op, Param, ParamKind, UnaryOp};
use numba_ext_core::target::Target;

fn arr(name: &str, dtype: DType) -> Param {
    Param { name: name.into(), kind: ParamKind::Array { dtype, ndim: 1, contiguous: true } }
}

/// out = f(a, b, s) using every complex operation, and re = |a| + real(a) + imag(b).
fn complex_spec(c: DType) -> KernelSpec {
    let r = c.component();
    let n = |op, dtype| Node { op, dtype };
    let mut nodes = vec![
        n(Op::Load { param: 0 }, c),                                      // 0 a
        n(Op::Load { param: 1 }, c),                                      // 1 b
        n(Op::Scalar { param: 2 }, c),                                    // 2 s
        n(Op::Const { value: 0.5, bits: (-2.0f64).to_bits() as i64 }, c), // 3 0.5-2j
    ];
    let mut acc = 0;
    for op in [BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Div, BinaryOp::Pow] {
        nodes.push(n(Op::Binary { op, lhs: acc, rhs: 1 }, c));
        acc = nodes.len() - 1;
    }
    for op in [
        UnaryOp::Exp,
        UnaryOp::Log,
        UnaryOp::Sqrt,
        UnaryOp::Sin,
        UnaryOp::Cos,
        UnaryOp::Sinh,
        UnaryOp::Cosh,
        UnaryOp::Conj,
        UnaryOp::Neg,
    ] {
        nodes.push(n(Op::Unary { op, arg: acc }, c));
        acc = nodes.len() - 1;
    }
    nodes.push(n(Op::Binary { op: BinaryOp::Mul, lhs: acc, rhs: 2 }, c));
    let m = nodes.len() - 1;
    nodes.push(n(Op::Binary { op: BinaryOp::Add, lhs: m, rhs: 3 }, c));
    let sum = nodes.len() - 1;
    nodes.push(n(Op::Store { param: 3, value: sum }, c));
    nodes.push(n(Op::Unary { op: UnaryOp::Abs, arg: 0 }, r)); // |a|
    let ab = nodes.len() - 1;
    nodes.push(n(Op::Unary { op: UnaryOp::Real, arg: 0 }, r));
    let re = nodes.len() - 1;
    nodes.push(n(Op::Unary { op: UnaryOp::Imag, arg: 1 }, r));
    let im = nodes.len() - 1;
    nodes.push(n(Op::Binary { op: BinaryOp::Add, lhs: ab, rhs: re }, r));
    let t = nodes.len() - 1;
    nodes.push(n(Op::Binary { op: BinaryOp::Add, lhs: t, rhs: im }, r));
    let t2 = nodes.len() - 1;
    nodes.push(n(Op::Binary { op: BinaryOp::Eq, lhs: 0, rhs: 1 }, DType::Bool));
    let eq = nodes.len() - 1;
    nodes.push(n(Op::Cast { arg: eq }, r));
    let eqf = nodes.len() - 1;
    nodes.push(n(Op::Binary { op: BinaryOp::Add, lhs: t2, rhs: eqf }, r));
    let t3 = nodes.len() - 1;
    nodes.push(n(Op::Store { param: 4, value: t3 }, r));
    KernelSpec {
        name: "k_complex".into(),
        ndim: 1,
        params: vec![
            arr("a", c),
            arr("b", c),
            Param { name: "s".into(), kind: ParamKind::Scalar { dtype: c } },
            arr("out", c),
            arr("re", r),
        ],
        nodes,
    }
}

#[test]
fn complex_elementwise_kernels_build_for_both_targets() {
    for c in [DType::C64, DType::C128] {
        let spec = complex_spec(c);
        Graph::from_spec(&spec).unwrap().verify().unwrap();
        let spv = codegen::compile(&spec, &DeviceCaps::new(Target::SpirV, true, "cpu".into())).unwrap();
        spirv_val(&spv.bytes);
        // a complex scalar takes two slots (real, imaginary): 4 arrays + 2 + shape + n
        assert_eq!(spv.slots.len(), 4 + 2 + 2);
        let comp = if c == DType::C64 { "float" } else { "double" };
        assert!(spv.llvm_ir.contains(&format!("{comp} %s_re")) || spv.llvm_ir.contains(comp), "{}", spv.llvm_ir);
        let bin = codegen::compile(&spec, &ptx_caps()).unwrap();
        let ptx = String::from_utf8(bin.bytes).unwrap();
        assert!(ptx.contains(".entry k_complex") && ptx.contains(".target sm_90"), "{ptx}");
        assert!(!ptx.contains(".extern .func"), "unresolved functions in PTX:\n{ptx}");
        // NumPy's layout: the parts are loaded and stored as two components (or one vector of two)
        let w = if c == DType::C64 { "32" } else { "64" };
        assert!(ptx.contains(&format!("ld.global.b{w}")) || ptx.contains(&format!("ld.global.v2.b{w}")), "{ptx}");
    }
}

#[test]
fn complex128_needs_fp64_and_complex64_does_not() {
    let caps = DeviceCaps::new(Target::SpirV, false, "no-fp64".into());
    let err = codegen::compile(&complex_spec(DType::C128), &caps).unwrap_err().to_string();
    assert!(err.contains("complex128") && err.contains("no-fp64") && err.contains("complex64"), "{err}");
    assert!(codegen::compile(&complex_spec(DType::C64), &caps).is_ok());
}

#[test]
fn verifier_types_complex_operations() {
    let mut spec = complex_spec(DType::C128);
    let abs = spec.nodes.iter().position(|n| matches!(n.op, Op::Unary { op: UnaryOp::Abs, .. })).unwrap();
    spec.nodes[abs].dtype = DType::C128; // abs of a complex value is real
    let e = Graph::from_spec(&spec).and_then(|g| g.verify()).unwrap_err().to_string();
    assert!(e.contains("Abs of complex128 typed complex128"), "{e}");
    let mut spec = complex_spec(DType::C128);
    spec.nodes[4] = Node { op: Op::Binary { op: BinaryOp::Lt, lhs: 0, rhs: 1 }, dtype: DType::Bool };
    let e = Graph::from_spec(&spec).and_then(|g| g.verify()).unwrap_err().to_string();
    assert!(e.contains("not defined for complex"), "{e}");
}

/// acc[0] += a[g] * b[g] (a complex atomic add), out[g] = conj(a[g]).
fn complex_function(c: DType) -> Function {
    let g =
        |d| ArrayDecl { name: "x".into(), dtype: d, ndim: 1, space: Space::Global, shape: vec![], contiguous: true };
    let l = Operand::Local;
    let zero = Operand::Const { value: 0.0, bits: 0, dtype: DType::I64 };
    Function {
        name: "k_cfg_complex".into(),
        params: vec![KParam::Array(0), KParam::Array(1), KParam::Array(2), KParam::Array(3)],
        arrays: vec![g(c), g(c), g(c), g(c)],
        locals: vec![DType::I64, c, c, c, c],
        blocks: vec![Block {
            insts: vec![
                Inst::WorkItem { dst: 0, query: WorkItem::GlobalId, dim: 0 },
                Inst::Load { dst: 1, array: 0, index: vec![l(0)] },
                Inst::Load { dst: 2, array: 1, index: vec![l(0)] },
                Inst::Binary { dst: 3, op: BinaryOp::Mul, a: l(1), b: l(2) },
                Inst::Atomic {
                    dst: None,
                    op: AtomicOp::Add,
                    array: 3,
                    index: vec![zero],
                    value: l(3),
                    cmp: None,
                    order: MemOrder::Relaxed,
                    scope: MemScope::Device,
                },
                Inst::Unary { dst: 4, op: UnaryOp::Conj, src: l(1) },
                Inst::Store { array: 2, index: vec![l(0)], src: l(4) },
            ],
            term: Term::Return,
        }],
        bounds: None,
    }
}

#[test]
fn complex_control_flow_kernels_build_for_both_targets() {
    for c in [DType::C64, DType::C128] {
        let f = complex_function(c);
        f.verify().unwrap();
        let spv = codegen::compile_function(&f, &DeviceCaps::new(Target::SpirV, true, "cpu".into())).unwrap();
        spirv_val(&spv.bytes);
        assert!(spv.llvm_ir.contains("cmpxchg"), "complex atomic add: one float CAS loop per part");
        let ptx = String::from_utf8(codegen::compile_function(&f, &ptx_caps()).unwrap().bytes).unwrap();
        let w = if c == DType::C64 { "f32" } else { "f64" };
        assert!(ptx.contains(&format!("add.{w}")) && ptx.contains(".entry k_cfg_complex"), "{ptx}");
        // a complex multiply is no atomic: refused
        let mut bad = complex_function(c);
        bad.blocks[0].insts[4] = Inst::Atomic {
            dst: None,
            op: AtomicOp::Mul,
            array: 3,
            index: vec![Operand::Local(0)],
            value: Operand::Local(3),
            cmp: None,
            order: MemOrder::Relaxed,
            scope: MemScope::Device,
        };
        assert!(bad.verify().unwrap_err().to_string().contains("atomic mul on complex"));
    }
}
