"""The on-disk cache of compiled simulation models, for any simulator that builds one (CXXRTL
today; the layout leaves room for others, each under a directory of its own kind).

Under ``$POSDATA_CACHE`` (default ``$XDG_CACHE_HOME/posdata`` or ``~/.cache/posdata``), a kind
of model keeps:

* ``<kind>/<key>/``: one directory per build, named after a hash of exactly what went into it
  (the generated source and the compiler command), holding the inputs and the built artifact;
* ``<kind>/<key>/<artifact>.sha256``: the artifact's digest, written when it was built. A
  shared library that is truncated or damaged (a full disk, an interrupted copy) crashes the
  process that maps it, with SIGBUS and no message; so an artifact is trusted only while its
  digest matches, and is rebuilt otherwise, a missing digest included;
* ``<kind>/<key>/<artifact>.sources``: the sources keys the index names this artifact under;
* ``<kind>/index/<sources key>``: the artifact built from a hash of the sources (gateware,
  tables, tool versions), so a known model is found without generating its source again. It
  holds a path relative to ``<kind>/``, so a cache copied elsewhere still works. It is followed
  only to an artifact inside the cache that lists the key: an index edited by hand, or copied
  from another cache, cannot hand a driver another model;
* ``<kind>/.tmp-*/``: scratch directories (the generated source's), each locked while in use.

Every file is written under a temporary name (``.tmp-*``) and renamed, and builds of one entry
take a lock: parallel workers and concurrent runs may ask for the same model at the same moment.
A run killed mid-build leaves its temporaries behind; the next run that opens the cache removes
those whose owner is gone (their lock is free, so no build is under way).

Threat model. The cache holds shared libraries that posdata loads and runs: whoever can write
into it can run code as the user who runs posdata (as root, if root does). So the cache holds
only what this user made, and every part of it is checked before it is read or loaded:

* everything is made private whatever the umask: directories 0700, files 0600;
* the kind's directory belongs to this user (or root) and is writable by no one else, neither
  its group nor every user: another user's cache (``POSDATA_CACHE`` on a shared ``/tmp``), or a
  group-writable one, is refused in one line, not loaded from. A group-writable cache would let
  every member of the group replace a library and its digest together, which no digest can catch;
* an entry's directory and its files (artifact, digest, sources list, lock) and the index's are
  checked the same way, each file opened without following a link and without blocking (a FIFO
  put in place of one never hangs a run) and checked on the open descriptor to be a regular file
  of this user's that no one else can write. An entry that fails is not read: posdata says so in
  one line, removes it and builds it again; an index line that fails is ignored;
* the digests then guard against damage (a full disk, an interrupted copy, a half-written file),
  not tampering; index lines are relative paths inside the cache that the artifact itself vouches
  for; a shared library is as long as its ELF headers say (a truncated library whose digest was
  recomputed would otherwise be mapped, then SIGBUS); sim.models.library checks the entry points
  a driver calls before it calls them.

The directories above the kind's (``~/.cache``) are taken to be the user's own, as the home
directory is.
"""

import errno
import fcntl
import hashlib
import os
import shutil
import stat
import sys
import tempfile
import time
from contextlib import contextmanager
from importlib import resources

from posdata.hdl.common.regular_files import RefusedFile, kind_of, open_regular, read_open

from .elf import shortfall
from .toolchain import ToolchainError

DIGEST_SUFFIX = ".sha256"
SOURCES_SUFFIX = ".sources"
TEMP_PREFIX = ".tmp-"
#: a temporary outside any entry (an index line being written, a scratch directory being set
#: up) this old has no owner left: writing one takes milliseconds
STALE_SECONDS = 600
PRIVATE_DIR, PRIVATE_FILE = 0o700, 0o600
#: the most a digest, a sources list or an index line holds (each is a line or a few)
SMALL_FILE = 1 << 16
LOCK = ".lock"


class CacheError(ToolchainError):
    """The model cache cannot be used (unwritable, or not this user's); one line that names the
    directory and how to choose another."""


def cache_root() -> str:
    root = os.environ.get("POSDATA_CACHE")
    if not root:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        root = os.path.join(base, "posdata")
    return root


