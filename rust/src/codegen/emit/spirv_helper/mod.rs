//! SPIR-V emission in helper processes.
//!
//! LLVM 22's SPIR-V back end can emit only one module per process image correctly. Its module
//! analysis keeps its results in one process-global object (`SPIRVModuleAnalysis::MAI`, a static
//! class member), and some of its tables are keyed by the addresses of machine functions and are
//! never cleared between modules (the basic-block label table among them). The allocator hands a
//! later module's machine function the address an earlier one had almost every time, and its block
//! labels then get ids of the earlier module that collide with ids of the new one (`spirv-val`: "Id 2
//! is defined more than once"). A fresh LLVM context, target machine and module per emission do not
//! reset that object, and it is not reachable from outside LLVM. (LLVM later made it a member of the
//! pass instance; LLVM 22 still has the static one.)
//!
//! So the caller's process never runs the SPIR-V back end. It does the IR work (building,
//! optimising, printing IR) and sends the optimised module as bitcode to a helper process, started
//! with `posix_spawn` (through `std::process::Command`: the caller never forks, and none of its fork
//! handlers run). The helper initialises LLVM's targets and then, per request, in one of two modes:
//! * `exec` (the default): it emits the module, answers, and replaces itself with a fresh image of
//!   the same program (`execv`), which loads LLVM again (about 40 ms for the Python interpreter and
//!   the extension, overlapped by keeping two helpers, so a helper is ready while the caller builds
//!   its next kernel). Nothing forks at all.
//! * `forkserver` (`NUMBA_EXT_SPIRV_EMIT=forkserver`, for compiling many kernels back to back): it
//!   forks a child that emits the module, answers and exits. The helper itself never emits, so every
//!   child starts from the clean state; the helper has one thread (checked before every fork: with
//!   more it re-executes instead), never loads an OpenCL driver and never runs Numba, so forking it
//!   is safe. A few milliseconds per module.
//!
//! A back-end crash or abort ends only the emitting process: the request fails with
//! [`Error::Codegen`] carrying what the back end wrote to stderr, and a helper that has ended is
//! replaced at the next request. An emitting process ended by `SIGKILL` (which no back-end failure
//! raises: the OOM killer or a user sent it) does not fail the request: a fresh process takes it,
//! up to `ATTEMPTS` processes in all and within the same deadline. A request not answered within
//! `NUMBA_EXT_EMIT_TIMEOUT` seconds (default 120) stops the helper (and its child) and fails likewise.
//!
//! The helper program is whatever runs this library:
//! * when this code is part of the executable (Rust tests, examples, programs), the executable itself,
//!   started with [`HELPER_ENV`] set; a load-time hook ([`helper_hook`]) turns such a process into a
//!   helper before `main` runs;
//! * when it is a shared object (the Python extension module, from a `maturin develop` build or a
//!   wheel), the Python interpreter that loaded it (`NUMBA_EXT_PYTHON` overrides it), as
//!   `python -I -S -c "import ctypes, sys; ctypes.CDLL(sys.argv[1]).numba_ext_spirv_helper()" <this
//!   library>`: the exported [`serve::numba_ext_spirv_helper`] is called once the library has loaded,
//!   after all of its load-time constructors (LLVM's too, when LLVM is linked into the library
//!   statically, as in the wheel). No separate executable has to ship with the package.
//!
//! `NUMBA_EXT_SPIRV_HELPERS` sets how many helpers are kept (default 2 for `exec`, 1 for
//! `forkserver`). A process forked from the caller (for example a multiprocessing worker) does not use its
//! parent's helpers: it starts its own.

mod connection;
mod serve;

use std::os::fd::AsRawFd;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use inkwell::module::Module;

use crate::error::{Error, Result};
use connection::{poll_in, spawn, Helper};

/// The environment variable that makes a process loading this library a helper; its value is the
/// mode (`forkserver` or `exec`).
pub const HELPER_ENV: &str = "NUMBA_EXT_SPIRV_HELPER";

