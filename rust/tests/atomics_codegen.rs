//! Atomic operations with every memory order and scope, and fences, in the control-flow form: each
//! operation on global and local memory lowers for both targets, SPIR-V modules pass `spirv-val`
//! and use the SPIR-V atomic instructions, PTX carries the expected fence and `atom` forms (for a
//! current and an old compute capability), and the verifier refuses the orders LLVM forbids.

use numba_ext_core::codegen::{self, DeviceCaps, Flavor};
use numba_ext_core::ir::cfg::{
    ArrayDecl, AtomicOp, Block, Function, Inst, KParam, MemOrder, MemScope, Operand, Space, Term, WorkItem,
};
use numba_ext_core::ir::DType;
use numba_ext_core::target::Target;

const ORDERS: [MemOrder; 5] =
    [MemOrder::Relaxed, MemOrder::Acquire, MemOrder::Release, MemOrder::AcqRel, MemOrder::SeqCst];
const SCOPES: [MemScope; 5] =
    [MemScope::WorkItem, MemScope::SubGroup, MemScope::WorkGroup, MemScope::Device, MemScope::System];
const INT_OPS: [AtomicOp; 12] = [
    AtomicOp::Add,
    AtomicOp::Sub,
    AtomicOp::Mul,
    AtomicOp::Min,
    AtomicOp::Max,
    AtomicOp::And,
    AtomicOp::Or,
    AtomicOp::Xor,
    AtomicOp::Exchange,
    AtomicOp::CompareExchange,
    AtomicOp::Load,
    AtomicOp::Store,
];

fn l(i: usize) -> Operand {
    Operand::Local(i)
}

fn ci(v: i64) -> Operand {
    Operand::Const { value: v as f64, bits: v, dtype: DType::I64 }
}

/// The orders LLVM allows for `op`.
fn orders_of(op: AtomicOp) -> Vec<MemOrder> {
    ORDERS
        .into_iter()
        .filter(|o| match op {
            AtomicOp::Load => !matches!(o, MemOrder::Release | MemOrder::AcqRel),
            AtomicOp::Store => !matches!(o, MemOrder::Acquire | MemOrder::AcqRel),
            _ => true,
        })
        .collect()
}

fn ops_of(d: DType) -> Vec<AtomicOp> {
    INT_OPS
        .into_iter()
        .filter(|op| {
            if d.is_complex() {
                matches!(op, AtomicOp::Add | AtomicOp::Sub)
            } else {
                d.is_int() || !matches!(op, AtomicOp::And | AtomicOp::Or | AtomicOp::Xor)
            }
        })
        .collect()
}

/// One atomic instruction on `array` (element 1) with value local 1 and expected value local 3.
fn atomic(op: AtomicOp, array: usize, order: MemOrder, scope: MemScope) -> Inst {
    Inst::Atomic {
        dst: if op == AtomicOp::Store { None } else { Some(2) },
        op,
        array,
        index: vec![ci(1)],
        value: l(1),
        cmp: (op == AtomicOp::CompareExchange).then_some(l(3)),
        order,
        scope,
    }
}

/// A kernel applying `ops` with every allowed order in `scope` to a global array `g` and a local
/// array `t`, then a fence of every order, a barrier and `out[gid] = the last old value`.
fn atomics_kernel(d: DType, ops: &[AtomicOp], scope: MemScope) -> Function {
    let arrays = vec![
        ArrayDecl { name: "g".into(), dtype: d, ndim: 1, space: Space::Global, shape: vec![], contiguous: true },
        ArrayDecl { name: "t".into(), dtype: d, ndim: 1, space: Space::Local, shape: vec![8], contiguous: false },
        ArrayDecl { name: "out".into(), dtype: d, ndim: 1, space: Space::Global, shape: vec![], contiguous: true },
    ];
    // locals: 0 gid, 1 value, 2 old, 3 expected
    let locals = vec![DType::I64, d, d, d];
    let mut insts = vec![
        Inst::WorkItem { dst: 0, query: WorkItem::GlobalId, dim: 0 },
        Inst::Load { dst: 1, array: 2, index: vec![l(0)] },
        Inst::Load { dst: 3, array: 0, index: vec![ci(0)] },
        Inst::Copy { dst: 2, src: l(1) },
    ];
    for array in [0, 1] {
        for &op in ops {
            for order in orders_of(op) {
                insts.push(atomic(op, array, order, scope));
            }
        }
    }
    insts.extend(ORDERS.map(|order| Inst::Fence { order, scope }));
    insts.push(Inst::Barrier { flags: 3 });
    insts.push(Inst::Store { array: 2, index: vec![l(0)], src: l(2) });
    Function {
        name: "k_atomics".into(),
        params: vec![KParam::Array(0), KParam::Array(2)],
        arrays,
        locals,
        blocks: vec![Block { insts, term: Term::Return }],
        bounds: None,
    }
}

