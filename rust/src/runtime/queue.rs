//! Queues and their equivalence: two queues are equivalent when they share context, device and
//! properties (compute follows data accepts arrays of equivalent queues together).
//!
//! Commands left running: most submissions wait for their command, but the eager library enqueues
//! its kernels on in-order queues without waiting (Python goes on while the device works, as CuPy's
//! launches do). Such a queue is *unsettled* until a wait covers those commands. Its order keeps
//! every later command of the same queue behind them; everything else settles first:
//! * a submission to another queue of the same context finishes the context's unsettled queues
//!   before it is enqueued ([`Queue::check_usable`]), so a block of memory that the pool hands to
//!   another queue, or an array read there, is never touched while a command still uses it;
//! * host code that addresses device memory directly (compiled host code, NumPy views of host
//!   memory, exported interfaces) calls [`settle_all`] first.

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

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
    /// Commands enqueued without a wait ([`Queue::note_unwaited`]), and how many of them a wait
    /// has covered: the queue is unsettled while `completed < unwaited`.
    unwaited: AtomicU64,
    completed: AtomicU64,
    /// Whether the queue is in [`UNSETTLED`].
    listed: AtomicBool,
}

/// The queues that may have commands running that nothing waited for (see the module
/// documentation), and their number (read without the lock: 0 is the common case).
static UNSETTLED: Mutex<Vec<Queue>> = Mutex::new(Vec::new());
static UNSETTLED_COUNT: AtomicUsize = AtomicUsize::new(0);
/// The process that listed them (a forked child's copy of the list names its parent's queues,
/// which it must not touch: it forgets them).
static UNSETTLED_PID: AtomicU32 = AtomicU32::new(0);

/// Whether any queue may have commands running that nothing waited for.
pub fn any_unsettled() -> bool {
    UNSETTLED_COUNT.load(Ordering::SeqCst) != 0
}

/// How many queues have commands running that nothing waited for (for tests and diagnostics).
pub fn unsettled_queues() -> usize {
    lock(&UNSETTLED).iter().filter(|q| !q.settled()).count()
}

/// Wait for every command enqueued without a wait, on every queue: before host code addresses
/// device memory directly. Cheap when there are none (one atomic load).
pub fn settle_all() -> Result<()> {
    settle_where(|_| true)
}

/// Finish the unsettled queues `pick` selects, then drop the settled ones from the list. The first
/// error (a device fault, which marks its queue) is returned after all were finished.
fn settle_where(pick: impl Fn(&Queue) -> bool) -> Result<()> {
    if UNSETTLED_COUNT.load(Ordering::SeqCst) == 0 {
        return Ok(());
    }
    if UNSETTLED_PID.load(Ordering::SeqCst) != std::process::id() {
        let mut list = lock(&UNSETTLED);
        if UNSETTLED_PID.load(Ordering::SeqCst) != std::process::id() {
            std::mem::forget(std::mem::take(&mut *list)); // the parent's queues: never released here
            UNSETTLED_COUNT.store(0, Ordering::SeqCst);
        }
        return Ok(());
    }
    let targets: Vec<Queue> = lock(&UNSETTLED).iter().filter(|q| pick(q)).cloned().collect();
    if targets.is_empty() {
        return Ok(());
    }
    let mut first = None;
    for q in &targets {
        if let Err(e) = q.settle() {
            first.get_or_insert(e);
        }
    }
    let mut list = lock(&UNSETTLED);
    list.retain(|q| {
        if !q.settled() {
            return true;
        }
        // Unlisted, then checked again: a command noted after the first check either sees the flag
        // cleared (and lists the queue again, after this lock) or is seen by the second check.
        q.0.listed.store(false, Ordering::SeqCst);
        if q.settled() {
            return false;
        }
        q.0.listed.store(true, Ordering::SeqCst);
        true
    });
    UNSETTLED_COUNT.store(list.len(), Ordering::SeqCst);
    first.map_or(Ok(()), Err)
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
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
            unwaited: AtomicU64::new(0),
            completed: AtomicU64::new(0),
            listed: AtomicBool::new(false),
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
    /// call that made it or noted as unwaited, so with none in flight (in any thread) and none
    /// unwaited there is nothing to wait for: no driver round trip then (about 8 us with NVIDIA's
    /// driver).
    pub fn wait(&self) -> Result<()> {
        if self.0.pending.load(Ordering::SeqCst) == 0 && self.settled() {
            return Ok(());
        }
        self.settle_with(true)
    }

    /// Record a command enqueued on this (in-order) queue that nobody waits for: the queue is
    /// unsettled until a later wait (see the module documentation).
    pub(crate) fn note_unwaited(&self) {
        self.0.unwaited.fetch_add(1, Ordering::SeqCst);
        if !self.0.listed.swap(true, Ordering::SeqCst) {
            let mut list = lock(&UNSETTLED);
            let pid = std::process::id();
            if UNSETTLED_PID.swap(pid, Ordering::SeqCst) != pid {
                std::mem::forget(std::mem::take(&mut *list)); // a forked child: its parent's queues
            }
            if !list.iter().any(|q| q == self) {
                list.push(self.clone());
            }
            UNSETTLED_COUNT.store(list.len(), Ordering::SeqCst);
        }
    }

    /// Whether every command enqueued without a wait has been waited for since.
    fn settled(&self) -> bool {
        self.0.completed.load(Ordering::SeqCst) >= self.0.unwaited.load(Ordering::SeqCst)
    }

    /// Wait for the commands enqueued without a wait (nothing to do when there are none).
    pub fn settle(&self) -> Result<()> {
        self.settle_with(false)
    }

    fn settle_with(&self, always: bool) -> Result<()> {
        let target = self.0.unwaited.load(Ordering::SeqCst);
        if !always && self.0.completed.load(Ordering::SeqCst) >= target {
            return Ok(());
        }
        if let Err(e) = self.finish() {
            let what = format!("a command enqueued without a wait failed on the device ({e})");
            self.mark_faulted(what.clone());
            return Err(Error::DeviceFault(format!("{what} on {self:?}; this queue is refused from now on")));
        }
        self.0.completed.fetch_max(target, Ordering::SeqCst);
        Ok(())
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

    /// A `DeviceFault` error where a kernel faulted on this queue earlier. Called before every
    /// submission: the other unsettled queues of the context are finished first (see the module
    /// documentation).
    pub fn check_usable(&self) -> Result<()> {
        settle_where(|q| q != self && q.context() == self.context())?;
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
