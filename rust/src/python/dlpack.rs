//! DLPack capsules (the array API's `__dlpack__` exchange, DLPack 1.0 ABI): building the versioned
//! (`dltensor_versioned`, `DLManagedTensorVersioned`) and legacy (`dltensor`, `DLManagedTensor`)
//! structs for an exported array, with a deleter that releases the exporting Python object, and
//! reading a producer's capsule into a [`DLPackTensor`] that owns its managed tensor (it calls the
//! producer's deleter when it is freed).
//!
//! Layouts follow `dlpack.h` (version 1.0). Shapes and strides are in elements; `data +
//! byte_offset` is the address of the first element.

use std::collections::HashSet;
use std::ffi::{c_void, CStr};
use std::ptr;
use std::sync::{LazyLock, Mutex};

use pyo3::exceptions::{PyBufferError, PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;

const VERSIONED: &CStr = c"dltensor_versioned";
const LEGACY: &CStr = c"dltensor";
const USED_VERSIONED: &CStr = c"used_dltensor_versioned";
const USED_LEGACY: &CStr = c"used_dltensor";

/// `DLPACK_FLAG_BITMASK_READ_ONLY`
const FLAG_READ_ONLY: u64 = 1;
/// `DLPACK_FLAG_BITMASK_IS_COPIED`
const FLAG_IS_COPIED: u64 = 2;
/// The DLPack ABI version written into versioned capsules.
const ABI_MAJOR: u32 = 1;
const ABI_MINOR: u32 = 0;

#[repr(C)]
#[derive(Clone, Copy)]
struct DLDevice {
    device_type: i32,
    device_id: i32,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct DLDataType {
    code: u8,
    bits: u8,
    lanes: u16,
}

#[repr(C)]
struct DLTensor {
    data: *mut c_void,
    device: DLDevice,
    ndim: i32,
    dtype: DLDataType,
    shape: *mut i64,
    strides: *mut i64,
    byte_offset: u64,
}

#[repr(C)]
struct DLManagedTensor {
    dl_tensor: DLTensor,
    manager_ctx: *mut c_void,
    deleter: Option<unsafe extern "C" fn(*mut DLManagedTensor)>,
}

#[repr(C)]
struct DLPackVersion {
    major: u32,
    minor: u32,
}

#[repr(C)]
struct DLManagedTensorVersioned {
    version: DLPackVersion,
    manager_ctx: *mut c_void,
    deleter: Option<unsafe extern "C" fn(*mut DLManagedTensorVersioned)>,
    flags: u64,
    dl_tensor: DLTensor,
}

/// What an exported tensor owns: the exporting Python object (kept alive until the consumer calls
/// the deleter) and the shape and stride arrays the tensor points into.
struct ExportCtx {
    owner: Py<PyAny>,
    shape: Vec<i64>,
    strides: Vec<i64>,
}

/// The managed tensors this module exported and whose deleter has not run yet: an imported capsule
/// found here is numba_ext's own, whose export context (and so the exporting object) can be read.
static EXPORTED: LazyLock<Mutex<HashSet<usize>>> = LazyLock::new(|| Mutex::new(HashSet::new()));

fn exported(m: *mut c_void) -> bool {
    EXPORTED.lock().map(|s| s.contains(&(m as usize))).unwrap_or(false)
}

fn set_exported(m: *mut c_void, live: bool) {
    if let Ok(mut s) = EXPORTED.lock() {
        if live {
            s.insert(m as usize);
        } else {
            s.remove(&(m as usize));
        }
    }
}

/// Drop the export context under the GIL: consumers may call the deleter from any thread. Once the
/// interpreter is shutting down the exporting object is left alone (never dropped without the GIL).
unsafe fn release_ctx(ctx: *mut c_void) {
    if ctx.is_null() {
        return;
    }
    let ctx = unsafe { Box::from_raw(ctx as *mut ExportCtx) };
    let mut slot = Some(ctx);
    if Python::try_attach(|_py| drop(slot.take())).is_none() {
        std::mem::forget(slot);
    }
}

unsafe extern "C" fn delete_legacy(m: *mut DLManagedTensor) {
    if m.is_null() {
        return;
    }
    set_exported(m as *mut c_void, false);
    let m = unsafe { Box::from_raw(m) };
    unsafe { release_ctx(m.manager_ctx) };
}

unsafe extern "C" fn delete_versioned(m: *mut DLManagedTensorVersioned) {
    if m.is_null() {
        return;
    }
    set_exported(m as *mut c_void, false);
    let m = unsafe { Box::from_raw(m) };
    unsafe { release_ctx(m.manager_ctx) };
}

/// The capsule destructor: frees the managed tensor only when no consumer took it (a consumer
/// renames the capsule to `used_dltensor[_versioned]` and calls the deleter itself).
unsafe extern "C" fn capsule_destructor(capsule: *mut ffi::PyObject) {
    unsafe {
        let (mut t, mut v, mut tb) = (ptr::null_mut(), ptr::null_mut(), ptr::null_mut());
        ffi::PyErr_Fetch(&mut t, &mut v, &mut tb);
        if ffi::PyCapsule_IsValid(capsule, VERSIONED.as_ptr()) == 1 {
            let m = ffi::PyCapsule_GetPointer(capsule, VERSIONED.as_ptr()) as *mut DLManagedTensorVersioned;
            if let Some(d) = (*m).deleter {
                d(m);
            }
        } else if ffi::PyCapsule_IsValid(capsule, LEGACY.as_ptr()) == 1 {
            let m = ffi::PyCapsule_GetPointer(capsule, LEGACY.as_ptr()) as *mut DLManagedTensor;
            if let Some(d) = (*m).deleter {
                d(m);
            }
        }
        ffi::PyErr_Restore(t, v, tb);
    }
}

/// A DLPack capsule for memory at `data + byte_offset` (shape and strides in elements) owned by
/// `owner`, which the capsule keeps alive until the consumer calls the deleter (or the capsule is
/// freed unused). `versioned`: a `dltensor_versioned` capsule with the read-only and is-copied
/// flags; otherwise a legacy `dltensor` one (which cannot say read-only).
#[pyfunction]
#[pyo3(signature = (owner, data, byte_offset, shape, strides, dtype, device, *, versioned, read_only, copied))]
#[allow(clippy::too_many_arguments)]
pub fn dlpack_export<'py>(
    py: Python<'py>,
    owner: Bound<'py, PyAny>,
    data: usize,
    byte_offset: u64,
    shape: Vec<i64>,
    strides: Vec<i64>,
    dtype: (u8, u8),
    device: (i32, i32),
    versioned: bool,
    read_only: bool,
    copied: bool,
) -> PyResult<Bound<'py, PyAny>> {
    // the consumer reads the memory on its own terms: commands still running on it finish first
    py.detach(crate::runtime::settle_all)?;
    if shape.len() != strides.len() {
        return Err(PyValueError::new_err("dlpack_export: shape and strides differ in length"));
    }
    if read_only && !versioned {
        return Err(PyBufferError::new_err(
            "cannot export a read-only array in a legacy DLPack capsule, which cannot mark it read-only; \
             ask for max_version=(1, 0) or copy the array",
        ));
    }
    let mut ctx = Box::new(ExportCtx { owner: owner.unbind(), shape, strides });
    let tensor = DLTensor {
        data: data as *mut c_void,
        device: DLDevice { device_type: device.0, device_id: device.1 },
        ndim: ctx.shape.len() as i32,
        dtype: DLDataType { code: dtype.0, bits: dtype.1, lanes: 1 },
        shape: ctx.shape.as_mut_ptr(),
        strides: ctx.strides.as_mut_ptr(),
        byte_offset,
    };
    let ctx = Box::into_raw(ctx) as *mut c_void;
    let (ptr, name) = if versioned {
        let flags = if read_only { FLAG_READ_ONLY } else { 0 } | if copied { FLAG_IS_COPIED } else { 0 };
        let m = Box::new(DLManagedTensorVersioned {
            version: DLPackVersion { major: ABI_MAJOR, minor: ABI_MINOR },
            manager_ctx: ctx,
            deleter: Some(delete_versioned),
            flags,
            dl_tensor: tensor,
        });
        (Box::into_raw(m) as *mut c_void, VERSIONED)
    } else {
        let m = Box::new(DLManagedTensor { dl_tensor: tensor, manager_ctx: ctx, deleter: Some(delete_legacy) });
        (Box::into_raw(m) as *mut c_void, LEGACY)
    };
    set_exported(ptr, true);
    let capsule = unsafe { ffi::PyCapsule_New(ptr, name.as_ptr(), Some(capsule_destructor)) };
    if capsule.is_null() {
        // the capsule was not made: free the tensor here
        unsafe {
            if versioned {
                delete_versioned(ptr as *mut DLManagedTensorVersioned);
            } else {
                delete_legacy(ptr as *mut DLManagedTensor);
            }
        }
        return Err(PyErr::fetch(py));
    }
    Ok(unsafe { Bound::from_owned_ptr(py, capsule) })
}

