"""The legality collector (hdl/chip/legality.py) alone, with the attack unit and a board, in
Amaranth's simulator: fed a position's pseudo-legal moves as the generator core streams them
(promotions unexpanded), it pushes exactly the reference's legal moves, in generation order
(castling asked as three questions, en passant with its victim taken off); counting (a bulk
count's last ply) it counts them, each promotion once per piece of the set; at a plain count's
last ply it stores every move unasked."""

from amaranth import Elaboratable, Module
from amaranth.lib import wiring
from amaranth.sim import Simulator

from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import PROMOTION, PROMOTION_ORDER
from posdata.engine.rules.variants import CHESS
from posdata.hdl.chip.attack import AttackUnit
from posdata.hdl.chip.chessboard import PerftBoard
from posdata.hdl.chip.legality import LegalityCollector, tag_layout
from posdata.hdl.chip.move_stack import StackEntry
from tests.hw_positions import EXTRA_STARTS, random_positions

POSITIONS = (
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",  # kiwipete
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",      # position 4
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",                             # pins, en passant
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
    "r3k2r/8/8/8/8/5n2/8/R3K2R w KQkq - 0 1",  # the knight guards the squares castling crosses
    *EXTRA_STARTS[:3], *random_positions(4, seed=11),
)


class CollectorRig(Elaboratable):
    """The collector, the attack unit and a thread's board, joined as the perft thread joins
    them."""

    def __init__(self):
        self.board = PerftBoard(CHESS)
        self.attack = AttackUnit(tag_layout(StackEntry))
        self.collector = LegalityCollector(StackEntry, CHESS)

    def elaborate(self, platform):
        m = Module()
        m.submodules.board, m.submodules.attack = self.board, self.attack
        m.submodules.collector = self.collector
        wiring.connect(m, self.board.attack, self.attack.planes)
        wiring.connect(m, self.collector.ask, self.attack.query)
        wiring.connect(m, self.attack.result, self.collector.answer)
        m.d.comb += self.collector.king.eq(self.board.attack.king)
        return m


def unexpanded(moves: list[int]) -> list[int]:
    """As the core streams them: a promotion once (its first piece), flagged PROMOTION."""
    return [m for m in moves if not m & PROMOTION or m >> 18 == PROMOTION_ORDER[0]]


def collect(fens, mode="legal"):
    """Per position: the entries pushed, and the leaves counted."""
    rig = CollectorRig()
    col, board = rig.collector, rig.board
    ctl = col.control
    results = []

    async def bench(ctx):
        ctx.set(ctl.store_all, mode == "plain")
        ctx.set(ctl.counting, mode == "count")
        for fen in fens:
            ref = Board(fen)
            for sq in range(64):
                ctx.set(board.write.en, 1)
                ctx.set(board.write.sq, sq)
                ctx.set(board.write.color, ref.color[sq])
                ctx.set(board.write.piece, ref.piece[sq])
                await ctx.tick()
            ctx.set(board.write.en, 0)
            ctx.set(col.side, ref.side)
            for name in ("clear", "open"):
                ctx.set(getattr(ctl, name), 1)
            await ctx.tick().repeat(2)  # the last write shows in the planes
            for name in ("clear", "open"):
                ctx.set(getattr(ctl, name), 0)
            pushed = []

            async def clock():
                if ctx.get(col.push.valid):
                    p = ctx.get(col.push.payload)
                    pushed.append((p.frm, p.to, p.promote))
                await ctx.tick()

            ctx.set(ctl.collect, 1)
            for m in unexpanded(ref.moves()):
                ctx.set(col.moves.valid, 1)
                ctx.set(col.moves.payload.as_value(), m)
                while not ctx.get(col.moves.ready):
                    await clock()
                await clock()
            ctx.set(col.moves.valid, 0)
            ctx.set(ctl.collect, 0)
            while not ctx.get(ctl.quiet):
                await clock()
            results.append((pushed, ctx.get(col.leaves)))

    sim = Simulator(rig)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return results


def entry(m: int) -> tuple[int, int, int]:
    return (m & 63, m >> 6 & 63, int(bool(m & PROMOTION)))


def test_legal_moves_pushed_in_generation_order():
    errors = []
    for fen, (pushed, _) in zip(POSITIONS, collect(POSITIONS)):
        want = [entry(m) for m in unexpanded(Board(fen).legal_moves())]
        if pushed != want:
            first = next(i for i, (a, b) in enumerate(zip(pushed + [None] * len(want),
                                                          want + [None] * len(pushed)))
                         if a != b)
            errors.append(f"{fen}: first difference at {first}: pushed "
                          f"{pushed[first:first + 3]}, legal {want[first:first + 3]}")
    assert not errors, "\n".join(errors)


def test_counting_counts_each_promotion_piece():
    got = [leaves for _, leaves in collect(POSITIONS, "count")]
    assert got == [len(Board(fen).legal_moves()) for fen in POSITIONS]


def test_plain_last_ply_stores_every_move_unasked():
    for fen, (pushed, leaves) in zip(POSITIONS[:3], collect(POSITIONS[:3], "plain")):
        assert pushed == [entry(m) for m in unexpanded(Board(fen).moves())], fen
        assert leaves == 0, fen