def hash_sources(packages: dict[str, tuple[str, ...] | None], extra: list[str]) -> str:
    """Hash of files of the posdata packages (``{"hdl": None}``: all its .py files, its
    sub-packages' too; ``{"sim.models": ("a.cc",)}``: those named) and of ``extra`` strings (tool
    versions, flags)."""
    h = hashlib.sha256()
    for package, names in packages.items():
        folder = resources.files(f"posdata.{package}")
        files = python_files(folder) if names is None else names
        for name in files:
            h.update(f"{package}/{name}\0".encode())
            h.update(folder.joinpath(*name.split("/")).read_bytes())
    for text in extra:
        h.update(f"{text}\0".encode())
    return h.hexdigest()[:16]


def python_files(folder, prefix: str = "") -> list[str]:
    """The .py files under ``folder`` (a package's Traversable), as sorted relative paths."""
    out = []
    for p in folder.iterdir():
        if p.is_dir() and p.name != "__pycache__":
            out += python_files(p, f"{prefix}{p.name}/")
        elif p.name.endswith(".py"):
            out.append(prefix + p.name)
    return sorted(out)


def foreign(st: os.stat_result) -> str | None:
    """Why a file or directory with status ``st`` is not this user's alone, or None."""
    if st.st_uid not in (os.geteuid(), 0):
        return f"belongs to another user (uid {st.st_uid})"
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        who = "every user" if st.st_mode & stat.S_IWOTH else "its group"
        return f"is writable by {who} (mode {stat.S_IMODE(st.st_mode):04o})"
    return None


def distrust(path: str, directory: bool = False) -> str | None:
    """Why ``path`` (not followed if a link) cannot be trusted as a private regular file (a
    private directory if ``directory``), or None: also None when there is nothing there."""
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    test = stat.S_ISDIR if directory else stat.S_ISREG
    if not test(st.st_mode):
        return f"is {kind_of(st.st_mode)}"
    return foreign(st)


def open_private(path: str) -> int:
    """A read-only descriptor of ``path``: a regular file, not a link, private to this user
    (checked on the descriptor); else an OSError saying why."""
    fd = open_regular(path, follow=False)
    why = foreign(os.fstat(fd))
    if why:
        os.close(fd)
        raise RefusedFile(errno.EPERM, f"it {why}", path)
    return fd


def read_private(path: str) -> str:
    """The text of a small private file (a digest, a sources list, an index line)."""
    data = read_open(open_private(path), SMALL_FILE, path)
    try:
        return data.decode()
    except UnicodeDecodeError:
        raise RefusedFile(errno.EILSEQ, "it is not text", path) from None


def file_digest(path: str) -> str:
    with os.fdopen(open_private(path), "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def write_atomic(path: str, text: str) -> None:
    """Readers see the old file or the new one, never a part of either (private: 0600)."""
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=TEMP_PREFIX)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def intact(path: str) -> bool:
    """Is ``path`` exactly the file that was built (its recorded digest matches), and whole
    (a shared library as long as its headers say)?"""
    try:
        recorded = read_private(path + DIGEST_SUFFIX).split()
        return bool(recorded) and recorded[0] == file_digest(path) and shortfall(path) is None
    except OSError:  # either file missing, unreadable or not private
        return False


def index_target(line: str) -> str | None:
    """The ``<entry>/<artifact>`` an index line names, or None unless it is exactly that: two
    plain names (no ``..``, no absolute path, no hidden or temporary file)."""
    parts = line.split("/")
    if len(parts) != 2 or not all(parts) or any(p in (".", "..") or p.startswith(".")
                                                 for p in parts):
        return None
    return line


def vouches_for(path: str, sources_key: str) -> bool:
    try:
        return sources_key in read_private(path + SOURCES_SUFFIX).split()
    except OSError:
        return False


