"""Chess960 against python-chess (``chess960=True``): the 960 start positions, castling rights
in Shredder-FEN and X-FEN, legal moves and the FEN after every move on seeded playouts that
cover every placement of king and rook that matters, and perft.

The published Chess960 perft suite (960 positions with D1-D6 counts, ``fischer.epd`` as chess
engines such as Ethereal ship it) is GPL-licensed and not part of this repository: point
``POSDATA_CHESS960_SUITE`` at a copy to run ``test_published_suite`` (slow). The counts the
fast tests compare against come from python-chess at test time.
"""

import os
import random
from collections import Counter
from functools import cache

import chess
import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.chess960 import ORTHODOX_START, start_fen, start_rank
from posdata.engine.rules.defs import CASTLE
from posdata.engine.rules.fen import FenError
from posdata.engine.rules.perft import perft
from posdata.engine.rules.zobrist import full_hash
from tests.conftest import move_set_diff

V = "chess960"


def test_start_positions_are_scharnagl_s():
    assert start_rank(ORTHODOX_START) == "RNBQKBNR"
    for n in range(960):
        oracle = chess.Board.from_chess960_pos(n)
        board = Board(start_fen(n), V)
        assert board.fen() == oracle.fen(), n  # X-FEN out: KQkq for the outermost rooks
        assert Board(oracle.fen(), V).fen() == oracle.fen()
        assert Board(oracle.fen(shredder=True), V).fen() == oracle.fen()
    assert len({start_rank(n) for n in range(960)}) == 960
    with pytest.raises(ValueError):
        start_rank(960)


def test_perft2_of_every_start_position():
    for n in range(960):
        oracle = chess.Board.from_chess960_pos(n)
        want = 0
        for m in oracle.legal_moves:
            oracle.push(m)
            want += oracle.legal_moves.count()
            oracle.pop()
        assert perft(Board(start_fen(n), V), 2, bulk=True) == want, n


@pytest.mark.parametrize("n", [0, 105, 518, 959, 330, 711])
def test_perft3_of_start_positions(n):
    oracle = chess.Board.from_chess960_pos(n)
    board = Board(start_fen(n), V)
    want = chess_perft(oracle, 3)
    assert perft(board, 3) == want and perft(board, 3, bulk=True) == want


def chess_perft(b: chess.Board, depth: int) -> int:
    if depth == 1:
        return b.legal_moves.count()
    nodes = 0
    for m in b.legal_moves:
        b.push(m)
        nodes += chess_perft(b, depth - 1)
        b.pop()
    return nodes


# --- castling rights in the FEN --------------------------------------------------------------

@pytest.mark.parametrize("fen, xfen", [
    ("1r2k1r1/8/8/8/8/8/8/1R2K1R1 w GBgb - 0 1", "1r2k1r1/8/8/8/8/8/8/1R2K1R1 w KQkq - 0 1"),
    ("1r2k1r1/8/8/8/8/8/8/1R2K1R1 w KQkq - 0 1", "1r2k1r1/8/8/8/8/8/8/1R2K1R1 w KQkq - 0 1"),
    # two rooks on one side: the inner one is named by its file
    ("4k3/8/8/8/8/8/8/4KRR1 w F - 0 1", "4k3/8/8/8/8/8/8/4KRR1 w F - 0 1"),
    ("4k3/8/8/8/8/8/8/4KRR1 w G - 0 1", "4k3/8/8/8/8/8/8/4KRR1 w K - 0 1"),
    ("4k3/8/8/8/8/8/8/4KRR1 w K - 0 1", "4k3/8/8/8/8/8/8/4KRR1 w K - 0 1"),
    ("rk5r/8/8/8/8/8/8/RK5R b HAha - 0 1", "rk5r/8/8/8/8/8/8/RK5R b KQkq - 0 1"),
])
def test_castling_rights_in(fen, xfen):
    board = Board(fen, V)
    assert board.fen() == xfen == chess.Board(fen, chess960=True).fen()


@pytest.mark.parametrize("fen, word", [
    ("4k3/8/8/8/8/8/8/4K3 w K - 0 1", "without a white rook east of the king"),
    ("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1", ""),  # fine: see below
    ("4k3/8/8/8/8/8/8/4K2R w H - 0 1", ""),
    ("4k3/8/8/8/8/8/8/4K2R w G - 0 1", "without a white rook on g1"),
    ("4k3/8/8/8/8/8/8/4K2R w k - 0 1", "without a black rook east of the king on rank 8"),
    ("7R/8/8/8/8/4k3/8/4K2R w k - 0 1", "without a black king on rank 8"),
    ("4k3/8/8/8/8/4K3/8/7R w K - 0 1", "without a white king on rank 1"),
    ("4k3/8/8/8/8/8/8/4K1RR w HG - 0 1", "repeats"),
    ("4k3/8/8/8/8/8/8/4K2R w X - 0 1", "unknown castling letter"),
    ("4k2r/8/8/8/8/8/8/4K2R w Ha - 0 1", "without a black rook on a8"),
])
def test_castling_rights_that_match_no_king_and_rook(fen, word):
    if not word:
        Board(fen, V)
        return
    with pytest.raises(FenError) as info:
        Board(fen, V)
    assert word in str(info.value) and "\n" not in str(info.value)


