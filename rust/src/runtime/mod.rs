//! The OpenCL runtime: device discovery and selection, contexts, queues and their equivalence,
//! USM / buffer memory, the program cache and kernel launch. Everything here is thread-safe:
//! handles are `Arc`s over OpenCL objects, and the only process-wide state is the (immutable once
//! built) list of root devices and each root device's lazily created default context.

mod device;
mod context;
mod queue;
mod usm;
mod memory;
mod buffers;
mod program;

pub use context::Context;
pub use device::{devices, select_device, Device, DeviceKind, Target};
pub use buffers::live_buffers;
pub use memory::{copy, fill, live_allocations, Allocation, UsmKind};
pub use program::CompiledKernel;
pub use queue::Queue;
