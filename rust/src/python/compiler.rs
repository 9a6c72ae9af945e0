//! The one boundary call from Python into the compiler: `compile_kernel(spec, device)`.
//! The spec is a plain dict built by `numba_ext/numba/kernelspec.py`:
//!
//! ```text
//! {"name": str, "ndim": int,
//!  "params": [(name, "array", dtype, ndim, contiguous) | (name, "scalar", dtype)],
//!  "nodes":  [("load", dt, p) | ("scalar", dt, p) | ("const", dt, value) | ("cast", dt, a)
//!            | ("unary", dt, op, a) | ("binary", dt, op, a, b) | ("select", dt, c, a, b)
//!            | ("store", dt, p, v)]}
//! ```

use std::sync::Arc;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple};

use super::runtime::{PyDevice, PyQueue};
use crate::codegen::Flavor;
use crate::ir::{BinaryOp, DType, KernelSpec, Node, Op, Param, ParamKind, UnaryOp};
use crate::runtime::CompiledKernel;

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
            "array" => ParamKind::Array { dtype: dtype(t, 2)?, ndim: t.get_item(3)?.extract()?, contiguous: t.get_item(4)?.extract()? },
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
                let bits: i64 = if dt.is_float() { 0 } else { v.extract::<i128>().map(|x| x as i64).or_else(|_| v.extract::<bool>().map(|b| b as i64))? };
                Op::Const { value: v.extract::<f64>()?, bits }
            }
            "cast" => Op::Cast { arg: u(2)? },
            "unary" => Op::Unary { op: UnaryOp::parse(&t.get_item(2)?.extract::<String>()?)?, arg: u(3)? },
            "binary" => Op::Binary { op: BinaryOp::parse(&t.get_item(2)?.extract::<String>()?)?, lhs: u(3)?, rhs: u(4)? },
            "select" => Op::Select { cond: u(2)?, a: u(3)?, b: u(4)? },
            "store" => Op::Store { param: u(2)?, value: u(3)? },
            other => return Err(bad(format!("unknown node kind '{other}'"))),
        };
        nodes.push(Node { op, dtype: dt });
    }
    Ok(KernelSpec { name, ndim, params, nodes })
}

/// A kernel compiled for one device kind.
#[pyclass(name = "Kernel", module = "numba_ext._core", frozen)]
pub struct PyKernel {
    pub inner: Arc<CompiledKernel>,
}

#[pymethods]
impl PyKernel {
    #[getter]
    fn name(&self) -> &str {
        &self.inner.binary().kernel_name
    }
    /// The address compiled host code passes to `nx_launch` (valid while this object lives).
    #[getter]
    fn address(&self) -> usize {
        Arc::as_ptr(&self.inner) as usize
    }
    #[getter]
    fn llvm_ir(&self) -> &str {
        &self.inner.binary().llvm_ir
    }
    #[getter]
    fn format(&self) -> &'static str {
        match self.inner.binary().flavor {
            Flavor::Spirv => "spirv",
            Flavor::Nvptx => "ptx",
        }
    }
    #[getter]
    fn binary<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.binary().bytes)
    }
    #[getter]
    fn num_slots(&self) -> usize {
        self.inner.slots().len()
    }
    #[getter]
    fn graph_nodes(&self) -> usize {
        self.inner.binary().graph_nodes
    }
    /// Launch with one integer per argument slot and wait (used by eager operations and tests).
    fn launch(&self, py: Python<'_>, queue: PyRef<'_, PyQueue>, slots: Vec<u64>) -> PyResult<()> {
        let q = queue.inner.clone();
        Ok(py.detach(|| self.inner.launch(&q, &slots))?)
    }
    fn __repr__(&self) -> String {
        format!("<numba_ext Kernel '{}' ({})>", self.name(), self.format())
    }
}

/// Compile (or fetch from the cache) the kernel described by `spec` for `device`.
#[pyfunction]
pub fn compile_kernel(py: Python<'_>, spec: &Bound<'_, PyDict>, device: PyRef<'_, PyDevice>) -> PyResult<PyKernel> {
    let spec = spec_from_py(spec)?;
    let dev = device.inner.clone();
    Ok(PyKernel { inner: py.detach(|| CompiledKernel::get_or_compile(&spec, &dev))? })
}

/// LLVM IR for a spec without compiling device code (`target` is "spirv" or "ptx").
#[pyfunction]
pub fn kernel_llvm_ir(spec: &Bound<'_, PyDict>, target: &str) -> PyResult<String> {
    let spec = spec_from_py(spec)?;
    let flavor = if target == "ptx" { Flavor::Nvptx } else { Flavor::Spirv };
    Ok(crate::codegen::llvm_ir(&spec, flavor)?)
}
