"""python-chess as the oracle: legal moves, move flags, FEN after every move, takeback.

The sample: seeded random playouts (python-chess plays them, so the sample does not depend on
our engine) from varied start positions, biased toward checks, captures, promotions and double
steps so that the rare cases turn up. The test counts how many positions show each feature and
fails if the coverage drops below the floors in ``COVERAGE_FLOORS``.
"""

import random
from collections import Counter
from functools import cache

import chess
import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import CAPTURE, CASTLE, DOUBLE, EP, PAWN_MOVE, PROMOTION, move_uci
from posdata.engine.rules.movegen import gen_caps
from posdata.engine.rules.perft import perft
from posdata.engine.rules.positions import STANDARD_POSITIONS
from posdata.engine.rules.zobrist import full_hash
from tests.conftest import move_set_diff

START_FENS = [p.fen for p in STANDARD_POSITIONS] + [
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
    "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R b KQkq - 0 1",
    "4k3/1P4P1/8/8/8/8/1p4p1/4K3 w - - 0 1",                # promotions for both sides
    "n3k2n/PP4PP/8/8/8/8/pp4pp/N3K2N b - - 0 1",
    "4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1",         # pawn races: en passant
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "8/8/8/K1pP3r/8/8/8/7k w - c6 0 1",                     # en passant that exposes the king
    "2r3k1/1q1nbppp/r3p3/3pP3/pPpP4/P1Q2N2/2RN1PPP/2R4K b - b3 0 23",
    "4k3/8/3q4/8/1B6/8/3R4/3K1N2 w - - 0 1",                # pins and discovered checks
    "r1bqk2r/pppp1Npp/2n2n2/2b1p3/2B1P3/8/PPPP1PPP/RNBQK2R b KQkq - 0 5",
    "3k4/2p5/8/8/3N4/8/1B6/3RK3 w - - 0 1",                 # discovered and double checks
    "r3k3/8/2b5/8/4n3/8/2p3q1/4K2R b K - 0 1",
    "4r1k1/pp3ppp/8/4n3/8/8/PP3PPP/4K3 b - - 0 1",
    "4k3/pp3ppp/8/8/4N3/8/PP2BPPP/4R1K1 w - - 0 1",
]

#: minimum number of sample positions showing each feature (about half of what the seed gives)
COVERAGE_FLOORS = {"positions": 700, "en_passant": 120, "ep_illegal": 6, "promotion": 90,
                   "castling_rights": 170, "castling_move": 55, "check": 100,
                   "double_check": 10, "pin": 120, "checkmate_or_stalemate": 30}


def features(b: chess.Board) -> set[str]:
    """Which of the features of COVERAGE_FLOORS a python-chess position shows."""
    found = set()
    legal = list(b.legal_moves)
    if any(b.is_en_passant(m) for m in legal):
        found.add("en_passant")
    if b.ep_square is not None and any(b.is_en_passant(m) for m in b.pseudo_legal_moves) \
            and not b.has_legal_en_passant():
        found.add("ep_illegal")
    if any(m.promotion for m in legal):
        found.add("promotion")
    if b.castling_rights:
        found.add("castling_rights")
    if any(b.is_castling(m) for m in legal):
        found.add("castling_move")
    if b.is_check():
        found.add("check")
        if len(b.checkers()) >= 2:
            found.add("double_check")
    king = b.king(b.turn)
    if any(b.is_pinned(b.turn, sq) for sq in chess.SquareSet(b.occupied_co[b.turn]) if sq != king):
        found.add("pin")
    if not legal:
        found.add("checkmate_or_stalemate")
    return found


def pick(rng: random.Random, b: chess.Board) -> chess.Move | None:
    legal = list(b.legal_moves)
    if not legal:
        return None
    r = rng.random()
    if r < 0.5:
        doubles = [m for m in legal if _checkers_after(b, m) >= 2]
        if doubles:
            return rng.choice(doubles)
    elif r < 0.3:
        checks = [m for m in legal if b.gives_check(m)]
        if checks:
            return rng.choice(checks)
    elif r < 0.45:
        special = [m for m in legal if m.promotion or b.is_en_passant(m) or b.is_castling(m)
                   or (b.piece_type_at(m.from_square) == chess.PAWN
                       and abs(m.to_square - m.from_square) == 16)]
        if special:
            return rng.choice(special)
    elif r < 0.6:
        captures = [m for m in legal if b.is_capture(m)]
        if captures:
            return rng.choice(captures)
    return rng.choice(legal)


def _checkers_after(b: chess.Board, m: chess.Move) -> int:
    if not b.gives_check(m):
        return 0
    b.push(m)
    n = len(b.checkers())
    b.pop()
    return n


@cache
def sample() -> tuple[list[str], Counter]:
    """(FENs, feature counts) of seeded playouts of up to 60 plies, deduped. Positions without a
    feature other than castling rights are thinned to one in three. Besides the positions of
    the game itself, each ply also records the side branches that lead to the rarest cases:
    the position after every move that gives double check or mate or allows an en passant
    capture (legal or not)."""
    rng = random.Random(20260521)
    fens, seen, counts = [], set(), Counter()

    def record(b: chess.Board) -> None:
        fen = b.fen(en_passant="fen")
        if fen in seen:
            return
        seen.add(fen)
        found = features(b)
        if found - {"castling_rights"} or rng.random() < 1 / 3:
            fens.append(fen)
            counts.update(found)

    for game in range(50):
        b = chess.Board(START_FENS[game % len(START_FENS)])
        for _ in range(rng.randrange(20, 61)):
            record(b)
            for m in list(b.legal_moves):
                double_step = (b.piece_type_at(m.from_square) == chess.PAWN
                               and abs(m.to_square - m.from_square) == 16)
                if double_step or b.gives_check(m):
                    b.push(m)
                    if (len(b.checkers()) >= 2 or b.is_checkmate() or
                            (double_step and any(b.generate_pseudo_legal_ep()))):
                        record(b)
                    b.pop()
            m = pick(rng, b)
            if m is None:
                break
            b.push(m)
    counts["positions"] = len(fens)
    return fens, counts