/// Request: magic, then length-prefixed (u32, little endian) target cpu and module bitcode.
const REQUEST_MAGIC: &[u8; 4] = b"NXS1";
/// Sent by a helper once it is initialised and waiting for a request.
const READY: u8 = b'R';
const REPLY_OK: u8 = 0;
/// The back end reported an error.
const REPLY_ERR: u8 = 1;
/// The emitting child ended without answering (forkserver mode; the helper lives on).
const REPLY_CRASH: u8 = 2;
/// The emitting child was ended by `SIGKILL` without answering (forkserver mode; the helper lives
/// on): sent from outside, the request can be tried again.
const REPLY_KILLED: u8 = 3;
/// Bytes of a helper's stderr kept for error messages.
const STDERR_TAIL: usize = 8192;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    ForkServer,
    Exec,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::ForkServer => "forkserver",
            Mode::Exec => "exec",
        }
    }
    fn parse(s: &[u8]) -> Option<Mode> {
        match s {
            b"forkserver" => Some(Mode::ForkServer),
            b"exec" => Some(Mode::Exec),
            _ => None,
        }
    }
    /// The mode the caller asks helpers for (`NUMBA_EXT_SPIRV_EMIT`).
    fn wanted() -> Mode {
        match std::env::var("NUMBA_EXT_SPIRV_EMIT").as_deref() {
            Ok("forkserver") => Mode::ForkServer,
            _ => Mode::Exec,
        }
    }
}

// ---- the requesting side -------------------------------------------------------------------------

struct Pool {
    /// The process the helpers belong to (a forked child must not talk to its parent's helpers).
    owner: u32,
    helpers: Vec<Helper>,
}

static POOL: Mutex<Pool> = Mutex::new(Pool { owner: 0, helpers: Vec::new() });

/// How a helper failed a request.
enum Failure {
    /// It ended or closed the connection before the request was sent: start another and retry.
    Startup(String),
    /// It ended, or broke the protocol, while emitting.
    Crash(String),
    /// Its emitting child ended without an answer (the helper lives on).
    ChildCrash(String),
    /// Its emitting child was ended by `SIGKILL` without an answer (the helper lives on).
    ChildKilled(String),
    Timeout,
    /// The back end reported an error (the helper is fine).
    Emit(String),
}

fn pool() -> std::sync::MutexGuard<'static, Pool> {
    let mut pool = POOL.lock().unwrap_or_else(|p| p.into_inner());
    let me = std::process::id();
    if pool.owner != me {
        // inherited through fork: these helpers talk to the parent; close our copies only
        pool.helpers.clear();
        pool.owner = me;
    }
    pool
}

fn wanted_helpers(mode: Mode) -> usize {
    let default = match mode {
        Mode::ForkServer => 1,
        Mode::Exec => 2,
    };
    std::env::var("NUMBA_EXT_SPIRV_HELPERS").ok().and_then(|v| v.parse().ok()).unwrap_or(default).max(1)
}

/// How many helpers a request is given: one that fails to start, or whose emitting process is ended
/// by `SIGKILL` from outside, is followed by another while attempts remain.
const ATTEMPTS: usize = 3;

fn timeout() -> Duration {
    let secs = std::env::var("NUMBA_EXT_EMIT_TIMEOUT").ok().and_then(|v| v.parse::<f64>().ok()).unwrap_or(120.0);
    Duration::from_secs_f64(secs.max(0.001))
}

/// Start a helper now, so that the first kernel does not wait for one (called when the Python
/// extension is loaded). Failures are left for the first emission to report.
pub fn prestart() {
    let mut pool = pool();
    if pool.helpers.is_empty() {
        if let Ok(h) = spawn(Mode::wanted()) {
            pool.helpers.push(h);
        }
    }
}

/// Process ids of the current helpers (for tests).
pub fn helper_pids() -> Vec<u32> {
    pool().helpers.iter().map(|h| h.child.id()).collect()
}

