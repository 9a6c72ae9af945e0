//! The kernel descriptions Python hands to the compiler, read into the crate's IR: the typed
//! kernel IR of `numba_ext/ir/kernel_ir.py` (its docstring describes the structure): frozen
//! dataclasses whose class attribute `tag` names the variant and whose fields are read by name.
//! Anything malformed (an unknown tag, a missing or mistyped field, another IR version) is a
//! ValueError naming the object and field; unsupported dtypes and operations are KernelSpecErrors.

use std::fmt::Display;

use pyo3::conversion::FromPyObjectOwned;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::ir::cfg::{ArrayDecl, AtomicOp, Block, Inst, KParam, MemOrder, MemScope, Operand, Space, Term, WorkItem};
use crate::ir::{BinaryOp, DType, Function, KernelSpec, Node, Op, Param, ParamKind, UnaryOp};

/// The kernel IR version this build reads (`KERNEL_IR_VERSION` in `numba_ext/ir/kernel_ir.py`).
pub const KERNEL_IR_VERSION: u32 = 5;

fn bad(msg: impl Display) -> PyErr {
    PyValueError::new_err(format!("malformed kernel IR: {msg}"))
}

fn class_name(o: &Bound<'_, PyAny>) -> String {
    o.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".to_string())
}

/// Field `name` of `o`.
fn attr<'py>(o: &Bound<'py, PyAny>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    o.getattr(name).map_err(|_| bad(format_args!("{} has no field '{name}'", class_name(o))))
}

/// Field `name` of `o`, converted to `T`.
fn field<'py, T: FromPyObjectOwned<'py>>(o: &Bound<'py, PyAny>, name: &str) -> PyResult<T> {
    attr(o, name)?.extract::<T>().map_err(|e| {
        let e: PyErr = e.into();
        bad(format_args!("field '{name}' of {}: {e}", class_name(o)))
    })
}

/// The items of sequence field `name` of `o`.
fn items<'py>(o: &Bound<'py, PyAny>, name: &str) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let v = attr(o, name)?;
    let it = v.try_iter().map_err(|_| bad(format_args!("field '{name}' of {} is not a sequence", class_name(o))))?;
    it.collect()
}

/// The variant name of a kernel IR object (its class attribute `tag`).
fn tag(o: &Bound<'_, PyAny>) -> PyResult<String> {
    o.getattr("tag")
        .and_then(|t| t.extract::<String>())
        .map_err(|_| bad(format_args!("{} is not a kernel IR object (it has no string 'tag')", class_name(o))))
}

/// Check the tag and version of a top-level object.
fn check_top(o: &Bound<'_, PyAny>, want: &str, what: &str) -> PyResult<()> {
    if tag(o).ok().as_deref() != Some(want) {
        return Err(bad(format_args!("expected a {what}, got {}", class_name(o))));
    }
    let version: u32 = field(o, "version")?;
    if version != KERNEL_IR_VERSION {
        return Err(PyValueError::new_err(format!(
            "kernel IR version mismatch: the Python package built version {version}, this numba_ext._core reads \
             version {KERNEL_IR_VERSION} (rebuild the extension)"
        )));
    }
    Ok(())
}

fn dtype(o: &Bound<'_, PyAny>, name: &str) -> PyResult<DType> {
    Ok(DType::parse(&field::<String>(o, name)?)?)
}

/// The `value` field of a constant of dtype `dt`: as f64, and exactly as `bits` for ints and bools;
/// for complex dtypes the real part, and the bits of the imaginary part (an f64) as `bits`.
fn const_value(o: &Bound<'_, PyAny>, dt: DType) -> PyResult<(f64, i64)> {
    if dt.is_complex() {
        let v = attr(o, "value")?;
        let part = |name: &str| -> PyResult<f64> {
            v.getattr(name)
                .and_then(|x| x.extract::<f64>())
                .map_err(|_| bad(format_args!("field 'value' of {} is not a number", class_name(o))))
        };
        return Ok((part("real")?, part("imag")?.to_bits() as i64));
    }
    let bits = if dt.is_float() {
        0
    } else {
        let v = attr(o, "value")?;
        v.extract::<i128>()
            .map(|x| x as i64)
            .or_else(|_| v.extract::<bool>().map(|b| b as i64))
            .map_err(|_| bad(format_args!("field 'value' of {} is not an integer or bool", class_name(o))))?
    };
    Ok((field(o, "value")?, bits))
}

