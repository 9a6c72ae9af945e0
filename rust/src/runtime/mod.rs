//! The OpenCL runtime: device discovery and selection, contexts, queues and their equivalence,
//! USM / buffer memory, the program cache and kernel launch. Everything here is thread-safe:
//! handles are `Arc`s over OpenCL objects, and the only process-wide state is the (immutable once
//! built) list of root devices, each device's lazily created default context, the buffer address
//! registry, the binary cache and the on-disk program cache's counters.
//!
//! The modules form one-way layers; each uses only modules listed before it:
//!
//! 1. `usm`: USM types and Intel's USM entry points;
//! 2. `device`: discovery, selector strings, and the [`DeviceTarget`](crate::target::DeviceTarget)
//!    a device gives code generation;
//! 3. `buffers`: `cl_mem` buffers named by reserved address ranges (devices without USM);
//! 4. `pool`: the memory blocks of one context and the freed ones kept for reuse (`usm`, `buffers`,
//!    `device`);
//! 5. `context`: contexts, each owning its pool, the allocation of a context holding an address
//!    (USM pointer query or buffer registry), and every device's default context;
//! 6. `queue`: queues, their equivalence and the submissions in flight;
//! 7. `transfer`: blocking copies and fills on a queue, for both memory back ends;
//! 8. `memory`: [`Allocation`], a block bound to a queue;
//! 9. `program_cache`: the on-disk cache of the device binaries of built programs, across
//!    processes (`device`);
//! 10. `program`: the binary cache (compiling through `codegen` on a miss) and programs built per
//!     context (through `program_cache`);
//! 11. `launch`: argument slots, ND-ranges, setting kernel arguments and enqueueing.

mod buffers;
mod context;
mod device;
mod launch;
mod memory;
mod package;
mod pool;
mod program;
pub mod program_cache;
mod queue;
mod transfer;
mod usm;

pub use buffers::live_buffers;
pub use context::{Context, Extent};
pub use device::{devices, select_device, Device, DeviceKind};
pub use launch::{launch_chain, ChainStep, Completion, Slots, NVIDIA_WORK_GROUP};
pub use memory::{live_allocations, Allocation};
pub use program::{live_kernels, CompiledKernel, MAX_CONTEXT_PROGRAMS};
pub use queue::{any_unsettled, settle_all, unsettled_queues, Queue};
pub use transfer::{copy, fill};
pub use usm::UsmKind;

/// A `HashMap` with a fast multiplicative hasher, for the small keys (addresses, sizes) of the maps
/// on the launch path; SipHash's resistance to hash flooding is not needed there.
pub(crate) type FastMap<K, V> = std::collections::HashMap<K, V, std::hash::BuildHasherDefault<FastHasher>>;

#[derive(Default, Clone, Copy)]
pub(crate) struct FastHasher(u64);

impl std::hash::Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    fn write_u32(&mut self, i: u32) {
        self.write_u64(i as u64)
    }
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64)
    }
    fn finish(&self) -> u64 {
        self.0
    }
}
