//! Python classes over the runtime: Device, Context, Queue, USMAllocation.

use std::sync::Arc;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::runtime::{self, Allocation, Context, Device, Queue, UsmKind};

#[pyclass(name = "Device", module = "numba_ext", frozen, eq, hash)]
#[derive(Clone)]
pub struct PyDevice {
    pub inner: Device,
}

impl PartialEq for PyDevice {
    fn eq(&self, o: &Self) -> bool {
        self.inner == o.inner
    }
}
impl std::hash::Hash for PyDevice {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        (self.inner.id() as usize).hash(h)
    }
}

/// Accept a selector string, a Device or a Queue (its device).
pub fn device_from(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Device> {
    match obj {
        None => Ok(runtime::select_device("")?),
        Some(o) if o.is_none() => Ok(runtime::select_device("")?),
        Some(o) => {
            if let Ok(s) = o.extract::<String>() {
                Ok(runtime::select_device(&s)?) // DeviceSelectorError (a ValueError) for no match
            } else if let Ok(d) = o.cast::<PyDevice>() {
                Ok(d.get().inner.clone())
            } else if let Ok(q) = o.cast::<PyQueue>() {
                Ok(q.get().inner.device().clone())
            } else {
                Err(PyTypeError::new_err(format!(
                    "expected a device selector string, a numba_ext.Device or a numba_ext.Queue, got {}",
                    o.get_type().name()?
                )))
            }
        }
    }
}

#[pymethods]
impl PyDevice {
    #[new]
    #[pyo3(signature = (selector = None))]
    fn new(selector: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        Ok(PyDevice { inner: device_from(selector)? })
    }
    #[getter]
    fn name(&self) -> &str {
        self.inner.name()
    }
    #[getter]
    fn vendor(&self) -> &str {
        self.inner.vendor()
    }
    #[getter]
    fn driver_version(&self) -> &str {
        self.inner.driver_version()
    }
    #[getter]
    fn device_type(&self) -> &str {
        self.inner.kind().as_str()
    }
    #[getter]
    fn filter_string(&self) -> &str {
        self.inner.filter_string()
    }
    #[getter]
    fn has_fp64(&self) -> bool {
        self.inner.has_fp64()
    }
    /// dpctl's spelling of `has_fp64`.
    #[getter]
    fn has_aspect_fp64(&self) -> bool {
        self.inner.has_fp64()
    }
    /// Whether the device reports half precision (`cl_khr_fp16`), as dpctl's `has_aspect_fp16`.
    #[getter]
    fn has_aspect_fp16(&self) -> bool {
        self.inner.has_fp16()
    }
    #[getter]
    fn has_usm(&self) -> bool {
        self.inner.has_usm()
    }
    /// "usm" (Intel USM pointers) or "buffer" (`cl_mem` buffers, on devices without USM).
    #[getter]
    fn memory_backend(&self) -> &'static str {
        if self.inner.has_usm() {
            "usm"
        } else {
            "buffer"
        }
    }
    #[getter]
    fn max_work_group_size(&self) -> usize {
        self.inner.max_work_group_size()
    }
    #[getter]
    fn local_mem_size(&self) -> u64 {
        self.inner.local_mem_size()
    }
    #[getter]
    fn max_compute_units(&self) -> u32 {
        self.inner.max_compute_units()
    }
    /// "spirv", "ptx:sm_90" or None when the device takes neither.
    #[getter]
    fn target(&self) -> Option<String> {
        self.inner.target().label()
    }
    /// The `cl_device_id` address.
    #[getter]
    fn _native(&self) -> usize {
        self.inner.id() as usize
    }
    #[getter]
    fn parent_device(&self) -> Option<PyDevice> {
        self.inner.parent().map(|d| PyDevice { inner: d.clone() })
    }
    /// Split the device into sub-devices of `partition` compute units each.
    #[pyo3(signature = (*, partition))]
    fn create_sub_devices(&self, partition: u32) -> PyResult<Vec<PyDevice>> {
        Ok(self.inner.create_sub_devices_equally(partition)?.into_iter().map(|d| PyDevice { inner: d }).collect())
    }
    fn __repr__(&self) -> String {
        format!("<numba_ext.Device '{}' {} [{}]>", self.inner.filter_string(), self.inner.name(), self.inner.vendor())
    }
}

#[pyclass(name = "Context", module = "numba_ext", frozen, eq, hash)]
#[derive(Clone)]
pub struct PyContext {
    pub inner: Context,
}
impl PartialEq for PyContext {
    fn eq(&self, o: &Self) -> bool {
        self.inner == o.inner
    }
}
impl std::hash::Hash for PyContext {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        (self.inner.raw() as usize).hash(h)
    }
}

