//! Blocking copies and fills between addresses a queue can use: USM pointers of its context, buffer
//! addresses of its context (`buffers.rs`), and host memory. Both memory back ends take the same
//! calls; each function picks the back end of the queue's context.

use std::ffi::c_void;

use opencl3::command_queue::{enqueue_copy_buffer, enqueue_fill_buffer, enqueue_read_buffer, enqueue_write_buffer};
use opencl3::event::Event;
use opencl3::types::{cl_event, CL_BLOCKING};

use super::buffers::{self, Found};
use super::queue::Queue;
use crate::error::{Error, Result};

/// A blocking copy between any two addresses usable by `queue` (USM or buffer addresses of its
/// context, or host memory).
///
/// # Safety
/// Both ranges must be valid for `len` bytes.
pub unsafe fn copy(queue: &Queue, dst: *mut c_void, src: *const c_void, len: usize) -> Result<()> {
    if len == 0 {
        return Ok(());
    }
    queue.check_usable()?;
    let _in_flight = queue.submit();
    let Some(usm) = queue.context().usm() else {
        return unsafe { buffer_copy(queue, dst as usize, src as usize, len) };
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
    unsafe { fill_then(queue, dst, pattern, len, true) }
}

/// [`fill`], waited for when `wait`; else only enqueued (the pattern is copied at once), for an
/// in-order queue's next command to follow, which the caller waits for.
///
/// # Safety
/// As [`fill`]'s.
pub(crate) unsafe fn fill_then(queue: &Queue, dst: *mut c_void, pattern: &[u8], len: usize, wait: bool) -> Result<()> {
    if len == 0 {
        return Ok(());
    }
    queue.check_usable()?;
    let _in_flight = queue.submit();
    let Some(usm) = queue.context().usm() else {
        return buffer_fill(queue, dst as usize, pattern, len, wait);
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
    if wait {
        queue.finish()
    } else {
        Ok(())
    }
}

/// The buffer holding the `len` bytes at `addr`, if `addr` is a buffer address (None for host
/// memory). Errors when the buffer belongs to another context than `queue`'s or is too short;
/// `what` names the address in messages.
pub(crate) fn buffer_at(queue: &Queue, addr: usize, len: usize, what: &str) -> Result<Option<Found>> {
    let Some(f) = buffers::lookup(addr) else { return Ok(None) };
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

/// Wait for the event of a command enqueued by `call`.
fn done(r: std::result::Result<cl_event, i32>, call: &'static str) -> Result<()> {
    match r {
        Ok(ev) => Event::new(ev).wait().map_err(|e| Error::cl(e.0, "clWaitForEvents")),
        Err(e) => Err(Error::cl(e, call)),
    }
}

/// Blocking copy of `len` bytes; each side is a buffer address of `queue`'s context or host memory.
///
/// # Safety
/// Host-side ranges must be valid for `len` bytes.
unsafe fn buffer_copy(queue: &Queue, dst: usize, src: usize, len: usize) -> Result<()> {
    let q = queue.raw();
    let d = buffer_at(queue, dst, len, "copy destination")?;
    let s = buffer_at(queue, src, len, "copy source")?;
    let null = std::ptr::null();
    unsafe {
        match (d, s) {
            (None, None) => {
                std::ptr::copy(src as *const u8, dst as *mut u8, len);
                Ok(())
            }
            (Some(d), None) => done(
                enqueue_write_buffer(q, d.mem, CL_BLOCKING, d.offset, len, src as *const c_void, 0, null),
                "clEnqueueWriteBuffer",
            ),
            (None, Some(s)) => done(
                enqueue_read_buffer(q, s.mem, CL_BLOCKING, s.offset, len, dst as *mut c_void, 0, null),
                "clEnqueueReadBuffer",
            ),
            (Some(d), Some(s)) => {
                let overlap = d.mem == s.mem && d.offset < s.offset + len && s.offset < d.offset + len;
                if overlap {
                    // clEnqueueCopyBuffer rejects overlapping regions of one buffer: stage on the host.
                    let mut tmp = vec![0u8; len];
                    buffer_copy(queue, tmp.as_mut_ptr() as usize, src, len)?;
                    return buffer_copy(queue, dst, tmp.as_ptr() as usize, len);
                }
                done(enqueue_copy_buffer(q, s.mem, d.mem, s.offset, d.offset, len, 0, null), "clEnqueueCopyBuffer")
            }
        }
    }
}

/// Fill `len` bytes at buffer address `dst` with copies of `pattern` (blocking).
fn buffer_fill(queue: &Queue, dst: usize, pattern: &[u8], len: usize, wait: bool) -> Result<()> {
    let Some(d) = buffer_at(queue, dst, len, "fill destination")? else {
        return Err(Error::Memory(format!("fill destination {dst:#x} is not a buffer of {queue:?}")));
    };
    // clEnqueueFillBuffer needs the offset and size to be multiples of the pattern size.
    if !d.offset.is_multiple_of(pattern.len()) || !len.is_multiple_of(pattern.len()) {
        let mut tmp = Vec::with_capacity(len);
        while tmp.len() < len {
            tmp.extend_from_slice(&pattern[..pattern.len().min(len - tmp.len())]);
        }
        return unsafe { buffer_copy(queue, dst, tmp.as_ptr() as usize, len) };
    }
    let p = pattern.as_ptr() as *const c_void;
    let enqueued =
        unsafe { enqueue_fill_buffer(queue.raw(), d.mem, p, pattern.len(), d.offset, len, 0, std::ptr::null()) };
    if wait {
        return done(enqueued, "clEnqueueFillBuffer");
    }
    enqueued.map(|ev| drop(Event::new(ev))).map_err(|e| Error::cl(e, "clEnqueueFillBuffer"))
}
