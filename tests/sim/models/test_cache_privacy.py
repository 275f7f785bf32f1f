"""The model cache runs only the user's own code (issue 43): entries are private whatever the
umask; an entry, artifact, digest or index that another user owns, that others can write, that
is a link or a special file is never read or loaded: the entry is rebuilt, saying so in one line;
a FIFO anywhere in the cache is one line, never a hang. Stand-in builds (a copy of the C
library), so no compiler runs but for the planted library's few lines of C."""

import ctypes
import os
import shutil
import stat
import subprocess
import tempfile
import threading

import pytest

from posdata.sim.models.cache import DIGEST_SUFFIX, SOURCES_SUFFIX, ModelCache, file_digest
from posdata.sim.models.toolchain import find_compiler

from .test_model_loading import c_library

#: another user's uid: only root can give a file away or become someone else
STRANGER = 65534
ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="only root can make files of another "
                               "user or run as one")
QUIET_SECONDS = 0.5  #: what a refusal takes; the hang guard is ten times more


class Builder:
    """Builds the artifact as a copy of a harmless library (the C library), counting builds."""

    def __init__(self):
        self.calls = 0

    def __call__(self, directory, output):
        self.calls += 1
        shutil.copyfile(c_library(), output)


@pytest.fixture
def cache(tmp_path):
    return ModelCache("test", str(tmp_path))


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """A library whose constructor leaves a marker file: what an attacker would plant."""
    folder = tmp_path_factory.mktemp("planted")
    marker = folder / "it-ran"
    source = folder / "planted.c"
    source.write_text('#include <stdio.h>\n__attribute__((constructor)) static void run(void) '
                      f'{{ FILE *f = fopen("{marker}", "w"); if (f) fclose(f); }}\n')
    library = folder / "planted.so"
    subprocess.run([find_compiler(), "-x", "c", "-shared", "-fPIC", "-o", str(library),
                    str(source)], check=True)
    return str(library), marker


def built(cache, key="k1", sources="s1"):
    path = cache.artifact(key, "lib.so", Builder())
    cache.remember(sources, path)
    return path


def modes(top):
    """{path relative to top: permission bits} of everything under ``top``."""
    out = {}
    for folder, dirs, files in os.walk(top):
        for name in dirs + files:
            path = os.path.join(folder, name)
            out[os.path.relpath(path, top)] = stat.S_IMODE(os.lstat(path).st_mode)
    return out


def test_entries_are_private_whatever_the_umask(tmp_path):
    old = os.umask(0)
    try:
        path = built(ModelCache("test", str(tmp_path)))
    finally:
        os.umask(old)
    found = modes(tmp_path / "test")
    assert os.path.relpath(path, tmp_path / "test") in found
    assert all(mode in (0o700, 0o600) for mode in found.values()), found
    assert stat.S_IMODE(os.stat(tmp_path / "test").st_mode) == 0o700


def plant(path, planted_library, owner=None, mode=None):
    """Replace the artifact at ``path`` and its digest, as an attacker who could write them."""
    library, _ = planted_library
    os.unlink(path)
    shutil.copyfile(library, path)
    with open(path + DIGEST_SUFFIX, "w") as f:
        f.write(f"{file_digest_unchecked(path)}  lib.so\n")
    for target in (path, path + DIGEST_SUFFIX):
        if owner is not None:
            os.chown(target, owner, -1)
        if mode is not None:
            os.chmod(target, mode)


def file_digest_unchecked(path):
    import hashlib
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def loads_nothing_planted(cache, path, planted_library, capsys):
    """The cache neither indexes nor returns the planted library: the entry is rebuilt, in one
    line, and what comes back is the builder's."""
    _, marker = planted_library
    assert cache.lookup("s1") is None
    build = Builder()
    again = cache.artifact("k1", "lib.so", build)
    err = capsys.readouterr().err.strip().splitlines()
    assert build.calls == 1 and again == path
    assert len(err) == 1 and "builds it again" in err[0], err
    ctypes.CDLL(again)
    assert not marker.exists(), "the planted library's constructor ran"
    assert file_digest(again) == file_digest_unchecked(c_library())
    return err[0]


@pytest.mark.parametrize("how", ["artifact 0666", "entry 0777", "entry 0770"])
def test_an_entry_others_can_write_is_rebuilt_not_loaded(cache, planted, capsys, how):
    path = built(cache)
    what, mode = how.split()
    if what == "artifact":
        plant(path, planted, mode=int(mode, 8))
    else:
        plant(path, planted)
        os.chmod(os.path.dirname(path), int(mode, 8))
    line = loads_nothing_planted(cache, path, planted, capsys)
    assert "writable by" in line and f"mode {mode}" in line


