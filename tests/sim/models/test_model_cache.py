"""The cache of compiled models on its own, with a stand-in build (no compiler, milliseconds):
an artifact is trusted only while its recorded digest matches, and the index survives a move
of the whole cache; index lines lead only to artifacts inside it that vouch for them; a damaged,
foreign or unwritable cache is rebuilt or refused in one line; killed runs' temporaries are
swept."""

import os
import shutil
import sys
import time

import pytest

from posdata.sim.models.cache import (
    DIGEST_SUFFIX,
    SOURCES_SUFFIX,
    STALE_SECONDS,
    CacheError,
    ModelCache,
    _locked,
    file_digest,
    intact,
)
from posdata.sim.models.elf import shortfall


class Builder:
    """Writes ``content`` as the artifact and counts how often it was asked to."""

    def __init__(self, content=b"\x7fELF model" * 1000):
        self.content, self.calls = content, 0

    def __call__(self, directory, output):
        self.calls += 1
        with open(os.path.join(directory, "model.cc"), "w") as f:
            f.write("// source\n")
        with open(output, "wb") as f:
            f.write(self.content)


@pytest.fixture
def cache(tmp_path):
    return ModelCache("test", str(tmp_path))


def test_built_once_with_its_digest(cache):
    build = Builder()
    path = cache.artifact("k1", "lib.so", build)
    assert cache.artifact("k1", "lib.so", build) == path and build.calls == 1
    with open(path, "rb") as f:
        assert f.read() == build.content
    with open(path + DIGEST_SUFFIX) as f:  # sha256sum's format
        assert f.read() == f"{file_digest(path)}  lib.so\n"
    assert sorted(os.listdir(os.path.dirname(path))) == \
        [".lock", "lib.so", "lib.so" + DIGEST_SUFFIX, "model.cc"]  # no temporary files left


@pytest.mark.parametrize("damage", ["truncate", "flip a byte", "no digest", "empty digest"])
def test_damaged_artifact_is_rebuilt(cache, damage):
    build = Builder()
    path = cache.artifact("k1", "lib.so", build)
    if damage == "truncate":
        with open(path, "r+b") as f:
            f.truncate(100)
    elif damage == "flip a byte":
        with open(path, "r+b") as f:
            f.seek(5)
            f.write(b"X")
    elif damage == "no digest":
        os.unlink(path + DIGEST_SUFFIX)
    else:
        open(path + DIGEST_SUFFIX, "w").close()
    assert not intact(path)
    assert cache.artifact("k1", "lib.so", build) == path and build.calls == 2
    assert intact(path)


def test_failed_build_leaves_nothing_to_trust(cache):
    def failing(directory, output):
        with open(output, "wb") as f:
            f.write(b"half a libr")
        raise RuntimeError("compiler died")
    with pytest.raises(RuntimeError, match="compiler died"):
        cache.artifact("k1", "lib.so", failing)
    directory = os.path.join(cache.dir, "k1")
    assert os.listdir(directory) == [".lock"]  # neither the half-written file nor a digest
    assert cache.artifact("k1", "lib.so", Builder()) == os.path.join(directory, "lib.so")


def test_index_finds_only_intact_artifacts(cache):
    assert cache.lookup("sources") is None
    path = cache.artifact("k1", "lib.so", Builder())
    cache.remember("sources", path)
    assert cache.lookup("sources") == path
    with open(path, "r+b") as f:
        f.truncate(10)
    assert cache.lookup("sources") is None


def test_a_copied_cache_uses_its_own_files(tmp_path):
    old = ModelCache("test", str(tmp_path / "old"))
    path = old.artifact("k1", "lib.so", Builder())
    old.remember("sources", path)
    shutil.copytree(tmp_path / "old", tmp_path / "new")
    shutil.rmtree(tmp_path / "old")
    new = ModelCache("test", str(tmp_path / "new"))
    assert new.lookup("sources") == os.path.join(new.dir, "k1", "lib.so")


