"""SPIR-V emission runs in helper processes (rust/src/codegen/emit/spirv_helper/): compiling never
forks the user's process, a helper that dies is replaced, and a process forked from a numba_ext user
starts its own helper. Each test runs a fresh interpreter, whose stderr must stay empty (no warnings
about forking a multi-threaded process)."""

import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.needs_spirv

# Different kernels, compiled and checked one after another (OpenCL is first used in the first call).
COMPILE_THREE = """
import numpy as np
import numba_ext

def compile_and_check(k):
    x = numba_ext.asarray(np.arange(1000.0))
    c = float(k)  # a constant of the kernel: each k compiles a new one

    def f(a, b):
        return a * b + c

    got = numba_ext.asnumpy(numba_ext.jit(f)(x, x))
    assert np.allclose(got, np.arange(1000.0) ** 2 + k), got[:4]
"""


def run(*parts, env=None):
    """Run the code in a fresh interpreter with the on-disk cache off, so that every kernel's device
    code is generated (not loaded from an earlier test's process)."""
    code = "\n".join(textwrap.dedent(p) for p in parts)
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env={**os.environ, "NUMBA_EXT_CACHE": "0", **(env or {})},
    )
    assert out.returncode == 0, f"exit status {out.returncode}\n{out.stdout}\n{out.stderr}"
    assert out.stderr.strip() == "", out.stderr
    return out.stdout


def test_compiling_does_not_fork_the_process():
    # fork handlers of this process count its forks (posix_spawn, which starts the helper, runs none)
    out = run(
        """
        import ctypes

        libc = ctypes.CDLL(None)
        forks = [0]

        @ctypes.CFUNCTYPE(None)
        def prepare():
            forks[0] += 1

        assert libc.__register_atfork(prepare, None, None, None) == 0
        """,
        COMPILE_THREE,
        """
        for k in range(3):
            compile_and_check(k)
        print("forks", forks[0])
        """,
    )
    assert out.split() == ["forks", "0"], out


def test_a_killed_helper_is_replaced():
    out = run(
        COMPILE_THREE,
        """
        import os
        import signal
        import time

        def helpers():
            me = os.getpid()
            kids = set()
            for t in os.listdir(f"/proc/{me}/task"):
                kids.update(open(f"/proc/{me}/task/{t}/children").read().split())
            return sorted(int(p) for p in kids if b"ctypes.CDLL" in open(f"/proc/{p}/cmdline", "rb").read())

        compile_and_check(0)
        before = helpers()
        assert before, "a helper process is kept"
        for p in before:
            os.kill(p, signal.SIGKILL)
        for p in before:  # dead (a zombie) before the next request: kill() returns before it is
            for _ in range(1000):
                try:
                    with open(f"/proc/{p}/stat") as f:
                        if f.read().rsplit(")", 1)[1].split()[0] in "ZX":
                            break
                except FileNotFoundError:  # reaped already
                    break
                time.sleep(0.01)
        compile_and_check(1)
        after = helpers()
        assert after and not set(after) & set(before), (before, after)
        print("replaced")
        """,
    )
    assert out.split() == ["replaced"], out


def test_a_forked_child_uses_its_own_helper():
    # the parent started a helper when numba_ext was imported; the child must not talk to it
    out = run(
        COMPILE_THREE,
        """
        import os

        pid = os.fork()
        if pid == 0:
            try:
                compile_and_check(1)
            except BaseException:
                import traceback

                traceback.print_exc()
                os._exit(1)
            os._exit(0)
        _, status = os.waitpid(pid, 0)
        assert status == 0, status
        compile_and_check(2)
        print("both")
        """,
    )
    assert out.split() == ["both"], out


def test_an_emission_that_does_not_finish_is_a_codegen_error():
    # a helper that does not answer in time is stopped; the caller gets an exception, then goes on
    out = run(
        COMPILE_THREE,
        """
        import os

        try:
            compile_and_check(5)
        except numba_ext.errors.CodegenError as e:
            assert "did not finish" in str(e) and "NUMBA_EXT_EMIT_TIMEOUT" in str(e), e
            print("error")
        os.environ["NUMBA_EXT_EMIT_TIMEOUT"] = "120"
        compile_and_check(6)
        print("recovered")
        """,
        env={"NUMBA_EXT_EMIT_TIMEOUT": "0.001"},
    )
    assert out.split() == ["error", "recovered"], out


@pytest.mark.parametrize("mode", ["exec", "forkserver"])
def test_a_helper_killed_during_a_request_is_replaced(tmp_path, mode):
    # The helpers' test hook holds every request in the process emitting it until that process's
    # file in the hold directory is removed, so each SIGKILL below lands while a request is in
    # flight (in `exec` mode it ends the helper, in `forkserver` mode the helper's emitting child).
    out = run(
        COMPILE_THREE,
        """
        import os
        import signal
        import threading
        import time

        hold = os.environ["NUMBA_EXT_SPIRV_HELPER_TEST_HOLD"]
        to_kill = [0]  # how many of the next held requests to kill (the others are let go)
        held = []
        killed = []

        def kill_or_release():
            while True:
                for name in os.listdir(hold):
                    held.append(int(name))
                    if to_kill[0] > 0:
                        os.kill(int(name), signal.SIGKILL)
                        killed.append(int(name))
                        to_kill[0] -= 1
                    os.remove(os.path.join(hold, name))
                time.sleep(0.002)

        threading.Thread(target=kill_or_release, daemon=True).start()
        compile_and_check(0)
        assert held and not killed, (held, killed)

        to_kill[0] = 2  # twice in a row: the third process emits it
        compile_and_check(1)
        assert len(killed) == 2 and to_kill[0] == 0, (killed, to_kill)

        to_kill[0] = 1000  # every time: a bounded number of tries, then a clean error
        try:
            compile_and_check(2)
        except numba_ext.errors.CodegenError as e:
            assert "signal 9" in str(e) and "NUMBA_EXT_DUMP_DIR" in str(e), e
            print("error", len(killed) - 2)
        to_kill[0] = 0
        compile_and_check(3)
        print("recovered")
        """,
        env={"NUMBA_EXT_SPIRV_HELPER_TEST_HOLD": str(tmp_path), "NUMBA_EXT_SPIRV_EMIT": mode},
    )
    assert out.split() == ["error", "3", "recovered"], out
