//! The kernel IR. Python hands over a [`KernelSpec`] (plain typed nodes in topological order); it is
//! turned into a petgraph dataflow [`graph::Graph`], verified, and optimised by [`passes`] (constant
//! folding, common-subexpression elimination, dead-code elimination) before code generation.

pub mod cfg;
pub mod graph;
pub mod nonneg;
pub mod passes;
mod spec;

pub use cfg::Function;
pub use graph::Graph;
pub use spec::{f16_bits, f16_value, round_f16, BinaryOp, DType, KernelSpec, Node, Op, Param, ParamKind, UnaryOp};
