"""Variants from the outside: ``--variant`` on the posdata command, the UCI options UCI_Variant
and UCI_Chess960 (in-process and driven by python-chess), and their bad input."""

import io
import json
import time

import chess
import chess.engine
import pyffish
import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.chess960 import start_fen
from posdata.engine.uci.protocol import UciEngine
from posdata.sim.cli import main
from tests.engine.uci.test_uci import ENGINE_CMD, REPO

CASTLE_960 = "4k3/8/8/8/8/8/8/6KR w K - 0 1"  #: the king already on g1: castling is g1h1


def run_cli(argv, capsys):
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def test_moves_in_a_variant(capsys):
    status, out, _ = run_cli(["moves", "--variant", "amazon", "--json"], capsys)
    assert status == 0
    report = json.loads(out)
    assert report["fen"] == pyffish.start_fen("amazon")
    assert set(report["moves"]) == set(pyffish.legal_moves("amazon", report["fen"], []))


def test_moves_in_chess960_write_castling_as_king_takes_rook(capsys):
    status, out, _ = run_cli(["moves", "--variant", "chess960", "--fen", CASTLE_960, "--json"],
                             capsys)
    assert status == 0 and "g1h1" in json.loads(out)["moves"]


def test_search_in_a_variant(capsys):
    status, out, _ = run_cli(["search", "--variant", "nightrider", "--depth", "2", "--json"],
                             capsys)
    assert status == 0
    report = json.loads(out)
    assert report["variant"] == "nightrider"
    assert report["bestmove"] in pyffish.legal_moves("nightrider", report["fen"], [])


@pytest.mark.parametrize("argv, word", [
    (["moves", "--variant", "shogi"], "unknown variant 'shogi'"),
    (["search", "--variant", "amazon", "--depth", "1", "--movegen", "hw"], "orthodox chess only"),
    # the chip plays every variant, but a board's bitstream is orthodox chess's
    (["perft", "--variant", "nightrider", "--backend", "hw", "--target", "board", "--port",
      "/dev/null", "--depth", "1"], "plays orthodox chess only, not nightrider"),
    (["compare", "--variant", "amazon", "--random", "3"], "not with --variant amazon"),
    (["compare", "--variant", "amazon", "--backend", "gen", "--target", "board", "--port",
      "/dev/null"], "plays orthodox chess only, not amazon"),
    # letters the variant does not have
    (["moves", "--variant", "amazon", "--fen",
      "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"], "unknown piece letter 'q'"),
    (["moves", "--variant", "chigorin", "--fen",
      "rbbqkbbr/pppppppp/8/8/8/8/PPPPPPPP/RNNQKNNR w KQkq - 0 1"], "cannot promote"),
    # castling rights without a king and rook of that colour
    (["moves", "--variant", "chess960", "--fen", "4k3/8/8/8/8/8/8/4K3 w K - 0 1"],
     "castling right 'K'"),
    (["moves", "--variant", "chess960", "--fen", "4k3/8/8/8/8/8/8/4K2R w B - 0 1"],
     "without a white rook on b1"),
    (["moves", "--fen", "4k3/8/8/8/8/8/8/4K2R w H - 0 1"], "castling letter 'H'"),
    (["moves", "--fen", "4k3/8/8/8/8/8/PPPPPPPP/QQQQK3 w - - 0 1"], "missing pawns"),
])
def test_bad_input_is_one_line(argv, word, capsys):
    status, out, err = run_cli(argv, capsys)
    assert status == 2 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith("posdata: error: "), err
    assert word in err, err


# --- UCI -------------------------------------------------------------------------------------

