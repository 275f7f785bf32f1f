"""The capture finder gives stage 1's moves in engine/search/capture_finder.py's order: promotions
by a push, then each victim's aggressors, walked with the cursors the thread keeps."""

from amaranth.sim import Simulator

from posdata.engine.rules.board import Board
from posdata.engine.search.capture_finder import capture_stage
from posdata.hdl.search.finder import CaptureFinder
from tests.hw_positions import EXTRA_STARTS, random_positions

from .planes import set_node


def finder_moves(dut, fens):
    """Per FEN, the moves the finder gives, cursor by cursor."""
    out = []

    async def bench(ctx):
        for fen in fens:
            board = Board(fen)
            set_node(ctx, dut, board)
            moves, file = [], 0
            while file < 8:
                ctx.set(dut.cursors.promo_file, file)
                if not ctx.get(dut.cursors.promo_valid):
                    break
                moves.append(ctx.get(dut.cursors.promo_move))
                file = ctx.get(dut.cursors.promo_next_file)
            kind, sq = 0, 0
            while True:
                ctx.set(dut.cursors.victim_kind, kind)
                ctx.set(dut.cursors.victim_sq, sq)
                if not ctx.get(dut.cursors.victim_valid):
                    break
                kind, v = ctx.get(dut.cursors.found_kind), ctx.get(dut.cursors.found_sq)
                ctx.set(dut.cursors.target, v)
                slot = 0
                while True:
                    ctx.set(dut.cursors.slot, slot)
                    if not ctx.get(dut.cursors.aggressor_valid):
                        break
                    moves.append(ctx.get(dut.cursors.aggressor_move))
                    slot = ctx.get(dut.cursors.aggressor_slot) + 1
                kind, sq = (kind, v + 1) if v < 63 else (kind + 1, 0)
            out.append(moves)

    sim = Simulator(dut)
    sim.add_testbench(bench)
    sim.run()
    return out


def test_finder_order_matches_the_reference():
    fens = list(EXTRA_STARTS) + random_positions(40, seed=27)
    got = finder_moves(CaptureFinder(), fens)
    for fen, moves in zip(fens, got):
        want = list(capture_stage(Board(fen)))
        assert moves == want, f"{fen}: finder {moves} reference {want}"
