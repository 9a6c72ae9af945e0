//! Launching compiled kernels: one path for every launch (elementwise kernels, ND-range kernels,
//! launches from compiled host code and from Python). The argument slots of a launch (one `u64`
//! each, see [`codegen::ArgSlot`](crate::codegen::ArgSlot)) are marshalled into a [`Slots`], the
//! range checked into an `NdRange`; the kernel's arguments are set (only those that changed since
//! its last launch) and the range is enqueued and waited for.

use std::ffi::c_void;

use opencl3::event::Event;
use opencl3::kernel::Kernel;
use opencl3::types::cl_kernel;

use super::program::{CompiledKernel, Loaded};
use super::queue::Queue;
use super::transfer;
use super::usm::UsmFns;
use crate::codegen::{ArgSlot, Flavor};
use crate::error::{ClResultExt, Error, Result};
use crate::ir::ParamKind;

/// Work-items per group that numba_ext uses on NVIDIA devices where the launch does not say: grid-
/// stride and bounds-guarded kernels round their range up to it, others get `nvidia_local_size`.
pub const NVIDIA_WORK_GROUP: usize = 256;

/// Work-items per group of the body of an elementwise SPIR-V launch whose size is not a multiple
/// of it, and the size from which such launches are split into a body and a tail.
const SPIRV_WORK_GROUP: usize = 64;
const SPLIT_FROM: usize = 4096;

/// Slots kept inline by [`Slots`] (launches with more use the heap).
const INLINE_SLOTS: usize = 48;

/// The argument slots of one launch, on the stack for the usual counts.
pub struct Slots {
    inline: [u64; INLINE_SLOTS],
    len: usize,
    heap: Vec<u64>,
}

impl Default for Slots {
    fn default() -> Self {
        Slots { inline: [0; INLINE_SLOTS], len: 0, heap: Vec::new() }
    }
}

impl Slots {
    pub fn new() -> Self {
        Self::default()
    }

    /// Append slots.
    pub fn extend(&mut self, values: &[u64]) {
        if self.heap.is_empty() && self.len + values.len() <= INLINE_SLOTS {
            self.inline[self.len..self.len + values.len()].copy_from_slice(values);
        } else {
            if self.heap.is_empty() {
                self.heap.extend_from_slice(&self.inline[..self.len]);
            }
            self.heap.extend_from_slice(values);
        }
        self.len += values.len();
    }

    /// Append one slot (a scalar's bits, a size).
    pub fn push(&mut self, value: u64) {
        self.extend(&[value]);
    }

    /// Append an array argument: its data address, then its shape and byte strides (one word each
    /// per dimension).
    pub fn push_array(&mut self, data: u64, shape_then_strides: &[u64]) {
        self.push(data);
        self.extend(shape_then_strides);
    }

    pub fn as_slice(&self) -> &[u64] {
        if self.heap.is_empty() {
            &self.inline[..self.len]
        } else {
            &self.heap
        }
    }
}

/// A launch range of 1 to 3 dimensions: the global size and, optionally, the work-group size, which
/// divides it in every dimension.
#[derive(Clone, Copy, Debug)]
struct NdRange {
    dims: usize,
    global: [usize; 3],
    local: Option<[usize; 3]>,
    /// The global id of the first work-item in dimension 0 (a launch of the tail of a range).
    offset: [usize; 3],
}

impl NdRange {
    /// Check a range (`local` None lets the driver choose the work-group size).
    fn new(global: &[usize], local: Option<&[usize]>) -> Result<NdRange> {
        if global.is_empty() || global.len() > 3 || local.is_some_and(|l| l.len() != global.len()) {
            return Err(Error::Launch(format!(
                "global range {global:?} and local range {local:?} must have the same 1 to 3 dimensions"
            )));
        }
        if let Some(l) = local {
            if let Some(d) = (0..l.len()).find(|&d| l[d] == 0 || !global[d].is_multiple_of(l[d])) {
                return Err(Error::Launch(format!(
                    "local size {} does not divide global size {} in dimension {d}",
                    l[d], global[d]
                )));
            }
        }
        let fixed = |s: &[usize]| {
            let mut a = [1usize; 3];
            a[..s.len()].copy_from_slice(s);
            a
        };
        Ok(NdRange { dims: global.len(), global: fixed(global), local: local.map(fixed), offset: [0; 3] })
    }

