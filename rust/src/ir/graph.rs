//! The dataflow graph: one petgraph node per operation, an edge from each operand to its user
//! (weight = operand position). Operand indices inside [`Op`] are the graph's node indices, so the
//! node weights alone describe the computation and the edges give traversal (users, topological
//! order, liveness).

use std::collections::HashMap;

use petgraph::algo::toposort;
use petgraph::stable_graph::{NodeIndex, StableDiGraph};
use petgraph::Direction;

use super::spec::{BinaryOp, DType, KernelSpec, Node, Op, Param, ParamKind};
use crate::error::{Error, Result};

#[derive(Clone, Debug)]
pub struct Graph {
    pub name: String,
    pub ndim: usize,
    pub params: Vec<Param>,
    pub g: StableDiGraph<Node, u8>,
}

impl Graph {
    /// Build and verify the graph of a spec.
    pub fn from_spec(spec: &KernelSpec) -> Result<Graph> {
        let mut graph =
            Graph { name: spec.name.clone(), ndim: spec.ndim, params: spec.params.clone(), g: StableDiGraph::new() };
        for (i, node) in spec.nodes.iter().enumerate() {
            for o in node.op.operands() {
                if o >= i {
                    return Err(Error::Graph(format!(
                        "node {i} ({:?}) uses node {o}, which does not precede it",
                        node.op
                    )));
                }
            }
            graph.add(node.clone());
        }
        graph.verify()?;
        Ok(graph)
    }

    /// Add a node whose operand fields are indices of nodes already in the graph.
    pub fn add(&mut self, node: Node) -> usize {
        let ops = node.op.operands();
        let idx = self.g.add_node(node);
        for (pos, o) in ops.into_iter().enumerate() {
            self.g.add_edge(NodeIndex::new(o), idx, pos as u8);
        }
        idx.index()
    }

    pub fn node(&self, i: usize) -> &Node {
        &self.g[NodeIndex::new(i)]
    }

    /// Node indices in dependency order.
    pub fn topo_order(&self) -> Result<Vec<usize>> {
        toposort(&self.g, None)
            .map(|v| v.into_iter().map(|n| n.index()).collect())
            .map_err(|c| Error::Graph(format!("the dataflow graph has a cycle through node {}", c.node_id().index())))
    }

    pub fn users(&self, i: usize) -> usize {
        self.g.neighbors_directed(NodeIndex::new(i), Direction::Outgoing).count()
    }

    pub fn node_count(&self) -> usize {
        self.g.node_count()
    }

    /// Check types and parameter use. Run on every graph built from a spec and after every pass.
    pub fn verify(&self) -> Result<()> {
        let mut stores = 0;
        for i in self.topo_order()? {
            let n = self.node(i);
            if matches!(n.op, Op::Store { .. }) {
                stores += 1;
            }
            self.check_node(n).map_err(|msg| Error::Graph(format!("node {i}: {msg}")))?;
        }
        if stores == 0 {
            return Err(Error::Graph(format!("kernel '{}' stores nothing", self.name)));
        }
        Ok(())
    }

    /// Check one node's operand types and parameter use.
    fn check_node(&self, n: &Node) -> std::result::Result<(), String> {
        let dt = |j: usize| self.node(j).dtype;
        let array_param = |p: usize| match self.params.get(p) {
            Some(Param { kind: ParamKind::Array { dtype, .. }, .. }) => Some(*dtype),
            _ => None,
        };
        match n.op {
            Op::Load { param } => match array_param(param) {
                Some(d) if d == n.dtype => {}
                Some(d) => return Err(format!("load of a {} array typed {}", d.name(), n.dtype.name())),
                None => return Err(format!("load from parameter {param}, which is not an array")),
            },
            Op::Scalar { param } => match self.params.get(param) {
                Some(Param { kind: ParamKind::Scalar { dtype }, .. }) if *dtype == n.dtype => {}
                _ => return Err(format!("parameter {param} is not a scalar of dtype {}", n.dtype.name())),
            },
            Op::Const { .. } | Op::Cast { .. } => {}
            Op::Unary { op, arg } => return super::spec::check_unary(op, dt(arg), n.dtype),
            Op::Binary { op, lhs, rhs } => return check_binary(op, dt(lhs), dt(rhs), n.dtype),
            Op::Select { cond, a, b } => {
                if dt(cond) != DType::Bool || dt(a) != n.dtype || dt(b) != n.dtype {
                    return Err("select needs a bool condition and two operands of the node's dtype".into());
                }
            }
            Op::Store { param, value } => match array_param(param) {
                Some(d) if d == n.dtype && dt(value) == d => {}
                Some(d) => return Err(format!("store of {} into a {} array", dt(value).name(), d.name())),
                None => return Err(format!("store to parameter {param}, which is not an array")),
            },
        }
        Ok(())
    }

    /// Rebuild the graph through `f`, which maps each node (operands already renumbered) to the
    /// index of its replacement in the new graph (usually by adding it).
    pub(crate) fn rebuild(&self, mut f: impl FnMut(&mut Graph, Node) -> usize) -> Result<Graph> {
        let mut out =
            Graph { name: self.name.clone(), ndim: self.ndim, params: self.params.clone(), g: StableDiGraph::new() };
        let mut map: HashMap<usize, usize> = HashMap::new();
        for i in self.topo_order()? {
            let mut node = self.node(i).clone();
            remap(&mut node.op, &map);
            let new = f(&mut out, node);
            map.insert(i, new);
        }
        Ok(out)
    }
}

fn remap(op: &mut Op, map: &HashMap<usize, usize>) {
    let m = |x: &mut usize| *x = map[x];
    match op {
        Op::Load { .. } | Op::Scalar { .. } | Op::Const { .. } => {}
        Op::Cast { arg } | Op::Unary { arg, .. } => m(arg),
        Op::Binary { lhs, rhs, .. } => {
            m(lhs);
            m(rhs)
        }
        Op::Select { cond, a, b } => {
            m(cond);
            m(a);
            m(b)
        }
        Op::Store { value, .. } => m(value),
    }
}

/// Check a binary node: operands of one dtype, the result typed as the operator yields, and the
/// operator defined for the dtype.
fn check_binary(op: BinaryOp, lhs: DType, rhs: DType, node: DType) -> std::result::Result<(), String> {
    if lhs != rhs {
        return Err(format!("{op:?} of mismatched dtypes {} and {}", lhs.name(), rhs.name()));
    }
    let want = if op.is_comparison() { DType::Bool } else { lhs };
    if node != want {
        return Err(format!("{op:?} yields {}, node typed {}", want.name(), node.name()));
    }
    if matches!(op, BinaryOp::And | BinaryOp::Or | BinaryOp::Xor) && node.is_float() {
        return Err(format!("bitwise {op:?} of floats"));
    }
    if lhs.is_complex() && !op.supports_complex() {
        return Err(format!("{op:?} is not defined for complex values"));
    }
    if matches!(op, BinaryOp::Atan2 | BinaryOp::Hypot | BinaryOp::Copysign | BinaryOp::Nextafter | BinaryOp::Ldexp)
        && !node.is_float()
    {
        return Err(format!("{op:?} needs float operands"));
    }
    if matches!(op, BinaryOp::Shl | BinaryOp::Shr | BinaryOp::Gcd) && !node.is_int() {
        return Err(format!("{op:?} needs integer operands"));
    }
    Ok(())
}
