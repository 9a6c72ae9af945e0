//! The launch path of `@numba_ext.kernel` kernels: `numba_ext.kernel.Kernel` derives from
//! [`KernelCaller`], and `kernel[range]` returns a [`KernelLaunch`] whose `__call__` takes the common
//! case to the compiled kernel with no Python frame in between: every array argument a
//! `numba_ext.ndarray` (exactly) on one queue with one USM type, the other arguments Python floats,
//! ints (within int64) and bools, no NumPy array and no `offload_to` active anywhere. The arguments'
//! Numba types (interned, compared by identity; read from the arrays' native images) and the queue
//! form a key; the compiled kernel for a key is cached after the Python launch path
//! (`Kernel.launch`, which applies compute follows data in full, compiles and checks limits) has run
//! once with it (`Kernel._fast_entry`). Argument slots are read straight from the native images.
//! Everything else (other argument kinds, NumPy arrays, mixed queues, asynchronous launches) goes
//! through `Kernel.launch`.

use std::sync::atomic::Ordering;
use std::sync::{Mutex, OnceLock};

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyTuple, PyType};

use super::compiler::PyKernel;
use super::jit::OFFLOAD_ACTIVE;
use super::native::NativeArray;
use super::runtime::PyQueue;

/// Most arguments a cache key covers (longer argument lists take the Python path).
const MAX_ARGS: usize = 32;

struct FastPath {
    array_type: Py<PyType>,
    nparams: usize,
    cache: Mutex<Vec<Entry>>,
}

struct Entry {
    /// Addresses of the argument types (Numba types of arrays, Python types of scalars), then the
    /// address of the queue.
    key: Vec<usize>,
    /// The objects behind `key` (the queue among them), so that the addresses stay theirs.
    _keep: Vec<Py<PyAny>>,
    kernel: Py<PyKernel>,
    queue: Py<PyQueue>,
    /// Largest work-group the device takes (launches naming a larger one take the Python path, which
    /// raises the error).
    max_work_group: usize,
}

/// Base class of `numba_ext.kernel.Kernel` (see the module documentation).
#[pyclass(name = "KernelCaller", module = "numba_ext._core", subclass, frozen)]
pub struct KernelCaller {
    fast: OnceLock<FastPath>,
}