@ROOT_ONLY
def test_a_library_and_digest_swapped_by_another_user_are_rebuilt(cache, planted, capsys):
    path = built(cache)
    plant(path, planted, owner=STRANGER)
    line = loads_nothing_planted(cache, path, planted, capsys)
    assert f"belongs to another user (uid {STRANGER})" in line


def test_a_linked_artifact_is_rebuilt(cache, planted, capsys):
    path = built(cache)
    os.unlink(path)
    os.symlink(planted[0], path)
    with open(path + DIGEST_SUFFIX, "w") as f:
        f.write(f"{file_digest_unchecked(planted[0])}  lib.so\n")
    os.chmod(path + DIGEST_SUFFIX, 0o600)
    assert "a symbolic link" in loads_nothing_planted(cache, path, planted, capsys)


@ROOT_ONLY
def test_another_local_user_cannot_write_a_cache_made_under_umask_000():
    """The attack itself, by a real second user, on a cache made under ``umask 000`` in a
    folder they can enter (as /tmp's are): nothing there is theirs to write, even when the
    kind's folder is opened to them (an older cache's 0755)."""
    top = tempfile.mkdtemp(prefix="posdata-privacy-")
    try:
        os.chmod(top, 0o755)
        old = os.umask(0)
        try:
            path = built(ModelCache("test", top))
        finally:
            os.umask(old)
        entry = os.path.dirname(path)
        attacks = [f"open({path!r}, 'wb').write(b'x')",
                   f"open({path + DIGEST_SUFFIX!r}, 'w').write('x')",
                   f"import os; os.rename({path!r}, {path + '.old'!r})",
                   f"open({os.path.join(entry, 'new')!r}, 'w')",
                   f"open({os.path.join(top, 'test', 'index', 'x')!r}, 'w')"]
        for kind_mode in (0o700, 0o755):
            os.chmod(os.path.join(top, "test"), kind_mode)
            for attack in attacks:
                done = subprocess.run(["python3", "-c", attack], user=STRANGER,
                                      capture_output=True, text=True,
                                      timeout=60)  # a hang guard: idle ~0.04 s
                assert done.returncode != 0 and "PermissionError" in done.stderr, \
                    (oct(kind_mode), attack, done.stderr)
    finally:
        shutil.rmtree(top)


# --- No special file hangs a run ---------------------------------------------------------------

def within_hang_guard(function, fifos):
    """``function()``'s result; fails (and frees it) if it blocks on one of ``fifos``."""
    result = {}
    thread = threading.Thread(target=lambda: result.update(value=function()), daemon=True)
    thread.start()
    thread.join(10 * QUIET_SECONDS)
    if thread.is_alive():
        for fifo in fifos:  # a writer lets a blocked open() return
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                pass
        thread.join()
        pytest.fail(f"blocked on a FIFO: {fifos}")
    return result.get("value")


@pytest.mark.parametrize("where", ["index", "digest", "sources", "artifact", "lock"])
def test_a_fifo_in_the_cache_is_one_line_not_a_hang(cache, capsys, where):
    path = built(cache)
    fifo = {"index": os.path.join(cache.dir, "index", "s1"), "digest": path + DIGEST_SUFFIX,
            "sources": path + SOURCES_SUFFIX, "artifact": path,
            "lock": os.path.join(os.path.dirname(path), ".lock")}[where]
    os.unlink(fifo)
    os.mkfifo(fifo, 0o600)
    assert within_hang_guard(lambda: cache.lookup("s1"), [fifo]) is None
    build = Builder()
    again = within_hang_guard(lambda: cache.artifact("k1", "lib.so", build), [fifo])
    err = capsys.readouterr().err.strip().splitlines()
    assert again == path and file_digest(again) == file_digest_unchecked(c_library())
    if where == "index":  # the entry is sound: nothing to rebuild, nothing to say
        assert build.calls == 0 and err == []
    else:
        assert build.calls == 1 and len(err) == 1 and "a FIFO" in err[0], err
    cache.remember("s1", again)  # the index line is written again, over the FIFO
    assert within_hang_guard(lambda: cache.lookup("s1"), [fifo]) == path


def test_garbage_in_a_sources_list_is_rewritten_not_an_error(cache):
    path = built(cache)
    with open(path + SOURCES_SUFFIX, "wb") as f:
        f.write(b"\xff\xfe garbage\n")
    assert cache.lookup("s1") is None
    cache.remember("s1", path)
    assert cache.lookup("s1") == path
