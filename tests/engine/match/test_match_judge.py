"""The match's arbiter (engine.match.judge) against python-chess: random games whose every
position gets the same verdict (checkmate, stalemate, insufficient material, threefold, fifty
moves, ply cap, or none), the insufficient-material rule on random sparse positions, and known
positions of each ending."""

import random
from collections import Counter

import pytest

from posdata.engine.match.judge import Judge, insufficient_material
from posdata.engine.rules.board import Board

chess = pytest.importorskip("chess")

VALUES = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}
NAMES = {chess.Termination.CHECKMATE: "checkmate", chess.Termination.STALEMATE: "stalemate",
         chess.Termination.INSUFFICIENT_MATERIAL: "insufficient material"}


def oracle(board: "chess.Board", plies: int, ply_cap: int):
    """python-chess's verdict, in the judge's order: outcome() (mate, insufficient material,
    stalemate), then the claimable draws, then the ply cap on material."""
    outcome = board.outcome()
    if outcome is not None:
        return outcome.result(), NAMES[outcome.termination]
    if board.is_repetition(3):
        return "1/2-1/2", "threefold"
    if board.is_fifty_moves():
        return "1/2-1/2", "fifty moves"
    if plies >= ply_cap:
        lead = sum(v * (len(board.pieces(k, chess.WHITE)) - len(board.pieces(k, chess.BLACK)))
                   for k, v in VALUES.items())
        return ("1-0" if lead >= 3 else "0-1" if lead <= -3 else "1/2-1/2"), "ply cap"
    return None


#: starts whose random games reach every ending: the initial position, and sparse ones where
#: shuffling pieces repeat, run out of material or mate
STARTS = [
    chess.STARTING_FEN,
    "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
    "4k3/2n5/8/8/8/8/3B4/4K3 w - - 0 1",
    "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1",
    "4k3/8/8/3q4/8/8/8/R3K2R b KQ - 0 1",
    "7k/8/8/8/8/8/2Q5/K7 w - - 90 80",
    "r3k3/8/8/8/8/8/5b2/4K2N w q - 0 1",
    "k7/8/2K5/8/8/8/8/6Q1 w - - 0 1",
    "7k/8/6K1/8/8/8/8/R7 w - - 0 1",
]


def random_game(fen: str, seed: int, ply_cap: int, undo: float):
    """Play a game of random moves (mostly quiet piece moves; with probability ``undo`` the
    side's last move taken back, so positions repeat), asking both arbiters at every position;
    their verdicts must agree. Returns the last one."""
    rng = random.Random(seed)
    theirs = chess.Board(fen)
    judge = Judge(Board(fen), ply_cap)
    plies = 0
    while True:
        want = oracle(theirs, plies, ply_cap)
        got = judge.verdict()
        assert got == want, f"{theirs.fen()} after {' '.join(m.uci() for m in theirs.move_stack)}"
        if got is not None:
            return got
        moves = list(theirs.legal_moves)
        quiet = [m for m in moves if not theirs.is_capture(m)
                 and theirs.piece_type_at(m.from_square) != chess.PAWN]
        m = rng.choice(quiet if quiet and rng.random() < 0.8 else moves)
        if len(theirs.move_stack) >= 2 and rng.random() < undo:
            last = theirs.move_stack[-2]
            back = chess.Move(last.to_square, last.from_square)
            m = back if back in moves else m
        judge.push(judge.board.parse_uci(m.uci()))
        theirs.push(m)
        plies += 1


def test_random_games_are_judged_as_python_chess_judges_them():
    endings = Counter()
    for seed in range(60):
        fen = STARTS[seed % len(STARTS)]
        ply_cap, undo = (160 if seed % 5 else 40), (0.5 if seed % 4 == 0 else 0.0)
        endings[random_game(fen, seed, ply_cap, undo)[1]] += 1
    # the sample reaches each ending, or the comparison above proves less than it seems
    assert set(endings) >= {"checkmate", "stalemate", "threefold", "fifty moves",
                            "insufficient material", "ply cap"}, endings


