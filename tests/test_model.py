"""The timing model (sim.model) against the gateware: the same moves in the same order and the
same ``cycles`` on the standard positions, seeded random playouts and positions picked for the
timing corners, compared with the compiled CXXRTL model (fast) and, clock by clock, with
Amaranth's simulator; its ROM against hdl.rom's; and timing facts worked out by hand from the
module docstring."""

import pytest

from posdata.engine.board import Board
from posdata.engine.defs import BPAWN, PAWN, ptype
from posdata.engine.posdata import NEXTDIR_ROWS, NEXTPOS_ROWS
from posdata.engine.positions import STANDARD_POSITIONS
from posdata.sim import model
from posdata.sim.compare import describe_difference
from posdata.sim.cxxrtl_driver import CxxrtlGenerator
from posdata.sim.model import predict

from .hw_positions import census, random_positions

#: positions for the timing corners: (FEN, the context FIFO fills with ready held high)
CORNERS = (
    # a FIFO fills: context 0 walks king, pawn and rook while context 1 walks the queen
    ("4r1R1/5k1r/3P4/8/r7/2p5/5Kp1/3Q4 w - - 0 18", True),
    ("3B2k1/K7/2Q5/Q3Q3/8/8/8/2Q5 w - - 0 1", True),   # queens, one after the other
    ("1b1r4/8/K4n2/P1q5/7k/5b2/pppppppp/NRBRBRBQ b - - 0 1", True),  # promotions, 4 clocks each
    ("r3k2r/3Q4/3qQ3/r7/8/8/2q5/R3K2R b KQkq - 0 1", True),  # ... and castling after it
    ("8/3K4/3r4/3B1p2/8/2Q5/4k2P/1q6 w - f6 0 1", True),    # ... and en passant
    ("8/2k5/8/pb4K1/4q3/5R2/8/8 b - - 0 1", True),          # four pieces are enough
    ("n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1", False),     # promotions both ways
    ("4k3/8/8/8/8/8/8/4K3 w - - 0 1", False),               # a lone king
    ("7k/8/8/8/8/8/8/KQ6 w - - 0 1", False),                # a long slider walks last, alone
    ("7k/8/8/8/8/8/PPP5/BBB1K3 w - - 0 1", False),          # one- and two-entry pieces first
    ("3k4/8/8/8/8/8/8/R3K2R w KQ - 0 1", False),            # both castling moves
)


@pytest.fixture(scope="module")
def hw():
    return CxxrtlGenerator()


def check(hw, fen):
    """Gateware, model and reference agree on ``fen``; returns the model's prediction."""
    board = Board(fen)
    result = hw.generate(board)
    predicted = predict(board)
    reference = board.moves()
    assert result.moves == reference, describe_difference(fen, result.moves, reference)
    assert predicted.moves == result.moves, describe_difference(
        fen, predicted.moves, result.moves, "model", "gateware")
    assert predicted.cycles == result.cycles, \
        f"{fen}: gateware {result.cycles} cycles, model {predicted.cycles}"
    return predicted


def test_rom_is_the_gateware_rom():
    from posdata.hdl import merger, prefetch, rom
    words, ends = model.rom_images()
    assert words == rom.rom_image() and ends == rom.end_image()
    assert model.ROM_DEPTH == rom.ROM_DEPTH
    assert model.rom_address(BPAWN, 52, 44) == rom.rom_address(BPAWN, 52, 44) == 52 << 6 | 44
    assert model.QUEUE_DEPTH == prefetch.QUEUE_DEPTH and model.FIFO_DEPTH == merger.FIFO_DEPTH
    assert model.CONTEXTS == merger.CONTEXTS