class Engine:
    """The engine in-process; ``lines`` are what it has said."""

    def __init__(self):
        self.out = io.StringIO()
        self.engine = UciEngine(out=self.out)

    def say(self, *lines):
        for line in lines:
            self.engine.handle(line)

    def bestmove(self, timeout=20.0) -> str:
        """The bestmove's move; ``timeout`` is a hang guard (idle these searches take ms)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in self.out.getvalue().splitlines():
                if line.startswith("bestmove"):
                    return line.split()[1]
            time.sleep(0.01)
        raise AssertionError(f"no bestmove: {self.out.getvalue()}")

    @property
    def lines(self):
        return self.out.getvalue().splitlines()

    def fen(self) -> str:
        """The position's FEN, from ``d``'s drawing (its newest ``Fen:`` line)."""
        self.say("d")
        return [ln for ln in self.lines if ln.startswith("Fen: ")][-1].removeprefix("Fen: ")


def test_uci_offers_the_variant_options():
    e = Engine()
    e.say("uci")
    assert ("option name UCI_Variant type combo default chess var chess var chess960 var amazon "
            "var almost var chigorin var nightrider var grasshopper var hoppelpoppel var berolina "
            "var shatranj var makruk var pawnsideways var fischerandom") in e.lines
    assert "option name UCI_Chess960 type check default false" in e.lines


@pytest.mark.parametrize("name", ["amazon", "almost", "chigorin", "nightrider"])
def test_uci_variant_plays_legal_moves(name):
    e = Engine()
    e.say(f"setoption name UCI_Variant value {name}", "position startpos moves e2e4")
    fen = pyffish.get_fen(name, pyffish.start_fen(name), ["e2e4"])
    assert e.fen().split()[:3] == fen.split()[:3]
    e.say("go depth 2")
    assert e.bestmove() in pyffish.legal_moves(name, fen, [])
    e.engine.stop_search()


def test_uci_chess960_notation_and_fen():
    e = Engine()
    e.say("setoption name UCI_Chess960 value true", f"position fen {CASTLE_960}",
          "go depth 1 searchmoves g1h1")
    assert e.bestmove() == "g1h1"
    e.engine.stop_search()
    e.say("position fen 1r2k1r1/8/8/8/8/8/8/1R2K1R1 w GBgb - 0 1 moves e1b1")
    assert e.fen() == "1r2k1r1/8/8/8/8/8/8/2KR2R1 b kq - 1 1"
    # off again: orthodox chess, castling as the king's move
    e.say("setoption name UCI_Chess960 value false",
          "position fen r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 moves e1g1")
    assert e.fen() == "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1"


@pytest.mark.parametrize("line, word", [
    ("setoption name UCI_Variant value shogi", "unknown variant 'shogi'"),
    ("setoption name UCI_Chess960 value maybe", "true or false"),
])
def test_uci_bad_options(line, word):
    e = Engine()
    e.say(line)
    assert word in e.lines[-1] and e.lines[-1].startswith("info string")


def test_uci_refuses_a_generator_that_plays_chess_only():
    class ChessOnly:  # the gateware's generator declares no SUPPORTS_VARIANTS
        from posdata.engine.rules.movegen import gen, gen_caps
    e = Engine()
    e.engine.movegens["hw"] = ChessOnly
    e.say("setoption name UCI_Variant value amazon", "setoption name MoveGen value hw")
    assert "does not play amazon" in e.lines[-1]
    e.say("setoption name UCI_Variant value chess", "setoption name MoveGen value hw",
          "setoption name UCI_Variant value almost")
    assert "does not play almost" in e.lines[-1] and e.engine.variant.name == "chess"


def test_python_chess_plays_chess960():
    """python-chess sets UCI_Chess960 itself for a Chess960 board and checks every move."""
    board = chess.Board(start_fen(0), chess960=True)  # BBQNNRKR
    for sq in (chess.B1, chess.C1, chess.D1, chess.E1, chess.B8, chess.C8, chess.D8, chess.E8):
        board.remove_piece_at(sq)  # clear the way so castling comes up
    engine = chess.engine.SimpleEngine.popen_uci(ENGINE_CMD, cwd=REPO,
                                                 timeout=20)  # a hang guard: idle ~0.2 s
    try:
        for _ in range(16):
            if board.is_game_over():
                break
            result = engine.play(board, chess.engine.Limit(depth=1))
            assert result.move in board.legal_moves
            board.push(result.move)
    finally:
        engine.quit()
    Board(board.fen(), "chess960")  # the game's end is a position we read back


def test_compare_on_a_variants_sample_positions(capsys):
    """compare --variant: the chip against the software on the variant's sample positions (the
    chigorin model test_chip_variants builds), each count equal and each position named."""
    from posdata.engine.rules.board import Board
    from posdata.engine.rules.perft import perft
    from posdata.sim.runs.variant_positions import sample_positions
    status, out, _ = run_cli(["compare", "--variant", "chigorin", "--depth", "2", "--bulk",
                              "--target", "cxxrtl", "--quiet", "--json"], capsys)
    report = json.loads(out)
    assert status == 0 and report["variant"] == "chigorin"
    rows = report["positions"]
    assert [r["fen"] for r in rows] == sample_positions("chigorin")
    assert [r["position"] for r in rows][:2] == ["start", "sample1"]
    for row in rows:
        want = perft(Board(row["fen"], "chigorin"), 2)
        assert row["match"] and row["sw_nodes"] == row["hw_nodes"] == want, row
