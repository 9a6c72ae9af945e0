//! The control-flow form of a kernel: what explicit `@kernel` functions, `prange` bodies and
//! reductions are translated to. A [`Function`] has typed mutable scalar locals, arrays (parameters,
//! work-group local and private arrays) and basic blocks of three-address instructions ending in a
//! terminator. The block graph is a petgraph graph, used by the verifier (targets exist, every block
//! is reachable from the entry). Locals become LLVM stack slots that `mem2reg` promotes.

use petgraph::graph::DiGraph;
use petgraph::visit::Dfs;

use super::spec::{BinaryOp, DType, UnaryOp};
use crate::error::{Error, Result};

/// Which work-item query (OpenCL names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WorkItem {
    GlobalId,
    LocalId,
    GroupId,
    GlobalSize,
    LocalSize,
    NumGroups,
}

impl WorkItem {
    pub fn parse(s: &str) -> Result<WorkItem> {
        Ok(match s {
            "get_global_id" => WorkItem::GlobalId,
            "get_local_id" => WorkItem::LocalId,
            "get_group_id" => WorkItem::GroupId,
            "get_global_size" => WorkItem::GlobalSize,
            "get_local_size" => WorkItem::LocalSize,
            "get_num_groups" => WorkItem::NumGroups,
            _ => return Err(Error::Graph(format!("unknown work-item query '{s}'"))),
        })
    }
    pub fn opencl_name(self) -> &'static str {
        match self {
            WorkItem::GlobalId => "get_global_id",
            WorkItem::LocalId => "get_local_id",
            WorkItem::GroupId => "get_group_id",
            WorkItem::GlobalSize => "get_global_size",
            WorkItem::LocalSize => "get_local_size",
            WorkItem::NumGroups => "get_num_groups",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    Add,
    /// Multiply (a compare-and-swap loop on every device; used to combine product reductions).
    Mul,
    Sub,
    Min,
    Max,
    /// Bitwise and, or, exclusive or (integers only).
    And,
    Or,
    Xor,
    Exchange,
    CompareExchange,
    /// An atomic read: `dst` is the value read, `value` is ignored.
    Load,
    /// An atomic write of `value`; no result.
    Store,
}

impl AtomicOp {
    pub fn parse(s: &str) -> Result<AtomicOp> {
        Ok(match s {
            "add" => AtomicOp::Add,
            "mul" => AtomicOp::Mul,
            "sub" => AtomicOp::Sub,
            "min" => AtomicOp::Min,
            "max" => AtomicOp::Max,
            "and" => AtomicOp::And,
            "or" => AtomicOp::Or,
            "xor" => AtomicOp::Xor,
            "exchange" => AtomicOp::Exchange,
            "compare_exchange" => AtomicOp::CompareExchange,
            "load" => AtomicOp::Load,
            "store" => AtomicOp::Store,
            _ => return Err(Error::Graph(format!("unknown atomic operation '{s}'"))),
        })
    }

    /// The name the kernel IR uses.
    pub fn name(self) -> &'static str {
        match self {
            AtomicOp::Add => "add",
            AtomicOp::Mul => "mul",
            AtomicOp::Sub => "sub",
            AtomicOp::Min => "min",
            AtomicOp::Max => "max",
            AtomicOp::And => "and",
            AtomicOp::Or => "or",
            AtomicOp::Xor => "xor",
            AtomicOp::Exchange => "exchange",
            AtomicOp::CompareExchange => "compare_exchange",
            AtomicOp::Load => "load",
            AtomicOp::Store => "store",
        }
    }
}

/// The memory order of an atomic operation or fence (SYCL's `memory_order`, C++'s orders without
/// consume).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MemOrder {
    #[default]
    Relaxed,
    Acquire,
    Release,
    AcqRel,
    SeqCst,
}

impl MemOrder {
    pub fn parse(s: &str) -> Result<MemOrder> {
        Ok(match s {
            "relaxed" => MemOrder::Relaxed,
            "acquire" => MemOrder::Acquire,
            "release" => MemOrder::Release,
            "acq_rel" => MemOrder::AcqRel,
            "seq_cst" => MemOrder::SeqCst,
            _ => {
                return Err(Error::Graph(format!(
                    "unknown memory order '{s}' (expected relaxed, acquire, release, acq_rel or seq_cst)"
                )))
            }
        })
    }

