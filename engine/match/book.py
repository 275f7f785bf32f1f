"""Opening books of a match: where each pair of games starts.

A book is a text file, one opening per line; blank lines and lines starting with ``#`` are
skipped, and ``# name`` ends a line with the opening's name (default: its moves). A line is
either moves in UCI from the initial position (``e2e4 e7e5 g1f3 b8c6 # name``), or a position,
``FEN [moves UCI ...]`` (the FEN's 4 or 6 fields). Every move must be legal, the position it
reaches must have a legal move, and no two lines may reach the same position (pieces, side to
move, castling rights and a legal en passant square). A bad line is a BookError naming the file
and the line.

BOOK is the book that comes with posdata (openings.txt beside this module): 100 or more
well-known openings of 4 to 8 plies from the initial position, so a match of twice as many
games has a different start in every game.
"""

import os
from dataclasses import dataclass

from ..rules.board import Board
from ..rules.fen import FenError
from .judge import position_key

BOOK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "openings.txt")


class BookError(ValueError):
    """A book that cannot be read or a bad line in one: the message names the file (and line)."""


@dataclass(frozen=True)
class Opening:
    name: str
    moves: tuple[str, ...]  #: UCI, from ``fen``
    fen: str | None = None  #: the start position; None for the initial position

    def board(self) -> Board:
        """The start position, before the opening's moves."""
        return Board(self.fen)


def read_book(path: str = BOOK) -> list[Opening]:
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise BookError(f"cannot read {path}: {getattr(e, 'strerror', None) or e}") from None
    book, seen = [], {}
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("#") or not line.strip():
            continue
        where = f"{path}:{number}"
        opening, key = _read_line(line, where)
        if key in seen:
            raise BookError(f"{where}: reaches the same position as line {seen[key]}")
        seen[key] = number
        book.append(opening)
    if not book:
        raise BookError(f"{path}: no opening lines")
    return book


def _read_line(line: str, where: str) -> tuple[Opening, int]:
    body, _, name = line.partition("#")
    words = body.split()
    fen = None
    if "/" in words[0]:  # a position first
        end = words.index("moves") if "moves" in words else len(words)
        if end not in (4, 6):
            raise BookError(f"{where}: a FEN of 4 or 6 fields, then 'moves' and UCI moves, not "
                            f"{_quoted(body)}")
        fen = " ".join(words[:end] + (["0", "1"] if end == 4 else []))
        words = words[end + 1:]
    try:
        board = Board(fen)
    except FenError as e:
        raise BookError(f"{where}: {e}") from None
    for word in words:
        try:
            board.push_uci(word)
        except ValueError:
            raise BookError(f"{where}: {_quoted(word)} is not a legal move in {board.fen()}") \
                from None
    legal = board.legal_moves()
    if not legal:
        raise BookError(f"{where}: the game is over after it (no legal move)")
    moves = tuple(words)
    name = " ".join(name.split()) or " ".join(moves) or "start position"
    return Opening(name, moves, fen), position_key(board, legal)


def _quoted(text: str, limit: int = 60) -> str:
    text = text.strip()
    return repr(text) if len(text) <= limit else repr(text[:limit]) + "..."
