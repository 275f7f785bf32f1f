"""Output files written whole or not at all: each is written under a temporary name in its own
directory and renamed over the real name only when every output of the command is complete, so
an interrupted or failed run leaves no half-written file and no mixture of old and new ones.
The temporary names are made (and so every output's directory proven writable) before the
command's work starts: an hour's work is not lost to a typo in a path at the end.

Only regular files are written. A symbolic link is followed: the file it names is written (made
if need be) and the link stays. A device, a FIFO or a socket is refused in one line, never
replaced and never written through: ``posdata sim --vcd /dev/null`` run as root would otherwise
replace the device itself. Where a command's output makes sense in a pipe (``export``'s text, a
walk's SVG), ``-`` writes it to standard output instead, once it is complete.

The temporary names, ``.NAME.PID.XXXX.posdata-tmp`` (NAME in ASCII and cut short, so that the
temporary name is valid wherever the real one is), are removed when the command fails; a killed
run's are removed by the next run that writes NAME (their process is gone)."""

import glob
import os
import shutil
import stat
import sys
import tempfile

from posdata.hdl.common.regular_files import kind_of

from .common import CliError

SUFFIX = ".posdata-tmp"
PROBE = "posdata-probe"  #: the file check_directory makes and removes
STDOUT = "-"  #: the output name that means standard output, where a command allows it


class Outputs:
    """The files one command writes: ``add`` each (all checked at once, before any work),
    ``temp(path)`` the name to write it under, ``commit()`` when all are written. Used as a
    context manager, the temporaries of an unfinished command are removed."""

    def __init__(self):
        self._temps: dict[str, str] = {}  # path as given -> temporary path
        self._targets: dict[str, tuple[str, str]] = {}  # path -> (file written, option)

    def add(self, path: str, option: str, stdout: bool = False) -> str:
        """Reserve ``path`` (named by ``option`` in errors; with ``stdout``, ``-`` means
        standard output); one line when it cannot be written. Returns its temporary name."""
        if path == STDOUT and stdout:
            if STDOUT in self._temps:
                raise CliError(f"{option}: standard output is already another output of this "
                               "command")
            fd, self._temps[path] = tempfile.mkstemp(prefix="posdata-", suffix=SUFFIX)
            os.close(fd)
            self._targets[path] = (STDOUT, option)
            return self._temps[path]
        target = _regular_target(path, option, stdout)
        for written, _ in self._targets.values():
            if os.path.realpath(written) == os.path.realpath(target):
                raise CliError(f"{option}: {path} is already another output of this command")
        self._temps[path] = _reserve(target, option, shown=path)
        self._targets[path] = (target, option)
        return self._temps[path]

    def temp(self, path: str) -> str:
        return self._temps[path]

    def commit(self) -> None:
        """Move every output to its real name (all were written in full); standard output's
        is copied there."""
        for path, temp in list(self._temps.items()):
            target, option = self._targets[path]
            if target == STDOUT:
                _copy_to_stdout(temp)
                _remove(temp)
            else:
                _regular_target(path, option, False)  # not made a FIFO while the work ran
                try:
                    os.replace(temp, target)
                except OSError as e:
                    raise CliError(f"cannot write {path}: {e.strerror or e}") from None
            del self._temps[path]

    def discard(self) -> None:
        for temp in self._temps.values():
            _remove(temp)
        self._temps.clear()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.discard()  # after commit(): nothing left to remove


def write_whole(files: list[tuple[str, str, str]], stdout: bool = False) -> None:
    """Write each (path, option, text); none is written unless all can be (``stdout``: ``-``
    is standard output)."""
    with Outputs() as outputs:
        for path, option, _ in files:
            outputs.add(path, option, stdout)
        for path, option, text in files:
            try:
                with open(outputs.temp(path), "w") as f:
                    f.write(text)
            except OSError as e:
                raise CliError(f"cannot write {path} ({option}): {e.strerror or e}") from None
        outputs.commit()


