//! Graph and codegen tests: verifier, passes (CSE/DCE counted), FileCheck-style checks of the LLVM IR
//! for both targets, and `spirv-val` on every emitted SPIR-V module.

use numba_ext_core::codegen::{self, DeviceCaps, Flavor};
use numba_ext_core::ir::{passes, BinaryOp, DType, Graph, KernelSpec, Node, Op, Param, ParamKind, UnaryOp};
use numba_ext_core::target::Target;

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
            n(Op::Load { param: 0 }, dt),                            // 0
            n(Op::Load { param: 1 }, dt),                            // 1
            n(Op::Unary { op: UnaryOp::Sqrt, arg: 0 }, dt),          // 2
            n(Op::Unary { op: UnaryOp::Sqrt, arg: 0 }, dt),          // 3 duplicate of 2
            n(Op::Binary { op: BinaryOp::Mul, lhs: 3, rhs: 1 }, dt), // 4
            n(Op::Const { value: 1.0, bits: 0 }, dt),                // 5
            n(Op::Binary { op: BinaryOp::Add, lhs: 4, rhs: 5 }, dt), // 6
            n(Op::Unary { op: UnaryOp::Exp, arg: 1 }, dt),           // 7 dead
            n(Op::Store { param: 2, value: 6 }, dt),                 // 8
        ],
    }
}

fn spirv_caps() -> DeviceCaps {
    DeviceCaps::new(Target::SpirV, true, "test".into())
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
            "call spir_func double @_Z4sqrtd(double",
            "fmul double",
            "fadd double",
            "store double",
        ],
    );
    assert_eq!(ir.matches("@_Z4sqrtd(double %").count(), 1, "CSE leaves one sqrt call");
    // SPIR-V launches cover exactly n work-items: no bounds branch to hinder vectorisation
    assert!(!ir.contains("icmp ult i64 %gid, %n"), "{ir}");
    let ir32 = codegen::llvm_ir(&slice_spec(DType::F32), Flavor::Spirv).unwrap();
    check_in_order(&ir32, &["call spir_func float @_Z4sqrtf(float", "fadd float"]);
}

#[test]
fn nvptx_ir_uses_sregs_and_libdevice() {
    let ir = codegen::llvm_ir(&slice_spec(DType::F64), Flavor::Nvptx).unwrap();
    check_in_order(
        &ir,
        &[
            "target triple = \"nvptx64-nvidia-cuda\"",
            "define ptx_kernel void @k_slice",
            "@llvm.nvvm.read.ptx.sreg.tid.x()",
            "icmp ult i64 %gid, %n",
            "@__nv_sqrt(double",
        ],
    );
}

#[test]
fn spirv_modules_validate() {
    for dt in [DType::F32, DType::F64] {
        let bin = codegen::compile(&slice_spec(dt), &spirv_caps()).unwrap();
        assert_eq!(&bin.bytes[..4], &[0x03, 0x02, 0x23, 0x07], "SPIR-V magic");
        spirv_val(&bin.bytes);
    }
    let bin = codegen::compile(&all_ops_spec(), &spirv_caps()).unwrap();
    spirv_val(&bin.bytes);
    // slots: x (mem + 2 strides), y, z, m, shape(2), n
    assert_eq!(bin.slots.len(), 3 + 3 + 3);
}

/// Every unary math op and the binary ops, strided/broadcast arrays, bool and int paths.
fn all_ops_spec() -> KernelSpec {
    all_ops_spec_of(DType::F64)
}