/// A consumed DLPack capsule: the producer's managed tensor, read once, whose deleter runs when this
/// object is freed. Memory stays valid (and the producer alive) while it lives.
#[pyclass(name = "DLPackTensor", module = "numba_ext._core", frozen)]
pub struct DLPackTensor {
    managed: *mut c_void,
    versioned: bool,
    #[pyo3(get)]
    data: usize,
    #[pyo3(get)]
    shape: Vec<i64>,
    #[pyo3(get)]
    strides: Vec<i64>,
    /// (code, bits, lanes)
    #[pyo3(get)]
    dtype: (u8, u8, u16),
    /// (device type, device id)
    #[pyo3(get)]
    device: (i32, i32),
    #[pyo3(get)]
    read_only: bool,
    #[pyo3(get)]
    is_copied: bool,
    /// the exporting object, when numba_ext itself made the capsule (else None)
    #[pyo3(get)]
    owner: Option<Py<PyAny>>,
}

// The managed tensor is only touched when the object is freed; the DLPack deleter may run on any thread.
unsafe impl Send for DLPackTensor {}
unsafe impl Sync for DLPackTensor {}

#[pymethods]
impl DLPackTensor {
    /// True for a `dltensor_versioned` capsule, False for a legacy `dltensor` one.
    #[getter]
    fn versioned(&self) -> bool {
        self.versioned
    }
}

