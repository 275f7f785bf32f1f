"""Nothing a command writes replaces a special file (issue 43): an output named at a character
device, a FIFO, or a link to one is refused in one line, exit status 2, and the special file is
intact afterwards; a link to a regular file is followed (the file written, the link kept);
``-`` writes ``export``'s text and a walk's SVG to standard output. The character device is
made by the test with mknod (a null device), where the test may (root, a system that allows
it)."""

import os
import stat

import pytest

from posdata.sim.cli import main

from .test_cli_outputs import one_line_error, quick_export  # noqa: F401  (a fixture)

#: each command's output option: (argv with FILE for the path, the option's name)
COMMANDS = {
    "walk --svg": (["walk", "--piece", "N", "--square", "d4", "--svg", "FILE"], "--svg"),
    "sim --vcd": (["sim", "--vcd", "FILE"], "--vcd"),
    "sim's save file": (["sim", "--vcd", "w.vcd"], "--vcd"),  # FILE: w.gtkw
    "export --verilog": (["export", "--verilog", "FILE"], "--verilog"),
    "export --rtlil": (["export", "--rtlil", "FILE"], "--rtlil"),
    "synth --build-dir": (["synth", "--build-dir", "FILE"], "--build-dir"),
}


def make_special(path, kind):
    """A special file of ``kind`` at ``path``; returns what identifies it (type and device)."""
    if kind == "FIFO":
        os.mkfifo(path)
    elif kind == "character device":
        try:
            os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        except PermissionError:
            pytest.skip("mknod needs root (and a system that allows device nodes)")
    return identity(path)


def identity(path):
    st = os.lstat(path)
    return stat.S_IFMT(st.st_mode), st.st_rdev, st.st_ino


@pytest.fixture
def quiet(tmp_path, monkeypatch):
    """In a folder of its own; nothing slow runs before the output is checked (the simulation,
    the synthesis and the export are refused after it)."""
    monkeypatch.chdir(tmp_path)

    def never(*args, **kwargs):
        raise AssertionError("the work started before the output was checked")
    monkeypatch.setattr("posdata.sim.drivers.gen_pysim.PysimGenerator", never)
    monkeypatch.setattr("posdata.hdl.boards.synth.synthesize", never)
    from posdata.sim.models import verilog_export
    monkeypatch.setattr(verilog_export, "verilog_text", never)
    monkeypatch.setattr(verilog_export, "rtlil_text", never)
    return tmp_path


@pytest.mark.parametrize("kind", ["FIFO", "character device"])
@pytest.mark.parametrize("linked", [False, True], ids=["itself", "through a link"])
@pytest.mark.parametrize("command", COMMANDS)
def test_an_output_at_a_special_file_is_one_line_and_leaves_it(quiet, capsys, command, kind,
                                                               linked):
    argv, option = COMMANDS[command]
    name = "w.gtkw" if command == "sim's save file" else "out"
    special = quiet / ("special" if linked else name)
    before = make_special(special, kind)
    if linked:
        os.symlink(special, quiet / name)
    argv = [name if word == "FILE" else word for word in argv]
    assert main(argv) == 2
    one_line_error(capsys, name, kind, option)
    assert identity(special) == before
    if linked:
        assert os.readlink(quiet / name) == str(special)
    assert sorted(os.listdir(quiet)) == sorted({name, special.name})  # no temporary left


@pytest.mark.usefixtures("quick_export")
def test_a_link_to_a_regular_file_is_followed(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "real.v").write_text("old")
    os.symlink("real.v", tmp_path / "link.v")
    assert main(["export", "--verilog", "link.v"]) == 0
    assert os.readlink(tmp_path / "link.v") == "real.v"
    assert (tmp_path / "real.v").read_text() == "// verilog generator\n"
    assert sorted(os.listdir(tmp_path)) == ["link.v", "real.v"]


@pytest.mark.usefixtures("quick_export")
def test_a_dash_is_standard_output(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["export", "--verilog", "-"]) == 0
    out, err = capsys.readouterr()
    assert out == "// verilog generator\n" and "standard output: module" in err
    assert main(["walk", "--piece", "N", "--square", "d4", "--svg", "-"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("<svg") and out.rstrip().endswith("</svg>") and err == ""
    assert os.listdir(tmp_path) == []
    assert main(["export", "--verilog", "-", "--rtlil", "-"]) == 2
    one_line_error(capsys, "standard output", "already")


@pytest.mark.parametrize("kind", ["FIFO", "character device", "link"])
def test_synth_names_a_special_file_where_its_products_go_before_it_builds(tmp_path, monkeypatch,
                                                                          capsys, kind):
    """The build's products replace the files in build/synth/BOARD: a special file there is
    refused before the elaboration (seconds) and the build (minutes), and left as it is."""
    monkeypatch.chdir(tmp_path)
    final = tmp_path / "build" / "synth" / "ulx3s-25f"
    final.mkdir(parents=True)
    (final / "report.json").write_text("{}")
    special = final / "posdata.bit"
    if kind == "link":
        os.symlink("report.json", special)
        before = identity(special)
    else:
        before = make_special(special, kind)

    def never(*args, **kwargs):
        raise AssertionError("the elaboration started before the build folder was checked")
    monkeypatch.setattr("posdata.hdl.boards.ecp5_top.BoardTop", never)
    assert main(["synth"]) == 2
    one_line_error(capsys, "posdata.bit", "a symbolic link" if kind == "link" else kind,
                   "only regular files")
    assert identity(special) == before
    assert sorted(os.listdir(final)) == ["posdata.bit", "report.json"]
