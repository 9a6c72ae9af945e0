//! Memory bound to a queue: an [`Allocation`] is a block of its queue's context (USM with Intel's
//! extension, else a `cl_mem` buffer; `pool.rs` hands blocks out and takes them back). Either way an
//! allocation is described to the rest of the system by a data address and a byte size; kernels
//! receive it as (base pointer, byte offset), so both back ends share one kernel ABI.

use std::ffi::c_void;
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::device::DeviceKind;
use super::queue::Queue;
use super::transfer;
use super::usm::UsmKind;
use crate::error::{Error, Result};

static LIVE: AtomicUsize = AtomicUsize::new(0);

/// Number of allocations currently alive in this process (for leak tests and diagnostics).
pub fn live_allocations() -> usize {
    LIVE.load(Ordering::Relaxed)
}

/// One allocation. Its block goes back to the context's pool when dropped (a block the pool does not
/// keep is freed, blocking, so in-flight kernels finish first).
pub struct Allocation {
    queue: Queue,
    kind: UsmKind,
    size: usize,
    /// A USM pointer, or the start of a buffer's reserved address range.
    addr: usize,
}

unsafe impl Send for Allocation {}
unsafe impl Sync for Allocation {}

impl fmt::Debug for Allocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Allocation({} bytes, {}, {:?} at {:p})", self.size, self.kind.as_str(), self.queue, self.addr())
    }
}

impl Allocation {
    /// Allocate `size` bytes of `kind` memory for `queue`'s device in its context.
    pub fn new(queue: &Queue, kind: UsmKind, size: usize) -> Result<Allocation> {
        let addr = queue.context().pool().allocate(queue.device(), kind, size)?;
        LIVE.fetch_add(1, Ordering::Relaxed);
        Ok(Allocation { queue: queue.clone(), kind, size, addr })
    }

    pub fn queue(&self) -> &Queue {
        &self.queue
    }
    pub fn kind(&self) -> UsmKind {
        self.kind
    }
    pub fn size(&self) -> usize {
        self.size
    }
    /// The data address: for USM, a pointer valid in the allocation's context; for a buffer, the
    /// start of its reserved (host-inaccessible) address range.
    pub fn addr(&self) -> *mut c_void {
        self.addr as *mut c_void
    }

    /// Whether the host can read and write the memory directly (host and shared USM, and device USM
    /// of a CPU device); never for buffers.
    pub fn host_accessible(&self) -> bool {
        self.queue.context().has_usm()
            && (self.kind != UsmKind::Device || self.queue.device().kind() == DeviceKind::Cpu)
    }

    /// Copy `src` (host memory) into the allocation at byte `offset`.
    pub fn write(&self, offset: usize, src: &[u8]) -> Result<()> {
        self.check_range(offset, src.len())?;
        if src.is_empty() {
            return Ok(());
        }
        let dst = (self.addr + offset) as *mut c_void;
        unsafe { transfer::copy(&self.queue, dst, src.as_ptr() as *const c_void, src.len()) }
    }

    /// Copy `dst.len()` bytes starting at byte `offset` of the allocation into `dst` (host memory).
    pub fn read(&self, offset: usize, dst: &mut [u8]) -> Result<()> {
        self.check_range(offset, dst.len())?;
        if dst.is_empty() {
            return Ok(());
        }
        let src = (self.addr + offset) as *const c_void;
        unsafe { transfer::copy(&self.queue, dst.as_mut_ptr() as *mut c_void, src, dst.len()) }
    }

    /// Fill the whole allocation with copies of `pattern` (1, 2, 4, 8 ... 128 bytes).
    pub fn fill(&self, pattern: &[u8]) -> Result<()> {
        if self.size == 0 {
            return Ok(());
        }
        if pattern.is_empty() || !self.size.is_multiple_of(pattern.len()) {
            return Err(Error::Memory(format!(
                "fill pattern of {} bytes does not tile {} bytes",
                pattern.len(),
                self.size
            )));
        }
        unsafe { transfer::fill(&self.queue, self.addr(), pattern, self.size) }
    }

    fn check_range(&self, offset: usize, len: usize) -> Result<()> {
        if offset.checked_add(len).is_none_or(|end| end > self.size) {
            return Err(Error::Memory(format!(
                "copy of {len} bytes at offset {offset} is outside an allocation of {} bytes",
                self.size
            )));
        }
        Ok(())
    }
}

impl Drop for Allocation {
    fn drop(&mut self) {
        LIVE.fetch_sub(1, Ordering::Relaxed);
        self.queue.context().pool().release(self.queue.device(), self.kind, self.size, self.addr);
    }
}
