"""The cache of compiled models on its own, with a stand-in build (no compiler, milliseconds):
an artifact is trusted only while its recorded digest matches, and the index survives a move
of the whole cache."""

import os
import shutil

import pytest

from posdata.sim.models.cache import DIGEST_SUFFIX, ModelCache, file_digest, intact


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
