"""Makruk's counting as Fairy-Stockfish keeps it: the FEN's notation of it, no rule of moves.

Ref: Fairy-Stockfish's ``Position::counting_limit`` and ``do_move`` (makruk counting), checked
through pyffish 0.0.90. Once no pawn is left, or a side is down to its bare king, a count starts:
its limit (in plies) stands in the FEN's en passant field and the plies counted so far in the
halfmove field (``makruk w - 128 0 40``). Reaching the limit is an optional draw there, so no
move list depends on the count; only the FEN does. The board keeps no count while moves are
made: ``count_after`` replays the game's material from the root when a FEN is written.
"""

from .defs import BISHOP, BLACK, KNIGHT, PAWN, PROMOTION, ROOK, WHITE

KHON = BISHOP  #: makruk's khon takes the bishop's code (engine.rules.variants)


def counting_limit(counts, stm: int) -> int:
    """The count's limit in moves, as the side to move ``stm`` starts it (0: none yet)."""
    own = sum(counts[stm].values())
    pawns = counts[WHITE].get(PAWN, 0) + counts[BLACK].get(PAWN, 0)
    if pawns and own > 1:
        return 0
    if own > 1:
        return 64  # the board's honour
    other = counts[stm ^ 1]  # the pieces' honour: the stronger side's material
    if other.get(ROOK, 0) > 1:
        return 8
    if other.get(ROOK, 0) == 1:
        return 16
    if other.get(KHON, 0) > 1:
        return 22
    if other.get(KNIGHT, 0) > 1:
        return 32
    if other.get(KHON, 0) == 1:
        return 44
    return 64


def count_after(board, root_limit: int, root_ply: int) -> tuple[int, int]:
    """(limit, plies counted) after the moves the board has played from its FEN's count."""
    counts = [{}, {}]
    for sq in range(64):
        if board.piece[sq]:
            side_counts = counts[board.color[sq]]
            side_counts[board.piece[sq]] = side_counts.get(board.piece[sq], 0) + 1
    changes = []
    mover = board.side
    for m, captured, *_ in reversed(board.hist):  # back to the root's material
        mover ^= 1
        if captured:
            _add(counts[mover ^ 1], captured, 1)
        if m & PROMOTION:
            _add(counts[mover], m >> 18, -1)
            _add(counts[mover], PAWN, 1)
        changes.append((mover, m, captured))
    limit, ply = root_limit, root_ply
    for mover, m, captured in reversed(changes):
        if limit:
            ply += 1
        if captured:
            _add(counts[mover ^ 1], captured, -1)
        if m & PROMOTION:
            _add(counts[mover], PAWN, -1)
            _add(counts[mover], m >> 18, 1)
        stm = mover ^ 1
        own = sum(counts[stm].values())
        pawns = counts[WHITE].get(PAWN, 0) + counts[BLACK].get(PAWN, 0)
        if ((not limit or captured) and own == 1) or (not limit and not pawns):
            limit = 2 * counting_limit(counts, stm)
            total = own + sum(counts[stm ^ 1].values())
            ply = 2 * total if limit and own == 1 else 0
    return limit, ply


def _add(counts: dict, code: int, n: int) -> None:
    counts[code] = counts.get(code, 0) + n