/// Every operation, on float dtype `dt` (and int64 for the integer operations).
fn all_ops_spec_of(dt: DType) -> KernelSpec {
    let mut nodes = vec![Node { op: Op::Load { param: 0 }, dtype: dt }];
    let unary = [
        UnaryOp::Sqrt,
        UnaryOp::Exp,
        UnaryOp::Log,
        UnaryOp::Sin,
        UnaryOp::Cos,
        UnaryOp::Tanh,
        UnaryOp::Erf,
        UnaryOp::Abs,
        UnaryOp::Neg,
        UnaryOp::Floor,
        UnaryOp::Asinh,
        UnaryOp::Acosh,
        UnaryOp::Atanh,
        UnaryOp::Exp2,
        UnaryOp::Cbrt,
        UnaryOp::Rint,
    ];
    for op in unary {
        let last = nodes.len() - 1;
        nodes.push(Node { op: Op::Unary { op, arg: last }, dtype: dt });
    }
    for op in [
        BinaryOp::Pow,
        BinaryOp::Rem,
        BinaryOp::FloorDiv,
        BinaryOp::Min,
        BinaryOp::Max,
        BinaryOp::Atan2,
        BinaryOp::Hypot,
        BinaryOp::Fmod,
        BinaryOp::Copysign,
        BinaryOp::Nextafter,
        BinaryOp::Ldexp,
    ] {
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
    nodes.push(Node { op: Op::Binary { op: BinaryOp::Pow, lhs: iv, rhs: q }, dtype: DType::I64 }); // integer power
    for op in [BinaryOp::Shl, BinaryOp::Shr, BinaryOp::Gcd, BinaryOp::Fmod] {
        let last = nodes.len() - 1;
        nodes.push(Node { op: Op::Binary { op, lhs: last, rhs: iv }, dtype: DType::I64 });
    }
    let q = nodes.len() - 1;
    nodes.push(Node { op: Op::Store { param: 2, value: q }, dtype: DType::I64 });
    nodes.push(Node { op: Op::Store { param: 3, value: c }, dtype: DType::Bool });
    KernelSpec {
        name: "k_all".into(),
        ndim: 2,
        params: vec![
            Param { name: "x".into(), kind: ParamKind::Array { dtype: dt, ndim: 2, contiguous: false } },
            Param { name: "y".into(), kind: ParamKind::Array { dtype: dt, ndim: 2, contiguous: true } },
            Param { name: "z".into(), kind: ParamKind::Array { dtype: DType::I64, ndim: 2, contiguous: true } },
            Param { name: "m".into(), kind: ParamKind::Array { dtype: DType::Bool, ndim: 2, contiguous: true } },
        ],
        nodes,
    }
}

/// libdevice from the dev environment's `nvidia-nvvm` wheel (installed by `make setup`), else the
/// usual CUDA toolkit places.
fn test_libdevice() -> std::path::PathBuf {
    let venv = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/lib");
    let from_wheel = std::fs::read_dir(&venv)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("site-packages/nvidia/cu13/nvvm/libdevice/libdevice.10.bc"))
        .find(|p| p.is_file());
    from_wheel.or_else(codegen::emit::find_libdevice).expect("libdevice.10.bc not found: run `make setup` (installs the nvidia-nvvm wheel into .venv) or set NUMBA_EXT_LIBDEVICE")
}

#[test]
fn ptx_links_libdevice_math() {
    let mut caps = DeviceCaps::new(Target::Ptx("sm_90".into()), true, "h100".into());
    caps.libdevice = Some(test_libdevice());
    let bin = codegen::compile(&all_ops_spec(), &caps).unwrap();
    let ptx = String::from_utf8(bin.bytes).unwrap();
    assert!(ptx.contains(".entry k_all"), "{ptx}");
    assert!(ptx.contains(".target sm_90"), "{ptx}");
    // every libdevice function was linked in and inlined: no external math calls remain
    assert!(!ptx.contains(".extern .func"), "unresolved functions in PTX:\n{ptx}");
    // our multiplies and adds may fuse into FMAs, as CUDA compilers do by default
    assert!(
        bin.llvm_ir.contains("fmul contract double") || bin.llvm_ir.contains("fadd contract double"),
        "{}",
        bin.llvm_ir
    );
    assert!(bin.llvm_ir.contains("call double @__nv_"), "inspection IR is the IR before libdevice: {}", bin.llvm_ir);
    // the float32 names (`__nv_*f`) link too
    let bin32 = codegen::compile(&all_ops_spec_of(DType::F32), &caps).unwrap();
    let ptx32 = String::from_utf8(bin32.bytes).unwrap();
    assert!(!ptx32.contains(".extern .func"), "unresolved functions in float32 PTX:\n{ptx32}");
    assert!(bin32.llvm_ir.contains("call float @__nv_ldexpf"), "{}", bin32.llvm_ir);
    // without libdevice, math kernels fail with a clear error; kernels without math still build
    caps.libdevice = None;
    let e = codegen::compile(&all_ops_spec(), &caps).unwrap_err().to_string();
    assert!(e.contains("libdevice") && e.contains("nvidia-nvvm") && e.contains("NUMBA_EXT_LIBDEVICE"), "{e}");
    assert!(codegen::compile_function(&cfg_function(DType::F32), &caps).is_ok());
}

