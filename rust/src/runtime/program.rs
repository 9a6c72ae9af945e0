//! Compiled kernels: the device binary for one (kernel description, target) pair, and the programs
//! built from it per context (launching them: `launch.rs`). A program's build goes through the
//! on-disk cache of device binaries (`program_cache.rs`), which spares a new process the driver's
//! translation of SPIR-V / PTX it built before.
//!
//! Code is keyed by kernel description and device capabilities, never by queue: a new queue (or a
//! new context) on a device that already has the binary only loads it, it never recompiles.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use opencl3::kernel::Kernel;
use opencl3::program::Program;
use opencl3::types::{cl_context, cl_device_id};

use super::context::Context;
use super::device::Device;
use super::package;
use super::program_cache;
use super::FastMap;
use crate::codegen::{self, ArgSlot, Binary, DeviceCaps, Flavor};
use crate::error::{ClResultExt, Error, Result};
use crate::ir::{Function, KernelSpec, ParamKind};

/// A kernel built for one context.
pub(super) struct Loaded {
    _program: Program,
    pub(super) kernel: Kernel,
    /// The value each argument slot was last set to (None: not set, or the setting failed). A
    /// kernel keeps its arguments between launches, so unchanged ones are not set again (nor the
    /// byte offset of an array argument, always 0 with USM, once set).
    pub(super) last: Vec<Option<u64>>,
}
unsafe impl Send for Loaded {}

/// Programs one kernel keeps built, one per context it was launched in (a program retains its
/// context, so an unbounded map would keep every context ever used alive).
pub const MAX_CONTEXT_PROGRAMS: usize = 8;

/// A kernel compiled for one kind of device; loadable into any context holding such a device.
pub struct CompiledKernel {
    binary: Binary,
    /// The device target it was compiled for (`DeviceTarget::cache_key`).
    target: String,
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
/// driver bugs.
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
    target: String,
    source: Option<(KernelSpec, Device)>,
    compile: impl FnOnce() -> Result<Binary>,
) -> Result<Arc<CompiledKernel>> {
    // Weak entries: a kernel lives as long as something uses it (a jitted function's environment, a
    // kernel object, an eager operation's cache); dropping the last user releases its binary and
    // programs, and the next request compiles it again.
    static CACHE: OnceLock<Mutex<HashMap<String, Weak<CompiledKernel>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(k) = cache.lock().unwrap().get(&key).and_then(Weak::upgrade) {
        return Ok(k);
    }
    // Compile outside the lock; a racing duplicate compile is harmless.
    let binary = compile()?;
    LIVE.fetch_add(1, Ordering::Relaxed);
    let compiled = Arc::new(CompiledKernel {
        binary,
        target,
        first: OnceLock::new(),
        loaded: Mutex::new(FastMap::default()),
        source,
        strided: OnceLock::new(),
    });
    let mut map = cache.lock().unwrap();
    if let Some(k) = map.get(&key).and_then(Weak::upgrade) {
        return Ok(k);
    }
    if map.len() >= 64 && map.len().is_power_of_two() {
        map.retain(|_, w| w.strong_count() > 0); // forget dropped kernels now and then
    }
    map.insert(key, Arc::downgrade(&compiled));
    Ok(compiled)
}

static LIVE: AtomicUsize = AtomicUsize::new(0);

/// Kernels alive in this process (compiled or loaded, and not yet dropped).
pub fn live_kernels() -> usize {
    LIVE.load(Ordering::Relaxed)
}

impl Drop for CompiledKernel {
    fn drop(&mut self) {
        LIVE.fetch_sub(1, Ordering::Relaxed);
    }
}

impl CompiledKernel {
    /// Compile `spec` for `device`, or return the cached result for an identical description and
    /// target. The cache is process-wide and only grows (like Numba's own compiled functions).
    pub fn get_or_compile(spec: &KernelSpec, device: &Device) -> Result<Arc<CompiledKernel>> {
        let target = device.device_target();
        let source = Some((spec.clone(), device.clone()));
        cached(format!("E{:?}|{}", spec, target.cache_key()), target.cache_key(), source, || {
            codegen::compile(spec, &DeviceCaps::for_device(target))
        })
    }

    /// Same as [`CompiledKernel::get_or_compile`] for a control-flow kernel.
    pub fn get_or_compile_function(f: &Function, device: &Device) -> Result<Arc<CompiledKernel>> {
        let target = device.device_target();
        cached(format!("F{:?}|{}", f, target.cache_key()), target.cache_key(), None, || {
            codegen::compile_function(f, &DeviceCaps::for_device(target))
        })
    }

    /// This kernel as a package (`package.rs`): what compiled host code cached on disk keeps.
    pub fn package(&self) -> Vec<u8> {
        package::encode(&self.binary, &self.target)
    }

    /// The elementwise kernel `spec` for `device` from `package`, without code generation where the
    /// package was compiled for the device's target (else compiled again from `spec`). Shares the
    /// process-wide cache with [`CompiledKernel::get_or_compile`].
    pub fn from_package_elementwise(package: &[u8], spec: &KernelSpec, device: &Device) -> Result<Arc<CompiledKernel>> {
        let (binary, target) = package::decode(package)?;
        let key = device.device_target().cache_key();
        if target != key {
            return CompiledKernel::get_or_compile(spec, device);
        }
        let source = Some((spec.clone(), device.clone()));
        cached(format!("E{:?}|{}", spec, key), target, source, || Ok(binary))
    }