def test_orthodox_chess_keeps_its_strict_rights():
    with pytest.raises(FenError, match="castling letter 'H'"):
        Board("4k3/8/8/8/8/8/8/4K2R w H - 0 1")


# --- playouts --------------------------------------------------------------------------------

#: the placements of king and rook that need care, and other rare cases, with their floors
#: (about half of what the seed gives)
COVERAGE_FLOORS = {"positions": 600, "castling_move": 80, "king_on_target": 12,
                   "rook_on_target": 12, "king_rook_swap": 30, "castling_through_attack": 6,
                   "castling_rights": 190, "check": 28, "en_passant": 12, "promotion": 15}


def castling_features(b: chess.Board) -> set[str]:
    found = set()
    if b.castling_rights:
        found.add("castling_rights")
    for m in b.generate_castling_moves():  # python-chess: only those legal
        king, rook = m.from_square, m.to_square
        kingside = rook > king
        king_to = (chess.G1 if kingside else chess.C1) + (56 if b.turn == chess.BLACK else 0)
        rook_to = (chess.F1 if kingside else chess.D1) + (56 if b.turn == chess.BLACK else 0)
        found.add("castling_move")
        if king == king_to:
            found.add("king_on_target")
        if rook == rook_to:
            found.add("rook_on_target")
        if king == rook_to and rook == king_to:
            found.add("king_rook_swap")
    if not b.is_check() and b.castling_rights:
        # rights whose path is clear but crosses an attacked square (our generator offers the
        # castling, makemove refuses it; the test holds that refusal to python-chess)
        ours = Board(b.fen(), V)
        offered = sum(1 for m in ours.moves() if m & CASTLE)
        if offered > sum(1 for m in ours.legal_moves() if m & CASTLE):
            found.add("castling_through_attack")
    if b.is_check():
        found.add("check")
    if b.has_legal_en_passant():
        found.add("en_passant")
    if any(m.promotion for m in b.legal_moves):
        found.add("promotion")
    return found


def thinned_start(rng: random.Random) -> chess.Board:
    """A random start position with some back-rank pieces (not kings and rooks) and pawns gone,
    so castling comes early and from every placement."""
    b = chess.Board.from_chess960_pos(rng.randrange(960))
    for sq in list(chess.SquareSet(chess.BB_RANK_1 | chess.BB_RANK_8)):
        if b.piece_type_at(sq) not in (chess.KING, chess.ROOK) and rng.random() < 0.8:
            b.remove_piece_at(sq)
    for sq in list(chess.SquareSet(chess.BB_RANK_2 | chess.BB_RANK_7)):
        if rng.random() < 0.25:
            b.remove_piece_at(sq)
    # a pawn of each side about to promote, and one each on the rank where en passant starts
    for rank, color in ((6, chess.WHITE), (1, chess.BLACK), (4, chess.WHITE), (3, chess.BLACK)):
        sq = chess.square(rng.randrange(8), rank)
        if b.piece_at(sq) is None:
            b.set_piece_at(sq, chess.Piece(chess.PAWN, color))
    return b


def pick(rng: random.Random, b: chess.Board) -> chess.Move | None:
    legal = list(b.legal_moves)
    if not legal:
        return None
    r = rng.random()
    if r < 0.15:
        castles = [m for m in legal if b.is_castling(m)]
        if castles:
            return rng.choice(castles)
    if r < 0.3:
        special = [m for m in legal if m.promotion or b.is_en_passant(m) or b.gives_check(m)
                   or b.piece_type_at(m.from_square) == chess.PAWN
                   and abs(m.to_square - m.from_square) == 16]
        if special:
            return rng.choice(special)
    if r < 0.45:
        rooks = [m for m in legal if b.piece_type_at(m.from_square) in (chess.ROOK, chess.KING)]
        if rooks:  # king and rook moves shuffle the castling placements
            return rng.choice(rooks)
    return rng.choice(legal)


@cache
def sample() -> tuple[list[str], Counter]:
    rng = random.Random(960)
    fens, seen, counts = [], set(), Counter()
    for game in range(48):
        b = thinned_start(rng) if game % 4 else chess.Board.from_chess960_pos(rng.randrange(960))
        if not b.is_valid():
            continue
        for _ in range(rng.randrange(10, 40)):
            fen = b.fen()
            if fen not in seen:
                seen.add(fen)
                fens.append(fen)
                counts.update(castling_features(b))
            m = pick(rng, b)
            if m is None:
                break
            b.push(m)
    counts["positions"] = len(fens)
    return fens, counts