#[test]
fn float64_needs_fp64() {
    let caps = DeviceCaps::new(Target::SpirV, false, "no-fp64".into());
    let err = codegen::compile(&slice_spec(DType::F64), &caps).unwrap_err().to_string();
    assert!(err.contains("no fp64"), "{err}");
    assert!(codegen::compile(&slice_spec(DType::F32), &caps).is_ok());
    // the control-flow form (prange loops, kernels) too
    let err = codegen::compile_function(&cfg_function(DType::F64), &caps).unwrap_err().to_string();
    assert!(err.contains("uses float64") && err.contains("no-fp64") && err.contains("float32"), "{err}");
    assert!(codegen::compile_function(&cfg_function(DType::F32), &caps).is_ok());
}

// ---- the control-flow form ----------------------------------------------------------------------
use numba_ext_core::ir::cfg::{
    ArrayDecl, AtomicOp, Block, Function, Inst, KParam, MemOrder, MemScope, Operand, Space, Term, WorkItem,
};

fn l(i: usize) -> Operand {
    Operand::Local(i)
}
fn ci(v: i64) -> Operand {
    Operand::Const { value: v as f64, bits: v, dtype: DType::I64 }
}

/// out[g] = sum over k < n of x[g, k] (a loop), plus a local-memory tile, a barrier and atomics.
fn cfg_function(dt: DType) -> Function {
    let arrays = vec![
        ArrayDecl { name: "x".into(), dtype: dt, ndim: 2, space: Space::Global, shape: vec![], contiguous: false },
        ArrayDecl { name: "out".into(), dtype: dt, ndim: 1, space: Space::Global, shape: vec![], contiguous: true },
        ArrayDecl { name: "tile".into(), dtype: dt, ndim: 1, space: Space::Local, shape: vec![64], contiguous: false },
        ArrayDecl { name: "acc".into(), dtype: dt, ndim: 1, space: Space::Global, shape: vec![], contiguous: true },
    ];
    // locals: 0 g, 1 k, 2 n, 3 s, 4 v, 5 cond, 6 lid, 7 old
    let locals = vec![DType::I64, DType::I64, DType::I64, dt, dt, DType::Bool, DType::I64, dt];
    let zero = Operand::Const { value: 0.0, bits: 0, dtype: dt };
    let blocks = vec![
        Block {
            insts: vec![
                Inst::WorkItem { dst: 0, query: WorkItem::GlobalId, dim: 0 },
                Inst::WorkItem { dst: 6, query: WorkItem::LocalId, dim: 0 },
                Inst::Dim { dst: 2, array: 0, dim: 1 },
                Inst::Copy { dst: 1, src: ci(0) },
                Inst::Copy { dst: 3, src: zero },
            ],
            term: Term::Jump(1),
        },
        Block {
            insts: vec![Inst::Binary { dst: 5, op: BinaryOp::Lt, a: l(1), b: l(2) }],
            term: Term::Branch { cond: l(5), then: 2, otherwise: 3 },
        },
        Block {
            insts: vec![
                Inst::Load { dst: 4, array: 0, index: vec![l(0), l(1)] },
                Inst::Binary { dst: 3, op: BinaryOp::Add, a: l(3), b: l(4) },
                Inst::Binary { dst: 1, op: BinaryOp::Add, a: l(1), b: ci(1) },
            ],
            term: Term::Jump(1),
        },
        Block {
            insts: vec![
                Inst::Store { array: 2, index: vec![l(6)], src: l(3) },
                Inst::Barrier { flags: 1 },
                Inst::Load { dst: 4, array: 2, index: vec![l(6)] },
                Inst::Store { array: 1, index: vec![l(0)], src: l(4) },
                Inst::Atomic {
                    dst: Some(7),
                    op: AtomicOp::Add,
                    array: 3,
                    index: vec![ci(0)],
                    value: l(4),
                    cmp: None,
                    order: MemOrder::Relaxed,
                    scope: MemScope::Device,
                },
                Inst::Atomic {
                    dst: None,
                    op: AtomicOp::Max,
                    array: 3,
                    index: vec![ci(1)],
                    value: l(4),
                    cmp: None,
                    order: MemOrder::Relaxed,
                    scope: MemScope::Device,
                },
            ],
            term: Term::Return,
        },
    ];
    Function {
        name: "k_cfg".into(),
        params: vec![KParam::Array(0), KParam::Array(1), KParam::Array(3)],
        arrays,
        locals,
        blocks,
        bounds: None,
    }
}

