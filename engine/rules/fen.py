"""FEN (and 4-field EPD) in and out, with the checks that keep impossible positions out.

Every rejection raises ``FenError`` with a one-line message naming the problem; the CLI turns
it into ``posdata: error: ...`` and exit status 2.

Letters are the variant's (``engine.rules.variants``: Fairy-Stockfish's). Castling rights: ``KQkq``
with the king on e1/e8 and the rooks in the corners; in Chess960 also X-FEN (``K``/``Q`` is the
outermost rook on that side of the king, a file letter names an inner one) and Shredder-FEN
(rook files, ``HAha``). Output is X-FEN, as python-chess writes it.

Material: a side has at most 16 pieces and 8 pawns, and its pieces beyond the variant's starting
army (per kind) must be ones it can promote to, no more of them than its missing pawns. That
bounds every position the engine accepts (the hardware's move stack is sized by it).

Checks: no one move gives more than two, nor two from opposite sides of the king along a line, nor,
after the double step an en passant square implies, a check that step cannot have given
(python-chess's ``Board.status()`` rules; ``_check_checks`` says in which variants). The side not to
move in check is refused by ``engine.rules.board.Board``, whose attack test knows every variant. """

from dataclasses import dataclass
from functools import cache

from .chess960 import castle_for
from .defs import (
    BLACK,
    CASTLES,
    CASTLING_LETTERS,
    EMPTY,
    KING,
    NO_PIECE,
    NO_SQUARE,
    PAWN,
    ROOK,
    SQUARE_NAMES,
    WHITE,
)
from .pieces import AttackKind, parse_piece
from .variants import CHESS, Variant

MAX_PIECES = 16
MAX_PAWNS = 8
#: the counters' range: four digits, past the longest game the rules allow (8,849 moves, the
#: 75-move rule ending it); a longer game's FEN is written with the counter at the bound (it
#: can matter to no rule by then), so that every FEN written here reads back
MAX_HALFMOVE = 9999
MAX_FULLMOVE = 9999
_SIDE_NAMES = ("white", "black")


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
    #: per side, the castlings the rights may name, king side first (engine.rules.defs.Castle)
    castles: tuple = CASTLES
    #: the pawn en passant would take, where the variant writes it (``Variant.ep_pair``)
    ep_victim: int = NO_SQUARE
    #: makruk's count (engine.rules.counting): its limit in plies (0: none) and the plies counted
    count_limit: int = 0
    count_ply: int = 0


def parse_fen(text: str, variant: Variant = CHESS, check_material: bool = True) -> Position:
    """``check_material=False`` lets through material no game reaches (tests of buffers)."""
    fields = text.split()
    if len(fields) not in (4, 6):
        raise FenError(f"bad FEN: expected 6 fields (or 4 for EPD), got {len(fields)}: "
                       f"{shorten(text)}")
    placement, side_s, castling_s, ep_s = fields[:4]
    color, piece = _parse_placement(placement, variant)
    if check_material:
        _check_material(color, piece, variant)

    if side_s not in ("w", "b"):
        raise FenError(f"bad FEN: side to move must be 'w' or 'b', not {shorten(side_s)}")
    side = WHITE if side_s == "w" else BLACK

    if variant.chess960:
        castle, castles = _parse_castling_960(castling_s, color, piece)
    else:
        castle, castles = _parse_castling(castling_s, color, piece), CASTLES
    ep_victim = NO_SQUARE
    count_limit = 0
    if variant.counting and ep_s.isascii() and ep_s.isdigit():
        count_limit = _parse_count(ep_s, "counting limit", 1, MAX_HALFMOVE)
        ep = NO_SQUARE
    elif variant.ep_pair and ep_s != "-":
        ep, ep_victim = _parse_ep_pair(ep_s, side, color, piece, variant.pawn)
    else:
        ep = _parse_ep(ep_s, side, color, piece)

    _check_checks(color, piece, side, ep, variant)

    fifty, fullmove = 0, 1
    if len(fields) == 6:
        fifty = _parse_count(fields[4], "halfmove clock", 0, MAX_HALFMOVE)
        fullmove = _parse_count(fields[5], "fullmove number", 1, MAX_FULLMOVE)
    count_ply = 0
    if count_limit:  # the halfmove field holds the plies counted
        count_ply, fifty = fifty, 0
    return Position(color, piece, side, castle, ep, fifty, fullmove, castles, ep_victim,
                    count_limit, count_ply)