/// Emit `module` (optimised, for the SPIR-V target) in a helper process.
pub fn emit(module: &Module, cpu: &str) -> Result<Vec<u8>> {
    let bitcode = module.write_bitcode_to_memory();
    let mut request = Vec::with_capacity(12 + cpu.len() + bitcode.get_size());
    request.extend_from_slice(REQUEST_MAGIC);
    request.extend_from_slice(&(cpu.len() as u32).to_le_bytes());
    request.extend_from_slice(cpu.as_bytes());
    request.extend_from_slice(&(bitcode.get_size() as u32).to_le_bytes());
    request.extend_from_slice(bitcode.as_slice());

    let mut pool = pool();
    let mode = Mode::wanted();
    // helpers of another mode (the setting changed) are retired
    for h in pool.helpers.extract_if(.., |h| h.mode != mode).collect::<Vec<_>>() {
        h.finish("retired");
    }
    let deadline = Instant::now() + timeout();
    let mut startup_errors = Vec::new();
    for attempt in 1..=ATTEMPTS {
        let retry = attempt < ATTEMPTS;
        let mut helper = match take_helper(&mut pool, mode) {
            Ok(h) => h,
            Err(e) => {
                startup_errors.push(e);
                continue;
            }
        };
        top_up(&mut pool, mode);
        match helper.run(&request, deadline) {
            Ok(bytes) => {
                pool.helpers.push(helper);
                return Ok(bytes);
            }
            Err(Failure::Emit(msg)) => {
                pool.helpers.push(helper);
                return Err(Error::Codegen(format!("emitting SPIR-V: {msg}")));
            }
            Err(Failure::Startup(msg)) => startup_errors.push(helper.finish(&msg).what),
            Err(Failure::Crash(msg)) => {
                let ended = helper.finish(&msg);
                // killed from outside mid-request: another helper emits the same module
                if !(ended.killed && retry) {
                    return Err(crashed(&ended.what, module));
                }
            }
            Err(Failure::ChildCrash(msg)) => {
                let what = helper.describe_with_stderr(&msg);
                pool.helpers.push(helper);
                return Err(crashed(&what, module));
            }
            Err(Failure::ChildKilled(msg)) => {
                let what = helper.describe_with_stderr(&msg);
                pool.helpers.push(helper);
                if !retry {
                    return Err(crashed(&what, module));
                }
            }
            Err(Failure::Timeout) => {
                let _ = helper.child.kill();
                let what = helper.finish("no answer").what;
                return Err(Error::Codegen(format!(
                    "the LLVM SPIR-V back end did not finish emitting this kernel within {:.0} s \
                     (NUMBA_EXT_EMIT_TIMEOUT) and was stopped ({what})",
                    timeout().as_secs_f64()
                )));
            }
        }
    }
    Err(Error::Codegen(format!("could not start a SPIR-V emission helper process: {}", startup_errors.join("; "))))
}

/// The error of a crashed emission; with `NUMBA_EXT_DUMP_DIR` set, the module's LLVM IR is written
/// there (`<module>.failed.ll`) to reproduce it with `llc`.
fn crashed(what: &str, module: &Module) -> Error {
    if let Some(dir) = std::env::var_os("NUMBA_EXT_DUMP_DIR") {
        let dir = std::path::PathBuf::from(dir);
        let _ = std::fs::create_dir_all(&dir);
        let name = module.get_name().to_string_lossy().into_owned();
        let _ = std::fs::write(dir.join(format!("{name}.failed.ll")), module.print_to_string().to_string());
    }
    Error::Codegen(format!(
        "the LLVM SPIR-V back end failed while emitting this kernel ({what}); \
         set NUMBA_EXT_DUMP_DIR to keep its LLVM IR and please report it"
    ))
}

/// A helper that is ready if there is one, else the oldest (the one likely to be ready first), else
/// a new one.
fn take_helper(pool: &mut Pool, mode: Mode) -> std::result::Result<Helper, String> {
    let ready = pool.helpers.iter().position(|h| poll_in(h.conn.as_raw_fd(), 0));
    match ready {
        Some(i) => Ok(pool.helpers.remove(i)),
        None if !pool.helpers.is_empty() => Ok(pool.helpers.remove(0)),
        None => spawn(mode),
    }
}

/// Start helpers until the pool (plus the one in use) has as many as wanted.
fn top_up(pool: &mut Pool, mode: Mode) {
    while pool.helpers.len() + 1 < wanted_helpers(mode) {
        match spawn(mode) {
            Ok(h) => pool.helpers.push(h),
            Err(_) => break,
        }
    }
}

fn signal_name(s: i32) -> String {
    let name = unsafe { std::ffi::CStr::from_ptr(libc::strsignal(s)) }.to_string_lossy().into_owned();
    format!("signal {s} ({name})")
}
