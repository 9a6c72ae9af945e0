//! The on-disk cache of built device programs: the binary a driver returns for a built program
//! (`CL_PROGRAM_BINARIES`), kept across processes so that a new process loads it
//! (`clCreateProgramWithBinary`) instead of having the driver translate the SPIR-V / PTX again.
//!
//! * Key: SHA-256 of the entry format version, numba_ext's version, the SPIR-V / PTX bytes, the
//!   build options and the device (name, vendor, driver version, OpenCL version); a change of any of
//!   them is another entry, so updates of numba_ext or of the driver never load stale binaries.
//! * Entry file `<key in hex>.bin`: a header (magic, format version, key, payload length, SHA-256 of
//!   the payload) and the payload. Entries are written to a temporary file and renamed into place,
//!   so concurrent writers of one key leave one whole entry. An entry that does not validate
//!   (truncated, corrupted, another format, another key) is deleted and never handed to the driver.
//! * Location: `NUMBA_EXT_CACHE_DIR`, else `$XDG_CACHE_HOME/numba_ext/programs`, else
//!   `~/.cache/numba_ext/programs` (`%LOCALAPPDATA%\numba_ext\programs` on Windows).
//!   `NUMBA_EXT_CACHE=0` turns the cache off.
//! * Size: at most `NUMBA_EXT_CACHE_MAX_MB` megabytes (default 512, fractions allowed); after a
//!   write, the least recently used entries (oldest modification time; a hit touches its entry) are
//!   deleted until the rest fits, the entry just written excepted.
//! * A directory that cannot be written turns the disk cache off for the rest of the process; the
//!   first such failure is reported once through the warning hook the Python layer installs.
//!
//! Beside the built programs, the same directory keeps generated device code (`<key>.code`, in the
//! same entry format): the SPIR-V / PTX, argument layout and LLVM IR that code generation made for a
//! kernel description and device target ([`code_key`]), so a new process skips code generation as
//! well (eager operations, kernels, jitted functions with or without `cache=True`). The key adds
//! the identity of the compiled library (its file's size and modification time) to numba_ext's
//! version, so a rebuilt library never loads code an older build generated; where that identity
//! cannot be read, code is not cached. Both kinds share the size bound and the eviction order, and
//! count separately.
//!
//! Configuration is read from the environment on every use (a program build costs far more).

use std::collections::HashSet;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::SystemTime;

use sha2::{Digest, Sha256};

use super::device::Device;

const MAGIC: &[u8; 8] = b"NXPROGC\0";
/// Version of the entry format (and of the key's composition); bump on any change of either.
pub const FORMAT_VERSION: u32 = 1;
const HEADER_LEN: usize = 8 + 4 + 32 + 8 + 32;
const DEFAULT_MAX_MB: f64 = 512.0;
const SUFFIX: &str = ".bin";
const CODE_SUFFIX: &str = ".code";

/// What an entry holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// A built program's binary (`<key>.bin`).
    Program,
    /// Generated device code (`<key>.code`).
    Code,
}

impl Kind {
    fn suffix(self) -> &'static str {
        match self {
            Kind::Program => SUFFIX,
            Kind::Code => CODE_SUFFIX,
        }
    }
}

/// Counters of this process, and the failure that turned the disk cache off, if any.
#[derive(Default, Clone, Debug)]
pub struct Stats {
    /// Programs created from a cached binary.
    pub hits: u64,
    /// Lookups that found no usable entry (the program was built from source).
    pub misses: u64,
    /// Entries written.
    pub stores: u64,
    /// Entries found invalid (truncated, corrupted, another format or key) or refused by the driver.
    pub rejected: u64,
    /// Entries deleted to keep the cache within its size.
    pub evicted: u64,
    /// The same counters for generated device code: kernels whose code came from the disk (no code
    /// generation), kernels generated, entries written, found invalid and evicted.
    pub code: CodeStats,
    /// The last failure to read or write the cache directory.
    pub last_error: Option<String>,
}

/// Counters of generated device code (see [`Stats`]).
#[derive(Default, Clone, Debug)]
pub struct CodeStats {
    pub hits: u64,
    pub misses: u64,
    pub stores: u64,
    pub rejected: u64,
    pub evicted: u64,
}

struct State {
    stats: Stats,
    /// Directories found unwritable: the disk cache is off for them for the rest of the process.
    unwritable: HashSet<PathBuf>,
}

