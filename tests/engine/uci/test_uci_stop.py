"""Long work does not hold the engine: during ``go perft 6`` and long searches, ``stop``,
``isready``, ``quit`` and the end of input are answered within a second (the real ``posdata uci``
in a subprocess for quit and the end of input), a stopped perft says so and prints no total, and
every search ``go`` ends in exactly one legal bestmove, ``go ponder`` included.

Timing: idle, each of these answers takes a millisecond or a few (the work looks at the stop
every generation or every 256 nodes); the second they are held to is far above that on a busy
machine, and below what the defect takes: an engine that saw the stop only between iterations
or root moves answers a second or more later, one that ignored it never (the hang guard). A
search is stopped once its info lines show depth 5 under way (an event, not a wait); a perft 6
prints nothing for seconds, so its stop comes 0.2 s in: it holds wherever it lands."""

import subprocess
import time

import chess
import pytest

from tests.engine.uci.test_uci import POSDATA_UCI_CMD, REPO
from tests.engine.uci.uci_inprocess import Engine, legal_in
from tests.hang_guard import guarded

#: Stockfish's ``go perft 5`` from the initial position (the published divide; total 4,865,609)
DIVIDE_5 = {
    "a2a3": 181046, "b2b3": 215255, "c2c3": 222861, "d2d3": 328511, "e2e3": 402988,
    "f2f3": 178889, "g2g3": 217210, "h2h3": 181044, "a2a4": 217832, "b2b4": 216145,
    "c2c4": 240082, "d2d4": 361790, "e2e4": 405385, "f2f4": 198473, "g2g4": 214048,
    "h2h4": 218829, "b1a3": 198572, "b1c3": 234656, "g1f3": 233491, "g1h3": 198502,
}
BIG = "9" * 400


@pytest.fixture
def engine():
    e = Engine()
    yield e
    e.close()


def perft_oracle(board: chess.Board, depth: int) -> int:
    if depth == 1:
        return board.legal_moves.count()
    total = 0
    for m in list(board.legal_moves):
        board.push(m)
        total += perft_oracle(board, depth - 1)
        board.pop()
    return total


def test_stop_during_go_perft_6(engine):
    assert sum(DIVIDE_5.values()) == 4865609
    engine.say("position startpos", "go perft 6")
    time.sleep(0.2)  # into the count (it holds wherever the stop lands)
    engine.ready()
    seconds = engine.timed("stop")
    engine.expect("info string perft stopped")
    assert seconds < 1.0  # idle ~1 ms; a stop seen between root moves: ~6 s (perft 5 of one)
    assert not any(line.startswith("Nodes searched") for line in engine.lines)
    assert engine.fen() == chess.STARTING_FEN  # the board is back where it was
    engine.say("go perft 2")
    want = perft_oracle(chess.Board(), 2)
    assert engine.expect("Nodes searched: ")[0] == f"Nodes searched: {want}"


def test_a_stopped_perft_prints_the_moves_it_counted(engine):
    engine.say("go perft 5")
    # the first root move is counted (idle ~0.1 s; the timeout is a hang guard)
    engine.expect(lambda line: ": " in line, timeout=60)
    seconds = engine.timed("stop")
    line, _ = engine.expect("info string perft stopped after ")
    assert seconds < 1.0  # idle ~1 ms
    counted = [ln.split(": ") for ln in engine.lines if ": " in ln and not ln.startswith("info")]
    assert counted and len(counted) < len(DIVIDE_5), counted
    assert all(int(n) == DIVIDE_5[m] for m, n in counted), counted
    assert line.endswith(f"after {len(counted)} of {len(DIVIDE_5)} root moves")
    assert not any(ln.startswith("Nodes searched") for ln in engine.lines)


@pytest.mark.parametrize("go", ["go infinite", "go depth 9999", f"go movetime {BIG}",
                                f"go wtime {BIG} btime {BIG}", "go ponder", "go"],
                         ids=lambda go: go[:20])
