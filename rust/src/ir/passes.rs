//! Graph passes. Each returns a new verified graph.

use std::collections::{HashMap, HashSet};

use petgraph::stable_graph::NodeIndex;
use petgraph::Direction;

use super::graph::Graph;
use super::spec::{BinaryOp, DType, Node, Op, UnaryOp};
use crate::error::Result;

/// The standard pipeline: fold constants, merge common subexpressions, drop dead nodes.
pub fn optimize(g: &Graph) -> Result<Graph> {
    let g = fold_constants(g)?;
    let g = cse(&g)?;
    let g = dce(&g)?;
    g.verify()?;
    Ok(g)
}

/// Common-subexpression elimination: structurally identical nodes (same op, dtype and operands;
/// commutative operands in canonical order) are computed once.
pub fn cse(g: &Graph) -> Result<Graph> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    g.rebuild(|out, mut node| {
        if let Op::Binary { op, lhs, rhs } = &mut node.op {
            if op.is_commutative() && lhs > rhs {
                std::mem::swap(lhs, rhs);
            }
        }
        if matches!(node.op, Op::Store { .. }) {
            return out.add(node);
        }
        let key = format!("{:?}", node);
        if let Some(&i) = seen.get(&key) {
            return i;
        }
        let i = out.add(node);
        seen.insert(key, i);
        i
    })
}

/// Dead-code elimination: keep what a store depends on.
pub fn dce(g: &Graph) -> Result<Graph> {
    let mut live: HashSet<usize> = HashSet::new();
    let mut stack: Vec<usize> =
        g.g.node_indices().filter(|&n| matches!(g.g[n].op, Op::Store { .. })).map(|n| n.index()).collect();
    while let Some(i) = stack.pop() {
        if live.insert(i) {
            stack.extend(g.g.neighbors_directed(NodeIndex::new(i), Direction::Incoming).map(|n| n.index()));
        }
    }
    let order = g.topo_order()?;
    let mut out = g.clone();
    for i in order {
        if !live.contains(&i) {
            out.g.remove_node(NodeIndex::new(i));
        }
    }
    Ok(out)
}

/// Fold float casts and arithmetic whose operands are all constants.
pub fn fold_constants(g: &Graph) -> Result<Graph> {
    g.rebuild(|out, node| {
        let cval = |i: usize| match out.node(i).op {
            Op::Const { value, .. } if out.node(i).dtype.is_float() => Some(value),
            _ => None,
        };
        let folded = if !node.dtype.is_float() {
            None
        } else {
            match node.op {
                Op::Unary { op: UnaryOp::Neg, arg } => cval(arg).map(|v| -v),
                Op::Binary { op, lhs, rhs } => match (cval(lhs), cval(rhs)) {
                    (Some(a), Some(b)) => match op {
                        BinaryOp::Add => Some(a + b),
                        BinaryOp::Sub => Some(a - b),
                        BinaryOp::Mul => Some(a * b),
                        BinaryOp::Div => Some(a / b),
                        _ => None,
                    },
                    _ => None,
                },
                _ => None,
            }
        };
        match folded {
            Some(v) => {
                let v = match node.dtype {
                    DType::F32 => v as f32 as f64,
                    DType::F16 => super::spec::round_f16(v),
                    _ => v,
                };
                out.add(Node { op: Op::Const { value: v, bits: 0 }, dtype: node.dtype })
            }
            None => out.add(node),
        }
    })
}