    fn global(&self) -> &[usize] {
        &self.global[..self.dims]
    }
    fn local(&self) -> Option<&[usize]> {
        self.local.as_ref().map(|l| &l[..self.dims])
    }
}

/// What a launch does once its command is enqueued.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Completion {
    /// Wait for it (a device fault is this launch's error).
    Wait,
    /// On an in-order queue, return at once and leave the queue unsettled (see `queue.rs`): later
    /// commands of the queue follow it, and anything else waits first. (Out-of-order queues wait,
    /// and so does every launch while `NUMBA_EXT_LAUNCH_BLOCKING` is set to anything but 0.)
    Leave,
}

impl Completion {
    /// Whether a launch with this completion on `queue` returns before its command finished.
    fn leaves(self, queue: &Queue) -> bool {
        static BLOCKING: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        let blocking = *BLOCKING
            .get_or_init(|| std::env::var("NUMBA_EXT_LAUNCH_BLOCKING").is_ok_and(|v| !v.is_empty() && v != "0"));
        self == Completion::Leave && queue.in_order() && !blocking
    }
}

impl CompiledKernel {
    /// Launch an elementwise kernel with *general* slots: every array parameter followed by its byte
    /// strides over the iteration space (0 where it broadcasts). Without broadcasting the kernel
    /// itself runs (stride slots of its contiguous arrays are dropped); with broadcasting, its
    /// all-strided twin.
    pub fn launch_general(&self, queue: &Queue, slots: &[u64], broadcast: bool) -> Result<()> {
        let spec = self.elementwise_spec().ok_or_else(|| Error::Launch("not an elementwise kernel".into()))?;
        if broadcast {
            return self.strided_twin()?.launch(queue, slots);
        }
        let mut own = Slots::new();
        let mut i = 0;
        for p in &spec.params {
            match p.kind {
                ParamKind::Array { contiguous, .. } => {
                    own.push(slots[i]);
                    if !contiguous {
                        own.extend(&slots[i + 1..i + 1 + spec.ndim]);
                    }
                    i += 1 + spec.ndim;
                }
                ParamKind::Scalar { dtype } => {
                    // a complex scalar takes two slots, its real and imaginary parts
                    let k = if dtype.is_complex() { 2 } else { 1 };
                    own.extend(&slots[i..i + k]);
                    i += k;
                }
            }
        }
        own.extend(&slots[i..]);
        self.launch(queue, own.as_slice())
    }

    /// Launch an elementwise kernel on `queue` with one `u64` per slot (see
    /// [`ArgSlot`]) and wait for it. The last slot is the element count, the global size.
    pub fn launch(&self, queue: &Queue, slots: &[u64]) -> Result<()> {
        self.launch_then(queue, slots, Completion::Wait)
    }

    /// [`CompiledKernel::launch`], waited for or left running as `then` says.
    pub fn launch_then(&self, queue: &Queue, slots: &[u64], then: Completion) -> Result<()> {
        let n = *slots.last().unwrap_or(&0) as usize;
        if self.binary().flavor == Flavor::Nvptx && n > 0 {
            // PTX elementwise kernels guard `gid < n`: launch whole work-groups of 256, since NVIDIA's
            // driver, left to choose, picks a divisor of n (as small as 1 for a prime n).
            const WG: usize = NVIDIA_WORK_GROUP;
            return self.launch_nd_then(queue, slots, &[n.div_ceil(WG) * WG], Some(&[WG]), then);
        }
        if self.binary().flavor == Flavor::Spirv && n >= SPLIT_FROM && !n.is_multiple_of(SPIRV_WORK_GROUP) {
            // SPIR-V elementwise kernels cover exactly n work-items (no guard, so the driver
            // vectorises across them), and a CPU driver left to choose takes a divisor of n as the
            // work-group size: 1 for a prime n, 35x slower. The body goes in groups of
            // SPIRV_WORK_GROUP, the tail after it from its offset.
            let body = n / SPIRV_WORK_GROUP * SPIRV_WORK_GROUP;
            let first = if queue.in_order() { Completion::Leave } else { Completion::Wait };
            if let Some(range) = self.checked_range(slots, &[body], Some(&[SPIRV_WORK_GROUP]))? {
                self.enqueue(queue, slots, &range, first)?;
            }
            if let Some(mut range) = self.checked_range(slots, &[n - body], None)? {
                range.offset[0] = body;
                self.enqueue(queue, slots, &range, then)?;
            }
            return Ok(());
        }
        self.launch_nd_then(queue, slots, &[n], None, then)
    }

