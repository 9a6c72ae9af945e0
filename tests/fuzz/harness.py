"""The parent side: one long-lived child process (``python -m tests.fuzz.worker``) runs many cases,
one JSON line each way. A child that dies (a signal, an abort) is a ``crash`` of the case it was
running, one that does not answer within the case's time limit a ``hang`` (the child is killed);
either way the next case starts a fresh child, so one bad case costs one process start, not the
run."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .classify import CRASH, HANG

ROOT = Path(__file__).resolve().parents[2]
#: the time a child may take to import numba_ext and say it is ready (a loaded machine is slow)
START_TIMEOUT = 180.0


class Worker:
    """A child process running fuzz cases; ``run`` restarts it after a crash or a hang."""

    def __init__(self, env: dict[str, str] | None = None) -> None:
        self.env = dict(os.environ if env is None else env)
        self.env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), self.env.get("PYTHONPATH")) if p)
        self.proc: subprocess.Popen[bytes] | None = None
        self.buf = b""
        self.starts = 0

    def _start(self) -> None:
        self.stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.fuzz.worker"],
            cwd=ROOT,
            env=self.env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            start_new_session=True,  # its own process group: a hang is killed with everything it started
        )
        self.buf = b""
        self.starts += 1
        line = self._read_line(START_TIMEOUT)
        if line is None or json.loads(line).get("ready") is not True:
            tail = self._stderr_tail()
            self.close()
            raise RuntimeError(f"the fuzz worker did not start: {line!r}\n{tail}")

    def _read_line(self, timeout: float) -> bytes | None:
        """The next line from the child, None on end of file; TimeoutError after `timeout` seconds."""
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return None
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line

    def _stderr_tail(self, n: int = 1500) -> str:
        self.stderr.seek(0, os.SEEK_END)
        size = self.stderr.tell()
        self.stderr.seek(max(0, size - n))
        return self.stderr.read().decode("utf-8", "replace")

    def run(self, family: str, case: Any, timeout: float) -> dict[str, Any]:
        """The child's verdict on one case: {"outcome": ..., "detail": ...}."""
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        assert self.proc is not None and self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps({"family": family, "case": case}).encode() + b"\n")
            self.proc.stdin.flush()
            line = self._read_line(timeout)
        except TimeoutError:
            self.close()
            return {"outcome": HANG, "detail": f"no answer within {timeout:.0f} s"}
        except BrokenPipeError:
            line = None
        if line is None:
            rc = self.proc.wait()
            how = f"signal {signal.Signals(-rc).name}" if rc < 0 else f"exit status {rc}"
            detail = f"the child died ({how}); its stderr ends with:\n{self._stderr_tail()}"
            self.close()
            return {"outcome": CRASH, "detail": detail}
        result: dict[str, Any] = json.loads(line)
        return result

    def close(self) -> None:
        if self.proc is not None:
            if self.proc.poll() is None:
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            self.proc.wait()
            for f in (self.proc.stdin, self.proc.stdout):
                if f is not None:
                    f.close()
            self.stderr.close()
            self.proc = None
