//! C-ABI entry points called from Numba-compiled host code. Their addresses are handed to llvmlite
//! once (`llvmlite.binding.add_symbol`), so launches never go through Python. Each returns a status;
//! on failure the Python exception is set (the caller holds the GIL, as Numba's nopython code does
//! unless compiled with `nogil`) and compiled code propagates it.

use std::ffi::{c_char, c_void, CStr};

use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::errors::to_pyerr;
use super::fast_path::{self, Range};
use super::nrt;
use crate::error::Error;
use crate::runtime::{Allocation, CompiledKernel, Queue, UsmKind};

fn raise(e: Error) {
    Python::attach(|py| to_pyerr(py, e).restore(py));
}

/// 0 on success; -1 with the Python exception set on failure.
fn status(r: crate::Result<()>) -> i32 {
    match r {
        Ok(()) => 0,
        Err(e) => {
            raise(e);
            -1
        }
    }
}

/// Allocate `nbytes` of USM of kind `usm` for `queue`. Returns the data pointer and stores a new
/// meminfo owning the memory in `*meminfo`. Null with a Python error set on failure.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nx_usm_alloc(
    queue: *const c_void,
    nbytes: u64,
    usm: u32,
    meminfo: *mut *mut c_void,
) -> *mut c_void {
    if queue.is_null() {
        raise(Error::Placement("cannot allocate: the array has no queue".into()));
        return std::ptr::null_mut();
    }
    let q = unsafe { Queue::from_ptr(queue) };
    match UsmKind::from_code(usm).and_then(|k| Allocation::new(&q, k, nbytes as usize)) {
        Ok(a) => {
            let ptr = a.addr();
            unsafe { *meminfo = nrt::new_meminfo(&q, nrt::Keep::Alloc(a)) };
            ptr
        }
        Err(e) => {
            raise(e);
            std::ptr::null_mut()
        }
    }
}

/// The queue of the array owning meminfo `mi` (null if unknown).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nx_meminfo_queue(mi: *mut c_void) -> *const c_void {
    unsafe { nrt::meminfo_queue(mi) }
}

/// Launch elementwise `kernel` on `queue` with `nslots` general argument slots (see
/// `CompiledKernel::launch_general`; `broadcast` non-zero when operands broadcast) and wait.
/// 0 on success, -1 with a Python exception set on failure.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nx_launch(
    kernel: *const c_void,
    queue: *const c_void,
    slots: *const u64,
    nslots: u32,
    broadcast: i32,
) -> i32 {
    unsafe { launch(kernel, queue, slots, nslots, Range::Elementwise { broadcast: broadcast != 0 }) }
}

/// Launch `kernel` (a `CompiledKernel` address) on `queue` (a queue address, null when an array had
/// none) with `nslots` slots at `slots`. 0 on success, -1 with a Python exception set on failure.
///
/// # Safety
/// The addresses are live objects of their kinds; `slots` holds `nslots` values.
unsafe fn launch(kernel: *const c_void, queue: *const c_void, slots: *const u64, nslots: u32, range: Range<'_>) -> i32 {
    if queue.is_null() {
        raise(Error::Placement("cannot launch: an array argument has no queue".into()));
        return -1;
    }
    let k = unsafe { &*(kernel as *const CompiledKernel) };
    let q = unsafe { Queue::from_ptr(queue) };
    let slots = unsafe { std::slice::from_raw_parts(slots, nslots as usize) };
    status(Python::attach(|py| fast_path::launch(py, k, &q, slots, range)))
}

/// Fill `nbytes` at USM address `dst` with copies of the `psize`-byte pattern at `pattern`.
/// 0 on success, -1 with a Python exception set.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nx_usm_fill(
    queue: *const c_void,
    dst: *mut c_void,
    pattern: *const u8,
    psize: u64,
    nbytes: u64,
) -> i32 {
    let q = unsafe { Queue::from_ptr(queue) };
    let pat = unsafe { std::slice::from_raw_parts(pattern, psize as usize) };
    let dst = dst as usize; // plain address across the GIL release
    status(Python::attach(|py| {
        py.detach(|| unsafe { crate::runtime::fill(&q, dst as *mut c_void, pat, nbytes as usize) })
    }))
}

/// Blocking copy of `nbytes` between `dst` and `src`, each device memory of `queue` (USM or buffer
/// address) or host memory. 0 on success, -1 with a Python exception set.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nx_memcpy(queue: *const c_void, dst: *mut c_void, src: *const c_void, nbytes: u64) -> i32 {
    let q = unsafe { Queue::from_ptr(queue) };
    status(unsafe { crate::runtime::copy(&q, dst, src, nbytes as usize) })
}

/// Launch a control-flow kernel over an ND-range (`ndim` sizes at `global`; `local` null or `ndim`
/// sizes) and wait. 0 on success, -1 with a Python exception set on failure.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nx_launch_nd(
    kernel: *const c_void,
    queue: *const c_void,
    slots: *const u64,
    nslots: u32,
    ndim: u32,
    global: *const u64,
    local: *const u64,
) -> i32 {
    let sizes = |p: *const u64| -> Vec<usize> {
        unsafe { std::slice::from_raw_parts(p, ndim as usize) }.iter().map(|&x| x as usize).collect()
    };
    let g = sizes(global);
    let l = (!local.is_null()).then(|| sizes(local));
    unsafe { launch(kernel, queue, slots, nslots, Range::Nd { global: &g, local: l.as_deref() }) }
}