    /// Launch over an ND-range (`local` = work-group size, or None to let the driver choose) and
    /// wait for completion.
    pub fn launch_nd(&self, queue: &Queue, slots: &[u64], global: &[usize], local: Option<&[usize]>) -> Result<()> {
        self.launch_nd_then(queue, slots, global, local, Completion::Wait)
    }

    /// [`CompiledKernel::launch_nd`], waited for or left running as `then` says.
    pub fn launch_nd_then(
        &self,
        queue: &Queue,
        slots: &[u64],
        global: &[usize],
        local: Option<&[usize]>,
        then: Completion,
    ) -> Result<()> {
        match self.checked_range(slots, global, local)? {
            Some(range) => self.enqueue(queue, slots, &range, then),
            None => Ok(()),
        }
    }

    /// [`CompiledKernel::launch_nd`] after filling `len` bytes at `dst` with `pattern` (a result the
    /// kernel accumulates into): on an in-order queue the fill is not waited for on its own (the
    /// kernel follows it), which saves a round trip to the driver.
    ///
    /// # Safety
    /// `dst` must be USM memory (or a buffer address) of `queue`'s context, valid for `len` bytes.
    pub unsafe fn launch_nd_after_fill(
        &self,
        queue: &Queue,
        (dst, pattern, len): (*mut std::ffi::c_void, &[u8], usize),
        slots: &[u64],
        global: &[usize],
        local: Option<&[usize]>,
        then: Completion,
    ) -> Result<()> {
        let _in_flight = queue.submit();
        let ahead = queue.in_order() && !global.contains(&0);
        unsafe { super::transfer::fill_then(queue, dst, pattern, len, !ahead)? };
        let launched = self.launch_nd_then(queue, slots, global, local, then);
        if ahead && launched.is_err() {
            let _ = queue.finish(); // the fill, before its memory may be reused
        }
        launched
    }

    /// Set the arguments, enqueue the range and wait (or, on an in-order queue with
    /// [`Completion::Leave`], note the command as unwaited).
    fn enqueue(&self, queue: &Queue, slots: &[u64], range: &NdRange, then: Completion) -> Result<()> {
        if then.leaves(queue) {
            self.submit(queue, slots, range, false)?;
            // (no clFlush: NVIDIA's driver starts the kernels without one; flushing each launch
            // made a stream of small ones slower, 23 us against 18 per `a + b`)
            queue.note_unwaited();
            return Ok(());
        }
        let _in_flight = queue.submit();
        let event = self.submit(queue, slots, range, true)?.expect("an event was asked for");
        event.wait().cl("clWaitForEvents").map_err(|e| self.device_fault(queue, e))
    }

    /// Check the slots and the range of a launch (None: an empty range, nothing to launch).
    fn checked_range(&self, slots: &[u64], global: &[usize], local: Option<&[usize]>) -> Result<Option<NdRange>> {
        let layout = self.slots();
        if slots.len() != layout.len() {
            return Err(Error::Launch(format!(
                "kernel '{}' takes {} argument slots, got {}",
                self.binary().kernel_name,
                layout.len(),
                slots.len()
            )));
        }
        let range = NdRange::new(global, local)?;
        Ok((!range.global().contains(&0)).then_some(range))
    }

