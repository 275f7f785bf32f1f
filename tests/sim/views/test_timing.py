"""Where the generator's clocks go, measured on the gateware (Amaranth's simulator, traced clock
by clock): the timing facts of hdl/gen/movegen.py's docstring, worked out by hand, and the walk
entries the walker consumes against the squares the engine's tables visit."""

import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.positions import STANDARD_POSITIONS
from posdata.sim.drivers.gen_pysim import PysimGenerator
from posdata.sim.views.accounts import account, table_entries
from tests.hw_positions import random_positions

#: positions for the timing corners: (FEN, a context's FIFO fills with ready held high)
CORNERS = (
    # a FIFO fills: context 0 walks king, pawn and rook while context 1 walks the queen
    ("4r1R1/5k1r/3P4/8/r7/2p5/5Kp1/3Q4 w - - 0 18", True),
    ("3B2k1/K7/2Q5/Q3Q3/8/8/8/2Q5 w - - 0 1", True),   # queens, one after the other
    ("1b1r4/8/K4n2/P1q5/7k/5b2/pppppppp/NRBRBRBQ b - - 0 1", True),  # promotions, 4 clocks each
    ("r3k2r/3Q4/3qQ3/r7/8/8/2q5/R3K2R b KQkq - 0 1", True),  # ... and castling after it
    ("8/3K4/2r5/3B1p2/8/2Q5/4k2P/1q6 w - f6 0 1", True),    # ... and en passant
    ("8/2k5/8/pb4K1/4q3/5R2/8/8 b - - 0 1", True),          # four pieces are enough
    ("n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1", False),     # promotions both ways
    ("4k3/8/8/8/8/8/8/4K3 w - - 0 1", False),               # a lone king
    ("7k/8/8/8/8/8/8/KQ6 w - - 0 1", False),                # a long slider walks last, alone
    ("7k/8/8/8/8/8/PPP5/BBB1K3 w - - 0 1", False),          # one- and two-entry pieces first
    ("3k4/8/8/8/8/8/8/R3K2R w KQ - 0 1", False),            # both castling moves
)


@pytest.fixture(scope="module")
def hw():
    return PysimGenerator(trace=True)


def traced(hw, fen):
    board = Board(fen)
    result = hw.generate(board)
    assert result.moves == board.moves(), fen
    return result, account(board, result.trace)


def clocks(trace):
    """(clocks in which a piece steps, clocks in which a move is taken), counted from 1"""
    return ([i + 1 for i, c in enumerate(trace) if c.stepping],
            [i + 1 for i, c in enumerate(trace) if c.move is not None])


def test_walk_entries_are_the_squares_the_tables_visit(hw):
    fens = [p.fen for p in STANDARD_POSITIONS] + [f for f, _ in CORNERS]
    for fen in fens + random_positions(40, seed=5):
        board = Board(fen)
        result, acct = traced(hw, fen)
        for piece in acct.pieces:
            assert piece.entries == len(table_entries(board, piece.square)), (fen, piece.name)
        assert sum(p.moves for p in acct.pieces) + acct.castles == len(result.moves)
        assert acct.cycles == result.cycles
        assert (acct.startup + acct.walk_entries + acct.stalls + acct.idle + acct.after
                == result.cycles), fen


@pytest.mark.parametrize("fen, fills", CORNERS, ids=range(len(CORNERS)))
def test_timing_corners(hw, fen, fills):
    _, acct = traced(hw, fen)
    assert (acct.stalls > 0) == fills


def test_lone_king(hw):
    """Ke1: five entries, context 1 steps in clocks 6 .. 14, each move leaves two clocks after
    its step, Drain three clocks after the last step."""
    result, acct = traced(hw, "4k3/8/8/8/8/8/8/4K3 w - - 0 1")
    walked, taken = clocks(result.trace)
    assert walked == [6, 8, 10, 12, 14] and taken == [8, 10, 12, 14, 16]
    assert result.cycles == 17 and acct.walk_entries == 5 and acct.table_steps == 6


def test_both_contexts_walk_one_entry_per_clock(hw):
    """Initial position: the walk begins in clock 6, clock 7 is idle (context 0 takes the
    second piece in 7, steps in 9), then one entry per clock until the last (clock 60)."""
    result, acct = traced(hw, STANDARD_POSITIONS[0].fen)
    walked, _ = clocks(result.trace)
    assert walked == [6] + list(range(8, 61)) and acct.walk_entries == 54
    assert result.cycles == 65 and acct.stalls == 0


def test_walk_always_starts_in_clock_six(hw):
    for fen in random_positions(30, seed=8):
        result, _ = traced(hw, fen)
        walked, _ = clocks(result.trace)
        assert walked[0] == 6 and 7 not in walked, fen


def test_the_tail_runs_at_half_speed(hw):
    """Ka1 (3 entries) on context 1, then Qb1 (21) alone on context 0: steps in 9, 11 .. 49."""
    result, acct = traced(hw, "7k/8/8/8/8/8/8/KQ6 w - - 0 1")
    walked, _ = clocks(result.trace)
    assert walked == sorted([6, 8, 10] + list(range(9, 50, 2)))
    assert acct.walk_entries == 24 and result.cycles == 49 + 3


def test_castling_costs_one_clock_per_move(hw):
    fen = "3k4/8/8/8/8/8/8/R3K2R w {} - 0 1"
    (r0, a0), (r1, a1), (r2, a2) = (traced(hw, fen.format(c)) for c in ("-", "K", "KQ"))
    assert (a1.castles, a2.castles) == (1, 2)
    assert r1.cycles == r0.cycles + 1 and r2.cycles == r0.cycles + 2
    assert a2.walk_entries == a0.walk_entries


def test_a_full_fifo_costs_its_context_two_clocks_per_stall(hw):
    """The docstring's example: the rook on g8 waits for the queen's walk to end."""
    result, acct = traced(hw, CORNERS[0][0])
    pieces = {p.name: p for p in acct.pieces}
    assert acct.stalls == 4 and result.cycles == 64
    assert (pieces["Qd1"].entries, pieces["Qd1"].cycles) == (19, 19)
    assert (pieces["Rg8"].entries, pieces["Rg8"].cycles) == (9, 13)
