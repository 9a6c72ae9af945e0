//! One error type for the whole core, one variant family per phase. The Python layer maps each
//! variant to an exception class in exactly one place (`python/errors.rs`).

use thiserror::Error;

/// Every failure the core can report.
#[derive(Debug, Error)]
pub enum Error {
    /// An OpenCL call failed; `name` is the symbolic CL error name (e.g. `CL_OUT_OF_RESOURCES`).
    #[error("OpenCL error {code} ({name}) in {call}")]
    OpenCl { code: i32, name: &'static str, call: &'static str },

    /// `clBuildProgram` failed: the device compiler's log is attached.
    #[error("building the device program for {device} failed ({name}); build log:\n{log}")]
    Build { device: String, name: &'static str, log: String },

    /// A device selector string matched no device or could not be parsed.
    #[error("{0}")]
    Selector(String),

    /// The kernel description or the dataflow graph is malformed.
    #[error("invalid kernel description: {0}")]
    Graph(String),

    /// LLVM code generation or target emission failed.
    #[error("code generation failed: {0}")]
    Codegen(String),

    /// The kernel uses something the target device cannot do (e.g. float64 without fp64 support).
    #[error("{0}")]
    Unsupported(String),

    /// Memory allocation or a copy failed, or memory was used with the wrong context.
    #[error("memory error: {0}")]
    Memory(String),

    /// Arguments of one launch live on queues that are not equivalent.
    #[error("{0}")]
    Placement(String),

    /// A launch was malformed (argument count, sizes).
    #[error("invalid launch: {0}")]
    Launch(String),

    /// A kernel failed while running on the device (an out-of-bounds access, typically), or a queue
    /// on which that happened was used again.
    #[error("{0}")]
    DeviceFault(String),
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// Wrap a raw CL status code returned by `call`.
    pub fn cl(code: i32, call: &'static str) -> Self {
        Error::OpenCl { code, name: cl_error_name(code), call }
    }
}

/// Extension for turning `opencl3`/`cl3` results into ours with the name of the call.
pub trait ClResultExt<T> {
    fn cl(self, call: &'static str) -> Result<T>;
}

impl<T> ClResultExt<T> for std::result::Result<T, opencl3::error_codes::ClError> {
    fn cl(self, call: &'static str) -> Result<T> {
        self.map_err(|e| Error::cl(e.0, call))
    }
}

impl<T> ClResultExt<T> for std::result::Result<T, i32> {
    fn cl(self, call: &'static str) -> Result<T> {
        self.map_err(|e| Error::cl(e, call))
    }
}

/// Symbolic name of an OpenCL status code.
pub fn cl_error_name(code: i32) -> &'static str {
    match code {
        0 => "CL_SUCCESS",
        -1 => "CL_DEVICE_NOT_FOUND",
        -2 => "CL_DEVICE_NOT_AVAILABLE",
        -3 => "CL_COMPILER_NOT_AVAILABLE",
        -4 => "CL_MEM_OBJECT_ALLOCATION_FAILURE",
        -5 => "CL_OUT_OF_RESOURCES",
        -6 => "CL_OUT_OF_HOST_MEMORY",
        -7 => "CL_PROFILING_INFO_NOT_AVAILABLE",
        -8 => "CL_MEM_COPY_OVERLAP",
        -11 => "CL_BUILD_PROGRAM_FAILURE",
        -12 => "CL_MAP_FAILURE",
        -17 => "CL_LINK_PROGRAM_FAILURE",
        -18 => "CL_DEVICE_PARTITION_FAILED",
        -30 => "CL_INVALID_VALUE",
        -31 => "CL_INVALID_DEVICE_TYPE",
        -32 => "CL_INVALID_PLATFORM",
        -33 => "CL_INVALID_DEVICE",
        -34 => "CL_INVALID_CONTEXT",
        -35 => "CL_INVALID_QUEUE_PROPERTIES",
        -36 => "CL_INVALID_COMMAND_QUEUE",
        -38 => "CL_INVALID_MEM_OBJECT",
        -42 => "CL_INVALID_BINARY",
        -43 => "CL_INVALID_BUILD_OPTIONS",
        -44 => "CL_INVALID_PROGRAM",
        -45 => "CL_INVALID_PROGRAM_EXECUTABLE",
        -46 => "CL_INVALID_KERNEL_NAME",
        -47 => "CL_INVALID_KERNEL_DEFINITION",
        -48 => "CL_INVALID_KERNEL",
        -49 => "CL_INVALID_ARG_INDEX",
        -50 => "CL_INVALID_ARG_VALUE",
        -51 => "CL_INVALID_ARG_SIZE",
        -52 => "CL_INVALID_KERNEL_ARGS",
        -53 => "CL_INVALID_WORK_DIMENSION",
        -54 => "CL_INVALID_WORK_GROUP_SIZE",
        -55 => "CL_INVALID_WORK_ITEM_SIZE",
        -56 => "CL_INVALID_GLOBAL_OFFSET",
        -57 => "CL_INVALID_EVENT_WAIT_LIST",
        -58 => "CL_INVALID_EVENT",
        -59 => "CL_INVALID_OPERATION",
        -61 => "CL_INVALID_BUFFER_SIZE",
        -63 => "CL_INVALID_GLOBAL_WORK_SIZE",
        -64 => "CL_INVALID_PROPERTY",
        -66 => "CL_INVALID_COMPILER_OPTIONS",
        -68 => "CL_INVALID_DEVICE_PARTITION_COUNT",
        -1001 => "CL_PLATFORM_NOT_FOUND_KHR",
        _ => "CL_UNKNOWN_ERROR",
    }
}