    /// Set the arguments and enqueue the range; the caller waits for the event (or a later one of
    /// the same in-order queue).
    fn submit(&self, queue: &Queue, slots: &[u64], range: &NdRange, event: bool) -> Result<Option<Event>> {
        queue.check_usable()?;
        let loaded = self.load(queue.context(), queue.device())?;
        let event = {
            let mut guard = loaded.lock().unwrap();
            let Loaded { kernel, last, buffers, .. } = &mut *guard;
            ArgSetter { kernel, queue, usm: queue.context().usm() }.set_all(self.slots(), slots, last, buffers)?;
            // NVIDIA's driver, left to choose, picks small work-groups (kernel variants ran 2x slower
            // than the same work launched in groups of 256): choose for it, power-of-two sizes that
            // divide the global size, up to 256 work-items, filling dimension 0 first.
            let global = range.global();
            let chosen;
            let local = match range.local() {
                None if self.binary().flavor == Flavor::Nvptx => {
                    chosen = nvidia_local_size(global);
                    Some(&chosen[..global.len()])
                }
                l => l,
            };
            let lptr = local.map_or(std::ptr::null(), |l| l.as_ptr());
            let optr = if range.offset[0] == 0 { std::ptr::null() } else { range.offset.as_ptr() };
            unsafe { enqueue_kernel(queue, kernel.get(), global, lptr, optr, event)? }
        };
        Ok(event)
    }

    /// The error of a launch that was enqueued but failed on the device: a `DeviceFault` naming
    /// the kernel and the queue, which is marked faulted (see [`Queue::mark_faulted`]).
    fn device_fault(&self, queue: &Queue, e: Error) -> Error {
        let what = format!(
            "kernel '{}' failed on the device ({e}; NVIDIA's driver reports an out-of-bounds access as \
             CL_UNKNOWN_ERROR)",
            self.binary().kernel_name
        );
        queue.mark_faulted(what.clone());
        Error::DeviceFault(format!(
            "{what} on {queue:?}; run it with boundscheck=True (or NUMBA_BOUNDSCHECK=1) to find an index out of \
             bounds. This queue is refused from now on: create a new one"
        ))
    }
}

/// `clEnqueueNDRangeKernel` of `kernel` over `global` (work-groups of `local`, or null; global ids
/// from `offset`, or null for 0) on `queue`, with an event only when `event` asks for one: a command
/// left running on an in-order queue needs none (the queue's order and a later wait cover it), and
/// an event is one more driver object made and released per launch.
///
/// # Safety
/// `kernel`'s arguments are set; `local` and `offset` are null or hold `global.len()` sizes.
unsafe fn enqueue_kernel(
    queue: &Queue,
    kernel: cl_kernel,
    global: &[usize],
    local: *const usize,
    offset: *const usize,
    event: bool,
) -> Result<Option<Event>> {
    let dims = global.len() as u32;
    if !event {
        if let Ok(cl) = cl3::load_library() {
            let null = std::ptr::null_mut();
            let gptr = global.as_ptr();
            let rc = cl.clEnqueueNDRangeKernel(queue.raw(), kernel, dims, offset, gptr, local, 0, null, null);
            if let Some(rc) = rc {
                return if rc == 0 { Ok(None) } else { Err(Error::cl(rc, "clEnqueueNDRangeKernel")) };
            }
        }
    }
    let ev = unsafe { queue.cl().enqueue_nd_range_kernel(kernel, dims, offset, global.as_ptr(), local, &[]) };
    Ok(Some(ev.cl("clEnqueueNDRangeKernel")?))
}

/// Sets a kernel's arguments from slots.
struct ArgSetter<'a> {
    kernel: &'a Kernel,
    queue: &'a Queue,
    usm: Option<UsmFns>,
}

