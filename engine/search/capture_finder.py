"""The chip search's forcing moves, in the order its capture finder produces them.

A full-width node tries these first and a quiescence node tries nothing else (docs/chip_search.md,
"Move order"). The finder never lists a node's moves: it answers "the next one" from the board's
planes, Belle's find-victim / find-aggressor:

1. **Promotions by a push**, as a queen: the side's pawns on its seventh rank with the square
   ahead empty, in ascending square order.
2. **Captures, most valuable victim first** (MVV/LVA): the enemy's queens, rooks, bishops,
   knights, pawns (the king is never a victim in a legal position), each kind in ascending
   square order. For each victim its **aggressors, least valuable first**: pawns, knights,
   bishops, rooks, queens, the king. Aggressors of one kind come in the attack unit's slot
   order (hdl/chip/attack.py), as seen from the victim:

   * pawns: the one on the lower file, then the higher; then, if the victim is the pawn that
     just made a double step, the en passant captures by the pawns beside it (lower file first),
     which land on the en passant square;
   * knights: at the victim + ``KNIGHT_STEPS`` (file, rank), in that order;
   * bishops, rooks, queens: the first piece on each ray from the victim, rays in ``RAYS``
     order (E, W, N, S, NE, SW, NW, SE), each kind on the rays it moves along.

   A pawn that captures onto its last rank promotes to a queen.

Promotions to rook, bishop and knight are not here: a full-width node tries them with its quiet
moves (``quiet_stage``), a quiescence node not at all. The moves are pseudo-legal; the search
tests each for legality as it makes it.
"""

from ..rules.defs import (
    BISHOP,
    CAPTURE,
    EMPTY,
    EP,
    KING,
    KNIGHT,
    NO_SQUARE,
    PAWN,
    PAWN_MOVE,
    PROMO_SHIFT,
    PROMOTION,
    QUEEN,
    ROOK,
    WHITE,
)

#: the enemy's pieces in the order they are looked at as victims
VICTIM_ORDER = (QUEEN, ROOK, BISHOP, KNIGHT, PAWN)
#: rays from the victim, (file step, rank step), in hdl/chip/attack.py's order: per line (rank,
#: file, a1-h8 diagonal, a8-h1 diagonal) towards higher positions, then lower
RAYS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (-1, 1), (1, -1))
#: knight leaps from the victim, in hdl/chip/attack.py's order
KNIGHT_STEPS = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))
#: which rays each slider kind attacks along
RIDES = {BISHOP: (False, True), ROOK: (True, False), QUEEN: (True, True)}  # (lines, diagonals)

QUEEN_PROMOTION = PROMOTION | QUEEN << PROMO_SHIFT


def _step(sq: int, df: int, dr: int) -> int:
    f, r = (sq & 7) + df, (sq >> 3) + dr
    return r * 8 + f if 0 <= f < 8 and 0 <= r < 8 else NO_SQUARE


def promotion_pushes(board) -> list[int]:
    """Stage 1: the pushes onto the last rank, as queens, in ascending square order."""
    side, color, piece = board.side, board.color, board.piece
    seventh, ahead = (6, 8) if side == WHITE else (1, -8)
    out = []
    for sq in range(seventh * 8, seventh * 8 + 8):
        if color[sq] == side and piece[sq] == PAWN and color[sq + ahead] == EMPTY:
            out.append(sq | (sq + ahead) << 6 | PAWN_MOVE | QUEEN_PROMOTION)
    return out


def victims(board) -> list[int]:
    """The enemy's pieces other than the king, in the order the finder asks about them."""
    xside, color, piece = board.side ^ 1, board.color, board.piece
    return [sq for kind in VICTIM_ORDER for sq in range(64)
            if color[sq] == xside and piece[sq] == kind]


def ep_victim(board) -> int:
    """The square of the pawn an en passant capture would take, NO_SQUARE if none."""
    if board.ep == NO_SQUARE:
        return NO_SQUARE
    return board.ep - 8 if board.side == WHITE else board.ep + 8


