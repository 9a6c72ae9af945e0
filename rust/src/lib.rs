//! numba_ext core: the OpenCL runtime, the dataflow-graph IR and the LLVM code generator behind the
//! `numba_ext` Python package.
//!
//! * [`runtime`]: devices, contexts, queues, USM / buffer memory, program cache and kernel launch.
//! * [`ir`]: the typed kernel description handed over by Python ([`ir::KernelSpec`]), the petgraph
//!   dataflow graph built from it, its verifier and the optimisation passes.
//! * [`codegen`]: lowering the graph to LLVM IR with inkwell and emitting SPIR-V or PTX.
//! * `python` (feature `python`): the only place pyo3 appears.

pub mod codegen;
pub mod error;
pub mod ir;
pub mod runtime;

#[cfg(feature = "python")]
mod python;

pub use error::{Error, Result};
