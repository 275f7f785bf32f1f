"""perft: count the leaf nodes of the legal move tree, TSCP style (generate pseudo-legal moves,
count the makemoves that succeed).

``gen`` is the move generator (default: the reference posdata walk); the gateware's driver
plugs in here with the same signature.

``bulk=False`` (plain) plays every move down to the leaves with makemove/takeback.
``bulk=True`` stops one ply early and *counts* the legal moves of each depth-1 node without
playing them where a cheap test is exact (``count_legal``); the node counts are the same.
"""

from .defs import CASTLE, EMPTY, EP
from .lines import RAYS
from .movegen import gen as reference_gen

#: moves that count_legal always tests with makemove
_PLAY_TO_TEST = CASTLE | EP


def perft(board, depth: int, gen=reference_gen, bulk: bool = False) -> int:
    if depth <= 0:
        return 1
    gen(board)
    moves = board.gen_dat
    first = board.first_move
    ply = board.ply
    if depth == 1:
        if bulk:
            return count_legal(board, moves, first[ply], first[ply + 1])
        return _count_by_makemove(board, moves, first[ply], first[ply + 1])
    makemove, takeback = board.makemove, board.takeback
    nodes = 0
    for i in range(first[ply], first[ply + 1]):
        if makemove(moves[i]):
            nodes += perft(board, depth - 1, gen, bulk)
            takeback()
    return nodes


def count_legal(board, moves, start: int, end: int) -> int:
    """How many of the pseudo-legal ``moves[start:end]`` of the side to move are legal.

    Not in check, a move other than a king move, castling or en passant is illegal only if it
    takes a pinned piece off the line through its king (in variants whose riders all move along
    lines; with a nightrider every move goes through makemove); the pins are found once per node by
    walking the eight lines out from the king (``RAYS``). A king move is legal if its target
    square is not attacked once the king has left its square. Castling, en passant and every
    move when in check go through makemove.
    """
    if board.in_check() or not board.data.lines_only:
        return _count_by_makemove(board, moves, start, end)
    color, piece = board.color, board.piece
    side = board.side
    xside = side ^ 1
    king = board.king[side]

    pinned = {}  # own pinned piece -> the squares it may move to (its line through the king)
    line_attackers = board.line_attackers  # (orthogonal, diagonal) riders of the variant
    for squares, diagonal in RAYS[king]:
        own = -1
        for s in squares:
            c = color[s]
            if c == EMPTY:
                continue
            if c == side:
                if own >= 0:
                    break  # two own pieces: no pin on this line
                own = s
                continue
            if own >= 0 and piece[s] in line_attackers[diagonal]:
                pinned[own] = squares
            break

    nodes = 0
    attacked = board.attacked
    for m in moves[start:end]:
        frm = m & 63
        if m & _PLAY_TO_TEST:
            if board.makemove(m):
                board.takeback()
                nodes += 1
        elif frm == king:
            color[king] = EMPTY
            if not attacked((m >> 6) & 63, xside):
                nodes += 1
            color[king] = side
        elif pinned and frm in pinned:
            if (m >> 6) & 63 in pinned[frm]:
                nodes += 1
        else:
            nodes += 1
    return nodes


def _count_by_makemove(board, moves, start, end) -> int:
    makemove, takeback = board.makemove, board.takeback
    nodes = 0
    for i in range(start, end):
        if makemove(moves[i]):
            takeback()
            nodes += 1
    return nodes


def divide(board, depth: int, gen=reference_gen, bulk: bool = False) -> dict[int, int]:
    """Per legal root move (in generation order), the perft count below it."""
    counts = {}
    gen(board)
    ply = board.ply
    for m in board.gen_dat[board.first_move[ply]:board.first_move[ply + 1]]:
        if board.makemove(m):
            counts[m] = perft(board, depth - 1, gen, bulk)
            board.takeback()
    return counts


def tree_fens(fen: str, depth: int) -> list[str]:
    """The FEN of every node of the perft(``depth``) tree at which moves are generated (plies
    0 .. depth - 1), in depth-first generation order: the positions a hardware perft asks the
    gateware about."""
    from .board import Board
    board = Board(fen)
    out = []

    def walk(d):
        out.append(board.fen())
        if d > 1:
            for m in board.legal_moves():
                board.makemove(m)
                walk(d - 1)
                board.takeback()
    walk(depth)
    return out
