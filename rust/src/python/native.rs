//! The native side of `numba_ext.ndarray` for compiled code: cheap unboxing and boxing.
//!
//! An array's *native image* ([`NativeArray`], kept in the array's `_nx` slot) holds the words of
//! Numba's array struct for `USMArrayType` (meminfo, parent, nitems, itemsize, data, shape, strides,
//! queue) together with one reference to the meminfo. Unboxing (`nx_unbox`) copies the words and takes
//! one more meminfo reference, instead of running Numba's NumPy adaptor and replacing its meminfo on
//! every call. Boxing (`nx_box`) wraps a result struct in a new image and a bare `numba_ext.ndarray`
//! (its NumPy descriptor is made on first use), instead of a NumPy array plus a Python-level wrapper.
//!
//! The Python `Queue` object of a queue is found through a registry of weak references by queue
//! address, so arrays returned from compiled code carry the very queue object their inputs had.

use std::ffi::c_void;
use std::sync::Mutex;

use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyTuple, PyWeakrefReference};
use pyo3::{ffi, intern};

use super::nrt;
use crate::runtime::FastMap;
use super::runtime::PyQueue;

/// Words of the array struct before `shape`: meminfo, parent, nitems, itemsize, data.
const HEAD: usize = 5;

fn nwords(ndim: usize) -> usize {
    HEAD + 2 * ndim + 1
}

/// The native image of one array (see the module documentation). Owns one meminfo reference.
#[pyclass(name = "NativeArray", module = "numba_ext._core", frozen)]
pub struct NativeArray {
    words: Box<[u64]>,
    /// NumPy type string of the elements and read-only flag, for `__array_interface__`.
    typestr: Py<PyAny>,
    readonly: bool,
}

impl Drop for NativeArray {
    fn drop(&mut self) {
        unsafe { nrt::release(self.words[0] as *mut c_void) };
    }
}

impl NativeArray {
    fn rank(&self) -> usize {
        (self.words.len() - HEAD - 1) / 2
    }
}

#[pymethods]
impl NativeArray {
    /// The image of an array whose memory is owned by `owner` (its NumPy descriptor): a new meminfo
    /// keeps `owner` alive and records `queue`; `owner` is also the struct's `parent`.
    #[new]
    #[pyo3(signature = (owner, queue, data, shape, strides, itemsize, typestr, readonly))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        owner: &Bound<'_, PyAny>,
        queue: &Bound<'_, PyQueue>,
        data: usize,
        shape: Vec<i64>,
        strides: Vec<i64>,
        itemsize: i64,
        typestr: Py<PyAny>,
        readonly: bool,
    ) -> PyResult<Self> {
        if shape.len() != strides.len() {
            return Err(PyTypeError::new_err("shape and strides differ in length"));
        }
        register_queue(queue)?;
        let q = &queue.get().inner;
        let mi = nrt::new_meminfo(q, nrt::Keep::Py(owner.clone().into_ptr()));
        let mut words = Vec::with_capacity(nwords(shape.len()));
        words.extend([mi as u64, owner.as_ptr() as u64, shape.iter().product::<i64>() as u64, itemsize as u64, data as u64]);
        words.extend(shape.iter().map(|&s| s as u64));
        words.extend(strides.iter().map(|&s| s as u64));
        words.push(q.as_ptr() as u64);
        Ok(NativeArray { words: words.into_boxed_slice(), typestr, readonly })
    }

    #[getter]
    fn ndim(&self) -> usize {
        self.rank()
    }
    #[getter]
    fn data(&self) -> usize {
        self.words[4] as usize
    }
    #[getter]
    fn shape(&self) -> Vec<i64> {
        let n = self.rank();
        self.words[HEAD..HEAD + n].iter().map(|&w| w as i64).collect()
    }
    #[getter]
    fn strides(&self) -> Vec<i64> {
        let n = self.rank();
        self.words[HEAD + n..HEAD + 2 * n].iter().map(|&w| w as i64).collect()
    }
    /// Address of the Rust queue (the `_handle` of its Python object).
    #[getter]
    fn queue_handle(&self) -> usize {
        *self.words.last().unwrap() as usize
    }

    /// NumPy's description of the memory; NumPy keeps this image alive as the base of the arrays it
    /// makes from it (the descriptor of an array returned from compiled code).
    #[getter]
    fn __array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
        let d = pyo3::types::PyDict::new(py);
        d.set_item("data", (self.data(), self.readonly))?;
        d.set_item("shape", PyTuple::new(py, self.shape())?)?;
        d.set_item("strides", PyTuple::new(py, self.strides())?)?;
        d.set_item("typestr", self.typestr.bind(py))?;
        d.set_item("version", 3)?;
        Ok(d)
    }
}

// -- Python queue objects by queue address ----------------------------------------------------------

static QUEUES: Mutex<Option<FastMap<usize, Py<PyWeakrefReference>>>> = Mutex::new(None);

fn with_queues<R>(f: impl FnOnce(&mut FastMap<usize, Py<PyWeakrefReference>>) -> R) -> R {
    let mut g = QUEUES.lock().unwrap_or_else(|p| p.into_inner());
    f(g.get_or_insert_with(FastMap::default))
}

