"""The chip search's structure terms (engine/search/leaf_structure.py, bit planes) against the same
terms counted square by square here, and eval.py's king shield; and what they add to the
evaluation."""

import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import EMPTY, KING, PAWN, ROOK, WHITE
from posdata.engine.rules.positions import STANDARD_POSITIONS
from posdata.engine.search import eval as full_eval
from posdata.engine.search.leaf_eval import PHASE_ONE, PHASE_WEIGHT
from posdata.engine.search.leaf_structure import Planes, structure, structure_of
from tests.hw_positions import EXTRA_STARTS, random_positions

POSITIONS = ([p.fen for p in STANDARD_POSITIONS] + list(EXTRA_STARTS)
             + random_positions(120, seed=38) + [
                 "4k3/pp3ppp/8/3P4/1P6/P7/5PPP/4K3 w - - 0 1",   # passed, isolated, doubled
                 "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",        # rooks on open files
                 "6k1/5ppp/8/8/8/8/1PP5/1K1R4 b - - 0 1",       # a thin shield
                 "4k3/8/8/8/8/8/PPP5/1K6 w - - 0 1"])


def by_squares(board) -> int:
    """White's lead from the structure terms, counted from the squares as eval.py counts."""
    color, piece = board.color, board.piece
    weights = [0, 0]
    for sq, c in enumerate(color):
        if c != EMPTY:
            weights[c] += PHASE_WEIGHT[piece[sq]]
    phase = min(weights[0] + weights[1], PHASE_ONE)

    def pawns(c):
        return [sq for sq in range(64) if color[sq] == c and piece[sq] == PAWN]

    total = 0
    for c, sign in ((WHITE, 1), (1, -1)):
        own, enemy = pawns(c), pawns(c ^ 1)
        counts = [sum(1 for sq in own if sq & 7 == f) for f in range(8)]
        s = -full_eval.DOUBLED_PAWN * sum(max(n - 1, 0) for n in counts)
        for f in range(8):
            neighbours = (counts[f - 1] if f else 0) + (counts[f + 1] if f < 7 else 0)
            if not neighbours:
                s -= full_eval.ISOLATED_PAWN * counts[f]
        mg = eg = 0
        for sq in own:
            f, r = sq & 7, sq >> 3
            ahead = [e for e in enemy if abs((e & 7) - f) <= 1
                     and ((e >> 3) > r if c == WHITE else (e >> 3) < r)]
            if not ahead:
                rel = r if c == WHITE else 7 - r
                mg += full_eval.PASSED_MG[rel]
                eg += full_eval.PASSED_EG[rel]
        s += eg + ((mg - eg) * phase >> 8)
        enemy_counts = [sum(1 for sq in enemy if sq & 7 == f) for f in range(8)]
        for sq in range(64):
            if color[sq] == c and piece[sq] == ROOK and not counts[sq & 7]:
                s += (full_eval.ROOK_OPEN_FILE if not enemy_counts[sq & 7]
                      else full_eval.ROOK_HALF_OPEN_FILE)
        king = board.king[c]
        assert piece[king] == KING
        shield = full_eval._shield_penalty(king, c, color, piece, enemy_counts)
        s -= shield * weights[c ^ 1] >> 7
        total += sign * s
    return total


@pytest.mark.parametrize("fen", POSITIONS)
def test_planes_equal_squares(fen):
    board = Board(fen)
    assert structure(Planes.of(board)) == by_squares(board), fen
    sign = 1 if board.side == WHITE else -1
    assert structure_of(board) == sign * by_squares(board)


def test_the_terms_are_not_all_zero():
    values = {structure(Planes.of(Board(fen))) for fen in POSITIONS}
    assert len(values) > 40


def test_symmetry():
    """A position and its colour-flipped mirror score the same for the side to move."""
    for fen in POSITIONS[:60]:
        board = Board(fen)
        rows = fen.split()[0].split("/")
        flipped = "/".join(row.swapcase() for row in reversed(rows))
        side = "b" if fen.split()[1] == "w" else "w"
        mirror = Board(f"{flipped} {side} - - 0 1")
        assert structure_of(board) == structure_of(mirror), fen
