//! Contexts: the scope in which memory is shared. Equality is identity of the OpenCL context. Each
//! context owns the pool of its memory blocks (`pool.rs`), and answers which of its allocations
//! holds an address (for memory described by foreign code, before anything is read there).

use std::ffi::c_void;
use std::fmt;
use std::sync::{Arc, Mutex};

use opencl3::context::Context as ClContext;
use opencl3::types::{cl_context, cl_device_id, cl_uint};

use super::buffers;
use super::device::{devices, Device};
use super::pool::Pool;
use super::usm::{
    UsmFns, UsmKind, CL_MEM_ALLOC_BASE_PTR_INTEL, CL_MEM_ALLOC_DEVICE_INTEL, CL_MEM_ALLOC_SIZE_INTEL,
    CL_MEM_ALLOC_TYPE_INTEL,
};
use super::FastMap;
use crate::error::{ClResultExt, Error, Result};

pub(crate) struct ContextInner {
    cl: ClContext,
    devices: Vec<Device>,
    /// Intel USM entry points when every device of the context has `cl_intel_unified_shared_memory`.
    usm: Option<UsmFns>,
    pool: Pool,
}

unsafe impl Send for ContextInner {}
unsafe impl Sync for ContextInner {}

impl Drop for ContextInner {
    fn drop(&mut self) {
        // The blocks the pool kept are freed while the OpenCL context still exists.
        self.pool.free_all();
    }
}

#[derive(Clone)]
pub struct Context(Arc<ContextInner>);

impl PartialEq for Context {
    fn eq(&self, other: &Self) -> bool {
        self.raw() == other.raw()
    }
}
impl Eq for Context {}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.0.devices.iter().map(|d| d.filter_string()).collect();
        write!(f, "Context({:?} @ {:p})", names, self.raw())
    }
}

impl Context {
    /// A new context over `devices` (all from one platform).
    pub fn new(devices: &[Device]) -> Result<Self> {
        let first = devices.first().ok_or_else(|| Error::Selector("a context needs at least one device".into()))?;
        if devices.iter().any(|d| d.platform() != first.platform()) {
            return Err(Error::Selector("all devices of a context must belong to one platform".into()));
        }
        let ids: Vec<_> = devices.iter().map(|d| d.id()).collect();
        let cl = ClContext::from_devices(&ids, &[], None, std::ptr::null_mut()).cl("clCreateContext")?;
        let usm = if devices.iter().all(|d| d.has_usm()) { UsmFns::load(first.platform()) } else { None };
        let pool = Pool::new(cl.get(), usm);
        Ok(Context(Arc::new(ContextInner { cl, devices: devices.to_vec(), usm, pool })))
    }

    /// The default context of `device`: one per device, created on first use, shared by every queue
    /// built for the device without an explicit context. It lives as long as the process.
    pub fn default_for(device: &Device) -> Result<Context> {
        let key = device.id() as usize;
        if let Some(c) = default_contexts(|m| m.get(&key).cloned()) {
            return Ok(c);
        }
        let ctx = Context::new(std::slice::from_ref(device))?;
        // A racing thread may have made one first; both contexts are valid, keep the winner.
        Ok(default_contexts(|m| m.entry(key).or_insert(ctx).clone()))
    }

    /// Adopt an OpenCL context made by another runtime (e.g. the one behind a `dpctl.SyclQueue`),
    /// taking over one reference to it that the caller owns. Its devices must be root devices that
    /// numba_ext discovered (same OpenCL driver in this process). Adopted contexts are kept by
    /// handle for the life of the process, so adopting one twice gives the same context (and the
    /// second reference is released).
    ///
    /// # Safety
    /// `raw` is a valid OpenCL context handle with one reference owned by the caller.
    pub unsafe fn adopt(raw: cl_context) -> Result<Context> {
        if raw.is_null() {
            return Err(Error::Selector("cannot adopt a null OpenCL context".into()));
        }
        let key = raw as usize;
        if let Some(c) = adopted_contexts(|m| m.get(&key).cloned()) {
            unsafe { cl3::context::release_context(raw) }.cl("clReleaseContext")?;
            return Ok(c);
        }
        let ids: Vec<cl_device_id> = match cl3::context::get_context_info(raw, cl3::context::CL_CONTEXT_DEVICES) {
            Ok(info) => Vec::<isize>::from(info).into_iter().map(|p| p as cl_device_id).collect(),
            Err(e) => {
                let _ = unsafe { cl3::context::release_context(raw) };
                return Err(Error::cl(e, "clGetContextInfo"));
            }
        };
        let known = devices()?;
        let mut list = Vec::with_capacity(ids.len());
        for id in &ids {
            match known.iter().find(|d| d.id() == *id) {
                Some(d) => list.push(d.clone()),
                None => {
                    let _ = unsafe { cl3::context::release_context(raw) };
                    return Err(Error::Selector(format!(
                        "the OpenCL context {raw:p} holds a device ({id:p}) that is not one of numba_ext's root \
                         devices (another OpenCL driver, or a sub-device)"
                    )));
                }
            }
        }
        let cl = ClContext::new(raw, &ids); // owns the caller's reference from here on
        let usm = if list.iter().all(|d| d.has_usm()) { UsmFns::load(list[0].platform()) } else { None };
        let pool = Pool::new(cl.get(), usm);
        let ctx = Context(Arc::new(ContextInner { cl, devices: list, usm, pool }));
        Ok(adopted_contexts(|m| m.entry(key).or_insert(ctx).clone()))
    }

