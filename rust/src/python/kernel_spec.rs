//! The kernel descriptions Python hands over, converted to the core's IR: the elementwise form
//! ([`spec_from_py`]) and the control-flow form ([`function_from_py`]). The elementwise form is a
//! plain dict built by `numba_ext/compiler/kernelspec.py`:
//!
//! ```text
//! {"name": str, "ndim": int,
//!  "params": [(name, "array", dtype, ndim, contiguous) | (name, "scalar", dtype)],
//!  "nodes":  [("load", dt, p) | ("scalar", dt, p) | ("const", dt, value) | ("cast", dt, a)
//!            | ("unary", dt, op, a) | ("binary", dt, op, a, b) | ("select", dt, c, a, b)
//!            | ("store", dt, p, v)]}
//! ```

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::ir::cfg::{ArrayDecl, AtomicOp, Block, Inst, KParam, Operand, Space, Term, WorkItem};
use crate::ir::{BinaryOp, DType, Function, KernelSpec, Node, Op, Param, ParamKind, UnaryOp};

fn bad(msg: String) -> PyErr {
    PyValueError::new_err(format!("malformed kernel spec: {msg}"))
}

fn dtype(t: &Bound<'_, PyTuple>, i: usize) -> PyResult<DType> {
    Ok(DType::parse(&t.get_item(i)?.extract::<String>()?)?)
}

pub fn spec_from_py(d: &Bound<'_, PyDict>) -> PyResult<KernelSpec> {
    let get = |k: &str| d.get_item(k)?.ok_or_else(|| bad(format!("missing key '{k}'")));
    let name: String = get("name")?.extract()?;
    let ndim: usize = get("ndim")?.extract()?;
    let mut params = Vec::new();
    for p in get("params")?.try_iter()? {
        let p = p?;
        let t = p.cast::<PyTuple>()?;
        let pname: String = t.get_item(0)?.extract()?;
        let kind: String = t.get_item(1)?.extract()?;
        let kind = match kind.as_str() {
            "array" => ParamKind::Array {
                dtype: dtype(t, 2)?,
                ndim: t.get_item(3)?.extract()?,
                contiguous: t.get_item(4)?.extract()?,
            },
            "scalar" => ParamKind::Scalar { dtype: dtype(t, 2)? },
            other => return Err(bad(format!("unknown parameter kind '{other}'"))),
        };
        params.push(Param { name: pname, kind });
    }
    let mut nodes = Vec::new();
    for n in get("nodes")?.try_iter()? {
        let n = n?;
        let t = n.cast::<PyTuple>()?;
        let tag: String = t.get_item(0)?.extract()?;
        let dt = dtype(t, 1)?;
        let u = |i: usize| -> PyResult<usize> { t.get_item(i)?.extract() };
        let op = match tag.as_str() {
            "load" => Op::Load { param: u(2)? },
            "scalar" => Op::Scalar { param: u(2)? },
            "const" => {
                let v = t.get_item(2)?;
                let bits: i64 = if dt.is_float() {
                    0
                } else {
                    v.extract::<i128>().map(|x| x as i64).or_else(|_| v.extract::<bool>().map(|b| b as i64))?
                };
                Op::Const { value: v.extract::<f64>()?, bits }
            }
            "cast" => Op::Cast { arg: u(2)? },
            "unary" => Op::Unary { op: UnaryOp::parse(&t.get_item(2)?.extract::<String>()?)?, arg: u(3)? },
            "binary" => {
                Op::Binary { op: BinaryOp::parse(&t.get_item(2)?.extract::<String>()?)?, lhs: u(3)?, rhs: u(4)? }
            }
            "select" => Op::Select { cond: u(2)?, a: u(3)?, b: u(4)? },
            "store" => Op::Store { param: u(2)?, value: u(3)? },
            other => return Err(bad(format!("unknown node kind '{other}'"))),
        };
        nodes.push(Node { op, dtype: dt });
    }
    Ok(KernelSpec { name, ndim, params, nodes })
}

fn operand(o: &Bound<'_, PyAny>) -> PyResult<Operand> {
    let t = o.cast::<PyTuple>()?;
    let tag: String = t.get_item(0)?.extract()?;
    match tag.as_str() {
        "l" => Ok(Operand::Local(t.get_item(1)?.extract()?)),
        "c" => {
            let dt = dtype(t, 1)?;
            let v = t.get_item(2)?;
            let bits: i64 = if dt.is_float() {
                0
            } else {
                v.extract::<i128>().map(|x| x as i64).or_else(|_| v.extract::<bool>().map(|b| b as i64))?
            };
            Ok(Operand::Const { value: v.extract::<f64>()?, bits, dtype: dt })
        }
        other => Err(bad(format!("unknown operand kind '{other}'"))),
    }
}

fn operands(o: &Bound<'_, PyAny>) -> PyResult<Vec<Operand>> {
    o.try_iter()?.map(|x| operand(&x?)).collect()
}

