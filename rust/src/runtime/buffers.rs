//! The `cl_mem` buffer back end, for devices without USM (NVIDIA's OpenCL has neither SVM nor USM).
//!
//! Every allocation is one `cl_mem` buffer. So that the rest of the system keeps describing memory
//! by plain addresses (views, Numba's array structs, `__sycl_usm_array_interface__`, the
//! (base, byte offset) kernel ABI), each buffer also gets a reserved, inaccessible range of host
//! address space (`mmap(PROT_NONE)`, no memory behind it): its start is the allocation's address, and
//! any address inside the range names the buffer plus an offset. The registry below maps address
//! ranges back to buffers for kernel arguments, copies and fills. Touching such an address on the
//! host faults, which is why host access always goes through copies on this back end.
//!
//! Memory kinds: `device` arrays are plain buffers; `shared` and `host` arrays are buffers created
//! with `CL_MEM_ALLOC_HOST_PTR` (pinned host memory on NVIDIA, which speeds up transfers). All three
//! keep their USM type for the compute-follows-data rules; none is host-addressable here.

use std::collections::BTreeMap;
use std::ffi::c_void;
use std::sync::RwLock;

use opencl3::event::Event;
use opencl3::memory::{CL_MEM_ALLOC_HOST_PTR, CL_MEM_READ_WRITE};
use opencl3::types::{cl_mem, CL_BLOCKING};

use super::memory::UsmKind;
use super::queue::Queue;
use crate::error::{Error, Result};

struct Entry {
    /// Length of the reserved address range (at least `size + 1`, so one-past-the-end addresses of
    /// views still name the buffer).
    reserved: usize,
    /// Size of the buffer in bytes.
    size: usize,
    mem: usize,
    context: usize,
}

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
    })
}