impl Drop for DLPackTensor {
    fn drop(&mut self) {
        unsafe {
            if self.versioned {
                let m = self.managed as *mut DLManagedTensorVersioned;
                if let Some(d) = (*m).deleter {
                    d(m);
                }
            } else {
                let m = self.managed as *mut DLManagedTensor;
                if let Some(d) = (*m).deleter {
                    d(m);
                }
            }
        }
    }
}

unsafe fn read_tensor(t: &DLTensor) -> PyResult<(Vec<i64>, Vec<i64>)> {
    if t.ndim < 0 {
        return Err(PyBufferError::new_err(format!("DLPack tensor has ndim={}", t.ndim)));
    }
    let n = t.ndim as usize;
    if n > 0 && t.shape.is_null() {
        return Err(PyBufferError::new_err("DLPack tensor has no shape"));
    }
    let shape: Vec<i64> = if n == 0 { vec![] } else { unsafe { std::slice::from_raw_parts(t.shape, n) }.to_vec() };
    if shape.iter().any(|&s| s < 0) {
        return Err(PyBufferError::new_err(format!("DLPack tensor has a negative extent in shape {shape:?}")));
    }
    let strides = if n > 0 && !t.strides.is_null() {
        unsafe { std::slice::from_raw_parts(t.strides, n) }.to_vec()
    } else {
        // no strides: compact row-major
        let mut s = vec![0i64; n];
        let mut acc = 1i64;
        for i in (0..n).rev() {
            s[i] = acc;
            acc = acc.saturating_mul(shape[i].max(1));
        }
        s
    };
    Ok((shape, strides))
}

