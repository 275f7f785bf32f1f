"""Every command that refuses a variant refuses exactly the variants the declaration
(engine.rules.capabilities) does, in one line naming what does run it: each command runs for every
variant with the work after its checks replaced by a stub, so an accepted variant costs nothing
and a refused one is the real one-line error."""

import pytest

from posdata.engine.rules.capabilities import runs_on
from posdata.engine.rules.variants import VARIANTS
from posdata.engine.uci.protocol import variant_refusal
from posdata.sim.cli import main
from posdata.sim.drivers.interface import GatewareMoveGen


class Reached(Exception):
    """The command got past its checks to the stubbed work."""


def reached(*args, **kwargs):
    raise Reached


BOARD = ["--target", "board", "--port", "/dev/null"]
#: (command line, the places whose declaration decides it, the module and name of the work
#: after the checks)
SITES = [
    (["perft", "--backend", "hw", "--target", "cxxrtl", "--depth", "1"], ["hw"],
     "posdata.sim.runs.chip_perft", "run_chip_perft"),
    (["perft", "--backend", "hw", *BOARD, "--depth", "1"], ["hw", "target-board"],
     "posdata.sim.drivers.targets", "make_chip"),
    (["perft", "--backend", "gen", "--target", "verilator", "--depth", "1"], ["gen-verilator"],
     "posdata.sim.runs.gen_perft", "run_perft"),
    (["perft", "--backend", "gen", *BOARD, "--depth", "1"], ["gen", "target-board"],
     "posdata.sim.runs.gen_perft", "run_perft"),
    (["compare", "--backend", "gen", *BOARD, "--depth", "1"], ["gen", "target-board"],
     "posdata.sim.cli.compare_cmd", "compare_table"),
    (["moves", "--backend", "hw", "--target", "verilator"], ["gen-verilator"],
     "posdata.sim.drivers.targets", "make_driver"),
    (["sim"], ["gen"], "posdata.sim.drivers.gen_pysim", "PysimGenerator"),
    (["search", "--backend", "gen", "--depth", "1"], ["search-gen"],
     "posdata.sim.drivers.movegens", "make_movegen"),
    (["search", "--backend", "sw", "--depth", "1"], ["search"],
     "posdata.engine.search.host_search", "HostSearch"),
    (["search", "--backend", "hw", *BOARD, "--depth", "1"], ["search", "search-board"],
     "posdata.sim.cli.search_cmd", "search_board"),
    (["synth"], ["ecp5"], "posdata.hdl.boards.synth", "tool"),
    (["synth", "--board", "icebreaker"], ["ice40"], "posdata.hdl.boards.synth", "tool"),
    (["synth", "--search"], ["search-board"], "posdata.hdl.boards.synth", "tool"),
]


@pytest.mark.parametrize("argv, places, module, name", SITES,
                         ids=[" ".join(a for a in s[0] if a not in ("--port", "/dev/null",
                                                                      "--depth", "1"))
                              for s in SITES])
def test_a_command_refuses_what_the_declaration_does(argv, places, module, name, capsys,
                                                     monkeypatch, tmp_path):
    monkeypatch.setattr(f"{module}.{name}", reached)
    if argv[0] == "synth":
        argv = [*argv, "--build-dir", str(tmp_path)]
    for v in VARIANTS:
        try:
            status = main([*argv, "--variant", v.name])
        except Reached:
            status = None
        err = capsys.readouterr().err
        runs = all(p in runs_on(v) for p in places)
        assert (status is None) == runs, f"{v.name}: {err or 'accepted'}"
        if not runs:
            assert status == 2 and err.count("\n") == 1, err
            assert f"{v.name} runs on {', '.join(runs_on(v))} (posdata variants)" in err, err


def test_the_uci_engine_s_gateware_generator_plays_what_search_gen_does():
    """``posdata uci``'s MoveGen hw (Backend gen) declares no SUPPORTS_VARIANTS: the
    declaration's ``search-gen`` decides."""
    movegen = GatewareMoveGen(driver=None)
    for v in VARIANTS:
        assert (variant_refusal(movegen, v) is None) == ("search-gen" in runs_on(v)), v.name


def test_the_verilator_generator_refuses_what_the_declaration_does(monkeypatch):
    from posdata.sim.drivers.gen_verilator import VerilatorGenerator
    from posdata.sim.models.toolchain import ToolchainError
    monkeypatch.setattr("posdata.sim.models.verilator.build_library", reached)
    for v in VARIANTS:
        try:
            VerilatorGenerator(verbose=False, variant=v.name)
            said = "accepted"
        except Reached:
            said = None
        except ToolchainError as e:
            said = str(e)
        assert (said is None) == ("gen-verilator" in runs_on(v)), (v.name, said)
