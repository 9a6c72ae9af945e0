//! The `cl_mem` buffer back end, for devices without USM (NVIDIA's OpenCL has neither SVM nor USM).
//!
//! Every allocation is one `cl_mem` buffer. So that the rest of the system keeps describing memory
//! by plain addresses (views, Numba's array structs, `__sycl_usm_array_interface__`, the
//! (base, byte offset) kernel ABI), each buffer also gets a reserved, inaccessible range of host
//! address space (`mmap(PROT_NONE)`, no memory behind it): its start is the allocation's address, and
//! any address inside the range names the buffer plus an offset. The registry below maps address
//! ranges back to buffers for kernel arguments, copies and fills (`transfer.rs`, `launch.rs`).
//! Touching such an address on the host faults, which is why host access always goes through copies
//! on this back end.
//!
//! Memory kinds: `device` arrays are plain buffers; `shared` and `host` arrays are buffers created
//! with `CL_MEM_ALLOC_HOST_PTR` (pinned host memory on NVIDIA, which speeds up transfers). All three
//! keep their USM type for the compute-follows-data rules; none is host-addressable here.

use std::collections::BTreeMap;
use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::RwLock;

use opencl3::memory::{CL_MEM_ALLOC_HOST_PTR, CL_MEM_READ_WRITE};
use opencl3::types::{cl_context, cl_mem};

use super::device::Device;
use super::usm::UsmKind;
use crate::error::{Error, Result};

struct Entry {
    /// Length of the reserved address range (at least `size + 1`, so one-past-the-end addresses of
    /// views still name the buffer).
    reserved: usize,
    /// Size of the buffer in bytes.
    size: usize,
    mem: usize,
    context: usize,
    /// The USM type the buffer was allocated as, and the device it was allocated for.
    kind: UsmKind,
    device: usize,
    /// Unique for the life of the process (addresses and `cl_mem` handles are reused).
    id: u64,
}

/// The next buffer's [`Entry::id`].
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// Address ranges of live buffers, by start address. Thread-safe; entries live exactly as long as
/// their buffer.
static REGISTRY: RwLock<BTreeMap<usize, Entry>> = RwLock::new(BTreeMap::new());

fn page() -> usize {
    (unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).max(4096) as usize
}

/// A buffer found by address.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Found {
    pub mem: cl_mem,
    /// Byte offset of the address inside the buffer.
    pub offset: usize,
    /// Bytes of the buffer from `offset` to its end.
    pub remaining: usize,
    pub context: usize,
    /// Size of the buffer in bytes.
    pub size: usize,
    pub kind: UsmKind,
    /// The `cl_device_id` the buffer was allocated for, as an address.
    pub device: usize,
    /// Names this buffer alone for the life of the process (never reused, unlike its address).
    pub id: u64,
}

/// The buffer whose reserved range holds `addr`, if any.
pub(crate) fn lookup(addr: usize) -> Option<Found> {
    let reg = REGISTRY.read().unwrap_or_else(|p| p.into_inner());
    let (&start, e) = reg.range(..=addr).next_back()?;
    let offset = addr - start;
    (offset < e.reserved).then(|| Found {
        mem: e.mem as cl_mem,
        offset,
        remaining: e.size.saturating_sub(offset),
        context: e.context,
        size: e.size,
        kind: e.kind,
        device: e.device,
        id: e.id,
    })
}

/// Create a buffer of `size` bytes for `device` in `context` and return its address.
pub(crate) fn allocate(context: cl_context, device: &Device, kind: UsmKind, size: usize) -> Result<usize> {
    let flags = CL_MEM_READ_WRITE | if kind == UsmKind::Device { 0 } else { CL_MEM_ALLOC_HOST_PTR };
    let bytes = size.max(1);
    let mem = unsafe { opencl3::memory::create_buffer(context, flags, bytes, std::ptr::null_mut()) }.map_err(|e| {
        Error::Memory(format!(
            "allocating {size} bytes of {} memory (cl_mem buffer) on {} failed: {}",
            kind.as_str(),
            device.filter_string(),
            Error::cl(e, "clCreateBuffer")
        ))
    })?;
    let reserved = (bytes + 1).div_ceil(page()) * page();
    let addr = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            reserved,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    if addr == libc::MAP_FAILED {
        unsafe { opencl3::memory::release_mem_object(mem).ok() };
        return Err(Error::Memory(format!("reserving {reserved} bytes of address space for a buffer failed")));
    }
    let mut reg = REGISTRY.write().unwrap_or_else(|p| p.into_inner());
    reg.insert(
        addr as usize,
        Entry {
            reserved,
            size: bytes,
            mem: mem as usize,
            context: context as usize,
            kind,
            device: device.id() as usize,
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        },
    );
    Ok(addr as usize)
}

/// Release the buffer at `addr` (its start address) and its address range.
pub(crate) fn free(addr: usize) {
    let entry = REGISTRY.write().unwrap_or_else(|p| p.into_inner()).remove(&addr);
    if let Some(e) = entry {
        // clReleaseMemObject defers the actual free until commands using the buffer have finished.
        unsafe {
            opencl3::memory::release_mem_object(e.mem as cl_mem).ok();
            libc::munmap(addr as *mut c_void, e.reserved);
        }
    }
}

/// Live buffers (diagnostics).
pub fn live_buffers() -> usize {
    REGISTRY.read().unwrap_or_else(|p| p.into_inner()).len()
}
