"""The reference move generator: Sandström's posdata walk over TSCP's move stack.

``gen(board)`` fills ``board.gen_dat[first_move[ply]:]`` with every pseudo-legal move of the side to
move, in the generation order documented in ``engine.rules.defs``, and sets ``first_move[ply + 1]``.
``gen_caps(board)`` does the same for the moves a quiescence search wants (captures, en passant and
promotions): exactly the subsequence of ``gen`` that carries CAPTURE or PROMOTION.

This is the model the gateware is held to, move for move and in order. The walk is the same in
every variant: the board's variant supplies the tables (per side, by piece code), the promotion
pieces of each side in order, and the castlings its position allows (``board.castles``).

A piece with modes (``engine.rules.pieces``: hoppers, lame leapers, divergent, asymmetric pieces, a
pawn in the notation) walks its entries instead (``VariantData.walks``): Sandström's rule
generalised once. An entry on an empty square emits a quiet move if its mode has QUIET (a pawn's: a
double step if DOUBLE, an en passant capture on the en passant square if EN_PASSANT) and goes on to
its on-empty successor; on an occupied square it emits a capture if the square holds an enemy and
its mode has CAPTURE, and goes on to its on-occupied successor. Where a variant's rule has ended the
game (shatranj's bare king) there are no moves. """

from . import pieces as _modes
from .defs import (
    BLACK,
    CAPTURE,
    CASTLE,
    DOUBLE,
    EMPTY,
    EP,
    PAWN,
    PAWN_MOVE,
    PROMOTION,
    WHITE,
)

_PAWN_ROW = PAWN * 64
_QUIET, _CAPTURE = _modes.QUIET, _modes.CAPTURE
_DOUBLE, _EN_PASSANT = _modes.DOUBLE, _modes.EN_PASSANT
#: this generator plays every variant of engine.variants (the UCI engine asks)
SUPPORTS_VARIANTS = True


def gen(board) -> None:
    color, piece = board.color, board.piece
    side = board.side
    xside = side ^ 1
    ep = board.ep
    moves = board.gen_dat
    ply = board.ply
    start = board.first_move[ply]
    del moves[start:]
    push = moves.append
    data = board.data
    pos_rows, dir_rows = data.pos_rows[side], data.dir_rows[side]  # by piece code, per side
    promotions = data.promotion_words[side]
    promoting = data.promoting[side]
    # the orthodox pawn's threads; a pawn with modes walks its entries (its rows are None)
    thread_pawn = PAWN if data.pawn_threads else -1
    if data.bare_king and bare_king_ended(board):
        board.first_move[ply + 1] = len(moves)
        return

    for sq in [s for s in range(64) if color[s] == side]:
        p = piece[sq]
        if p == thread_pawn:
            ppos = pos_rows[_PAWN_ROW + sq]
            pdir = dir_rows[_PAWN_ROW + sq]
            u = ppos[sq]  # push thread
            if u != sq and color[u] == EMPTY:
                if u in promoting:
                    for w in promotions:
                        push(sq | u << 6 | w)
                else:
                    push(sq | u << 6 | PAWN_MOVE)
                    u = ppos[u]
                    if u != sq and color[u] == EMPTY:
                        push(sq | u << 6 | PAWN_MOVE | DOUBLE)
            u = pdir[sq]  # capture thread
            while u != sq:
                c = color[u]
                if c == xside:
                    if u in promoting:
                        for w in promotions:
                            push(sq | u << 6 | CAPTURE | w)
                    else:
                        push(sq | u << 6 | CAPTURE | PAWN_MOVE)
                elif u == ep:
                    push(sq | u << 6 | CAPTURE | EP | PAWN_MOVE)
                u = pdir[u]
        else:
            row = p * 64 + sq
            ppos = pos_rows[row]
            if ppos is None:  # a piece with modes: its walk's entries
                _walk_entries(data.walks[side][row], sq, p == PAWN, color, xside, ep, push,
                              promoting, promotions)
                continue
            pdir = dir_rows[row]
            u = ppos[sq]
            while u != sq:
                c = color[u]
                if c == EMPTY:
                    push(sq | u << 6)
                    u = ppos[u]
                else:
                    if c == xside:
                        push(sq | u << 6 | CAPTURE)
                    u = pdir[u]

    castle = board.castle
    if castle:
        for c in board.castles[side]:
            if castle & c.right and all(color[s] == EMPTY for s in c.empty):
                push(c.king_from | c.king_to << 6 | CASTLE)
    board.first_move[ply + 1] = len(moves)


def _walk_entries(walk, sq, is_pawn, color, xside, ep, push, promoting, promotions) -> None:
    """The moves of a walk with modes (see the module's docstring)."""
    squares, modes = walk.squares, walk.modes
    on_empty, on_occupied = walk.on_empty, walk.on_occupied
    pawn = PAWN_MOVE if is_pawn else 0
    i, n = 0, len(squares)
    while i < n:
        u = squares[i]
        c = color[u]
        mode = modes[i]
        if c == EMPTY:
            if mode & _QUIET:
                if pawn and u in promoting:
                    for w in promotions:
                        push(sq | u << 6 | w)
                else:
                    push(sq | u << 6 | pawn | (DOUBLE if mode & _DOUBLE else 0))
            elif mode & _EN_PASSANT and u == ep:
                push(sq | u << 6 | CAPTURE | EP | PAWN_MOVE)
            i = on_empty[i]
        else:
            if c == xside and mode & _CAPTURE:
                if pawn and u in promoting:
                    for w in promotions:
                        push(sq | u << 6 | CAPTURE | w)
                else:
                    push(sq | u << 6 | CAPTURE | pawn)
            i = on_occupied[i]


def bare_king_ended(board) -> bool:
    """Fairy-Stockfish's extinction rule of shatranj: the side not to move has its bare king
    and the side to move more; or the side to move has its bare king and the other at least
    two pieces besides its king (it cannot bare that king back in one move)."""
    color = board.color
    count = (color.count(WHITE), color.count(BLACK))
    side = board.side
    for c in (side ^ 1, side):
        if count[c] <= 1 and count[c ^ 1] >= 2 + (c == side):
            return True
    return False


def gen_caps(board) -> None:
    gen(board)
    keep_captures(board)


def keep_captures(board) -> None:
    """Reduce the current ply's moves to those gen_caps wants (any generator's output)."""
    start = board.first_move[board.ply]
    moves = board.gen_dat
    moves[start:] = [m for m in moves[start:] if m & (CAPTURE | PROMOTION)]
    board.first_move[board.ply + 1] = len(moves)
