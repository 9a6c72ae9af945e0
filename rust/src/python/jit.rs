//! The call path of `@numba_ext.jit` functions: `numba_ext.jit.JitFunction` derives from
//! [`JitCaller`], whose `__call__` takes the common case (every array argument a `numba_ext.ndarray`
//! on one queue object with one USM type, no NumPy array, no `offload_to` active anywhere) straight
//! to Numba's dispatcher, with no Python frame in between. Everything else goes through the Python
//! method `_call_slow` (`numba_ext/jit.py`), which applies compute follows data in full
//! (`numba_ext/cfd.py`). Compiled code checks queue equivalence again on every launch.

use std::sync::atomic::{AtomicIsize, Ordering};
use std::sync::OnceLock;

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple, PyType};

/// Number of `offload_to` contexts entered and not yet left, in all threads.
static OFFLOAD_ACTIVE: AtomicIsize = AtomicIsize::new(0);

/// Count `offload_to` contexts (`delta` +1 on entry, -1 on exit).
#[pyfunction]
pub fn _offload_active(delta: isize) -> isize {
    OFFLOAD_ACTIVE.fetch_add(delta, Ordering::SeqCst) + delta
}

struct FastPath {
    dispatcher: Py<PyAny>,
    array_type: Py<PyType>,
    numpy_type: Py<PyType>,
}

/// Base class of `numba_ext.jit.JitFunction` (see the module documentation).
#[pyclass(name = "JitCaller", module = "numba_ext._core", subclass, frozen)]
pub struct JitCaller {
    fast: OnceLock<FastPath>,
}

#[pymethods]
impl JitCaller {
    #[new]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn new(_args: &Bound<'_, PyTuple>, _kwargs: Option<&Bound<'_, PyDict>>) -> Self {
        JitCaller { fast: OnceLock::new() }
    }

    /// Enable the fast path: calls go to `dispatcher` when the arguments allow it. `array_type` is
    /// `numba_ext.ndarray`, `numpy_type` `numpy.ndarray`.
    fn _set_fast_path(&self, dispatcher: Py<PyAny>, array_type: Py<PyType>, numpy_type: Py<PyType>) {
        let _ = self.fast.set(FastPath { dispatcher, array_type, numpy_type });
    }

    #[pyo3(signature = (*args, **kwargs))]
    fn __call__<'py>(slf: &Bound<'py, Self>, args: &Bound<'py, PyTuple>, kwargs: Option<&Bound<'py, PyDict>>) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        if let Some(fast) = slf.get().fast.get() {
            if kwargs.is_none_or(|k| k.is_empty()) && OFFLOAD_ACTIVE.load(Ordering::SeqCst) == 0 && simple_args(py, fast, args)? {
                return fast.dispatcher.bind(py).call1(args);
            }
        }
        slf.call_method(intern!(py, "_call_slow"), args, kwargs)
    }
}

/// Whether every array argument is a `numba_ext.ndarray` (exactly), all on one queue object with
/// one USM type, and none is a NumPy array.
fn simple_args(py: Python<'_>, fast: &FastPath, args: &Bound<'_, PyTuple>) -> PyResult<bool> {
    let array_type = fast.array_type.bind(py);
    let numpy_type = fast.numpy_type.bind(py);
    let mut first: Option<(Bound<'_, PyAny>, Bound<'_, PyAny>)> = None;
    for a in args.iter() {
        if a.get_type().is(array_type) {
            let q = a.getattr(intern!(py, "_queue"))?;
            let u = a.getattr(intern!(py, "_usm_type"))?;
            match &first {
                None => first = Some((q, u)),
                Some((q0, u0)) => {
                    if !q.is(q0) || !(u.is(u0) || u.eq(u0)?) {
                        return Ok(false);
                    }
                }
            }
        } else if a.is_instance(numpy_type)? || a.is_instance(array_type)? {
            return Ok(false);
        }
    }
    Ok(true)
}
