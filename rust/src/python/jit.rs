//! The call path of `@numba_ext.jit` functions: `numba_ext.compiler.jit_function.JitFunction` derives from
//! [`JitCaller`], whose `__call__` takes the common case (every array argument a `numba_ext.ndarray`
//! on one queue with one USM type, no NumPy array, no `offload_to` active anywhere) to the
//! compiled code with no Python frame in between. Everything else goes through the Python method
//! `_call_slow` (`numba_ext/compiler/jit_function.py`), which applies compute follows data in full
//! (`numba_ext/placement/calls.py`). Compiled code checks queue equivalence again on every launch.
//!
//! Numba's dispatcher types arguments it does not know through Python attribute lookups on every
//! call (about half a microsecond per array). So the common case also picks the compiled overload
//! itself when it can: arguments that are numba_ext arrays (typed by their `_numba_type_`, an
//! interned Numba type, compared by identity) or Python floats, ints, bools and complexes (typed as
//! Numba's `typeof` does) form a key; the entry point of the overload compiled for exactly those
//! types is cached per key (filled after the dispatcher's first call with that key, through
//! `_fast_entry`; cleared when the dispatcher's overloads are reset). Anything else, or a key with no
//! exactly matching overload, calls the dispatcher.

use std::sync::atomic::{AtomicIsize, Ordering};
use std::sync::{Mutex, OnceLock};

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyComplex, PyDict, PyFloat, PyInt, PyTuple, PyType};

use super::native::NativeArray;

/// Number of `offload_to` contexts entered and not yet left, in all threads.
pub(super) static OFFLOAD_ACTIVE: AtomicIsize = AtomicIsize::new(0);

/// Count `offload_to` contexts (`delta` +1 on entry, -1 on exit).
#[pyfunction]
pub fn _offload_active(delta: isize) -> isize {
    OFFLOAD_ACTIVE.fetch_add(delta, Ordering::SeqCst) + delta
}

struct FastPath {
    dispatcher: Py<PyAny>,
    array_type: Py<PyType>,
    numpy_type: Py<PyType>,
    /// Number of parameters (calls with another count, or with defaults or `*args`, skip the cache).
    nparams: Option<usize>,
    cache: Mutex<Vec<Entry>>,
}

/// Most arguments a cache key covers.
const MAX_KEY: usize = 16;

struct Entry {
    /// Addresses of the argument types (Numba types of arrays, Python types of scalars).
    key: Vec<usize>,
    /// The objects behind `key`, so that the addresses stay theirs.
    _keep: Vec<Py<PyAny>>,
    /// The overload's entry point; None when no overload matches exactly (use the dispatcher).
    entry: Option<Py<PyAny>>,
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
        let _ = self.fast.set(FastPath { dispatcher, array_type, numpy_type, nparams, cache: Mutex::new(Vec::new()) });
    }

    /// Forget the cached entry points (the dispatcher's overloads were reset).
    fn _clear_fast_cache(&self) {
        if let Some(f) = self.fast.get() {
            let old = std::mem::take(&mut *f.cache.lock().unwrap_or_else(|p| p.into_inner()));
            drop(old); // decrefs after the lock is released
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
            if kwargs.is_none_or(|k| k.is_empty()) && OFFLOAD_ACTIVE.load(Ordering::SeqCst) == 0 {
                let mut key = [0usize; MAX_KEY];
                match examine(py, fast, args, &mut key)? {
                    Args::Slow => {}
                    Args::Simple { keyed: false } => return fast.dispatcher.bind(py).call1(args),
                    Args::Simple { keyed: true } => {
                        let key = &key[..args.len()];
                        let hit = {
                            let cache = fast.cache.lock().unwrap_or_else(|p| p.into_inner());
                            cache.iter().find(|e| e.key == key).map(|e| e.entry.as_ref().map(|p| p.clone_ref(py)))
                        };
                        return match hit {
                            Some(Some(entry)) => entry.bind(py).call1(args),
                            Some(None) => fast.dispatcher.bind(py).call1(args),
                            None => {
                                let result = fast.dispatcher.bind(py).call1(args)?;
                                // only a cache: if it cannot be filled, later calls use the dispatcher
                                let _ = remember(slf, fast, args, key);
                                Ok(result)
                            }
                        };
                    }
                }
            }
        }
        slf.call_method(intern!(py, "_call_slow"), args, kwargs)
    }
}