impl ArgSetter<'_> {
    /// Set the argument of every slot whose value differs from `last` (the values set before; for
    /// a buffer address, `buffers` holds the id of the buffer it named then).
    fn set_all(&self, layout: &[ArgSlot], slots: &[u64], last: &mut [Option<u64>], buffers: &mut [u64]) -> Result<()> {
        let mut idx = 0u32;
        for (((&slot, &v), last), buffer) in layout.iter().zip(slots).zip(last.iter_mut()).zip(buffers.iter_mut()) {
            let is_mem = matches!(slot, ArgSlot::Mem);
            if is_mem && self.usm.is_none() {
                // checked on every launch (the buffer may be gone, or of another context); set again
                // only when the address or the buffer behind it changed
                let (mem, offset, id) = buffer_arg(self.queue, v as usize, idx)?;
                if *last != Some(v) || *buffer != id {
                    last.take();
                    let k = self.kernel;
                    unsafe {
                        k.set_arg(idx, &mem).cl("clSetKernelArg")?;
                        k.set_arg(idx + 1, &(offset as i64)).cl("clSetKernelArg")?;
                    }
                    (*last, *buffer) = (Some(v), id);
                }
            } else if *last != Some(v) {
                let was_set = last.take().is_some();
                self.set(idx, slot, v, was_set)?;
                *last = Some(v);
            }
            idx += if is_mem { 2 } else { 1 };
        }
        Ok(())
    }

    /// Set the kernel argument(s) at `idx` for one slot: a USM pointer (with its byte offset, always
    /// 0, the first time) or a scalar.
    fn set(&self, idx: u32, slot: ArgSlot, v: u64, was_set: bool) -> Result<()> {
        let k = self.kernel;
        unsafe {
            match slot {
                ArgSlot::Mem => {
                    let usm = self.usm.expect("buffer arguments are set by set_all");
                    let rc = (usm.set_arg_ptr)(k.get(), idx, v as *const c_void);
                    if rc != 0 {
                        return Err(Error::cl(rc, "clSetKernelArgMemPointerINTEL"));
                    }
                    if !was_set {
                        k.set_arg(idx + 1, &0i64).cl("clSetKernelArg")?;
                    }
                }
                ArgSlot::I64 => k.set_arg(idx, &(v as i64)).cl("clSetKernelArg")?,
                ArgSlot::Scalar(d) => match d.size() {
                    1 => k.set_arg(idx, &(v as u8)).cl("clSetKernelArg")?,
                    2 => k.set_arg(idx, &(v as u16)).cl("clSetKernelArg")?,
                    4 => k.set_arg(idx, &(v as u32)).cl("clSetKernelArg")?,
                    _ => k.set_arg(idx, &v).cl("clSetKernelArg")?,
                },
            }
        }
        Ok(())
    }
}

/// The `cl_mem`, byte offset and buffer id ([`Found::id`](super::buffers::Found)) a kernel
/// receives for address `addr` on `queue` (null, 0, 0 for a null address). Errors name the argument
/// when the address is not a buffer of the queue's context.
fn buffer_arg(queue: &Queue, addr: usize, index: u32) -> Result<(opencl3::types::cl_mem, usize, u64)> {
    if addr == 0 {
        return Ok((std::ptr::null_mut(), 0, 0));
    }
    match super::buffers::lookup(addr) {
        Some(f) if f.context == queue.context().raw() as usize => Ok((f.mem, f.offset, f.id)),
        // (the message made here only: this runs on every launch)
        Some(_) => Err(transfer::buffer_at(queue, addr, 0, &format!("kernel argument {index}")).err().unwrap_or_else(
            || Error::Launch(format!("kernel argument {index} (address {addr:#x}) is a buffer of another context")),
        )),
        None => Err(Error::Launch(format!(
            "kernel argument {index} (address {addr:#x}) is not device memory of {queue:?}: on this device (no USM) arrays must be numba_ext arrays allocated on its queue"
        ))),
    }
}

/// Work-group size for a launch that named none on an NVIDIA device: per dimension, in order, the
/// largest power of two that divides the global size and keeps the group within 256 work-items.
fn nvidia_local_size(global: &[usize]) -> [usize; 3] {
    let mut local = [1usize; 3];
    let mut budget = NVIDIA_WORK_GROUP;
    for (d, &g) in global.iter().enumerate().take(3) {
        let mut l = 1;
        while l * 2 <= budget && g.is_multiple_of(l * 2) {
            l *= 2;
        }
        local[d] = l;
        budget /= l;
    }
    local
}

/// One launch of a [`launch_chain`]: the kernel, its slots, global and local sizes, and memory to
/// fill with a pattern before it (`(address, pattern, bytes)`, as
/// [`CompiledKernel::launch_nd_after_fill`]'s).
pub struct ChainStep<'a> {
    pub kernel: &'a CompiledKernel,
    pub slots: &'a [u64],
    pub global: &'a [usize],
    pub local: Option<&'a [usize]>,
    pub fill: Option<(*mut c_void, &'a [u8], usize)>,
}