fn state() -> &'static Mutex<State> {
    static S: OnceLock<Mutex<State>> = OnceLock::new();
    S.get_or_init(|| Mutex::new(State { stats: Stats::default(), unwritable: HashSet::new() }))
}

static WARN_HOOK: OnceLock<fn(&str)> = OnceLock::new();

/// Install the function that reports (once per process) a cache directory that cannot be written.
pub fn set_warning_hook(hook: fn(&str)) {
    let _ = WARN_HOOK.set(hook);
}

/// Whether `NUMBA_EXT_CACHE` leaves the cache on (anything but 0 / false / no / off).
pub fn enabled() -> bool {
    match std::env::var("NUMBA_EXT_CACHE") {
        Ok(v) => !matches!(v.trim().to_ascii_lowercase().as_str(), "0" | "false" | "no" | "off"),
        Err(_) => true,
    }
}

/// The cache directory (`None`: no user cache directory is known).
pub fn directory() -> Option<PathBuf> {
    let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(d) = var("NUMBA_EXT_CACHE_DIR") {
        return Some(d);
    }
    let base = if cfg!(windows) {
        var("LOCALAPPDATA")
    } else {
        var("XDG_CACHE_HOME").or_else(|| var("HOME").map(|h| h.join(".cache")))
    };
    base.map(|b| b.join("numba_ext").join("programs"))
}

/// The size bound in bytes (`NUMBA_EXT_CACHE_MAX_MB`, default 512; an unreadable value keeps it).
pub fn max_bytes() -> u64 {
    let mb = std::env::var("NUMBA_EXT_CACHE_MAX_MB")
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|v| v.is_finite() && *v >= 0.0)
        .unwrap_or(DEFAULT_MAX_MB);
    (mb * 1024.0 * 1024.0) as u64
}

/// This process's counters.
pub fn stats() -> Stats {
    state().lock().unwrap().stats.clone()
}

/// The entries of `dir` of either kind: path, kind, size and modification time.
fn entries(dir: &Path) -> Vec<(PathBuf, Kind, u64, SystemTime)> {
    let Ok(rd) = fs::read_dir(dir) else { return Vec::new() };
    rd.filter_map(|e| {
        let e = e.ok()?;
        let name = e.file_name();
        let name = name.to_str()?;
        if name.starts_with('.') {
            return None;
        }
        let kind = [Kind::Program, Kind::Code].into_iter().find(|k| name.ends_with(k.suffix()))?;
        let md = e.metadata().ok()?;
        md.is_file().then(|| (e.path(), kind, md.len(), md.modified().unwrap_or(SystemTime::UNIX_EPOCH)))
    })
    .collect()
}

/// Number of entries of `kind` and their total size in bytes.
pub fn usage(kind: Kind) -> (usize, u64) {
    let Some(dir) = directory() else { return (0, 0) };
    let e: Vec<_> = entries(&dir).into_iter().filter(|e| e.1 == kind).collect();
    (e.len(), e.iter().map(|e| e.2).sum())
}

/// Delete every entry of both kinds (and leftover temporary files); returns the number of entries
/// deleted.
pub fn clear() -> std::io::Result<usize> {
    let Some(dir) = directory() else { return Ok(0) };
    let mut n = 0;
    match fs::read_dir(&dir) {
        Ok(rd) => {
            for e in rd.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                let entry = name.ends_with(SUFFIX) || name.ends_with(CODE_SUFFIX);
                if entry || (name.starts_with('.') && name.ends_with(".tmp")) {
                    fs::remove_file(e.path())?;
                    n += usize::from(!name.starts_with('.'));
                }
            }
            Ok(n)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(0),
        Err(e) => Err(e),
    }
}

