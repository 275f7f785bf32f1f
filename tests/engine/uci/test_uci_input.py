"""What a GUI (or a stranger) may send the UCI engine: overflowing and nonsense numbers in go,
bad position and setoption lines, over-long lines, a 1,000-ply game, a GUI that goes away, and
move generators that are slow or fail (as the gateware's may). Every go ends in one legal
bestmove (python-chess's word), bad lines leave the state as it was, nothing dies."""

import io
import random
import threading
import time

import chess
import pytest

from posdata.engine.rules import movegen as reference
from posdata.engine.uci.go import MAX_TIME_MS, parse_int
from posdata.engine.uci.input_lines import MAX_LINE_BYTES
from posdata.engine.uci.protocol import MAX_INFO_CHARS, UciEngine
from tests.engine.uci.uci_inprocess import Engine, Output, legal_in
from tests.hang_guard import guarded

#: black mates with a8a1; the move generated first is f7f6 (what a failed search played)
MATE_FEN = "r5k1/5ppp/8/8/8/8/5PPP/6K1 b - - 0 1"
BIG = "9" * 400
HUGE = "9" * 5000  # more digits than int() takes


@pytest.fixture
def engine():
    e = Engine()
    yield e
    e.close()


# Each of these gives the search time enough to see the mate in one (and it ends there).
FINDS_THE_MATE = [
    f"go wtime {BIG} btime {BIG}", f"go movetime {BIG}", f"go btime {HUGE}", f"go nodes {BIG}",
    f"go depth {BIG}", f"go mate {BIG}", f"go btime 10000 movestogo {BIG} binc {BIG}",
    "go depth 0", "go depth -3", "go depth 9999", "go mate 0", "go movestogo 0 btime 3000",
    "go btime 3000 binc -50", "go movetime +500", "go depth", "go nodes", "go mate",
    "go btime nan wtime inf", "go btime 1e400", "go btime -inf", "go movetime 1.5",
    "go movetime 0x10", "go btime \u0663\u0660\u0660\u0660", "go btime 3_000", "go movetime ''",
    "go depth 2 depth 5", f"go searchmoves a8a1 {HUGE} depth 3",
]
# These leave almost no time: any legal move.
MOVES_AT_ONCE = [f"go btime -{BIG} wtime 1000", "go movetime -5", "go movetime 0",
                 "go nodes 0", "go btime 0", "go wtime 1000"]


@pytest.mark.parametrize("go", FINDS_THE_MATE + MOVES_AT_ONCE, ids=lambda go: go[:40])
def test_any_numbers_give_one_legal_bestmove(engine, go):
    engine.say(f"position fen {MATE_FEN}", go)
    line, _ = engine.expect("bestmove")  # a hang guard: idle, a few ms (the mate in one)
    move = line.split()[1]
    assert legal_in(MATE_FEN, move), line
    if go in FINDS_THE_MATE:
        assert move == "a8a1", engine.lines
    engine.say("isready")
    engine.expect("readyok")
    assert sum(ln.startswith("bestmove") for ln in engine.lines) == 1
    assert all(len(ln) <= len("info string ") + MAX_INFO_CHARS for ln in engine.lines)


def test_out_of_range_numbers_are_named():
    e = Engine()
    e.say(f"position fen {MATE_FEN}", f"go btime {BIG} movestogo 0")
    assert f"is out of range 0 to {MAX_TIME_MS}; using {MAX_TIME_MS}" in e.expect("info string")[0]
    assert "movestogo '0' is out of range 1 to" in e.expect("info string")[0]
    e.expect("bestmove")
    e.say("go btime nan")
    said = e.expect("info string")[0]
    assert said == "info string go: btime needs an integer, not 'nan'; ignored"
    e.expect("bestmove")
    e.close()


def test_parse_int():
    assert parse_int("+12") == 12 and parse_int("-007") == -7 and parse_int(HUGE) == 10**19
    assert parse_int("-" + HUGE) == -10**19
    for bad in ("", "-", "1.0", "1e3", "nan", "0x1", "1_000", "\u0663", " 1", "1\n"):
        with pytest.raises(ValueError):
            parse_int(bad)


BAD_LINES = [
    "position fen 4k3/8/8/8/8/8/8/4K3 w - - 0 " + HUGE,
    "position fen 4k3/8/8/8/8/8/8/4K3 w - - " + HUGE + " 1",
    "position fen " + "x" * 3000,
    "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 0 0 0",
    "position fen moves e2e4",
    "position " + "\ufffd" * 50,
    "setoption name UCI_Variant value " + "x" * 3000,
    "setoption name MoveGen",
    "setoption name UCI_Chess960 value",
    "setoption name " + "y" * 3000 + " value 1",
    "setoption value true name UCI_Chess960",
    "go perft " + BIG,
    "go perft 13",
    "go perft 0",
    "go perft 2 3",
]