def test_insufficient_material_is_python_chess_rule():
    rng = random.Random(7)
    kinds = "NNBBQRP"
    seen = Counter()
    checked = 0
    while checked < 600:
        board = chess.Board(None)
        squares = rng.sample(range(64), 6)
        board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
        for sq in squares[2:2 + rng.randint(0, 4)]:
            board.set_piece_at(sq, chess.Piece(chess.PIECE_SYMBOLS.index(
                rng.choice(kinds).lower()), rng.random() < 0.5))
        board.turn = rng.random() < 0.5
        if not board.is_valid():
            continue
        want = board.is_insufficient_material()
        assert insufficient_material(Board(board.fen())) == want, board.fen()
        seen[want] += 1
        checked += 1
    assert seen[True] > 50 and seen[False] > 50, seen


def verdict(fen: str, *moves: str, ply_cap: int = 400):
    judge = Judge(Board(fen), ply_cap)
    for m in moves:
        judge.push(judge.board.parse_uci(m))
    return judge.verdict()


def test_known_endings():
    start = chess.STARTING_FEN
    assert verdict(start, "f2f3", "e7e5", "g2g4", "d8h4") == ("0-1", "checkmate")
    assert verdict("7k/5Q2/6K1/8/8/8/8/8 b - - 0 60") == ("1/2-1/2", "stalemate")
    shuffle = ("g1f3", "g8f6", "f3g1", "f6g8") * 2  # the start position a third time
    assert verdict(start, *shuffle[:-1]) is None
    assert verdict(start, *shuffle) == ("1/2-1/2", "threefold")
    assert verdict("8/8/8/4k3/8/8/R7/4K3 w - - 100 80") == ("1/2-1/2", "fifty moves")
    # mate on the hundredth ply still wins
    assert verdict("7k/8/6K1/8/8/8/8/R7 w - - 99 80", "a1a8") == ("1-0", "checkmate")
    assert verdict("8/8/8/4k3/8/8/8/3NK3 w - - 0 1") == ("1/2-1/2", "insufficient material")
    assert verdict("8/8/8/4k3/8/8/8/2B1KB2 w - - 0 1") is None  # bishops of both colours


def test_the_ply_cap_on_material():
    """The cap counts the plies played from the start (the book's too): a minor piece ahead
    wins, less is a draw."""
    rook_up = "8/8/8/4k3/8/8/R7/4K3 w - - 0 101"
    assert verdict(rook_up, ply_cap=1) is None
    assert verdict(rook_up, "a2a3", ply_cap=1) == ("1-0", "ply cap")
    assert verdict("4k3/ppp5/8/8/8/8/P7/4K3 w - - 0 1", ply_cap=0) == ("1/2-1/2", "ply cap")
    assert verdict("4k3/8/8/8/8/1r3n2/P7/4K3 w - - 0 1", ply_cap=0) == ("0-1", "ply cap")
    # the rules first: a bare knight is a draw whatever the cap
    assert verdict("4k3/8/8/8/8/5n2/8/4K3 w - - 0 1", ply_cap=0) == (
        "1/2-1/2", "insufficient material")


def test_en_passant_counts_only_where_it_is_legal():
    """After a double step that no pawn can take, the position repeats one reached without
    it (python-chess's and FIDE's rule; the board's own hash keeps the square)."""
    # 1. e4 Nf6 2. Nf3 Ng8 3. Ng1 Nf6 4. Nf3 Ng8 5. Ng1: the position after 1. e4 (black to
    # move, e3 passed but no black pawn near) for the third time
    line = ("e2e4", "g8f6", "g1f3", "f6g8", "f3g1", "g8f6", "f1e2", "f6g8", "e2f1")
    assert verdict(chess.STARTING_FEN, *line) == ("1/2-1/2", "threefold")
    assert verdict(chess.STARTING_FEN, *line[:-2]) is None
