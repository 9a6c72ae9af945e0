//! The helper side: the load-time hook that turns a process into a helper, and its request loop.

use std::io::{Read, Write};
use std::os::fd::FromRawFd;

use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::Module;
use inkwell::targets::FileType;

use super::{signal_name, Mode, READY, REPLY_CRASH, REPLY_ERR, REPLY_KILLED, REPLY_OK, REQUEST_MAGIC};
use crate::codegen::Flavor;

/// Runs when the library is loaded (from `.init_array`, before `main` for an executable, during
/// `dlopen` for a shared object). In an executable it turns the process into a helper when asked
/// ([`serve_if_asked`]). In a shared object it does nothing: there the helper command calls
/// [`numba_ext_spirv_helper`] once loading has finished, because with LLVM linked statically into the
/// library LLVM's own load-time constructors (its command-line option and pass registries) come
/// after this entry in `.init_array`, and a helper serving from here would run LLVM before they did.
pub(super) extern "C" fn helper_hook() {
    if super::connection::this_shared_object().is_none() {
        serve_if_asked()
    }
}

/// The helper's entry point in the shared object (the Python extension module), called by the
/// helper command after loading the library: `ctypes.CDLL(<library>).numba_ext_spirv_helper()`.
/// Returns at once unless this process was started as a helper.
#[unsafe(no_mangle)]
pub extern "C" fn numba_ext_spirv_helper() {
    serve_if_asked()
}

/// Serve (never returning) when [`HELPER_ENV`] names a mode and standard input is a socket (the
/// connection a requesting process sets up); otherwise return.
fn serve_if_asked() {
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
    crate::codegen::emit::init_targets();
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
    test_hold();
    match std::panic::catch_unwind(|| emit_module(cpu, bitcode)) {
        Ok(Ok(bytes)) => frame(REPLY_OK, &bytes),
        Ok(Err(msg)) => frame(REPLY_ERR, msg.as_bytes()),
        Err(_) => frame(REPLY_ERR, b"the SPIR-V emission helper panicked"),
    }
}

/// A hook for tests that need a request in flight (to kill the process emitting it): with
/// `NUMBA_EXT_SPIRV_HELPER_TEST_HOLD` naming a directory, the emitting process creates an empty file
/// named by its process id there and, before emitting, waits until that file has been removed (at
/// most a minute).
fn test_hold() {
    let Some(dir) = std::env::var_os("NUMBA_EXT_SPIRV_HELPER_TEST_HOLD") else { return };
    let path = std::path::Path::new(&dir).join(std::process::id().to_string());
    if std::fs::File::create(&path).is_err() {
        return;
    }
    let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while path.exists() && std::time::Instant::now() < until {
        std::thread::sleep(std::time::Duration::from_millis(2));
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
    // no failure of the back end raises SIGKILL: the OOM killer or a user sent it
    let killed = libc::WIFSIGNALED(status) && libc::WTERMSIG(status) == libc::SIGKILL;
    let what = format!("the emitting process ended without an answer, {what}");
    frame(if killed { REPLY_KILLED } else { REPLY_CRASH }, what.as_bytes())
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
    let tm = crate::codegen::emit::machine(Flavor::Spirv, cpu).map_err(|e| e.to_string())?;
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