    /// The name the kernel IR uses.
    pub fn name(self) -> &'static str {
        match self {
            MemOrder::Relaxed => "relaxed",
            MemOrder::Acquire => "acquire",
            MemOrder::Release => "release",
            MemOrder::AcqRel => "acq_rel",
            MemOrder::SeqCst => "seq_cst",
        }
    }

    /// The order of the read half of an operation: release dropped (a compare-exchange's failure
    /// order, a compare-and-swap loop's first load).
    pub fn read_half(self) -> MemOrder {
        match self {
            MemOrder::Release => MemOrder::Relaxed,
            MemOrder::AcqRel => MemOrder::Acquire,
            o => o,
        }
    }

    pub fn acquires(self) -> bool {
        matches!(self, MemOrder::Acquire | MemOrder::AcqRel | MemOrder::SeqCst)
    }

    pub fn releases(self) -> bool {
        matches!(self, MemOrder::Release | MemOrder::AcqRel | MemOrder::SeqCst)
    }
}

/// The set of work-items an atomic operation or fence synchronises with (SYCL's `memory_scope`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MemScope {
    WorkItem,
    SubGroup,
    WorkGroup,
    #[default]
    Device,
    System,
}

impl MemScope {
    pub fn parse(s: &str) -> Result<MemScope> {
        Ok(match s {
            "work_item" => MemScope::WorkItem,
            "sub_group" => MemScope::SubGroup,
            "work_group" => MemScope::WorkGroup,
            "device" => MemScope::Device,
            "system" => MemScope::System,
            _ => {
                return Err(Error::Graph(format!(
                    "unknown memory scope '{s}' (expected work_item, sub_group, work_group, device or system)"
                )))
            }
        })
    }
}

/// Memory of a kernel-visible array.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// A kernel parameter (global memory): base pointer, byte offset, shape and byte strides.
    Global,
    /// Work-group shared memory (`local.array`).
    Local,
    /// Per-work-item memory (`private.array`).
    Private,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ArrayDecl {
    pub name: String,
    pub dtype: DType,
    pub ndim: usize,
    pub space: Space,
    /// For local/private arrays: the constant shape (C order).
    pub shape: Vec<usize>,
    /// A global array known to be C-contiguous: its strides follow from its shape (element size
    /// innermost), so the kernel computes them instead of reading the stride arguments, and
    /// consecutive work-items' accesses are visibly consecutive (vector loads, coalescing).
    pub contiguous: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum KParam {
    /// Index into `Function::arrays` (a Global array).
    Array(usize),
    /// A scalar, bound to a local on entry.
    Scalar { local: usize },
}

/// An instruction operand: a local or an immediate constant of the destination's dtype.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Operand {
    Local(usize),
    Const { value: f64, bits: i64, dtype: DType },
}

