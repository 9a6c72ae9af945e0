//! USM types of allocations, and Intel's `cl_intel_unified_shared_memory` entry points. Vendor
//! extensions are not exported by the ICD loader; they are resolved per platform with
//! `clGetExtensionFunctionAddressForPlatform`.

use std::ffi::{c_void, CString};
use std::sync::OnceLock;

use opencl3::types::{
    cl_bool, cl_command_queue, cl_context, cl_device_id, cl_event, cl_int, cl_kernel, cl_platform_id, cl_uint,
};

use crate::error::{Error, Result};

/// The USM type of an allocation. Precedence for results: `Device < Shared < Host`. Allocations of
/// the `cl_mem` buffer back end keep their USM type too (for the compute-follows-data rules).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UsmKind {
    Device,
    Shared,
    Host,
}

impl UsmKind {
    pub fn as_str(self) -> &'static str {
        match self {
            UsmKind::Device => "device",
            UsmKind::Shared => "shared",
            UsmKind::Host => "host",
        }
    }
    pub fn parse(s: &str) -> Result<Self> {
        match s {
            "device" => Ok(UsmKind::Device),
            "shared" => Ok(UsmKind::Shared),
            "host" => Ok(UsmKind::Host),
            _ => Err(Error::Memory(format!("unknown USM type '{s}': expected 'device', 'shared' or 'host'"))),
        }
    }
    /// Stable small integer used by compiled host code.
    pub fn code(self) -> u32 {
        match self {
            UsmKind::Device => 0,
            UsmKind::Shared => 1,
            UsmKind::Host => 2,
        }
    }
    pub fn from_code(c: u32) -> Result<Self> {
        match c {
            0 => Ok(UsmKind::Device),
            1 => Ok(UsmKind::Shared),
            2 => Ok(UsmKind::Host),
            _ => Err(Error::Memory(format!("invalid USM type code {c}"))),
        }
    }
}

type HostAlloc = unsafe extern "C" fn(cl_context, *const u64, usize, cl_uint, *mut cl_int) -> *mut c_void;
type DevAlloc = unsafe extern "C" fn(cl_context, cl_device_id, *const u64, usize, cl_uint, *mut cl_int) -> *mut c_void;
type Free = unsafe extern "C" fn(cl_context, *mut c_void) -> cl_int;
type SetArgPtr = unsafe extern "C" fn(cl_kernel, cl_uint, *const c_void) -> cl_int;
type Memcpy = unsafe extern "C" fn(
    cl_command_queue,
    cl_bool,
    *mut c_void,
    *const c_void,
    usize,
    cl_uint,
    *const cl_event,
    *mut cl_event,
) -> cl_int;
type MemFill = unsafe extern "C" fn(
    cl_command_queue,
    *mut c_void,
    *const c_void,
    usize,
    usize,
    cl_uint,
    *const cl_event,
    *mut cl_event,
) -> cl_int;

/// The USM entry points of one platform.
#[derive(Clone, Copy)]
pub(crate) struct UsmFns {
    pub host_alloc: HostAlloc,
    pub device_alloc: DevAlloc,
    pub shared_alloc: DevAlloc,
    pub blocking_free: Free,
    pub set_arg_ptr: SetArgPtr,
    pub memcpy: Memcpy,
    pub memfill: MemFill,
    /// `clGetMemAllocInfoINTEL`: the allocation of a context holding a pointer (never dereferences it).
    pub alloc_info: GetMemAllocInfo,
}

type GetMemAllocInfo =
    unsafe extern "C" fn(cl_context, *const c_void, cl_uint, usize, *mut c_void, *mut usize) -> cl_int;

/// `clGetMemAllocInfoINTEL` queries (`cl_ext.h`).
pub(crate) const CL_MEM_ALLOC_TYPE_INTEL: cl_uint = 0x419A;
pub(crate) const CL_MEM_ALLOC_BASE_PTR_INTEL: cl_uint = 0x419B;
pub(crate) const CL_MEM_ALLOC_SIZE_INTEL: cl_uint = 0x419C;
pub(crate) const CL_MEM_ALLOC_DEVICE_INTEL: cl_uint = 0x419D;
/// Answers to `CL_MEM_ALLOC_TYPE_INTEL`.
const CL_MEM_TYPE_HOST_INTEL: cl_uint = 0x4197;
const CL_MEM_TYPE_DEVICE_INTEL: cl_uint = 0x4198;
const CL_MEM_TYPE_SHARED_INTEL: cl_uint = 0x4199;

impl UsmKind {
    /// The kind of a `CL_MEM_ALLOC_TYPE_INTEL` answer; None for `CL_MEM_TYPE_UNKNOWN_INTEL` (not a
    /// USM allocation of the context).
    pub(crate) fn from_alloc_type(t: cl_uint) -> Option<Self> {
        match t {
            CL_MEM_TYPE_HOST_INTEL => Some(UsmKind::Host),
            CL_MEM_TYPE_DEVICE_INTEL => Some(UsmKind::Device),
            CL_MEM_TYPE_SHARED_INTEL => Some(UsmKind::Shared),
            _ => None,
        }
    }
}

type GetExtFn = unsafe extern "C" fn(cl_platform_id, *const std::ffi::c_char) -> *mut c_void;

fn get_ext_fn() -> Option<GetExtFn> {
    static LIB: OnceLock<Option<libloading::Library>> = OnceLock::new();
    let lib = LIB.get_or_init(|| unsafe { libloading::Library::new("libOpenCL.so.1").ok() }).as_ref()?;
    unsafe { lib.get::<GetExtFn>(b"clGetExtensionFunctionAddressForPlatform\0").ok().map(|s| *s) }
}

impl UsmFns {
    pub(crate) fn load(platform: cl_platform_id) -> Option<UsmFns> {
        let get = get_ext_fn()?;
        let sym = |name: &str| -> Option<*mut c_void> {
            let c = CString::new(name).ok()?;
            let p = unsafe { get(platform, c.as_ptr()) };
            (!p.is_null()).then_some(p)
        };
        unsafe {
            Some(UsmFns {
                host_alloc: std::mem::transmute::<*mut c_void, HostAlloc>(sym("clHostMemAllocINTEL")?),
                device_alloc: std::mem::transmute::<*mut c_void, DevAlloc>(sym("clDeviceMemAllocINTEL")?),
                shared_alloc: std::mem::transmute::<*mut c_void, DevAlloc>(sym("clSharedMemAllocINTEL")?),
                blocking_free: std::mem::transmute::<*mut c_void, Free>(sym("clMemBlockingFreeINTEL")?),
                set_arg_ptr: std::mem::transmute::<*mut c_void, SetArgPtr>(sym("clSetKernelArgMemPointerINTEL")?),
                memcpy: std::mem::transmute::<*mut c_void, Memcpy>(sym("clEnqueueMemcpyINTEL")?),
                memfill: std::mem::transmute::<*mut c_void, MemFill>(sym("clEnqueueMemFillINTEL")?),
                alloc_info: std::mem::transmute::<*mut c_void, GetMemAllocInfo>(sym("clGetMemAllocInfoINTEL")?),
            })
        }
    }
}
