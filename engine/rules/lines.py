"""Lines through the king: the cheap legality tests of makemove and of bulk perft.

When the side to move is not in check, a move of a piece other than the king (and not en
passant) can only expose the king along the line from the king through the from-square. So
makemove looks up ``PIN_LINES[king * 64 + frm]``: ``None`` when the squares are not on a common
rank, file or diagonal (the move is certainly legal), else the squares from the king outward
through ``frm`` to the board's edge and whether the line is diagonal.

``RAYS[sq]`` lists the same lines per square, all of them: the non-empty rays from ``sq`` to
the board's edge as ``(squares, diagonal)``, diagonals first. Bulk perft walks them from the king
once per node to find the pinned pieces.
"""

_DIAGONAL_STEPS = ((1, 1), (1, -1), (-1, 1), (-1, -1))
_ORTHOGONAL_STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))


def _ray(sq: int, df: int, dr: int) -> tuple[int, ...]:
    squares = []
    f, r = (sq & 7) + df, (sq >> 3) + dr
    while 0 <= f < 8 and 0 <= r < 8:
        squares.append(r * 8 + f)
        f, r = f + df, r + dr
    return tuple(squares)


RAYS = [tuple((_ray(sq, df, dr), diagonal)
              for steps, diagonal in ((_DIAGONAL_STEPS, True), (_ORTHOGONAL_STEPS, False))
              for df, dr in steps if _ray(sq, df, dr))
        for sq in range(64)]


def _line(king: int, frm: int):
    for squares, diagonal in RAYS[king]:
        if frm in squares:
            return squares, diagonal
    return None


PIN_LINES = [_line(k, f) for k in range(64) for f in range(64)]