fn spirv_caps() -> DeviceCaps {
    DeviceCaps::new(Target::SpirV, true, "cpu".into())
}

fn ptx_caps(sm: &str) -> DeviceCaps {
    DeviceCaps::new(Target::Ptx(sm.into()), true, "nvidia".into())
}

/// The SPIR-V module's text (`spirv-dis`), after `spirv-val` accepted it.
fn spirv_text(bytes: &[u8]) -> String {
    let path = std::env::temp_dir().join(format!("nx-atomics-{}-{}.spv", std::process::id(), bytes.len()));
    std::fs::write(&path, bytes).unwrap();
    let val = std::process::Command::new("spirv-val").arg(&path).output().expect("spirv-val must be installed");
    let dis = std::process::Command::new("spirv-dis").arg(&path).output().expect("spirv-dis must be installed");
    let _ = std::fs::remove_file(&path);
    assert!(val.status.success(), "spirv-val rejected the module: {}", String::from_utf8_lossy(&val.stderr));
    String::from_utf8(dis.stdout).unwrap()
}

/// PTX's scope qualifier of `s` (PTX has no scope narrower than a thread block).
fn ptx_scope(s: MemScope) -> &'static str {
    match s {
        MemScope::WorkItem | MemScope::SubGroup | MemScope::WorkGroup => "cta",
        MemScope::Device => "gpu",
        MemScope::System => "sys",
    }
}

const ALL_DTYPES: [DType; 8] =
    [DType::I32, DType::I64, DType::U32, DType::U64, DType::F32, DType::F64, DType::C64, DType::C128];

#[test]
fn every_op_order_and_scope_validates_as_spirv() {
    for d in ALL_DTYPES {
        for scope in SCOPES {
            let f = atomics_kernel(d, &ops_of(d), scope);
            f.verify().unwrap();
            let bin =
                codegen::compile_function(&f, &spirv_caps()).unwrap_or_else(|e| panic!("{} {scope:?}: {e}", d.name()));
            let text = spirv_text(&bin.bytes);
            // fences name work-group and cross-work-group memory (0x300) with their order bit
            let spv_scope = match scope {
                MemScope::System => 0,
                MemScope::Device => 1,
                MemScope::WorkGroup => 2,
                MemScope::SubGroup => 3,
                MemScope::WorkItem => 4,
            };
            for sem in [0x302, 0x304, 0x308, 0x310] {
                let ir = format!("__spirv_MemoryBarrierjj(i32 {spv_scope}, i32 {sem})");
                assert!(bin.llvm_ir.contains(&ir), "{} {scope:?}: no {ir} in\n{}", d.name(), bin.llvm_ir);
            }
            assert_eq!(text.matches("OpMemoryBarrier").count(), 4, "a relaxed fence is no barrier");
            if d.is_complex() {
                assert!(text.contains("OpAtomicCompareExchange"), "complex add: a CAS loop per part");
                continue;
            }
            for op in ["OpAtomicLoad", "OpAtomicStore", "OpAtomicExchange", "OpAtomicCompareExchange"] {
                assert!(text.contains(op), "{} {scope:?}: no {op}", d.name());
            }
            if d.is_int() {
                for op in ["OpAtomicIAdd", "OpAtomicISub", "OpAtomicAnd", "OpAtomicOr", "OpAtomicXor"] {
                    assert!(text.contains(op), "{} {scope:?}: no {op}", d.name());
                }
                let (min, max) =
                    if d.is_signed() { ("OpAtomicSMin", "OpAtomicSMax") } else { ("OpAtomicUMin", "OpAtomicUMax") };
                assert!(text.contains(min) && text.contains(max), "{} {scope:?}: no {min}/{max}", d.name());
            }
            // the sync scope of each order reaches the LLVM IR
            let name = match scope {
                MemScope::WorkItem => "syncscope(\"singlethread\") ",
                MemScope::SubGroup => "syncscope(\"subgroup\") ",
                MemScope::WorkGroup => "syncscope(\"workgroup\") ",
                MemScope::Device => "syncscope(\"device\") ",
                MemScope::System => "",
            };
            for order in ["monotonic", "acquire", "release", "acq_rel", "seq_cst"] {
                let rmw = format!("{name}{order}");
                assert!(bin.llvm_ir.contains(&rmw), "{} {scope:?}: no `{rmw}` in\n{}", d.name(), bin.llvm_ir);
            }
            if scope == MemScope::System {
                assert!(!bin.llvm_ir.contains("syncscope("), "system scope is LLVM's default scope");
            }
        }
    }
}