@contextmanager
def _locked(directory: str, wait: bool = True):
    """The entry's lock (yields False, without waiting, if ``wait`` is off and it is taken)."""
    path = os.path.join(directory, LOCK)
    # no link followed, no wait on a FIFO (ENXIO), a regular file checked
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                 PRIVATE_FILE)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise RefusedFile(errno.EINVAL, f"it is {kind_of(mode)}, not a regular file", path)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _remove(path: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
    else:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass


class ModelCache:
    """The cache of one kind of model (``"cxxrtl"``), under ``root`` (default ``cache_root()``,
    read when the cache is made, so a changed ``$POSDATA_CACHE`` takes effect). Opening it
    removes what killed runs left behind."""

    def __init__(self, kind: str, root: str | None = None):
        self.dir = os.path.abspath(os.path.join(root or cache_root(), kind))
        self.sweep()

    def entry_problem(self, directory: str, name: str) -> str | None:
        """Why entry ``directory`` (its artifact ``name``) is not this user's alone, or None."""
        why = distrust(directory, directory=True)
        if why:
            return f"{directory} {why}"
        for file in (name, name + DIGEST_SUFFIX, name + SOURCES_SUFFIX, LOCK):
            path = os.path.join(directory, file)
            why = distrust(path)
            if why:
                return f"{path} {why}"
        return None

    def renew(self, path: str, why: str) -> None:
        """Remove the untrusted entry (or index) ``path``, saying so: it is built again."""
        print(f"posdata: in the model cache, {why}: posdata loads code from there, so it "
              f"removes {path} and builds it again", file=sys.stderr, flush=True)
        try:
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)
            else:
                os.unlink(path)
        except FileNotFoundError:
            pass
        except OSError as e:
            raise CacheError(f"cannot remove {path} from the model cache ({why}): "
                             f"{e.strerror or e}; remove it by hand, or set POSDATA_CACHE to a "
                             f"directory of your own") from None

    def make_private(self, directory: str) -> None:
        """``directory`` (an entry, the index) and the cache above it, made 0700 whatever the
        umask (mkdir's mode is only ever narrowed by it)."""
        root = os.path.dirname(self.dir)
        if not os.path.isdir(root):
            os.makedirs(root, mode=PRIVATE_DIR, exist_ok=True)
        for path in (self.dir, directory):
            try:
                os.mkdir(path, PRIVATE_DIR)
            except FileExistsError:
                pass

    def artifact(self, key: str, name: str, build) -> str:
        """Path of the intact artifact ``name`` of entry ``key``, calling
        ``build(directory, output)`` first when there is none: it writes its inputs into the
        entry's ``directory`` and the artifact to the temporary path ``output`` (and any
        temporaries of its own under ``.tmp-`` names in ``directory``, swept if it is killed)."""
        self.check_owner()
        directory = os.path.join(self.dir, key)
        path = os.path.join(directory, name)
        why = self.entry_problem(directory, name)
        if why:
            self.renew(directory, why)
        elif intact(path):
            return path
        try:
            self.make_private(directory)
            with _locked(directory):
                if intact(path):  # another process built it while this one waited
                    return path
                fd, tmp = tempfile.mkstemp(dir=directory, prefix=TEMP_PREFIX, suffix=f"-{name}")
                os.close(fd)
                try:
                    build(directory, tmp)
                    os.chmod(tmp, PRIVATE_FILE, follow_symlinks=False)  # the tool's umask'd mode
                    digest = file_digest(tmp)
                    os.replace(tmp, path)
                except BaseException:
                    if os.path.exists(tmp):
                        os.unlink(tmp)
                    raise
                # in the sha256sum format, so `sha256sum -c` in the entry checks it by hand too
                write_atomic(path + DIGEST_SUFFIX, f"{digest}  {name}\n")
        except OSError as e:
            if not self.concerns(e):  # the build's own (a tool that cannot be run)
                raise
            raise self.unwritable(e) from None
        return path

    def lookup(self, sources_key: str) -> str | None:
        """The intact artifact last built from these sources, if any (None also for an index
        line that leads anywhere else: the model is then built again, and the line rewritten)."""
        index = os.path.join(self.dir, "index")
        if distrust(index, directory=True):
            return None  # remember() replaces it
        try:
            target = index_target(read_private(os.path.join(index, sources_key)).strip())
        except OSError:
            return None
        if target is None:
            return None
        self.check_owner()
        path = os.path.join(self.dir, target)
        if self.entry_problem(os.path.dirname(path), os.path.basename(path)):
            return None  # artifact() says why, and builds it again
        return path if vouches_for(path, sources_key) and intact(path) else None

    def remember(self, sources_key: str, path: str) -> None:
        """Index ``path`` (an artifact of this cache) under ``sources_key``. Best effort: a cache
        that cannot take the line only costs the next run the source's generation."""
        index = os.path.join(self.dir, "index")
        try:
            with _locked(os.path.dirname(path)):
                try:
                    keys = read_private(path + SOURCES_SUFFIX).split()
                except OSError:  # none yet, or damaged (rewritten: it only saves time)
                    keys = []
                if sources_key not in keys:
                    write_atomic(path + SOURCES_SUFFIX, "".join(f"{k}\n" for k in
                                                                [*keys, sources_key]))
            why = distrust(index, directory=True)
            if why:
                self.renew(index, f"{index} {why}")
            self.make_private(index)
            write_atomic(os.path.join(index, sources_key),
                         os.path.relpath(path, self.dir) + "\n")
        except OSError:
            pass

    @contextmanager
    def scratch(self):
        """A working directory inside the cache for a tool's files (removed afterwards; by the
        next run that opens the cache if this one is killed)."""
        try:
            self.make_private(self.dir)
            work = tempfile.mkdtemp(dir=self.dir, prefix=TEMP_PREFIX)
        except OSError as e:
            raise self.unwritable(e) from None
        try:
            with _locked(work):
                yield work
        finally:
            shutil.rmtree(work, ignore_errors=True)

    def sweep(self) -> None:
        """Remove the temporaries of killed runs: in an entry whose lock is free (no build
        under way), every one; elsewhere, those older than ``STALE_SECONDS`` whose lock, if
        they have one, is free."""
        try:
            names = os.listdir(self.dir)
        except OSError:
            return
        for name in names:
            path = os.path.join(self.dir, name)
            try:
                if name.startswith(TEMP_PREFIX):
                    self._sweep_scratch(path)
                elif name == "index":
                    self._sweep_old(path)
                elif distrust(path, directory=True) is None and os.path.isdir(path):
                    self._sweep_entry(path)  # an untrusted entry is left to artifact()
            except OSError:  # a read-only cache, or another run sweeping too
                pass

    def _sweep_entry(self, directory: str) -> None:
        temps = [n for n in os.listdir(directory) if n.startswith(TEMP_PREFIX)]
        if temps:
            with _locked(directory, wait=False) as free:
                if free:
                    for name in temps:
                        _remove(os.path.join(directory, name))

    def _sweep_old(self, directory: str) -> None:
        for name in os.listdir(directory):
            path = os.path.join(directory, name)
            if name.startswith(TEMP_PREFIX) and time.time() - os.lstat(path).st_mtime > \
                    STALE_SECONDS:
                _remove(path)

    def _sweep_scratch(self, work: str) -> None:
        if not os.path.isdir(work) or time.time() - os.lstat(work).st_mtime < STALE_SECONDS:
            return  # maybe still being set up, before its lock is taken
        with _locked(work, wait=False) as free:
            if free:
                shutil.rmtree(work, ignore_errors=True)

    def check_owner(self) -> None:
        """Refuse a cache another user can write into (see the module's threat model)."""
        try:
            st = os.stat(self.dir)
        except OSError:
            return  # not made yet: this user makes it
        if not stat.S_ISDIR(st.st_mode):
            raise CacheError(f"the model cache {self.dir} is {kind_of(st.st_mode)}, not a "
                             f"directory: remove it, or set POSDATA_CACHE to a directory of your "
                             f"own")
        why = foreign(st)
        if why:
            fix = "" if st.st_uid not in (os.geteuid(), 0) else "chmod go-w it, or "
            raise CacheError(f"the model cache {self.dir} {why}: posdata loads code from it, so "
                             f"it will not; {fix}set POSDATA_CACHE to a directory of your own")

    def concerns(self, error: OSError) -> bool:
        """Is ``error`` about the cache: a path inside it, one of the directories it is made
        in, or none (a write that failed)?"""
        if error.filename is None:
            return True
        where = os.path.abspath(os.fsdecode(error.filename))
        return os.path.commonpath([where, self.dir]) in (where, self.dir)

    def unwritable(self, error: OSError) -> CacheError:
        where = error.filename or self.dir
        return CacheError(f"cannot write the model cache at {where}: {error.strerror or error}"
                          f" (set POSDATA_CACHE to a writable directory)")
