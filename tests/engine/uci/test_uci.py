"""The UCI engine as a GUI sees it: a subprocess (``python -m posdata.engine``) on pipes, driven
line and by python-chess's ``chess.engine``. Every wait has a timeout, and every process is
killed at the end of its test, so a hung engine fails a test instead of hanging the run. The
timeouts are hang guards: idle, every line waited for comes within milliseconds of its cause,
or within the search's own limit (at most 0.3 s here); a guard is ten times that or more."""

import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import chess
import chess.engine
import pytest

from posdata.engine.rules.board import Board
from posdata.engine.uci.go import limits_for, parse_go
from posdata.engine.uci.protocol import FALLBACK_MOVETIME_MS, MOVE_OVERHEAD_MS

REPO = Path(__file__).resolve().parents[2]
ENGINE_CMD = [sys.executable, "-m", "posdata.engine"]  #: the engine alone: software generator
POSDATA_UCI_CMD = [sys.executable, "-m", "posdata.sim", "uci"]  #: with the gateware's generators


class UciProcess:
    """The engine on pipes. ``expect`` waits (bounded) for a line starting with a prefix."""

    def __init__(self, command=ENGINE_CMD):
        self.stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(command, cwd=REPO, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.stderr)
        self.lines: queue.Queue = queue.Queue()
        self.log: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for raw in self.proc.stdout:
            self.lines.put(raw.decode("utf-8", "replace").rstrip("\r\n"))
        self.lines.put(None)

    def send(self, text):
        data = text if isinstance(text, bytes) else text.encode()
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()

    def expect(self, prefix: str, timeout: float = 10.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            try:
                line = self.lines.get(timeout=max(left, 0))
            except queue.Empty:
                raise AssertionError(f"no {prefix!r} within {timeout} s; got {self.log}") from None
            if line is None:
                raise AssertionError(f"engine exited waiting for {prefix!r}; got {self.log}"
                                     f"; stderr {self.error_text()!r}")
            self.log.append(line)
            if line.startswith(prefix):
                return line

    def no_line(self, prefix: str, wait: float) -> None:
        """Nothing starting with ``prefix`` arrives within ``wait`` seconds."""
        deadline = time.monotonic() + wait
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                return
            assert line is not None, "engine exited"
            self.log.append(line)
            assert not line.startswith(prefix), f"unexpected {line!r}"

    def ready(self, timeout: float = 10.0) -> float:
        """The seconds from isready to readyok (``timeout`` is a hang guard)."""
        start = time.monotonic()
        self.send("isready")
        self.expect("readyok", timeout)
        return time.monotonic() - start

    def error_text(self) -> str:
        self.stderr.seek(0)
        return self.stderr.read().decode("utf-8", "replace")

    def close(self) -> int | None:
        try:
            if self.proc.poll() is None:
                self.send("quit")
            return self.proc.wait(timeout=60)  # a hang guard: idle the engine exits in ~0.05 s
        except (subprocess.TimeoutExpired, BrokenPipeError, OSError):
            return None
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            self.stderr.close()


@pytest.fixture
def uci():
    engine = UciProcess()
    try:
        yield engine
        assert "Traceback" not in engine.error_text(), engine.error_text()
    finally:
        engine.close()


def bestmove(line: str) -> str:
    assert line.startswith("bestmove "), line
    return line.split()[1]


def assert_legal(fen: str, move: str, moves=()) -> None:
    board = chess.Board(fen)
    for m in moves:
        board.push_uci(m)
    assert chess.Move.from_uci(move) in board.legal_moves, (board.fen(), move)


# --- protocol, on pipes -----------------------------------------------------------------------

def test_handshake(uci):
    uci.send("uci")
    uci.expect("uciok")
    assert "id name posdata" in uci.log
    assert any(line.startswith("id author ") for line in uci.log)
    assert "option name Backend type combo default tscp var tscp var sw" in uci.log
    assert not any("MoveGen" in line for line in uci.log)  # the older name: not offered
    uci.ready()


def test_posdata_uci_offers_the_gateware():
    uci = UciProcess(POSDATA_UCI_CMD)
    try:
        uci.send("uci")
        uci.expect("uciok")
        assert any(line.startswith("option name Backend type combo default tscp var tscp "
                                   "var gen ") for line in uci.log), uci.log
    finally:
        uci.close()


def test_go_depth(uci):
    moves = ["e2e4", "e7e5", "g1f3"]
    uci.send("position startpos moves " + " ".join(moves))
    uci.send("go depth 3")
    move = bestmove(uci.expect("bestmove"))
    assert_legal(chess.STARTING_FEN, move, moves)
    infos = [line.split() for line in uci.log if line.startswith("info depth")]
    assert [int(words[2]) for words in infos] == [1, 2, 3]
    for words in infos:
        for key in ("seldepth", "score", "nodes", "nps", "time", "pv"):
            assert key in words, words
        assert words[words.index("score") + 1] in ("cp", "mate")
    assert infos[-1][infos[-1].index("pv") + 1] == move


def test_isready_and_stop_while_searching(uci):
    uci.send("position startpos")
    uci.send("go infinite")
    uci.expect("info depth 4")  # the search is under way: depth 5 takes it ~2 s more
    # idle ~7 ms (as under load): the command thread answers at once. An engine that read
    # commands between iterations would answer when depth 5 ends; one that waited for the
    # search, never (the guard).
    assert uci.ready() < 1.0
    assert not any(line.startswith("bestmove") for line in uci.log)
    uci.send("stop")
    assert_legal(chess.STARTING_FEN, bestmove(uci.expect("bestmove")))


def test_stop_at_once(uci):
    uci.send("position startpos moves d2d4")
    uci.send("go infinite")
    uci.send("stop")
    assert_legal(chess.STARTING_FEN, bestmove(uci.expect("bestmove")), ["d2d4"])


def test_infinite_waits_for_stop_even_after_a_mate(uci):
    uci.send("position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")
    uci.send("go infinite")
    uci.no_line("bestmove", 0.5)
    uci.send("stop")
    assert bestmove(uci.expect("bestmove")) == "a1a8"
    assert any("score mate 1" in line for line in uci.log)


def iteration_ms(log: list[str]) -> list[int]:
    """The time each completed iteration's info line reports (the engine's own clock)."""
    return [int(words[words.index("time") + 1]) for words in map(str.split, log)
            if words[:2] == ["info", "depth"]]


def test_movetime(uci):
    uci.send("position startpos")
    uci.ready()
    start = time.monotonic()
    uci.send("go movetime 300")
    assert_legal(chess.STARTING_FEN, bestmove(uci.expect("bestmove")))
    # It searched its time (idle the bestmove comes at ~0.28 s: the movetime less the overhead
    # kept for the GUI), and the clock, not the end of an iteration, stopped it: no iteration
    # completed past the movetime by the engine's own clock. A clock taken as a soft limit
    # would finish the iteration under way (depth 5, ~2 s in); one ignored, never (the guard).
    assert 0.2 < time.monotonic() - start
    assert max(iteration_ms(uci.log)) <= 300, uci.log


def test_clock(uci):
    uci.send("position startpos moves e2e4")
    uci.ready()
    start = time.monotonic()
    uci.send("go wtime 1000 btime 1000 winc 0 binc 0")
    assert_legal(chess.STARTING_FEN, bestmove(uci.expect("bestmove")), ["e2e4"])
    # Never more than half the clock, by the engine's own clock and the GUI's: idle it moves in
    # ~0.04 s (its share of the clock; as punctual under load: the engine's clock is the wall's).
    # An engine that spent the whole clock (or ignored it: the guard) would lose on time.
    assert max(iteration_ms(uci.log)) <= 500, uci.log
    assert time.monotonic() - start < 1.0


def test_nodes(uci):
    uci.send("position startpos")
    uci.send("go nodes 300")
    assert_legal(chess.STARTING_FEN, bestmove(uci.expect("bestmove")))
    for line in uci.log:
        if line.startswith("info depth"):
            words = line.split()
            assert int(words[words.index("nodes") + 1]) <= 300


@pytest.mark.parametrize("fen, info", [
    ("k7/1Q6/1K6/8/8/8/8/8 b - - 0 1", "info depth 0 score mate 0"),
    ("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", "info depth 0 score cp 0"),
])
def test_no_legal_move(uci, fen, info):
    uci.send(f"position fen {fen}")
    uci.send("go depth 3")
    assert uci.expect("bestmove") == "bestmove 0000"
    assert info in uci.log


def test_mate_score(uci):
    uci.send("position fen k7/8/2K5/8/8/8/8/7R w - - 0 1")
    uci.send("go depth 5")
    uci.expect("bestmove")
    assert "score mate 2" in [line for line in uci.log if line.startswith("info depth")][-1]


def test_go_mate(uci):
    uci.send("position fen k7/8/2K5/8/8/8/8/7R w - - 0 1")
    uci.send("go mate 2")
    uci.expect("bestmove")
    last = [line.split() for line in uci.log if line.startswith("info depth")][-1]
    assert last[1:3] == ["depth", "3"] and "mate 2" in " ".join(last)


def test_searchmoves(uci):
    uci.send("position startpos")
    uci.send("go depth 2 searchmoves a2a3 h2h3")
    assert bestmove(uci.expect("bestmove")) in ("a2a3", "h2h3")


def fen_of(uci) -> str:
    uci.send("d")
    return uci.expect("Fen: ").removeprefix("Fen: ")


def test_position_moves(uci):
    uci.send("position startpos moves e2e4 c7c5 g1f3")
    assert fen_of(uci) == "rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"
    uci.send("position fen 4k3/8/8/8/8/8/8/4K2R w K - 0 1 moves e1g1")
    assert fen_of(uci) == "4k3/8/8/8/8/8/8/5RK1 b - - 1 1"


def test_bad_fen_keeps_the_position(uci):
    uci.send("position startpos moves e2e4")
    before = fen_of(uci)
    uci.send("position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1")
    assert "bad FEN" in uci.expect("info string position:")
    assert fen_of(uci) == before
    uci.send("position fen 4k3/8/8/8/1b5b/8/3n4/r3K2r w - - 0 1")  # three checks
    assert "impossible position: 3 pieces give check" in uci.expect("info string position:")
    assert fen_of(uci) == before


def test_illegal_move_stops_the_move_list(uci):
    uci.send("position startpos moves e2e4 e7e5 e1e3 g1f3")
    assert "illegal move 'e1e3'" in uci.expect("info string position:")
    assert fen_of(uci) == "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2"


MALFORMED = [
    b"",
    b"   ",
    b"hello engine",
    b"\xff\xfe\x00\x07 not utf-8 \x80\x1b[2J",
    b"go depth",  # no value
    b"go depth abc",
    b"go depth -3",
    b"go nodes 0",
    b"go movetime soon",
    b"go wtime x btime y",
    b"go movestogo 0 wtime 100 btime 100",
    b"go searchmoves z9z9 depth 1",
    b"go frobnicate 12 depth 1",
    b"position",
    b"position fen",
    b"position fen 8/8/8/8 w - - 0 1",
    b"position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - zero 1",
    b"position fen 8/8/8/8/8/8/8/8 w - - 0 1",  # no kings
    b"position fen 4k3/8/8/8/8/8/8/4K2R w K e3 0 1",  # impossible en passant square
    b"position startpos moves e2e4 e2e4",
    b"position startpos moves",
    b"position sideways",
    b"setoption",
    b"setoption name",
    b"setoption name Hash value 64",
    b"setoption name MoveGen value fpga",
    b"setoption name MoveGen value hw",
    b"debug on",
    b"register later",
    b"ponderhit",
    b"stop",
    b"uci " + b"x" * 10000,
]


def test_malformed_input_keeps_the_engine_alive(uci):
    for line in MALFORMED:
        uci.send(line)
        if line.startswith(b"go"):
            uci.send("stop")  # a go that fell back to a time limit or infinite ends here
            move = bestmove(uci.expect("bestmove"))
            assert move == "0000" or len(move) in (4, 5)
        # "MoveGen hw" loads the compiled model, which a cold cache first has to build: the hang
        # guard is longer there
        uci.ready(timeout=180 if b"MoveGen value hw" in line else 10)
    # Still a working engine afterwards, on the last good position ("position startpos
    # moves" with no moves; "position sideways" left it unchanged).
    uci.send("go depth 2")
    assert_legal(chess.STARTING_FEN, bestmove(uci.expect("bestmove")))


def test_garbage_is_echoed_printable(uci):
    uci.send(b"\xff\x00\x07\x1b[2J zap")
    line = uci.expect("info string")
    assert line.isprintable() and line.endswith("zap"), repr(line)


def test_malformed_go_is_reported(uci):
    uci.send("go depth abc")
    assert "depth needs an integer" in uci.expect("info string go:")
    assert f"searching {FALLBACK_MOVETIME_MS} ms" in uci.expect("info string go:")
    uci.send("stop")
    uci.expect("bestmove")


def test_setoption_movegen(uci):
    """MoveGen, no longer offered, still works and names Backend."""
    uci.send("setoption name MoveGen value sw")
    assert "MoveGen is the older name of Backend" in uci.expect("info string")
    uci.ready()
    uci.send("setoption name MoveGen value fpga")
    uci.expect("info string setoption: MoveGen is the older name")
    assert "must be one of sw, not 'fpga'" in uci.expect("info string")
    uci.send("setoption name MoveGen value hw")  # the bare engine has no gateware generator
    assert "must be one of sw, not 'hw'" in uci.expect("info string setoption: MoveGen must")
    uci.send("go depth 1")
    uci.expect("bestmove")


def test_quit_while_searching(uci):
    uci.send("go infinite")
    uci.expect("info depth 3")  # the search is under way
    uci.send("quit")
    assert uci.proc.wait(timeout=60) == 0  # a hang guard: idle ~0.2 s


def test_end_of_input_ends_the_engine(uci):
    uci.send("go infinite")
    uci.proc.stdin.close()
    assert uci.proc.wait(timeout=60) == 0  # a hang guard: idle ~0.04 s


# --- the same engine in-process: time allocation ---------------------------------------------

def make_limits(command: str, side: str = "w"):
    board = Board(f"4k3/8/8/8/8/8/8/4K3 {side} - - 0 1")
    go = parse_go(command.split()[1:], board.parse_uci)
    return limits_for(go.params, go.flags, side == "w"), go.malformed


def test_clock_allocation():
    limits, _ = make_limits("go wtime 60000 btime 1000 movestogo 20")
    assert limits.soft_time_ms == 1500 and limits.time_ms == 6000 - MOVE_OVERHEAD_MS
    limits, _ = make_limits("go wtime 60000 btime 1000 winc 0 binc 400", side="b")
    assert limits.time_ms <= 500  # never more than half of what is left
    limits, _ = make_limits("go wtime -50 btime 1000")  # flag fallen: still a sane limit
    assert limits.time_ms > 0
    limits, _ = make_limits("go movetime 500 depth 7 nodes 100")
    assert (limits.time_ms, limits.depth, limits.nodes) == (500 - MOVE_OVERHEAD_MS, 7, 100)
    limits, _ = make_limits("go infinite wtime 1000")
    assert limits.infinite and limits.time_ms is None
    _, malformed = make_limits("go depth 1x")
    assert malformed


# --- python-chess as the GUI -----------------------------------------------------------------

@pytest.fixture
def popen_engine():
    # timeout: python-chess's hang guard on each command but play (idle: ~0.2 s the handshake)
    engine = chess.engine.SimpleEngine.popen_uci(ENGINE_CMD, cwd=REPO, timeout=60)
    try:
        yield engine
    finally:
        try:
            engine.quit()
        except Exception:  # noqa: BLE001  (already gone: close() below is what matters)
            pass
        engine.close()


def play(engine, board, limit, plies, other=None) -> None:
    """Alternate engine moves with ``other(board)`` moves (or the engine again)."""
    for ply in range(plies):
        if board.is_game_over(claim_draw=True):
            return
        if ply % 2 == 0 or other is None:
            result = engine.play(board, limit)
            assert result.move in board.legal_moves, (board.fen(), result.move)
            board.push(result.move)
        else:
            board.push(other(board))


def test_python_chess_plays_a_random_mover(popen_engine):
    import random
    rng = random.Random(6)
    board = chess.Board()
    play(popen_engine, board, chess.engine.Limit(time=0.05), 24,
         other=lambda b: rng.choice(list(b.legal_moves)))
    assert len(board.move_stack) >= 10


def test_python_chess_self_play_on_a_clock(popen_engine):
    """Each side's clock, as the GUI keeps it (the engine's time plus the GUI's), never falls:
    idle a side uses ~0.6 s of its 2 s in these 8 moves (its share of what is left each move,
    a wall-clock deadline: as punctual under load); one that ignored the clock would lose on
    time, or never move (python-chess's guard below)."""
    board = chess.Board()
    clock = {chess.WHITE: 2.0, chess.BLACK: 2.0}
    for _ in range(16):
        if board.is_game_over(claim_draw=True):
            break
        limit = chess.engine.Limit(white_clock=clock[chess.WHITE], black_clock=clock[chess.BLACK],
                                   white_inc=0.02, black_inc=0.02)
        t = time.monotonic()
        result = popen_engine.play(board, limit)
        clock[board.turn] -= time.monotonic() - t - 0.02
        assert clock[board.turn] > 0, "lost on time"
        assert result.move in board.legal_moves
        board.push(result.move)


def test_python_chess_analyse_and_configure(popen_engine):
    popen_engine.configure({"Backend": "tscp"})
    info = popen_engine.analyse(chess.Board("k7/8/2K5/8/8/8/8/7R w - - 0 1"),
                                chess.engine.Limit(depth=3))
    assert info["score"].relative == chess.engine.Mate(2)
    assert info["pv"][0] in chess.Board("k7/8/2K5/8/8/8/8/7R w - - 0 1").legal_moves


@pytest.mark.slow
def test_python_chess_full_games(popen_engine):
    import random
    for seed in range(2):
        rng = random.Random(seed)
        board = chess.Board()
        for _ in range(rng.randrange(0, 6)):  # a few random opening moves: different games
            board.push(rng.choice(list(board.legal_moves)))
        play(popen_engine, board, chess.engine.Limit(time=0.1), 300)
        assert board.is_game_over(claim_draw=True) or len(board.move_stack) >= 300


def test_posdata_uci_command():
    proc = subprocess.run(POSDATA_UCI_CMD, cwd=REPO, timeout=60,  # a hang guard: idle ~0.15 s
                          input=b"uci\nposition startpos moves e2e4\ngo depth 1\nquit\n",
                          capture_output=True)
    out = proc.stdout.decode()
    assert proc.returncode == 0, proc.stderr.decode()
    assert "uciok" in out and "bestmove " in out, out


def test_engine_command_runs_from_elsewhere():
    # `python -m posdata.engine` needs no working directory of the repo (installed editable).
    proc = subprocess.run(ENGINE_CMD, input=b"uci\nquit\n", capture_output=True,
                          timeout=60,  # a hang guard: idle ~0.1 s
                          cwd=tempfile.gettempdir(), env={**os.environ})
    assert proc.returncode == 0 and b"uciok" in proc.stdout