#[pymethods]
impl KernelCaller {
    #[new]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn new(_args: &Bound<'_, PyTuple>, _kwargs: Option<&Bound<'_, pyo3::types::PyDict>>) -> Self {
        KernelCaller { fast: OnceLock::new() }
    }

    /// Enable the fast path for a kernel of `nparams` parameters; `array_type` is `numba_ext.ndarray`.
    fn _set_fast_path(&self, array_type: Py<PyType>, nparams: usize) {
        let _ = self.fast.set(FastPath { array_type, nparams, cache: Mutex::new(Vec::new()) });
    }

    /// Number of cached (argument types, queue) entries.
    fn _fast_cache_len(&self) -> usize {
        self.fast.get().map_or(0, |f| f.cache.lock().unwrap_or_else(|p| p.into_inner()).len())
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

    #[getter]
    fn global_range(&self) -> Vec<usize> {
        self.global.clone()
    }
    #[getter]
    fn local_range(&self) -> Option<Vec<usize>> {
        self.local.clone()
    }

    #[pyo3(signature = (*args))]
    fn __call__<'py>(&self, py: Python<'py>, args: &Bound<'py, PyTuple>) -> PyResult<Bound<'py, PyAny>> {
        let kernel = self.kernel.bind(py);
        if let Some(fast) = kernel.get().fast.get() {
            let mut key = [0usize; MAX_ARGS + 1];
            let mut slots = Vec::with_capacity(3 * args.len());
            if let Some(n) = examine(py, fast, args, &mut key, &mut slots)? {
                let key = &key[..n];
                let hit = {
                    let cache = fast.cache.lock().unwrap_or_else(|p| p.into_inner());
                    cache
                        .iter()
                        .find(|e| e.key == key)
                        .map(|e| (e.kernel.clone_ref(py), e.queue.clone_ref(py), e.max_work_group))
                };
                match hit {
                    Some((k, q, max_wg))
                        if self.local.as_ref().is_none_or(|l| l.iter().product::<usize>() <= max_wg) =>
                    {
                        let (k, q) = (k.get().inner.clone(), q.get().inner.clone());
                        let (global, local) = (&self.global, self.local.as_deref());
                        py.detach(|| k.launch_nd(&q, &slots, global, local))?;
                        return Ok(py.None().into_bound(py));
                    }
                    Some(_) => {}
                    None => {
                        let result = self.launch_slow(kernel, args)?;
                        // only a cache: if it cannot be filled, later launches take the Python path
                        let _ = remember(kernel, fast, args, key);
                        return Ok(result);
                    }
                }
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
    fn launch_slow<'py>(
        &self,
        kernel: &Bound<'py, KernelCaller>,
        args: &Bound<'py, PyTuple>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = kernel.py();
        kernel.call_method1(intern!(py, "launch"), (self.global.clone(), self.local.clone(), args))
    }
}

/// Check the arguments for the common case (see the module documentation), filling `key` with their
/// types and the queue, and `slots` with the kernel's argument slots (an array's data address, shape
/// and byte strides; a scalar's bits). Returns the key's length, or None for the Python path.
fn examine(
    py: Python<'_>,
    fast: &FastPath,
    args: &Bound<'_, PyTuple>,
    key: &mut [usize; MAX_ARGS + 1],
    slots: &mut Vec<u64>,
) -> PyResult<Option<usize>> {
    let n = args.len();
    if n != fast.nparams || n > MAX_ARGS || OFFLOAD_ACTIVE.load(Ordering::SeqCst) != 0 {
        return Ok(None);
    }
    let array_type = fast.array_type.bind(py);
    let mut first: Option<(usize, u32)> = None;
    for (i, a) in args.iter().enumerate() {
        let t = a.get_type();
        if t.is(array_type) {
            let nx = a.getattr(intern!(py, "_nx"))?;
            let Ok(nx) = nx.cast::<NativeArray>() else { return Ok(None) };
            let img = nx.get();
            let here = (img.queue(), img.usm_code());
            match first {
                None => first = Some(here),
                Some(f) if f != here => return Ok(None),
                _ => {}
            }
            key[i] = img.numba_type(&a)?.as_ptr() as usize;
            img.push_slots(slots);
        } else if a.is_exact_instance_of::<PyFloat>() {
            key[i] = t.as_ptr() as usize;
            slots.push(a.extract::<f64>()?.to_bits());
        } else if a.is_exact_instance_of::<PyBool>() {
            key[i] = t.as_ptr() as usize;
            slots.push(a.is_truthy()? as u64);
        } else if a.is_exact_instance_of::<PyInt>() {
            let Ok(v) = a.extract::<i64>() else { return Ok(None) };
            key[i] = t.as_ptr() as usize;
            slots.push(v as u64);
        } else {
            return Ok(None);
        }
    }
    let Some((queue, _)) = first else { return Ok(None) }; // no array: the Python path explains
    key[n] = queue;
    Ok(Some(n + 1))
}

/// After a Python launch with `key`: cache the compiled kernel and queue it used.
fn remember(
    kernel: &Bound<'_, KernelCaller>,
    fast: &FastPath,
    args: &Bound<'_, PyTuple>,
    key: &[usize],
) -> PyResult<()> {
    let py = kernel.py();
    let array_type = fast.array_type.bind(py);
    let mut keep = args
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
    let entry = kernel.call_method1(intern!(py, "_fast_entry"), (args,))?;
    if entry.is_none() {
        return Ok(());
    }
    let (k, q, max_work_group): (Bound<'_, PyKernel>, Bound<'_, PyQueue>, usize) = entry.extract()?;
    keep.push(q.clone().into_any().unbind());
    let now: Vec<usize> = keep.iter().map(|o| o.as_ptr() as usize).collect();
    let (types, queue) = key.split_at(key.len() - 1);
    if now[..now.len() - 1] != *types || q.get().inner.as_ptr() as usize != queue[0] {
        return Ok(()); // an argument changed during the launch: do not cache
    }
    let mut cache = fast.cache.lock().unwrap_or_else(|p| p.into_inner());
    if !cache.iter().any(|e| e.key == key) {
        cache.push(Entry { key: key.to_vec(), _keep: keep, kernel: k.unbind(), queue: q.unbind(), max_work_group });
    }
    Ok(())
}
