"""A board build runs in a directory of its own beside the final one and is moved into place
only when complete, its report last: the final directory holds one complete build (the
bitstream and the report that describes it) or none, whatever becomes of a build under way.
Every hardware time is quoted at a report's clock, so a report beside another build's files
would be quoted as current (sim.cli.clock reads only ``report.json`` in the final directory).

A build holds a lock on its building directory (flock on the directory itself) until it ends;
the kernel drops it when the process ends in any way, SIGKILL included. The next build sweeps
the building directories beside it whose lock is free: those of killed builds (tens of MB
each). Starting a build and sweeping hold the parent directory's lock, so that a sweep never
takes a new build's directory in the moment before its lock is taken.

A build replaces only regular files in the final directory: a FIFO, a device, a socket or a
link there (someone's, in a shared build folder) is named before the build starts, not
replaced (nor written through) at its end."""

import contextlib
import fcntl
import json
import os
import shutil
import stat
import tempfile

from ..common.regular_files import kind_of

REPORT = "report.json"
#: where a failed build's files stay for their logs (one, the latest)
FAILED_SUFFIX = ".failed"
#: a building directory is named ``.BOARD.building-XXXXXXXX`` beside ``BOARD``
BUILDING = ".building-"

#: building directory -> the descriptor that holds its lock, while this process builds there
_held: dict[str, int] = {}


def start(final: str) -> str:
    """A fresh directory for a build whose place is ``final``, on the same file system (a
    rename moves it into place), locked until install, keep_failed or abandon; the building
    directories killed builds left beside it are removed first (sweep)."""
    parent, name = os.path.split(os.path.abspath(final))
    os.makedirs(parent, exist_ok=True)
    with _locked(parent):
        sweep(parent)
        work = tempfile.mkdtemp(prefix=f".{name}{BUILDING}", dir=parent)
        with contextlib.suppress(OSError):  # no locks on this file system: never swept
            _held[work] = _lock(work, wait=False)
    return work


def sweep(parent: str) -> None:
    """Remove the building directories in ``parent`` whose lock no process holds (the
    process that built there is gone). One that cannot be locked (a file system without
    locks) is left, as is anything that is not a directory of that name."""
    try:
        names = [n for n in os.listdir(parent) if n.startswith(".") and BUILDING in n]
    except OSError:
        return
    for name in names:
        path = os.path.join(parent, name)
        try:
            fd = _lock(path, wait=False)
        except OSError:  # held by a live build, not a directory, or gone already
            continue
        try:
            shutil.rmtree(path, ignore_errors=True)
        finally:
            os.close(fd)


def _lock(directory: str, wait: bool) -> int:
    """A descriptor of ``directory`` (not followed if a link) holding its lock; OSError
    (BlockingIOError when another holds it and not ``wait``) if it cannot."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
    except BaseException:
        os.close(fd)
        raise
    return fd


@contextlib.contextmanager
def _locked(directory: str):
    """``directory``'s lock for the block, or none on a file system without locks (where
    the sweep removes nothing either: it cannot lock a building directory)."""
    try:
        fd = _lock(directory, wait=True)
    except OSError:
        fd = None
    try:
        yield
    finally:
        if fd is not None:
            os.close(fd)


def _release(work: str) -> None:
    fd = _held.pop(work, None)
    if fd is not None:
        os.close(fd)


def in_the_way(final: str) -> str | None:
    """A file in ``final`` that a build would replace and must not (not a regular file nor a
    directory: the seeds' builds live in directories there), or None."""
    try:
        names = sorted(os.listdir(final))
    except OSError:
        return None  # none yet (the caller checked that it can be made)
    for name in names:
        path = os.path.join(final, name)
        with contextlib.suppress(FileNotFoundError):
            mode = os.lstat(path).st_mode
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                return (f"{path} is {kind_of(mode)}: a build replaces the files in {final}, and "
                        f"only regular files; move it away, or choose another --build-dir")
    return None


def previous(final: str) -> str:
    """What an unfinished build left in place, for its message."""
    if os.path.isfile(os.path.join(final, REPORT)):
        return f"the previous build in {final} is untouched"
    return f"{final} holds no complete build"


def install(work: str, final: str, report: dict) -> None:
    """Move the build in ``work`` into ``final`` and write ``report`` there last."""
    os.makedirs(final, exist_ok=True)
    # the old report goes first: while the files are moving, no report vouches for them
    try:
        os.remove(os.path.join(final, REPORT))
    except FileNotFoundError:
        pass
    for name in sorted(os.listdir(work)):
        path = os.path.join(work, name)
        if os.path.isfile(path) and name != REPORT:
            os.replace(path, os.path.join(final, name))
    partial = os.path.join(final, f".{REPORT}.{os.getpid()}.tmp")
    with open(partial, "w") as f:
        json.dump(report, f, indent=2)
    os.replace(partial, os.path.join(final, REPORT))
    shutil.rmtree(work, ignore_errors=True)
    _release(work)


def keep_failed(work: str, final: str) -> str:
    """Keep a failed build's files (their logs say why) beside ``final``; returns where."""
    failed = os.path.abspath(final).rstrip(os.sep) + FAILED_SUFFIX
    shutil.rmtree(failed, ignore_errors=True)
    try:
        os.replace(work, failed)
    except OSError:
        return work  # still named as building: the next build sweeps it
    finally:
        _release(work)
    return os.path.relpath(failed) if not os.path.isabs(final) else failed


def abandon(work: str) -> None:
    shutil.rmtree(work, ignore_errors=True)
    _release(work)
