//! Memory bound to a queue: USM allocations (Intel's extension) and, for devices without USM, the
//! `cl_mem` buffer back end. Either way an allocation is described to the rest of the system by a
//! data address and a byte size; kernels receive it as (base pointer, byte offset), so both back ends
//! share one kernel ABI.

use std::ffi::c_void;
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};

static LIVE: AtomicUsize = AtomicUsize::new(0);

/// Number of allocations currently alive in this process (for leak tests and diagnostics).
pub fn live_allocations() -> usize {
    LIVE.load(Ordering::Relaxed)
}

use super::queue::Queue;
use crate::error::{Error, Result};

/// The USM type of an allocation. Precedence for results: `Device < Shared < Host`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UsmKind {
    Device,
    Shared,
    Host,
}

impl UsmKind {
    pub fn as_str(self) -> &'static str {
        match self {
            UsmKind::Device => "device",
            UsmKind::Shared => "shared",
            UsmKind::Host => "host",
        }
    }
    pub fn parse(s: &str) -> Result<Self> {
        match s {
            "device" => Ok(UsmKind::Device),
            "shared" => Ok(UsmKind::Shared),
            "host" => Ok(UsmKind::Host),
            _ => Err(Error::Memory(format!("unknown USM type '{s}': expected 'device', 'shared' or 'host'"))),
        }
    }
    /// Stable small integer used by compiled host code.
    pub fn code(self) -> u32 {
        match self {
            UsmKind::Device => 0,
            UsmKind::Shared => 1,
            UsmKind::Host => 2,
        }
    }
    pub fn from_code(c: u32) -> Result<Self> {
        match c {
            0 => Ok(UsmKind::Device),
            1 => Ok(UsmKind::Shared),
            2 => Ok(UsmKind::Host),
            _ => Err(Error::Memory(format!("invalid USM type code {c}"))),
        }
    }
}

/// Freed USM blocks kept for reuse, per (context, device, kind, size). Allocating and freeing USM is
/// slow (tens of microseconds, and fresh pages fault on first touch), while programs typically
/// allocate the same sizes again and again. Launches are synchronous, and asynchronous launches keep
/// their arguments alive until waited on, so a block is idle when it is returned here.
mod pool {
    use std::ffi::c_void;
    use std::sync::Mutex;

    use super::super::FastMap;

    /// Largest block kept, and the most bytes kept in all.
    pub const MAX_BLOCK: usize = 256 << 20;
    pub const MAX_TOTAL: usize = 1 << 30;

    #[derive(Hash, PartialEq, Eq, Clone, Copy)]
    pub struct Key {
        pub context: usize,
        pub device: usize,
        pub kind: u32,
        pub size: usize,
    }

    struct Pool {
        free: FastMap<Key, Vec<usize>>,
        total: usize,
    }

    static POOL: Mutex<Option<Pool>> = Mutex::new(None);

    pub fn take(key: Key) -> Option<*mut c_void> {
        let mut g = POOL.lock().unwrap_or_else(|p| p.into_inner());
        let pool = g.as_mut()?;
        let p = pool.free.get_mut(&key)?.pop()?;
        pool.total -= key.size;
        Some(p as *mut c_void)
    }

    /// Keep `ptr` for reuse; false when the pool is full (the caller frees it).
    pub fn give(key: Key, ptr: *mut c_void) -> bool {
        if key.size > MAX_BLOCK {
            return false;
        }
        let mut g = POOL.lock().unwrap_or_else(|p| p.into_inner());
        let pool = g.get_or_insert_with(|| Pool { free: FastMap::default(), total: 0 });
        if pool.total + key.size > MAX_TOTAL {
            return false;
        }
        pool.total += key.size;
        pool.free.entry(key).or_default().push(ptr as usize);
        true
    }

    /// Remove every kept block of `context` (before the context goes away).
    pub fn drain(context: usize) -> Vec<(Key, usize)> {
        let mut g = POOL.lock().unwrap_or_else(|p| p.into_inner());
        let Some(pool) = g.as_mut() else { return vec![] };
        let keys: Vec<Key> = pool.free.keys().filter(|k| k.context == context).copied().collect();
        let mut out = vec![];
        for k in keys {
            for p in pool.free.remove(&k).unwrap_or_default() {
                pool.total -= k.size;
                out.push((k, p));
            }
        }
        out
    }
}

pub(crate) use pool::drain as drain_pool;

enum Backing {
    Usm(*mut c_void),
    /// A `cl_mem` buffer, named by the start of its reserved address range (see `buffers`).
    Buffer(usize),
}

/// Give the block at `addr` back to the driver: a blocking USM free (it waits for kernels still
/// using the memory) on a context with USM (`usm`), else the release of a buffer. The one place
/// blocks are freed: when the pool declines a block, and when a context drains the pool.
pub(crate) fn free_block(usm: Option<super::usm::UsmFns>, context: opencl3::types::cl_context, addr: usize) {
    match usm {
        Some(usm) => unsafe {
            (usm.blocking_free)(context, addr as *mut c_void);
        },
        None => super::buffers::free(addr),
    }
}

