"""Standard algebraic notation (SAN) of orthodox chess, written from the engine's board, for the
match's PGN.

A move is its piece's letter (none for a pawn), the from-square's file, rank or both when another
piece of that kind could also go to the square (file first, as PGN's export format asks), ``x``
for a capture (a pawn's from-file before it), the to-square, ``=Q`` for a promotion, and ``+``
or ``#`` for check or mate; castling is ``O-O`` or ``O-O-O``.
"""

from ..rules.board import Board
from ..rules.defs import CASTLE, EMPTY, EP, PAWN, SQUARE_NAMES

LETTERS = ".PNBRQK"  #: a piece code's SAN letter


def san(board: Board, m: int, legal: list[int]) -> str:
    """``m`` in SAN, without the check suffix (see ``suffix``): ``legal`` are the position's
    legal moves, ``m`` one of them."""
    frm, to = m & 63, (m >> 6) & 63
    if m & CASTLE:
        return "O-O" if board.castle_by_king_to[to].kingside else "O-O-O"
    piece = board.piece[frm]
    capture = board.color[to] != EMPTY or bool(m & EP)
    if piece == PAWN:
        text = (SQUARE_NAMES[frm][0] + "x" if capture else "") + SQUARE_NAMES[to]
        promo = m >> 18
        return text + ("=" + LETTERS[promo] if promo else "")
    rivals = [o & 63 for o in legal
              if o != m and not o & CASTLE and (o >> 6) & 63 == to and board.piece[o & 63] == piece]
    which = ""
    if rivals:
        if all(r & 7 != frm & 7 for r in rivals):
            which = SQUARE_NAMES[frm][0]
        elif all(r >> 3 != frm >> 3 for r in rivals):
            which = SQUARE_NAMES[frm][1]
        else:
            which = SQUARE_NAMES[frm]
    return LETTERS[piece] + which + ("x" if capture else "") + SQUARE_NAMES[to]


def suffix(board: Board, legal: list[int]) -> str:
    """The check suffix of the move that led to ``board`` (whose legal moves are ``legal``):
    ``#`` for mate, ``+`` for check, else nothing."""
    if not board.in_check():
        return ""
    return "+" if legal else "#"