#[test]
fn every_op_order_and_scope_emits_ptx() {
    for d in ALL_DTYPES {
        for scope in SCOPES {
            let f = atomics_kernel(d, &ops_of(d), scope);
            let bin = codegen::compile_function(&f, &ptx_caps("sm_90"))
                .unwrap_or_else(|e| panic!("{} {scope:?}: {e}", d.name()));
            let ptx = String::from_utf8(bin.bytes).unwrap();
            let s = ptx_scope(scope);
            // ordered operations are relaxed ones between fences of their scope
            for fence in [format!("fence.acq_rel.{s};"), format!("fence.sc.{s};")] {
                assert!(ptx.contains(&fence), "{} {scope:?}: no {fence} in\n{ptx}", d.name());
            }
            for line in bin
                .llvm_ir
                .lines()
                .filter(|l| ["atomicrmw", "cmpxchg", "load atomic", "store atomic"].iter().any(|a| l.contains(a)))
            {
                assert!(line.contains("monotonic") && !line.contains("acq") && !line.contains("seq_cst"), "{line}");
            }
            assert!(!bin.llvm_ir.contains("singlethread") && !bin.llvm_ir.contains("\"subgroup\""));
            if d.is_complex() {
                let w = if d == DType::C64 { "f32" } else { "f64" };
                assert!(ptx.contains(&format!("atom.global.add.{w}")), "{ptx}");
                assert!(ptx.contains(&format!("atom.shared.add.{w}")), "{ptx}");
                continue;
            }
            let bits = d.size() * 8;
            for (space, at) in [("global", s), ("shared", s)] {
                let cas = format!("atom.relaxed.{at}.{space}.cas.b{bits}");
                assert!(ptx.contains(&cas), "{} {scope:?}: no {cas} in\n{ptx}", d.name());
                let ld = format!("ld.relaxed.{at}.{space}.b{bits}");
                let st = format!("st.relaxed.{at}.{space}.b{bits}");
                assert!(ptx.contains(&ld) && ptx.contains(&st), "{} {scope:?}: no {ld} / {st} in\n{ptx}", d.name());
                assert!(ptx.contains(&format!("atom.{space}.exch.b{bits}")), "{ptx}");
                if d.is_int() {
                    for op in ["and", "or", "xor"] {
                        let a = format!("atom.{space}.{op}.b{bits}");
                        assert!(ptx.contains(&a), "{} {scope:?}: no {a} in\n{ptx}", d.name());
                    }
                }
            }
        }
    }
}

#[test]
fn ordered_atomics_fence_on_old_nvidia_gpus() {
    // before sm_70 PTX has no ordered loads, stores or fences: the fences become membars
    let f = atomics_kernel(DType::I32, &INT_OPS, MemScope::Device);
    let ptx = String::from_utf8(codegen::compile_function(&f, &ptx_caps("sm_60")).unwrap().bytes).unwrap();
    assert!(ptx.contains("membar.gl;") && !ptx.contains("fence."), "{ptx}");
    let f = atomics_kernel(DType::F64, &ops_of(DType::F64), MemScope::WorkGroup);
    let ptx = String::from_utf8(codegen::compile_function(&f, &ptx_caps("sm_60")).unwrap().bytes).unwrap();
    assert!(ptx.contains("membar.cta;"), "{ptx}");
}