#[pymethods]
impl PyContext {
    /// A new context over one device or a list of devices (e.g. sub-devices of one device).
    #[new]
    fn new(devices: &Bound<'_, PyAny>) -> PyResult<Self> {
        let list: Vec<Device> = if let Ok(d) = devices.cast::<PyDevice>() {
            vec![d.get().inner.clone()]
        } else {
            let mut v = Vec::new();
            for item in devices.try_iter()? {
                v.push(device_from(Some(&item?))?);
            }
            v
        };
        Ok(PyContext { inner: Context::new(&list)? })
    }
    #[getter]
    fn devices(&self) -> Vec<PyDevice> {
        self.inner.devices().iter().map(|d| PyDevice { inner: d.clone() }).collect()
    }
    /// Adopt the OpenCL context `handle` (a `cl_context` address) made by another runtime, taking
    /// over one reference the caller owns (see `runtime::Context::adopt`); used for dpctl interop.
    #[staticmethod]
    fn _adopt_native(handle: usize) -> PyResult<Self> {
        Ok(PyContext { inner: unsafe { Context::adopt(handle as opencl3::types::cl_context) }? })
    }
    /// The `cl_context` address (not retained: valid while this context lives).
    #[getter]
    fn _native(&self) -> usize {
        self.inner.raw() as usize
    }
    /// The device of this context whose `cl_device_id` address is `handle`, or None.
    fn _device_by_native(&self, handle: usize) -> Option<PyDevice> {
        self.inner.device_by_id(handle as opencl3::types::cl_device_id).map(|d| PyDevice { inner: d.clone() })
    }
    fn __repr__(&self) -> String {
        format!("<numba_ext.Context {:?}>", self.inner)
    }
}

#[pyclass(name = "Queue", module = "numba_ext", frozen, weakref)]
#[derive(Clone)]
pub struct PyQueue {
    pub inner: Queue,
}

#[pymethods]
impl PyQueue {
    #[new]
    #[pyo3(signature = (selector_or_device = None, *, context = None, in_order = true))]
    fn new(
        selector_or_device: Option<&Bound<'_, PyAny>>,
        context: Option<PyRef<'_, PyContext>>,
        in_order: bool,
    ) -> PyResult<Self> {
        let device = match (selector_or_device, &context) {
            (None, Some(c)) => c.inner.devices()[0].clone(),
            (s, _) => device_from(s)?,
        };
        Ok(PyQueue { inner: Queue::new(&device, context.as_ref().map(|c| &c.inner), in_order)? })
    }
    #[getter]
    fn device(&self) -> PyDevice {
        PyDevice { inner: self.inner.device().clone() }
    }
    /// None, or what faulted on the device while running on this queue (the queue is then refused:
    /// every launch and copy on it raises DeviceFaultError).
    #[getter]
    fn faulted(&self) -> Option<String> {
        self.inner.faulted().map(String::from)
    }
    /// Mark the queue faulted as a kernel fault on the device does (for tests of what follows one).
    fn _mark_faulted(&self, what: String) {
        self.inner.mark_faulted(what)
    }
    #[getter]
    fn sycl_device(&self) -> PyDevice {
        self.device()
    }
    #[getter]
    fn context(&self) -> PyContext {
        PyContext { inner: self.inner.context().clone() }
    }
    #[getter]
    fn in_order(&self) -> bool {
        self.inner.in_order()
    }
    /// Same context, same device, same properties.
    fn equivalent(&self, other: PyRef<'_, PyQueue>) -> bool {
        self.inner.equivalent(&other.inner)
    }
    fn wait(&self, py: Python<'_>) -> PyResult<()> {
        Ok(py.detach(|| self.inner.wait())?)
    }
    /// Address identifying the queue in compiled code (valid while this queue lives).
    #[getter]
    fn _handle(&self) -> usize {
        self.inner.as_ptr() as usize
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyQueue>().is_ok_and(|o| o.get().inner == self.inner)
    }
    fn __hash__(&self) -> usize {
        self.inner.as_ptr() as usize
    }
    fn __repr__(&self) -> String {
        format!("<numba_ext.Queue on '{}' at {:#x}>", self.inner.device().filter_string(), self.inner.as_ptr() as usize)
    }
}

/// USM memory bound to a queue; freed when the last reference goes.
#[pyclass(name = "USMAllocation", module = "numba_ext._core", frozen)]
pub struct PyAllocation {
    pub inner: Arc<Allocation>,
}