/// The control-flow form (see `ir/cfg.rs`), as built by `numba_ext/compiler/kernel_translate.py`:
///
/// ```text
/// {"name": str, "locals": [dtype], "arrays": [(name, dtype, ndim, "global"|"local"|"private", shape[, contiguous])],
///  "params": [("array", a) | ("scalar", local)],
///  "blocks": [([inst], term)]}
/// operand: ("l", local) | ("c", dtype, value)
/// inst: ("copy"|"cast", dst, op) | ("unary", dst, name, op) | ("binary", dst, name, a, b)
///     | ("select", dst, c, a, b) | ("load", dst, arr, [op]) | ("store", arr, [op], op)
///     | ("dim", dst, arr, d) | ("workitem", dst, name, d) | ("barrier", flags)
///     | ("atomic", dst|None, name, arr, [op], value, cmp|None)
/// term: ("jump", b) | ("branch", op, b_then, b_else) | ("return",)
/// ```
pub fn function_from_py(d: &Bound<'_, PyDict>) -> PyResult<Function> {
    let get = |k: &str| d.get_item(k)?.ok_or_else(|| bad(format!("missing key '{k}'")));
    let name: String = get("name")?.extract()?;
    let locals = get("locals")?
        .try_iter()?
        .map(|x| Ok(DType::parse(&x?.extract::<String>()?)?))
        .collect::<PyResult<Vec<_>>>()?;
    let arrays = get("arrays")?.try_iter()?.map(|a| array_decl(a?.cast::<PyTuple>()?)).collect::<PyResult<_>>()?;
    let params = get("params")?.try_iter()?.map(|p| kparam(p?.cast::<PyTuple>()?)).collect::<PyResult<_>>()?;
    let blocks = get("blocks")?.try_iter()?.map(|b| block(b?.cast::<PyTuple>()?)).collect::<PyResult<_>>()?;
    Ok(Function { name, params, arrays, locals, blocks })
}

/// `(name, dtype, ndim, space, shape[, contiguous])`
fn array_decl(t: &Bound<'_, PyTuple>) -> PyResult<ArrayDecl> {
    let space = match t.get_item(3)?.extract::<String>()?.as_str() {
        "global" => Space::Global,
        "local" => Space::Local,
        "private" => Space::Private,
        other => return Err(bad(format!("unknown memory space '{other}'"))),
    };
    let contiguous = t.len() > 5 && t.get_item(5)?.extract::<bool>()?;
    Ok(ArrayDecl {
        name: t.get_item(0)?.extract()?,
        dtype: dtype(t, 1)?,
        ndim: t.get_item(2)?.extract()?,
        space,
        shape: t.get_item(4)?.extract()?,
        contiguous,
    })
}

/// `("array", a) | ("scalar", local)`
fn kparam(t: &Bound<'_, PyTuple>) -> PyResult<KParam> {
    Ok(match t.get_item(0)?.extract::<String>()?.as_str() {
        "array" => KParam::Array(t.get_item(1)?.extract()?),
        "scalar" => KParam::Scalar { local: t.get_item(1)?.extract()? },
        other => return Err(bad(format!("unknown parameter kind '{other}'"))),
    })
}

/// `([inst], term)`
fn block(bt: &Bound<'_, PyTuple>) -> PyResult<Block> {
    let insts = bt.get_item(0)?.try_iter()?.map(|i| inst(i?.cast::<PyTuple>()?)).collect::<PyResult<_>>()?;
    Ok(Block { insts, term: term(bt.get_item(1)?.cast::<PyTuple>()?)? })
}

fn inst(t: &Bound<'_, PyTuple>) -> PyResult<Inst> {
    let tag: String = t.get_item(0)?.extract()?;
    let u = |k: usize| -> PyResult<usize> { t.get_item(k)?.extract() };
    let o = |k: usize| -> PyResult<Operand> { operand(&t.get_item(k)?) };
    let s = |k: usize| -> PyResult<String> { t.get_item(k)?.extract() };
    Ok(match tag.as_str() {
        "copy" => Inst::Copy { dst: u(1)?, src: o(2)? },
        "cast" => Inst::Cast { dst: u(1)?, src: o(2)? },
        "unary" => Inst::Unary { dst: u(1)?, op: UnaryOp::parse(&s(2)?)?, src: o(3)? },
        "binary" => Inst::Binary { dst: u(1)?, op: BinaryOp::parse(&s(2)?)?, a: o(3)?, b: o(4)? },
        "select" => Inst::Select { dst: u(1)?, cond: o(2)?, a: o(3)?, b: o(4)? },
        "load" => Inst::Load { dst: u(1)?, array: u(2)?, index: operands(&t.get_item(3)?)? },
        "store" => Inst::Store { array: u(1)?, index: operands(&t.get_item(2)?)?, src: o(3)? },
        "dim" => Inst::Dim { dst: u(1)?, array: u(2)?, dim: u(3)? },
        "workitem" => Inst::WorkItem { dst: u(1)?, query: WorkItem::parse(&s(2)?)?, dim: t.get_item(3)?.extract()? },
        "barrier" => Inst::Barrier { flags: t.get_item(1)?.extract()? },
        "atomic" => {
            let cmp = t.get_item(6)?;
            Inst::Atomic {
                dst: t.get_item(1)?.extract()?,
                op: AtomicOp::parse(&s(2)?)?,
                array: u(3)?,
                index: operands(&t.get_item(4)?)?,
                value: o(5)?,
                cmp: if cmp.is_none() { None } else { Some(operand(&cmp)?) },
            }
        }
        other => return Err(bad(format!("unknown instruction '{other}'"))),
    })
}

fn term(tt: &Bound<'_, PyTuple>) -> PyResult<Term> {
    Ok(match tt.get_item(0)?.extract::<String>()?.as_str() {
        "jump" => Term::Jump(tt.get_item(1)?.extract()?),
        "branch" => Term::Branch {
            cond: operand(&tt.get_item(1)?)?,
            then: tt.get_item(2)?.extract()?,
            otherwise: tt.get_item(3)?.extract()?,
        },
        "return" => Term::Return,
        other => return Err(bad(format!("unknown terminator '{other}'"))),
    })
}
