//! Deterministic generator of varied kernels for emission stress runs: random dataflow kernels (every
//! dtype, unary and binary operation, casts, selects, strided and broadcast arrays, scalars, 1 to 3
//! dimensions) and control-flow kernels (loops, local memory, barriers, atomics) of several dtypes.
//! Shared by `benchmarks/emit_stress.rs` and the in-process emission test (included with `#[path]`).

use numba_ext_core::ir::cfg::{
    ArrayDecl, AtomicOp, Block, Function, Inst, KParam, MemOrder, MemScope, Operand, Space, Term, WorkItem,
};
use numba_ext_core::ir::{BinaryOp, DType, KernelSpec, Node, Op, Param, ParamKind, UnaryOp};

/// A small xorshift generator (no dependencies, same sequence everywhere).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())]
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

const DTYPES: [DType; 11] = [
    DType::Bool,
    DType::I8,
    DType::I16,
    DType::I32,
    DType::I64,
    DType::U8,
    DType::U16,
    DType::U32,
    DType::U64,
    DType::F32,
    DType::F64,
];

const UNARY: [UnaryOp; 24] = [
    UnaryOp::Neg,
    UnaryOp::Not,
    UnaryOp::Abs,
    UnaryOp::Sqrt,
    UnaryOp::Exp,
    UnaryOp::Expm1,
    UnaryOp::Log,
    UnaryOp::Log1p,
    UnaryOp::Log2,
    UnaryOp::Log10,
    UnaryOp::Sin,
    UnaryOp::Cos,
    UnaryOp::Tan,
    UnaryOp::Asin,
    UnaryOp::Acos,
    UnaryOp::Atan,
    UnaryOp::Sinh,
    UnaryOp::Cosh,
    UnaryOp::Tanh,
    UnaryOp::Floor,
    UnaryOp::Ceil,
    UnaryOp::Trunc,
    UnaryOp::Erf,
    UnaryOp::Erfc,
];

const BINARY: [BinaryOp; 20] = [
    BinaryOp::Add,
    BinaryOp::Sub,
    BinaryOp::Mul,
    BinaryOp::Div,
    BinaryOp::FloorDiv,
    BinaryOp::Rem,
    BinaryOp::Pow,
    BinaryOp::Min,
    BinaryOp::Max,
    BinaryOp::Atan2,
    BinaryOp::Hypot,
    BinaryOp::And,
    BinaryOp::Or,
    BinaryOp::Xor,
    BinaryOp::Lt,
    BinaryOp::Le,
    BinaryOp::Gt,
    BinaryOp::Ge,
    BinaryOp::Eq,
    BinaryOp::Ne,
];

fn unary_ok(op: UnaryOp, dt: DType) -> bool {
    match op {
        UnaryOp::Not => !dt.is_float(),
        UnaryOp::Neg | UnaryOp::Abs => dt != DType::Bool,
        _ => dt.is_float(),
    }
}

fn binary_ok(op: BinaryOp, dt: DType) -> bool {
    match op {
        BinaryOp::And | BinaryOp::Or | BinaryOp::Xor => !dt.is_float(),
        BinaryOp::Atan2 | BinaryOp::Hypot => dt.is_float(),
        _ if op.is_comparison() => true,
        _ => dt != DType::Bool,
    }
}

fn constant(rng: &mut Rng, dt: DType) -> Op {
    let bits = (rng.below(200) as i64) - 100;
    match dt {
        DType::Bool => Op::Const { value: (bits & 1) as f64, bits: bits & 1 },
        d if d.is_float() => Op::Const { value: bits as f64 * 0.37, bits: 0 },
        d if !d.is_signed() => Op::Const { value: bits.unsigned_abs() as f64, bits: bits.abs() },
        _ => Op::Const { value: bits as f64, bits },
    }
}

/// A random dataflow kernel that passes the graph verifier.
pub fn random_spec(rng: &mut Rng, index: usize) -> KernelSpec {
    let ndim = 1 + rng.below(3);
    let (mut params, mut nodes) = random_inputs(rng, ndim);
    let steps = 1 + rng.below(14);
    for _ in 0..steps {
        random_step(rng, &mut nodes);
    }
    // one to three outputs, stored from the last values
    let n_out = 1 + rng.below(3);
    for k in 0..n_out {
        let v = nodes.len() - 1 - k.min(nodes.len() - 1);
        let dtype = nodes[v].dtype;
        let p = params.len();
        params.push(Param {
            name: format!("out{k}"),
            kind: ParamKind::Array { dtype, ndim, contiguous: rng.chance(70) },
        });
        nodes.push(Node { op: Op::Store { param: p, value: v }, dtype });
    }
    KernelSpec { name: format!("k_gen{index}"), ndim, params, nodes }
}

