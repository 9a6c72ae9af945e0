//! Helpers shared by the code-generation tests: validating SPIR-V with `spirv-val`, and PTX
//! capabilities with libdevice found in the project's virtual environment.

use numba_ext_core::codegen::DeviceCaps;
use numba_ext_core::target::Target;

/// Assert that `spirv-val` accepts the module.
pub fn spirv_val(bytes: &[u8]) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static SEQ: AtomicUsize = AtomicUsize::new(0);
    let n = SEQ.fetch_add(1, Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!("nx-test-{}-{n}.spv", std::process::id()));
    std::fs::write(&path, bytes).unwrap();
    let out = std::process::Command::new("spirv-val").arg(&path).output().expect("spirv-val must be installed");
    let _ = std::fs::remove_file(&path);
    assert!(out.status.success(), "spirv-val rejected the module: {}", String::from_utf8_lossy(&out.stderr));
}

/// sm_90 with libdevice (`NUMBA_EXT_LIBDEVICE`, else the project's virtual environment).
pub fn ptx_caps() -> DeviceCaps {
    let mut caps = DeviceCaps::new(Target::Ptx("sm_90".into()), true, "h100".into());
    if caps.libdevice.is_none() {
        let venv = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/lib");
        caps.libdevice = std::fs::read_dir(&venv)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path().join("site-packages/nvidia/cu13/nvvm/libdevice/libdevice.10.bc"))
            .find(|p| p.is_file());
    }
    assert!(caps.libdevice.is_some(), "libdevice.10.bc not found (make setup, or NUMBA_EXT_LIBDEVICE)");
    caps
}
