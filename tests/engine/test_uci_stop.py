"""Long work does not hold the engine: during ``go perft 6`` and long searches, ``stop``,
``isready``, ``quit`` and the end of input are answered within a second (the real ``posdata uci``
in a subprocess for quit and the end of input), a stopped perft says so and prints no total, and
every search ``go`` ends in exactly one legal bestmove, ``go ponder`` included."""

import subprocess
import time

import chess
import pytest

from tests.engine.test_uci import POSDATA_UCI_CMD, REPO
from tests.engine.uci_inprocess import Engine, legal_in

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
    time.sleep(0.2)
    engine.ready()
    engine.say("stop")
    _, seconds = engine.expect("info string perft stopped", timeout=5)
    assert seconds < 1.0
    assert not any(line.startswith("Nodes searched") for line in engine.lines)
    assert engine.fen() == chess.STARTING_FEN  # the board is back where it was
    engine.say("go perft 2")
    want = perft_oracle(chess.Board(), 2)
    assert engine.expect("Nodes searched: ")[0] == f"Nodes searched: {want}"


def test_a_stopped_perft_prints_the_moves_it_counted(engine):
    engine.say("go perft 5")
    engine.expect(lambda line: ": " in line, timeout=20)  # the first root move is counted
    time.sleep(0.05)
    engine.say("stop")
    line, seconds = engine.expect("info string perft stopped after ", timeout=5)
    assert seconds < 1.0
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
    time.sleep(0.2)
    engine.ready()
    engine.say("stop")
    line, seconds = engine.expect("bestmove", timeout=5)
    assert seconds < 1.0
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
    line, seconds = engine.expect("bestmove", timeout=5)
    assert 0.2 < seconds < 1.5  # the movetime counts from the ponderhit
    assert legal_in(chess.STARTING_FEN, line.split()[1])


def test_ponderhit_without_a_clock_wants_the_move_now(engine):
    engine.say("position startpos", "go ponder")
    time.sleep(0.1)
    engine.say("ponderhit")
    line, seconds = engine.expect("bestmove", timeout=5)
    assert seconds < 1.0 and legal_in(chess.STARTING_FEN, line.split()[1])


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
        out = b""
        deadline = time.monotonic() + 30
        while b"readyok" not in out and time.monotonic() < deadline:
            out += proc.stdout.readline()
        assert b"readyok" in out, out
        time.sleep(0.2)  # well into the count or the search
        start = time.monotonic()
        if end == "quit":
            proc.stdin.write(b"quit\n")
        proc.stdin.close()
        proc.wait(timeout=10)
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
    assert seconds < 1.0, f"{end} during {go}: exit after {seconds:.2f} s"
