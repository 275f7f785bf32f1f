"""The modifiers no registered variant uses, against Fairy-Stockfish all the same: a variant of
our own given to pyffish as a config (its custom pieces read Betza's notation as engine.rules.pieces
does) with the xiangqi horse ``nN`` (lame), the cannon ``mRcpR`` (moves as a rook, captures
over a screen) and a rook limited to four squares ``R4``. Seeded playouts that pyffish plays:
legal moves, the FEN after the move and checks given, with floors for lame blocks, hops and
the limit."""

import random
from collections import Counter
from functools import cache

import pyffish
import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import KING, PAWN, QUEEN, ROOK
from posdata.engine.rules.variants import PAWN_T, PieceType, Variant

from .fen_squares import board_of

CONFIG = """
[legtest:chess]
knight = -
bishop = -
customPiece1 = h:nN
customPiece2 = c:mRcpR
customPiece3 = l:R4
startFen = rhclkchr/pppppppp/8/8/8/8/PPPPPPPP/RHCLKCHR w KQkq - 0 1
promotionPieceTypes = lch
"""
HORSE, CANNON, LIMITED = 2, 3, QUEEN
LEGTEST = Variant(
    "legtest", "legtest", "a test variant: xiangqi horse, cannon, limited rook",
    (PAWN_T, PieceType(HORSE, "h", "horse", "nN", 300),
     PieceType(CANNON, "c", "cannon", "mRcpR", 400), PieceType(ROOK, "r", "rook", "R", 500),
     PieceType(LIMITED, "l", "short rook", "R4", 400), PieceType(KING, "k", "king", "K", 0)),
    "rhclkchr/pppppppp/8/8/8/8/PPPPPPPP/RHCLKCHR w KQkq - 0 1",
    ((LIMITED, CANNON, HORSE),) * 2)
STARTS = (
    LEGTEST.start_fen,
    "l3k3/2p5/8/8/8/8/5P2/L3K3 w - - 0 1",
    "4k3/1p1p4/2h1c3/8/3P4/2C1H3/1P1P4/4K3 w - - 0 1",
    "r3k2r/p1pl1ppp/2h5/8/8/2H5/P1PL1PPP/R3K2R w KQkq - 0 1",
    "4k3/1P4P1/2c5/8/8/5C2/1p4p1/4K3 w - - 0 1",
)
GAMES, SLOW_GAMES = 5, 15
FLOORS = {"lame_block": 20, "hop": 5, "limited_stop": 10, "promotion": 3, "check": 2}


@pytest.fixture(scope="module", autouse=True)
def legtest():
    pyffish.load_variant_config(CONFIG)
    assert pyffish.start_fen("legtest") == LEGTEST.start_fen


def _square(f: int, r: int) -> str | None:
    return "abcdefgh"[f] + str(r + 1) if 0 <= f < 8 and 0 <= r < 8 else None


