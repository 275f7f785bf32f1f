"""perft: count the leaf nodes of the legal move tree, TSCP style (generate pseudo-legal moves,
count the makemoves that succeed).

``gen`` is the move generator (default: the reference posdata walk); the gateware's driver
plugs in here with the same signature. ``bulk=True`` counts the legal moves at depth 1 instead
of recursing into them (the same count, fewer make/takebacks is *not* what it saves: it still
tests each move with makemove, but skips the recursion overhead).
"""

from .movegen import gen as reference_gen


def perft(board, depth: int, gen=reference_gen) -> int:
    if depth <= 0:
        return 1
    gen(board)
    moves = board.gen_dat
    first = board.first_move
    ply = board.ply
    makemove, takeback = board.makemove, board.takeback
    nodes = 0
    if depth == 1:
        for i in range(first[ply], first[ply + 1]):
            if makemove(moves[i]):
                takeback()
                nodes += 1
        return nodes
    for i in range(first[ply], first[ply + 1]):
        if makemove(moves[i]):
            nodes += perft(board, depth - 1, gen)
            takeback()
    return nodes


def divide(board, depth: int, gen=reference_gen) -> dict[int, int]:
    """Per legal root move (in generation order), the perft count below it."""
    from .defs import move_uci  # noqa: F401  (callers format the keys)
    counts = {}
    gen(board)
    ply = board.ply
    for m in board.gen_dat[board.first_move[ply]:board.first_move[ply + 1]]:
        if board.makemove(m):
            counts[m] = perft(board, depth - 1, gen)
            board.takeback()
    return counts
