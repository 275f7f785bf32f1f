"""Walks with modes (engine.rules.pieces, engine.rules.posdata.piece_walks): Betza's modifiers come
out as plain geometry says, Sandström's tables are the special case where every entry emits both
kinds of move, the generic walker reproduces orthodox chess move for move, and what a walk cannot
hold is refused in one line."""

import random
from dataclasses import replace

import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import BPAWN, NO_SQUARE, PAWN, SQUARE_NAMES
from posdata.engine.rules.perft import perft
from posdata.engine.rules.pieces import BOTH, CAPTURE, QUIET, PieceError, parse_piece
from posdata.engine.rules.posdata import (
    NEXTDIR_ROWS,
    NEXTPOS_ROWS,
    ORTHODOX_LAYOUT,
    ORTHODOX_PAWN,
    follow,
    piece_walks,
    sandstrom_walk,
)
from posdata.engine.rules.positions import STANDARD_POSITIONS
from posdata.engine.rules.variants import CHESS, VARIANTS

WHITE, BLACK = 0, 1


def _on(f, r):
    return 0 <= f < 8 and 0 <= r < 8


def reference_targets(kind: str, frm: int, occupied: set, color: int = WHITE):
    """(quiet targets, capture targets) of a few fairy pieces by plain stepping, written from
    the pieces' rules (not from the parser): the capture targets are the occupied squares the
    piece could take on."""
    f0, r0 = frm & 7, frm >> 3
    fwd = 1 if color == WHITE else -1
    quiet, capture = set(), set()
    eight = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)]
    knight = [(a * x, b * y) for x, y in ((1, 2), (2, 1)) for a in (1, -1) for b in (1, -1)]

    def ride(dirs, limit=7):
        out = []
        for df, dr in dirs:
            f, r, n = f0 + df, r0 + dr, 0
            while _on(f, r) and n < limit:
                out.append((r * 8 + f, r * 8 + f in occupied))
                if r * 8 + f in occupied:
                    break
                f, r, n = f + df, r + dr, n + 1
        return out

    if kind == "gQ":  # the grasshopper: lands just beyond the first piece on its line
        for df, dr in eight:
            f, r = f0 + df, r0 + dr
            while _on(f, r) and r * 8 + f not in occupied:
                f, r = f + df, r + dr
            if _on(f, r) and _on(f + df, r + dr):
                u = (r + dr) * 8 + f + df
                (capture if u in occupied else quiet).add(u)
    elif kind == "mRcpR":  # the xiangqi cannon
        for u, occ in ride(eight[:4]):
            if not occ:
                quiet.add(u)
        for df, dr in eight[:4]:
            f, r = f0 + df, r0 + dr
            while _on(f, r) and r * 8 + f not in occupied:
                f, r = f + df, r + dr
            f, r = f + df, r + dr  # past the screen
            while _on(f, r):
                if r * 8 + f in occupied:
                    capture.add(r * 8 + f)
                    break
                f, r = f + df, r + dr
    elif kind == "nN":  # the xiangqi horse: blocked next to it along the long leg
        for df, dr in knight:
            leg = (f0 + (df // 2 if abs(df) == 2 else 0), r0 + (dr // 2 if abs(dr) == 2 else 0))
            if _on(f0 + df, r0 + dr) and leg[1] * 8 + leg[0] not in occupied:
                u = (r0 + dr) * 8 + f0 + df
                (capture if u in occupied else quiet).add(u)
    elif kind == "mNcB":
        for df, dr in knight:
            u = (r0 + dr) * 8 + f0 + df
            if _on(f0 + df, r0 + dr) and u not in occupied:
                quiet.add(u)
        capture.update(u for u, occ in ride(eight[4:]) if occ)
    elif kind == "R4":
        for u, occ in ride(eight[:4], 4):
            (capture if occ else quiet).add(u)
    elif kind == "FfW":  # makruk's khon: a ferz or one step forward
        for u, occ in ride(eight[4:] + [(0, fwd)], 1):
            (capture if occ else quiet).add(u)
    return quiet, capture


def emitted(walk, occupied):
    quiet, capture = set(), set()
    for u, mode in follow(walk, occupied):
        if u in occupied and mode & CAPTURE:
            capture.add(u)
        elif u not in occupied and mode & QUIET:
            quiet.add(u)
    return quiet, capture


@pytest.mark.parametrize("kind", ["gQ", "mRcpR", "nN", "mNcB", "R4", "FfW"])
@pytest.mark.parametrize("color", [WHITE, BLACK])
def test_walks_match_the_pieces_rules_with_blockers(kind, color):
    rng = random.Random(f"{kind}-{color}")
    walks = piece_walks(kind, color)
    for _ in range(300):
        frm = rng.randrange(64)
        density = rng.choice((0.1, 0.3, 0.6))
        occupied = {s for s in range(64) if s != frm and rng.random() < density}
        assert emitted(walks[frm], occupied) == reference_targets(kind, frm, occupied, color), \
            (kind, color, SQUARE_NAMES[frm], sorted(occupied))


def test_every_successor_lies_ahead():
    """What the dense layout needs: every walk is one forward pass."""
    definitions = {(p.moves, False) for v in VARIANTS for p in v.pieces if p.moves}
    definitions |= {(v.pawn, True) for v in VARIANTS if v.pawn}
    definitions |= {("mRcpR", False), ("nN", False), ("R4", False), ("gQ", False)}
    for text, pawn in definitions:
        for color in (WHITE, BLACK):
            for walk in piece_walks(text, color, pawn):
                n = len(walk)
                for i in range(n):
                    assert i < walk.on_empty[i] <= n and i < walk.on_occupied[i] <= n, text


@pytest.mark.parametrize("table", range(2, 7))
def test_sandstrom_s_tables_are_the_walk_that_emits_both(table):
    """A plain piece's walk is its (from, to) rows read as entries, entry for entry."""
    definition = ORTHODOX_LAYOUT[table]
    for frm in range(64):
        row = table * 64 + frm
        want = sandstrom_walk(NEXTPOS_ROWS[row], NEXTDIR_ROWS[row], frm)
        assert piece_walks(definition)[frm] == want, (definition, SQUARE_NAMES[frm])
        assert set(want.modes) <= {BOTH}


@pytest.mark.parametrize("color, table", [(WHITE, PAWN), (BLACK, BPAWN)])
def test_the_pawn_in_the_notation_walks_its_threads(color, table):
    for frm in range(8, 56):
        row = table * 64 + frm
        threads = sandstrom_walk(NEXTPOS_ROWS[row], NEXTDIR_ROWS[row], frm, pawn=True)
        ours = piece_walks(ORTHODOX_PAWN, color, pawn=True)[frm]
        emitting = [(u, m) for u, m in zip(ours.squares, ours.modes) if m]
        assert emitting == list(zip(threads.squares, threads.modes)), SQUARE_NAMES[frm]


#: orthodox chess with its pawns and riders walked by the generic walker (a range limit of 7
#: changes no move on 8x8, but the piece is no longer plain, so it walks entry by entry)
WALKED_CHESS = replace(
    CHESS, name="walked-chess", pawn=ORTHODOX_PAWN,
    pieces=tuple(replace(p, moves=p.moves + "7" if p.moves in ("B", "R", "Q") else p.moves)
                 for p in CHESS.pieces))


@pytest.mark.parametrize("position", STANDARD_POSITIONS, ids=lambda p: p.name)
def test_the_generic_walker_plays_orthodox_chess_move_for_move(position):
    """Same moves in the same order at every node of perft(2), the same counts at 3."""
    ours, ref = Board(position.fen, WALKED_CHESS), Board(position.fen)
    assert ours.data.moded[WHITE] == ours.data.moded[BLACK] == {PAWN, 3, 4, 5}

    def walk(depth):
        a, b = ours.moves(), ref.moves()
        assert a == b, ref.fen()
        if depth > 1:
            for m in list(a):
                if ref.makemove(m):
                    assert ours.makemove(m)
                    walk(depth - 1)
                    ours.takeback()
                    ref.takeback()
                else:
                    assert not ours.makemove(m)
    walk(2)
    if position.counts[2] < 10_000:  # the heavier ones cost seconds for no new case
        assert perft(ours, 3) == position.counts[2]


@pytest.mark.parametrize("text, words", [
    ("jN", "multi-leg"),
    ("aW", "multi-leg"),
    ("oR", "cylinder"),
    ("pN", "needs a rider"),
    ("gW", "needs a rider"),
    ("pR4", "range limit"),
    ("nR", "lame"),
    ("nW", "lame"),
    ("iW", "pawn's modifier"),
    ("eF", "pawn's modifier"),
    ("sN", "ambiguous"),
    ("flW", "select no move"),
    ("Rn", "unknown atom"),
    ("mRmW", "generated twice"),
    ("RW", "one successor per square"),
    ("wN", "unknown modifier"),
])
def test_what_a_walk_cannot_hold_is_refused_in_one_line(text, words):
    with pytest.raises(PieceError) as info:
        parse_piece(text)
    assert words in str(info.value) and "\n" not in str(info.value), str(info.value)


def test_divergent_and_limited_pieces_parse():
    assert [c.text for c in parse_piece("mNcB").components] == ["mN", "cFF"]
    assert [c.text for c in parse_piece("R4").components] == ["W4"]
    assert [c.text for c in parse_piece("W3").components] == ["W3"]
    assert parse_piece("N0").components == parse_piece("NN").components
    assert parse_piece("mRcpR").scanned and not parse_piece("mNcB").scanned
    assert parse_piece("FfW").asymmetric and not parse_piece("gQ").asymmetric


def test_berolina_en_passant_takes_the_pawn_that_passed():
    """The victim is not beside the square passed: it is kept with the en passant state."""
    board = Board("4k3/8/8/8/2p5/8/3P4/4K3 w - - 0 1", "berolina")
    board.push_uci("d2b4")
    assert board.ep == 18 and board.fen() == "4k3/8/8/8/1Pp5/8/8/4K3 b - c3b4 0 1"
    m = board.parse_uci("c4c3")
    assert board.makemove(m)
    assert board.fen() == "4k3/8/8/8/8/2p5/8/4K3 w - - 0 2"
    board.takeback()
    assert board.fen() == "4k3/8/8/8/1Pp5/8/8/4K3 b - c3b4 0 1"
    # read back from the FEN, with the pair and with the square alone
    for fen in ("4k3/8/8/8/1Pp5/8/8/4K3 b - c3b4 0 1", "4k3/8/8/8/1Pp5/8/8/4K3 b - c3 0 1"):
        b = Board(fen, "berolina")
        assert b.root_ep_victim == 25 and "c4c3" in map(b.uci, b.legal_moves())
        b.push_uci("c4c3")
        assert b.color[25] == 2 and b.fen().startswith("4k3/8/8/8/8/2p5/8/4K3 w")


def test_shatranj_s_bare_king_ends_the_game():
    assert Board("4k3/8/8/8/3B4/8/8/4K3 w - - 0 1", "shatranj").legal_moves() == []
    assert Board("4k3/8/8/8/8/8/8/R1Q1K3 b - - 0 1", "shatranj").legal_moves() == []
    # the bare side to move may still bare the other king back
    assert len(Board("4k3/8/8/8/8/8/P7/4K3 b - - 0 1", "shatranj").legal_moves()) == 5
    assert len(Board("4k3/8/8/8/8/8/8/4K3 w - - 0 1", "shatranj").legal_moves()) == 5


def test_a_variant_without_double_steps_never_sets_en_passant():
    board = Board(variant="makruk")
    for text in ("a3a4", "a6a5", "b3b4"):
        board.push_uci(text)
        assert board.ep == NO_SQUARE