def features(board: dict, side: str, legal: list[str]) -> set[str]:
    """From the position alone: a horse whose leap is blocked at its leg, a cannon's capture
    over a screen, a short rook with a fifth square free beyond its reach, a promotion."""
    found = set()
    own = str.isupper if side == "w" else str.islower
    for sq, ch in board.items():
        if not own(ch):
            continue
        f, r = ord(sq[0]) - 97, int(sq[1]) - 1
        if ch.lower() == "h":
            for df, dr in ((1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1)):
                leg = _square(f + (df // 2 if abs(df) == 2 else 0),
                              r + (dr // 2 if abs(dr) == 2 else 0))
                if _square(f + df, r + dr) and leg in board:
                    found.add("lame_block")
        if ch.lower() == "l":
            for df, dr in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                path = [_square(f + df * k, r + dr * k) for k in range(1, 6)]
                if None not in path and not any(p in board for p in path):
                    found.add("limited_stop")
    for m in legal:
        if board[m[:2]].lower() == "c" and m[2:4] in board:
            found.add("hop")
        if len(m) == 5:
            found.add("promotion")
    return found


@cache
def sample(games: int) -> tuple[list[tuple], Counter]:
    rng = random.Random("legtest")
    records, counts = [], Counter()
    for game in range(games):
        fen = STARTS[game % len(STARTS)]
        for _ in range(rng.randrange(20, 40)):
            legal = pyffish.legal_moves("legtest", fen, [])
            if not legal:
                break
            board = board_of(fen)
            counts.update(features(board, fen.split()[1], legal))
            new = [m for m in legal if board[m[:2]].lower() in "hcl"]
            captures = [m for m in legal if m[2:4] in board or len(m) == 5]
            r = rng.random()
            m = rng.choice(new if new and r < 0.5 else captures if captures and r < 0.8
                           else legal)
            after = pyffish.get_fen("legtest", fen, [m])
            check = pyffish.gives_check("legtest", fen, [m])
            records.append((fen, tuple(legal), m, after, check))
            counts["check"] += check
            fen = after
    counts["positions"] = len(records)
    return records, counts


def check_record(fen, legal, m, after, check) -> None:
    board = Board(fen, LEGTEST)
    assert board.fen() == fen
    ours = sorted(board.uci(x) for x in board.legal_moves())
    assert ours == sorted(legal), (f"{fen}\n  missing: {sorted(set(legal) - set(ours))}"
                                   f"\n  extra: {sorted(set(ours) - set(legal))}")
    assert board.makemove(board.parse_uci(m))
    got = board.fen()
    if after.split()[3] == "-":  # pyffish writes an en passant square only where it matters
        got = " ".join(got.split()[:3] + ["-"] + got.split()[4:])
    assert got == after, f"after {m} in {fen}"
    assert board.in_check() == check, f"check after {m} in {fen}"


def _run(games: int, scale: int) -> None:
    records, counts = sample(games)
    low = {k: (counts[k], v * scale) for k, v in FLOORS.items() if counts[k] < v * scale}
    assert not low, f"coverage below the floors (got, floor): {low}; {dict(counts)}"
    for record in records:
        check_record(*record)


def test_lame_horse_cannon_and_limited_rook_agree_with_fairy_stockfish():
    _run(GAMES, 1)


@pytest.mark.slow
def test_lame_horse_cannon_and_limited_rook_agree_with_fairy_stockfish_deep():
    _run(SLOW_GAMES, 3)


@pytest.mark.parametrize("fen", [
    # a cannon checks over a screen; a piece stepping in between makes a second screen
    "4k3/8/4p3/8/4C3/8/8/4K3 b - - 0 1",
    "4k3/8/8/8/4C3/8/3P4/4K3 w - - 0 1",
    # the horse's check is answered by blocking its leg
    "4k3/8/3H4/8/8/8/8/4K3 b - - 0 1",
])
def test_directed_positions(fen):
    board = Board(fen, LEGTEST)
    assert sorted(board.uci(x) for x in board.legal_moves()) == \
        sorted(pyffish.legal_moves("legtest", fen, []))


def test_the_variant_is_our_own():
    assert PAWN == 1 and LEGTEST.has_modes and LEGTEST.moded(CANNON) and LEGTEST.moded(HORSE)


DIRECTIONS_CONFIG = """
[dirtest:chess]
customPiece1 = a:flFrW
customPiece2 = d:fRbW
startFen = 4k3/8/8/8/8/8/8/4K3 w - - 0 1
"""


@pytest.mark.parametrize("definition, letter", [("flFrW", "a"), ("fRbW", "d")])
def test_black_s_directions_are_white_s_turned_half_round(definition, letter):
    """Fairy-Stockfish turns a black piece's directions half round, l and r too: the targets
    of our walks from every square, for both colours, are its moves on an empty board."""
    from posdata.engine.rules.defs import SQUARE_NAMES
    from posdata.engine.rules.posdata import piece_walks
    pyffish.load_variant_config(DIRECTIONS_CONFIG)
    for frm in (0, 27, 36, 63):
        for colour, side in ((0, "w"), (1, "b")):
            king = "h8" if frm != 63 else "a8"  # out of the way
            rows = ["8"] * 8
            placed = {frm: letter.upper() if colour == 0 else letter}
            other = {"h8": 63, "a8": 56}[king]
            placed[other] = "K" if colour == 0 else "k"
            placed[7 if frm != 7 else 0] = "k" if colour == 0 else "K"
            for r in range(8):
                row, gap = "", 0
                for f in range(8):
                    ch = placed.get(r * 8 + f)
                    if ch is None:
                        gap += 1
                        continue
                    row += (str(gap) if gap else "") + ch
                    gap = 0
                rows[7 - r] = row + (str(gap) if gap else "")
            fen = "/".join(rows) + f" {side} - - 0 1"
            theirs = {m[2:4] for m in pyffish.legal_moves("dirtest", fen, [])
                      if m[:2] == SQUARE_NAMES[frm]}
            walk = piece_walks(definition, colour)[frm]
            assert {SQUARE_NAMES[u] for u in walk.squares} == theirs, (definition, fen)