def test_sample_covers_the_rare_cases():
    _, counts = sample()
    low = {k: (counts[k], floor) for k, floor in COVERAGE_FLOORS.items() if counts[k] < floor}
    assert not low, f"coverage below the floors (got, floor): {low}; all counts: {dict(counts)}"


def flags_from_oracle(b: chess.Board, m: chess.Move) -> int:
    flags = 0
    if b.is_capture(m):
        flags |= CAPTURE
    if b.is_castling(m):
        flags |= CASTLE
    if b.is_en_passant(m):
        flags |= EP
    if b.piece_type_at(m.from_square) == chess.PAWN:
        flags |= PAWN_MOVE
        if abs(m.to_square - m.from_square) == 16:
            flags |= DOUBLE
    if m.promotion:
        flags |= PROMOTION
    return flags


def state(board: Board):
    return (list(board.color), list(board.piece), board.side, board.castle, board.ep,
            board.fifty, list(board.king), board.hash, board.ply, len(board.hist))


def check_position(fen: str) -> None:
    board = Board(fen)
    oracle = chess.Board(fen)
    assert board.fen() == fen, "FEN round trip"
    assert board.hash == full_hash(board.color, board.piece, board.side, board.castle, board.ep)
    assert board.in_check() == oracle.is_check(), f"in_check in {fen}"

    pseudo = board.moves()
    # pseudo-legal moves except castling (python-chess only lists castling it deems legal)
    report = move_set_diff(fen, [m for m in pseudo if not m & CASTLE],
                           [m for m in oracle.pseudo_legal_moves if not oracle.is_castling(m)],
                           "pseudo-legal gen", "python-chess pseudo_legal_moves")
    assert not report, report

    before = state(board)
    legal = []
    for m in pseudo:
        if not board.makemove(m):
            assert state(board) == before, f"failed makemove {move_uci(m)} changed {fen}"
            continue
        legal.append(m)
        om = chess.Move.from_uci(move_uci(m))
        want_flags = flags_from_oracle(oracle, om)
        assert m & 0x3F000 == want_flags, f"flags of {move_uci(m)} in {fen}"
        oracle.push(om)
        assert board.fen() == oracle.fen(en_passant="fen"), f"after {move_uci(m)} in {fen}"
        assert board.hash == full_hash(board.color, board.piece, board.side, board.castle,
                                       board.ep), f"incremental hash after {move_uci(m)} in {fen}"
        assert board.in_check() == oracle.is_check()
        oracle.pop()
        board.takeback()
        assert state(board) == before, f"takeback of {move_uci(m)} in {fen}"
    report = move_set_diff(fen, legal, oracle.legal_moves, "gen+makemove", "python-chess")
    assert not report, report
    assert perft(board, 1, bulk=True) == len(legal), f"bulk count (count_legal) in {fen}"
    assert state(board) == before

    caps = board.moves(gen_caps)
    want_caps = [m for m in oracle.legal_moves if oracle.is_capture(m) or m.promotion]
    report = move_set_diff(fen, [m for m in caps if m in legal], want_caps, "gen_caps", "oracle")
    assert not report, report


def chunks(n: int):
    fens, _ = sample()
    return [fens[i::n] for i in range(n)]


@pytest.mark.parametrize("chunk", range(8))
def test_legal_moves_agree_with_python_chess(chunk):
    for fen in chunks(8)[chunk]:
        check_position(fen)


def test_game_playout_fen_and_hash():
    """A long game played with push_uci keeps FEN (incl. move counters) equal to python-chess."""
    rng = random.Random(7)
    board, oracle = Board(), chess.Board()
    for _ in range(120):
        legal = list(oracle.legal_moves)
        if not legal:
            break
        m = rng.choice(legal)
        board.push_uci(m.uci())
        oracle.push(m)
        assert board.fen() == oracle.fen(en_passant="fen")
        assert board.hash == full_hash(board.color, board.piece, board.side, board.castle,
                                       board.ep)


def chess_perft(b: chess.Board, depth: int) -> int:
    if depth == 0:
        return 1
    nodes = 0
    for m in b.legal_moves:
        b.push(m)
        nodes += chess_perft(b, depth - 1)
        b.pop()
    return nodes


def check_perft(fen: str, depth: int) -> None:
    """Several plies of makemove/takeback (castling rights, en passant squares, promotions
    coming and going), plain and bulk, against python-chess."""
    want = chess_perft(chess.Board(fen), depth)
    board = Board(fen)
    assert perft(board, depth) == want, f"perft({depth}) of {fen}"
    assert perft(board, depth, bulk=True) == want, f"bulk perft({depth}) of {fen}"
    assert board.fen() == fen


def test_perft2_agrees_with_python_chess():
    for fen in sample()[0][::20]:
        check_perft(fen, 2)


@pytest.mark.slow
def test_perft3_agrees_with_python_chess():
    for fen in sample()[0][::20]:
        check_perft(fen, 3)
