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
//!
//! Functions served from their source (`numba_ext/functions`, no Numba) have a path of their own
//! ([`source_call`]), tried first: the arguments' kinds key the plan and its native runner
//! (`plan_run.rs`), which runs the call, and the call is counted in the plan's `calls` (at the
//! `NUMBA_EXT_HOT_CALLS`-th call of a plan, the Python method `_count` has Numba compile those types
//! and the plan leaves the cache).

use std::ffi::OsString;
use std::sync::{Mutex, OnceLock};

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyTuple, PyType};
use pyo3::{PyTraverseError, PyVisit};

use super::fast_path::{self, Others, TypeCache};
use super::plan_run::PlanRunner;
use super::runtime::PyQueue;

struct FastPath {
    /// What calls without a cached entry go to; None: the object's own `_dispatch` method (looked
    /// up per call: held here, a bound method of the object would form a cycle through this
    /// extension's fields, which the garbage collector cannot break).
    dispatcher: Option<Py<PyAny>>,
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

/// Calls of a function served from its source (`numba_ext/functions`): the plan and its native
/// runner by argument kinds, without Numba's types (see [`source_call`]).
struct SourcePath {
    array_type: Py<PyType>,
    numpy_type: Py<PyType>,
    /// (plan, runner) by argument kinds; None when the kinds are not served from the source.
    cache: TypeCache<Option<(Py<PyAny>, Py<PlanRunner>)>>,
}

/// Base class of `JitFunction` (see the module documentation).
#[pyclass(name = "JitCaller", module = "numba_ext._core", subclass, frozen)]
pub struct JitCaller {
    fast: OnceLock<FastPath>,
    source: OnceLock<SourcePath>,
}

#[pymethods]
impl JitCaller {
    #[new]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn new(_args: &Bound<'_, PyTuple>, _kwargs: Option<&Bound<'_, PyDict>>) -> Self {
        JitCaller { fast: OnceLock::new(), source: OnceLock::new() }
    }

    /// Enable the fast path: calls go to `dispatcher` (None: the object's `_dispatch` method), or the
    /// entry points of its overloads, when the arguments allow it. `array_type` is
    /// `numba_ext.ndarray`, `numpy_type` `numpy.ndarray`; `nparams` the number of parameters, or None
    /// to never use the overload cache.
    fn _set_fast_path(
        &self,
        dispatcher: Option<Py<PyAny>>,
        array_type: Py<PyType>,
        numpy_type: Py<PyType>,
        nparams: Option<usize>,
    ) {
        let cache = TypeCache::default();
        let _ = self.fast.set(FastPath { dispatcher, array_type, numpy_type, nparams, cache });
    }

    /// Serve calls of the common case (numba_ext arrays on one queue object with one USM type,
    /// Python or NumPy float64 and int64 scalars) from the source path's plans: the Python method
    /// `_source_entry(args)` gives the `(plan, runner)` for arguments of new kinds (or None), the
    /// runner runs the call, the method `_count(plan, args)` counts it. `array_type` is
    /// `numba_ext.ndarray`, `numpy_type` `numpy.ndarray`.
    fn _set_source_path(&self, array_type: Py<PyType>, numpy_type: Py<PyType>) {
        let _ = self.source.set(SourcePath { array_type, numpy_type, cache: TypeCache::default() });
    }

