"""Fairy-Stockfish (pyffish, pinned in the dev extra) as the oracle of the fairy variants:
legal move sets, the FEN after each move played, checks given by the new pieces, and perft of
the start positions.

The sample: seeded playouts that Fairy-Stockfish plays (so it does not depend on our engine)
from each variant's start position and a few positions built to reach the rare cases sooner,
biased toward captures, checks, promotions and double steps. Each call into pyffish costs a few
milliseconds, so the sample asks it only for what it checks: the legal moves of a position, the
FEN after the move played, and whether that move gives check. ``COVERAGE_FLOORS`` holds the
rare cases to a minimum per variant.
"""

import random
from collections import Counter
from functools import cache

import pyffish
import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.perft import perft
from posdata.engine.rules.variants import get_variant
from posdata.engine.rules.zobrist import full_hash

from .fen_squares import board_of

FAIRY = ("amazon", "almost", "chigorin", "nightrider")
#: per variant, the letters of its new pieces (white's; lower case is black's)
NEW_PIECES = {"amazon": "A", "almost": "C", "chigorin": "C", "nightrider": "N"}
#: per variant, positions besides the start that reach castling, promotions and en passant
#: sooner ({X}: the new piece, {x}: black's)
EXTRA_STARTS = (
    "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1",
    "r3k2r/p1{x}3pp/8/8/8/8/P1{X}3PP/R3K2R b KQkq - 0 1",
    "4k3/1P4P1/8/2{x}5/5{X}2/8/1p4p1/4K3 w - - 0 1",
    "4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1",
    "{x}3k3/1pp2pp1/8/3pP3/8/8/1PP2PP1/4K2{X} w - d6 0 1",
)
#: Fairy-Stockfish's FENs of chigorin: black has no chancellor but a queen
_BLACK_LETTER = {"chigorin": "q"}
#: playouts per variant, and the minimum count of each feature over the sample
GAMES = 10
#: (about half of what the seeds give)
COVERAGE_FLOORS = {"positions": 300, "check": 15, "check_by_new_piece": 4, "castling_move": 15,
                   "promotion_to_new_piece": 8, "en_passant": 3}


def starts(name: str) -> list[str]:
    white = NEW_PIECES[name]
    black = _BLACK_LETTER.get(name, white.lower())
    fens = [pyffish.start_fen(name)]
    for template in EXTRA_STARTS:
        fens.append(template.replace("{X}", white).replace("{x}", black))
    return fens


def move_features(name: str, fen: str, m: str) -> set[str]:
    """What kind of move ``m`` is, from the FEN alone (no engine)."""
    board = board_of(fen)
    piece = board.get(m[:2], "")
    found = set()
    if piece.lower() == "k" and m[2:4] in board and board[m[2:4]].lower() == "r" or \
            piece.lower() == "k" and abs(ord(m[0]) - ord(m[2])) == 2:
        found.add("castling_move")
    if len(m) == 5 and m[4] in NEW_PIECES[name].lower() + _BLACK_LETTER.get(name, ""):
        found.add("promotion_to_new_piece")
    if piece.lower() == "p" and m[0] != m[2] and m[2:4] not in board:
        found.add("en_passant")
    return found


def pick(rng: random.Random, name: str, fen: str, legal: list[str]) -> str:
    board = board_of(fen)
    r = rng.random()
    if r < 0.35:
        new = [m for m in legal if board[m[:2]].upper() == NEW_PIECES[name]]
        if new:
            return rng.choice(new)
    if r < 0.55:
        special = [m for m in legal if move_features(name, fen, m)
                   or board[m[:2]].lower() == "p" and abs(int(m[1]) - int(m[3])) == 2]
        if special:
            return rng.choice(special)
    if r < 0.75:
        captures = [m for m in legal if m[2:4] in board]
        if captures:
            return rng.choice(captures)
    return rng.choice(legal)


@cache
def sample(name: str) -> tuple[list[tuple], Counter]:
    """Per variant: (fen, legal moves, move played, fen after it, gives check, moved piece) per
    ply of seeded playouts, and the feature counts."""
    rng = random.Random(f"fairy-{name}")
    records, counts = [], Counter()
    fens = starts(name)
    for game in range(GAMES):
        fen = fens[game % len(fens)]
        for _ in range(rng.randrange(20, 50)):
            legal = pyffish.legal_moves(name, fen, [])
            if not legal:
                break
            m = pick(rng, name, fen, legal)
            after = pyffish.get_fen(name, fen, [m])
            check = pyffish.gives_check(name, fen, [m])
            mover = board_of(fen)[m[:2]]
            records.append((fen, tuple(legal), m, after, check, mover))
            for f in set().union(*(move_features(name, fen, x) for x in legal)):
                counts[f] += 1
            if check:
                counts["check"] += 1
                if mover.upper() == NEW_PIECES[name]:
                    counts["check_by_new_piece"] += 1
            fen = after
    counts["positions"] = len(records)
    return records, counts


