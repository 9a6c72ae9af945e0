//! The allocation pool: the blocks of device memory of one context, and the freed ones kept for
//! reuse. Allocating and freeing USM is slow (tens of microseconds, and fresh pages fault on first
//! touch), and so is creating buffers, while programs typically allocate the same sizes again and
//! again. A freed block is kept per (device, USM type, size) and handed out again for the same
//! request. A block returned here may still be used by a command left running on an in-order queue
//! (the eager library's kernels, see `queue.rs`): the next command of that queue runs after it, and
//! a command on any other queue of the context first waits for it, so whoever takes the block next
//! never touches it early. (Asynchronous kernel launches keep their arguments alive until waited
//! on.)
//!
//! Blocks are USM pointers on a context with USM, else `cl_mem` buffers named by their address (see
//! `buffers.rs`). Each context owns one pool and empties it before the context is released.

use std::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use opencl3::types::cl_context;

use super::buffers;
use super::device::Device;
use super::usm::{UsmFns, UsmKind};
use super::FastMap;
use crate::error::{Error, Result};

/// Largest block kept.
const MAX_BLOCK: usize = 256 << 20;
/// Most bytes kept in all pools together.
const MAX_TOTAL: usize = 1 << 30;

/// Bytes kept in all pools.
static KEPT: AtomicUsize = AtomicUsize::new(0);

/// Alignment of USM blocks.
const USM_ALIGN: u32 = 64;

#[derive(Hash, PartialEq, Eq, Clone, Copy)]
struct Key {
    device: usize,
    kind: u32,
    size: usize,
}

impl Key {
    fn new(device: &Device, kind: UsmKind, size: usize) -> Key {
        Key { device: device.id() as usize, kind: kind.code(), size: size.max(1) }
    }
}

/// The memory blocks of one context (see the module documentation).
pub(crate) struct Pool {
    /// The context, as an address (the pool is shared between threads).
    context: usize,
    usm: Option<UsmFns>,
    free: Mutex<FastMap<Key, Vec<usize>>>,
}

impl Pool {
    pub(crate) fn new(context: cl_context, usm: Option<UsmFns>) -> Pool {
        Pool { context: context as usize, usm, free: Mutex::new(FastMap::default()) }
    }

    fn context(&self) -> cl_context {
        self.context as cl_context
    }

    /// The address of a block of `size` bytes (at least one, so that zero-size arrays still get a
    /// distinct, valid address) of `kind` memory for `device`: a kept block, else a new one.
    pub(crate) fn allocate(&self, device: &Device, kind: UsmKind, size: usize) -> Result<usize> {
        let key = Key::new(device, kind, size);
        let kept = self.free.lock().unwrap_or_else(|p| p.into_inner()).get_mut(&key).and_then(Vec::pop);
        if let Some(addr) = kept {
            KEPT.fetch_sub(key.size, Ordering::Relaxed);
            return Ok(addr);
        }
        match self.usm {
            Some(usm) => self.new_usm_block(usm, device, kind, size),
            None => buffers::allocate(self.context(), device, kind, size),
        }
    }

    /// Take back the block at `addr` (allocated with the same `device`, `kind` and `size`): keep it
    /// for reuse, or free it when it is too large or the pools are full.
    pub(crate) fn release(&self, device: &Device, kind: UsmKind, size: usize, addr: usize) {
        let key = Key::new(device, kind, size);
        let room = key.size <= MAX_BLOCK
            && KEPT
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |t| {
                    (t + key.size <= MAX_TOTAL).then_some(t + key.size)
                })
                .is_ok();
        if room {
            self.free.lock().unwrap_or_else(|p| p.into_inner()).entry(key).or_default().push(addr);
        } else {
            self.free_block(addr);
        }
    }

    /// Free every kept block (the context is about to be released).
    pub(crate) fn free_all(&self) {
        let kept = std::mem::take(&mut *self.free.lock().unwrap_or_else(|p| p.into_inner()));
        for (key, blocks) in kept {
            for addr in blocks {
                KEPT.fetch_sub(key.size, Ordering::Relaxed);
                self.free_block(addr);
            }
        }
    }

    /// Give the block at `addr` back to the driver: a blocking USM free (it waits for kernels still
    /// using the memory), or the release of a buffer (which the driver defers likewise).
    fn free_block(&self, addr: usize) {
        match self.usm {
            Some(usm) => unsafe {
                (usm.blocking_free)(self.context(), addr as *mut c_void);
            },
            None => buffers::free(addr),
        }
    }

    fn new_usm_block(&self, usm: UsmFns, device: &Device, kind: UsmKind, size: usize) -> Result<usize> {
        let (ctx, bytes, null) = (self.context(), size.max(1), std::ptr::null());
        let mut err = 0;
        let ptr = unsafe {
            match kind {
                UsmKind::Host => (usm.host_alloc)(ctx, null, bytes, USM_ALIGN, &mut err),
                UsmKind::Device => (usm.device_alloc)(ctx, device.id(), null, bytes, USM_ALIGN, &mut err),
                UsmKind::Shared => (usm.shared_alloc)(ctx, device.id(), null, bytes, USM_ALIGN, &mut err),
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
                device.filter_string(),
                Error::cl(if err == 0 { -4 } else { err }, call)
            )));
        }
        Ok(ptr as usize)
    }
}