    /// The objects the fast path holds, for the garbage collector: a jitted function and its
    /// dispatcher refer to each other (through the dispatcher's reset hook).
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        if let Some(f) = self.fast.get() {
            if let Some(d) = &f.dispatcher {
                visit.call(d)?;
            }
            visit.call(&f.array_type)?;
            visit.call(&f.numpy_type)?;
            f.cache.traverse(&visit, |v, visit| v.as_ref().map_or(Ok(()), |e| visit.call(e)))?;
        }
        if let Some(s) = self.source.get() {
            visit.call(&s.array_type)?;
            visit.call(&s.numpy_type)?;
            s.cache.traverse(&visit, |v, visit| {
                v.as_ref().map_or(Ok(()), |(plan, runner)| {
                    visit.call(plan)?;
                    visit.call(runner)
                })
            })?;
        }
        Ok(())
    }

    /// Forget the cached entry points and plans (the dispatcher's overloads were reset, the source
    /// was read again, or a plan moved to Numba).
    fn _clear_fast_cache(&self) {
        if let Some(f) = self.fast.get() {
            f.cache.clear();
        }
        if let Some(s) = self.source.get() {
            s.cache.clear();
        }
    }

    #[pyo3(signature = (*args, **kwargs))]
    fn __call__<'py>(
        slf: &Bound<'py, Self>,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        if kwargs.is_none_or(|k| k.is_empty()) && !fast_path::offload_active() {
            if let Some(source) = slf.get().source.get() {
                if let Some(result) = source_call(slf, source, args)? {
                    return Ok(result);
                }
            }
            if let Some(fast) = slf.get().fast.get() {
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
    let dispatch = || match &fast.dispatcher {
        Some(d) => d.bind(py).call1(args),
        None => slf.call_method1(intern!(py, "_dispatch"), args),
    };
    if !scan.keyed {
        return dispatch().map(Some);
    }
    let key = &key[..args.len()];
    let result = match fast.cache.get(key, |e| e.as_ref().map(|p| p.clone_ref(py))) {
        Some(Some(entry)) => entry.bind(py).call1(args)?,
        Some(None) => dispatch()?,
        None => {
            let result = dispatch()?;
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

/// The call through a plan of the source path, or None when it takes another path: the arguments
/// are not the common case, their kinds are not served from the source, or the runner declines
/// (shapes that need Numba's handling, a scalar it cannot convert as the Python path does).
///
/// An array's kind is its dtype and number of dimensions, keyed by the address of its NumPy dtype
/// object plus the number of dimensions (distinct live objects are further apart than any number
/// of dimensions, and the entry keeps the dtype alive); a scalar's is its type, and an int's value
/// must fit in 64 bits (the Python path decides larger ones).
fn source_call<'py>(
    slf: &Bound<'py, JitCaller>,
    source: &SourcePath,
    args: &Bound<'py, PyTuple>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let py = slf.py();
    if args.len() > MAX_KEY {
        return Ok(None);
    }
    let array_type = source.array_type.bind(py);
    let mut key = [0usize; MAX_KEY];
    let mut keep: Vec<Py<PyAny>> = Vec::with_capacity(args.len());
    let mut first: Option<(Bound<'py, PyAny>, Bound<'py, PyAny>)> = None;
    for (i, a) in args.iter().enumerate() {
        let t = a.get_type();
        if t.is(array_type) {
            // an array that cannot be read here (one never initialised) takes the Python path,
            // which raises the error for it
            let read = || -> PyResult<_> {
                let desc = a.getattr(intern!(py, "_desc"))?;
                let ndim: usize = desc.getattr(intern!(py, "ndim"))?.extract()?;
                let dtype = desc.getattr(intern!(py, "dtype"))?;
                Ok((a.getattr(intern!(py, "_queue"))?, a.getattr(intern!(py, "_usm_type"))?, dtype, ndim))
            };
            let Ok((queue, usm, dtype, ndim)) = read() else { return Ok(None) };
            match &first {
                None => first = Some((queue, usm)),
                Some((q, u)) => {
                    if !q.is(&queue) || !(u.is(&usm) || u.eq(&usm)?) {
                        return Ok(None);
                    }
                }
            }
            key[i] = (dtype.as_ptr() as usize).wrapping_add(ndim);
            keep.push(dtype.unbind());
            continue;
        }
        if t.is(source.numpy_type.bind(py)) || a.is_instance(array_type)? {
            return Ok(None);
        }
        if a.is_exact_instance_of::<PyInt>() && a.extract::<i64>().is_err() {
            return Ok(None);
        }
        key[i] = t.as_ptr() as usize;
        keep.push(t.into_any().unbind());
    }
    let Some((queue, _)) = first else { return Ok(None) };
    let Ok(queue) = queue.cast_into::<PyQueue>() else { return Ok(None) };
    let key = &key[..args.len()];
    let entry = match source.cache.get(key, |e| e.as_ref().map(|(p, r)| (p.clone_ref(py), r.clone_ref(py)))) {
        Some(e) => e,
        None => {
            let found = slf.call_method1(intern!(py, "_source_entry"), (args,))?;
            let entry = if found.is_none() {
                None
            } else {
                let (plan, runner): (Py<PyAny>, Py<PlanRunner>) = found.extract()?;
                Some((plan, runner))
            };
            let copy = entry.as_ref().map(|(p, r)| (p.clone_ref(py), r.clone_ref(py)));
            source.cache.insert(key, keep, entry);
            copy
        }
    };
    let Some((plan, runner)) = entry else { return Ok(None) };
    let plan = plan.into_bound(py);
    let result = runner.get().run(args.as_any(), &queue, &plan)?;
    if result.is(py.NotImplemented()) {
        return Ok(None);
    }
    // counted as `_count` counts (it runs when the call reaches the threshold, and counts it)
    let calls: i64 = plan.getattr(intern!(py, "calls"))?.extract::<i64>()?.saturating_add(1);
    let hot = hot_calls(py)?;
    if hot >= 0 && calls >= hot {
        slf.call_method1(intern!(py, "_count"), (plan, args))?;
    } else {
        plan.setattr(intern!(py, "calls"), calls)?;
    }
    Ok(Some(result))
}

/// `NUMBA_EXT_HOT_CALLS` as `numba_ext.functions.jit_function._hot_calls` reads it, asked of that
/// function again only when the variable's value changes (Python's `os.environ` writes through to
/// the process environment read here).
fn hot_calls(py: Python<'_>) -> PyResult<i64> {
    static SEEN: Mutex<Option<(Option<OsString>, i64)>> = Mutex::new(None);
    let raw = std::env::var_os("NUMBA_EXT_HOT_CALLS");
    if let Some((seen, value)) = &*SEEN.lock().unwrap_or_else(|p| p.into_inner()) {
        if *seen == raw {
            return Ok(*value);
        }
    }
    let value: i64 = py
        .import(intern!(py, "numba_ext.functions.jit_function"))?
        .call_method0(intern!(py, "_hot_calls"))?
        .extract()?;
    *SEEN.lock().unwrap_or_else(|p| p.into_inner()) = Some((raw, value));
    Ok(value)
}
