"""The piece notation (engine.rules.pieces) and the tables it builds
(engine.rules.posdata.build_tables): orthodox chess comes out byte for byte as before, every
definition walks the squares plain geometry says, and what posdata cannot encode is refused with one
line."""

import hashlib

import numpy as np
import pytest

from posdata.engine.rules.defs import (
    BISHOP,
    BPAWN,
    DIRECTIONS,
    KING,
    KNIGHT,
    PAWN,
    QUEEN,
    ROOK,
    SQUARE_NAMES,
)
from posdata.engine.rules.pieces import AttackKind, PieceError, parse_piece
from posdata.engine.rules.posdata import (
    NEXTDIR,
    NEXTPOS,
    ORTHODOX_LAYOUT,
    build_tables,
    table_rows,
    walk,
)
from posdata.engine.rules.variants import CHESS, VARIANTS

#: SHA-256 of the orthodox tables as they were built before the notation existed (GNU Chess's
#: direction lists), in GNU Chess's ptype order: the gateware's ROM must never change by accident
ORTHODOX_SHA256 = ("02c29ba570e801005fb68596408591bde68353dd5c48d43e4b207b12dc08db01",
                   "aa95e2106b75c011ccc9746dc769f644500d356cb15f62cbe38839fee1b25cc3")
#: our table of each of GNU Chess's ptypes, no_piece 0, pawn 1 .. king 6, bpawn 7
#: (engine.rules.defs: the black pawn takes no_piece's empty table 0, which leaves table 7 empty)
GNU_CHESS_ORDER = [7, PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING, BPAWN]


def test_orthodox_tables_are_byte_identical():
    assert (hashlib.sha256(NEXTPOS[GNU_CHESS_ORDER].tobytes()).hexdigest(),
            hashlib.sha256(NEXTDIR[GNU_CHESS_ORDER].tobytes()).hexdigest()) == ORTHODOX_SHA256
    nextpos, nextdir = CHESS.tables()
    assert np.array_equal(nextpos, NEXTPOS) and np.array_equal(nextdir, NEXTDIR)
    assert CHESS.layout == ORTHODOX_LAYOUT


@pytest.mark.parametrize("text, code", [("N", KNIGHT), ("B", BISHOP), ("R", ROOK), ("Q", QUEEN),
                                        ("K", KING)])
def test_shorthands_walk_gnu_chess_directions(text, code):
    """The notation's atoms keep GNU Chess's direction order (the generation order)."""
    moves = parse_piece(text)
    rider = text in "BRQ"
    for frm in range(64):
        want = []
        for df, dr in DIRECTIONS[code]:
            f, r = (frm & 7) + df, (frm >> 3) + dr
            while 0 <= f < 8 and 0 <= r < 8:
                want.append(r * 8 + f)
                if not rider:
                    break
                f, r = f + df, r + dr
        assert [u for ray in moves.rays(frm) for u in ray] == want


def geometric(text: str, frm: int, occupied=frozenset()) -> set[int]:
    """Plain stepping from the definition's meaning (not the parser): a set of (leap, rider)."""
    leaps = {"W": (1, 0), "F": (1, 1), "D": (2, 0), "A": (2, 2), "N": (2, 1)}
    parts = {"QN": "WW FF N", "RN": "WW N", "NN": "NN", "BN": "FF N", "K": "W F", "DD": "DD",
             "AA": "AA", "WA": "W A", "FD": "F D", "W": "W"}[text]
    out = set()
    for part in parts.split():
        x, y = leaps[part[0]]
        rider = len(part) == 2
        dirs = {(sx * a, sy * b) for a, b in ((x, y), (y, x)) for sx in (1, -1) for sy in (1, -1)}
        for df, dr in dirs:
            f, r = (frm & 7) + df, (frm >> 3) + dr
            while 0 <= f < 8 and 0 <= r < 8:
                out.add(r * 8 + f)
                if not rider or r * 8 + f in occupied:
                    break
                f, r = f + df, r + dr
    return out