def test_stop_ends_a_long_search_with_one_bestmove(engine, go):
    engine.say("position startpos moves e2e4", go)
    engine.expect("info depth 4")  # the search is under way: depth 5 ends ~1.1 s later
    engine.ready()
    seconds = engine.timed("stop")
    line, _ = engine.expect("bestmove")
    assert seconds < 1.0  # idle ~1 ms; a stop seen only between iterations: ~1.1 s
    board = chess.Board()
    board.push_uci("e2e4")
    assert legal_in(board.fen(), line.split()[1]), line
    engine.say("stop", "isready")
    engine.expect("readyok")
    assert sum(ln.startswith("bestmove") for ln in engine.lines) == 1


def test_ponderhit_goes_on_on_the_clock(engine):
    engine.say("position startpos", "go ponder movetime 400")
    engine.no_line("bestmove", 0.4)  # pondering: no bestmove, however long
    engine.say("ponderhit")
    line, seconds = engine.expect("bestmove")
    # The movetime counts from the ponderhit: counted from the go, the 0.4 s spent pondering
    # would have used it up. Idle the bestmove comes ~0.38 s after (a timer's stop, as
    # punctual under load); the upper bound, ten times that, catches a search the ponderhit
    # left on no clock (it would never end) or on a far longer one.
    assert 0.2 < seconds < 4.0
    assert legal_in(chess.STARTING_FEN, line.split()[1])


def test_ponderhit_without_a_clock_wants_the_move_now(engine):
    engine.say("position startpos", "go ponder")
    engine.expect("info depth 4")  # pondering under way
    seconds = engine.timed("ponderhit")
    line, _ = engine.expect("bestmove")
    assert seconds < 1.0 and legal_in(chess.STARTING_FEN, line.split()[1])  # idle ~1 ms


def test_ponderhit_does_not_end_an_infinite_search(engine):
    engine.say("position startpos", "go infinite", "ponderhit")
    engine.no_line("bestmove", 0.3)
    engine.say("stop")
    assert legal_in(chess.STARTING_FEN, engine.expect("bestmove")[0].split()[1])


def run_posdata_uci(commands: list[str], end: str) -> tuple[float, subprocess.Popen, bytes]:
    """The real ``posdata uci``: ``commands``, a readyok (the go has started), then ``quit``
    or the end of input. Returns the seconds from then to the process's exit."""
    proc = subprocess.Popen(POSDATA_UCI_CMD, cwd=REPO, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        proc.stdin.write("".join(c + "\n" for c in commands + ["isready"]).encode())
        proc.stdin.flush()
        def until_readyok() -> bytes:
            out = b""
            while b"readyok" not in out and (line := proc.stdout.readline()):
                out += line
            return out
        # a hang guard: idle posdata uci starts and answers in ~0.15 s
        out = guarded(until_readyok, 30, "posdata uci's readyok")
        assert b"readyok" in out, out
        time.sleep(0.2)  # well into the count or the search (it holds wherever the end lands)
        start = time.monotonic()
        if end == "quit":
            proc.stdin.write(b"quit\n")
        proc.stdin.close()
        proc.wait(timeout=60)  # a hang guard: idle the engine exits within ~0.07 s
        seconds = time.monotonic() - start
        proc.stdout.read()
        return seconds, proc, proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize("go", ["go perft 6", "go infinite"])
@pytest.mark.parametrize("end", ["quit", "eof"])
def test_quit_and_end_of_input_end_posdata_uci_at_once(go, end):
    seconds, proc, err = run_posdata_uci(["position startpos", go], end)
    assert proc.returncode == 0 and err == b"", err
    # idle ~0.07 s, as under load; the engine gives its worker at most QUIT_WAIT_S (0.5 s): one
    # that waited for the count or the search would exit after minutes, or never (the guard)
    assert seconds < 1.0, f"{end} during {go}: exit after {seconds:.2f} s"