def test_sample_covers_the_castling_placements():
    _, counts = sample()
    low = {k: (counts[k], floor) for k, floor in COVERAGE_FLOORS.items() if counts[k] < floor}
    assert not low, f"coverage below the floors (got, floor): {low}; all: {dict(counts)}"


def state(board: Board):
    return (list(board.color), list(board.piece), board.side, board.castle, board.ep,
            board.fifty, list(board.king), board.hash, len(board.hist))


def check_position(fen: str) -> None:
    board = Board(fen, V)
    oracle = chess.Board(fen, chess960=True)
    assert board.fen() == fen
    before = state(board)
    legal = []
    for m in board.moves():
        if not board.makemove(m):
            assert state(board) == before
            continue
        legal.append(m)
        om = chess.Move.from_uci(board.uci(m))
        assert bool(m & CASTLE) == oracle.is_castling(om), f"{board.uci(m)} in {fen}"
        oracle.push(om)
        assert board.fen() == oracle.fen(en_passant="fen"), f"after {board.uci(m)} in {fen}"
        assert board.hash == full_hash(board.color, board.piece, board.side, board.castle,
                                       board.ep)
        assert board.in_check() == oracle.is_check()
        oracle.pop()
        board.takeback()
        assert state(board) == before, f"takeback of {board.uci(m)} in {fen}"
    report = move_set_diff(fen, [board.uci(m) for m in legal], oracle.legal_moves)
    assert not report, report
    assert perft(board, 1, bulk=True) == len(legal)


@pytest.mark.parametrize("chunk", range(2))
def test_legal_moves_agree_with_python_chess(chunk):
    for fen in sample()[0][chunk::2]:
        check_position(fen)


def test_perft2_of_the_sample():
    for fen in sample()[0][::10]:
        want = chess_perft(chess.Board(fen, chess960=True), 2)
        board = Board(fen, V)
        assert perft(board, 2) == perft(board, 2, bulk=True) == want, fen


@pytest.mark.parametrize("fen, moves", [
    # king already on g1: castling moves only the rook; written as the king taking it
    ("4k3/8/8/8/8/8/8/6KR w K - 0 1", {"g1h1"}),
    # rook already on f1: only the king moves
    ("4k3/8/8/8/8/8/8/4KR2 w K - 0 1", {"e1f1"}),
    # king and rook swap
    ("4k3/8/8/8/8/8/8/5KR1 w K - 0 1", {"f1g1"}),
    ("4k3/8/8/8/8/8/8/2RK4 w Q - 0 1", {"d1c1"}),
    # the b-file square between the a-rook and the king's c-file target must be empty
    ("4k3/8/8/8/8/8/8/RN1K4 w Q - 0 1", set()),
    # a1 rook's queen side castling from b1: the king goes to c1 over nothing attacked
    ("1r2k3/8/8/8/8/8/8/1R2K3 w Q - 0 1", set()),  # b1 rook is attacked: still castles
])
def test_castling_placements(fen, moves):
    board = Board(fen, V)
    castles = {board.uci(m) for m in board.legal_moves() if m & CASTLE}
    oracle = chess.Board(fen, chess960=True)
    want = {m.uci() for m in oracle.legal_moves if oracle.is_castling(m)}
    assert castles == want
    if moves:
        assert castles == moves


def test_uci_notation_both_ways():
    board = Board("4k3/8/8/8/8/8/8/4K2R w K - 0 1", V)
    castle = next(m for m in board.legal_moves() if m & CASTLE)
    assert board.uci(castle) == "e1h1" and board.uci(castle, chess960=False) == "e1g1"
    assert board.parse_uci("e1h1") == castle and board.parse_uci("e1g1") == castle
    # a king step and a castling to the same square: the plain notation is the king step
    board = Board("4k3/8/8/8/8/8/8/5K1R w K - 0 1", V)
    board.chess960_notation = False
    assert not board.parse_uci("f1g1") & CASTLE
    assert board.parse_uci("f1h1") & CASTLE


@pytest.mark.slow
def test_published_suite():
    """Every position of the published suite to depth 3, every tenth to depth 4 (D5-D6 are
    beyond a Python perft): about four minutes."""
    path = os.environ.get("POSDATA_CHESS960_SUITE")
    if not path:
        pytest.skip("set POSDATA_CHESS960_SUITE to a copy of fischer.epd")
    with open(path) as f:
        for i, line in enumerate(f):
            fen, *fields = line.strip().split(" ;")
            counts = {int(k[1:]): int(v) for k, v in (x.split() for x in fields)}
            board = Board(fen, V)
            for depth in range(1, 5 if i % 10 == 0 else 4):
                assert perft(board, depth, bulk=True) == counts[depth], (fen, depth)