enum Args {
    /// Not the common case: take the full compute-follows-data path.
    Slow,
    /// The common case; `keyed`: `key` holds the argument types.
    Simple { keyed: bool },
}

/// Check the arguments: the common case is every array argument a `numba_ext.ndarray` (exactly), all
/// on one queue with one USM type, and none a NumPy array. Fill `key` on the way. Arrays are read
/// through their native images (made here on first use, as unboxing would).
fn examine(py: Python<'_>, fast: &FastPath, args: &Bound<'_, PyTuple>, key: &mut [usize; MAX_KEY]) -> PyResult<Args> {
    let array_type = fast.array_type.bind(py);
    let numpy_type = fast.numpy_type.bind(py);
    let mut keyed = fast.nparams == Some(args.len()) && args.len() <= MAX_KEY;
    let mut first: Option<(usize, u32)> = None;
    for (i, a) in args.iter().enumerate() {
        let t = a.get_type();
        if t.is(array_type) {
            let nx = a.getattr(intern!(py, "_nx"))?;
            let Ok(nx) = nx.cast::<NativeArray>() else { return Ok(Args::Slow) };
            let n = nx.get();
            let here = (n.queue(), n.usm_code());
            match first {
                None => first = Some(here),
                Some(f) if f != here => return Ok(Args::Slow),
                _ => {}
            }
            if keyed {
                // an interned Numba type, kept alive by the image (and by the cache entry)
                key[i] = n.numba_type(&a)?.as_ptr() as usize;
            }
            continue;
        }
        if a.is_instance(numpy_type)? || a.is_instance(array_type)? {
            return Ok(Args::Slow);
        }
        if keyed {
            keyed = scalar_keyable(&a);
            key[i] = t.as_ptr() as usize;
        }
    }
    Ok(Args::Simple { keyed })
}

/// Python scalars whose Numba type depends only on their Python type: float, bool, complex, and int
/// within int64 (Numba types those int64; others uint64 or not at all).
fn scalar_keyable(a: &Bound<'_, PyAny>) -> bool {
    if a.is_exact_instance_of::<PyFloat>()
        || a.is_exact_instance_of::<PyBool>()
        || a.is_exact_instance_of::<PyComplex>()
    {
        return true;
    }
    if a.is_exact_instance_of::<PyInt>() {
        return a.extract::<i64>().is_ok_and(|v| v != i64::MIN);
    }
    false
}

/// After the dispatcher's first call with `key`: cache the entry point of the overload compiled
/// for exactly these argument types (or that there is none).
fn remember(slf: &Bound<'_, JitCaller>, fast: &FastPath, args: &Bound<'_, PyTuple>, key: &[usize]) -> PyResult<()> {
    let py = slf.py();
    let array_type = fast.array_type.bind(py);
    let keep = args
        .iter()
        .map(|a| {
            if a.get_type().is(array_type) {
                let nx = a.getattr(intern!(py, "_nx"))?;
                let nx = nx.cast::<NativeArray>().map_err(PyErr::from)?;
                Ok(nx.get().numba_type(&a)?.to_owned().unbind())
            } else {
                Ok(a.get_type().into_any().unbind())
            }
        })
        .collect::<PyResult<Vec<_>>>()?;
    if keep.iter().zip(key).any(|(o, &k)| o.as_ptr() as usize != k) {
        return Ok(()); // an argument changed type during the call: do not cache
    }
    let entry = slf.call_method1(intern!(py, "_fast_entry"), (args,))?;
    let entry = (!entry.is_none()).then(|| entry.unbind());
    let mut cache = fast.cache.lock().unwrap_or_else(|p| p.into_inner());
    if !cache.iter().any(|e| e.key == key) {
        cache.push(Entry { key: key.to_vec(), _keep: keep, entry });
    }
    Ok(())
}