def _parse_placement(placement: str, variant: Variant) -> tuple[list[int], list[int]]:
    color, piece = [EMPTY] * 64, [NO_PIECE] * 64
    letters = variant.fen_letters
    ranks = placement.split("/")
    if len(ranks) != 8:
        raise FenError(f"bad FEN: expected 8 ranks, got {len(ranks)}")
    for i, row in enumerate(ranks):
        rank = 7 - i
        file = 0
        for ch in row:
            if ch in "12345678":
                file += int(ch)
            elif ch in letters:  # ASCII only: str.lower() also maps e.g. the Kelvin sign
                if file < 8:
                    sq = rank * 8 + file
                    color[sq], piece[sq] = letters[ch]
                file += 1
            else:
                where = "" if variant is CHESS else f" in {variant.name}"
                raise FenError(f"bad FEN: unknown piece letter {ch!r} on rank {rank + 1}{where}")
        if file != 8:
            raise FenError(f"bad FEN: rank {rank + 1} has {file} files, not 8: {shorten(row)}")
    for side, name in ((WHITE, "white"), (BLACK, "black")):
        kings = sum(1 for sq in range(64) if color[sq] == side and piece[sq] == KING)
        if kings != 1:
            raise FenError(f"impossible position: {name} has {kings} kings")
    for sq in list(range(8)) + list(range(56, 64)):
        if piece[sq] == PAWN:
            raise FenError(f"impossible position: pawn on {SQUARE_NAMES[sq]} (rank 1 or 8)")
    return color, piece


def _check_material(color: list[int], piece: list[int], variant: Variant) -> None:
    for side in (WHITE, BLACK):
        name = _SIDE_NAMES[side]
        have = {}
        for sq in range(64):
            if color[sq] == side:
                have[piece[sq]] = have.get(piece[sq], 0) + 1
        total = sum(have.values())
        most = max(MAX_PIECES, sum(variant.start_army(side).values()))  # grasshopper: 24
        if total > most:
            raise FenError(f"impossible material: {name} has {total} pieces, more than "
                           f"{most}")
        pawns = have.get(PAWN, 0)
        if pawns > MAX_PAWNS:
            raise FenError(f"impossible material: {name} has {pawns} pawns, more than "
                           f"{MAX_PAWNS}")
        start = variant.start_army(side)
        extra = 0
        for code, n in sorted(have.items()):
            beyond = n - start.get(code, 0)
            if beyond <= 0 or code == PAWN:
                continue
            if code not in variant.promotions[side]:
                kind = variant.by_code[code].name
                raise FenError(f"impossible material: {name} has {n} {kind}(s), more than the "
                               f"{start.get(code, 0)} it starts with, and cannot promote to one")
            extra += beyond
        if extra > MAX_PAWNS - pawns:
            raise FenError(f"impossible material: {name} has {extra} pieces beyond its starting "
                           f"army but only {MAX_PAWNS - pawns} missing pawns to promote")


#: the attacks the check rules account for: leaps (no move uncovers one) and rook and bishop
#: lines (a square a move empties lies on one line from the king: it uncovers one check at most)
_LINES = AttackKind.ORTHOGONAL_RIDER | AttackKind.DIAGONAL_RIDER
_COUNTED_ATTACKS = AttackKind.PAWN | AttackKind.KNIGHT_LEAPER | AttackKind.KING_STEP | _LINES


