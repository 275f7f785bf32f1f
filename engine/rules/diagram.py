"""The board drawn as Stockfish's ``d`` command draws it: ranks 8 to 1 in a frame, the files
below, then the FEN, the position's hash and the squares of the pieces giving check. UCI's ``d``
prints it; any variant's letters (its FEN's)."""

from .board import Board
from .defs import EMPTY, NO_SQUARE, SQUARE_NAMES

RULE = " +---+---+---+---+---+---+---+---+"


def checkers(board: Board) -> list[int]:
    """The squares of the pieces that attack the side to move's king: the other side's
    pseudo-legal moves onto it (any variant's pieces, the generator's own walks)."""
    other = board.copy()
    other.side ^= 1
    other.ep = NO_SQUARE
    king = board.king[board.side]
    return sorted({m & 63 for m in other.moves() if (m >> 6) & 63 == king})


def diagram(board: Board) -> list[str]:
    lines = [RULE]
    for rank in range(7, -1, -1):
        cells = []
        for file in range(8):
            sq = rank * 8 + file
            cells.append(" " if board.color[sq] == EMPTY
                         else board.variant.letter(board.color[sq], board.piece[sq]))
        lines += [" | " + " | ".join(cells) + f" | {rank + 1}", RULE]
    lines += ["   a   b   c   d   e   f   g   h", "",
              f"Fen: {board.fen()}",
              f"Key: {board.hash:016X}",
              "Checkers: " + " ".join(SQUARE_NAMES[s] for s in checkers(board))]
    return lines