/// Check that the `n` queues are equivalent (compute follows data). `names` is a NUL-terminated,
/// comma-separated list naming the arrays. 0 when equivalent, -1 with ExecutionPlacementError set.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nx_check_queues(queues: *const *const c_void, n: u32, names: *const c_char) -> i32 {
    let ptrs = unsafe { std::slice::from_raw_parts(queues, n as usize) };
    let Some(&first) = ptrs.first() else { return 0 };
    if ptrs.iter().any(|p| p.is_null()) {
        raise(Error::Placement("an array argument has no queue".into()));
        return -1;
    }
    if ptrs.iter().all(|&p| p == first) {
        return 0;
    }
    let qs: Vec<Queue> = ptrs.iter().map(|&p| unsafe { Queue::from_ptr(p) }).collect();
    if qs.iter().all(|q| q.equivalent(&qs[0])) {
        return 0;
    }
    let names = unsafe { CStr::from_ptr(names) }.to_string_lossy().into_owned();
    let detail: Vec<String> =
        names.split(',').zip(&qs).map(|(n, q)| format!("'{n}' on {q:?} (context {:?})", q.context())).collect();
    raise(Error::Placement(format!(
        "arrays on non-equivalent queues cannot be used together (compute follows data): {}. Copy them to one queue first, e.g. numba_ext.asarray(x, sycl_queue=q)",
        detail.join(", ")
    )));
    -1
}

/// The process-local address behind `obj`, a reference compiled host code keeps in its environment
/// (a kernel or queue it uses; see `numba_ext/compiler/lazy_refs.py`): `obj._resolve_address()`,
/// asked once per process and call site. Null with a Python exception set on failure.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nx_resolve(obj: *mut pyo3::ffi::PyObject) -> *const c_void {
    Python::attach(|py| {
        if obj.is_null() {
            to_pyerr(py, Error::Launch("compiled code lost a kernel or queue reference".into())).restore(py);
            return std::ptr::null();
        }
        let o = unsafe { Bound::from_borrowed_ptr(py, obj) };
        match o.call_method0("_resolve_address").and_then(|a| a.extract::<usize>()) {
            Ok(a) => a as *const c_void,
            Err(e) => {
                e.restore(py);
                std::ptr::null()
            }
        }
    })
}

/// After a bounds-checked launch: read the error record (`BOUNDS_RECORD_LEN` `int64`s of device
/// memory of `queue` at `record`, see `ir::cfg::Function::bounds`). 0 when no access was out of
/// bounds; otherwise -1 with an IndexError set naming the kernel `what`, the array (its name from the
/// NUL-terminated, comma-separated `names`, by array index), the index and the extent.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nx_bounds_check(
    queue: *const c_void,
    record: *const c_void,
    what: *const c_char,
    names: *const c_char,
) -> i32 {
    let q = unsafe { Queue::from_ptr(queue) };
    let mut r = [0i64; crate::ir::cfg::BOUNDS_RECORD_LEN];
    let dst = r.as_mut_ptr() as *mut c_void;
    if let Err(e) = unsafe { crate::runtime::copy(&q, dst, record, std::mem::size_of_val(&r)) } {
        raise(e);
        return -1;
    }
    if r[0] == 0 {
        return 0;
    }
    let what = unsafe { CStr::from_ptr(what) }.to_string_lossy().into_owned();
    let names = unsafe { CStr::from_ptr(names) }.to_string_lossy().into_owned();
    let name = names.split(',').nth(r[1] as usize).unwrap_or("?").to_string();
    let (dim, extent) = (r[2], r[4]);
    let index = if r[3] < 0 { r[3] - extent } else { r[3] }; // as written: it was wrapped once
    let access = ["read", "write", "atomic"].get(r[5] as usize).copied().unwrap_or("access");
    let view = if r[6] == 1 { "a view of " } else { "" }; // an index into a view made in the loop body
    let msg = format!(
        "{what}: index {index} is out of bounds for axis {dim} with size {extent} ({access} of {view}array '{name}'); \
         the access was skipped (boundscheck=True or NUMBA_BOUNDSCHECK=1 checks every array access)"
    );
    Python::attach(|py| pyo3::exceptions::PyIndexError::new_err(msg).restore(py));
    -1
}

/// Address of each entry point, by name.
#[pyfunction]
pub fn capi_addresses(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("nx_usm_alloc", nx_usm_alloc as *const () as usize)?;
    d.set_item("nx_meminfo_queue", nx_meminfo_queue as *const () as usize)?;
    d.set_item("nx_launch", nx_launch as *const () as usize)?;
    d.set_item("nx_resolve", nx_resolve as *const () as usize)?;
    d.set_item("nx_usm_fill", nx_usm_fill as *const () as usize)?;
    d.set_item("nx_memcpy", nx_memcpy as *const () as usize)?;
    d.set_item("nx_launch_nd", nx_launch_nd as *const () as usize)?;
    d.set_item("nx_check_queues", nx_check_queues as *const () as usize)?;
    d.set_item("nx_bounds_check", nx_bounds_check as *const () as usize)?;
    d.set_item("nx_unbox", super::native::nx_unbox as *const () as usize)?;
    d.set_item("nx_box", super::native::nx_box as *const () as usize)?;
    d.set_item("nx_queue_unbox", super::queues::nx_queue_unbox as *const () as usize)?;
    d.set_item("nx_queue_box", super::queues::nx_queue_box as *const () as usize)?;
    for (name, addr) in super::half_abi::addresses() {
        d.set_item(name, addr)?;
    }
    Ok(d)
}
