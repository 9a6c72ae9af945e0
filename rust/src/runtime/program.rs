//! Compiled kernels: the device binary for one (kernel description, target) pair, the programs
//! built from it per context, and launch.
//!
//! Code is keyed by kernel description and device capabilities, never by queue: a new queue (or a
//! new context) on a device that already has the binary only loads it, it never recompiles.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use opencl3::kernel::Kernel;
use opencl3::program::Program;
use opencl3::types::cl_context;

use super::device::Device;
use super::queue::Queue;
use super::FastMap;
use crate::codegen::{self, ArgSlot, Binary, DeviceCaps, Flavor};
use crate::error::{ClResultExt, Error, Result};
use crate::ir::{Function, KernelSpec, ParamKind};

struct Loaded {
    _program: Program,
    kernel: Kernel,
    /// The value each argument slot was last set to (None: not set, or the setting failed). A
    /// kernel keeps its arguments between launches, so unchanged ones are not set again (nor the
    /// byte offset of an array argument, always 0 with USM, once set).
    last: Vec<Option<u64>>,
}
unsafe impl Send for Loaded {}

/// A kernel compiled for one kind of device; loadable into any context holding such a device.
pub struct CompiledKernel {
    binary: Binary,
    /// The kernel loaded into the first context that launched it (the common case: one context),
    /// then the others by context.
    first: OnceLock<(usize, Arc<Mutex<Loaded>>)>,
    loaded: Mutex<FastMap<usize, Arc<Mutex<Loaded>>>>,
    /// For elementwise kernels: the description and device, to build the all-strided twin used
    /// when operands broadcast (compiled on first need).
    source: Option<(KernelSpec, Device)>,
    strided: OnceLock<std::result::Result<Arc<CompiledKernel>, String>>,
}

impl std::fmt::Debug for CompiledKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CompiledKernel({}, {:?})", self.binary.kernel_name, self.binary.flavor)
    }
}

fn caps(device: &Device) -> DeviceCaps {
    DeviceCaps::new(
        device.target().clone(),
        device.has_fp64(),
        format!("{} [{}]", device.name(), device.filter_string()),
    )
}

/// With `NUMBA_EXT_DUMP_DIR` set, every program is written there (LLVM IR and SPIR-V/PTX) before
/// the driver builds it: the switch for debugging driver problems.
fn dump(b: &Binary) {
    let Some(dir) = std::env::var_os("NUMBA_EXT_DUMP_DIR") else { return };
    let dir = std::path::PathBuf::from(dir);
    let _ = std::fs::create_dir_all(&dir);
    let ext = match b.flavor {
        Flavor::Spirv => "spv",
        Flavor::Nvptx => "ptx",
    };
    let _ = std::fs::write(dir.join(format!("{}.{ext}", b.kernel_name)), &b.bytes);
    let _ = std::fs::write(dir.join(format!("{}.ll", b.kernel_name)), &b.llvm_ir);
    let _ = std::fs::write(dir.join("last.txt"), &b.kernel_name);
}

/// Driver build options: `NUMBA_EXT_BUILD_OPTIONS` (for experiments), plus workarounds for known
/// driver bugs (see `needs_opt_disable`).
fn build_options(b: &Binary) -> String {
    let mut o = std::env::var("NUMBA_EXT_BUILD_OPTIONS").unwrap_or_default();
    // The Intel OpenCL CPU runtime (2026.2) miscompiles the bitwise not of an integer max/min
    // (`~max(a, b)` comes out as `max(a, b)`), a pattern its own optimizer forms from `-1 - max(a, b)`
    // and from `where(a > b, a, b)`; found by the property tests. Kernels computing an integer
    // min/max or select are built without driver optimisation (correct, slower) until that is fixed.
    if b.flavor == Flavor::Spirv && b.int_minmax {
        o.push_str(" -cl-opt-disable");
    }
    o
}

fn cached(
    key: String,
    source: Option<(KernelSpec, Device)>,
    compile: impl FnOnce() -> Result<Binary>,
) -> Result<Arc<CompiledKernel>> {
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<CompiledKernel>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(k) = cache.lock().unwrap().get(&key) {
        return Ok(k.clone());
    }
    // Compile outside the lock; a racing duplicate compile is harmless.
    let compiled = Arc::new(CompiledKernel {
        binary: compile()?,
        first: OnceLock::new(),
        loaded: Mutex::new(FastMap::default()),
        source,
        strided: OnceLock::new(),
    });
    Ok(cache.lock().unwrap().entry(key).or_insert(compiled).clone())
}

impl CompiledKernel {
    /// Compile `spec` for `device`, or return the cached result for an identical description and
    /// target. The cache is process-wide and only grows (like Numba's own compiled functions).
    pub fn get_or_compile(spec: &KernelSpec, device: &Device) -> Result<Arc<CompiledKernel>> {
        let caps = caps(device);
        let source = Some((spec.clone(), device.clone()));
        cached(format!("E{:?}|{:?}|{}", spec, caps.target, caps.has_fp64), source, || codegen::compile(spec, &caps))
    }