/// The key of a program: `source` (SPIR-V or PTX) built with `options` for `device`.
pub fn key(source: &[u8], options: &str, device: &Device) -> [u8; 32] {
    let cl_version = opencl3::device::Device::new(device.id()).version().unwrap_or_default();
    let mut h = Sha256::new();
    let mut field = |b: &[u8]| {
        h.update((b.len() as u64).to_le_bytes());
        h.update(b);
    };
    field(&FORMAT_VERSION.to_le_bytes());
    field(env!("CARGO_PKG_VERSION").as_bytes());
    field(source);
    field(options.as_bytes());
    field(device.name().as_bytes());
    field(device.vendor().as_bytes());
    field(device.driver_version().as_bytes());
    field(cl_version.trim_end_matches('\0').as_bytes());
    h.finalize().into()
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The directory to use now, or None when the cache is off (or its directory was found unwritable).
fn active_dir() -> Option<PathBuf> {
    if !enabled() {
        return None;
    }
    let dir = directory()?;
    (!state().lock().unwrap().unwritable.contains(&dir)).then_some(dir)
}

fn count(f: impl FnOnce(&mut Stats)) {
    f(&mut state().lock().unwrap().stats)
}

/// The payload of `bytes` if it is a whole, valid entry for `key`.
fn validate<'a>(bytes: &'a [u8], key: &[u8; 32]) -> Option<&'a [u8]> {
    if bytes.len() < HEADER_LEN || &bytes[..8] != MAGIC {
        return None;
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().ok()?);
    let stored_key = &bytes[12..44];
    let len = u64::from_le_bytes(bytes[44..52].try_into().ok()?);
    let sum = &bytes[52..84];
    let payload = &bytes[HEADER_LEN..];
    let ok = version == FORMAT_VERSION
        && stored_key == key
        && len == payload.len() as u64
        && !payload.is_empty()
        && Sha256::digest(payload).as_slice() == sum;
    ok.then_some(payload)
}

/// The cached binary for `key`, if a valid entry exists (its use time is updated). An invalid
/// entry is deleted and counted as rejected; either way a miss is counted when nothing is returned.
pub fn lookup(key: &[u8; 32]) -> Option<Vec<u8>> {
    let found = read_entry(key, Kind::Program)?;
    if found.is_none() {
        count(|s| s.misses += 1);
    }
    found
}

/// The payload of the valid entry of `kind` for `key` (its use time updated), `Some(None)` where
/// there is none (an invalid one is deleted and counted as rejected), `None` when the cache is off.
fn read_entry(key: &[u8; 32], kind: Kind) -> Option<Option<Vec<u8>>> {
    let dir = active_dir()?;
    let path = dir.join(format!("{}{}", hex(key), kind.suffix()));
    let found = match fs::read(&path) {
        Ok(bytes) => match validate(&bytes, key) {
            Some(payload) => Some(payload.to_vec()),
            None => {
                let _ = fs::remove_file(&path);
                count(|s| match kind {
                    Kind::Program => s.rejected += 1,
                    Kind::Code => s.code.rejected += 1,
                });
                None
            }
        },
        Err(_) => None,
    };
    if found.is_some() {
        // least-recently-used order: a hit makes the entry the newest
        let _ = fs::File::options().append(true).open(&path).and_then(|f| f.set_modified(SystemTime::now()));
    }
    Some(found)
}

/// The key of the device code generated from `description` (a kernel description and its device
/// target, as the process-wide cache of compiled kernels keys them) with `extra` (the identity of
/// other inputs of code generation, such as NVIDIA's libdevice); None where the compiled library's
/// identity cannot be read (code is then not cached on disk).
pub fn code_key(description: &str, extra: &[u8]) -> Option<[u8; 32]> {
    let library = library_identity()?;
    let mut h = Sha256::new();
    let mut field = |b: &[u8]| {
        h.update((b.len() as u64).to_le_bytes());
        h.update(b);
    };
    field(b"code");
    field(&FORMAT_VERSION.to_le_bytes());
    field(env!("CARGO_PKG_VERSION").as_bytes());
    field(library.as_bytes());
    field(description.as_bytes());
    field(extra);
    Some(h.finalize().into())
}

/// The generated device code stored under `key`, if a valid entry exists; a miss is counted when
/// nothing is returned.
pub fn lookup_code(key: &[u8; 32]) -> Option<Vec<u8>> {
    let found = read_entry(key, Kind::Code)?;
    if found.is_none() {
        count(|s| s.code.misses += 1);
    }
    found
}

/// Count a kernel whose device code came from the disk.
pub fn record_code_hit() {
    count(|s| s.code.hits += 1)
}

/// Count stored device code that could not be read back (another package format, another target):
/// it is generated again and overwritten.
pub fn record_code_refused() {
    count(|s| {
        s.code.rejected += 1;
        s.code.misses += 1
    })
}

/// Store generated device code under `key` (then evict beyond the size bound).
pub fn store_code(key: &[u8; 32], code: &[u8]) {
    store_entry(key, code, Kind::Code)
}