/// One to four inputs: arrays of rank `ndim` (some strided) or scalars, each loaded by a node.
fn random_inputs(rng: &mut Rng, ndim: usize) -> (Vec<Param>, Vec<Node>) {
    let mut params = Vec::new();
    let mut nodes: Vec<Node> = Vec::new();
    let n_in = 1 + rng.below(4);
    for p in 0..n_in {
        let dtype = rng.pick(&DTYPES);
        let name = format!("in{p}");
        if rng.chance(20) {
            params.push(Param { name, kind: ParamKind::Scalar { dtype } });
            nodes.push(Node { op: Op::Scalar { param: p }, dtype });
        } else {
            let contiguous = rng.chance(60);
            params.push(Param { name, kind: ParamKind::Array { dtype, ndim, contiguous } });
            nodes.push(Node { op: Op::Load { param: p }, dtype });
        }
    }
    (params, nodes)
}

/// One more value computed from the existing ones: a cast, a constant, a unary or binary operation,
/// or a select on a comparison.
fn random_step(rng: &mut Rng, nodes: &mut Vec<Node>) {
    let a = rng.below(nodes.len());
    let adt = nodes[a].dtype;
    match rng.below(10) {
        0 => {
            let dtype = rng.pick(&DTYPES);
            nodes.push(Node { op: Op::Cast { arg: a }, dtype });
        }
        1 => nodes.push(Node { op: constant(rng, adt), dtype: adt }),
        2 | 3 => {
            let ok: Vec<UnaryOp> = UNARY.iter().copied().filter(|&op| unary_ok(op, adt)).collect();
            if ok.is_empty() {
                nodes.push(Node { op: Op::Cast { arg: a }, dtype: DType::F32 });
            } else {
                nodes.push(Node { op: Op::Unary { op: rng.pick(&ok), arg: a }, dtype: adt });
            }
        }
        4 => {
            // select between two values of one dtype on a comparison
            let b = nodes.iter().rposition(|n| n.dtype == adt).unwrap();
            nodes.push(Node { op: Op::Binary { op: BinaryOp::Lt, lhs: a, rhs: b }, dtype: DType::Bool });
            let c = nodes.len() - 1;
            nodes.push(Node { op: Op::Select { cond: c, a, b }, dtype: adt });
        }
        _ => {
            // a binary operation with an operand of the same dtype (cast in when none exists)
            let same: Vec<usize> = (0..nodes.len()).filter(|&j| nodes[j].dtype == adt).collect();
            let b = if same.len() > 1 && rng.chance(70) {
                rng.pick(&same)
            } else {
                let src = rng.below(nodes.len());
                nodes.push(Node { op: Op::Cast { arg: src }, dtype: adt });
                nodes.len() - 1
            };
            let ok: Vec<BinaryOp> = BINARY.iter().copied().filter(|&op| binary_ok(op, adt)).collect();
            let op = rng.pick(&ok);
            let dtype = if op.is_comparison() { DType::Bool } else { adt };
            nodes.push(Node { op: Op::Binary { op, lhs: a, rhs: b }, dtype });
        }
    }
}

fn l(i: usize) -> Operand {
    Operand::Local(i)
}
fn ci(v: i64) -> Operand {
    Operand::Const { value: v as f64, bits: v, dtype: DType::I64 }
}