def test_root_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("POSDATA_CACHE", str(tmp_path))
    assert ModelCache("cxxrtl").dir == os.path.join(str(tmp_path), "cxxrtl")
    monkeypatch.delenv("POSDATA_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert ModelCache("cxxrtl").dir == os.path.join(str(tmp_path), "xdg", "posdata", "cxxrtl")


# --- A damaged, hand-edited or foreign cache: rebuilt or refused in one line, never a crash ----

def elf_file() -> bytes:
    """A real ELF file (the Python running the tests), standing in for a built library."""
    with open(os.path.realpath(sys.executable), "rb") as f:
        return f.read()


def indexed(cache, key="k1", sources="sources", content=b"\x7fELF model" * 1000):
    path = cache.artifact(key, "lib.so", Builder(content))
    cache.remember(sources, path)
    assert cache.lookup(sources) == path
    return path


def point_index(cache, sources, line):
    with open(os.path.join(cache.dir, "index", sources), "w") as f:
        f.write(line + "\n")


def vouch(path, *keys):
    with open(path + SOURCES_SUFFIX, "w") as f:
        f.write("".join(f"{k}\n" for k in keys))


@pytest.mark.parametrize("line", ["../outside/k1/lib.so", "../../outside/test/k1/lib.so",
                                  "k1/../../outside/test/k1/lib.so", "ABSOLUTE", "k1/lib.so/",
                                  ".tmp-x/lib.so", "index/sources"])
def test_index_lines_leading_out_of_the_cache_are_not_followed(tmp_path, line):
    """The target outside is intact and vouches for the key: only where it lies refuses it."""
    cache = ModelCache("test", str(tmp_path / "cache"))
    indexed(cache)
    outside = ModelCache("test", str(tmp_path / "outside"))
    foreign = indexed(outside)
    vouch(foreign, "sources")
    line = foreign if line == "ABSOLUTE" else line
    point_index(cache, "sources", line)
    assert cache.lookup("sources") is None


def test_an_index_line_naming_another_model_is_not_followed(cache):
    """Another entry of the cache, intact (a design's library named under another design's
    sources): the entry does not vouch for the key, so the model is rebuilt and indexed anew."""
    mine = indexed(cache, "k1", "generator")
    other = indexed(cache, "k2", "board", b"\x7fELF another model" * 900)
    point_index(cache, "generator", os.path.relpath(other, cache.dir))
    assert cache.lookup("generator") is None and cache.lookup("board") == other
    cache.remember("generator", mine)  # what build_library does after the rebuild
    assert cache.lookup("generator") == mine


def test_a_truncated_library_with_a_recomputed_digest_is_rebuilt(cache):
    """The digest matches the cut-short file: its ELF headers say where it ends."""
    whole = elf_file()
    path = indexed(cache, content=whole)
    with open(path, "wb") as f:
        f.write(whole[:len(whole) // 2])
    with open(path + DIGEST_SUFFIX, "w") as f:
        f.write(f"{file_digest(path)}  lib.so\n")
    assert shortfall(path) and not intact(path) and cache.lookup("sources") is None
    build = Builder(whole)
    assert cache.artifact("k1", "lib.so", build) == path and build.calls == 1
    assert intact(path) and shortfall(path) is None


@pytest.mark.parametrize("below", ["", "deeper/still"])
def test_an_unwritable_cache_is_one_line_naming_it(tmp_path, below):
    """Root may write anywhere, so the cache's root is (under) a file here: nothing can be made
    in it."""
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    cache = ModelCache("test", str(blocked / below))
    assert cache.lookup("sources") is None  # nothing known: no error yet
    for use in (lambda: cache.artifact("k1", "lib.so", Builder()),
                lambda: cache.scratch().__enter__()):
        with pytest.raises(CacheError) as e:
            use()
        message = str(e.value)
        assert len(message.splitlines()) == 1
        assert str(blocked) in message and "POSDATA_CACHE" in message
    cache.remember("sources", str(blocked / "test" / "k1" / "lib.so"))  # best effort: no error


def test_a_builds_own_os_error_is_not_blamed_on_the_cache(cache):
    def tool_missing(directory, output):
        raise FileNotFoundError(2, "No such file or directory", "/opt/nowhere/verilator-cli")
    with pytest.raises(FileNotFoundError, match="verilator-cli"):
        cache.artifact("k1", "lib.so", tool_missing)


def test_another_users_cache_is_refused(cache):
    path = indexed(cache)
    os.chmod(cache.dir, 0o777)
    with pytest.raises(CacheError, match=r"writable by every user.*POSDATA_CACHE"):
        cache.lookup("sources")
    os.chmod(cache.dir, 0o755)
    assert cache.lookup("sources") == path
    if os.geteuid() != 0:
        return  # only root can give a directory away
    os.chown(cache.dir, 4242, -1)
    for use in (lambda: cache.lookup("sources"), lambda: cache.artifact("k1", "lib.so", Builder())):
        with pytest.raises(CacheError, match=r"belongs to another user \(uid 4242\)"):
            use()


# --- What killed runs leave behind is swept by the next one -----------------------------------

def leave_temporaries(directory):
    os.makedirs(os.path.join(directory, ".tmp-cc-x"), exist_ok=True)
    for name in (".tmp-abc-lib.so", os.path.join(".tmp-cc-x", "cc1.s")):
        with open(os.path.join(directory, name), "w") as f:
            f.write("half")


def temporaries(directory):
    return sorted(n for n in os.listdir(directory) if n.startswith(".tmp-"))


def test_a_killed_builds_temporaries_are_swept_when_the_cache_is_opened(cache):
    path = indexed(cache)
    entry = os.path.dirname(path)
    leave_temporaries(entry)
    with _locked(entry):  # a build under way in another process: its files are left alone
        ModelCache("test", os.path.dirname(cache.dir))
        assert temporaries(entry) == [".tmp-abc-lib.so", ".tmp-cc-x"]
    ModelCache("test", os.path.dirname(cache.dir))
    assert temporaries(entry) == [] and cache.lookup("sources") == path


def test_stale_scratch_and_index_temporaries_are_swept_fresh_ones_kept(cache):
    indexed(cache)
    index = os.path.join(cache.dir, "index")
    old = time.time() - STALE_SECONDS - 60
    for where in (cache.dir, index):
        for name, age in (("old", old), ("new", time.time())):
            path = os.path.join(where, f".tmp-{name}")
            os.mkdir(path) if where == cache.dir else open(path, "w").close()
            os.utime(path, (age, age))
    busy = os.path.join(cache.dir, ".tmp-busy")
    os.mkdir(busy)
    os.utime(busy, (old, old))
    with _locked(busy):  # an old scratch directory still in use
        ModelCache("test", os.path.dirname(cache.dir))
    assert temporaries(cache.dir) == [".tmp-busy", ".tmp-new"]
    assert temporaries(index) == [".tmp-new"]
    with cache.scratch() as work:
        assert os.path.dirname(work) == cache.dir
    assert not os.path.exists(work)