#[test]
fn ordered_read_modify_write_is_fenced_on_nvptx() {
    let one = |op, order| {
        let mut f = atomics_kernel(DType::I64, &[], MemScope::Device);
        f.blocks[0].insts.truncate(4);
        f.blocks[0].insts.push(atomic(op, 0, order, MemScope::Device));
        f.blocks[0].insts.push(Inst::Store { array: 2, index: vec![l(0)], src: l(2) });
        String::from_utf8(codegen::compile_function(&f, &ptx_caps("sm_90")).unwrap().bytes).unwrap()
    };
    let body = |ptx: &str| -> Vec<String> {
        ptx.lines()
            .map(str::trim)
            .filter(|l| {
                l.starts_with("fence")
                    || l.starts_with("atom")
                    || l.starts_with("ld.relaxed")
                    || l.starts_with("st.relaxed")
            })
            .map(|l| l.split_whitespace().next().unwrap().to_string())
            .collect()
    };
    assert_eq!(body(&one(AtomicOp::And, MemOrder::Relaxed)), ["atom.global.and.b64"]);
    assert_eq!(body(&one(AtomicOp::Or, MemOrder::Release)), ["fence.acq_rel.gpu;", "atom.global.or.b64"]);
    assert_eq!(body(&one(AtomicOp::Xor, MemOrder::Acquire)), ["atom.global.xor.b64", "fence.acq_rel.gpu;"]);
    assert_eq!(
        body(&one(AtomicOp::Add, MemOrder::SeqCst)),
        ["fence.sc.gpu;", "atom.global.add.u64", "fence.acq_rel.gpu;"]
    );
    assert_eq!(body(&one(AtomicOp::Load, MemOrder::Acquire)), ["ld.relaxed.gpu.global.b64", "fence.acq_rel.gpu;"]);
    assert_eq!(body(&one(AtomicOp::Store, MemOrder::Release)), ["fence.acq_rel.gpu;", "st.relaxed.gpu.global.b64"]);
    assert_eq!(body(&one(AtomicOp::Store, MemOrder::SeqCst)), ["fence.sc.gpu;", "st.relaxed.gpu.global.b64"]);
}

#[test]
fn relaxed_device_scope_is_what_existing_kernels_get() {
    let f = atomics_kernel(DType::I32, &[AtomicOp::Add], MemScope::Device);
    let ir = codegen::function_llvm_ir(&f, Flavor::Spirv).unwrap();
    let first = ir.lines().find(|l| l.contains("atomicrmw")).unwrap();
    assert!(
        first.contains("atomicrmw add ptr addrspace(1)") && first.contains("syncscope(\"device\") monotonic"),
        "{ir}"
    );
}

#[test]
fn verifier_refuses_forbidden_orders_and_ops() {
    let check = |inst: Inst, d: DType, want: &str| {
        let mut f = atomics_kernel(d, &[], MemScope::Device);
        f.blocks[0].insts.push(inst);
        let e = f.verify().unwrap_err().to_string();
        assert!(e.contains(want), "expected '{want}' in: {e}");
        let e = codegen::compile_function(&f, &spirv_caps()).unwrap_err().to_string();
        assert!(e.contains(want), "expected '{want}' in: {e}");
    };
    for order in [MemOrder::Release, MemOrder::AcqRel] {
        let name = if order == MemOrder::Release { "release" } else { "acq_rel" };
        check(
            atomic(AtomicOp::Load, 0, order, MemScope::Device),
            DType::I32,
            &format!("an atomic load cannot be '{name}': use relaxed, acquire or seq_cst"),
        );
    }
    for order in [MemOrder::Acquire, MemOrder::AcqRel] {
        let name = if order == MemOrder::Acquire { "acquire" } else { "acq_rel" };
        check(
            atomic(AtomicOp::Store, 1, order, MemScope::WorkGroup),
            DType::F64,
            &format!("an atomic store cannot be '{name}': use relaxed, release or seq_cst"),
        );
    }
    for op in [AtomicOp::And, AtomicOp::Or, AtomicOp::Xor] {
        check(atomic(op, 0, MemOrder::Relaxed, MemScope::Device), DType::F32, "needs an integer array, got float32");
    }
    check(atomic(AtomicOp::Load, 0, MemOrder::Relaxed, MemScope::Device), DType::C128, "atomic load on complex128");
    let mut load = atomic(AtomicOp::Load, 0, MemOrder::Acquire, MemScope::Device);
    if let Inst::Atomic { dst, .. } = &mut load {
        *dst = None;
    }
    check(load, DType::I32, "atomic load needs a destination");
    let mut store = atomic(AtomicOp::Store, 0, MemOrder::Release, MemScope::Device);
    if let Inst::Atomic { dst, .. } = &mut store {
        *dst = Some(2);
    }
    check(store, DType::I32, "atomic store has no result");
    assert!(MemOrder::parse("consume").unwrap_err().to_string().contains("unknown memory order 'consume'"));
    assert!(MemScope::parse("grid").unwrap_err().to_string().contains("unknown memory scope 'grid'"));
    assert!(AtomicOp::parse("nand").is_err());
}