@pytest.mark.parametrize("line", BAD_LINES, ids=lambda line: line[:30])
def test_bad_lines_leave_the_state(engine, line):
    engine.say("position startpos moves e2e4 e7e5")
    before = engine.fen()
    engine.say(line)
    said, _ = engine.expect("info string")
    assert len(said) <= len("info string ") + MAX_INFO_CHARS, said
    assert engine.fen() == before
    engine.say("go depth 1")
    assert legal_in(before, engine.expect("bestmove")[0].split()[1])


def random_game(plies: int) -> list[str]:
    """A game of random legal moves ``plies`` long (draw rules not claimed), python-chess's."""
    for seed in range(100):
        rng, board = random.Random(seed), chess.Board()
        while len(board.move_stack) < plies and any(board.legal_moves):
            board.push(rng.choice(list(board.legal_moves)))
        if len(board.move_stack) == plies:
            return [m.uci() for m in board.move_stack]
    raise AssertionError("no random game that long")


def run_engine(data: bytes, out=None) -> tuple[UciEngine, Output]:
    """The engine reading ``data`` as stdin (then the end of input), through ``run``."""
    out = out if out is not None else Output()
    engine = UciEngine(out=out)
    engine.run(io.BytesIO(data))
    return engine, out


def test_a_thousand_ply_game_and_over_long_lines():
    moves = random_game(1000)
    board = chess.Board()
    for m in moves:
        board.push_uci(m)
    long_moves = b"position startpos moves " + b" e2e4" * (MAX_LINE_BYTES // 5)
    data = (long_moves + b"\n" + b"go " + b"\xff" * (3 * MAX_LINE_BYTES) + b"\nisready\n"
            + f"position startpos moves {' '.join(moves)}\nd\ngo depth 2\n".encode()
            + b"\x00\x1b[2J\xfe\nisready\n")
    # a hang guard: idle the whole input takes ~0.05 s (the over-long lines skipped as read)
    engine, out = guarded(lambda: run_engine(data), 10, "the engine reading the game")
    lines = out.lines
    assert lines[:2] == [f"info string a line of more than {MAX_LINE_BYTES} bytes; ignored"] * 2
    assert lines[2] == "readyok"
    fens = [ln.removeprefix("Fen: ") for ln in lines if ln.startswith("Fen: ")]
    assert len(fens) == 1 and chess.Board(fens[0]).fen() == board.fen()
    # The end of input may have stopped the search: still one legal move of the game's end.
    best = [ln for ln in lines if ln.startswith("bestmove")]
    assert len(best) == 1 and legal_in(board.fen(), best[0].split()[1]), lines
    assert lines.count("readyok") == 2


class BrokenPipe:
    """A GUI that has gone away: every write fails."""

    def write(self, text):
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self):
        pass


def test_a_lost_output_ends_the_engine():
    engine = UciEngine(out=BrokenPipe())
    reading = threading.Thread(target=engine.run, args=(io.BytesIO(b"uci\n" + b"isready\n" * 9),))
    reading.start()
    reading.join(timeout=60)  # a hang guard: idle the engine leaves at its first write, at once
    assert not reading.is_alive() and engine.output_lost


# --- move generators that are slow or fail, as the gateware's may --------------------------

class SlowGen:
    """The reference generator, 2 ms a call (the gateware on a slow target)."""
    SUPPORTS_VARIANTS = False

    @staticmethod
    def gen(board):
        time.sleep(0.002)
        reference.gen(board)

    @staticmethod
    def gen_caps(board):
        time.sleep(0.002)
        reference.gen_caps(board)


class FailingGen:
    """The reference generator until its 60th call, then a failure (a lost board link)."""

    def __init__(self):
        self.calls = 0

    def _count(self):
        self.calls += 1
        if self.calls > 60:
            raise RuntimeError("link lost")

    def gen(self, board):
        self._count()
        reference.gen(board)

    def gen_caps(self, board):
        self._count()
        reference.gen_caps(board)


@pytest.mark.parametrize("go, ends", [("go perft 6", "info string perft stopped"),
                                      ("go infinite", "bestmove")])
def test_stop_with_a_slow_generator(go, ends):
    e = Engine(movegens={"hw": lambda: SlowGen})
    e.say("position startpos", go)
    time.sleep(0.2)  # into the work (it holds wherever the stop lands)
    e.ready()
    seconds = e.timed("stop")
    e.expect(ends)
    # idle ~3 ms: the stop is seen at the next node or generation (2 ms here), not at the end
    # of the iteration or the root move (seconds at this generator's speed)
    assert seconds < 1.0
    e.close()


def test_a_generator_that_fails():
    e = Engine(movegens={"hw": FailingGen})
    e.say("position startpos moves d2d4")
    before = e.fen()
    e.say("go depth 4")
    assert e.expect("info string search failed: RuntimeError: link lost")
    assert legal_in(before, e.expect("bestmove")[0].split()[1])
    assert e.fen() == before  # the board is back at the root
    e.say("go perft 4")
    assert e.expect("info string perft failed: RuntimeError: link lost")
    assert e.fen() == before
    e.close(failures_expected=True)
