//! Which integer locals of a [`Function`] never hold a negative value, so that the negative-index
//! wrap ([`Inst::Wrap`]) of an index they hold costs nothing.
//!
//! An optimistic fixed point over every assignment: a local starts non-negative unless it is a
//! signed scalar parameter, and stays so while every value assigned to it is non-negative given the
//! current facts: constants `>= 0`, unsigned and bool values, work-item queries, array extents,
//! wrapped indices, and sums, products, quotients, remainders, minima, maxima, bitwise and/or and
//! right shifts of non-negative operands. Loop counters (`i = 0; i = i + 1`) come out non-negative.
//! Integer overflow is ignored: an index that overflowed is out of bounds whether or not it is
//! wrapped (the bounds check, when enabled, compares it unsigned and catches it either way).

use super::cfg::{Function, Inst, KParam, Operand};
use super::spec::{BinaryOp, DType};

/// Per local: whether it is provably non-negative (always true for unsigned and bool locals).
pub fn nonneg_locals(f: &Function) -> Vec<bool> {
    let unsigned = |d: DType| d == DType::Bool || (d.is_int() && !d.is_signed());
    let mut nn: Vec<bool> = f.locals.iter().map(|d| d.is_int() || *d == DType::Bool).collect();
    for p in &f.params {
        if let KParam::Scalar { local } = p {
            nn[*local] = unsigned(f.locals[*local]);
        }
    }
    loop {
        let mut changed = false;
        for inst in f.blocks.iter().flat_map(|b| &b.insts) {
            let Some((dst, ok)) = assignment(f, inst, &nn) else { continue };
            if nn[dst] && !ok && !unsigned(f.locals[dst]) {
                nn[dst] = false;
                changed = true;
            }
        }
        if !changed {
            return nn;
        }
    }
}

fn operand_nonneg(o: &Operand, nn: &[bool]) -> bool {
    match o {
        Operand::Local(l) => nn[*l],
        Operand::Const { bits, dtype, .. } => (dtype.is_int() || *dtype == DType::Bool) && *bits >= 0,
    }
}

/// The local an instruction assigns, and whether the value assigned is non-negative under `nn`.
fn assignment(f: &Function, inst: &Inst, nn: &[bool]) -> Option<(usize, bool)> {
    let is = |o: &Operand| operand_nonneg(o, nn);
    let dtype = |o: &Operand| match o {
        Operand::Local(l) => f.locals[*l],
        Operand::Const { dtype, .. } => *dtype,
    };
    Some(match inst {
        Inst::Copy { dst, src } => (*dst, is(src)),
        Inst::Cast { dst, src } => {
            let (from, to) = (dtype(src), f.locals[*dst]);
            // a narrowing cast may turn a large value negative
            (
                *dst,
                is(src)
                    && (from == DType::Bool
                        || from.size() < to.size()
                        || (from.is_signed() && from.size() <= to.size())),
            )
        }
        Inst::Binary { dst, op, a, b } => {
            let ok = match op {
                BinaryOp::Add | BinaryOp::Mul | BinaryOp::FloorDiv | BinaryOp::Rem | BinaryOp::Min | BinaryOp::Or => {
                    is(a) && is(b)
                }
                BinaryOp::Max | BinaryOp::And => is(a) || is(b),
                BinaryOp::Shr => is(a),
                op if op.is_comparison() => true,
                _ => false,
            };
            (*dst, ok)
        }
        Inst::Select { dst, a, b, .. } => (*dst, is(a) && is(b)),
        Inst::Dim { dst, .. } | Inst::WorkItem { dst, .. } | Inst::Wrap { dst, .. } => (*dst, true),
        Inst::Unary { dst, .. } | Inst::Load { dst, .. } | Inst::ViewIndex { dst, .. } => (*dst, false),
        Inst::Atomic { dst: Some(dst), .. } => (*dst, false),
        _ => return None,
    })
}