fn unknown(what: &str, o: &Bound<'_, PyAny>, tag: &str) -> PyErr {
    bad(format_args!("unknown {what} {} (tag '{tag}')", class_name(o)))
}

fn param(p: &Bound<'_, PyAny>) -> PyResult<Param> {
    let kind = match tag(p)?.as_str() {
        "array" => {
            ParamKind::Array { dtype: dtype(p, "dtype")?, ndim: field(p, "ndim")?, contiguous: field(p, "contiguous")? }
        }
        "scalar" => ParamKind::Scalar { dtype: dtype(p, "dtype")? },
        other => return Err(unknown("parameter", p, other)),
    };
    Ok(Param { name: field(p, "name")?, kind })
}

fn node(n: &Bound<'_, PyAny>) -> PyResult<Node> {
    let dt = dtype(n, "dtype")?;
    let u = |name: &str| field::<usize>(n, name);
    let op = match tag(n)?.as_str() {
        "load" => Op::Load { param: u("param")? },
        "scalar" => Op::Scalar { param: u("param")? },
        "const" => {
            let (value, bits) = const_value(n, dt)?;
            Op::Const { value, bits }
        }
        "cast" => Op::Cast { arg: u("arg")? },
        "unary" => Op::Unary { op: UnaryOp::parse(&field::<String>(n, "op")?)?, arg: u("arg")? },
        "binary" => Op::Binary { op: BinaryOp::parse(&field::<String>(n, "op")?)?, lhs: u("lhs")?, rhs: u("rhs")? },
        "select" => Op::Select { cond: u("cond")?, a: u("a")?, b: u("b")? },
        "store" => Op::Store { param: u("param")?, value: u("value")? },
        other => return Err(unknown("node", n, other)),
    };
    Ok(Node { op, dtype: dt })
}

/// A `KernelSpec` (the dataflow form).
pub fn spec_from_py(o: &Bound<'_, PyAny>) -> PyResult<KernelSpec> {
    check_top(o, "kernel_spec", "KernelSpec")?;
    Ok(KernelSpec {
        name: field(o, "name")?,
        ndim: field(o, "ndim")?,
        params: items(o, "params")?.iter().map(param).collect::<PyResult<_>>()?,
        nodes: items(o, "nodes")?.iter().map(node).collect::<PyResult<_>>()?,
    })
}

fn operand(o: &Bound<'_, PyAny>) -> PyResult<Operand> {
    match tag(o)?.as_str() {
        "local" => Ok(Operand::Local(field(o, "index")?)),
        "const" => {
            let dt = dtype(o, "dtype")?;
            let (value, bits) = const_value(o, dt)?;
            Ok(Operand::Const { value, bits, dtype: dt })
        }
        other => Err(unknown("operand", o, other)),
    }
}

fn operand_field(o: &Bound<'_, PyAny>, name: &str) -> PyResult<Operand> {
    operand(&attr(o, name)?)
}

fn operands(o: &Bound<'_, PyAny>, name: &str) -> PyResult<Vec<Operand>> {
    items(o, name)?.iter().map(operand).collect()
}

fn array_decl(a: &Bound<'_, PyAny>) -> PyResult<ArrayDecl> {
    let space = match field::<String>(a, "space")?.as_str() {
        "global" => Space::Global,
        "local" => Space::Local,
        "private" => Space::Private,
        other => return Err(bad(format_args!("unknown memory space '{other}'"))),
    };
    Ok(ArrayDecl {
        name: field(a, "name")?,
        dtype: dtype(a, "dtype")?,
        ndim: field(a, "ndim")?,
        space,
        shape: field(a, "shape")?,
        contiguous: field(a, "contiguous")?,
    })
}

fn fn_param(p: &Bound<'_, PyAny>) -> PyResult<KParam> {
    match tag(p)?.as_str() {
        "array" => Ok(KParam::Array(field(p, "array")?)),
        "scalar" => Ok(KParam::Scalar { local: field(p, "local")? }),
        other => Err(unknown("parameter", p, other)),
    }
}

