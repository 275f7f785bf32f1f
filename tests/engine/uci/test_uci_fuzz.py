"""A seeded fuzz of the UCI engine: random lines from UCI's vocabulary (position, go with any
numbers, stop, ponderhit, setoption, ...) with mangled numbers, FENs, moves and bytes, read
through the engine's own input loop (``run``). The engine never raises, never reports an
internal error, and every search ``go`` ends in exactly one bestmove that python-chess finds
legal in the position of that go (``0000`` only where there is no legal move). The deeper
sweep, and one through ``posdata uci``'s real stdin, are marked slow."""

import random
import subprocess
import threading

import chess
import pytest

from posdata.engine.rules.chess960 import start_fen
from posdata.engine.rules.positions import STANDARD_POSITIONS
from posdata.engine.uci.protocol import UciEngine
from tests.engine.uci.test_uci import POSDATA_UCI_CMD, REPO
from tests.engine.uci.uci_inprocess import Output, legal_in

FENS = [p.fen for p in STANDARD_POSITIONS] + [
    "r5k1/5ppp/8/8/8/8/5PPP/6K1 b - - 0 1",  # mate in one
    "k7/1Q6/1K6/8/8/8/8/8 b - - 0 1",  # checkmated
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",  # stalemate
    "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
    start_fen(518), start_fen(0),
]
#: words that are no UCI command (the engine skips them and reads on)
NOISE = ["joho", "xyzzy", "name", "value", "moves", "fen", "startpos", "perft", "searchmoves",
         "\u00e9t\u00e9", "--", "0", "-1", "e2e4", "infinite", "wtime", "\u0663", "a" * 300]
INT_PARAMS = ["wtime", "btime", "winc", "binc", "movestogo", "depth", "nodes", "mate", "movetime"]


def number(rng: random.Random) -> str:
    """A value for one of go's integers: mostly sane, often not."""
    return rng.choice([
        str(rng.randrange(1, 40)), str(rng.randrange(1, 40)), str(rng.randrange(-100, 100)),
        "0", "-0", "+5", "9" * rng.choice([19, 20, 400, 5000]), "-" + "9" * 400,
        "nan", "inf", "-inf", "1e9", "1.5", "0x1f", "1_0", "\u0663\u0660", "", "depth",
        rng.choice(NOISE)])


def mangle_fen(rng: random.Random, fen: str) -> str:
    fields = fen.split()
    how = rng.randrange(9)
    if how == 0:
        del fields[rng.randrange(len(fields))]
    elif how == 1:
        fields[rng.randrange(4, 6)] = rng.choice(["9" * 5000, "-3", "x", "9" * 30])
    elif how == 2:
        board = list(fields[0])
        board[rng.randrange(len(board))] = rng.choice("pnbrqkPNBRQK123456789/x")
        fields[0] = "".join(board)
    elif how == 3:
        fields[0] = fields[0].replace(rng.choice("kK"), "1")
    elif how == 4:
        fields[1] = rng.choice(["x", "W", "b", "w"])
    elif how == 5:
        fields[2] = rng.choice(["KQkqKQ", "Z", "-", "HAha", "AHah", "Kk"])
    elif how == 6:
        fields[3] = rng.choice(["e9", "e3", "e6", "a1", "-", "h6"])
    elif how == 7:
        fen = " ".join(fields)
        return fen[:rng.randrange(len(fen))]
    else:
        fields.extend(rng.choice(NOISE) for _ in range(rng.randrange(1, 3)))
    return " ".join(fields)


def some_moves(rng: random.Random, fen: str | None) -> list[str]:
    """A few moves from ``fen``: legal ones (python-chess's), now and then a bad one."""
    try:
        board = chess.Board(fen) if fen else chess.Board()
    except ValueError:
        board = chess.Board()
    moves = []
    for _ in range(rng.randrange(0, 12)):
        legal = list(board.legal_moves)
        if not legal:
            break
        m = rng.choice(legal)
        moves.append(m.uci())
        board.push(m)
    if moves and rng.random() < 0.2:
        moves.insert(rng.randrange(len(moves)),
                     rng.choice(["e2e9", "a7a8x", "e1e3", "0000", "zz", "e2e4e5", "O-O"]))
    return moves


def position_line(rng: random.Random) -> str:
    if rng.random() < 0.3:
        fen, words = None, ["position", "startpos"]
    else:
        fen = rng.choice(FENS)
        words = ["position", "fen", mangle_fen(rng, fen) if rng.random() < 0.4 else fen]
    if rng.random() < 0.7:
        words += ["moves", *some_moves(rng, fen)]
    if rng.random() < 0.05:
        words = words[:rng.randrange(1, len(words) + 1)]
    return " ".join(words)


def go_line(rng: random.Random) -> str:
    if rng.random() < 0.12:
        depth = rng.choice(["1", "2", "2", "3", "5", "0", "13", "x", "9" * 400, ""])
        return f"go perft {depth}".strip()
    words = ["go"]
    for _ in range(rng.randrange(0, 5)):
        r = rng.random()
        if r < 0.6:
            name = rng.choice(INT_PARAMS)
            words += [name] if rng.random() < 0.05 else [name, number(rng)]
        elif r < 0.75:
            words.append(rng.choice(["infinite", "ponder"]))
        elif r < 0.85:
            words += ["searchmoves", *rng.choice([["e2e4", "d2d4"], ["a8a1"], ["zz", "e7e5"]])]
        else:
            words.append(rng.choice(NOISE))
    if rng.random() < 0.7 and not {"infinite", "ponder"} & set(words):
        words += ["depth", str(rng.randrange(1, 3))]  # most gos end by themselves, and soon
    return " ".join(words)


