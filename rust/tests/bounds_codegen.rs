//! Negative-index wrap and bounds checking of the control-flow form: a wrap of a possibly negative
//! index is a compare and select (so the Intel CPU driver builds it without its optimiser, which
//! miscompiles some integer selects), a wrap of a work-item id or a loop counter from 0 is nothing (the
//! code of the plain kernel), and a function with a bounds array checks each access (a `cmpxchg`
//! electing the record, the access skipped when out of bounds), for SPIR-V (validated) and PTX.

mod common;

use numba_ext_core::codegen::{self, DeviceCaps, Flavor};
use numba_ext_core::ir::cfg::{ArrayDecl, Block, Function, Inst, KParam, Operand, Space, Term, WorkItem};
use numba_ext_core::ir::nonneg::nonneg_locals;
use numba_ext_core::ir::{BinaryOp, DType};
use numba_ext_core::target::Target;

fn l(i: usize) -> Operand {
    Operand::Local(i)
}

fn ci(v: i64) -> Operand {
    Operand::Const { value: v as f64, bits: v, dtype: DType::I64 }
}

fn global(name: &str, dtype: DType) -> ArrayDecl {
    ArrayDecl { name: name.into(), dtype, ndim: 1, space: Space::Global, shape: vec![], contiguous: true }
}

/// `c[gid] = a[wrap(index)]` where `index` is `gid - k` (`shifted`) or `gid`; with a bounds array
/// when `checked`.
fn kernel(shifted: bool, checked: bool) -> Function {
    // locals: 0 gid, 1 value, 2 k (a parameter), 3 index, 4 extent, 5 wrapped
    let index = if shifted { l(3) } else { l(0) };
    let insts = vec![
        Inst::WorkItem { dst: 0, query: WorkItem::GlobalId, dim: 0 },
        Inst::Binary { dst: 3, op: BinaryOp::Sub, a: l(0), b: l(2) },
        Inst::Dim { dst: 4, array: 0, dim: 0 },
        Inst::Wrap { dst: 5, index, extent: l(4) },
        Inst::Load { dst: 1, array: 0, index: vec![l(5)] },
        Inst::Store { array: 1, index: vec![l(0)], src: l(1) },
    ];
    let mut params = vec![KParam::Array(0), KParam::Array(1), KParam::Scalar { local: 2 }];
    let mut arrays = vec![global("a", DType::F64), global("c", DType::F64)];
    if checked {
        arrays.push(global("bounds", DType::I64));
        params.push(KParam::Array(2));
    }
    Function {
        name: "k_bounds".into(),
        params,
        arrays,
        locals: vec![DType::I64, DType::F64, DType::I64, DType::I64, DType::I64, DType::I64],
        blocks: vec![Block { insts, term: Term::Return }],
        bounds: checked.then_some(2),
    }
}

fn spirv_caps() -> DeviceCaps {
    DeviceCaps::new(Target::SpirV, true, "cpu".into())
}

#[test]
fn wrap_of_a_possibly_negative_index_is_a_select() {
    let ir = codegen::function_llvm_ir(&kernel(true, false), Flavor::Spirv).unwrap();
    assert!(ir.contains("icmp slt") && ir.contains("select"), "{ir}");
    assert!(codegen::compile_function(&kernel(true, false), &spirv_caps()).unwrap().int_minmax);
    assert!(!ir.contains("cmpxchg"), "{ir}");
}

#[test]
fn wrap_of_a_work_item_id_costs_nothing() {
    let plain = codegen::compile_function(&kernel(false, false), &spirv_caps()).unwrap();
    assert!(!plain.int_minmax);
    let plain = plain.llvm_ir;
    assert!(!plain.contains("select") && !plain.contains("icmp"), "{plain}");
    let ptx = String::from_utf8(codegen::compile_function(&kernel(false, false), &common::ptx_caps()).unwrap().bytes)
        .unwrap();
    assert!(!ptx.contains("setp") && !ptx.contains("selp"), "{ptx}");
}

#[test]
fn checked_accesses_record_and_skip() {
    for shifted in [false, true] {
        let f = kernel(shifted, true);
        let ir = codegen::function_llvm_ir(&f, Flavor::Spirv).unwrap();
        assert!(ir.contains("out_of_bounds") && ir.contains("cmpxchg") && ir.contains("icmp ult"), "{ir}");
        // the checks of 1-d arrays select nothing: the driver may optimise them (a wrap may not)
        assert_eq!(codegen::compile_function(&f, &spirv_caps()).unwrap().int_minmax, shifted);
        let spv = codegen::compile_function(&f, &spirv_caps()).unwrap();
        common::spirv_val(&spv.bytes);
        assert_eq!(spv.slots.len(), codegen::function_slots(&kernel(shifted, false)).len() + 3);
        let ptx = String::from_utf8(codegen::compile_function(&f, &common::ptx_caps()).unwrap().bytes).unwrap();
        assert!(ptx.contains("global.cas.b64"), "{ptx}");
    }
}

#[test]
fn verifier_refuses_a_bad_bounds_array() {
    let mut f = kernel(false, true);
    f.arrays[2].dtype = DType::F64;
    assert!(f.verify().unwrap_err().to_string().contains("bounds array"));
    let mut f = kernel(false, true);
    f.params.pop();
    assert!(f.verify().unwrap_err().to_string().contains("bounds array"));
    let mut f = kernel(false, false);
    f.blocks[0].insts[3] = Inst::Wrap { dst: 1, index: l(0), extent: l(4) }; // a float destination
    assert!(f.verify().is_err());
}

#[test]
fn loop_counters_from_zero_are_non_negative_and_differences_are_not() {
    // 0 i = 0; loop: 1 c = i < n; i = i + 1; 2 j = i - 1; 3 n (a parameter); 4 m = max(j, 0)
    let f = Function {
        name: "loop".into(),
        params: vec![KParam::Scalar { local: 3 }],
        arrays: vec![],
        locals: vec![DType::I64, DType::Bool, DType::I64, DType::I64, DType::I64],
        blocks: vec![
            Block { insts: vec![Inst::Copy { dst: 0, src: ci(0) }], term: Term::Jump(1) },
            Block {
                insts: vec![
                    Inst::Binary { dst: 1, op: BinaryOp::Lt, a: l(0), b: l(3) },
                    Inst::Binary { dst: 0, op: BinaryOp::Add, a: l(0), b: ci(1) },
                    Inst::Binary { dst: 2, op: BinaryOp::Sub, a: l(0), b: ci(1) },
                    Inst::Binary { dst: 4, op: BinaryOp::Max, a: l(2), b: ci(0) },
                ],
                term: Term::Branch { cond: l(1), then: 1, otherwise: 2 },
            },
            Block { insts: vec![], term: Term::Return },
        ],
        bounds: None,
    };
    f.verify().unwrap();
    assert_eq!(nonneg_locals(&f), vec![true, true, false, false, true]);
}