    /// Same as [`CompiledKernel::from_package_elementwise`] for a control-flow kernel.
    pub fn from_package_function(package: &[u8], f: &Function, device: &Device) -> Result<Arc<CompiledKernel>> {
        let (binary, target) = package::decode(package)?;
        let key = device.device_target().cache_key();
        if target != key {
            return CompiledKernel::get_or_compile_function(f, device);
        }
        cached(format!("F{:?}|{}", f, key), target, None, || Ok(binary))
    }

    /// For an elementwise kernel: its description.
    pub(super) fn elementwise_spec(&self) -> Option<&KernelSpec> {
        self.source.as_ref().map(|(spec, _)| spec)
    }

    /// For an elementwise kernel: its all-strided twin, used when operands broadcast (compiled on
    /// first need).
    pub(super) fn strided_twin(&self) -> Result<Arc<CompiledKernel>> {
        let (spec, device) = self.source.as_ref().ok_or_else(|| Error::Launch("not an elementwise kernel".into()))?;
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
        twin.clone().map_err(Error::Codegen)
    }

    /// The number of contexts this kernel has a built program for.
    pub fn loaded_contexts(&self) -> usize {
        self.loaded.lock().unwrap().len()
    }

    pub fn binary(&self) -> &Binary {
        &self.binary
    }
    pub fn slots(&self) -> &[ArgSlot] {
        &self.binary.slots
    }

    /// The kernel built for `context` (built on first use; `device` names the device whose build
    /// log an error carries).
    pub(super) fn load(&self, context: &Context, device: &Device) -> Result<Arc<Mutex<Loaded>>> {
        let ctx: cl_context = context.raw();
        if let Some((c, l)) = self.first.get() {
            if *c == ctx as usize {
                return Ok(l.clone());
            }
        }
        if let Some(l) = self.loaded.lock().unwrap().get(&(ctx as usize)) {
            return Ok(l.clone());
        }
        dump(&self.binary);
        let program = self.build(context, device)?;
        let kernel = Kernel::create(&program, &self.binary.kernel_name).cl("clCreateKernel")?;
        let l = Arc::new(Mutex::new(Loaded { _program: program, kernel, last: vec![None; self.binary.slots.len()] }));
        let mut loaded = self.loaded.lock().unwrap();
        if loaded.len() >= MAX_CONTEXT_PROGRAMS && !loaded.contains_key(&(ctx as usize)) {
            // bounded: the program of another context goes (built again if that context comes back;
            // a launch holding it keeps its own reference), never the first context's
            let first = self.first.get().map(|(c, _)| *c);
            if let Some(victim) = loaded.keys().copied().find(|c| Some(*c) != first) {
                loaded.remove(&victim);
            }
        }
        let l = loaded.entry(ctx as usize).or_insert(l).clone();
        drop(loaded);
        let _ = self.first.set((ctx as usize, l.clone())); // the first context to get here keeps the fast slot
        Ok(l)
    }

    /// The program for `context`: from the on-disk program cache where the context has one device
    /// and the cache holds a binary the driver accepts, else built from the SPIR-V / PTX (and its
    /// binary stored in the cache).
    fn build(&self, context: &Context, device: &Device) -> Result<Program> {
        let ids: Vec<_> = context.devices().iter().map(|d| d.id()).collect();
        let options = build_options(&self.binary);
        let key = match context.devices() {
            [only] if program_cache::enabled() => Some(program_cache::key(&self.binary.bytes, &options, only)),
            _ => None,
        };
        if let Some(cached) = key.as_ref().and_then(program_cache::lookup) {
            match build_from_binary(context, &ids, &cached, &options) {
                Some(program) => {
                    program_cache::record_hit();
                    return Ok(program);
                }
                None => program_cache::record_refused(),
            }
        }
        let program = self.build_from_source(context, &ids, &options, device)?;
        if let Some(key) = key {
            if let Some(binary) = program.get_binaries().ok().and_then(|b| b.into_iter().next()) {
                program_cache::store(&key, &binary);
            }
        }
        Ok(program)
    }

    fn build_from_source(
        &self,
        context: &Context,
        ids: &[cl_device_id],
        options: &str,
        dev: &Device,
    ) -> Result<Program> {
        let cl = context.cl();
        let mut program = match self.binary.flavor {
            Flavor::Spirv => Program::create_from_il(cl, &self.binary.bytes).cl("clCreateProgramWithIL")?,
            Flavor::Nvptx => unsafe {
                let bins: Vec<&[u8]> = ids.iter().map(|_| self.binary.bytes.as_slice()).collect();
                Program::create_from_binary(cl, ids, &bins).cl("clCreateProgramWithBinary")?
            },
        };
        if let Err(e) = program.build(ids, options) {
            let log = program.get_build_log(dev.id()).unwrap_or_else(|_| "<no build log>".into());
            return Err(Error::Build {
                device: format!("{} [{}]", dev.name(), dev.filter_string()),
                name: crate::error::cl_error_name(e.0),
                log,
            });
        }
        Ok(program)
    }
}

/// A program created from a device binary the driver returned earlier (None: the driver refused it).
fn build_from_binary(context: &Context, ids: &[cl_device_id], binary: &[u8], options: &str) -> Option<Program> {
    // Safety: one binary per device, each a valid slice; a binary the driver does not recognise is
    // refused with an error status (the cache validated it as a whole entry written by this format).
    let mut program = unsafe { Program::create_from_binary(context.cl(), ids, &[binary]) }.ok()?;
    program.build(ids, options).ok()?;
    Some(program)
}
