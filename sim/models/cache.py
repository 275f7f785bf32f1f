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
* ``<kind>/index/<sources key>``: the artifact built from a hash of the sources (gateware,
  tables, tool versions), so a known model is found without generating its source again. It
  holds a path relative to ``<kind>/``, so a cache copied elsewhere still works.

Every file is written under a temporary name and renamed, and builds of one entry take a lock:
parallel workers and concurrent runs may ask for the same model at the same moment.
"""

import fcntl
import hashlib
import os
import tempfile
from contextlib import contextmanager
from importlib import resources

DIGEST_SUFFIX = ".sha256"


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


def file_digest(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def write_atomic(path: str, text: str) -> None:
    """Readers see the old file or the new one, never a part of either."""
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def intact(path: str) -> bool:
    """Is ``path`` exactly the file that was built (its recorded digest matches)?"""
    try:
        with open(path + DIGEST_SUFFIX) as f:
            recorded = f.read().split()
        return bool(recorded) and recorded[0] == file_digest(path)
    except OSError:  # either file missing or unreadable
        return False


@contextmanager
def _locked(directory: str):
    with open(os.path.join(directory, ".lock"), "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


class ModelCache:
    """The cache of one kind of model (``"cxxrtl"``), under ``root`` (default ``cache_root()``,
    read when the cache is made, so a changed ``$POSDATA_CACHE`` takes effect)."""

    def __init__(self, kind: str, root: str | None = None):
        self.dir = os.path.join(root or cache_root(), kind)

    def artifact(self, key: str, name: str, build) -> str:
        """Path of the intact artifact ``name`` of entry ``key``, calling
        ``build(directory, output)`` first when there is none: it writes its inputs into the
        entry's ``directory`` and the artifact to the temporary path ``output``."""
        directory = os.path.join(self.dir, key)
        path = os.path.join(directory, name)
        if intact(path):
            return path
        os.makedirs(directory, exist_ok=True)
        with _locked(directory):
            if intact(path):  # another process built it while this one waited
                return path
            fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=f"-{name}")
            os.close(fd)
            try:
                build(directory, tmp)
                digest = file_digest(tmp)
                os.replace(tmp, path)
            except BaseException:
                if os.path.exists(tmp):
                    os.unlink(tmp)
                raise
            # in the sha256sum format, so `sha256sum -c` in the entry checks it by hand too
            write_atomic(path + DIGEST_SUFFIX, f"{digest}  {name}\n")
        return path

    def lookup(self, sources_key: str) -> str | None:
        """The intact artifact last built from these sources, if any."""
        try:
            with open(os.path.join(self.dir, "index", sources_key)) as f:
                path = os.path.join(self.dir, f.read().strip())
        except OSError:
            return None
        return path if intact(path) else None

    def remember(self, sources_key: str, path: str) -> None:
        index = os.path.join(self.dir, "index")
        os.makedirs(index, exist_ok=True)
        write_atomic(os.path.join(index, sources_key), os.path.relpath(path, self.dir) + "\n")
