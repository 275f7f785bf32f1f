"""Lines through the king: the cheap legality test of makemove.

When the side to move is not in check, a move of a piece other than the king (and not en
passant) can only expose the king along the line from the king through the from-square. So
makemove looks up ``PIN_LINES[king * 64 + frm]``: ``None`` when the squares are not on a common
rank, file or diagonal (the move is certainly legal), else the squares from the king outward
through ``frm`` to the board's edge and whether the line is diagonal.
"""

_DIAGONAL_STEPS = ((1, 1), (1, -1), (-1, 1), (-1, -1))
_ORTHOGONAL_STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))


def _line(king: int, frm: int):
    for steps, diagonal in ((_DIAGONAL_STEPS, True), (_ORTHOGONAL_STEPS, False)):
        for df, dr in steps:
            squares = []
            f, r = (king & 7) + df, (king >> 3) + dr
            while 0 <= f < 8 and 0 <= r < 8:
                squares.append(r * 8 + f)
                f, r = f + df, r + dr
            if frm in squares:
                return tuple(squares), diagonal
    return None


PIN_LINES = [_line(k, f) for k in range(64) for f in range(64)]
