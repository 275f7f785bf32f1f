"""Seeded random playouts shared by the gateware tests, with a census of the features they
cover (the nodes of perft trees come from engine.rules.perft.tree_fens)."""

import random

from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import CAPTURE, CASTLE, DOUBLE, EP, PROMOTION, move_uci
from posdata.engine.rules.positions import STANDARD_POSITIONS

EXTRA_STARTS = (
    # promotions both ways, castling rights, en passant chances, checks
    "r3k2r/1P4P1/8/2pP4/8/8/1p4p1/R3K2R w KQkq c6 0 1",
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
    "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1",
    "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 2 3",
    "8/8/3k4/8/3Q4/8/8/3K4 b - - 0 1",
    "4k3/1p1p1p1p/8/2P1P1P1/1p1p1p2/8/P1P1P1P1/4K3 w - - 0 1",  # double steps meet enemy pawns
    "r3k2r/1p1p1p1p/8/2P1P1P1/1p1p1p2/8/P1P1P1P1/R3K2R b KQkq - 0 1",
)


def random_positions(count: int, seed: int = 2026) -> list[str]:
    """FENs from seeded random playouts starting at the standard and extra positions."""
    rng = random.Random(seed)
    starts = [p.fen for p in STANDARD_POSITIONS] + list(EXTRA_STARTS)
    fens = []
    while len(fens) < count:
        board = Board(rng.choice(starts))
        for _ in range(rng.randint(0, 40)):
            legal = board.legal_moves()
            if not legal:
                break
            # double steps weigh more, so en passant chances are common enough to test
            weights = [6 if m & DOUBLE else 1 for m in legal]
            board.push_uci(move_uci(rng.choices(legal, weights)[0]))
            if any(m & EP for m in board.moves()) and rng.random() < 0.5:
                break  # keep this en passant chance
        fens.append(board.fen())
    return fens


def census(fens: list[str]) -> dict[str, int]:
    """How many positions offer each feature (pseudo-legal moves of that kind, or check)."""
    counts = {"ep": 0, "promotion": 0, "castle": 0, "check": 0, "capture": 0, "many_pieces": 0}
    for fen in fens:
        board = Board(fen)
        moves = board.moves()
        counts["ep"] += any(m & EP for m in moves)
        counts["promotion"] += any(m & PROMOTION for m in moves)
        counts["castle"] += any(m & CASTLE for m in moves)
        counts["capture"] += any(m & CAPTURE for m in moves)
        counts["check"] += board.in_check()
        counts["many_pieces"] += sum(c != 2 for c in board.color) >= 28
    return counts