@cache
def _counted_kinds(variant: Variant) -> dict | None:
    """Per piece code its attacks, if the check rules hold in ``variant``, else None. They hold
    where the pawn is orthodox and every piece attacks with ``_COUNTED_ATTACKS`` alone: chess,
    chess960, amazon, almost, chigorin. Not in nightrider (an en passant capture can uncover a
    rook and a nightrider at once: a triple check), grasshopper (a piece arriving makes a hurdle:
    a check by a piece that did not move), nor, not worked out, where pieces or pawns move
    otherwise than they capture (hoppelpoppel, berolina, pawnsideways, shatranj, makruk)."""
    if variant.pawn is not None or any(variant.moded(p.code) for p in variant.pieces):
        return None
    kinds = {p.code: variant.attack_kinds(WHITE, p.code) for p in variant.pieces}
    return None if any(k & ~_COUNTED_ATTACKS for k in kinds.values()) else kinds


def _check_checks(color: list[int], piece: list[int], side: int, ep: int,
                  variant: Variant) -> None:
    """The checks on the side to move's king must be ones the last move can have given: two
    at most, not from both sides of the king along one line (each would have been given
    before the other); after a double step (``ep``) one, by the pawn or uncovered by it."""
    kinds = _counted_kinds(variant)
    if kinds is None:
        return
    king = next(sq for sq in range(64) if color[sq] == side and piece[sq] == KING)
    occupied = [c != EMPTY for c in color]
    checkers = _attackers(king, side ^ 1, color, piece, occupied, kinds)
    if not checkers:
        return
    name = f"the {_SIDE_NAMES[side]} king on {SQUARE_NAMES[king]}"
    squares = ", ".join(SQUARE_NAMES[sq] for sq in checkers)
    if len(checkers) > 2:
        raise FenError(f"impossible position: {len(checkers)} pieces give check to {name} "
                       f"({squares}); one move gives 2 at most")
    if ep != NO_SQUARE:
        pushed_to = ep - 8 if side == WHITE else ep + 8
        pushed_from = ep + 8 if side == WHITE else ep - 8
        step = f"the double step {SQUARE_NAMES[pushed_from]}-{SQUARE_NAMES[pushed_to]}"
        if len(checkers) > 1:
            raise FenError(f"impossible position: 2 pieces give check to {name} ({squares}) "
                           f"after {step} (en passant square {SQUARE_NAMES[ep]}), which gives "
                           f"one at most")
        # as python-chess: the squares occupied before the step, the pieces where they stand
        occupied[pushed_to], occupied[pushed_from] = False, True
        if checkers[0] != pushed_to and _attackers(king, side ^ 1, color, piece, occupied,
                                                    kinds):
            raise FenError(f"impossible position: {name} was in check before {step} "
                           f"(en passant square {SQUARE_NAMES[ep]}) and still is")
    elif len(checkers) == 2 and _between(checkers[0], checkers[1], king):
        raise FenError(f"impossible position: {name} is in check from both sides along a line "
                       f"({squares}); no one move gives both")


def _attackers(target: int, by: int, color: list[int], piece: list[int], occupied: list[bool],
               kinds_of: dict) -> list[int]:
    """The squares of ``by``'s pieces that attack ``target``, lines blocked by ``occupied``
    (``kinds_of``: per piece code its attacks, of ``_COUNTED_ATTACKS``)."""
    relations = _relations(by, target)
    out = []
    for sq in range(64):
        if color[sq] == by:
            relation = relations[sq]
            if relation is not None and kinds_of[piece[sq]] & relation[0] \
                    and not any(occupied[s] for s in relation[1]):
                out.append(sq)
    return out


@cache
def _relations(by: int, target: int) -> tuple:
    """Per square, None or (the attacks of ``_COUNTED_ATTACKS`` by which a piece of ``by``
    there reaches ``target``, the squares between that must be empty)."""
    tf, tr = target & 7, target >> 3
    out = []
    for sq in range(64):
        df, dr = tf - (sq & 7), tr - (sq >> 3)
        adf, adr = abs(df), abs(dr)
        kinds = AttackKind(0)
        if adf == 1 and dr == (1 if by == WHITE else -1):
            kinds |= AttackKind.PAWN
        if {adf, adr} == {1, 2}:
            kinds |= AttackKind.KNIGHT_LEAPER
        if max(adf, adr) == 1:
            kinds |= AttackKind.KING_STEP
        if (adf == 0) != (adr == 0):
            kinds |= AttackKind.ORTHOGONAL_RIDER
        if adf == adr != 0:
            kinds |= AttackKind.DIAGONAL_RIDER
        between = tuple(_squares_between(sq, target)) if kinds & _LINES else ()
        out.append((kinds, between) if kinds else None)
    return tuple(out)


