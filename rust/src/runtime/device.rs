//! Device discovery and selector strings (`""`, `"cpu"`, `"gpu"`, `"opencl:cpu"`, `"opencl:gpu:0"`).

use std::fmt;
use std::sync::{Arc, OnceLock};

use opencl3::device::{
    Device as ClDevice, CL_DEVICE_TYPE_ACCELERATOR, CL_DEVICE_TYPE_ALL, CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_GPU,
};
use opencl3::platform::get_platforms;
use opencl3::types::{cl_device_id, cl_platform_id};

use crate::error::{ClResultExt, Error, Result};
use crate::target::{DeviceTarget, Target};

/// The kind of a device, as in selector strings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeviceKind {
    Cpu,
    Gpu,
    Accelerator,
}

impl DeviceKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DeviceKind::Cpu => "cpu",
            DeviceKind::Gpu => "gpu",
            DeviceKind::Accelerator => "accelerator",
        }
    }
    fn parse(s: &str) -> Option<Self> {
        match s {
            "cpu" => Some(DeviceKind::Cpu),
            "gpu" => Some(DeviceKind::Gpu),
            "accelerator" | "acc" => Some(DeviceKind::Accelerator),
            _ => None,
        }
    }
}

pub(crate) struct DeviceInner {
    pub(crate) id: cl_device_id,
    pub(crate) platform: cl_platform_id,
    pub(crate) name: String,
    pub(crate) vendor: String,
    pub(crate) driver_version: String,
    pub(crate) kind: DeviceKind,
    pub(crate) filter_string: String,
    pub(crate) has_fp64: bool,
    pub(crate) has_usm: bool,
    pub(crate) target: Target,
    pub(crate) max_work_group_size: usize,
    pub(crate) local_mem_size: u64,
    pub(crate) max_compute_units: u32,
    pub(crate) extensions: String,
    /// For sub-devices, the device they were partitioned from.
    pub(crate) parent: Option<Device>,
}

// cl_device_id / cl_platform_id are opaque handles that OpenCL allows to be used from any thread.
unsafe impl Send for DeviceInner {}
unsafe impl Sync for DeviceInner {}

/// A device handle: cheap to clone, compared by identity of the OpenCL device.
#[derive(Clone)]
pub struct Device(pub(crate) Arc<DeviceInner>);

impl PartialEq for Device {
    fn eq(&self, other: &Self) -> bool {
        self.0.id == other.0.id
    }
}
impl Eq for Device {}

impl fmt::Debug for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Device({} [{}])", self.0.name, self.0.filter_string)
    }
}

impl Device {
    pub fn id(&self) -> cl_device_id {
        self.0.id
    }
    pub fn name(&self) -> &str {
        &self.0.name
    }
    pub fn vendor(&self) -> &str {
        &self.0.vendor
    }
    pub fn driver_version(&self) -> &str {
        &self.0.driver_version
    }
    pub fn kind(&self) -> DeviceKind {
        self.0.kind
    }
    pub fn filter_string(&self) -> &str {
        &self.0.filter_string
    }
    pub fn has_fp64(&self) -> bool {
        self.0.has_fp64
    }
    /// Whether the device computes in half precision (`cl_khr_fp16`).
    pub fn has_fp16(&self) -> bool {
        self.0.extensions.split_whitespace().any(|e| e == "cl_khr_fp16")
    }
    pub fn has_usm(&self) -> bool {
        self.0.has_usm
    }
    pub fn target(&self) -> &Target {
        &self.0.target
    }
    pub fn max_work_group_size(&self) -> usize {
        self.0.max_work_group_size
    }
    pub fn local_mem_size(&self) -> u64 {
        self.0.local_mem_size
    }
    pub fn max_compute_units(&self) -> u32 {
        self.0.max_compute_units
    }
    pub fn extensions(&self) -> &str {
        &self.0.extensions
    }
    pub fn parent(&self) -> Option<&Device> {
        self.0.parent.as_ref()
    }
    pub fn platform(&self) -> cl_platform_id {
        self.0.platform
    }

    /// What code generation needs of this device.
    pub fn device_target(&self) -> DeviceTarget {
        DeviceTarget::new(self.target().clone(), self.has_fp64(), format!("{} [{}]", self.name(), self.filter_string()))
            .with_fp16(self.has_fp16())
    }