    /// Same as [`CompiledKernel::get_or_compile`] for a control-flow kernel.
    pub fn get_or_compile_function(f: &Function, device: &Device) -> Result<Arc<CompiledKernel>> {
        let caps = caps(device);
        cached(format!("F{:?}|{:?}|{}", f, caps.target, caps.has_fp64), None, || codegen::compile_function(f, &caps))
    }

    pub fn binary(&self) -> &Binary {
        &self.binary
    }
    pub fn slots(&self) -> &[ArgSlot] {
        &self.binary.slots
    }

    fn load(&self, queue: &Queue) -> Result<Arc<Mutex<Loaded>>> {
        let ctx: cl_context = queue.context().raw();
        if let Some((c, l)) = self.first.get() {
            if *c == ctx as usize {
                return Ok(l.clone());
            }
        }
        if let Some(l) = self.loaded.lock().unwrap().get(&(ctx as usize)) {
            return Ok(l.clone());
        }
        let context = &queue.context().0.cl;
        let dev = queue.device();
        dump(&self.binary);
        let mut program = match self.binary.flavor {
            Flavor::Spirv => Program::create_from_il(context, &self.binary.bytes).cl("clCreateProgramWithIL")?,
            Flavor::Nvptx => unsafe {
                let ids: Vec<_> = queue.context().devices().iter().map(|d| d.id()).collect();
                let bins: Vec<&[u8]> = ids.iter().map(|_| self.binary.bytes.as_slice()).collect();
                Program::create_from_binary(context, &ids, &bins).cl("clCreateProgramWithBinary")?
            },
        };
        let ids: Vec<_> = queue.context().devices().iter().map(|d| d.id()).collect();
        let options = build_options(&self.binary);
        if let Err(e) = program.build(&ids, &options) {
            let log = program.get_build_log(dev.id()).unwrap_or_else(|_| "<no build log>".into());
            return Err(Error::Build {
                device: format!("{} [{}]", dev.name(), dev.filter_string()),
                name: crate::error::cl_error_name(e.0),
                log,
            });
        }
        let kernel = Kernel::create(&program, &self.binary.kernel_name).cl("clCreateKernel")?;
        let l = Arc::new(Mutex::new(Loaded { _program: program, kernel, last: vec![None; self.binary.slots.len()] }));
        let l = self.loaded.lock().unwrap().entry(ctx as usize).or_insert(l).clone();
        let _ = self.first.set((ctx as usize, l.clone())); // the first context to get here keeps the fast slot
        Ok(l)
    }

    /// Launch an elementwise kernel with *general* slots: every array parameter followed by its byte
    /// strides over the iteration space (0 where it broadcasts). Without broadcasting the kernel
    /// itself runs (stride slots of its contiguous arrays are dropped); with broadcasting, its
    /// all-strided twin.
    pub fn launch_general(&self, queue: &Queue, slots: &[u64], broadcast: bool) -> Result<()> {
        let (spec, device) = self.source.as_ref().ok_or_else(|| Error::Launch("not an elementwise kernel".into()))?;
        if broadcast {
            let twin = self.strided.get_or_init(|| {
                let mut general = spec.clone();
                general.name = format!("{}_strided", spec.name);
                for p in &mut general.params {
                    if let ParamKind::Array { contiguous, .. } = &mut p.kind {
                        *contiguous = false;
                    }
                }
                CompiledKernel::get_or_compile(&general, device).map_err(|e| e.to_string())
            });
            return match twin {
                Ok(k) => k.launch(queue, slots),
                Err(e) => Err(Error::Codegen(e.clone())),
            };
        }
        // the kernel's own slots, on the stack for the usual sizes
        let mut buf = [0u64; 48];
        let mut heap = Vec::new();
        let fast: &mut [u64] = if slots.len() <= buf.len() {
            &mut buf[..slots.len()]
        } else {
            heap.resize(slots.len(), 0);
            &mut heap
        };
        let (mut i, mut n) = (0, 0);
        let mut push = |vals: &[u64]| {
            fast[n..n + vals.len()].copy_from_slice(vals);
            n += vals.len();
        };
        for p in &spec.params {
            match p.kind {
                ParamKind::Array { contiguous, .. } => {
                    push(&slots[i..i + 1]);
                    if !contiguous {
                        push(&slots[i + 1..i + 1 + spec.ndim]);
                    }
                    i += 1 + spec.ndim;
                }
                ParamKind::Scalar { .. } => {
                    push(&slots[i..i + 1]);
                    i += 1;
                }
            }
        }
        push(&slots[i..]);
        self.launch(queue, &fast[..n])
    }