def _squares_between(a: int, b: int) -> range:
    """The squares strictly between ``a`` and ``b``, on a rank, file or diagonal."""
    df, dr = (b & 7) - (a & 7), (b >> 3) - (a >> 3)
    step = (df > 0) - (df < 0) + 8 * ((dr > 0) - (dr < 0))
    return range(a + step, b, step)


def _between(a: int, b: int, sq: int) -> bool:
    """Is ``sq`` between ``a`` and ``b`` on a rank, file or diagonal through both?"""
    df, dr = (b & 7) - (a & 7), (b >> 3) - (a >> 3)
    return (df == 0 or dr == 0 or abs(df) == abs(dr)) and sq in _squares_between(a, b)


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


def _parse_castling_960(text: str, color: list[int], piece: list[int]) -> tuple[int, tuple]:
    """X-FEN or Shredder-FEN rights: (the 4-bit rights, per side its Castle records)."""
    if text == "-":
        return 0, ((), ())
    found = ({}, {})  # per side: kingside (bool) -> Castle
    for ch in text:
        side = WHITE if ch.isupper() else BLACK
        low = ch.lower()
        if low not in "kqabcdefgh":
            raise FenError(f"bad FEN: unknown castling letter {ch!r}")
        base = 0 if side == WHITE else 56
        rank = "1" if side == WHITE else "8"
        name = _SIDE_NAMES[side]
        king = next((base + f for f in range(8)
                     if color[base + f] == side and piece[base + f] == KING), None)
        if king is None:
            raise FenError(f"bad FEN: castling right {ch!r} without a {name} king on rank {rank}")
        rooks = [base + f for f in range(8) if color[base + f] == side and piece[base + f] == ROOK]
        if low == "k":
            outer = [r for r in rooks if r > king]
            rook = max(outer) if outer else None
        elif low == "q":
            outer = [r for r in rooks if r < king]
            rook = min(outer) if outer else None
        else:
            rook = base + "abcdefgh".index(low)
            if rook not in rooks:
                rook = None
        if rook is None:
            where = {"k": f"east of the king on rank {rank}",
                     "q": f"west of the king on rank {rank}"}.get(low, f"on {low}{rank}")
            raise FenError(f"bad FEN: castling right {ch!r} without a {name} rook {where}")
        kingside = rook > king
        if kingside in found[side]:
            raise FenError(f"bad FEN: castling letter {ch!r} repeats {name}'s "
                           f"{'king' if kingside else 'queen'} side right")
        found[side][kingside] = castle_for(side, king, rook)
    castle = 0
    castles = []
    for side in (WHITE, BLACK):
        records = tuple(found[side][k] for k in (True, False) if k in found[side])
        castles.append(records)
        for c in records:
            castle |= c.right
    return castle, tuple(castles)


def _parse_ep(text: str, side: int, color: list[int], piece: list[int]) -> int:
    if text == "-":
        return NO_SQUARE
    if text not in SQUARE_NAMES:
        raise FenError(f"bad FEN: en passant square {shorten(text)} is not a square")
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


