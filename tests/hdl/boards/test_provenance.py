"""A build's commit (hdl.boards.provenance.source_commit): ``-dirty`` when the sources it is
made from differ from the commit, not when a bench's measurements in docs/ or the README do
(a run of benches writes them between its builds)."""

import subprocess

import pytest

from posdata.hdl.boards.provenance import source_commit


def git(repo, *args):
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path):
    for name in ("hdl/top.py", "engine/rules.py", "docs/measurements.json", "README.md"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("1\n")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c")
    return tmp_path


def test_measurements_do_not_make_a_build_dirty(repo):
    clean = source_commit(str(repo / "hdl"))
    assert clean and not clean.endswith("-dirty")
    (repo / "docs/measurements.json").write_text("2\n")
    (repo / "README.md").write_text("2\n")
    assert source_commit(str(repo / "hdl")) == clean
    (repo / "engine/rules.py").write_text("2\n")
    assert source_commit(str(repo / "hdl")) == clean + "-dirty"


def test_no_git_is_none(tmp_path):
    assert source_commit(str(tmp_path)) is None