/// Take the managed tensor out of a DLPack capsule (marking the capsule used, so it is consumed once):
/// a [`DLPackTensor`] that calls the producer's deleter when freed. A used or foreign capsule, or a
/// versioned tensor of an ABI major version other than 1, is a `BufferError`/`TypeError` and leaves
/// the capsule untouched.
#[pyfunction]
pub fn dlpack_import(capsule: &Bound<'_, PyAny>) -> PyResult<DLPackTensor> {
    let py = capsule.py();
    let p = capsule.as_ptr();
    unsafe {
        if ffi::PyCapsule_CheckExact(p) == 0 {
            return Err(PyTypeError::new_err(format!(
                "expected a DLPack capsule from __dlpack__(), got {}",
                capsule.get_type().name()?
            )));
        }
        if ffi::PyCapsule_IsValid(p, USED_VERSIONED.as_ptr()) == 1
            || ffi::PyCapsule_IsValid(p, USED_LEGACY.as_ptr()) == 1
        {
            return Err(PyBufferError::new_err(
                "this DLPack capsule was already consumed; call __dlpack__() again for a new one",
            ));
        }
        if ffi::PyCapsule_IsValid(p, VERSIONED.as_ptr()) == 1 {
            let m = ffi::PyCapsule_GetPointer(p, VERSIONED.as_ptr()) as *mut DLManagedTensorVersioned;
            let v = &(*m).version;
            if v.major != ABI_MAJOR {
                return Err(PyBufferError::new_err(format!(
                    "the DLPack capsule has ABI version {}.{}; numba_ext reads version {ABI_MAJOR}.x",
                    v.major, v.minor
                )));
            }
            let (shape, strides) = read_tensor(&(*m).dl_tensor)?;
            let own = exported(m as *mut c_void);
            let flags = (*m).flags;
            // renamed first: from here on the capsule's destructor leaves the tensor to us
            mark_used(py, p, USED_VERSIONED)?;
            Ok(make(
                py,
                &(*m).dl_tensor,
                m as *mut c_void,
                true,
                shape,
                strides,
                flags,
                own.then_some((*m).manager_ctx),
            ))
        } else if ffi::PyCapsule_IsValid(p, LEGACY.as_ptr()) == 1 {
            let m = ffi::PyCapsule_GetPointer(p, LEGACY.as_ptr()) as *mut DLManagedTensor;
            let (shape, strides) = read_tensor(&(*m).dl_tensor)?;
            let own = exported(m as *mut c_void);
            mark_used(py, p, USED_LEGACY)?;
            Ok(make(py, &(*m).dl_tensor, m as *mut c_void, false, shape, strides, 0, own.then_some((*m).manager_ctx)))
        } else {
            Err(PyTypeError::new_err("not a DLPack capsule: its name is neither 'dltensor_versioned' nor 'dltensor'"))
        }
    }
}

unsafe fn mark_used(py: Python<'_>, capsule: *mut ffi::PyObject, name: &'static CStr) -> PyResult<()> {
    if unsafe { ffi::PyCapsule_SetName(capsule, name.as_ptr()) } != 0 {
        return Err(PyErr::fetch(py));
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
unsafe fn make(
    py: Python<'_>,
    t: &DLTensor,
    managed: *mut c_void,
    versioned: bool,
    shape: Vec<i64>,
    strides: Vec<i64>,
    flags: u64,
    own_ctx: Option<*mut c_void>,
) -> DLPackTensor {
    let owner = own_ctx.filter(|c| !c.is_null()).map(|c| unsafe { &*(c as *const ExportCtx) }.owner.clone_ref(py));
    DLPackTensor {
        managed,
        versioned,
        data: (t.data as usize).wrapping_add(t.byte_offset as usize),
        shape,
        strides,
        dtype: (t.dtype.code, t.dtype.bits, t.dtype.lanes),
        device: (t.device.device_type, t.device.device_id),
        read_only: flags & FLAG_READ_ONLY != 0,
        is_copied: flags & FLAG_IS_COPIED != 0,
        owner,
    }
}
