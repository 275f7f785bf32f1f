"""Where a generation's clocks went, measured on the gateware itself.

A traced generation (``PysimGenerator(trace=True)``) records per busy clock what the walker's
logic stage held (the piece's square, and whether it consumed its table entry or stalled on a
full FIFO) and the move taken from the stream, if any. ``account`` sums that per piece.

``table_entries`` counts the same walk entries from the engine's tables instead (the squares a
piece's posdata walk visits on this board): an independent figure the tests hold the gateware's
to.
"""

from dataclasses import dataclass, field
from typing import NamedTuple

from posdata.engine.rules.defs import CASTLE, EMPTY, PAWN, PIECE_LETTERS, SQUARE_NAMES
from posdata.engine.rules.variant_data import variant_data


class Clock(NamedTuple):
    """One busy clock of a generation."""
    piece: int | None    #: square of the piece in the walker's logic stage, None if none
    stepping: bool       #: ... and it consumed its table entry (False: stalled, or no piece)
    move: int | None     #: the move word taken from the stream in this clock


@dataclass
class PieceAccount:
    square: int
    piece: int
    color: int
    entries: int = 0     #: table entries its walk consumed (ROM port A)
    stalls: int = 0      #: logic-stage clocks in which its FIFO was full
    moves: int = 0       #: moves it produced (four per promoting entry; castling not counted)
    letter: str = ""     #: its FEN letter in the board's variant (default: orthodox)

    @property
    def cycles(self) -> int:
        """Clocks a walk context spent in the logic stage on it."""
        return self.entries + self.stalls

    @property
    def name(self) -> str:
        if self.letter:
            return self.letter + SQUARE_NAMES[self.square]
        letter = PIECE_LETTERS[self.piece]
        return (letter.upper() if self.color == 0 else letter) + SQUARE_NAMES[self.square]


@dataclass
class Account:
    cycles: int
    pieces: list[PieceAccount] = field(default_factory=list)
    castles: int = 0
    startup: int = 0     #: clocks before the first walk step
    idle: int = 0        #: clocks between the first and the last step with no piece stepping
    after: int = 0       #: clocks after the last step (castling, the merger's backlog, Drain)

    @property
    def walk_entries(self) -> int:
        return sum(p.entries for p in self.pieces)

    @property
    def stalls(self) -> int:
        return sum(p.stalls for p in self.pieces)

    @property
    def table_steps(self) -> int:
        """Entries visited, each piece's start entry (read ahead on ROM port B) included."""
        return self.walk_entries + len(self.pieces)


def account(board, trace: list[Clock]) -> Account:
    """The per-piece account of one traced generation of ``board``."""
    pieces = {sq: PieceAccount(sq, board.piece[sq], board.side,
                               letter=board.variant.letter(board.side, board.piece[sq]))
              for sq in range(64) if board.color[sq] == board.side}
    steps = [i for i, clock in enumerate(trace) if clock.stepping]
    result = Account(len(trace), list(pieces.values()))
    for clock in trace:
        if clock.piece is not None:
            p = pieces[clock.piece]
            if clock.stepping:
                p.entries += 1
            else:
                p.stalls += 1
        if clock.move is not None:
            if clock.move & CASTLE:
                result.castles += 1
            else:
                pieces[clock.move & 63].moves += 1
    if steps:
        result.startup = steps[0]
        result.after = len(trace) - 1 - steps[-1]
        result.idle = steps[-1] - steps[0] + 1 - len(steps) - result.stalls
    return result


def table_entries(board, frm: int) -> list[int]:
    """The squares the posdata walk of the piece on ``frm`` visits on ``board``, from the
    engine's tables: a pawn's pushes until blocked and then every capture square; any other
    piece follows nextpos past empty squares and nextdir past occupied ones."""
    data = variant_data(board.variant)  # rows by piece code, per side (the board's variant)
    row = board.piece[frm] * 64 + frm
    npos, ndir = data.pos_rows[board.side][row], data.dir_rows[board.side][row]
    empty = [c == EMPTY for c in board.color]
    seen = []
    if board.piece[frm] == PAWN:
        u = npos[frm]
        while u != frm:
            seen.append(u)
            if not empty[u]:
                break
            u = npos[u]
        u = ndir[frm]
        while u != frm:
            seen.append(u)
            u = ndir[u]
        return seen
    u = npos[frm]
    while u != frm:
        seen.append(u)
        u = npos[u] if empty[u] else ndir[u]
    return seen
