//! The launch path of `@numba_ext.kernel` kernels: `numba_ext.kernels.kernel.Kernel` derives from
//! [`KernelCaller`], and `kernel[range]` returns a [`KernelLaunch`] whose `__call__` takes the common
//! case (the fast path of `fast_path.rs`, with Python floats, ints within int64 and bools as the
//! other arguments, and at least one array) to the compiled kernel with no Python frame in between.
//! The arguments' types and the queue form a key; the compiled kernel for a key is cached after the
//! Python launch path (`Kernel.launch`, which applies compute follows data in full, compiles and
//! checks limits) has run once with it (`Kernel._fast_entry`). Argument slots are read straight from
//! the native images. Everything else (other argument kinds, NumPy arrays, mixed queues,
//! asynchronous launches) goes through `Kernel.launch`.

use std::sync::OnceLock;

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple, PyType};
use pyo3::{PyTraverseError, PyVisit};

use super::compiler::PyKernel;
use super::fast_path::{self, Others, Range, TypeCache};
use super::runtime::PyQueue;
use crate::runtime::Slots;

/// Most arguments a cache key covers (longer argument lists take the Python path).
const MAX_ARGS: usize = 32;

struct FastPath {
    array_type: Py<PyType>,
    /// `LocalAccessor`: arguments of this type pass no slot and are keyed by identity.
    local_type: Option<Py<PyType>>,
    nparams: usize,
    /// By argument types, then the address of the queue.
    cache: TypeCache<Entry>,
}

struct Entry {
    kernel: Py<PyKernel>,
    queue: Py<PyQueue>,
    /// Largest work-group the device takes (launches naming a larger one take the Python path, which
    /// raises the error).
    max_work_group: usize,
}

/// Base class of `Kernel` (see the module documentation).
#[pyclass(name = "KernelCaller", module = "numba_ext._core", subclass, frozen)]
pub struct KernelCaller {
    fast: OnceLock<FastPath>,
}

#[pymethods]
impl KernelCaller {
    #[new]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn new(_args: &Bound<'_, PyTuple>, _kwargs: Option<&Bound<'_, PyDict>>) -> Self {
        KernelCaller { fast: OnceLock::new() }
    }

    /// Enable the fast path for a kernel of `nparams` parameters; `array_type` is `numba_ext.ndarray`,
    /// `local_type` the class of work-group memory arguments (interned per shape and dtype).
    #[pyo3(signature = (array_type, nparams, local_type = None))]
    fn _set_fast_path(&self, array_type: Py<PyType>, nparams: usize, local_type: Option<Py<PyType>>) {
        let _ = self.fast.set(FastPath { array_type, local_type, nparams, cache: TypeCache::default() });
    }

    /// The objects the fast path holds, for the garbage collector.
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        if let Some(f) = self.fast.get() {
            visit.call(&f.array_type)?;
            if let Some(t) = &f.local_type {
                visit.call(t)?;
            }
            f.cache.traverse(&visit, |e, visit| {
                visit.call(&e.kernel)?;
                visit.call(&e.queue)
            })?;
        }
        Ok(())
    }

    /// Number of cached (argument types, queue) entries.
    fn _fast_cache_len(&self) -> usize {
        self.fast.get().map_or(0, |f| f.cache.len())
    }
}

/// `kernel[range]`: a kernel with its launch range; calling it launches and waits.
#[pyclass(name = "KernelLaunch", module = "numba_ext._core", frozen)]
pub struct KernelLaunch {
    kernel: Py<KernelCaller>,
    global: Vec<usize>,
    local: Option<Vec<usize>>,
}

#[pymethods]
impl KernelLaunch {
    #[new]
    #[pyo3(signature = (kernel, global_range, local_range = None))]
    fn new(kernel: Py<KernelCaller>, global_range: Vec<usize>, local_range: Option<Vec<usize>>) -> Self {
        KernelLaunch { kernel, global: global_range, local: local_range }
    }

