//! numba_ext core: the OpenCL runtime, the dataflow-graph IR and the LLVM code generator behind the
//! `numba_ext` Python package.
//!
//! The modules form one-way layers; each uses only those listed before it:
//!
//! * [`error`]: the one error type.
//! * [`target`]: what code generation needs to know about a device (plain data).
//! * [`ir`]: the typed kernel description handed over by Python ([`ir::KernelSpec`]), the petgraph
//!   dataflow graph built from it, its verifier and the optimisation passes.
//! * [`codegen`]: lowering the graph to LLVM IR with inkwell and emitting SPIR-V or PTX for a
//!   [`target::DeviceTarget`]; it never sees an OpenCL object.
//! * [`runtime`]: devices, contexts, queues, USM / buffer memory, program cache and kernel launch.
//! * `python` (feature `python`): the Python extension module `_core`, the only place that knows
//!   about Python.

pub mod codegen;
pub mod error;
pub mod ir;
pub mod runtime;
pub mod target;

#[cfg(feature = "python")]
mod python;

pub use error::{Error, Result};
