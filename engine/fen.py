"""FEN (and 4-field EPD) in and out, with the checks that keep impossible positions out.

Every rejection raises ``FenError`` with a one-line message naming the problem; the CLI turns
it into ``posdata: error: ...`` and exit status 2.
"""

from dataclasses import dataclass

from .defs import (BLACK, CASTLES, CASTLING_LETTERS, EMPTY, KING, NO_PIECE, NO_SQUARE, PAWN,
                   PIECE_LETTERS, ROOK, SQUARE_NAMES, WHITE)


_FEN_PIECES = PIECE_LETTERS[1:] + PIECE_LETTERS[1:].upper()


class FenError(ValueError):
    pass


@dataclass
class Position:
    color: list[int]
    piece: list[int]
    side: int
    castle: int
    ep: int
    fifty: int
    fullmove: int


def parse_fen(text: str) -> Position:
    fields = text.split()
    if len(fields) not in (4, 6):
        raise FenError(f"bad FEN: expected 6 fields (or 4 for EPD), got {len(fields)}: {text!r}")
    placement, side_s, castling_s, ep_s = fields[:4]
    color, piece = _parse_placement(placement)

    if side_s not in ("w", "b"):
        raise FenError(f"bad FEN: side to move must be 'w' or 'b', not {side_s!r}")
    side = WHITE if side_s == "w" else BLACK

    castle = _parse_castling(castling_s, color, piece)
    ep = _parse_ep(ep_s, side, color, piece)

    fifty, fullmove = 0, 1
    if len(fields) == 6:
        fifty = _parse_count(fields[4], "halfmove clock", 0)
        fullmove = _parse_count(fields[5], "fullmove number", 1)
    return Position(color, piece, side, castle, ep, fifty, fullmove)


def _parse_placement(placement: str) -> tuple[list[int], list[int]]:
    color, piece = [EMPTY] * 64, [NO_PIECE] * 64
    ranks = placement.split("/")
    if len(ranks) != 8:
        raise FenError(f"bad FEN: expected 8 ranks, got {len(ranks)}")
    for i, row in enumerate(ranks):
        rank = 7 - i
        file = 0
        for ch in row:
            if ch in "12345678":
                file += int(ch)
            elif ch in _FEN_PIECES:  # ASCII only: str.lower() also maps e.g. the Kelvin sign
                if file < 8:
                    sq = rank * 8 + file
                    color[sq] = WHITE if ch.isupper() else BLACK
                    piece[sq] = PIECE_LETTERS.index(ch.lower())
                file += 1
            else:
                raise FenError(f"bad FEN: unknown piece letter {ch!r} on rank {rank + 1}")
        if file != 8:
            raise FenError(f"bad FEN: rank {rank + 1} has {file} files, not 8: {row!r}")
    for side, name in ((WHITE, "white"), (BLACK, "black")):
        kings = sum(1 for sq in range(64) if color[sq] == side and piece[sq] == KING)
        if kings != 1:
            raise FenError(f"impossible position: {name} has {kings} kings")
    for sq in list(range(8)) + list(range(56, 64)):
        if piece[sq] == PAWN:
            raise FenError(f"impossible position: pawn on {SQUARE_NAMES[sq]} (rank 1 or 8)")
    return color, piece


def _parse_castling(text: str, color: list[int], piece: list[int]) -> int:
    if text == "-":
        return 0
    castle = 0
    for ch in text:
        right = CASTLING_LETTERS.get(ch)
        if right is None:
            raise FenError(f"bad FEN: unknown castling letter {ch!r}")
        if castle & right:
            raise FenError(f"bad FEN: castling letter {ch!r} repeated")
        side = WHITE if ch.isupper() else BLACK
        c = next(c for c in CASTLES[side] if c.right == right)
        if not (color[c.king_from] == side and piece[c.king_from] == KING):
            raise FenError(f"bad FEN: castling right {ch!r} without a king on "
                           f"{SQUARE_NAMES[c.king_from]}")
        if not (color[c.rook_from] == side and piece[c.rook_from] == ROOK):
            raise FenError(f"bad FEN: castling right {ch!r} without a rook on "
                           f"{SQUARE_NAMES[c.rook_from]}")
        castle |= right
    return castle


def _parse_ep(text: str, side: int, color: list[int], piece: list[int]) -> int:
    if text == "-":
        return NO_SQUARE
    if text not in SQUARE_NAMES:
        raise FenError(f"bad FEN: en passant square {text!r} is not a square")
    ep = SQUARE_NAMES.index(text)
    want_rank = 5 if side == WHITE else 2
    if ep >> 3 != want_rank:
        raise FenError(f"bad FEN: en passant square {text} must be on rank {want_rank + 1} "
                       f"with {'white' if side == WHITE else 'black'} to move")
    # the pawn that just made the double step stands before it; the squares it crossed are empty
    mover = side ^ 1
    pawn_sq = ep - 8 if side == WHITE else ep + 8
    origin = ep + 8 if side == WHITE else ep - 8
    if not (color[pawn_sq] == mover and piece[pawn_sq] == PAWN):
        raise FenError(f"impossible position: en passant square {text} with no pawn on "
                       f"{SQUARE_NAMES[pawn_sq]}")
    if color[ep] != EMPTY or color[origin] != EMPTY:
        raise FenError(f"impossible position: en passant square {text} but {SQUARE_NAMES[ep]} "
                       f"or {SQUARE_NAMES[origin]} is occupied")
    return ep


def _parse_count(text: str, name: str, minimum: int) -> int:
    # isascii: str.isdigit() is also true for '²' or '٣', which int() rejects or reads
    if not (text.isascii() and text.isdigit()) or int(text) < minimum:
        raise FenError(f"bad FEN: {name} must be an integer >= {minimum}, not {text!r}")
    return int(text)


def format_fen(color, piece, side, castle, ep, fifty, fullmove) -> str:
    rows = []
    for rank in range(7, -1, -1):
        row, gap = "", 0
        for file in range(8):
            sq = rank * 8 + file
            if color[sq] == EMPTY:
                gap += 1
                continue
            if gap:
                row, gap = row + str(gap), 0
            letter = PIECE_LETTERS[piece[sq]]
            row += letter.upper() if color[sq] == WHITE else letter
        rows.append(row + (str(gap) if gap else ""))
    rights = "".join(ch for ch, bit in CASTLING_LETTERS.items() if castle & bit) or "-"
    ep_s = SQUARE_NAMES[ep] if ep != NO_SQUARE else "-"
    return f"{'/'.join(rows)} {'wb'[side]} {rights} {ep_s} {fifty} {fullmove}"