@pytest.mark.parametrize("name", FAIRY)
def test_sample_covers_the_rare_cases(name):
    _, counts = sample(name)
    low = {k: (counts[k], floor) for k, floor in COVERAGE_FLOORS.items() if counts[k] < floor}
    assert not low, f"{name}: coverage below the floors (got, floor): {low}; {dict(counts)}"


def without_ep(fen: str) -> str:
    fields = fen.split()
    fields[3] = "-"
    return " ".join(fields)


def check_record(name, fen, legal, m, after, check, mover) -> None:
    board = Board(fen, name)
    assert board.fen() == fen, f"FEN round trip in {name}"
    ours = sorted(board.uci(x) for x in board.legal_moves())
    assert ours == sorted(legal), (f"{name} {fen}\n  missing: {sorted(set(legal) - set(ours))}"
                                   f"\n  extra: {sorted(set(ours) - set(legal))}")
    before = board.fen(), board.hash, list(board.color), list(board.piece)
    move = board.parse_uci(m)
    assert board.makemove(move)
    got = board.fen()
    # Fairy-Stockfish writes an en passant square only where a capture is possible; we write
    # it after every double step, as python-chess's en_passant="fen" does
    if after.split()[3] != "-":
        assert got == after, f"{name}: after {m} in {fen}"
    assert without_ep(got) == without_ep(after), f"{name}: after {m} in {fen}"
    assert board.hash == full_hash(board.color, board.piece, board.side, board.castle, board.ep)
    assert board.in_check() == check, f"{name}: check after {m} ({mover}) in {fen}"
    board.takeback()
    assert (board.fen(), board.hash, board.color, board.piece) == before


@pytest.mark.parametrize("name", FAIRY)
def test_legal_moves_fen_and_checks_agree_with_fairy_stockfish(name):
    records, _ = sample(name)
    for record in records:
        check_record(name, *record)


#: perft of the start positions, depths 1..4, as pyffish 0.0.90 counts them
#: (test_start_perft_counts_are_fairy_stockfish's recounts them, slow: pyffish's calls are slow)
START_PERFT = {
    "amazon": (22, 484, 12483, 318185),
    "almost": (22, 484, 11895, 290522),
    "chigorin": (26, 416, 11408, 229973),
    "nightrider": (24, 576, 15586, 419019),
}


@pytest.mark.parametrize("name", FAIRY)
def test_start_perft(name):
    board = Board(variant=name)
    want = START_PERFT[name]
    assert [perft(board, d) for d in (1, 2, 3)] == list(want[:3])
    assert perft(board, 4, bulk=True) == want[3]


def oracle_perft(name: str, fen: str, depth: int) -> int:
    legal = pyffish.legal_moves(name, fen, [])
    if depth == 1:
        return len(legal)
    return sum(oracle_perft(name, pyffish.get_fen(name, fen, [m]), depth - 1) for m in legal)


@pytest.mark.parametrize("name", FAIRY)
def test_start_perft_counts_are_fairy_stockfish_s(name):
    """The table above against pyffish itself, to depth 2 (3 and 4: -m slow)."""
    fen = get_variant(name).start_fen
    assert [oracle_perft(name, fen, d) for d in (1, 2)] == list(START_PERFT[name][:2])


@pytest.mark.slow
@pytest.mark.parametrize("name", FAIRY)
def test_start_perft_counts_are_fairy_stockfish_s_deep(name):
    fen = get_variant(name).start_fen
    assert oracle_perft(name, fen, 3) == START_PERFT[name][2]
    assert oracle_perft(name, fen, 4) == START_PERFT[name][3]


@pytest.mark.parametrize("name, fen", [
    # a piece pinned along a nightrider's line: b3 stands between a1 and c5
    ("nightrider", "4k3/8/8/2n5/8/1B6/8/K7 w - - 0 1"),
    ("nightrider", "4k3/8/8/2n5/8/1P6/8/K7 w - - 0 1"),
    # the nightrider checks from afar; blocking its line is a defence
    ("nightrider", "7k/8/8/8/2n5/8/1R6/K7 w - - 0 1"),
    ("nightrider", "k7/8/1N6/8/8/8/8/4K3 b - - 0 1"),
    # amazon and chancellor checks by their knight leap cannot be blocked
    ("amazon", "4k3/8/3A4/8/8/8/8/4K3 b - - 0 1"),
    ("almost", "4k3/8/5C2/8/8/8/8/4K3 b - - 0 1"),
    # a chancellor pins along its rook line but not on a diagonal
    ("almost", "4k3/4r3/8/8/8/1b6/8/C3K2c w - - 0 1"),
    ("chigorin", "rbbqkbbr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNNCK2R b KQkq - 0 1"),
])
def test_directed_positions(name, fen):
    board = Board(fen, name)
    ours = sorted(board.uci(x) for x in board.legal_moves())
    assert ours == sorted(pyffish.legal_moves(name, fen, [])), fen
    assert perft(board, 2) == perft(board, 2, bulk=True) == oracle_perft(name, fen, 2)
