//! Graph and codegen tests: verifier, passes (CSE/DCE counted), FileCheck-style checks of the LLVM IR
//! for both targets, and `spirv-val` on every emitted SPIR-V module.

use numba_ext_core::codegen::{self, DeviceCaps, Flavor};
use numba_ext_core::ir::{passes, BinaryOp, DType, Graph, KernelSpec, Node, Op, Param, ParamKind, UnaryOp};
use numba_ext_core::runtime::Target;

fn arr(name: &str, dtype: DType, contiguous: bool) -> Param {
    Param { name: name.into(), kind: ParamKind::Array { dtype, ndim: 1, contiguous } }
}

/// out = sqrt(a) * b + 1.0 (the slice's expression), with a duplicated sqrt and a dead node.
fn slice_spec(dt: DType) -> KernelSpec {
    let n = |op, dtype| Node { op, dtype };
    KernelSpec {
        name: "k_slice".into(),
        ndim: 1,
        params: vec![arr("a", dt, true), arr("b", dt, true), arr("out", dt, true)],
        nodes: vec![
            n(Op::Load { param: 0 }, dt),                               // 0
            n(Op::Load { param: 1 }, dt),                               // 1
            n(Op::Unary { op: UnaryOp::Sqrt, arg: 0 }, dt),             // 2
            n(Op::Unary { op: UnaryOp::Sqrt, arg: 0 }, dt),             // 3 duplicate of 2
            n(Op::Binary { op: BinaryOp::Mul, lhs: 3, rhs: 1 }, dt),   // 4
            n(Op::Const { value: 1.0, bits: 0 }, dt),                   // 5
            n(Op::Binary { op: BinaryOp::Add, lhs: 4, rhs: 5 }, dt),   // 6
            n(Op::Unary { op: UnaryOp::Exp, arg: 1 }, dt),              // 7 dead
            n(Op::Store { param: 2, value: 6 }, dt),                    // 8
        ],
    }
}

fn spirv_caps() -> DeviceCaps {
    DeviceCaps { target: Target::SpirV, has_fp64: true, name: "test".into() }
}

/// Minimal FileCheck: each pattern must appear, in order.
fn check_in_order(text: &str, patterns: &[&str]) {
    let mut pos = 0;
    for p in patterns {
        match text[pos..].find(p) {
            Some(i) => pos += i + p.len(),
            None => panic!("pattern {p:?} not found (in order) in:\n{text}"),
        }
    }
}