    /// Partition the device into sub-devices of `units` compute units each.
    pub fn create_sub_devices_equally(&self, units: u32) -> Result<Vec<Device>> {
        if units == 0 {
            return Err(Error::Selector("partition size must be positive".into()));
        }
        let cl = ClDevice::new(self.0.id);
        let props = [opencl3::device::CL_DEVICE_PARTITION_EQUALLY, units as isize, 0];
        let subs = cl.create_sub_devices(&props).cl("clCreateSubDevices")?;
        let mut out = Vec::with_capacity(subs.len());
        for (i, sub) in subs.into_iter().enumerate() {
            let id = sub.id();
            // The SubDevice wrapper releases on drop; we keep the id for the process lifetime.
            std::mem::forget(sub);
            let filter = format!("{}.{}", self.0.filter_string, i);
            out.push(Device(Arc::new(describe(id, self.0.platform, filter, Some(self.clone()))?)));
        }
        Ok(out)
    }
}

fn describe(
    id: cl_device_id,
    platform: cl_platform_id,
    filter_string: String,
    parent: Option<Device>,
) -> Result<DeviceInner> {
    let d = ClDevice::new(id);
    let ty = d.dev_type().cl("clGetDeviceInfo")?;
    let kind = if ty & CL_DEVICE_TYPE_GPU != 0 {
        DeviceKind::Gpu
    } else if ty & CL_DEVICE_TYPE_CPU != 0 {
        DeviceKind::Cpu
    } else {
        DeviceKind::Accelerator
    };
    let vendor = d.vendor().cl("clGetDeviceInfo")?;
    let extensions = d.extensions().cl("clGetDeviceInfo")?;
    let il = d.il_version().unwrap_or_default();
    let target = if il.contains("SPIR-V") {
        Target::SpirV
    } else if vendor.to_ascii_lowercase().contains("nvidia") {
        let major = d.get_data(0x4000).ok().map(|v| v[0]).unwrap_or(9); // CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV
        let minor = d.get_data(0x4001).ok().map(|v| v[0]).unwrap_or(0);
        Target::Ptx(format!("sm_{major}{minor}"))
    } else {
        Target::None
    };
    Ok(DeviceInner {
        id,
        platform,
        name: d.name().cl("clGetDeviceInfo")?.trim_end_matches('\0').trim().to_string(),
        vendor: vendor.trim_end_matches('\0').trim().to_string(),
        driver_version: d.driver_version().unwrap_or_default(),
        kind,
        filter_string,
        has_fp64: d.double_fp_config().unwrap_or(0) != 0,
        has_usm: extensions.contains("cl_intel_unified_shared_memory") && !force_buffers(),
        target,
        max_work_group_size: d.max_work_group_size().unwrap_or(1),
        local_mem_size: d.local_mem_size().unwrap_or(0),
        max_compute_units: d.max_compute_units().unwrap_or(1),
        extensions,
        parent,
    })
}

/// `NUMBA_EXT_FORCE_BUFFERS=1` makes every device use the `cl_mem` buffer back end, as on devices
/// without USM (read once, at discovery): how the NVIDIA memory path is tested on a CPU device.
fn force_buffers() -> bool {
    std::env::var("NUMBA_EXT_FORCE_BUFFERS").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// All root devices of all platforms, discovered once per process. Filter strings are
/// `opencl:<type>:<n>` with `n` counting devices of that type across platforms in discovery order.
pub fn devices() -> Result<&'static [Device]> {
    static DEVICES: OnceLock<std::result::Result<Vec<Device>, String>> = OnceLock::new();
    let found = DEVICES.get_or_init(|| discover().map_err(|e| e.to_string()));
    match found {
        Ok(v) => Ok(v.as_slice()),
        Err(e) => Err(Error::Selector(e.clone())),
    }
}

/// The error of a failed `clGetPlatformIDs`. The ICD loader is not linked: cl3 opens the system's
/// `libOpenCL.so.1` at the first OpenCL call (so the wheel needs no OpenCL library of its own) and
/// reports a loader it could not open as `DLOPEN_RUNTIME_LOAD_FAILED`.
fn platform_query_error(code: i32) -> Error {
    if code == cl3::error_codes::DLOPEN_RUNTIME_LOAD_FAILED {
        return Error::Selector(
            "the OpenCL ICD loader (libOpenCL.so.1) could not be loaded: install the system's \
             (Debian and Ubuntu: `apt install ocl-icd-libopencl1`; Fedora: `dnf install ocl-icd`) or put \
             the folder of another one on LD_LIBRARY_PATH"
                .to_string(),
        );
    }
    Error::cl(code, "clGetPlatformIDs")
}