@pytest.mark.parametrize("text", ["QN", "RN", "NN", "BN", "K", "DD", "AA", "WA", "FD", "W"])
def test_walks_match_geometry_with_blockers(text):
    import random
    rng = random.Random(text)
    nextpos, nextdir = build_tables((None, text) + (None,) * 6)
    pos, dirs = table_rows(nextpos), table_rows(nextdir)
    for _ in range(200):
        frm = rng.randrange(64)
        occupied = {s for s in range(64) if s != frm and rng.random() < rng.choice((0.1, 0.4))}
        seen = walk(1, frm, occupied, pos, dirs)
        assert len(seen) == len(set(seen)), (text, SQUARE_NAMES[frm])
        assert set(seen) == geometric(text, frm, occupied), (text, SQUARE_NAMES[frm])


@pytest.mark.parametrize("text, word", [
    ("RW", "both reach"),        # a wazir step inside a rook's ride
    ("RD", "both reach"),        # a dabbaba leap inside it
    ("NNN", "both reach"),       # a knight leap inside a nightrider's line
    ("QK", "both reach"),
    ("RR", "both reach"),
    ("X", "unknown atom"),
    ("Qn", "unknown atom"),
    ("", "empty"),
    ("+", "empty"),
    ("W\u00b2", "unknown atom"),  # isdigit(), not a digit int() reads
    ("N\u0663", "unknown atom"),  # an Arabic-Indic 3, which int() would read
    ("m" * 5000, "modifiers"),
])
def test_unencodable_or_unknown_definitions_are_refused(text, word):
    with pytest.raises(PieceError) as info:
        parse_piece(text)
    assert word in str(info.value) and "\n" not in str(info.value)
    assert len(str(info.value)) < 300  # the definition quoted cut short


def test_range_limits_read_from_ascii_digits():
    assert parse_piece("R07").components == parse_piece("R7").components
    assert parse_piece("R" + "0" * 5000 + "4").components == parse_piece("R4").components
    assert parse_piece("R0").components == parse_piece("R").components
    # a ride on the board has 7 steps at most: a larger limit is 7, however many digits
    # (past the 4,300 int() reads)
    for longer in ("R8", "R99", "R" + "1" * 5000):
        assert parse_piece(longer).components == parse_piece("R7").components


def test_compounds_and_separators():
    assert parse_piece("Q+N").components == parse_piece("QN").components
    assert parse_piece("R+N").components == parse_piece("WWN").components


@pytest.mark.parametrize("text, kinds", [
    ("Q", AttackKind.ORTHOGONAL_RIDER | AttackKind.DIAGONAL_RIDER),
    ("QN", AttackKind.ORTHOGONAL_RIDER | AttackKind.DIAGONAL_RIDER | AttackKind.KNIGHT_LEAPER),
    ("RN", AttackKind.ORTHOGONAL_RIDER | AttackKind.KNIGHT_LEAPER),
    ("NN", AttackKind.KNIGHT_RIDER),
    ("K", AttackKind.KING_STEP),
    ("W", AttackKind.WAZIR_STEP),
    ("FD", AttackKind.FERZ_STEP | AttackKind.DABBABA_LEAPER),
])
def test_attack_kinds(text, kinds):
    assert parse_piece(text).attack_kinds == kinds


@pytest.mark.parametrize("variant", [v for v in VARIANTS if not v.has_modes],
                         ids=lambda v: v.name)
def test_every_variant_table_walk_ends(variant):
    """Following nextpos only or nextdir only returns to the from-square within 64 steps, and
    no table entry leaves the board (6 bits: the ROM width). (Variants with modes have walks,
    not tables: tests/engine/rules/test_walks.py.)"""
    nextpos, nextdir = variant.tables()
    assert nextpos.shape == nextdir.shape == (8, 64, 64) and nextpos.dtype == np.uint8
    assert int(nextpos.max()) < 64 and int(nextdir.max()) < 64
    for t in range(8):
        for frm in range(64):
            for table in (nextpos, nextdir):
                u, steps = table[t, frm, frm], 0
                while u != frm:
                    u = table[t, frm, u]
                    steps += 1
                    assert steps < 64