/// Launch `steps` in order on `queue` and wait for them all: on an in-order queue each is enqueued
/// behind the one before and only the last command is waited for (one round trip to the driver in
/// all, where a wait per launch takes one each); on an out-of-order queue each is waited for in
/// turn. Every step's slots and range are checked before anything is enqueued. On a failure after
/// something was enqueued the queue is finished before the error returns, so no command still runs
/// on memory the caller may free. With [`Completion::Leave`], an in-order queue's chain is left
/// running (the queue unsettled) instead of waited for.
///
/// # Safety
/// Every fill's address must be memory of `queue`'s context (USM or a buffer address), valid for
/// its length.
pub unsafe fn launch_chain(queue: &Queue, steps: &[ChainStep<'_>], then: Completion) -> Result<()> {
    let ranges =
        steps.iter().map(|s| s.kernel.checked_range(s.slots, s.global, s.local)).collect::<Result<Vec<_>>>()?;
    if !queue.in_order() {
        for s in steps {
            match s.fill {
                Some(fill) => unsafe {
                    s.kernel.launch_nd_after_fill(queue, fill, s.slots, s.global, s.local, Completion::Wait)?
                },
                None => s.kernel.launch_nd(queue, s.slots, s.global, s.local)?,
            }
        }
        return Ok(());
    }
    let _in_flight = queue.submit();
    // the last command enqueued: a kernel's event (waited for), or a fill (the queue is finished);
    // only a waited chain's last kernel needs an event
    let leave = then.leaves(queue);
    let last_kernel = ranges.iter().rposition(Option::is_some);
    let mut last: Option<(&CompiledKernel, Option<Event>)> = None;
    let mut fill_last = false;
    let mut enqueue_all = || -> Result<()> {
        for (i, (s, range)) in steps.iter().zip(&ranges).enumerate() {
            if let Some((dst, pattern, len)) = s.fill {
                unsafe { transfer::fill_then(queue, dst, pattern, len, false)? };
                fill_last = len > 0;
            }
            if let Some(range) = range {
                let event = !leave && Some(i) == last_kernel;
                last = Some((s.kernel, s.kernel.submit(queue, s.slots, range, event)?));
                fill_last = false;
            }
        }
        Ok(())
    };
    if let Err(e) = enqueue_all() {
        let _ = queue.finish();
        return Err(e);
    }
    if leave {
        queue.note_unwaited();
        return Ok(());
    }
    match last {
        Some((kernel, Some(event))) if !fill_last => {
            event.wait().cl("clWaitForEvents").map_err(|e| kernel.device_fault(queue, e))
        }
        _ => queue.finish(),
    }
}

#[cfg(test)]
mod tests {
    use super::{nvidia_local_size, NdRange, Slots, INLINE_SLOTS};

    #[test]
    fn nvidia_work_groups_divide_the_range() {
        assert_eq!(nvidia_local_size(&[1 << 22]), [256, 1, 1]);
        assert_eq!(nvidia_local_size(&[2048, 2048]), [256, 1, 1]);
        assert_eq!(nvidia_local_size(&[24, 100, 7]), [8, 4, 1]);
        assert_eq!(nvidia_local_size(&[1001]), [1, 1, 1]);
        assert_eq!(nvidia_local_size(&[3, 512]), [1, 256, 1]);
    }

    #[test]
    fn slots_spill_to_the_heap_in_order() {
        let mut s = Slots::new();
        let all: Vec<u64> = (0..(INLINE_SLOTS as u64 + 5)).collect();
        s.push_array(all[0], &all[1..3]);
        s.extend(&all[3..]);
        assert_eq!(s.as_slice(), &all[..]);
    }

    #[test]
    fn ranges_are_checked() {
        assert!(NdRange::new(&[], None).is_err());
        assert!(NdRange::new(&[8, 8, 8, 8], None).is_err());
        assert!(NdRange::new(&[8], Some(&[8, 1])).is_err());
        assert!(NdRange::new(&[8], Some(&[3])).unwrap_err().to_string().contains("does not divide"));
        let r = NdRange::new(&[8, 4], Some(&[4, 2])).unwrap();
        assert_eq!((r.global(), r.local()), (&[8, 4][..], Some(&[4, 2][..])));
    }
}