#[test]
fn cfg_functions_lower_and_validate() {
    for dt in [DType::F64, DType::F32, DType::I32, DType::I64] {
        let f = cfg_function(dt);
        f.verify().unwrap();
        let bin = codegen::compile_function(&f, &spirv_caps()).unwrap();
        spirv_val(&bin.bytes);
        // x: mem + shape(2) + strides(2); out: 1 + 2; acc: 1 + 2
        assert_eq!(bin.slots.len(), 5 + 3 + 3);
        check_in_order(
            &bin.llvm_ir,
            &["define spir_kernel void @k_cfg", "_Z13get_global_idj", "_Z12get_local_idj", "_Z7barrierj(i32 1)"],
        );
        assert!(bin.llvm_ir.contains("addrspace(3)"), "the tile lives in local memory");
        if dt.is_float() {
            assert!(bin.llvm_ir.contains("cmpxchg"), "float atomics are CAS loops");
        } else {
            assert!(bin.llvm_ir.contains("atomicrmw add") && bin.llvm_ir.contains("atomicrmw max"));
        }
    }
}

#[test]
fn cfg_verifier_rejects_bad_functions() {
    let mut f = cfg_function(DType::F64);
    f.blocks[1].term = Term::Branch { cond: l(5), then: 2, otherwise: 9 };
    assert!(f.verify().unwrap_err().to_string().contains("missing block 9"));
    let mut f = cfg_function(DType::F64);
    f.blocks[2].insts[0] = Inst::Load { dst: 4, array: 0, index: vec![l(0)] };
    assert!(f.verify().unwrap_err().to_string().contains("indexed with 1"));
    let mut f = cfg_function(DType::F64);
    f.blocks.push(Block { insts: vec![], term: Term::Return });
    assert!(f.verify().unwrap_err().to_string().contains("unreachable"));
    let mut f = cfg_function(DType::F64);
    f.blocks[1].insts[0] = Inst::Binary { dst: 5, op: BinaryOp::Lt, a: l(1), b: l(3) };
    assert!(f.verify().is_err());
}

#[test]
fn cfg_nvptx_uses_sregs_and_barrier0() {
    let f = cfg_function(DType::F32);
    let caps = DeviceCaps::new(Target::Ptx("sm_90".into()), true, "h100".into());
    let bin = codegen::compile_function(&f, &caps).unwrap();
    let ptx = String::from_utf8(bin.bytes).unwrap();
    assert!(ptx.contains(".entry k_cfg") && ptx.contains("bar.sync") && ptx.contains("%tid.x"), "{ptx}");
    // float atomic add is one hardware instruction on NVIDIA (max stays a compare-and-swap loop)
    assert!(ptx.contains("atom.global.add.f32") || ptx.contains("red.global.add.f32"), "{ptx}");
    assert!(ptx.contains(".cas.b32"), "{ptx}");
    let f64_ptx =
        String::from_utf8(codegen::compile_function(&cfg_function(DType::F64), &caps).unwrap().bytes).unwrap();
    assert!(f64_ptx.contains("atom.global.add.f64") || f64_ptx.contains("red.global.add.f64"), "{f64_ptx}");
}
