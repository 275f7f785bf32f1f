"""No UnusedElaboratable warnings after a refused synth setting or a failed build (issue 30,
5): Amaranth warns, when the garbage collector takes it, of every Elaboratable made and never
elaborated, three lines each after the one-line error. The tools are test_synth_place's
stand-in; every refusal here comes before any of them would run."""

import gc
import warnings

import pytest
from amaranth.hdl import UnusedElaboratable

from posdata.sim.cli import main

from .test_synth_place import TOOL, install_stand_in


@pytest.fixture
def tools(tmp_path, monkeypatch):
    install_stand_in(tmp_path, monkeypatch, TOOL)
    for variable in ("NEXTPNR_ECP5", "ECPPACK"):  # the ULX3S's flow: the same stand-in
        monkeypatch.setenv(variable, str(tmp_path / "stand-in"))
    return tmp_path


def run_quietly(argv) -> tuple[int, list[str]]:
    """main(argv)'s exit status and the UnusedElaboratable warnings of what it dropped."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        status = main(argv)
        gc.collect()  # the warnings come from __del__: collect what the run dropped
    return status, [str(w.message) for w in seen if issubclass(w.category, UnusedElaboratable)]


@pytest.mark.parametrize("argv, says", [
    (["--mhz", "999"], "no PLL setting gives 999 MHz"),
    (["--baud", "12000000"], "12000000 baud does not fit a 100 MHz clock"),
    (["--board", "icebreaker", "--mhz", "34"], "no iCE40 PLL setting"),
])
def test_a_refused_setting_leaves_no_unused_elaboratable(tools, capsys, argv, says):
    status, unused = run_quietly(["synth", "--build-dir", str(tools / "build"), *argv])
    assert status == 2
    assert says in capsys.readouterr().err
    assert unused == []


def test_the_check_sees_a_dropped_elaboratable():
    from amaranth import Module
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        Module()
        gc.collect()
    assert any(issubclass(w.category, UnusedElaboratable) for w in seen)


def test_exports_divisor_below_the_uarts_is_one_line(tmp_path, capsys):
    """--divisor 2 or 3 reached the UART's own check: a traceback, and the half-made front end
    dropped."""
    status, unused = run_quietly(["export", "--design", "board", "--rtlil",
                                  str(tmp_path / "b.il"), "--divisor", "3"])
    assert status == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--divisor must be between 4 and" in err, err
    assert unused == [] and not (tmp_path / "b.il").exists()


def test_a_failed_build_leaves_no_unused_elaboratable(tools, capsys, monkeypatch):
    monkeypatch.setenv("FAIL", "-q")  # Yosys fails
    status, unused = run_quietly(["synth", "--board", "icebreaker", "--build-dir",
                                  str(tools / "build")])
    assert status == 2
    assert "holds no complete build" in capsys.readouterr().err
    assert unused == []


def test_exporting_the_board_design_leaves_no_unused_elaboratable(tmp_path, capsys):
    status, unused = run_quietly(["export", "--design", "board", "--divisor", "4", "--rtlil",
                                  str(tmp_path / "b.il")])
    assert status == 0 and "module posdata_board" in capsys.readouterr().out
    assert unused == []
