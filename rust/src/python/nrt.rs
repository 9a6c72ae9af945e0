//! Bridge to Numba's runtime (NRT): the meminfos that own numba_ext arrays inside compiled code.
//!
//! Every meminfo of a numba_ext array is made here, through NRT's external API (`manage_memory`),
//! with an [`Owner`] as its data: the owner keeps the memory alive (a USM allocation, or the Python
//! object of an unboxed array) and records the array's queue. Views that Numba builds share the
//! meminfo, so `nx_meminfo_queue` recovers the queue of any array struct from its meminfo.

use std::ffi::c_void;
use std::sync::OnceLock;

use pyo3::prelude::*;

use crate::runtime::{Allocation, Queue};

#[repr(C)]
struct NrtApi {
    allocate: *const c_void,
    allocate_external: *const c_void,
    manage_memory: unsafe extern "C" fn(*mut c_void, unsafe extern "C" fn(*mut c_void)) -> *mut c_void,
    acquire: unsafe extern "C" fn(*mut c_void),
    release: unsafe extern "C" fn(*mut c_void),
    get_data: unsafe extern "C" fn(*mut c_void) -> *mut c_void,
}

struct ApiPtr(&'static NrtApi);
unsafe impl Send for ApiPtr {}
unsafe impl Sync for ApiPtr {}
static API: OnceLock<ApiPtr> = OnceLock::new();

/// Called once at import with the address of `NRT_get_api` (from `numba.core.runtime._nrt_python`).
#[pyfunction]
pub fn _set_nrt_api(get_api: usize) -> PyResult<()> {
    let f: unsafe extern "C" fn() -> *const NrtApi = unsafe { std::mem::transmute(get_api) };
    let api = unsafe { f() };
    if api.is_null() {
        return Err(pyo3::exceptions::PyRuntimeError::new_err("NRT_get_api returned NULL"));
    }
    let _ = API.set(ApiPtr(unsafe { &*api }));
    Ok(())
}

fn api() -> &'static NrtApi {
    API.get().expect("numba_ext: the NRT API is registered at import").0
}

const MAGIC: u64 = u64::from_le_bytes(*b"nx_usm01");

pub enum Keep {
    /// Memory allocated by compiled code.
    Alloc(Allocation),
    /// A Python object that owns the memory (an unboxed array's descriptor).
    Py(*mut pyo3::ffi::PyObject),
}

#[repr(C)]
struct Owner {
    magic: u64,
    queue: *const c_void,
    keep: Keep,
}

unsafe extern "C" fn owner_dtor(data: *mut c_void) {
    let owner = unsafe { Box::from_raw(data as *mut Owner) };
    // the queue reference taken in `new_meminfo`
    unsafe { Queue::release_ptr(owner.queue) };
    match owner.keep {
        Keep::Alloc(a) => drop(a),
        Keep::Py(obj) => Python::attach(|_| unsafe { pyo3::ffi::Py_DecRef(obj) }),
    }
}

/// A new meminfo (one reference) owning `keep` and recording `queue`.
pub fn new_meminfo(queue: &Queue, keep: Keep) -> *mut c_void {
    let q = queue.retain_ptr();
    let owner = Box::new(Owner { magic: MAGIC, queue: q, keep });
    unsafe { (api().manage_memory)(Box::into_raw(owner) as *mut c_void, owner_dtor) }
}

/// The queue recorded in a numba_ext meminfo, or null.
///
/// # Safety
/// `mi` is null or a live NRT meminfo.
pub unsafe fn meminfo_queue(mi: *mut c_void) -> *const c_void {
    if mi.is_null() {
        return std::ptr::null();
    }
    let data = unsafe { (api().get_data)(mi) } as *const Owner;
    if data.is_null() || unsafe { (*data).magic } != MAGIC {
        return std::ptr::null();
    }
    unsafe { (*data).queue }
}

/// Take one more reference to meminfo `mi` (null is ignored).
///
/// # Safety
/// `mi` is null or a live NRT meminfo.
pub unsafe fn acquire(mi: *mut c_void) {
    if !mi.is_null() {
        unsafe { (api().acquire)(mi) }
    }
}

/// Drop one reference to meminfo `mi` (null is ignored); the last one runs its destructor.
///
/// # Safety
/// `mi` is null or a live NRT meminfo on which the caller holds a reference.
pub unsafe fn release(mi: *mut c_void) {
    if !mi.is_null() {
        unsafe { (api().release)(mi) }
    }
}