def _parse_ep_pair(text: str, side: int, color: list[int], piece: list[int],
                   pawn_definition: str) -> tuple[int, int]:
    """Fairy-Stockfish's en passant field of a pawn defined in its notation (Berolina,
    pawnsideways): the square passed and the square of the pawn that passed it (``c3b4``), or
    the square passed alone: (the square, the pawn's square)."""
    names = [text[i:i + 2] for i in range(0, len(text), 2)]
    if len(text) not in (2, 4) or any(n not in SQUARE_NAMES for n in names):
        raise FenError(f"bad FEN: en passant field {shorten(text)} is not one square or two")
    squares = [SQUARE_NAMES.index(n) for n in names]
    mover = side ^ 1
    want_rank = 5 if side == WHITE else 2
    passed = [s for s in squares if color[s] == EMPTY]
    pawns = [s for s in squares if color[s] == mover and piece[s] == PAWN]
    if len(passed) != 1 or passed[0] >> 3 != want_rank:
        raise FenError(f"bad FEN: en passant field {text} must name one empty square, the "
                       f"one passed, on rank {want_rank + 1} with {_SIDE_NAMES[side]} to move")
    ep = passed[0]
    # where the pawn that passed ``ep`` stands: half its double step beyond (straight on for
    # pawnsideways, diagonally for Berolina)
    halves = {(ep & 7) + df // 2 + 8 * ((ep >> 3) + dr // 2)
              for c in parse_piece(pawn_definition, pawn=True).components if c.initial
              for df, dr in c.steps(mover) if 0 <= (ep & 7) + df // 2 < 8}
    if not pawns:  # the square alone
        pawns = [s for s in halves if color[s] == mover and piece[s] == PAWN]
    if len(pawns) != 1 or pawns[0] not in halves:
        raise FenError(f"impossible position: en passant field {text} names no one "
                       f"{_SIDE_NAMES[mover]} pawn that passed {SQUARE_NAMES[ep]}")
    return ep, pawns[0]


def _parse_count(text: str, name: str, lo: int, hi: int) -> int:
    # isascii: str.isdigit() is also true for '²' or '٣', which int() rejects or reads; the
    # length first: int() refuses more than 4,300 digits (and the number is out of range)
    if not (text.isascii() and text.isdigit() and len(text.lstrip("0")) <= len(str(hi))
            and lo <= int(text) <= hi):
        raise FenError(f"bad FEN: {name} must be an integer from {lo} to {hi}, not "
                       f"{shorten(text)}")
    return int(text)


def shorten(text: str, limit: int = 40) -> str:
    """``repr(text)``, cut short: an error line quotes the input, not a megabyte of it."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f"... ({len(text)} chars)"


def format_fen(color, piece, side, castle, ep, fifty, fullmove, variant: Variant = CHESS,
               castles=CASTLES, ep_victim: int = NO_SQUARE, count=(0, 0)) -> str:
    """``ep_victim``: where the variant writes it (``Variant.ep_pair``), the pawn en passant
    would take, written with the square passed in square order, as Fairy-Stockfish does.
    ``count``: makruk's (limit, plies counted); a count in progress takes the en passant and
    halfmove fields."""
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
            row += variant.letter(color[sq], piece[sq])
        rows.append(row + (str(gap) if gap else ""))
    if variant.chess960:
        rights = _xfen_rights(color, piece, castle, castles) or "-"
    else:
        rights = "".join(ch for ch, bit in CASTLING_LETTERS.items() if castle & bit) or "-"
    ep_s = SQUARE_NAMES[ep] if ep != NO_SQUARE else "-"
    if ep != NO_SQUARE and ep_victim != NO_SQUARE:
        ep_s = "".join(SQUARE_NAMES[s] for s in sorted((ep, ep_victim)))
    if count[0]:
        ep_s, fifty = str(count[0]), count[1]
    fifty, fullmove = min(fifty, MAX_HALFMOVE), min(fullmove, MAX_FULLMOVE)
    return f"{'/'.join(rows)} {'wb'[side]} {rights} {ep_s} {fifty} {fullmove}"


def _xfen_rights(color, piece, castle, castles) -> str:
    """K/Q when the castling rook is the outermost rook of its side of the king, else its file
    (python-chess's ``castling_xfen``)."""
    out = ""
    for side in (WHITE, BLACK):
        for c in castles[side]:
            if not castle & c.right:
                continue
            base = c.rook_from & 56
            outside = range(c.rook_from + 1, base + 8) if c.kingside else range(base, c.rook_from)
            inner = any(color[s] == side and piece[s] == ROOK for s in outside)
            ch = "abcdefgh"[c.rook_from & 7] if inner else ("k" if c.kingside else "q")
            out += ch.upper() if side == WHITE else ch
    return out
