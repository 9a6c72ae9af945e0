//! What code generation needs to know about a device, as plain data: which intermediate language it
//! takes, whether it computes in float64, and the memory conventions of the kernel ABI. The runtime
//! fills a [`DeviceTarget`] from an OpenCL device; code generation reads nothing else of the device,
//! so it compiles (and is tested) without any OpenCL object.

/// What device code a device takes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// SPIR-V through `clCreateProgramWithIL`.
    SpirV,
    /// PTX for NVIDIA's OpenCL through `clCreateProgramWithBinary`; the string is the SM (`sm_90`).
    Ptx(String),
    /// The device takes neither: programs cannot be built for it.
    None,
}

impl Target {
    /// `"spirv"`, `"ptx:sm_90"`, or None when programs cannot be built for the device.
    pub fn label(&self) -> Option<String> {
        match self {
            Target::SpirV => Some("spirv".into()),
            Target::Ptx(sm) => Some(format!("ptx:{sm}")),
            Target::None => None,
        }
    }

    /// Whether programs can be built for a device of this target.
    pub fn is_buildable(&self) -> bool {
        !matches!(self, Target::None)
    }
}

/// LLVM address spaces of the kernel ABI. Both intermediate languages number them alike: array
/// parameters point into global memory, work-group local arrays are module globals in local
/// (NVIDIA: shared) memory, and private arrays are plain stack allocations.
pub mod address_space {
    /// Memory visible to the whole ND-range: array parameters.
    pub const GLOBAL: u16 = 1;
    /// Memory shared by one work-group: `local` arrays.
    pub const LOCAL: u16 = 3;
}

/// What code generation needs of one device.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DeviceTarget {
    pub target: Target,
    /// Whether the device computes in float64 (kernels using it are refused otherwise).
    pub has_fp64: bool,
    /// Whether the device reports half precision (`cl_khr_fp16`; kernels using float16 are refused
    /// otherwise). [`DeviceTarget::new`] assumes it; the runtime sets it from the device.
    pub has_fp16: bool,
    /// How error messages name the device.
    pub name: String,
}

impl DeviceTarget {
    pub fn new(target: Target, has_fp64: bool, name: String) -> Self {
        DeviceTarget { target, has_fp64, has_fp16: true, name }
    }

    /// This target with `has_fp16` set.
    pub fn with_fp16(mut self, has_fp16: bool) -> Self {
        self.has_fp16 = has_fp16;
        self
    }

    /// The part of a compiled-binary cache key that depends on the device: devices agreeing on it
    /// share binaries.
    pub fn cache_key(&self) -> String {
        format!("{:?}|{}|{}", self.target, self.has_fp64, self.has_fp16)
    }
}
