"""The arbiter of a game: plays the moves on the engine's own board and says when the game is
over, and why.

In this order, as python-chess's ``Board.outcome()`` and then its claimable draws order them:

* **checkmate**: no legal move, in check: the side to move loses;
* **insufficient material**: neither side can mate by any series of legal moves, by
  python-chess's rule: bare kings; a king and one knight against a king and queens at most
  (nothing to mate itself with); kings and bishops all on squares of one colour, with no pawn or
  knight on the board;
* **stalemate**: no legal move, not in check;
* **threefold** repetition: the position (pieces, side to move, castling rights, an en passant
  square only where an en passant capture is legal) stands on the board for the third time;
* **fifty moves**: 100 plies without a capture or a pawn move (checkmate on the 100th ply
  still wins);
* **ply cap**: the game has lasted ``ply_cap`` plies (the book's included) and is adjudicated
  on material: pawn 1, knight and bishop 3, rook 5, queen 9; a side MATERIAL_WIN (a minor
  piece) or more ahead wins, else it is a draw.

A repetition is counted on the position's Zobrist key (engine.rules.zobrist) with the en passant
square dropped when no en passant capture is legal: the key the board keeps has it after every
double step.
"""

from ..rules.board import Board
from ..rules.defs import BISHOP, BLACK, EMPTY, EP, KING, KNIGHT, NO_SQUARE, PAWN, QUEEN, ROOK, WHITE
from ..rules.zobrist import EP_KEYS

#: the pieces' values for the ply cap's adjudication
VALUES = {PAWN: 1, KNIGHT: 3, BISHOP: 3, ROOK: 5, QUEEN: 9}
MATERIAL_WIN = 3  #: at the ply cap, a minor piece ahead wins

WHITE_WINS, BLACK_WINS, DRAW = "1-0", "0-1", "1/2-1/2"
CHECKMATE, STALEMATE, INSUFFICIENT = "checkmate", "stalemate", "insufficient material"
THREEFOLD, FIFTY, PLY_CAP = "threefold", "fifty moves", "ply cap"


def position_key(board: Board, legal: list[int]) -> int:
    """The position's key for repetitions: the board's hash, its en passant square only where
    one of ``legal`` (the position's legal moves) takes en passant."""
    key = board.hash
    if board.ep != NO_SQUARE and not any(m & EP for m in legal):
        key ^= EP_KEYS[board.ep]
    return key


def material(board: Board, side: int) -> int:
    return sum(VALUES.get(board.piece[sq], 0) for sq in range(64) if board.color[sq] == side)


def insufficient_material(board: Board) -> bool:
    return all(_cannot_mate(board, side) for side in (WHITE, BLACK))


def _cannot_mate(board: Board, side: int) -> bool:
    """python-chess's ``has_insufficient_material``: ``side`` cannot mate, even helped."""
    mine = [board.piece[sq] for sq in range(64) if board.color[sq] == side]
    if any(p in (PAWN, ROOK, QUEEN) for p in mine):
        return False
    if KNIGHT in mine:
        # a lone knight, and nothing on the other side that could block its own king's escape
        # (a pawn, knight, bishop or rook would allow a helpmate; queens never do, by the rule)
        theirs = [board.piece[sq] for sq in range(64) if board.color[sq] == side ^ 1]
        return len(mine) <= 2 and all(p in (KING, QUEEN) for p in theirs)
    if BISHOP in mine:
        bishops = [sq for sq in range(64) if board.color[sq] != EMPTY
                   and board.piece[sq] == BISHOP]
        one_colour = len({_square_colour(sq) for sq in bishops}) == 1
        others = [board.piece[sq] for sq in range(64) if board.color[sq] != EMPTY]
        return one_colour and PAWN not in others and KNIGHT not in others
    return True


def _square_colour(sq: int) -> int:
    return ((sq >> 3) + (sq & 7)) & 1


class Judge:
    """A game in progress on ``board`` (moved on through ``push``): the legal moves of the
    position and the keys of every position so far."""

    def __init__(self, board: Board, ply_cap: int):
        self.board = board
        self.ply_cap = ply_cap
        self.plies = 0  #: moves played since the start position
        self.legal = board.legal_moves()
        self.keys = [position_key(board, self.legal)]

    def push(self, m: int) -> None:
        """Play ``m``, one of ``self.legal``."""
        board = self.board
        board.makemove(m)
        board.ply = 0  # a game's move, not a search's: the board's ply stack starts again
        board.first_move[0] = 0
        board.check_cache[0] = None
        self.plies += 1
        self.legal = board.legal_moves()
        self.keys.append(position_key(board, self.legal))

    def verdict(self) -> tuple[str, str] | None:
        """(result, reason) when the game is over, else None."""
        board = self.board
        if not self.legal and board.in_check():
            return (BLACK_WINS if board.side == WHITE else WHITE_WINS), CHECKMATE
        if insufficient_material(board):
            return DRAW, INSUFFICIENT
        if not self.legal:
            return DRAW, STALEMATE
        if self.keys.count(self.keys[-1]) >= 3:
            return DRAW, THREEFOLD
        if board.fifty >= 100:
            return DRAW, FIFTY
        if self.plies >= self.ply_cap:
            lead = material(board, WHITE) - material(board, BLACK)
            if lead >= MATERIAL_WIN:
                return WHITE_WINS, PLY_CAP
            if lead <= -MATERIAL_WIN:
                return BLACK_WINS, PLY_CAP
            return DRAW, PLY_CAP
        return None