def other_line(rng: random.Random) -> str:
    return rng.choice([
        "stop", "stop", "ponderhit", "isready", "uci", "ucinewgame", "d", "debug on",
        "register later",
        "setoption name MoveGen value " + rng.choice(["sw", "hw", "fpga", ""]),
        "setoption name UCI_Chess960 value " + rng.choice(["true", "false", "maybe", ""]),
        "setoption name UCI_Variant value " + rng.choice(
            ["chess", "chess", "chess", "chess960", "fischerandom", "shogi", ""]),
        "setoption name Hash value 64", "setoption", "setoption name",
        " ".join(rng.choice(NOISE) for _ in range(rng.randrange(1, 4))),
    ])


def mangle_bytes(rng: random.Random, data: bytes) -> bytes:
    """Now and then, bytes a GUI should not send (never a newline: one line stays one)."""
    if rng.random() < 0.9 or not data:
        return data
    junk = bytes(rng.choice([0, 7, 9, 13, 27, 0x80, 0xC3, 0xFE, 0xFF, 0x1F]) for _ in range(3))
    i = rng.randrange(len(data) + 1)
    return data[:i] + junk + data[i:]


#: UCI's commands, and the engine's ``d``
COMMANDS = {"uci", "debug", "isready", "setoption", "register", "ucinewgame", "position", "go",
            "stop", "ponderhit", "quit", "d"}


def kind_of(data: bytes) -> str:
    """What the protocol makes of a line (its first word that is a command counts): "go" for a
    search, which owes a bestmove; "perft" for go perft; "other"."""
    words = data.decode("utf-8", "replace").split()
    for i, word in enumerate(words):
        if word in COMMANDS:
            if word != "go":
                return "other"
            return "perft" if words[i + 1:i + 2] == ["perft"] else "go"
    return "other"


def fuzz_lines(seed: int, count: int) -> list[tuple[str, bytes]]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        r = rng.random()
        if r < 0.3:
            line = position_line(rng)
        elif r < 0.6:
            line = go_line(rng)
        else:
            line = other_line(rng)
        if rng.random() < 0.05:
            line = rng.choice(NOISE[:5]) + " " + line  # unknown words first: the command is read
        data = mangle_bytes(rng, line.encode())
        out.append((kind_of(data), data))
    return out


class FuzzInput:
    """The fuzz lines as stdin for ``UciEngine.run``. Before handing out a line (on the command
    thread, between commands) it notes the engine's position when no search runs: a search's
    position is the one noted last before its go (every command that changes the board first
    stops the search)."""

    def __init__(self, engine: UciEngine, lines):
        self.engine, self.lines = engine, list(lines) + [("other", b"stop"),
                                                          ("other", b"isready")]
        self.position = None
        self.searches: list[tuple[str, bool]] = []  #: (FEN, chess960 notation) per search go

    def readline(self, size: int = -1) -> bytes:
        engine = self.engine
        if not engine.searching():
            self.position = (engine.board.fen(), engine.board.chess960_notation)
        if not self.lines:
            assert engine.wait(timeout=60)  # a hang guard: the last search stopped, ms idle
            return b""
        kind, data = self.lines.pop(0)
        assert len(data) < size
        if kind == "go":
            self.searches.append(self.position)
        return data + b"\n"


def run_fuzz(seed: int, count: int, monkeypatch) -> None:
    failures = []
    monkeypatch.setattr(threading, "excepthook", failures.append)
    out = Output()
    engine = UciEngine(out=out)
    stdin = FuzzInput(engine, fuzz_lines(seed, count))
    engine.run(stdin)  # raises nothing: the fuzz fails here if it does
    assert not failures, [f.exc_value for f in failures]
    lines = out.lines
    internal = [ln for ln in lines if ln.startswith(
        ("info string error in", "info string search failed", "info string perft failed"))]
    assert not internal, internal
    assert lines[-1] == "readyok"
    best = [ln.split()[1] for ln in lines if ln.startswith("bestmove")]
    assert len(best) == len(stdin.searches), (len(best), len(stdin.searches))
    for move, (fen, chess960) in zip(best, stdin.searches):
        assert legal_in(fen, move, chess960), (fen, move)
    # Still a working engine.
    engine.handle("position startpos")
    engine.handle("go depth 1")
    assert engine.wait(timeout=60)  # a hang guard: idle a few ms
    assert legal_in(chess.STARTING_FEN, out.lines[-1].split()[1], stdin.position[1])


@pytest.mark.parametrize("seed", [1, 2])
def test_fuzz(seed, monkeypatch):
    run_fuzz(seed, 250, monkeypatch)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(100, 120))
def test_fuzz_deeper(seed, monkeypatch):
    run_fuzz(seed, 1500, monkeypatch)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [7, 8])
def test_fuzz_posdata_uci_stdin(seed):
    """The same lines through the real stdin of ``posdata uci``: exit 0, nothing on stderr,
    one bestmove per search go."""
    lines = fuzz_lines(seed, 800)
    data = b"".join(d + b"\n" for _, d in lines) + b"stop\nisready\n"
    proc = subprocess.run(POSDATA_UCI_CMD, cwd=REPO, input=data, capture_output=True,
                          timeout=300)  # a hang guard: idle ~2 s
    assert proc.returncode == 0 and proc.stderr == b"", proc.stderr.decode(errors="replace")
    out = proc.stdout.decode().splitlines()
    assert sum(line.startswith("bestmove ") for line in out) == sum(
        kind == "go" for kind, _ in lines)
    assert "readyok" in out