def check_directory(path: str, option: str) -> None:
    """Make directory ``path`` (and its parents) if need be and prove it writable by creating
    and removing a file in it: one line naming it when it cannot be (a file in the way, a
    read-only file system, no permission). ``os.access`` is not enough: root passes it on a
    read-only directory."""
    there = os.path.abspath(path)  # the part of the path that exists: what is in the way
    while not os.path.lexists(there) and os.path.dirname(there) != there:
        there = os.path.dirname(there)
    if os.path.exists(there) and not os.path.isdir(there):
        kind = kind_of(os.stat(there).st_mode)
        it = "it" if there == os.path.abspath(path) else there
        raise CliError(f"cannot write in {path} ({option}): {it} is {kind}, not a directory")
    try:
        os.makedirs(path, exist_ok=True)
        _remove_stale(path, PROBE)
        fd, probe = tempfile.mkstemp(dir=path, prefix=f".{PROBE}.{os.getpid()}.", suffix=SUFFIX)
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise CliError(f"cannot write in {path} ({option}): {e.strerror or e}") from None


def _regular_target(path: str, option: str, stdout: bool) -> str:
    """The file that writing ``path`` writes: ``path``, or the file its link names; refused
    in one line when that is there and is not a regular file (nor a directory, which
    _reserve names)."""
    if not path:
        raise CliError(f"{option}: the file name is empty")
    target = os.path.realpath(path) if os.path.islink(path) else path
    try:
        mode = os.stat(target).st_mode
    except OSError:
        return target  # nothing there yet (or unreachable: _reserve says so)
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return target
    pipe = f" (use {STDOUT} for standard output)" if stdout else ""
    raise CliError(f"cannot write {path} ({option}): it is {kind_of(mode)}; posdata writes "
                   f"only regular files, and leaves it as it is{pipe}")


def _copy_to_stdout(temp: str) -> None:
    sys.stdout.flush()
    with open(temp, "rb") as f:
        shutil.copyfileobj(f, sys.stdout.buffer)
    sys.stdout.buffer.flush()


def _reserve(path: str, option: str, shown: str | None = None) -> str:
    """A temporary beside ``path`` (``shown``: the name the user gave, for errors)."""
    shown = shown or path
    directory = os.path.dirname(os.path.abspath(path))
    name = os.path.basename(path)
    if not name or os.path.isdir(path):
        raise CliError(f"cannot write {shown} ({option}): it is a directory")
    if not os.path.isdir(directory):
        why = "is not a directory" if os.path.exists(directory) else "does not exist"
        raise CliError(f"cannot write {shown} ({option}): directory {directory} {why}")
    if len(os.fsencode(name)) > _name_max(directory):  # the temporary's name is cut short
        raise CliError(f"cannot write {shown} ({option}): File name too long")
    _remove_stale(directory, name)
    try:
        fd, temp = tempfile.mkstemp(dir=directory, prefix=f".{_stem(name)}.{os.getpid()}.",
                                    suffix=SUFFIX)
        os.close(fd)
        os.chmod(temp, _mode(path))
    except OSError as e:
        raise CliError(f"cannot write {shown} ({option}): {e.strerror or e}") from None
    return temp


def _name_max(directory: str) -> int:
    try:
        return os.pathconf(directory, "PC_NAME_MAX")
    except (OSError, ValueError):
        return 255


def _mode(path: str) -> int:
    """An existing file's permissions; a new file's as open() would make them."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _stem(name: str) -> str:
    return "".join(c if c.isascii() and c.isprintable() else "_" for c in name[:64])


def _remove_stale(directory: str, name: str) -> None:
    """Temporaries of ``name`` left by a killed run (whose process no longer exists)."""
    stem = _stem(name)
    for temp in glob.glob(os.path.join(glob.escape(directory), f".{glob.escape(stem)}.*{SUFFIX}")):
        pid = os.path.basename(temp)[len(stem) + 2:].split(".")[0]
        if pid.isdigit() and not _alive(int(pid)):
            _remove(temp)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