    /// Launch an elementwise kernel on `queue` with one `u64` per slot (see
    /// [`codegen::ArgSlot`]) and wait for it. The last slot is the element count, the global size.
    pub fn launch(&self, queue: &Queue, slots: &[u64]) -> Result<()> {
        let n = *slots.last().unwrap_or(&0) as usize;
        if self.binary.flavor == Flavor::Nvptx && n > 0 {
            // PTX elementwise kernels guard `gid < n`: launch whole work-groups of 256, since NVIDIA's
            // driver, left to choose, picks a divisor of n (as small as 1 for a prime n).
            const WG: usize = NVIDIA_WORK_GROUP;
            return self.launch_nd(queue, slots, &[n.div_ceil(WG) * WG], Some(&[WG]));
        }
        self.launch_nd(queue, slots, &[n], None)
    }

    /// Launch over an ND-range (`local` = work-group size, or None to let the driver choose) and
    /// wait for completion.
    pub fn launch_nd(&self, queue: &Queue, slots: &[u64], global: &[usize], local: Option<&[usize]>) -> Result<()> {
        let layout = &self.binary.slots;
        if slots.len() != layout.len() {
            return Err(Error::Launch(format!(
                "kernel '{}' takes {} argument slots, got {}",
                self.binary.kernel_name,
                layout.len(),
                slots.len()
            )));
        }
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
        if global.contains(&0) {
            return Ok(());
        }
        let loaded = self.load(queue)?;
        let _in_flight = queue.submit();
        let event = {
            let mut guard = loaded.lock().unwrap();
            let Loaded { kernel: k, last, .. } = &mut *guard;
            let usm = queue.context().0.usm;
            let mut idx = 0u32;
            for ((slot, &v), last) in layout.iter().zip(slots).zip(last.iter_mut()) {
                let width = if matches!(slot, ArgSlot::Mem) { 2 } else { 1 };
                // (A buffer address may name a new buffer once the old one is freed and its address
                // range reused: buffer arguments are always set again.)
                if *last == Some(v) && !(usm.is_none() && matches!(slot, ArgSlot::Mem)) {
                    idx += width;
                    continue;
                }
                let was_set = last.take().is_some();
                unsafe {
                    match slot {
                        ArgSlot::Mem => {
                            match usm {
                                Some(usm) => {
                                    let rc = (usm.set_arg_ptr)(k.get(), idx, v as *const std::ffi::c_void);
                                    if rc != 0 {
                                        return Err(Error::cl(rc, "clSetKernelArgMemPointerINTEL"));
                                    }
                                    if !was_set {
                                        k.set_arg(idx + 1, &0i64).cl("clSetKernelArg")?;
                                        // USM offsets are 0
                                    }
                                }
                                None => {
                                    let (mem, offset) = super::buffers::kernel_arg(queue, v as usize, idx)?;
                                    k.set_arg(idx, &mem).cl("clSetKernelArg")?;
                                    k.set_arg(idx + 1, &(offset as i64)).cl("clSetKernelArg")?;
                                }
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
                *last = Some(v);
                idx += width;
            }
            // NVIDIA's driver, left to choose, picks small work-groups (kernel variants ran 2x slower
            // than the same work launched in groups of 256): choose for it, power-of-two sizes that
            // divide the global size, up to 256 work-items, filling dimension 0 first.
            let chosen;
            let local = match local {
                None if self.binary.flavor == Flavor::Nvptx => {
                    chosen = nvidia_local_size(global);
                    Some(&chosen[..global.len()])
                }
                l => l,
            };
            let lptr = local.map_or(std::ptr::null(), |l| l.as_ptr());
            unsafe {
                queue.0.cl.enqueue_nd_range_kernel(
                    k.get(),
                    global.len() as u32,
                    std::ptr::null(),
                    global.as_ptr(),
                    lptr,
                    &[],
                )
            }
            .cl("clEnqueueNDRangeKernel")?
        };
        event.wait().cl("clWaitForEvents")
    }
}

/// Work-items per group that numba_ext uses on NVIDIA devices where the launch does not say: grid-
/// stride and bounds-guarded kernels round their range up to it, others get `nvidia_local_size`.
pub const NVIDIA_WORK_GROUP: usize = 256;

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

#[cfg(test)]
mod tests {
    use super::nvidia_local_size;

    #[test]
    fn nvidia_work_groups_divide_the_range() {
        assert_eq!(nvidia_local_size(&[1 << 22]), [256, 1, 1]);
        assert_eq!(nvidia_local_size(&[2048, 2048]), [256, 1, 1]);
        assert_eq!(nvidia_local_size(&[24, 100, 7]), [8, 4, 1]);
        assert_eq!(nvidia_local_size(&[1001]), [1, 1, 1]);
        assert_eq!(nvidia_local_size(&[3, 512]), [1, 256, 1]);
    }
}
