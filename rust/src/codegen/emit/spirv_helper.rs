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
//! * `forkserver` (the default): it forks a child that emits the module, answers and exits. The
//!   helper itself never emits, so every child starts from the clean state; the helper has one
//!   thread (checked before every fork: with more it switches to `exec`), never loads an OpenCL
//!   driver and never runs Numba, so forking it is safe. A few milliseconds per module.
//! * `exec`: it emits the module itself, answers, and replaces itself with a fresh image of the same
//!   program (`execv`), which loads LLVM again (tens of milliseconds per module, mostly overlapped by
//!   keeping two helpers). Nothing forks at all. Chosen with `NUMBA_EXT_SPIRV_EMIT=exec`.
//!
//! A back-end crash or abort ends only the emitting process: the request fails with
//! [`Error::Codegen`] carrying what the back end wrote to stderr, and a helper that has ended is
//! replaced at the next request. A request not answered within `NUMBA_EXT_EMIT_TIMEOUT` seconds
//! (default 120) stops the helper (and its child) and fails likewise.
//!
//! The helper program is whatever runs this library:
//! * when this code is part of the executable (Rust tests, examples, programs), the executable itself,
//!   started with [`HELPER_ENV`] set; a load-time hook ([`helper_hook`]) turns such a process into a
//!   helper before `main` runs;
//! * when it is a shared object (the Python extension module, from a `maturin develop` build or a
//!   wheel), the Python interpreter that loaded it (`NUMBA_EXT_PYTHON` overrides it), as
//!   `python -I -S -c "import ctypes, sys; ctypes.CDLL(sys.argv[1])" <this library>`: loading the
//!   library runs the same hook. No separate executable has to ship with the package.
//!
//! `NUMBA_EXT_SPIRV_HELPERS` sets how many helpers are kept (default 1 for `forkserver`, 2 for
//! `exec`). A process forked from the caller (for example a multiprocessing worker) does not use its
//! parent's helpers: it starts its own.

use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::net::UnixStream;
use std::process::{Child, ChildStderr, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::Module;
use inkwell::targets::FileType;

use crate::codegen::Flavor;
use crate::error::{Error, Result};

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
/// Bytes of a helper's stderr kept for error messages.
const STDERR_TAIL: usize = 8192;

// ---- the helper side -----------------------------------------------------------------------------

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
            Ok("exec") => Mode::Exec,
            _ => Mode::ForkServer,
        }
    }
}

/// Runs when the library is loaded (from `.init_array`, before `main` for an executable, during
/// `dlopen` for a shared object). Does nothing unless [`HELPER_ENV`] names a mode and standard input
/// is a socket (the connection a requesting process sets up).
extern "C" fn helper_hook() {
    let value = unsafe { libc::getenv(c"NUMBA_EXT_SPIRV_HELPER".as_ptr()) };
    if value.is_null() {
        return;
    }
    let Some(mode) = Mode::parse(unsafe { std::ffi::CStr::from_ptr(value) }.to_bytes()) else { return };
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(0, &mut st) } == 0 && st.st_mode & libc::S_IFMT == libc::S_IFSOCK {
        serve(mode)
    }
}

#[used]
#[unsafe(link_section = ".init_array")]
static HELPER_HOOK: extern "C" fn() = helper_hook;

/// The helper: announce readiness, take a request, answer; ends with `_exit` when the requesting
/// process has gone (end of input).
fn serve(mode: Mode) -> ! {
    unsafe {
        // an interrupt in the terminal is meant for the user's program; helpers end with their input
        libc::signal(libc::SIGINT, libc::SIG_IGN);
    }
    super::init_targets();
    let mut input = unsafe { std::fs::File::from_raw_fd(0) };
    let mut output = unsafe { std::fs::File::from_raw_fd(1) };
    loop {
        if output.write_all(&[READY]).is_err() {
            unsafe { libc::_exit(0) }
        }
        let Some((cpu, bitcode)) = read_request(&mut input) else { unsafe { libc::_exit(0) } };
        let forking = mode == Mode::ForkServer && single_threaded();
        let reply = if forking { emit_in_child(&cpu, &bitcode) } else { emit_framed(&cpu, &bitcode) };
        if output.write_all(&reply).is_err() {
            unsafe { libc::_exit(0) }
        }
        if !forking {
            reexec()
        }
    }
}

/// Emit and frame the reply, in this process.
fn emit_framed(cpu: &str, bitcode: &[u8]) -> Vec<u8> {
    match std::panic::catch_unwind(|| emit_module(cpu, bitcode)) {
        Ok(Ok(bytes)) => frame(REPLY_OK, &bytes),
        Ok(Err(msg)) => frame(REPLY_ERR, msg.as_bytes()),
        Err(_) => frame(REPLY_ERR, b"the SPIR-V emission helper panicked"),
    }
}

