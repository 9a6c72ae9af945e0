//! The OpenCL runtime: device discovery and selection, contexts, queues and their equivalence,
//! USM / buffer memory, the program cache and kernel launch. Everything here is thread-safe:
//! handles are `Arc`s over OpenCL objects, and the only process-wide state is the (immutable once
//! built) list of root devices and each root device's lazily created default context.

mod buffers;
mod context;
mod device;
mod memory;
mod program;
mod queue;
mod usm;

pub use buffers::live_buffers;
pub use context::Context;
pub use device::{devices, select_device, Device, DeviceKind, Target};
pub use memory::{copy, fill, live_allocations, Allocation, UsmKind};
pub use program::{CompiledKernel, NVIDIA_WORK_GROUP};
pub use queue::Queue;

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