/// Create a buffer of `size` bytes for `queue`'s context and return its address.
pub(crate) fn allocate(queue: &Queue, kind: UsmKind, size: usize) -> Result<usize> {
    let ctx = queue.context();
    let flags = CL_MEM_READ_WRITE | if kind == UsmKind::Device { 0 } else { CL_MEM_ALLOC_HOST_PTR };
    let bytes = size.max(1);
    let mem =
        unsafe { opencl3::memory::create_buffer(ctx.raw(), flags, bytes, std::ptr::null_mut()) }.map_err(|e| {
            Error::Memory(format!(
                "allocating {size} bytes of {} memory (cl_mem buffer) on {} failed: {}",
                kind.as_str(),
                queue.device().filter_string(),
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
    reg.insert(addr as usize, Entry { reserved, size: bytes, mem: mem as usize, context: ctx.raw() as usize });
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

fn in_context(queue: &Queue, addr: usize, len: usize, what: &str) -> Result<Option<Found>> {
    let Some(f) = lookup(addr) else { return Ok(None) };
    if f.context != queue.context().raw() as usize {
        return Err(Error::Memory(format!(
            "{what} at {addr:#x} is a buffer of another context than {:?}'s; copy the array to that queue first",
            queue
        )));
    }
    if len > f.remaining {
        return Err(Error::Memory(format!(
            "{what}: {len} bytes at {addr:#x} run past the end of its buffer ({} bytes left)",
            f.remaining
        )));
    }
    Ok(Some(f))
}

fn done(r: std::result::Result<opencl3::types::cl_event, i32>, call: &'static str) -> Result<()> {
    match r {
        Ok(ev) => {
            let ev = Event::new(ev);
            ev.wait().map_err(|e| Error::cl(e.0, "clWaitForEvents"))
        }
        Err(e) => Err(Error::cl(e, call)),
    }
}

/// Blocking copy of `len` bytes; each side is a buffer address of `queue`'s context or host memory.
///
/// # Safety
/// Host-side ranges must be valid for `len` bytes.
pub(crate) unsafe fn copy(queue: &Queue, dst: usize, src: usize, len: usize) -> Result<()> {
    let q = queue.raw();
    let d = in_context(queue, dst, len, "copy destination")?;
    let s = in_context(queue, src, len, "copy source")?;
    unsafe {
        match (d, s) {
            (None, None) => {
                std::ptr::copy(src as *const u8, dst as *mut u8, len);
                Ok(())
            }
            (Some(d), None) => done(
                opencl3::command_queue::enqueue_write_buffer(
                    q,
                    d.mem,
                    CL_BLOCKING,
                    d.offset,
                    len,
                    src as *const c_void,
                    0,
                    std::ptr::null(),
                ),
                "clEnqueueWriteBuffer",
            ),
            (None, Some(s)) => done(
                opencl3::command_queue::enqueue_read_buffer(
                    q,
                    s.mem,
                    CL_BLOCKING,
                    s.offset,
                    len,
                    dst as *mut c_void,
                    0,
                    std::ptr::null(),
                ),
                "clEnqueueReadBuffer",
            ),
            (Some(d), Some(s)) => {
                let overlap = d.mem == s.mem && d.offset < s.offset + len && s.offset < d.offset + len;
                if overlap {
                    // clEnqueueCopyBuffer rejects overlapping regions of one buffer: stage on the host.
                    let mut tmp = vec![0u8; len];
                    copy(queue, tmp.as_mut_ptr() as usize, src, len)?;
                    return copy(queue, dst, tmp.as_ptr() as usize, len);
                }
                done(
                    opencl3::command_queue::enqueue_copy_buffer(
                        q,
                        s.mem,
                        d.mem,
                        s.offset,
                        d.offset,
                        len,
                        0,
                        std::ptr::null(),
                    ),
                    "clEnqueueCopyBuffer",
                )
            }
        }
    }
}

/// Fill `len` bytes at buffer address `dst` with copies of `pattern` (blocking).
pub(crate) fn fill(queue: &Queue, dst: usize, pattern: &[u8], len: usize) -> Result<()> {
    let Some(d) = in_context(queue, dst, len, "fill destination")? else {
        return Err(Error::Memory(format!("fill destination {dst:#x} is not a buffer of {queue:?}")));
    };
    // clEnqueueFillBuffer needs the offset and size to be multiples of the pattern size.
    if !d.offset.is_multiple_of(pattern.len()) || !len.is_multiple_of(pattern.len()) {
        let mut tmp = Vec::with_capacity(len);
        while tmp.len() < len {
            tmp.extend_from_slice(&pattern[..pattern.len().min(len - tmp.len())]);
        }
        return unsafe { copy(queue, dst, tmp.as_ptr() as usize, len) };
    }
    done(
        unsafe {
            opencl3::command_queue::enqueue_fill_buffer(
                queue.raw(),
                d.mem,
                pattern.as_ptr() as *const c_void,
                pattern.len(),
                d.offset,
                len,
                0,
                std::ptr::null(),
            )
        },
        "clEnqueueFillBuffer",
    )
}

/// The `cl_mem` and byte offset a kernel receives for address `addr` on `queue` (null for a null
/// address). Errors name the argument when the address is not a buffer of the queue's context.
pub(crate) fn kernel_arg(queue: &Queue, addr: usize, index: u32) -> Result<(cl_mem, usize)> {
    if addr == 0 {
        return Ok((std::ptr::null_mut(), 0));
    }
    match in_context(queue, addr, 0, &format!("kernel argument {index}"))? {
        Some(f) => Ok((f.mem, f.offset)),
        None => Err(Error::Launch(format!(
            "kernel argument {index} (address {addr:#x}) is not device memory of {queue:?}: on this device (no USM) arrays must be numba_ext arrays allocated on its queue"
        ))),
    }
}

/// Live buffers (diagnostics).
pub fn live_buffers() -> usize {
    REGISTRY.read().unwrap_or_else(|p| p.into_inner()).len()
}
