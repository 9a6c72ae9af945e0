//! The requesting side of one helper: starting it, and a request and its reply over the connection.

use std::io::Read;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::net::UnixStream;
use std::process::{Child, ChildStderr, Command, Stdio};
use std::time::{Duration, Instant};

use super::{
    signal_name, Failure, Mode, HELPER_ENV, READY, REPLY_CRASH, REPLY_ERR, REPLY_KILLED, REPLY_OK, STDERR_TAIL,
};

pub(super) struct Helper {
    pub(super) child: Child,
    pub(super) mode: Mode,
    /// Our end of the connection (the helper's stdin and stdout).
    pub(super) conn: UnixStream,
    stderr: ChildStderr,
    stderr_tail: Vec<u8>,
}

/// How a failed helper ended ([`Helper::finish`]).
pub(super) struct Ended {
    /// How it ended, and what it wrote to stderr.
    pub(super) what: String,
    /// It ended by `SIGKILL` that `finish` did not send: the OOM killer or a user killed it (no
    /// failure of the back end raises that signal).
    pub(super) killed: bool,
}

/// How long [`Helper::finish`] waits for a helper to end by itself before stopping it: one that has
/// closed the connection is already ending.
const END_GRACE: Duration = Duration::from_secs(1);

/// The command that starts a helper (see the module docs).
fn helper_command(mode: Mode) -> std::result::Result<Command, String> {
    let exe = std::env::current_exe().map_err(|e| format!("the path of this program: {e}"))?;
    let mut cmd = match this_shared_object() {
        None => Command::new(&exe),
        Some(lib) => {
            let python = std::env::var_os("NUMBA_EXT_PYTHON").map(std::path::PathBuf::from).unwrap_or(exe);
            let mut cmd = Command::new(python);
            cmd.args(["-I", "-S", "-c", "import ctypes, sys; ctypes.CDLL(sys.argv[1]).numba_ext_spirv_helper()"])
                .arg(lib);
            cmd
        }
    };
    cmd.env(HELPER_ENV, mode.name());
    Ok(cmd)
}

/// The shared object this code was loaded from, or `None` when it is part of the executable (whose
/// program headers are the ones the kernel passed to the process, `AT_PHDR`).
pub(super) fn this_shared_object() -> Option<std::path::PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    let addr = super::serve::helper_hook as extern "C" fn() as *const libc::c_void;
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

pub(super) fn spawn(mode: Mode) -> std::result::Result<Helper, String> {
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
pub(super) fn poll_in(fd: RawFd, ms: i32) -> bool {
    let mut p = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
    unsafe { libc::poll(&mut p, 1, ms) > 0 }
}

impl Helper {
    /// Wait for the helper to be ready, send the request and read the reply.
    pub(super) fn run(&mut self, request: &[u8], deadline: Instant) -> std::result::Result<Vec<u8>, Failure> {
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
            REPLY_CRASH | REPLY_KILLED => {
                // what the child wrote to stderr was written before the reply
                self.drain_stderr();
                let what = String::from_utf8_lossy(&payload).into_owned();
                Err(if head[0] == REPLY_KILLED { Failure::ChildKilled(what) } else { Failure::ChildCrash(what) })
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

    /// Reap a failed helper, stopping it if it does not end by itself within [`END_GRACE`]; how it
    /// ended and what it wrote to stderr.
    pub(super) fn finish(mut self, what: &str) -> Ended {
        let _ = self.conn.shutdown(std::net::Shutdown::Both);
        // a helper that closed the connection may not be reapable yet; one that still runs (a broken
        // reply, a retired helper) ends at the end of its input, or is stopped here
        let grace = Instant::now() + END_GRACE;
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(s)) => break Ok((s, false)),
                Ok(None) if Instant::now() < grace => std::thread::sleep(Duration::from_millis(1)),
                Ok(None) => {
                    let _ = self.child.kill();
                    break self.child.wait().map(|s| (s, true));
                }
                Err(e) => break Err(e),
            }
        };
        // the helper has ended: everything it wrote is in the pipe now
        let mut rest = Vec::new();
        let _ = self.stderr.read_to_end(&mut rest);
        self.stderr_tail.extend_from_slice(&rest);
        // an unknown status (the caller auto-reaps its children) is not taken for a kill
        let (status, killed) = match status {
            Ok((s, stopped_here)) => {
                use std::os::unix::process::ExitStatusExt;
                (describe(s), s.signal() == Some(libc::SIGKILL) && !stopped_here)
            }
            Err(e) => (format!("exit status unknown: {e}"), false),
        };
        Ended { what: self.describe_with_stderr(&format!("{what}, {status}")), killed }
    }

    /// `what`, followed by what the helper (or its child) wrote to stderr during the request.
    pub(super) fn describe_with_stderr(&mut self, what: &str) -> String {
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