fn inst(i: &Bound<'_, PyAny>) -> PyResult<Inst> {
    let u = |name: &str| field::<usize>(i, name);
    let o = |name: &str| operand_field(i, name);
    let s = |name: &str| field::<String>(i, name);
    Ok(match tag(i)?.as_str() {
        "copy" => Inst::Copy { dst: u("dst")?, src: o("src")? },
        "cast" => Inst::Cast { dst: u("dst")?, src: o("src")? },
        "unary" => Inst::Unary { dst: u("dst")?, op: UnaryOp::parse(&s("op")?)?, src: o("src")? },
        "binary" => Inst::Binary { dst: u("dst")?, op: BinaryOp::parse(&s("op")?)?, a: o("a")?, b: o("b")? },
        "select" => Inst::Select { dst: u("dst")?, cond: o("cond")?, a: o("a")?, b: o("b")? },
        "load" => Inst::Load { dst: u("dst")?, array: u("array")?, index: operands(i, "index")? },
        "store" => Inst::Store { array: u("array")?, index: operands(i, "index")?, src: o("src")? },
        "dim" => Inst::Dim { dst: u("dst")?, array: u("array")?, dim: u("dim")? },
        "workitem" => Inst::WorkItem { dst: u("dst")?, query: WorkItem::parse(&s("query")?)?, dim: field(i, "dim")? },
        "barrier" => Inst::Barrier { flags: field(i, "flags")? },
        "atomic" => {
            let cmp = attr(i, "cmp")?;
            Inst::Atomic {
                dst: field(i, "dst")?,
                op: AtomicOp::parse(&s("op")?)?,
                array: u("array")?,
                index: operands(i, "index")?,
                value: o("value")?,
                cmp: if cmp.is_none() { None } else { Some(operand(&cmp)?) },
                order: MemOrder::parse(&s("order")?)?,
                scope: MemScope::parse(&s("scope")?)?,
            }
        }
        "wrap" => Inst::Wrap { dst: u("dst")?, index: o("index")?, extent: o("extent")? },
        "view_index" => Inst::ViewIndex {
            dst: u("dst")?,
            base_index: o("base_index")?,
            index: o("index")?,
            extent: o("extent")?,
            array: u("array")?,
            dim: u("dim")?,
            access: field(i, "access")?,
        },
        "fence" => Inst::Fence { order: MemOrder::parse(&s("order")?)?, scope: MemScope::parse(&s("scope")?)? },
        other => return Err(unknown("instruction", i, other)),
    })
}

fn term(t: &Bound<'_, PyAny>) -> PyResult<Term> {
    Ok(match tag(t)?.as_str() {
        "jump" => Term::Jump(field(t, "target")?),
        "branch" => {
            Term::Branch { cond: operand_field(t, "cond")?, then: field(t, "then")?, otherwise: field(t, "otherwise")? }
        }
        "return" => Term::Return,
        other => return Err(unknown("terminator", t, other)),
    })
}

fn block(b: &Bound<'_, PyAny>) -> PyResult<Block> {
    Ok(Block { insts: items(b, "insts")?.iter().map(inst).collect::<PyResult<_>>()?, term: term(&attr(b, "term")?)? })
}

/// A `Function` (the control-flow form, see `ir/cfg.rs`).
pub fn function_from_py(o: &Bound<'_, PyAny>) -> PyResult<Function> {
    check_top(o, "function", "Function")?;
    let locals = items(o, "locals")?
        .iter()
        .map(|x| Ok(DType::parse(&x.extract::<String>().map_err(|_| bad("a local's dtype is not a string"))?)?))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(Function {
        name: field(o, "name")?,
        params: items(o, "params")?.iter().map(fn_param).collect::<PyResult<_>>()?,
        arrays: items(o, "arrays")?.iter().map(array_decl).collect::<PyResult<_>>()?,
        locals,
        blocks: items(o, "blocks")?.iter().map(block).collect::<PyResult<_>>()?,
        bounds: field(o, "bounds")?,
    })
}