fn discover() -> Result<Vec<Device>> {
    let platforms = match get_platforms() {
        Ok(p) => p,
        // -1001: the ICD loader found no platform at all.
        Err(e) if e.0 == -1001 => return Ok(Vec::new()),
        Err(e) => return Err(platform_query_error(e.0)),
    };
    let mut out: Vec<Device> = Vec::new();
    let mut seen_platforms = Vec::new();
    for p in platforms {
        // a driver the ICD loader found twice (its vendors folder and OCL_ICD_FILENAMES, see
        // numba_ext/devices/drivers.py) reports the same platform twice
        if seen_platforms.contains(&p.id()) {
            continue;
        }
        seen_platforms.push(p.id());
        let ids = match p.get_devices(CL_DEVICE_TYPE_ALL) {
            Ok(ids) => ids,
            Err(_) => continue,
        };
        for id in ids {
            if out.iter().any(|d| d.id() == id) {
                continue;
            }
            let probe = ClDevice::new(id);
            let ty = probe.dev_type().unwrap_or(CL_DEVICE_TYPE_ACCELERATOR);
            let kind = if ty & CL_DEVICE_TYPE_GPU != 0 {
                "gpu"
            } else if ty & CL_DEVICE_TYPE_CPU != 0 {
                "cpu"
            } else {
                "accelerator"
            };
            let n = out.iter().filter(|d| d.kind().as_str() == kind).count();
            let inner = describe(id, p.id(), format!("opencl:{kind}:{n}"), None)?;
            out.push(Device(Arc::new(inner)));
        }
    }
    Ok(out)
}

/// Parse a selector and pick the device. `""` picks the default: the first GPU that can run our
/// code, else the first CPU that can, else the first device. Errors list the available devices.
pub fn select_device(selector: &str) -> Result<Device> {
    let all = devices()?;
    let sel = selector.trim().to_ascii_lowercase();
    let usable = |d: &&Device| d.target().is_buildable();
    let picked = if sel.is_empty() {
        all.iter()
            .find(|d| d.kind() == DeviceKind::Gpu && usable(d))
            .or_else(|| all.iter().find(|d| d.kind() == DeviceKind::Cpu && usable(d)))
            .or_else(|| all.first())
    } else {
        let parts: Vec<&str> = sel.split(':').collect();
        let mut backend: Option<&str> = None;
        let mut kind: Option<DeviceKind> = None;
        let mut index: Option<usize> = None;
        for (i, part) in parts.iter().enumerate() {
            if *part == "opencl" && i == 0 {
                backend = Some("opencl");
            } else if let Some(k) = DeviceKind::parse(part) {
                if kind.is_some() {
                    return Err(bad_selector(selector, all, "the device type is given twice"));
                }
                kind = Some(k);
            } else if let Ok(n) = part.parse::<usize>() {
                if i != parts.len() - 1 {
                    return Err(bad_selector(selector, all, "the index must come last"));
                }
                index = Some(n);
            } else {
                return Err(bad_selector(selector, all, &format!("'{part}' is not a backend, device type or index")));
            }
        }
        let _ = backend; // only the OpenCL backend exists
        let mut cands: Vec<&Device> = all.iter().filter(|d| kind.is_none_or(|k| d.kind() == k)).collect();
        if index.is_none() {
            // prefer devices we can compile for
            cands.sort_by_key(|d| !d.target().is_buildable());
        }
        match index {
            Some(n) => cands.get(n).copied(),
            None => cands.first().copied(),
        }
    };
    picked.cloned().ok_or_else(|| bad_selector(selector, all, "no such device"))
}

fn bad_selector(selector: &str, all: &[Device], why: &str) -> Error {
    let list = if all.is_empty() {
        "no OpenCL devices were found (is an OpenCL runtime installed? `pip install intel-opencl-rt`)".to_string()
    } else {
        all.iter()
            .map(|d| format!("  {}  {} ({})", d.filter_string(), d.name(), d.vendor()))
            .collect::<Vec<_>>()
            .join("\n")
    };
    Error::Selector(format!(
        "device selector '{selector}' matches no device: {why}. Selectors look like \"\", \"cpu\", \"gpu\", \"opencl:cpu\", \"opencl:gpu:0\". Available devices:\n{list}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_icd_loader_is_named_with_what_to_install() {
        let e = platform_query_error(cl3::error_codes::DLOPEN_RUNTIME_LOAD_FAILED);
        assert!(matches!(e, Error::Selector(_)), "{e:?}");
        let msg = e.to_string();
        assert!(msg.contains("libOpenCL.so.1") && msg.contains("ocl-icd-libopencl1"), "{msg}");
        // other failures keep the OpenCL call and code
        let msg = platform_query_error(-6).to_string();
        assert!(msg.contains("clGetPlatformIDs") && msg.contains("-6"), "{msg}");
    }
}
