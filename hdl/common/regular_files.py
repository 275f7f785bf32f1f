"""Reading only regular files, and only so much of them.

A report, an index line or a digest that is a FIFO blocks ``open()`` until someone writes to it
(forever, in a shared working folder someone else made); a device or ``/dev/zero`` never ends;
a huge file fills the memory. So these are opened without blocking (``O_NONBLOCK`` makes the open
of a FIFO return at once), checked on the open descriptor (``fstat``: no race with a rename) to
be a regular file, and read up to a limit; anything else is an ``OSError`` that names the path
and what it is, for the caller's one line."""

import errno
import os
import stat


class RefusedFile(OSError):
    """The path is not a regular file, is larger than its reader allows, or is not text."""


def kind_of(mode: int) -> str:
    """``a FIFO``, ``a character device``... for a file's mode."""
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISDIR, "a directory"), (stat.S_ISLNK, "a symbolic link"),
                       (stat.S_ISREG, "a regular file")):
        if test(mode):
            return name
    return "not a regular file"


def open_regular(path: str, follow: bool = True) -> int:
    """A read-only descriptor of ``path``, which must be a regular file (``follow`` off: and
    not a symbolic link). The caller closes it."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except OSError as e:
        if e.errno == errno.ELOOP and not follow:
            raise RefusedFile(errno.ELOOP, "it is a symbolic link", path) from None
        raise
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise RefusedFile(errno.EINVAL, f"it is {kind_of(mode)}, not a regular file", path)
    return fd


def read_regular(path: str, limit: int, follow: bool = True) -> bytes:
    """The bytes of the regular file ``path``, refused if it holds more than ``limit``."""
    return read_open(open_regular(path, follow), limit, path)


def read_open(fd: int, limit: int, path: str) -> bytes:
    """The bytes of the open regular file ``fd`` (closed here), refused past ``limit``."""
    with os.fdopen(fd, "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise RefusedFile(errno.EFBIG, f"it is larger than {limit:,} bytes", path)
    return data