fn lookup(py: Python<'_>, handle: usize) -> Option<Bound<'_, PyQueue>> {
    let r = with_queues(|m| m.get(&handle).map(|w| w.clone_ref(py)))?;
    r.bind(py).upgrade()?.cast_into::<PyQueue>().ok()
}

/// Make `q` the Python object that arrays on its queue returned from compiled code carry (unless one
/// is registered and alive already... in which case the latest one wins, as for arrays made in
/// Python). Returns the queue's handle.
pub fn register_queue(q: &Bound<'_, PyQueue>) -> PyResult<usize> {
    let py = q.py();
    let handle = q.get().inner.as_ptr() as usize;
    if lookup(py, handle).is_some_and(|o| o.is(q)) {
        return Ok(handle);
    }
    let w = PyWeakrefReference::new(q)?.unbind(); // outside the lock: this may run Python code
    let old = with_queues(|m| {
        let old = m.insert(handle, w);
        // Entries of queues that are gone: prune now and then.
        let n = m.len();
        let stale = if n >= 64 && n.is_power_of_two() {
            let dead: Vec<usize> = m.iter().filter(|(_, w)| w.bind(py).upgrade().is_none()).map(|(k, _)| *k).collect();
            dead.into_iter().filter_map(|k| m.remove(&k)).collect()
        } else {
            vec![]
        };
        (old, stale)
    });
    drop(old); // decrefs outside the lock
    Ok(handle)
}

/// The Python object of the queue at `handle` (the registered one, or a new one, then registered).
///
/// # Safety
/// `handle` is the address of a live queue.
pub unsafe fn queue_object(py: Python<'_>, handle: usize) -> PyResult<Bound<'_, PyQueue>> {
    if let Some(q) = lookup(py, handle) {
        return Ok(q);
    }
    let inner = unsafe { crate::runtime::Queue::from_ptr(handle as *const c_void) };
    let q = Bound::new(py, PyQueue { inner })?;
    register_queue(&q)?;
    Ok(q)
}

/// Register `queue` (see [`register_queue`]); returns its handle.
#[pyfunction]
pub fn _register_queue(queue: &Bound<'_, PyQueue>) -> PyResult<usize> {
    register_queue(queue)
}

/// The Python object of the queue with handle `handle` (which must belong to a live queue).
#[pyfunction]
pub fn _queue_object(py: Python<'_>, handle: usize) -> PyResult<Bound<'_, PyQueue>> {
    if handle == 0 {
        return Err(PyRuntimeError::new_err("null queue handle"));
    }
    unsafe { queue_object(py, handle) }
}

// -- C ABI for compiled code -----------------------------------------------------------------------

/// Fill the array struct at `out` (`ndim` dimensions) from `obj`'s native image (`obj._nx`, made on
/// first use) and take one meminfo reference for it. 0 on success, -1 with a Python error set.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nx_unbox(obj: *mut ffi::PyObject, out: *mut u64, ndim: u32) -> i32 {
    Python::attach(|py| {
        let obj = unsafe { Bound::from_borrowed_ptr(py, obj) };
        let r = obj.getattr(intern!(py, "_nx")).and_then(|nx| {
            let nx = nx.cast_into::<NativeArray>().map_err(PyErr::from)?;
            let w = &nx.get().words;
            if w.len() != nwords(ndim as usize) {
                return Err(PyTypeError::new_err(format!("array of {} dimensions where {ndim} were expected", nx.get().rank())));
            }
            unsafe {
                std::ptr::copy_nonoverlapping(w.as_ptr(), out, w.len());
                nrt::acquire(w[0] as *mut c_void);
            }
            Ok(())
        });
        match r {
            Ok(()) => 0,
            Err(e) => {
                e.restore(py);
                -1
            }
        }
    })
}

/// A new `numba_ext.ndarray` for the array struct at `words` (`ndim` dimensions), taking over the
/// struct's meminfo reference. `info` is the tuple `(cls, usm_type, numba_type or None, typestr,
/// readonly)` of the boxed type. Null with a Python error set on failure.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nx_box(words: *const u64, ndim: u32, info: *mut ffi::PyObject) -> *mut ffi::PyObject {
    Python::attach(|py| {
        let words: Box<[u64]> = unsafe { std::slice::from_raw_parts(words, nwords(ndim as usize)) }.into();
        let queue = *words.last().unwrap() as usize;
        let r = (|| -> PyResult<Bound<'_, PyAny>> {
            let info = unsafe { Bound::from_borrowed_ptr(py, info) };
            let parsed = info.cast::<PyTuple>().map_err(PyErr::from).and_then(|t| {
                Ok((t.get_item(0)?, t.get_item(1)?, t.get_item(2)?, t.get_item(3)?, t.get_item(4)?.is_truthy()?))
            });
            let (cls, usm, nbtype, typestr, readonly) = match parsed {
                Ok(p) => p,
                Err(e) => {
                    unsafe { nrt::release(words[0] as *mut c_void) }; // the reference we were given
                    return Err(e);
                }
            };
            // from here on the image owns the reference (also when this fails)
            let nx = Bound::new(py, NativeArray { words, typestr: typestr.unbind(), readonly })?;
            if queue == 0 {
                return Err(PyRuntimeError::new_err("a USM array returned from compiled code has no queue"));
            }
            let q = unsafe { queue_object(py, queue) }?;
            let cls = cls.cast_into::<pyo3::types::PyType>().map_err(PyErr::from)?;
            let obj = unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyType_GenericAlloc(cls.as_type_ptr(), 0))? };
            obj.setattr(intern!(py, "_nx"), nx)?;
            obj.setattr(intern!(py, "_queue"), q)?;
            obj.setattr(intern!(py, "_usm_type"), usm)?;
            if !nbtype.is_none() {
                obj.setattr(intern!(py, "_numba_type_"), nbtype)?;
            }
            Ok(obj)
        })();
        match r {
            Ok(o) => o.into_ptr(),
            Err(e) => {
                e.restore(py);
                std::ptr::null_mut()
            }
        }
    })
}
