"""The files bench/search_play.py reads: its opening book and its tactical suite (EPD), checked
with python-chess as they are read. A bad line is a ValueError naming the file and line."""

import os
from dataclasses import dataclass

import chess

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
BOOK = os.path.join(DATA, "openings.txt")
WAC = os.path.join(DATA, "wac.epd")
MIN_PLIES, MAX_PLIES = 4, 8  #: an opening line's length


@dataclass(frozen=True)
class Opening:
    name: str
    moves: tuple[str, ...]  #: UCI, from the initial position


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


def read_book(path: str = BOOK) -> list[Opening]:
    """``moves # name`` per line; blank lines and ``#`` lines skipped. Each line must be legal
    from the initial position and 4 to 8 plies long; no two may reach the same position."""
    book, seen = [], {}
    for number, line in _lines(path):
        body, _, name = line.partition("#")
        words = body.split()
        if not words:
            continue
        where = f"{path}:{number}"
        if not MIN_PLIES <= len(words) <= MAX_PLIES:
            raise ValueError(f"{where}: {len(words)} plies, not {MIN_PLIES} to {MAX_PLIES}")
        board = chess.Board()
        for word in words:
            try:
                board.push_uci(word)
            except ValueError:
                raise ValueError(f"{where}: {word!r} is not a legal move in {board.fen()}") \
                    from None
        key = board.epd()
        if key in seen:
            raise ValueError(f"{where}: the same position as line {seen[key]}")
        seen[key] = number
        book.append(Opening(name.strip() or " ".join(words), tuple(words)))
    if not book:
        raise ValueError(f"{path}: no opening lines")
    return book


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
