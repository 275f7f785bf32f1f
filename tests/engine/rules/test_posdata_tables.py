"""Invariants of the posdata tables, checked against plain geometry (no mailbox, no DIRECTIONS
except where the test is about the documented generation order)."""

import random

import numpy as np
import pytest

from posdata.engine.rules.defs import (
    BISHOP,
    BLACK,
    BPAWN,
    DIRECTIONS,
    KING,
    KNIGHT,
    N_TABLES,
    PAWN,
    QUEEN,
    ROOK,
    SQUARE_NAMES,
    WHITE,
    parse_square,
    ptype,
)
from posdata.engine.rules.posdata import (
    NEXTDIR,
    NEXTDIR_ROWS,
    NEXTPOS,
    NEXTPOS_ROWS,
    build_posdata,
    walk,
)

PIECES = (KNIGHT, BISHOP, ROOK, QUEEN, KING)


def geometric_targets(pt: int, frm: int) -> set[int]:
    """Where a piece of type ``pt`` on ``frm`` goes on an empty board, from the rules of chess."""
    f0, r0 = frm & 7, frm >> 3
    out = set()
    for to in range(64):
        df, dr = abs((to & 7) - f0), abs((to >> 3) - r0)
        if to == frm:
            continue
        knight = {df, dr} == {1, 2}
        king = max(df, dr) == 1
        rook = df == 0 or dr == 0
        bishop = df == dr
        if {KNIGHT: knight, KING: king, ROOK: rook, BISHOP: bishop,
                QUEEN: rook or bishop}[pt]:
            out.add(to)
    return out


def traced_walk(pt: int, frm: int, occupied: set[int]) -> set[int]:
    """The squares a piece visits with blockers: along each ray up to and including the first
    occupied square (independent of the tables: plain stepping)."""
    steps = {KNIGHT: [(1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1)],
             BISHOP: [(1, 1), (1, -1), (-1, 1), (-1, -1)],
             ROOK: [(1, 0), (-1, 0), (0, 1), (0, -1)]}
    steps[QUEEN] = steps[KING] = steps[BISHOP] + steps[ROOK]
    slides = pt in (BISHOP, ROOK, QUEEN)
    seen = set()
    for df, dr in steps[pt]:
        f, r = (frm & 7) + df, (frm >> 3) + dr
        while 0 <= f < 8 and 0 <= r < 8:
            seen.add(r * 8 + f)
            if not slides or r * 8 + f in occupied:
                break
            f, r = f + df, r + dr
    return seen


# --- shape and defaults ----------------------------------------------------------------------

def test_shape_and_range():
    for table in (NEXTPOS, NEXTDIR):
        assert table.shape == (N_TABLES, 64, 64)
        assert table.dtype == np.uint8
        assert int(table.max()) < 64  # 6 bits per entry: the ROM width
    assert not NEXTPOS.flags.writeable and not NEXTDIR.flags.writeable


def test_build_is_pure_and_rows_match_arrays():
    nextpos, nextdir = build_posdata()
    assert np.array_equal(nextpos, NEXTPOS) and np.array_equal(nextdir, NEXTDIR)
    assert NEXTPOS_ROWS == NEXTPOS.reshape(-1, 64).tolist()
    assert NEXTDIR_ROWS == NEXTDIR.reshape(-1, 64).tolist()


def test_the_table_no_piece_walks_is_empty():
    """Orthodox chess's pieces fill tables 0..6; the eighth (a variant's code 7) is empty."""
    used = {ptype(c, p) for c in (WHITE, BLACK) for p in (PAWN,) + PIECES}
    assert used == set(range(7))
    for t in set(range(N_TABLES)) - used:
        for frm in range(64):
            assert (NEXTPOS[t, frm] == frm).all()
            assert (NEXTDIR[t, frm] == frm).all()


def test_black_pawn_has_its_own_ptype():
    assert ptype(BLACK, PAWN) == BPAWN != PAWN
    assert ptype(WHITE, PAWN) == PAWN
    assert all(ptype(c, p) == p for c in (WHITE, BLACK) for p in PIECES)


def test_entries_off_the_walk_default_to_the_from_square():
    for pt in PIECES:
        for frm in range(64):
            on_walk = set(walk(pt, frm)) | {frm}
            for u in range(64):
                if u not in on_walk:
                    assert NEXTPOS[pt, frm, u] == frm and NEXTDIR[pt, frm, u] == frm


# --- mobility on an empty board --------------------------------------------------------------

@pytest.mark.parametrize("pt, sq, count", [
    (KNIGHT, "a1", 2), (KNIGHT, "b1", 3), (KNIGHT, "d4", 8), (KNIGHT, "h8", 2),
    (QUEEN, "d4", 27), (QUEEN, "a1", 21), (ROOK, "a1", 14), (ROOK, "d4", 14),
    (BISHOP, "a1", 7), (BISHOP, "d4", 13), (KING, "a1", 3), (KING, "e1", 5), (KING, "d4", 8),
])
def test_empty_board_mobility(pt, sq, count):
    frm = parse_square(sq)
    seen = walk(pt, frm)
    assert len(seen) == count, [SQUARE_NAMES[u] for u in seen]


