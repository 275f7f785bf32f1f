"""The tactical suite (EPD) bench/search_play.py reads, checked with python-chess as it is read.
A bad line is a ValueError naming the file and line. (The match's opening book is posdata's:
engine/match/book.py.)"""

import os
from dataclasses import dataclass

import chess

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
WAC = os.path.join(DATA, "wac.epd")


@dataclass(frozen=True)
class Problem:
    id: str
    fen: str
    best: frozenset[str]   #: bm, in UCI (empty when the line has only am)
    avoid: frozenset[str]  #: am, in UCI

    def solved_by(self, move: str | None) -> bool:
        """Solved: the move is one of bm (when given) and none of am."""
        if move is None or move in self.avoid:
            return False
        return not self.best or move in self.best


def _lines(path: str):
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise ValueError(f"cannot read {path}: {e.strerror}") from None
    for number, line in enumerate(text.splitlines(), 1):
        yield number, line


def read_suite(path: str = WAC) -> list[Problem]:
    """An EPD suite: each line a position with ``bm`` and/or ``am`` (SAN) and an ``id``."""
    suite = []
    for number, line in _lines(path):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            board, ops = chess.Board.from_epd(line)
        except ValueError as e:
            raise ValueError(f"{where}: {e}") from None
        if not board.is_valid():
            raise ValueError(f"{where}: not a legal position")
        best = frozenset(m.uci() for m in ops.get("bm", []))
        avoid = frozenset(m.uci() for m in ops.get("am", []))
        if not best and not avoid:
            raise ValueError(f"{where}: neither bm nor am")
        suite.append(Problem(str(ops.get("id", f"line {number}")), board.fen(), best, avoid))
    if not suite:
        raise ValueError(f"{path}: no positions")
    return suite