    /// The device with OpenCL handle `id` among this context's devices.
    pub fn device_by_id(&self, id: cl_device_id) -> Option<&Device> {
        self.0.devices.iter().find(|d| d.id() == id)
    }

    pub fn raw(&self) -> cl_context {
        self.0.cl.get()
    }
    pub fn devices(&self) -> &[Device] {
        &self.0.devices
    }
    pub fn contains(&self, d: &Device) -> bool {
        self.0.devices.iter().any(|x| x == d)
    }
    pub fn has_usm(&self) -> bool {
        self.0.usm.is_some()
    }

    pub(crate) fn cl(&self) -> &ClContext {
        &self.0.cl
    }
    pub(crate) fn usm(&self) -> Option<UsmFns> {
        self.0.usm
    }
    pub(crate) fn pool(&self) -> &Pool {
        &self.0.pool
    }
}

/// The driver allocation of a context that holds an address (see [`Context::allocation_extent`]).
/// A block the pool hands out is one whole driver allocation.
#[derive(Clone, Debug)]
pub struct Extent {
    /// Start address of the allocation.
    pub base: usize,
    /// Size in bytes.
    pub size: usize,
    pub kind: UsmKind,
    /// The device the allocation was made for; None for host USM (no device's) or a device the
    /// context does not list.
    pub device: Option<Device>,
}

impl Context {
    /// The allocation of this context holding `addr`, asked of the runtime without touching the
    /// address: Intel's USM pointer query (`clGetMemAllocInfoINTEL`) on a USM context, the buffer
    /// address registry otherwise. None when `addr` lies in no allocation of this context (host
    /// memory, memory of another context, or no memory at all).
    pub fn allocation_extent(&self, addr: usize) -> Result<Option<Extent>> {
        let Some(usm) = self.usm() else {
            let found = buffers::lookup(addr).filter(|f| f.context == self.raw() as usize && f.offset < f.size);
            return Ok(found.map(|f| Extent {
                base: addr - f.offset,
                size: f.size,
                kind: f.kind,
                device: if f.kind == UsmKind::Host { None } else { self.device_at(f.device) },
            }));
        };
        let Some(kind) = UsmKind::from_alloc_type(self.usm_query::<cl_uint>(usm, addr, CL_MEM_ALLOC_TYPE_INTEL)?)
        else {
            return Ok(None);
        };
        let base = self.usm_query::<usize>(usm, addr, CL_MEM_ALLOC_BASE_PTR_INTEL)?;
        let size = self.usm_query::<usize>(usm, addr, CL_MEM_ALLOC_SIZE_INTEL)?;
        if base == 0 || addr < base || addr - base >= size {
            return Ok(None); // a driver answer that does not cover the address: treat it as unknown
        }
        let device = self.device_at(self.usm_query::<usize>(usm, addr, CL_MEM_ALLOC_DEVICE_INTEL)?);
        Ok(Some(Extent { base, size, kind, device }))
    }

    fn device_at(&self, id: usize) -> Option<Device> {
        self.device_by_id(id as cl_device_id).cloned()
    }

    /// One `clGetMemAllocInfoINTEL` answer of type `T` (a `cl_uint`, a pointer or a size).
    fn usm_query<T: Default + Copy>(&self, usm: UsmFns, addr: usize, param: cl_uint) -> Result<T> {
        let mut value = T::default();
        let rc = unsafe {
            (usm.alloc_info)(
                self.raw(),
                addr as *const c_void,
                param,
                std::mem::size_of::<T>(),
                &mut value as *mut T as *mut c_void,
                std::ptr::null_mut(),
            )
        };
        if rc != 0 {
            return Err(Error::cl(rc, "clGetMemAllocInfoINTEL"));
        }
        Ok(value)
    }
}

/// Run `f` on the adopted contexts, by OpenCL handle.
fn adopted_contexts<R>(f: impl FnOnce(&mut FastMap<usize, Context>) -> R) -> R {
    static ADOPTED: Mutex<Option<FastMap<usize, Context>>> = Mutex::new(None);
    f(ADOPTED.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert_with(FastMap::default))
}

/// Run `f` on the default contexts, by device.
fn default_contexts<R>(f: impl FnOnce(&mut FastMap<usize, Context>) -> R) -> R {
    static DEFAULTS: Mutex<Option<FastMap<usize, Context>>> = Mutex::new(None);
    f(DEFAULTS.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert_with(FastMap::default))
}
