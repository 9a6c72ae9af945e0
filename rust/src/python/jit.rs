//! The call path of `@numba_ext.jit` functions: `numba_ext.compiler.jit_function.JitFunction` derives from
//! [`JitCaller`], whose `__call__` takes the common case (the fast path of `fast_path.rs`) to the
//! compiled code with no Python frame in between. Everything else goes through the Python method
//! `_call_slow`, which applies compute follows data in full (`numba_ext.placement`). Compiled code checks queue equivalence again on every launch.
//!
//! Numba's dispatcher types arguments it does not know through Python attribute lookups on every
//! call (about half a microsecond per array). So the common case also picks the compiled overload
//! itself when it can: arguments that are numba_ext arrays or Python floats, ints, bools and
//! complexes form a key of their types; the entry point of the overload compiled for exactly those
//! types is cached per key (filled after the dispatcher's first call with that key, through
//! `_fast_entry`; cleared when the dispatcher's overloads are reset). Anything else, or a key with no
//! exactly matching overload, calls the dispatcher.

use std::sync::OnceLock;

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple, PyType};
use pyo3::{PyTraverseError, PyVisit};

use super::fast_path::{self, Others, TypeCache};

struct FastPath {
    dispatcher: Py<PyAny>,
    array_type: Py<PyType>,
    numpy_type: Py<PyType>,
    /// Number of parameters (calls with another count, or with defaults or `*args`, skip the cache).
    nparams: Option<usize>,
    /// The overload's entry point by argument types; None when no overload matches exactly (use the
    /// dispatcher).
    cache: TypeCache<Option<Py<PyAny>>>,
}

/// Most arguments a cache key covers.
const MAX_KEY: usize = 16;

/// Base class of `JitFunction` (see the module documentation).
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

    /// Enable the fast path: calls go to `dispatcher` (or the entry points of its overloads) when the
    /// arguments allow it. `array_type` is `numba_ext.ndarray`, `numpy_type` `numpy.ndarray`;
    /// `nparams` the number of parameters, or None to never use the overload cache.
    fn _set_fast_path(
        &self,
        dispatcher: Py<PyAny>,
        array_type: Py<PyType>,
        numpy_type: Py<PyType>,
        nparams: Option<usize>,
    ) {
        let cache = TypeCache::default();
        let _ = self.fast.set(FastPath { dispatcher, array_type, numpy_type, nparams, cache });
    }

    /// The objects the fast path holds, for the garbage collector: a jitted function and its
    /// dispatcher refer to each other (through the dispatcher's reset hook).
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        if let Some(f) = self.fast.get() {
            visit.call(&f.dispatcher)?;
            visit.call(&f.array_type)?;
            visit.call(&f.numpy_type)?;
            f.cache.traverse(&visit, |v, visit| v.as_ref().map_or(Ok(()), |e| visit.call(e)))?;
        }
        Ok(())
    }

    /// Forget the cached entry points (the dispatcher's overloads were reset).
    fn _clear_fast_cache(&self) {
        if let Some(f) = self.fast.get() {
            f.cache.clear();
        }
    }

    #[pyo3(signature = (*args, **kwargs))]
    fn __call__<'py>(
        slf: &Bound<'py, Self>,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        if let Some(fast) = slf.get().fast.get() {
            if kwargs.is_none_or(|k| k.is_empty()) && !fast_path::offload_active() {
                if let Some(result) = fast_call(slf, fast, args)? {
                    return Ok(result);
                }
            }
        }
        slf.call_method(intern!(py, "_call_slow"), args, kwargs)
    }
}

/// The call through the fast path, or None when it takes the Python path.
fn fast_call<'py>(
    slf: &Bound<'py, JitCaller>,
    fast: &FastPath,
    args: &Bound<'py, PyTuple>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let py = slf.py();
    let mut key = [0usize; MAX_KEY];
    let others = Others::Typed { numpy_type: fast.numpy_type.bind(py) };
    let keyed = fast.nparams == Some(args.len());
    let Some(scan) = fast_path::scan_args(py, fast.array_type.bind(py), args, others, keyed, &mut key)? else {
        return Ok(None);
    };
    let dispatcher = fast.dispatcher.bind(py);
    if !scan.keyed {
        return dispatcher.call1(args).map(Some);
    }
    let key = &key[..args.len()];
    let result = match fast.cache.get(key, |e| e.as_ref().map(|p| p.clone_ref(py))) {
        Some(Some(entry)) => entry.bind(py).call1(args)?,
        Some(None) => dispatcher.call1(args)?,
        None => {
            let result = dispatcher.call1(args)?;
            // only a cache: if it cannot be filled, later calls use the dispatcher
            let _ = remember(slf, fast, args, key);
            result
        }
    };
    Ok(Some(result))
}

/// After the dispatcher's first call with `key`: cache the entry point of the overload compiled
/// for exactly these argument types (or that there is none).
fn remember(slf: &Bound<'_, JitCaller>, fast: &FastPath, args: &Bound<'_, PyTuple>, key: &[usize]) -> PyResult<()> {
    let py = slf.py();
    let keep = fast_path::argument_types(py, fast.array_type.bind(py), args, None)?;
    if keep.iter().zip(key).any(|(o, &k)| o.as_ptr() as usize != k) {
        return Ok(()); // an argument changed type during the call: do not cache
    }
    let entry = slf.call_method1(intern!(py, "_fast_entry"), (args,))?;
    let entry = (!entry.is_none()).then(|| entry.unbind());
    fast.cache.insert(key, keep, entry);
    Ok(())
}