#[derive(Clone, Debug, PartialEq)]
pub enum Inst {
    Copy {
        dst: usize,
        src: Operand,
    },
    Cast {
        dst: usize,
        src: Operand,
    },
    Unary {
        dst: usize,
        op: UnaryOp,
        src: Operand,
    },
    Binary {
        dst: usize,
        op: BinaryOp,
        a: Operand,
        b: Operand,
    },
    Select {
        dst: usize,
        cond: Operand,
        a: Operand,
        b: Operand,
    },
    Load {
        dst: usize,
        array: usize,
        index: Vec<Operand>,
    },
    Store {
        array: usize,
        index: Vec<Operand>,
        src: Operand,
    },
    /// `dst = arrays[array].shape[dim]`
    Dim {
        dst: usize,
        array: usize,
        dim: usize,
    },
    WorkItem {
        dst: usize,
        query: WorkItem,
        dim: u32,
    },
    /// OpenCL fence flags: 1 = local, 2 = global.
    Barrier {
        flags: u32,
    },
    /// Returns the old value in `dst` (if any; for `Load` the value read, for `Store` none). `cmp`
    /// is the expected value for compare-exchange.
    Atomic {
        dst: Option<usize>,
        op: AtomicOp,
        array: usize,
        index: Vec<Operand>,
        value: Operand,
        cmp: Option<Operand>,
        order: MemOrder,
        scope: MemScope,
    },
    /// A memory fence (`atomic_fence`); a relaxed fence does nothing.
    Fence {
        order: MemOrder,
        scope: MemScope,
    },
    /// NumPy's negative-index wrap: `dst = index < 0 ? index + extent : index` (all `int64`). The
    /// lowering leaves `index` as it is where it is provably non-negative (see [`super::nonneg`]).
    Wrap {
        dst: usize,
        index: Operand,
        extent: Operand,
    },
    /// An index into an array through a view made inside the function (`w = a[1:4]; w[i]`):
    /// `dst = base_index`, the index into `array`'s dimension that the view's `index` (into its
    /// dimension `dim` of length `extent`) maps to. In a bounds-checked function the view's index
    /// is checked first: out of its extent, the access is recorded as the view's (`dim`, `index`,
    /// `extent`, `access`; element 6 of the record set to 1) and `dst` is `i64::MIN`, so the access
    /// through it is skipped. Without bounds checks it is a copy. All operands `int64`.
    ViewIndex {
        dst: usize,
        base_index: Operand,
        index: Operand,
        extent: Operand,
        array: usize,
        dim: usize,
        access: u8,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub enum Term {
    Jump(usize),
    Branch { cond: Operand, then: usize, otherwise: usize },
    Return,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub insts: Vec<Inst>,
    pub term: Term,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: String,
    pub params: Vec<KParam>,
    pub arrays: Vec<ArrayDecl>,
    pub locals: Vec<DType>,
    /// Block 0 is the entry.
    pub blocks: Vec<Block>,
    /// Bounds checking: the global `int64` array (a parameter, [`BOUNDS_RECORD_LEN`] elements)
    /// that receives the record of the first out-of-bounds access; every other array access is
    /// checked against its extents and skipped when out of bounds. None: no checks.
    pub bounds: Option<usize>,
}

/// The record of an out-of-bounds access in a bounds-checked function's error array: `[flag (1 once
/// set), array, dimension, index, extent, access (0 read, 1 write, 2 atomic), 0, 0]`.
pub const BOUNDS_RECORD_LEN: usize = 8;

impl Function {
    pub fn uses_f64(&self) -> bool {
        self.locals.iter().any(|d| d.needs_fp64()) || self.arrays.iter().any(|a| a.dtype.needs_fp64())
    }
    /// Whether any local or array is float16 (needs fp16 on the device).
    pub fn uses_f16(&self) -> bool {
        self.locals.iter().any(|d| d.needs_fp16()) || self.arrays.iter().any(|a| a.dtype.needs_fp16())
    }

    /// The block graph (an edge per control transfer).
    pub fn block_graph(&self) -> DiGraph<usize, ()> {
        let mut g = DiGraph::new();
        let nodes: Vec<_> = (0..self.blocks.len()).map(|i| g.add_node(i)).collect();
        for (i, b) in self.blocks.iter().enumerate() {
            let succ = match b.term {
                Term::Jump(t) => vec![t],
                Term::Branch { then, otherwise, .. } => vec![then, otherwise],
                Term::Return => vec![],
            };
            for t in succ {
                if t < nodes.len() {
                    g.add_edge(nodes[i], nodes[t], ());
                }
            }
        }
        g
    }

    /// Check operand types, array use and the block graph.
    pub fn verify(&self) -> Result<()> {
        let err = |b: usize, msg: String| Err(Error::Graph(format!("{}: block {b}: {msg}", self.name)));
        if self.blocks.is_empty() {
            return Err(Error::Graph(format!("{}: no blocks", self.name)));
        }
        for (pi, p) in self.params.iter().enumerate() {
            match p {
                KParam::Array(a) if self.arrays.get(*a).is_some_and(|d| d.space == Space::Global) => {}
                KParam::Scalar { local } if *local < self.locals.len() => {}
                _ => return Err(Error::Graph(format!("{}: parameter {pi} is malformed", self.name))),
            }
        }
        for (bi, b) in self.blocks.iter().enumerate() {
            for inst in &b.insts {
                if let Err(m) = self.check_inst(inst) {
                    return err(bi, m);
                }
            }
            let targets = match &b.term {
                Term::Jump(t) => vec![*t],
                Term::Branch { cond, then, otherwise } => {
                    if self.operand_dtype(cond) != Some(DType::Bool) {
                        return err(bi, "branch condition must be bool".into());
                    }
                    vec![*then, *otherwise]
                }
                Term::Return => vec![],
            };
            if let Some(t) = targets.iter().find(|&&t| t >= self.blocks.len()) {
                return err(bi, format!("jump to missing block {t}"));
            }
        }
        if let Some(e) = self.bounds {
            let ok =
                self.arrays.get(e).is_some_and(|a| a.space == Space::Global && a.dtype == DType::I64 && a.ndim == 1)
                    && self.params.contains(&KParam::Array(e));
            if !ok {
                return Err(Error::Graph(format!("{}: the bounds array {e} is not a 1-d int64 parameter", self.name)));
            }
        }
        let g = self.block_graph();
        let mut dfs = Dfs::new(&g, petgraph::graph::NodeIndex::new(0));
        let mut seen = 0;
        while dfs.next(&g).is_some() {
            seen += 1;
        }
        if seen != self.blocks.len() {
            return Err(Error::Graph(format!("{}: {} blocks are unreachable", self.name, self.blocks.len() - seen)));
        }
        Ok(())
    }

    /// The dtype of an operand (None for a missing local).
    fn operand_dtype(&self, o: &Operand) -> Option<DType> {
        match o {
            Operand::Local(l) => self.locals.get(*l).copied(),
            Operand::Const { dtype, .. } => Some(*dtype),
        }
    }

    /// Check one instruction's operands and result.
    fn check_inst(&self, inst: &Inst) -> std::result::Result<(), String> {
        let dt = |o: &Operand| self.operand_dtype(o);
        let local = |l: usize| self.locals.get(l).copied();
        let local_ok = |l: usize| l < self.locals.len();
        let same = |dst: usize, o: &Operand| dt(o) == local(dst);
        let is_i64 = |l: usize| local(l) == Some(DType::I64);
        match inst {
            Inst::Copy { dst, src } if local_ok(*dst) && same(*dst, src) => Ok(()),
            Inst::Cast { dst, src } if local_ok(*dst) && dt(src).is_some() => Ok(()),
            Inst::Unary { dst, op, src } if local_ok(*dst) => match dt(src) {
                Some(d) => super::spec::check_unary(*op, d, self.locals[*dst]),
                None => Err(format!("{op:?} of a missing local")),
            },
            Inst::Binary { dst, op, a, b } if local_ok(*dst) && dt(a).is_some() && dt(a) == dt(b) => {
                let want = if op.is_comparison() { Some(DType::Bool) } else { dt(a) };
                if want != local(*dst) {
                    Err(format!("{op:?} result type"))
                } else if dt(a).is_some_and(|d| d.is_complex()) && !op.supports_complex() {
                    Err(format!("{op:?} is not defined for complex values"))
                } else {
                    Ok(())
                }
            }
            Inst::Select { dst, cond, a, b }
                if local_ok(*dst) && dt(cond) == Some(DType::Bool) && same(*dst, a) && same(*dst, b) =>
            {
                Ok(())
            }
            Inst::Load { dst, array, index } if local_ok(*dst) => {
                let d = self.check_index(*array, index)?;
                if d == self.locals[*dst] {
                    Ok(())
                } else {
                    Err("load type".into())
                }
            }
            Inst::Store { array, index, src } => {
                let d = self.check_index(*array, index)?;
                if Some(d) == dt(src) {
                    Ok(())
                } else {
                    Err("store type".into())
                }
            }
            Inst::Dim { dst, array, dim } if is_i64(*dst) => match self.arrays.get(*array) {
                Some(a) if *dim < a.ndim => Ok(()),
                _ => Err(format!("dimension {dim} of array {array}")),
            },
            Inst::WorkItem { dst, dim, .. } if is_i64(*dst) && *dim < 3 => Ok(()),
            Inst::Barrier { .. } | Inst::Fence { .. } => Ok(()),
            Inst::Wrap { dst, index, extent }
                if is_i64(*dst) && dt(index) == Some(DType::I64) && dt(extent) == Some(DType::I64) =>
            {
                Ok(())
            }
            Inst::ViewIndex { dst, base_index, index, extent, array, access, .. }
                if is_i64(*dst)
                    && [base_index, index, extent].iter().all(|o| dt(o) == Some(DType::I64))
                    && *array < self.arrays.len()
                    && *access <= 1 =>
            {
                Ok(())
            }
            Inst::Atomic { dst, array, index, value, cmp, op, order, .. } => {
                self.check_atomic(*op, *dst, *array, index, value, cmp.as_ref())?;
                check_order(*op, *order)
            }
            other => Err(format!("malformed instruction {other:?}")),
        }
    }

    /// `array` exists and `index` has one integer per dimension; the array's dtype.
    fn check_index(&self, array: usize, index: &[Operand]) -> std::result::Result<DType, String> {
        let a = self.arrays.get(array).ok_or(format!("array {array} does not exist"))?;
        if index.len() != a.ndim {
            return Err(format!("array '{}' has {} dimensions, indexed with {}", a.name, a.ndim, index.len()));
        }
        for i in index {
            match self.operand_dtype(i) {
                Some(d) if d.is_int() => {}
                other => return Err(format!("index of '{}' must be an integer, got {other:?}", a.name)),
            }
        }
        Ok(a.dtype)
    }

    fn check_atomic(
        &self,
        op: AtomicOp,
        dst: Option<usize>,
        array: usize,
        index: &[Operand],
        value: &Operand,
        cmp: Option<&Operand>,
    ) -> std::result::Result<(), String> {
        let d = self.check_index(array, index)?;
        if self.arrays[array].space == Space::Private {
            return Err("atomics on private arrays".into());
        }
        let dt = |o: &Operand| self.operand_dtype(o);
        if dt(value) != Some(d) || cmp.is_some_and(|c| dt(c) != Some(d)) {
            return Err("atomic operand type".into());
        }
        if (op == AtomicOp::CompareExchange) != cmp.is_some() {
            return Err("compare_exchange needs exactly one expected value".into());
        }
        let complex_add = d.is_complex() && matches!(op, AtomicOp::Add | AtomicOp::Sub);
        if !complex_add && !matches!(d, DType::I32 | DType::I64 | DType::U32 | DType::U64 | DType::F32 | DType::F64) {
            return Err(format!("atomic {} on {} is not supported", op.name(), d.name()));
        }
        if matches!(op, AtomicOp::And | AtomicOp::Or | AtomicOp::Xor) && !d.is_int() {
            return Err(format!("atomic {} needs an integer array, got {}", op.name(), d.name()));
        }
        match (op, dst) {
            (AtomicOp::Load, None) => Err("atomic load needs a destination".into()),
            (AtomicOp::Store, Some(_)) => Err("atomic store has no result".into()),
            (_, Some(l)) if self.locals.get(l) != Some(&d) => Err("atomic result type".into()),
            _ => Ok(()),
        }
    }
}

/// The memory orders LLVM allows: a load does not release, a store does not acquire.
fn check_order(op: AtomicOp, order: MemOrder) -> std::result::Result<(), String> {
    let bad = match op {
        AtomicOp::Load => order.releases() && order != MemOrder::SeqCst,
        AtomicOp::Store => order.acquires() && order != MemOrder::SeqCst,
        _ => false,
    };
    if bad {
        let ok = if op == AtomicOp::Load { "relaxed, acquire or seq_cst" } else { "relaxed, release or seq_cst" };
        return Err(format!("an atomic {} cannot be '{}': use {ok}", op.name(), order.name()));
    }
    Ok(())
}