    /// The kernel, for the garbage collector (a kernel caches its launch objects).
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.kernel)
    }

    #[getter]
    fn global_range(&self) -> Vec<usize> {
        self.global.clone()
    }
    #[getter]
    fn local_range(&self) -> Option<Vec<usize>> {
        self.local.clone()
    }

    #[pyo3(signature = (*args, **kwargs))]
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let kernel = self.kernel.bind(py);
        if let Some(kw) = kwargs.filter(|k| !k.is_empty()) {
            // keyword arguments bind in Python
            let opts = PyDict::new(py);
            opts.set_item(intern!(py, "kwargs"), kw)?;
            let call = (self.global.clone(), self.local.clone(), args);
            return kernel.call_method(intern!(py, "launch"), call, Some(&opts));
        }
        if let Some(fast) = kernel.get().fast.get() {
            if let Some(result) = self.fast_launch(kernel, fast, args)? {
                return Ok(result);
            }
        }
        self.launch_slow(kernel, args)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let k = self.kernel.bind(py).repr()?;
        Ok(format!("{k}[{:?}, {:?}]", self.global, self.local))
    }
}

impl KernelLaunch {
    /// The launch through the fast path, or None when it takes the Python path.
    fn fast_launch<'py>(
        &self,
        kernel: &Bound<'py, KernelCaller>,
        fast: &FastPath,
        args: &Bound<'py, PyTuple>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let py = kernel.py();
        let n = args.len();
        if n != fast.nparams || n > MAX_ARGS || fast_path::offload_active() {
            return Ok(None);
        }
        let mut key = [0usize; MAX_ARGS + 2];
        let mut slots = Slots::new();
        let array_type = fast.array_type.bind(py);
        let local_type = fast.local_type.as_ref().map(|t| t.bind(py));
        let others = Others::Slots { slots: &mut slots, local_type };
        let scan = fast_path::scan_args(py, array_type, args, others, true, &mut key[..n])?;
        // without an array argument, the Python path explains
        let Some(queue) = scan.and_then(|s| s.queue) else { return Ok(None) };
        key[n] = queue;
        // kernels compile per launch rank (and item-style ones per Range / NdRange)
        key[n + 1] = self.global.len() | (usize::from(self.local.is_some()) << 2);
        let key = &key[..n + 2];
        let hit = fast.cache.get(key, |e| (e.kernel.clone_ref(py), e.queue.clone_ref(py), e.max_work_group));
        match hit {
            Some((k, q, max_wg)) if self.local.as_ref().is_none_or(|l| l.iter().product::<usize>() <= max_wg) => {
                let range = Range::Nd { global: &self.global, local: self.local.as_deref() };
                fast_path::launch(py, &k.get().inner, &q.get().inner, slots.as_slice(), range)?;
                Ok(Some(py.None().into_bound(py)))
            }
            Some(_) => Ok(None),
            None => {
                let result = self.launch_slow(kernel, args)?;
                // only a cache: if it cannot be filled, later launches take the Python path
                let _ = remember(kernel, fast, args, key, (&self.global, &self.local));
                Ok(Some(result))
            }
        }
    }

    fn launch_slow<'py>(
        &self,
        kernel: &Bound<'py, KernelCaller>,
        args: &Bound<'py, PyTuple>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = kernel.py();
        kernel.call_method1(intern!(py, "launch"), (self.global.clone(), self.local.clone(), args))
    }
}

/// After a Python launch with `key`: cache the compiled kernel and queue it used.
fn remember(
    kernel: &Bound<'_, KernelCaller>,
    fast: &FastPath,
    args: &Bound<'_, PyTuple>,
    key: &[usize],
    ranges: (&Vec<usize>, &Option<Vec<usize>>),
) -> PyResult<()> {
    let py = kernel.py();
    let local_type = fast.local_type.as_ref().map(|t| t.bind(py));
    let mut keep = fast_path::argument_types(py, fast.array_type.bind(py), args, local_type)?;
    let entry = kernel.call_method1(intern!(py, "_fast_entry"), (args, ranges.0.clone(), ranges.1.clone()))?;
    if entry.is_none() {
        return Ok(());
    }
    let (k, q, max_work_group): (Bound<'_, PyKernel>, Bound<'_, PyQueue>, usize) = entry.extract()?;
    let (types, queue) = key[..key.len() - 1].split_at(key.len() - 2);
    let unchanged = keep.iter().map(|o| o.as_ptr() as usize).eq(types.iter().copied());
    if !unchanged || q.get().inner.as_ptr() as usize != queue[0] {
        return Ok(()); // an argument changed during the launch: do not cache
    }
    keep.push(q.clone().into_any().unbind());
    fast.cache.insert(key, keep, Entry { kernel: k.unbind(), queue: q.unbind(), max_work_group });
    Ok(())
}