@pytest.mark.parametrize("pt, total", [
    (KNIGHT, 336), (BISHOP, 560), (ROOK, 896), (QUEEN, 1456), (KING, 420)])
def test_empty_board_totals(pt, total):
    """The well-known numbers of moves of a piece summed over all 64 squares."""
    assert sum(len(walk(pt, frm)) for frm in range(64)) == total


@pytest.mark.parametrize("pt", PIECES)
def test_empty_board_walk_matches_geometry(pt):
    for frm in range(64):
        seen = walk(pt, frm)
        assert len(seen) == len(set(seen)), f"{SQUARE_NAMES[frm]}: a square visited twice"
        assert set(seen) == geometric_targets(pt, frm), SQUARE_NAMES[frm]


# --- walks end, and blockers stop rays -------------------------------------------------------

@pytest.mark.parametrize("pt", list(PIECES) + [PAWN, BPAWN])
def test_every_walk_ends_at_its_from_square(pt):
    """Following nextpos only, nextdir only, or any mixture, returns to ``frm`` in < 64 steps."""
    rng = random.Random(pt)
    for frm in range(64):
        for table_choice in ("pos", "dir", "mixed", "mixed"):
            u, steps = NEXTPOS[pt, frm, frm] if table_choice != "dir" else NEXTDIR[pt, frm, frm], 0
            while u != frm:
                use_dir = table_choice == "dir" or (table_choice == "mixed" and rng.random() < 0.4)
                u = (NEXTDIR if use_dir else NEXTPOS)[pt, frm, u]
                steps += 1
                assert steps < 64, f"walk of ptype {pt} from {SQUARE_NAMES[frm]} does not end"


@pytest.mark.parametrize("pt", PIECES)
def test_walk_with_blockers_matches_ray_tracing(pt):
    rng = random.Random(1000 + pt)
    for _ in range(300):
        frm = rng.randrange(64)
        occupied = {s for s in range(64) if s != frm and rng.random() < rng.choice((0.1, 0.3, 0.6))}
        seen = walk(pt, frm, occupied)
        assert len(seen) == len(set(seen))
        assert set(seen) == traced_walk(pt, frm, occupied), (SQUARE_NAMES[frm], sorted(occupied))


@pytest.mark.parametrize("pt", PIECES)
def test_walk_order_follows_directions(pt):
    """The documented generation order: rays in DIRECTIONS order, near to far."""
    for frm in range(64):
        expected = []
        for df, dr in DIRECTIONS[pt]:
            f, r = (frm & 7) + df, (frm >> 3) + dr
            while 0 <= f < 8 and 0 <= r < 8:
                expected.append(r * 8 + f)
                if pt in (KNIGHT, KING):
                    break
                f, r = f + df, r + dr
        assert walk(pt, frm) == expected, SQUARE_NAMES[frm]


@pytest.mark.parametrize("pt", (KNIGHT, KING))
def test_leapers_chain_the_same_through_both_tables(pt):
    assert np.array_equal(NEXTPOS[pt], NEXTDIR[pt])


# --- pawn threads ----------------------------------------------------------------------------

def pawn_threads(pt: int, frm: int) -> tuple[list[int], list[int]]:
    """(push thread, capture thread) as the generator reads them."""
    def follow(table):
        out, u = [], table[pt, frm, frm]
        while u != frm:
            out.append(int(u))
            u = table[pt, frm, u]
        return out
    return follow(NEXTPOS), follow(NEXTDIR)


@pytest.mark.parametrize("pt, forward, home, last", [(PAWN, 8, 1, 7), (BPAWN, -8, 6, 0)])
def test_pawn_threads_on_every_rank(pt, forward, home, last):
    """Every square a pawn can stand on (ranks 2..7), plus the last rank (empty threads).
    The first rank of each colour is not a legal pawn square and is not specified."""
    ranks = range(1, 8) if pt == PAWN else range(7)
    for frm in (r * 8 + f for r in ranks for f in range(8)):
        pushes, captures = pawn_threads(pt, frm)
        file, rank = frm & 7, frm >> 3
        if rank == last:
            assert pushes == [] and captures == [], SQUARE_NAMES[frm]
            continue
        want_pushes = [frm + forward] + ([frm + 2 * forward] if rank == home else [])
        assert pushes == want_pushes, SQUARE_NAMES[frm]
        # captures: the diagonals forward, west before east (DIRECTIONS order 9/11, -9/-11)
        west, east = frm + forward - 1, frm + forward + 1
        want_caps = ([west] if file > 0 else []) + ([east] if file < 7 else [])
        if pt == BPAWN:  # black's order: -9 (south-east) before -11 (south-west)
            want_caps = ([east] if file < 7 else []) + ([west] if file > 0 else [])
        assert captures == want_caps, SQUARE_NAMES[frm]
        if file in (0, 7):
            assert len(captures) == 1, f"edge file pawn on {SQUARE_NAMES[frm]}"
