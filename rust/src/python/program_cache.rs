//! The on-disk program cache seen from Python: its state for `python -m numba_ext cache`, clearing
//! it, its directory and on/off rule, and the `CacheWarning` raised once when its directory cannot
//! be written.

use std::ffi::CString;

use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::runtime::program_cache as cache;

/// Report a cache directory that cannot be written as a `numba_ext.errors.CacheWarning`. Runs at a
/// program build, possibly with the GIL released; a warning the filters turn into an error cannot
/// propagate from there and is reported as unraisable.
fn warn(msg: &str) {
    Python::attach(|py| {
        let result = (|| -> PyResult<()> {
            let cls = py.import("numba_ext.errors")?.getattr("CacheWarning")?;
            let text = CString::new(msg.replace('\0', " ")).unwrap_or_default();
            PyErr::warn(py, &cls, &text, 1)
        })();
        if let Err(e) = result {
            e.write_unraisable(py, None);
        }
    })
}

pub fn install_warning_hook() {
    cache::set_warning_hook(warn);
}

/// The program cache's directory as the environment names it now (`NUMBA_EXT_CACHE_DIR`, else the
/// user's cache directory), or None when no cache directory is known. Read at each call.
#[pyfunction]
pub fn program_cache_directory() -> Option<String> {
    cache::directory().map(|p| p.to_string_lossy().into_owned())
}

/// Whether `NUMBA_EXT_CACHE` leaves the on-disk caches on (anything but 0 / false / no / off). Read at
/// each call.
#[pyfunction]
pub fn program_cache_enabled() -> bool {
    cache::enabled()
}

/// The program cache: directory, whether it is on, its entries and size, its size bound, and this
/// process's counters (hits, misses, stores, rejected, evicted) and last error; the same for the
/// generated device code it keeps (`code_entries`, `code_bytes`, `code_hits`, ...).
#[pyfunction]
pub fn program_cache_info(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    let (entries, bytes) = cache::usage(cache::Kind::Program);
    let (code_entries, code_bytes) = cache::usage(cache::Kind::Code);
    let s = cache::stats();
    d.set_item("dir", cache::directory().map(|p| p.to_string_lossy().into_owned()))?;
    d.set_item("enabled", cache::enabled())?;
    d.set_item("entries", entries)?;
    d.set_item("bytes", bytes)?;
    d.set_item("max_bytes", cache::max_bytes())?;
    d.set_item("format_version", cache::FORMAT_VERSION)?;
    d.set_item("hits", s.hits)?;
    d.set_item("misses", s.misses)?;
    d.set_item("stores", s.stores)?;
    d.set_item("rejected", s.rejected)?;
    d.set_item("evicted", s.evicted)?;
    d.set_item("last_error", s.last_error)?;
    d.set_item("code_entries", code_entries)?;
    d.set_item("code_bytes", code_bytes)?;
    d.set_item("code_hits", s.code.hits)?;
    d.set_item("code_misses", s.code.misses)?;
    d.set_item("code_stores", s.code.stores)?;
    d.set_item("code_rejected", s.code.rejected)?;
    d.set_item("code_evicted", s.code.evicted)?;
    Ok(d)
}

/// Delete every entry of the program cache; returns how many were deleted.
#[pyfunction]
pub fn program_cache_clear() -> PyResult<usize> {
    cache::clear().map_err(|e| {
        let dir = cache::directory().map(|p| p.display().to_string()).unwrap_or_default();
        pyo3::exceptions::PyOSError::new_err(format!("cannot clear the program cache {dir}: {e}"))
    })
}
