//! The one mapping from core errors to Python exceptions. The exception classes live in
//! `numba_ext/errors.py` (so they can have several bases, e.g. `ExecutionPlacementError` is a
//! `NumbaExtError` and a `ValueError`); this file picks the class for each variant.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

use crate::error::Error;

fn class_name(e: &Error) -> &'static str {
    match e {
        Error::OpenCl { .. } => "OpenCLError",
        Error::Build { .. } => "BuildError",
        Error::Selector(_) => "DeviceSelectorError",
        Error::Graph(_) => "KernelSpecError",
        Error::Codegen(_) => "CodegenError",
        Error::Unsupported(_) => "UnsupportedError",
        Error::Memory(_) => "USMError",
        Error::Placement(_) => "ExecutionPlacementError",
        Error::Launch(_) => "LaunchError",
        Error::DeviceFault(_) => "DeviceFaultError",
    }
}

pub fn to_pyerr(py: Python<'_>, e: Error) -> PyErr {
    let msg = e.to_string();
    match py.import("numba_ext.errors").and_then(|m| m.getattr(class_name(&e))) {
        Ok(cls) => match cls.call1((msg.clone(),)) {
            Ok(inst) => PyErr::from_value(inst),
            Err(err) => err,
        },
        Err(_) => PyRuntimeError::new_err(msg),
    }
}

impl From<Error> for PyErr {
    fn from(e: Error) -> PyErr {
        Python::attach(|py| to_pyerr(py, e))
    }
}
