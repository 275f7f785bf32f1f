"""A variant's tables as the Python hot loops read them, built once per variant.

* ``pos_rows[side][code * 64 + sq]`` / ``dir_rows[...]``: the nextpos/nextdir row of the table
  that a piece of ``code`` of ``side`` walks from ``sq`` (``Variant.table_index`` folded in, so
  the generator indexes by piece code alone, black pawns included); None for a piece with modes.
* ``promotion_words[side]``: the flag and piece bits of a side's promotions, in generation order.
* ``attack_walks``: for the attack test, one super-piece walk per attack kind the variant has:
  (nextpos rows, nextdir rows, rider?, the piece codes that attack that way). Sandström's
  SqAtakd rule for any symmetric piece: a piece on ``t`` attacks ``s`` iff the same piece on
  ``s`` reaches ``t``; so from ``s`` a walk of each kind meets every possible attacker.
* ``line_attackers``: (orthogonal, diagonal) rider codes, for makemove's and bulk perft's pin
  tests; ``lines_only``: every rider the variant has moves along ranks, files and diagonals,
  so those cheap tests are exact (a nightrider line can pin too: then the full test runs).

Pieces with modes (``engine.rules.pieces``: move-only and capture-only moves, hoppers, lame leaps,
asymmetric pieces, a pawn defined in the notation) walk ``walks[side][code * 64 + sq]``
(``engine.rules.pieces.Walk``), the codes ``moded[side]``. Their attack: a piece whose capturing
components are all plain atoms or riders (``mNcB`` captures as a bishop) joins the super-piece
walk of that kind; any other (a hopper, a lame leaper, a pawn, an asymmetric piece) is
*scanned*: from the target, ``scanned[by]`` lists per code the squares from which its walk can
capture there, and the test follows the walk of each such piece standing on one. A scanned
attack that a move elsewhere can open or close (a hopper's screen, a lame leap's block, a
directed or limited rider) leaves no cheap pin test: ``lines_only`` is then False.
"""

from dataclasses import dataclass
from functools import cache

from .defs import BLACK, PAWN, PAWN_MOVE, PROMO_SHIFT, PROMOTION, WHITE
from .pieces import CAPTURE, KIND_DEFINITION, AttackKind, parse_piece
from .posdata import build_rows, piece_walks
from .variants import ORTHODOX, Variant, get_variant

_LINE_KINDS = AttackKind.ORTHOGONAL_RIDER | AttackKind.DIAGONAL_RIDER
_RIDER_KINDS = (_LINE_KINDS | AttackKind.KNIGHT_RIDER | AttackKind.DABBABA_RIDER
                | AttackKind.ALFIL_RIDER)


@dataclass(frozen=True)
class VariantData:
    variant: Variant
    pos_rows: tuple[list, list]
    dir_rows: tuple[list, list]
    promotion_words: tuple[tuple[int, ...], tuple[int, ...]]
    attack_walks: tuple
    line_attackers: tuple[frozenset, frozenset]
    lines_only: bool
    orthodox: bool  #: the pieces of orthodox chess: the board's hand-written attack test applies
    walks: tuple[list, list]  #: per side, by code * 64 + sq: a piece with modes' Walk
    moded: tuple[frozenset, frozenset]  #: per side, the codes that walk ``walks``
    promoting: tuple  #: per side, the to-squares where a pawn promotes
    pawn_threads: bool  #: the orthodox pawn (its capture thread finds its attacks)
    #: per attacking side: (code, per target square the from-squares, the code's walks)
    scanned: tuple[tuple, tuple]
    bare_king: bool  #: the variant's bare-king rule (engine.rules.variants)
    ep_by_history: bool  #: the en passant victim is the last double step's pawn (not to -+ 8)


@cache
def variant_data(variant) -> VariantData:
    variant = get_variant(variant)
    pos, dirs = build_rows(variant.plain_layout)  # plain lists: no numpy for a software walk
    pos_rows, dir_rows = [], []
    empty = [[frm] * 64 for frm in range(64)]  # codes a variant lacks walk nowhere
    for side in (WHITE, BLACK):
        prow, drow = empty * 8, empty * 8
        for p in variant.pieces:
            t = variant.table_index(side, p.code)
            prow[p.code * 64:(p.code + 1) * 64] = pos[t * 64:(t + 1) * 64]
            drow[p.code * 64:(p.code + 1) * 64] = dirs[t * 64:(t + 1) * 64]
        pos_rows.append(prow)
        dir_rows.append(drow)
    promotion_words = tuple(tuple(PAWN_MOVE | PROMOTION | code << PROMO_SHIFT for code in codes)
                            for codes in variant.promotions)

    walks, moded = ([None] * 512, [None] * 512), (set(), set())
    scanned = ([], [])
    discoverable = False
    for p in variant.pieces:
        if not variant.moded(p.code):
            continue
        pawn = p.code == PAWN
        definition = variant.pawn if pawn else p.moves
        moves = parse_piece(definition, pawn)
        for side in (WHITE, BLACK):
            rows = piece_walks(definition, side, pawn)
            walks[side][p.code * 64:(p.code + 1) * 64] = rows
            pos_rows[side][p.code * 64:(p.code + 1) * 64] = [None] * 64  # the walks instead
            moded[side].add(p.code)
            if pawn or moves.scanned:
                sources = [[] for _ in range(64)]
                for frm, w in enumerate(rows):
                    for u, mode in zip(w.squares, w.modes):
                        if mode & CAPTURE and frm not in sources[u]:
                            sources[u].append(frm)
                scanned[side].append((p.code, tuple(map(tuple, sources)), rows))
        if pawn or moves.scanned:
            discoverable |= any(c.discoverable for c in moves.components)
    zone = variant.promotion_rank * 8
    promoting = (range(zone, 64), range(64 - zone))

    kinds = {}  # attack kind -> codes
    for p in variant.pieces:
        if p.code == PAWN:
            continue
        moves = parse_piece(p.moves)
        if moves.scanned:
            continue
        for kind in moves.capture_kinds:
            kinds.setdefault(kind, set()).add(p.code)
    attack_walks = []
    # leapers first (cheap), then riders, the king's steps last: any order gives the same answer
    for kind in sorted(kinds, key=lambda k: (bool(k & _RIDER_KINDS), k == AttackKind.KING_STEP)):
        kpos, kdir = build_rows((None, KIND_DEFINITION[kind]) + (None,) * 6)
        attack_walks.append((kpos[64:128], kdir[64:128], bool(kind & _RIDER_KINDS),
                             frozenset(kinds[kind])))
    orthogonal = frozenset(kinds.get(AttackKind.ORTHOGONAL_RIDER, ()))
    diagonal = frozenset(kinds.get(AttackKind.DIAGONAL_RIDER, ()))
    lines_only = not discoverable and not any(k & _RIDER_KINDS and not k & _LINE_KINDS
                                              for k in kinds)
    return VariantData(variant, tuple(pos_rows), tuple(dir_rows), promotion_words,
                       tuple(attack_walks), (orthogonal, diagonal), lines_only,
                       variant.pieces == ORTHODOX and not variant.has_modes, walks,
                       tuple(map(frozenset, moded)), promoting, variant.pawn is None,
                       tuple(map(tuple, scanned)), variant.bare_king, variant.pawn is not None)
