//! The Python `Queue` object of each queue, found by queue address through weak references: arrays
//! returned from compiled code (which know only the address) carry the very queue object their
//! inputs had.

use std::ffi::c_void;
use std::sync::Mutex;

use pyo3::prelude::*;
use pyo3::types::PyWeakrefReference;

use super::runtime::PyQueue;
use crate::runtime::FastMap;

static QUEUES: Mutex<Option<FastMap<usize, Py<PyWeakrefReference>>>> = Mutex::new(None);

fn with_queues<R>(f: impl FnOnce(&mut FastMap<usize, Py<PyWeakrefReference>>) -> R) -> R {
    let mut g = QUEUES.lock().unwrap_or_else(|p| p.into_inner());
    f(g.get_or_insert_with(FastMap::default))
}

fn lookup(py: Python<'_>, handle: usize) -> Option<Bound<'_, PyQueue>> {
    let r = with_queues(|m| m.get(&handle).map(|w| w.clone_ref(py)))?;
    r.bind(py).upgrade()?.cast_into::<PyQueue>().ok()
}

/// Make `q` the Python object that arrays on its queue returned from compiled code carry (the object
/// registered last wins; arrays made in Python register theirs). Returns the queue's handle.
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

/// C ABI: the handle of the `numba_ext.Queue` object `obj` (registered, so the same object comes
/// back when compiled code returns the queue). Null with a Python error set when `obj` is not a
/// queue.
///
/// # Safety
/// `obj` is a live Python object and the caller holds the GIL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nx_queue_unbox(obj: *mut pyo3::ffi::PyObject) -> *const c_void {
    Python::attach(|py| {
        let obj = unsafe { Bound::from_borrowed_ptr(py, obj) };
        let r = obj.cast::<PyQueue>().map_err(PyErr::from).and_then(register_queue);
        match r {
            Ok(h) => h as *const c_void,
            Err(e) => {
                e.restore(py);
                std::ptr::null()
            }
        }
    })
}

/// C ABI: a new reference to the Python object of the queue at `handle` (see [`queue_object`]).
/// Null with a Python error set when `handle` is null.
///
/// # Safety
/// `handle` is null or the address of a live queue; the caller holds the GIL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nx_queue_box(handle: *const c_void) -> *mut pyo3::ffi::PyObject {
    Python::attach(|py| {
        let r = if handle.is_null() {
            Err(pyo3::exceptions::PyRuntimeError::new_err("a queue returned from compiled code is null"))
        } else {
            unsafe { queue_object(py, handle as usize) }
        };
        match r {
            Ok(q) => q.into_any().into_ptr(),
            Err(e) => {
                e.restore(py);
                std::ptr::null_mut()
            }
        }
    })
}