def ray_slots(board, v: int) -> list[tuple[int, int, bool]]:
    """Per ray from ``v`` in RAYS order: the first occupied square on it, if the side to move's
    (square, piece, whether the ray is diagonal)."""
    color, piece, side = board.color, board.piece, board.side
    out = []
    for i, (df, dr) in enumerate(RAYS):
        u = _step(v, df, dr)
        while u != NO_SQUARE and color[u] == EMPTY:
            u = _step(u, df, dr)
        if u != NO_SQUARE and color[u] == side:
            out.append((u, piece[u], i >= 4))
    return out


def aggressors(board, v: int) -> list[int]:
    """The captures of the piece on ``v``, least valuable aggressor first (slot order within a
    kind), as move words."""
    color, piece, side = board.color, board.piece, board.side
    last_rank = 7 if side == WHITE else 0
    behind = -1 if side == WHITE else 1  # a pawn captures from a rank behind its victim
    pawn_word = CAPTURE | PAWN_MOVE | (QUEEN_PROMOTION if v >> 3 == last_rank else 0)
    words = {kind: [] for kind in (PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING)}
    for df in (-1, 1):
        u = _step(v, df, behind)
        if u != NO_SQUARE and color[u] == side and piece[u] == PAWN:
            words[PAWN].append(u | v << 6 | pawn_word)
    if v == ep_victim(board):
        for df in (-1, 1):
            u = _step(v, df, 0)
            if u != NO_SQUARE and color[u] == side and piece[u] == PAWN:
                words[PAWN].append(u | board.ep << 6 | CAPTURE | EP | PAWN_MOVE)
    for df, dr in KNIGHT_STEPS:
        u = _step(v, df, dr)
        if u != NO_SQUARE and color[u] == side and piece[u] == KNIGHT:
            words[KNIGHT].append(u | v << 6 | CAPTURE)
    for u, p, diagonal in ray_slots(board, v):
        if p in RIDES and RIDES[p][diagonal]:
            words[p].append(u | v << 6 | CAPTURE)
    k = board.king[side]
    if k != v and max(abs((k & 7) - (v & 7)), abs((k >> 3) - (v >> 3))) == 1:
        words[KING].append(k | v << 6 | CAPTURE)
    return [w for kind in (PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING) for w in words[kind]]


def capture_stage(board, stats=None):
    """Stage 1 in the finder's order, one move at a time (a generator: a node cut off early asks
    for no more). ``stats`` (``leaf_search.LeafStats``) counts what the finder would do: one
    attack-unit query per victim asked about; a scan start whenever the scan begins or must
    begin again because a child was made (the child used the board and the unit); an eval
    refill when the next aggressor of the same victim follows a made child."""
    made = stats.made if stats is not None else 0
    scanning = False
    for m in promotion_pushes(board):
        made = stats.made if stats is not None else 0
        yield m
    for v in victims(board):
        if stats is not None:
            if not scanning or stats.made != made:
                stats.scan_starts += 1
                scanning, made = True, stats.made
            stats.victim_queries += 1
        for i, m in enumerate(aggressors(board, v)):
            if stats is not None:
                stats.refills += i > 0 and stats.made != made
                made = stats.made
            yield m


def is_capture_stage_move(m: int) -> bool:
    """Does ``m`` (any pseudo-legal move word) belong to stage 1? Captures (en passant too),
    and promotions to a queen."""
    if m & PROMOTION:
        return m >> PROMO_SHIFT == QUEEN
    return bool(m & CAPTURE)


def quiet_stage(moves: list[int]) -> list[int]:
    """Stage 2 of a full-width node: the walk's moves (generation order) that stage 1 did not
    try: quiet moves, castling, and promotions to rook, bishop and knight."""
    return [m for m in moves if not is_capture_stage_move(m)]