/// A control-flow kernel: a loop summing a row, a local-memory tile with a barrier, atomics, and a
/// random unary/binary tail on floats.
pub fn random_function(rng: &mut Rng, index: usize) -> Function {
    let dt = rng.pick(&[DType::F32, DType::F64, DType::I32, DType::I64, DType::U32, DType::U64]);
    let tile = rng.pick(&[16, 64, 256]);
    let arrays = vec![
        ArrayDecl { name: "x".into(), dtype: dt, ndim: 2, space: Space::Global, shape: vec![], contiguous: false },
        ArrayDecl { name: "out".into(), dtype: dt, ndim: 1, space: Space::Global, shape: vec![], contiguous: true },
        ArrayDecl {
            name: "tile".into(),
            dtype: dt,
            ndim: 1,
            space: Space::Local,
            shape: vec![tile],
            contiguous: false,
        },
        ArrayDecl { name: "acc".into(), dtype: dt, ndim: 1, space: Space::Global, shape: vec![], contiguous: true },
    ];
    // locals: 0 g, 1 k, 2 n, 3 s, 4 v, 5 cond, 6 lid, 7 old
    let locals = vec![DType::I64, DType::I64, DType::I64, dt, dt, DType::Bool, DType::I64, dt];
    let zero = Operand::Const { value: 0.0, bits: 0, dtype: dt };
    let body = loop_body(rng, dt);
    let tail = reduce_and_update(rng, zero);
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
        Block { insts: body, term: Term::Jump(1) },
        Block { insts: tail, term: Term::Return },
    ];
    Function {
        name: format!("k_cfg{index}"),
        params: vec![KParam::Array(0), KParam::Array(1), KParam::Array(3)],
        arrays,
        locals,
        blocks,
        bounds: None,
    }
}

/// The loop body of a control-flow kernel: `s` accumulates `x[g, k]` with up to four operations.
fn loop_body(rng: &mut Rng, dt: DType) -> Vec<Inst> {
    let mut body = vec![
        Inst::Load { dst: 4, array: 0, index: vec![l(0), l(1)] },
        Inst::Binary { dst: 3, op: BinaryOp::Add, a: l(3), b: l(4) },
    ];
    for _ in 0..rng.below(4) {
        let ok: Vec<BinaryOp> = [BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Min, BinaryOp::Max]
            .into_iter()
            .filter(|&op| binary_ok(op, dt))
            .collect();
        body.push(Inst::Binary { dst: 3, op: rng.pick(&ok), a: l(3), b: l(4) });
        if dt.is_float() && rng.chance(50) {
            let ok: Vec<UnaryOp> = UNARY.iter().copied().filter(|&op| unary_ok(op, dt)).collect();
            body.push(Inst::Unary { dst: 4, op: rng.pick(&ok), src: l(4) });
        }
    }
    body.push(Inst::Binary { dst: 1, op: BinaryOp::Add, a: l(1), b: ci(1) });
    body
}

/// After the loop: a store to local memory, a barrier, a store of the result and some atomics.
fn reduce_and_update(rng: &mut Rng, zero: Operand) -> Vec<Inst> {
    let mut tail = vec![
        Inst::Store { array: 2, index: vec![l(6)], src: l(3) },
        Inst::Barrier { flags: 1 + rng.below(2) as u32 },
        Inst::Load { dst: 4, array: 2, index: vec![l(6)] },
        Inst::Store { array: 1, index: vec![l(0)], src: l(4) },
    ];
    let atomics = [AtomicOp::Add, AtomicOp::Sub, AtomicOp::Min, AtomicOp::Max, AtomicOp::Mul, AtomicOp::Exchange];
    for k in 0..1 + rng.below(3) {
        let op = rng.pick(&atomics);
        let dst = if rng.chance(50) { Some(7) } else { None };
        let (order, scope) = (MemOrder::Relaxed, MemScope::Device);
        tail.push(Inst::Atomic { dst, op, array: 3, index: vec![ci(k as i64)], value: l(4), cmp: None, order, scope });
    }
    if rng.chance(30) {
        tail.push(Inst::Atomic {
            dst: Some(7),
            op: AtomicOp::CompareExchange,
            array: 3,
            index: vec![ci(3)],
            value: l(4),
            cmp: Some(zero),
            order: MemOrder::Relaxed,
            scope: MemScope::Device,
        });
    }
    tail
}

/// The `index`th kernel of the stress sequence: mostly dataflow kernels, every fifth a control-flow one.
pub enum Kernel {
    Spec(KernelSpec),
    Function(Function),
}

pub fn kernel(rng: &mut Rng, index: usize) -> Kernel {
    if index % 5 == 4 {
        Kernel::Function(random_function(rng, index))
    } else {
        Kernel::Spec(random_spec(rng, index))
    }
}