#[pymethods]
impl PyAllocation {
    #[new]
    fn new(queue: PyRef<'_, PyQueue>, nbytes: usize, usm_type: &str) -> PyResult<Self> {
        let kind = UsmKind::parse(usm_type).map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(PyAllocation { inner: Arc::new(Allocation::new(&queue.inner, kind, nbytes)?) })
    }
    #[getter]
    fn ptr(&self) -> usize {
        self.inner.addr() as usize
    }
    #[getter]
    fn nbytes(&self) -> usize {
        self.inner.size()
    }
    #[getter]
    fn usm_type(&self) -> &'static str {
        self.inner.kind().as_str()
    }
    #[getter]
    fn queue(&self) -> PyQueue {
        PyQueue { inner: self.inner.queue().clone() }
    }
    /// Copy host bytes (any contiguous buffer, passed as bytes-like) into the allocation.
    fn write(&self, py: Python<'_>, offset: usize, data: &[u8]) -> PyResult<()> {
        Ok(py.detach(|| self.inner.write(offset, data))?)
    }
    /// Copy `nbytes` from host address `dst` (a writable buffer's address) out of the allocation.
    fn read_into(&self, py: Python<'_>, offset: usize, dst: usize, nbytes: usize) -> PyResult<()> {
        let slice = unsafe { std::slice::from_raw_parts_mut(dst as *mut u8, nbytes) };
        Ok(py.detach(|| self.inner.read(offset, slice))?)
    }
    /// Copy `nbytes` from host address `src` into the allocation.
    fn write_from(&self, py: Python<'_>, offset: usize, src: usize, nbytes: usize) -> PyResult<()> {
        let slice = unsafe { std::slice::from_raw_parts(src as *const u8, nbytes) };
        Ok(py.detach(|| self.inner.write(offset, slice))?)
    }
    fn fill(&self, py: Python<'_>, pattern: &[u8]) -> PyResult<()> {
        Ok(py.detach(|| self.inner.fill(pattern))?)
    }
    /// numpy's array-interface view of the whole allocation as bytes (the memory owner of arrays).
    /// (The host may read it directly: commands still running are waited for first.)
    #[getter]
    fn __array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
        py.detach(runtime::settle_all)?;
        let d = pyo3::types::PyDict::new(py);
        d.set_item("data", (self.inner.addr() as usize, false))?;
        d.set_item("shape", PyTuple::new(py, [self.inner.size()])?)?;
        d.set_item("typestr", "|u1")?;
        d.set_item("version", 3)?;
        Ok(d)
    }
    fn __repr__(&self) -> String {
        format!(
            "<USMAllocation {} bytes {} at {:#x}>",
            self.inner.size(),
            self.inner.kind().as_str(),
            self.inner.addr() as usize
        )
    }
}

/// Wait for every command the eager library left running, on every queue: before the host or a
/// foreign consumer addresses device memory directly.
#[pyfunction]
pub fn settle_all(py: Python<'_>) -> PyResult<()> {
    Ok(py.detach(runtime::settle_all)?)
}

/// Blocking copy of `nbytes` between two addresses usable by `queue` (USM or host memory).
#[pyfunction]
pub fn memcpy(py: Python<'_>, queue: PyRef<'_, PyQueue>, dst: usize, src: usize, nbytes: usize) -> PyResult<()> {
    if nbytes == 0 {
        return Ok(());
    }
    let q = queue.inner.clone();
    Ok(py.detach(|| unsafe {
        runtime::copy(&q, dst as *mut std::ffi::c_void, src as *const std::ffi::c_void, nbytes)
    })?)
}

/// Blocking fill of `nbytes` at `dst` (memory of `queue`) with repetitions of `pattern`.
#[pyfunction]
pub fn fill(py: Python<'_>, queue: PyRef<'_, PyQueue>, dst: usize, pattern: &[u8], nbytes: usize) -> PyResult<()> {
    if nbytes == 0 {
        return Ok(());
    }
    let q = queue.inner.clone();
    Ok(py.detach(|| unsafe { runtime::fill(&q, dst as *mut std::ffi::c_void, pattern, nbytes) })?)
}

/// The allocation of the context of `queue_or_context` (a Queue or a Context) holding address `ptr`:
/// `(base, size in bytes, USM type, device or None)`, or None when no allocation of that context
/// holds it (host memory, another context's memory, an address beyond 64 bits). The address is
/// asked of the runtime, never read.
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn allocation_extent(
    queue_or_context: &Bound<'_, PyAny>,
    ptr: &Bound<'_, PyAny>,
) -> PyResult<Option<(usize, usize, &'static str, Option<PyDevice>)>> {
    let context = if let Ok(q) = queue_or_context.cast::<PyQueue>() {
        q.get().inner.context().clone()
    } else if let Ok(c) = queue_or_context.cast::<PyContext>() {
        c.get().inner.clone()
    } else {
        return Err(PyTypeError::new_err(format!(
            "allocation_extent takes a numba_ext.Queue or numba_ext.Context, got {}",
            queue_or_context.get_type().name()?
        )));
    };
    if !ptr.is_instance_of::<pyo3::types::PyInt>() {
        return Err(PyTypeError::new_err(format!("an address is an int, got {}", ptr.get_type().name()?)));
    }
    let Ok(addr) = ptr.extract::<usize>() else {
        return Ok(None); // negative, or wider than an address
    };
    let extent = ptr.py().detach(|| context.allocation_extent(addr))?;
    Ok(extent.map(|e| (e.base, e.size, e.kind.as_str(), e.device.map(|d| PyDevice { inner: d }))))
}