def test_model_imports_no_amaranth():
    import subprocess
    import sys
    code = ("import sys; from posdata.engine.board import Board; "
            "from posdata.sim.model import predict; predict(Board()); print('amaranth' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "False", out.stdout + out.stderr


def test_standard_positions(hw):
    for pos in STANDARD_POSITIONS:
        check(hw, pos.fen)


def test_random_positions(hw):
    fens = random_positions(500, seed=2027)
    seen = census(fens)
    assert seen["ep"] >= 40 and seen["promotion"] >= 20 and seen["castle"] >= 40, seen
    stalled = sum(check(hw, fen).stalls > 0 for fen in fens)
    assert stalled >= 2  # the sample reaches full FIFOs too


@pytest.mark.parametrize("fen, fills", CORNERS, ids=[f for f, _ in CORNERS])
def test_timing_corners(hw, fen, fills):
    assert (check(hw, fen).stalls > 0) == fills


def test_trace_is_the_gateware_clock_by_clock():
    """Per busy clock: which piece is in the walker's logic stage, which move is taken."""
    from posdata.sim.pysim_driver import PysimGenerator
    golden = PysimGenerator(trace=True)
    for fen in [p.fen for p in STANDARD_POSITIONS] + [f for f, _ in CORNERS]:
        board = Board(fen)
        result = golden.generate(board)
        trace = []
        predict(board, trace)
        assert trace == result.trace, fen


def walked_squares(board, frm):
    """Squares the posdata walk of the piece on ``frm`` visits, from engine's tables."""
    pt = ptype(board.side, board.piece[frm])
    npos, ndir = NEXTPOS_ROWS[pt * 64 + frm], NEXTDIR_ROWS[pt * 64 + frm]
    empty = [c == 2 for c in board.color]
    seen = []
    if pt in (PAWN, BPAWN):
        u = npos[frm]
        while u != frm:  # pushes until blocked
            seen.append(u)
            if not empty[u]:
                break
            u = npos[u]
        u = ndir[frm]
        while u != frm:  # every capture square
            seen.append(u)
            u = ndir[u]
        return seen
    u = npos[frm]
    while u != frm:
        seen.append(u)
        u = npos[u] if empty[u] else ndir[u]
    return seen


def test_walk_entries_are_the_squares_visited():
    for fen in [p.fen for p in STANDARD_POSITIONS] + random_positions(100, seed=5):
        board = Board(fen)
        predicted = predict(board)
        for piece in predicted.pieces:
            assert piece.entries == len(walked_squares(board, piece.square)), (fen, piece.name)
            assert piece.cycles >= piece.entries
        assert predicted.walk_entries == sum(p.entries for p in predicted.pieces)
        assert predicted.start_entries == len(predicted.pieces)
        assert predicted.table_steps == predicted.walk_entries + len(predicted.pieces)
        assert sum(p.cycles for p in predicted.pieces) == predicted.walk_entries + predicted.stalls
        assert sum(p.moves for p in predicted.pieces) + predicted.castles == len(predicted.moves)


# --- timing facts worked out by hand --------------------------------------------------------------

def clocks(trace):
    """(clocks with a piece in the logic stage, clocks in which a move is taken)"""
    return ([i + 1 for i, (w, _) in enumerate(trace) if w is not None],
            [i + 1 for i, (_, m) in enumerate(trace) if m is not None])


def test_lone_king():
    """Ke1: five entries, context 1 steps in clocks 6 .. 14, each move leaves two clocks after
    its step, Drain three clocks after the last step."""
    trace = []
    p = predict(Board("4k3/8/8/8/8/8/8/4K3 w - - 0 1"), trace)
    walked, taken = clocks(trace)
    assert walked == [6, 8, 10, 12, 14] and taken == [8, 10, 12, 14, 16]
    assert p.cycles == 17 and p.walk_entries == 5 and p.start_entries == 1


def test_both_contexts_walk_one_entry_per_clock():
    """Initial position: the walk begins in clock 6, clock 7 is idle (context 0 takes the
    second piece in 7, steps in 9), then one entry per clock until the last (clock 60)."""
    trace = []
    p = predict(Board(STANDARD_POSITIONS[0].fen), trace)
    walked, _ = clocks(trace)
    assert walked == [6] + list(range(8, 61)) and p.walk_entries == 54
    assert p.cycles == 65 and p.stalls == 0


def test_walk_always_starts_in_clock_six():
    for fen in random_positions(100, seed=8):
        trace = []
        predict(Board(fen), trace)
        walked, _ = clocks(trace)
        assert walked[0] == 6 and 7 not in walked, fen


def test_the_tail_runs_at_half_speed():
    """Ka1 (3 entries) on context 1, then Qb1 (21) alone on context 0: steps in 9, 11 .. 49."""
    trace = []
    p = predict(Board("7k/8/8/8/8/8/8/KQ6 w - - 0 1"), trace)
    walked, _ = clocks(trace)
    assert walked == sorted([6, 8, 10] + list(range(9, 50, 2)))
    assert p.walk_entries == 24 and p.cycles == 49 + 3


def test_castling_costs_one_clock_per_move():
    fen = "3k4/8/8/8/8/8/8/R3K2R w {} - 0 1"
    none, king, both = (predict(Board(fen.format(c))) for c in ("-", "K", "KQ"))
    assert (king.castles, both.castles) == (1, 2)
    assert king.cycles == none.cycles + 1 and both.cycles == none.cycles + 2
    assert both.walk_entries == none.walk_entries


def test_a_full_fifo_costs_its_context_two_clocks_per_stall():
    """The docstring's example: the rook on g8 waits for the queen's walk to end."""
    p = predict(Board(CORNERS[0][0]))
    accounts = {a.name: a for a in p.pieces}
    assert p.stalls == 4 and p.cycles == 64
    assert (accounts["Qd1"].entries, accounts["Qd1"].cycles) == (19, 19)
    assert (accounts["Rg8"].entries, accounts["Rg8"].cycles) == (9, 13)
