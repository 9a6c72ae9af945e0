//! Contexts: the scope in which memory is shared. Equality is identity of the OpenCL context.

use std::fmt;
use std::sync::Arc;

use opencl3::context::Context as ClContext;
use opencl3::types::cl_context;

use super::device::Device;
use super::usm::UsmFns;
use crate::error::{ClResultExt, Error, Result};

pub(crate) struct ContextInner {
    pub(crate) cl: ClContext,
    pub(crate) devices: Vec<Device>,
    /// Intel USM entry points when every device of the context has `cl_intel_unified_shared_memory`.
    pub(crate) usm: Option<UsmFns>,
}

unsafe impl Send for ContextInner {}
unsafe impl Sync for ContextInner {}

impl Drop for ContextInner {
    fn drop(&mut self) {
        // Free the blocks (USM, or buffers) the allocation pool kept for this context.
        for (_, p) in super::memory::drain_pool(self.cl.get() as usize) {
            super::memory::free_block(self.usm, self.cl.get(), p);
        }
    }
}

#[derive(Clone)]
pub struct Context(pub(crate) Arc<ContextInner>);

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
        Ok(Context(Arc::new(ContextInner { cl, devices: devices.to_vec(), usm })))
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
}