/// The size and modification time of `path`, as text: a file's identity for cache keys.
pub fn file_identity(path: &Path) -> Option<String> {
    let md = fs::metadata(path).ok()?;
    let modified = md.modified().ok()?.duration_since(SystemTime::UNIX_EPOCH).ok()?;
    Some(format!("{}|{}|{}", path.display(), md.len(), modified.as_nanos()))
}

/// The identity of the file this code was loaded from (the extension module, or the executable
/// of a Rust program), read once.
fn library_identity() -> Option<&'static str> {
    static ID: OnceLock<Option<String>> = OnceLock::new();
    ID.get_or_init(|| {
        let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
        let addr = library_identity as *const libc::c_void;
        if unsafe { libc::dladdr(addr, &mut info) } == 0 || info.dli_fname.is_null() {
            return None;
        }
        let name = unsafe { std::ffi::CStr::from_ptr(info.dli_fname) };
        use std::os::unix::ffi::OsStrExt;
        let path = PathBuf::from(std::ffi::OsStr::from_bytes(name.to_bytes()));
        // the executable may be named relatively (no directory): its own path then
        let path = if path.is_absolute() { path } else { std::env::current_exe().ok()? };
        file_identity(&path)
    })
    .as_deref()
}

/// Count a program created from a cached binary.
pub fn record_hit() {
    count(|s| s.hits += 1)
}

/// Count a cached binary the driver refused (it is then rebuilt from source and overwritten).
pub fn record_refused() {
    count(|s| {
        s.rejected += 1;
        s.misses += 1
    })
}

/// Store `binary` under `key`, then evict least recently used entries beyond the size bound.
pub fn store(key: &[u8; 32], binary: &[u8]) {
    store_entry(key, binary, Kind::Program)
}

fn store_entry(key: &[u8; 32], payload: &[u8], kind: Kind) {
    if payload.is_empty() {
        return;
    }
    let Some(dir) = active_dir() else { return };
    let name = format!("{}{}", hex(key), kind.suffix());
    match write_entry(&dir, &name, key, payload) {
        Ok(()) => {
            count(|s| match kind {
                Kind::Program => s.stores += 1,
                Kind::Code => s.code.stores += 1,
            });
            evict(&dir, &dir.join(&name));
        }
        Err(e) => unwritable(dir, e),
    }
}

fn write_entry(dir: &Path, name: &str, key: &[u8; 32], binary: &[u8]) -> std::io::Result<()> {
    fs::create_dir_all(dir)?;
    // unique among processes (pid) and among this process's threads (sequence number)
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let seq = SEQ.fetch_add(1, Ordering::Relaxed);
    let tmp = dir.join(format!(".{name}.{}.{seq}.tmp", std::process::id()));
    let mut header = Vec::with_capacity(HEADER_LEN);
    header.extend_from_slice(MAGIC);
    header.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    header.extend_from_slice(key);
    header.extend_from_slice(&(binary.len() as u64).to_le_bytes());
    header.extend_from_slice(&Sha256::digest(binary));
    let written = (|| {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(&header)?;
        f.write_all(binary)?;
        f.sync_all()?;
        fs::rename(&tmp, dir.join(name))
    })();
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written
}

/// Turn the disk cache off for `dir` for the rest of the process; report it the first time.
fn unwritable(dir: PathBuf, e: std::io::Error) {
    let msg = format!(
        "the program cache directory {} cannot be written ({e}); programs are cached in memory only for \
         this process (set NUMBA_EXT_CACHE_DIR to a writable directory, or NUMBA_EXT_CACHE=0)",
        dir.display()
    );
    let first = {
        let mut st = state().lock().unwrap();
        st.stats.last_error = Some(msg.clone());
        st.unwritable.insert(dir)
    };
    if first {
        if let Some(hook) = WARN_HOOK.get() {
            hook(&msg);
        }
    }
}

/// Delete the least recently used entries of `dir` until the total fits the bound (`keep` stays).
fn evict(dir: &Path, keep: &Path) {
    let max = max_bytes();
    let mut all = entries(dir);
    let mut total: u64 = all.iter().map(|e| e.2).sum();
    if total <= max {
        return;
    }
    all.sort_by_key(|e| e.3);
    for (path, kind, n, _) in all {
        if total <= max {
            break;
        }
        if path == keep {
            continue;
        }
        if fs::remove_file(&path).is_ok() {
            total -= n;
            count(|s| match kind {
                Kind::Program => s.evicted += 1,
                Kind::Code => s.code.evicted += 1,
            });
        }
    }
}