fn single_threaded() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .map(|s| s.lines().any(|l| l.split_whitespace().eq(["Threads:", "1"])))
        .unwrap_or(false)
}

/// Fork a child that emits the module and sends its framed reply through a pipe; the reply, or a
/// crash reply when the child ended without one.
fn emit_in_child(cpu: &str, bitcode: &[u8]) -> Vec<u8> {
    let mut fds = [0i32; 2];
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return frame(REPLY_ERR, format!("pipe: {}", std::io::Error::last_os_error()).as_bytes());
    }
    let server = unsafe { libc::getpid() };
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        let e = std::io::Error::last_os_error();
        unsafe {
            libc::close(fds[0]);
            libc::close(fds[1]);
        }
        return frame(REPLY_ERR, format!("fork: {e}").as_bytes());
    }
    if pid == 0 {
        unsafe {
            // the child ends with the helper (which the requesting process stops on a timeout)
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            if libc::getppid() != server {
                libc::_exit(1);
            }
            libc::close(fds[0]);
        }
        let mut out = unsafe { std::fs::File::from_raw_fd(fds[1]) };
        let code = if out.write_all(&emit_framed(cpu, bitcode)).is_ok() { 0 } else { 1 };
        unsafe { libc::_exit(code) };
    }
    unsafe { libc::close(fds[1]) };
    let mut data = Vec::new();
    let read = unsafe { std::fs::File::from_raw_fd(fds[0]) }.read_to_end(&mut data);
    let mut status = 0;
    while unsafe { libc::waitpid(pid, &mut status, 0) } < 0
        && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
    {}
    let complete = data.len() >= 5 && data.len() == 5 + u32::from_le_bytes(data[1..5].try_into().unwrap()) as usize;
    if read.is_ok() && complete {
        return data;
    }
    let what = if libc::WIFSIGNALED(status) {
        signal_name(libc::WTERMSIG(status))
    } else {
        format!("exit status {}", libc::WEXITSTATUS(status))
    };
    frame(REPLY_CRASH, format!("the emitting process ended without an answer, {what}").as_bytes())
}

fn frame(status: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(5 + payload.len());
    out.push(status);
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(payload);
    out
}

fn read_request(input: &mut impl Read) -> Option<(String, Vec<u8>)> {
    let mut magic = [0u8; 4];
    input.read_exact(&mut magic).ok()?;
    if &magic != REQUEST_MAGIC {
        return None;
    }
    let mut field = || -> Option<Vec<u8>> {
        let mut len = [0u8; 4];
        input.read_exact(&mut len).ok()?;
        let mut buf = vec![0u8; u32::from_le_bytes(len) as usize];
        input.read_exact(&mut buf).ok()?;
        Some(buf)
    };
    let cpu = String::from_utf8(field()?).ok()?;
    Some((cpu, field()?))
}

/// Emit one SPIR-V module from bitcode, in a fresh context with a fresh target machine.
fn emit_module(cpu: &str, bitcode: &[u8]) -> std::result::Result<Vec<u8>, String> {
    let ctx = Context::create();
    let buf = MemoryBuffer::create_from_memory_range_copy(bitcode, "kernel");
    let module = Module::parse_bitcode_from_buffer(&buf, &ctx).map_err(|e| format!("reading the module: {e}"))?;
    let tm = super::machine(Flavor::Spirv, cpu).map_err(|e| e.to_string())?;
    tm.write_to_memory_buffer(&module, FileType::Object).map(|b| b.as_slice().to_vec()).map_err(|e| e.to_string())
}

/// Replace this process with a fresh image of the same program and arguments (the environment,
/// and with it [`HELPER_ENV`], carries over; so do descriptors 0 to 2, the connection).
fn reexec() -> ! {
    let args: Vec<std::ffi::CString> = std::fs::read("/proc/self/cmdline")
        .unwrap_or_default()
        .split(|&b| b == 0)
        .filter(|a| !a.is_empty())
        .filter_map(|a| std::ffi::CString::new(a).ok())
        .collect();
    if !args.is_empty() {
        let mut argv: Vec<*const libc::c_char> = args.iter().map(|a| a.as_ptr()).collect();
        argv.push(std::ptr::null());
        unsafe { libc::execv(c"/proc/self/exe".as_ptr(), argv.as_ptr()) };
    }
    // no fresh image: end; the requesting process starts another helper when it needs one
    unsafe { libc::_exit(3) }
}

// ---- the requesting side -------------------------------------------------------------------------

struct Pool {
    /// The process the helpers belong to (a forked child must not talk to its parent's helpers).
    owner: u32,
    helpers: Vec<Helper>,
}

static POOL: Mutex<Pool> = Mutex::new(Pool { owner: 0, helpers: Vec::new() });