fn spirv_val(bytes: &[u8]) {
    let dir = std::env::temp_dir().join(format!("nx-spv-{}-{}", std::process::id(), bytes.len()));
    std::fs::write(&dir, bytes).unwrap();
    let out = std::process::Command::new("spirv-val")
        .arg(&dir)
        .output()
        .expect("spirv-val must be installed (Debian package spirv-tools)");
    assert!(out.status.success(), "spirv-val rejected the module: {}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn cse_and_dce_shrink_the_graph() {
    let g = Graph::from_spec(&slice_spec(DType::F64)).unwrap();
    assert_eq!(g.node_count(), 9);
    let opt = passes::optimize(&g).unwrap();
    // one sqrt, no exp
    let sqrts = opt.g.node_weights().filter(|n| matches!(n.op, Op::Unary { op: UnaryOp::Sqrt, .. })).count();
    let exps = opt.g.node_weights().filter(|n| matches!(n.op, Op::Unary { op: UnaryOp::Exp, .. })).count();
    assert_eq!((sqrts, exps), (1, 0));
    assert_eq!(opt.node_count(), 7);
}

#[test]
fn constant_folding() {
    let dt = DType::F32;
    let n = |op| Node { op, dtype: dt };
    let spec = KernelSpec {
        name: "k_fold".into(),
        ndim: 1,
        params: vec![arr("out", dt, true)],
        nodes: vec![
            n(Op::Const { value: 2.0, bits: 0 }),
            n(Op::Const { value: 3.0, bits: 0 }),
            n(Op::Binary { op: BinaryOp::Mul, lhs: 0, rhs: 1 }),
            n(Op::Store { param: 0, value: 2 }),
        ],
    };
    let opt = passes::optimize(&Graph::from_spec(&spec).unwrap()).unwrap();
    assert_eq!(opt.node_count(), 2);
    assert!(opt.g.node_weights().any(|n| matches!(n.op, Op::Const { value, .. } if value == 6.0)));
}

#[test]
fn verifier_rejects_bad_graphs() {
    let mut s = slice_spec(DType::F64);
    s.nodes[4] = Node { op: Op::Binary { op: BinaryOp::Mul, lhs: 3, rhs: 1 }, dtype: DType::F32 };
    assert!(Graph::from_spec(&s).unwrap_err().to_string().contains("Mul yields float64"));
    let mut s = slice_spec(DType::F64);
    s.nodes[2] = Node { op: Op::Unary { op: UnaryOp::Sqrt, arg: 5 }, dtype: DType::F64 };
    assert!(Graph::from_spec(&s).unwrap_err().to_string().contains("does not precede"));
    let mut s = slice_spec(DType::F64);
    s.nodes.pop();
    assert!(Graph::from_spec(&s).unwrap_err().to_string().contains("stores nothing"));
    let mut s = slice_spec(DType::F64);
    s.nodes[0] = Node { op: Op::Load { param: 0 }, dtype: DType::F32 };
    assert!(Graph::from_spec(&s).is_err());
}

#[test]
fn spirv_ir_uses_opencl_builtins() {
    let ir = codegen::llvm_ir(&slice_spec(DType::F64), Flavor::Spirv).unwrap();
    check_in_order(
        &ir,
        &[
            "target triple = \"spirv64-unknown-unknown\"",
            "define spir_kernel void @k_slice(ptr addrspace(1) %a_base, i64",
            "call spir_func i64 @_Z13get_global_idj(i32 0)",
            "icmp ult i64 %gid, %n",
            "call spir_func double @_Z4sqrtd(double",
            "fmul double",
            "fadd double",
            "store double",
        ],
    );
    assert_eq!(ir.matches("@_Z4sqrtd(double %").count(), 1, "CSE leaves one sqrt call");
    let ir32 = codegen::llvm_ir(&slice_spec(DType::F32), Flavor::Spirv).unwrap();
    check_in_order(&ir32, &["call spir_func float @_Z4sqrtf(float", "fadd float"]);
}

#[test]
fn nvptx_ir_uses_sregs_and_libdevice() {
    let ir = codegen::llvm_ir(&slice_spec(DType::F64), Flavor::Nvptx).unwrap();
    check_in_order(
        &ir,
        &["target triple = \"nvptx64-nvidia-cuda\"", "define ptx_kernel void @k_slice", "@llvm.nvvm.read.ptx.sreg.tid.x()", "@__nv_sqrt(double"],
    );
}

#[test]
fn spirv_modules_validate() {
    for dt in [DType::F32, DType::F64] {
        let bin = codegen::compile(&slice_spec(dt), &spirv_caps()).unwrap();
        assert_eq!(&bin.bytes[..4], &[0x03, 0x02, 0x23, 0x07], "SPIR-V magic");
        spirv_val(&bin.bytes);
    }
    // every unary math op and the binary ops, strided/broadcast arrays, bool and int paths
    let dt = DType::F64;
    let mut nodes = vec![Node { op: Op::Load { param: 0 }, dtype: dt }];
    let unary = [UnaryOp::Sqrt, UnaryOp::Exp, UnaryOp::Log, UnaryOp::Sin, UnaryOp::Cos, UnaryOp::Tanh, UnaryOp::Erf, UnaryOp::Abs, UnaryOp::Neg, UnaryOp::Floor];
    for op in unary {
        let last = nodes.len() - 1;
        nodes.push(Node { op: Op::Unary { op, arg: last }, dtype: dt });
    }
    for op in [BinaryOp::Pow, BinaryOp::Rem, BinaryOp::FloorDiv, BinaryOp::Min, BinaryOp::Max, BinaryOp::Atan2, BinaryOp::Hypot] {
        let last = nodes.len() - 1;
        nodes.push(Node { op: Op::Binary { op, lhs: last, rhs: 0 }, dtype: dt });
    }
    let last = nodes.len() - 1;
    nodes.push(Node { op: Op::Binary { op: BinaryOp::Lt, lhs: last, rhs: 0 }, dtype: DType::Bool });
    let c = nodes.len() - 1;
    nodes.push(Node { op: Op::Select { cond: c, a: last, b: 0 }, dtype: dt });
    let v = nodes.len() - 1;
    nodes.push(Node { op: Op::Store { param: 1, value: v }, dtype: dt });
    nodes.push(Node { op: Op::Cast { arg: v }, dtype: DType::I64 });
    let iv = nodes.len() - 1;
    nodes.push(Node { op: Op::Binary { op: BinaryOp::FloorDiv, lhs: iv, rhs: iv }, dtype: DType::I64 });
    let q = nodes.len() - 1;
    nodes.push(Node { op: Op::Store { param: 2, value: q }, dtype: DType::I64 });
    nodes.push(Node { op: Op::Store { param: 3, value: c }, dtype: DType::Bool });
    let spec = KernelSpec {
        name: "k_all".into(),
        ndim: 2,
        params: vec![
            Param { name: "x".into(), kind: ParamKind::Array { dtype: dt, ndim: 2, contiguous: false } },
            Param { name: "y".into(), kind: ParamKind::Array { dtype: dt, ndim: 2, contiguous: true } },
            Param { name: "z".into(), kind: ParamKind::Array { dtype: DType::I64, ndim: 2, contiguous: true } },
            Param { name: "m".into(), kind: ParamKind::Array { dtype: DType::Bool, ndim: 2, contiguous: true } },
        ],
        nodes,
    };
    let bin = codegen::compile(&spec, &spirv_caps()).unwrap();
    spirv_val(&bin.bytes);
    // slots: x (mem + 2 strides), y, z, m, shape(2), n
    assert_eq!(bin.slots.len(), 3 + 3 + 3);
}

#[test]
fn float64_needs_fp64() {
    let caps = DeviceCaps { target: Target::SpirV, has_fp64: false, name: "no-fp64".into() };
    let err = codegen::compile(&slice_spec(DType::F64), &caps).unwrap_err().to_string();
    assert!(err.contains("no fp64"), "{err}");
    assert!(codegen::compile(&slice_spec(DType::F32), &caps).is_ok());
}
