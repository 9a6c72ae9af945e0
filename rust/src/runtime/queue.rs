//! Queues and their equivalence: two queues are equivalent when they share context, device and
//! properties (compute follows data accepts arrays of equivalent queues together).

use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use opencl3::command_queue::{CommandQueue, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE};
use opencl3::types::cl_command_queue;

use super::context::Context;
use super::device::Device;
use crate::error::{ClResultExt, Error, Result};

pub(crate) struct QueueInner {
    cl: CommandQueue,
    context: Context,
    device: Device,
    in_order: bool,
    /// Commands numba_ext has submitted and not yet seen complete ([`Queue::submit`]).
    pending: AtomicUsize,
    /// Set when a kernel faulted on the device ([`Queue::mark_faulted`]): what happened.
    faulted: OnceLock<String>,
}

unsafe impl Send for QueueInner {}
unsafe impl Sync for QueueInner {}

/// A queue handle. Clones share the OpenCL queue; `==` is identity, [`Queue::equivalent`] is the
/// CFD relation.
#[derive(Clone)]
pub struct Queue(Arc<QueueInner>);

impl PartialEq for Queue {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl fmt::Debug for Queue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Queue({} @ {:p})", self.0.device.filter_string(), Arc::as_ptr(&self.0))
    }
}

impl Queue {
    /// A queue on `device` in `context` (the device's default context when `None`).
    pub fn new(device: &Device, context: Option<&Context>, in_order: bool) -> Result<Self> {
        let context = match context {
            Some(c) => {
                if !c.contains(device) {
                    return Err(Error::Selector(format!(
                        "device {} is not part of the given context {:?}",
                        device.filter_string(),
                        c
                    )));
                }
                c.clone()
            }
            None => Context::default_for(device)?,
        };
        let props = if in_order { 0 } else { CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE };
        let cl = unsafe { CommandQueue::create_with_properties(context.cl(), device.id(), props, 0) }
            .cl("clCreateCommandQueueWithProperties")?;
        Ok(Queue(Arc::new(QueueInner {
            cl,
            context,
            device: device.clone(),
            in_order,
            pending: AtomicUsize::new(0),
            faulted: OnceLock::new(),
        })))
    }

    pub fn device(&self) -> &Device {
        &self.0.device
    }
    pub fn context(&self) -> &Context {
        &self.0.context
    }
    pub fn in_order(&self) -> bool {
        self.0.in_order
    }
    pub fn raw(&self) -> cl_command_queue {
        self.0.cl.get()
    }
    pub(crate) fn cl(&self) -> &CommandQueue {
        &self.0.cl
    }

    /// Same context, same device, same properties.
    pub fn equivalent(&self, other: &Queue) -> bool {
        self.0.context == other.0.context && self.0.device == other.0.device && self.0.in_order == other.0.in_order
    }

    /// Block until everything submitted to the queue has finished. Only numba_ext submits to its
    /// queues (the OpenCL handle is never handed out), and every submission is waited for by the
    /// call that made it, so with none in flight (in any thread) there is nothing to wait for: no
    /// driver round trip then (about 8 us with NVIDIA's driver).
    pub fn wait(&self) -> Result<()> {
        if self.0.pending.load(Ordering::SeqCst) == 0 {
            return Ok(());
        }
        self.finish()
    }

    /// `clFinish`, unconditionally.
    pub(crate) fn finish(&self) -> Result<()> {
        self.0.cl.finish().cl("clFinish")
    }

    /// Record that a kernel faulted on the device while running on this queue (`what` says which
    /// and how). The queue is refused from then on ([`Queue::check_usable`]): after a fault the
    /// driver's state for it is undefined (NVIDIA's driver fails every later command of the context).
    pub fn mark_faulted(&self, what: String) {
        let _ = self.0.faulted.set(what);
    }

    /// What faulted on this queue, if anything did.
    pub fn faulted(&self) -> Option<&str> {
        self.0.faulted.get().map(String::as_str)
    }

    /// A `DeviceFault` error where a kernel faulted on this queue earlier.
    pub fn check_usable(&self) -> Result<()> {
        match self.0.faulted.get() {
            None => Ok(()),
            Some(what) => Err(Error::DeviceFault(format!(
                "{self:?} is no longer usable: {what}. numba_ext refuses every later launch and copy on it; \
                 create a new queue (numba_ext.Queue(device)) and allocate new arrays (the data on this queue \
                 may be lost; NVIDIA's driver also fails the other queues of the same context)"
            ))),
        }
    }

    /// Mark a submission in flight until the returned guard drops (after its completion was waited
    /// for, or it failed): [`Queue::wait`] in other threads then waits for it.
    pub(crate) fn submit(&self) -> Submission<'_> {
        self.0.pending.fetch_add(1, Ordering::SeqCst);
        Submission(self)
    }

    /// The address used to refer to this queue from compiled host code (stable while any clone lives).
    pub fn as_ptr(&self) -> *const std::ffi::c_void {
        Arc::as_ptr(&self.0) as *const std::ffi::c_void
    }

    /// A new strong reference to the queue, as the address [`Queue::as_ptr`] gives; it keeps the
    /// queue alive until released with [`Queue::release_ptr`].
    pub fn retain_ptr(&self) -> *const std::ffi::c_void {
        Arc::into_raw(self.0.clone()) as *const std::ffi::c_void
    }

    /// Drop one strong reference taken with [`Queue::retain_ptr`].
    ///
    /// # Safety
    /// `ptr` must come from `retain_ptr`, released once.
    pub unsafe fn release_ptr(ptr: *const std::ffi::c_void) {
        unsafe { Arc::decrement_strong_count(ptr as *const QueueInner) };
    }

    /// Rebuild a handle from [`Queue::as_ptr`].
    ///
    /// # Safety
    /// `ptr` must come from `as_ptr` of a queue that is still alive.
    pub unsafe fn from_ptr(ptr: *const std::ffi::c_void) -> Queue {
        let ptr = ptr as *const QueueInner;
        unsafe {
            Arc::increment_strong_count(ptr);
            Queue(Arc::from_raw(ptr))
        }
    }
}

/// A submission in flight on a queue (see [`Queue::submit`]).
pub(crate) struct Submission<'a>(&'a Queue);

impl Drop for Submission<'_> {
    fn drop(&mut self) {
        self.0 .0.pending.fetch_sub(1, Ordering::SeqCst);
    }
}
