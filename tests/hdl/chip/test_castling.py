"""Castling's rules on chip (hdl/chip/castling.py) against the reference board's: the rook's squares
of each castling (engine.rules.defs.Castle records: orthodox, and Chess960's from the position) and
the rights a move leaves (TSCP's castle_mask, engine.rules.board.castle_mask), for every from- and
to-square, in Amaranth's simulator."""

import random

from amaranth.sim import Simulator

from posdata.engine.rules.board import Board, castle_mask
from posdata.engine.rules.chess960 import start_fen
from posdata.engine.rules.defs import CASTLES
from posdata.hdl.chip.castling import CastleRules
from posdata.hdl.common.contract import (
    CASTLE_ROOKS_BITS,
    castle_rooks_word,
    castling_fields,
    castling_word,
)


def check(variant: str, castles, pairs) -> list[str]:
    dut = CastleRules(variant)
    mask = castle_mask(castles)
    errors = []

    async def bench(ctx):
        if variant == "chess960":
            ctx.set(dut.castling, castling_fields(castling_word(castles)))
            rooks = castle_rooks_word(castles)
            ctx.set(dut.rooks, [rooks >> 3 * i & 7 for i in range(CASTLE_ROOKS_BITS // 3)])
        for side, side_castles in enumerate(castles):
            for c in side_castles:
                ctx.set(dut.side, side)
                ctx.set(dut.king_to, c.king_to)
                got = (ctx.get(dut.rook_from), ctx.get(dut.rook_to))
                if got != (c.rook_from, c.rook_to):
                    errors.append(f"{c}: rook {got}")
        for rights, frm, to in pairs:
            ctx.set(dut.rights, rights)
            ctx.set(dut.frm, frm)
            ctx.set(dut.to, to)
            want = rights & mask[frm] & mask[to]
            if ctx.get(dut.rights_after) != want:
                errors.append(f"rights {rights:04b} {frm}->{to}: "
                              f"{ctx.get(dut.rights_after):04b}, want {want:04b}")

    sim = Simulator(dut)
    sim.add_testbench(bench)
    sim.run()
    return errors


def test_orthodox_rooks_and_rights():
    pairs = [(15, frm, to) for frm in range(64) for to in range(64)]
    assert not check("chess", CASTLES, pairs)


def test_chess960_rooks_and_rights_from_the_position():
    rng = random.Random(960)
    errors = []
    for n in (0, 518, 959, *rng.sample(range(960), 5)):
        castles = Board(start_fen(n), "chess960").castles
        squares = sorted({sq for side in castles for c in side
                          for sq in (c.king_from, c.rook_from)} | {0, 7, 56, 63, 27})
        pairs = [(rng.randrange(16), frm, to) for frm in squares for to in range(64)]
        errors += [f"start {n}: {e}" for e in check("chess960", castles, pairs)]
    assert not errors, "\n".join(errors[:5])
