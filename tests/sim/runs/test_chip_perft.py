"""The host side of a chip count (sim.runs.chip_perft): it takes a Target and the caller's Board,
reaches children by make/takeback and leaves the board as it was (after a mismatch or a failing
chip too), and the CLI hands it a Target. A stand-in chip, counting in software with one move
hidden, makes a difference to localise without gateware; the compiled chip counts for real."""

import json

import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import move_uci
from posdata.engine.rules.movegen import gen as reference_gen
from posdata.engine.rules.perft import divide, perft
from posdata.engine.rules.positions import BY_NAME
from posdata.hdl.common.contract import PHASE_NAMES
from posdata.sim.cli import main
from posdata.sim.drivers.chip_cxxrtl import ChipCount
from posdata.sim.drivers.interface import Generation, WatchdogError
from posdata.sim.drivers.targets import Target, make_chip
from posdata.sim.runs import chip_perft
from posdata.sim.runs.chip_perft import run_chip_perft


def state(board: Board) -> tuple:
    return (board.fen(), list(board.color), list(board.piece), board.side, board.castle,
            board.ep, board.hash, board.ply, len(board.hist), list(board.king))


class HidingChip:
    """Counts like the software, except that it never sees the move ``hidden`` (a UCI move)
    wherever it is legal; ``fail_after`` counts, it raises as a stuck chip would."""

    def __init__(self, hidden: str | None = None, fail_after: int | None = None):
        self.hidden, self.fail_after, self.counts, self.boards = hidden, fail_after, 0, []

    def gen(self, board) -> None:
        reference_gen(board)
        start, end = board.first_move[board.ply], board.first_move[board.ply + 1]
        kept = [m for m in board.gen_dat[start:end] if move_uci(m) != self.hidden]
        board.gen_dat[start:] = kept
        board.first_move[board.ply + 1] = start + len(kept)

    def perft(self, board, depth, bulk=True, split=None, progress=None, engine=None):
        self.boards.append(board)
        self.counts += 1
        if self.fail_after is not None and self.counts > self.fail_after:
            raise WatchdogError("the stand-in chip is stuck")
        return ChipCount(perft(board, depth, self.gen, bulk), 10 * depth, False, depth, bulk, 0,
                         [dict.fromkeys(PHASE_NAMES, depth)])

    def list_moves(self, board, legal=True):
        return Generation(board.legal_moves(self.gen), 0, 64)


def game_board() -> Board:
    board = Board()
    for move in ("e2e4", "c7c5", "g1f3"):
        board.push_uci(move)
    return board


def test_divide_counts_each_child_on_the_callers_board():
    board, chip = game_board(), HidingChip()
    before = state(board)
    report = run_chip_perft(board, 3, "both", Target("pysim"), divide=True,
                            factory=lambda: chip)
    assert state(board) == before
    assert all(b is board for b in chip.boards)  # no copies, no FEN round trips
    want = {move_uci(m): n for m, n in divide(Board(board.fen()), 3, bulk=True).items()}
    assert report.divide == want and report.nodes == report.sw_nodes == sum(want.values())
    assert report.match and report.counts == len(want)
    assert report.as_dict(None)["sim"] == "pysim"
    assert report.phases == dict.fromkeys(PHASE_NAMES, 2 * len(want))


def test_a_difference_is_localised_and_the_board_restored():
    board, chip = game_board(), HidingChip(hidden="f8e7")  # legal once e7 is free
    before = state(board)
    report = run_chip_perft(board, 3, "both", "cxxrtl", factory=lambda: chip)
    assert state(board) == before
    assert report.match is False and report.nodes < report.sw_nodes
    assert report.mismatch.startswith("legal moves differ after ")
    assert "missing from chip: f8e7" in report.mismatch
    line = report.mismatch.split("after ", 1)[1].split(":", 1)[0].split()
    after = Board(board.fen())
    for move in line:
        after.push_uci(move)
    assert after.fen() in report.mismatch  # the FEN reached by the reported line


def test_a_failing_chip_leaves_the_board_as_it_was():
    board = game_board()
    before = state(board)
    with pytest.raises(WatchdogError):
        run_chip_perft(board, 2, "hw", Target("cxxrtl"), divide=True,
                       factory=lambda: HidingChip(fail_after=3))
    assert state(board) == before


def test_the_cli_hands_over_a_target_and_its_board(monkeypatch, capsys):
    seen = []

    def spy(board, depth, backend, target, *args, **kwargs):
        seen.append((board.fen(), target))
        return run_chip_perft(board, depth, backend, target, *args,
                              **{**kwargs, "factory": HidingChip})
    monkeypatch.setattr(chip_perft, "run_chip_perft", spy)
    fen = BY_NAME["position3"].fen
    assert main(["perft", "--backend", "both", "--depth", "2", "--fen", fen, "--moves", "b4b1",
                 "--target", "pysim", "--json", "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    played = Board(fen)
    played.push_uci("b4b1")
    assert seen == [(played.fen(), Target("pysim"))]
    assert out["sim"] == "pysim" and out["match"] and out["nodes"] == perft(played, 2)


def test_one_make_chip_for_every_target(monkeypatch):
    assert not hasattr(chip_perft, "make_chip") or chip_perft.make_chip is make_chip
    from posdata.sim.drivers import chip_verilator
    made = []
    monkeypatch.setattr(chip_verilator, "VerilatorChip",
                        lambda engines, variant: made.append((engines, variant)) or "chip")
    assert make_chip(Target("verilator"), 2, "chess960") == "chip"
    assert made == [(2, "chess960")]


def test_the_compiled_chip_counts_the_callers_board():
    board = game_board()
    before = state(board)
    report = run_chip_perft(board, 3, "both", Target("cxxrtl"), divide=True)
    assert state(board) == before
    assert report.match and report.nodes == perft(Board(board.fen()), 3, bulk=True)
    assert report.clocks > 0 and sum(report.phases.values()) >= report.clocks