struct Helper {
    child: Child,
    mode: Mode,
    /// Our end of the connection (the helper's stdin and stdout).
    conn: UnixStream,
    stderr: ChildStderr,
    stderr_tail: Vec<u8>,
}

/// How a helper failed a request.
enum Failure {
    /// It ended or closed the connection before the request was sent: start another and retry.
    Startup(String),
    /// It ended, or broke the protocol, while emitting.
    Crash(String),
    /// Its emitting child ended without an answer (the helper lives on).
    ChildCrash(String),
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
    for _ in 0..3 {
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
            Err(Failure::Startup(msg)) => startup_errors.push(helper.finish(&msg)),
            Err(Failure::Crash(msg)) => return Err(crashed(&helper.finish(&msg))),
            Err(Failure::ChildCrash(msg)) => {
                let what = helper.describe_with_stderr(&msg);
                pool.helpers.push(helper);
                return Err(crashed(&what));
            }
            Err(Failure::Timeout) => {
                let _ = helper.child.kill();
                let what = helper.finish("no answer");
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

fn crashed(what: &str) -> Error {
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

/// The command that starts a helper (see the module docs).
fn helper_command(mode: Mode) -> std::result::Result<Command, String> {
    let exe = std::env::current_exe().map_err(|e| format!("the path of this program: {e}"))?;
    let mut cmd = match this_shared_object() {
        None => Command::new(&exe),
        Some(lib) => {
            let python = std::env::var_os("NUMBA_EXT_PYTHON").map(std::path::PathBuf::from).unwrap_or(exe);
            let mut cmd = Command::new(python);
            cmd.args(["-I", "-S", "-c", "import ctypes, sys; ctypes.CDLL(sys.argv[1])"]).arg(lib);
            cmd
        }
    };
    cmd.env(HELPER_ENV, mode.name());
    Ok(cmd)
}

/// The shared object this code was loaded from, or `None` when it is part of the executable (whose
/// program headers are the ones the kernel passed to the process, `AT_PHDR`).
fn this_shared_object() -> Option<std::path::PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    let addr = helper_hook as extern "C" fn() as *const libc::c_void;
    if unsafe { libc::dladdr(addr, &mut info) } == 0 || info.dli_fbase.is_null() || info.dli_fname.is_null() {
        return None;
    }
    let header = unsafe { &*(info.dli_fbase as *const libc::Elf64_Ehdr) };
    let phdr = info.dli_fbase as usize + header.e_phoff as usize;
    if phdr == unsafe { libc::getauxval(libc::AT_PHDR) } as usize {
        return None;
    }
    let name = unsafe { std::ffi::CStr::from_ptr(info.dli_fname) };
    Some(std::path::PathBuf::from(std::ffi::OsStr::from_bytes(name.to_bytes())))
}

fn spawn(mode: Mode) -> std::result::Result<Helper, String> {
    let mut cmd = helper_command(mode)?;
    let (ours, theirs) = UnixStream::pair().map_err(|e| format!("socketpair: {e}"))?;
    let theirs: OwnedFd = theirs.into();
    let theirs_out = theirs.try_clone().map_err(|e| format!("dup: {e}"))?;
    cmd.stdin(Stdio::from(theirs)).stdout(Stdio::from(theirs_out)).stderr(Stdio::piped());
    let mut child = cmd.spawn().map_err(|e| format!("starting {:?}: {e}", cmd.get_program()))?;
    let stderr = child.stderr.take().expect("piped stderr");
    set_nonblocking(stderr.as_raw_fd());
    set_nonblocking(ours.as_raw_fd());
    Ok(Helper { child, mode, conn: ours, stderr, stderr_tail: Vec::new() })
}

fn set_nonblocking(fd: RawFd) {
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
    }
}

/// Whether `fd` is readable (or at end of input) within `ms` milliseconds.
fn poll_in(fd: RawFd, ms: i32) -> bool {
    let mut p = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
    unsafe { libc::poll(&mut p, 1, ms) > 0 }
}

impl Helper {
    /// Wait for the helper to be ready, send the request and read the reply.
    fn run(&mut self, request: &[u8], deadline: Instant) -> std::result::Result<Vec<u8>, Failure> {
        self.drain_stderr();
        self.stderr_tail.clear();
        let mut ready = [0u8; 1];
        match self.read_exact(&mut ready, deadline) {
            Ok(()) if ready[0] == READY => {}
            Ok(()) => return Err(Failure::Startup(format!("unexpected byte {:#04x} instead of ready", ready[0]))),
            Err(Failure::Crash(msg)) => return Err(Failure::Startup(msg)),
            Err(e) => return Err(e),
        }
        match self.write_all(request, deadline) {
            Ok(()) => {}
            Err(Failure::Crash(msg)) => return Err(Failure::Startup(msg)),
            Err(e) => return Err(e),
        }
        let mut head = [0u8; 5];
        self.read_exact(&mut head, deadline)?;
        let len = u32::from_le_bytes(head[1..].try_into().unwrap()) as usize;
        let mut payload = vec![0u8; len];
        self.read_exact(&mut payload, deadline)?;
        match head[0] {
            REPLY_OK => Ok(payload),
            REPLY_ERR => Err(Failure::Emit(String::from_utf8_lossy(&payload).into_owned())),
            REPLY_CRASH => {
                // what the child wrote to stderr was written before the reply
                self.drain_stderr();
                Err(Failure::ChildCrash(String::from_utf8_lossy(&payload).into_owned()))
            }
            other => Err(Failure::Crash(format!("unexpected reply status {other}"))),
        }
    }

    /// Wait until the connection or stderr has something, keeping stderr's tail.
    fn wait(&mut self, events: i16, deadline: Instant) -> std::result::Result<(), Failure> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(Failure::Timeout);
            }
            let mut fds = [
                libc::pollfd { fd: self.conn.as_raw_fd(), events, revents: 0 },
                libc::pollfd { fd: self.stderr.as_raw_fd(), events: libc::POLLIN, revents: 0 },
            ];
            let ms = left.as_millis().clamp(1, i32::MAX as u128) as i32;
            let n = unsafe { libc::poll(fds.as_mut_ptr(), 2, ms) };
            if n < 0 {
                let e = std::io::Error::last_os_error();
                if e.kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(Failure::Crash(format!("poll: {e}")));
            }
            if fds[1].revents != 0 {
                self.drain_stderr();
            }
            if fds[0].revents != 0 {
                return Ok(());
            }
        }
    }

    fn read_exact(&mut self, buf: &mut [u8], deadline: Instant) -> std::result::Result<(), Failure> {
        let mut got = 0;
        while got < buf.len() {
            self.wait(libc::POLLIN, deadline)?;
            match self.conn.read(&mut buf[got..]) {
                Ok(0) => return Err(Failure::Crash("the helper ended".into())),
                Ok(n) => got += n,
                Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::Interrupted) => {}
                Err(e) => return Err(Failure::Crash(format!("reading from the helper: {e}"))),
            }
        }
        Ok(())
    }

    fn write_all(&mut self, mut buf: &[u8], deadline: Instant) -> std::result::Result<(), Failure> {
        while !buf.is_empty() {
            self.wait(libc::POLLOUT, deadline)?;
            // a socket write never raises SIGPIPE with MSG_NOSIGNAL, even where SIGPIPE is not ignored
            let n = unsafe { libc::send(self.conn.as_raw_fd(), buf.as_ptr().cast(), buf.len(), libc::MSG_NOSIGNAL) };
            if n < 0 {
                let e = std::io::Error::last_os_error();
                if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::Interrupted) {
                    continue;
                }
                return Err(Failure::Crash(format!("writing to the helper: {e}")));
            }
            buf = &buf[n as usize..];
        }
        Ok(())
    }

    fn drain_stderr(&mut self) {
        let mut chunk = [0u8; 4096];
        while let Ok(n @ 1..) = self.stderr.read(&mut chunk) {
            self.stderr_tail.extend_from_slice(&chunk[..n]);
        }
        if self.stderr_tail.len() > STDERR_TAIL {
            self.stderr_tail.drain(..self.stderr_tail.len() - STDERR_TAIL);
        }
    }

    /// Reap a failed helper; describe how it ended and what it wrote to stderr.
    fn finish(mut self, what: &str) -> String {
        let _ = self.conn.shutdown(std::net::Shutdown::Both);
        // it may still run (a broken reply); a helper that has ended keeps its exit status
        let _ = self.child.kill();
        let status = self.child.wait();
        // the helper has ended: everything it wrote is in the pipe now
        let mut rest = Vec::new();
        let _ = self.stderr.read_to_end(&mut rest);
        self.stderr_tail.extend_from_slice(&rest);
        let status = match status {
            Ok(s) => describe(s),
            Err(e) => format!("exit status unknown: {e}"),
        };
        self.describe_with_stderr(&format!("{what}, {status}"))
    }

    /// `what`, followed by what the helper (or its child) wrote to stderr during the request.
    fn describe_with_stderr(&mut self, what: &str) -> String {
        let err = String::from_utf8_lossy(&self.stderr_tail);
        let err = err.trim();
        if err.is_empty() {
            what.to_string()
        } else {
            format!("{what}: {err}")
        }
    }
}

fn describe(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(c), _) => format!("exit status {c}"),
        (None, Some(s)) => signal_name(s),
        _ => status.to_string(),
    }
}

fn signal_name(s: i32) -> String {
    let name = unsafe { std::ffi::CStr::from_ptr(libc::strsignal(s)) }.to_string_lossy().into_owned();
    format!("signal {s} ({name})")
}