/// One allocation. Freed (blocking, so in-flight kernels finish first) when dropped.
pub struct Allocation {
    queue: Queue,
    kind: UsmKind,
    size: usize,
    backing: Backing,
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
        let ctx = queue.context();
        // Zero-size arrays still get a distinct, valid allocation.
        let bytes = size.max(1);
        let key = pool::Key {
            context: ctx.raw() as usize,
            device: queue.device().id() as usize,
            kind: kind.code(),
            size: bytes,
        };
        let Some(usm) = ctx.0.usm else {
            let addr = match pool::take(key) {
                Some(p) => p as usize,
                None => super::buffers::allocate(queue, kind, size)?,
            };
            LIVE.fetch_add(1, Ordering::Relaxed);
            return Ok(Allocation { queue: queue.clone(), kind, size, backing: Backing::Buffer(addr) });
        };
        if let Some(ptr) = pool::take(key) {
            LIVE.fetch_add(1, Ordering::Relaxed);
            return Ok(Allocation { queue: queue.clone(), kind, size, backing: Backing::Usm(ptr) });
        }
        let mut err = 0;
        let align = 64;
        let ptr = unsafe {
            match kind {
                UsmKind::Host => (usm.host_alloc)(ctx.raw(), std::ptr::null(), bytes, align, &mut err),
                UsmKind::Device => {
                    (usm.device_alloc)(ctx.raw(), queue.device().id(), std::ptr::null(), bytes, align, &mut err)
                }
                UsmKind::Shared => {
                    (usm.shared_alloc)(ctx.raw(), queue.device().id(), std::ptr::null(), bytes, align, &mut err)
                }
            }
        };
        if ptr.is_null() || err != 0 {
            let call = match kind {
                UsmKind::Host => "clHostMemAllocINTEL",
                UsmKind::Device => "clDeviceMemAllocINTEL",
                UsmKind::Shared => "clSharedMemAllocINTEL",
            };
            return Err(Error::Memory(format!(
                "allocating {size} bytes of {} memory on {} failed: {}",
                kind.as_str(),
                queue.device().filter_string(),
                Error::cl(if err == 0 { -4 } else { err }, call)
            )));
        }
        LIVE.fetch_add(1, Ordering::Relaxed);
        Ok(Allocation { queue: queue.clone(), kind, size, backing: Backing::Usm(ptr) })
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
        match self.backing {
            Backing::Usm(p) => p,
            Backing::Buffer(a) => a as *mut c_void,
        }
    }

    /// Whether the host can read and write the memory directly (host and shared USM, and device USM
    /// of a CPU device); never for buffers.
    pub fn host_accessible(&self) -> bool {
        matches!(self.backing, Backing::Usm(_))
            && (self.kind != UsmKind::Device || self.queue.device().kind() == super::device::DeviceKind::Cpu)
    }

    /// Copy `src` (host memory) into the allocation at byte `offset`.
    pub fn write(&self, offset: usize, src: &[u8]) -> Result<()> {
        self.check_range(offset, src.len())?;
        if src.is_empty() {
            return Ok(());
        }
        unsafe {
            copy(
                &self.queue,
                (self.addr() as *mut u8).add(offset) as *mut c_void,
                src.as_ptr() as *const c_void,
                src.len(),
            )
        }
    }

    /// Copy `dst.len()` bytes starting at byte `offset` of the allocation into `dst` (host memory).
    pub fn read(&self, offset: usize, dst: &mut [u8]) -> Result<()> {
        self.check_range(offset, dst.len())?;
        if dst.is_empty() {
            return Ok(());
        }
        unsafe {
            copy(
                &self.queue,
                dst.as_mut_ptr() as *mut c_void,
                (self.addr() as *const u8).add(offset) as *const c_void,
                dst.len(),
            )
        }
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
        unsafe { fill(&self.queue, self.addr(), pattern, self.size) }
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

/// A blocking copy between any two addresses usable by `queue` (USM or buffer addresses of its
/// context, or host memory).
///
/// # Safety
/// Both ranges must be valid for `len` bytes.
pub unsafe fn copy(queue: &Queue, dst: *mut c_void, src: *const c_void, len: usize) -> Result<()> {
    if len == 0 {
        return Ok(());
    }
    let _in_flight = queue.submit();
    let Some(usm) = queue.context().0.usm else {
        return unsafe { super::buffers::copy(queue, dst as usize, src as usize, len) };
    };
    let rc = unsafe { (usm.memcpy)(queue.raw(), 1, dst, src, len, 0, std::ptr::null(), std::ptr::null_mut()) };
    if rc != 0 {
        return Err(Error::cl(rc, "clEnqueueMemcpyINTEL"));
    }
    Ok(())
}

/// Fill `len` bytes at `dst` with copies of `pattern` (blocking).
///
/// # Safety
/// `dst` must be USM memory (or a buffer address) of `queue`'s context, valid for `len` bytes.
pub unsafe fn fill(queue: &Queue, dst: *mut c_void, pattern: &[u8], len: usize) -> Result<()> {
    if len == 0 {
        return Ok(());
    }
    let _in_flight = queue.submit();
    let Some(usm) = queue.context().0.usm else {
        return super::buffers::fill(queue, dst as usize, pattern, len);
    };
    let rc = unsafe {
        (usm.memfill)(
            queue.raw(),
            dst,
            pattern.as_ptr() as *const c_void,
            pattern.len(),
            len,
            0,
            std::ptr::null(),
            std::ptr::null_mut(),
        )
    };
    if rc != 0 {
        return Err(Error::cl(rc, "clEnqueueMemFillINTEL"));
    }
    queue.finish()
}

impl Drop for Allocation {
    fn drop(&mut self) {
        LIVE.fetch_sub(1, Ordering::Relaxed);
        let ctx = self.queue.context();
        let key = pool::Key {
            context: ctx.raw() as usize,
            device: self.queue.device().id() as usize,
            kind: self.kind.code(),
            size: self.size.max(1),
        };
        if pool::give(key, self.addr()) {
            return;
        }
        free_block(ctx.0.usm, ctx.raw(), self.addr() as usize);
    }
}
