"""Make/unmake (hdl/chip/make_unmake.py) alone, on its board and a small move stack, in Amaranth's
simulator, against the reference board (engine.rules.board.makemove/takeback): every pseudo-legal
move of positions that hold castling, en passant, promotions (each piece of the set) and captures is
made (the board's squares, both kings, side, rights and en passant square then equal the reference's
after the move) and unmade (all of it equal to before); at a plain count's last ply the sequencer
makes, asks whether the mover's king is attacked, and unmakes by itself."""

from amaranth.sim import Simulator

from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import CASTLE, NO_SQUARE, PROMOTION, PROMOTION_ORDER, move_uci
from posdata.hdl.chip.legality import CASTLE_TO, NORMAL
from tests.formal.harness_make_unmake import MakeUnmakeRig

POSITIONS = (
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",  # kiwipete
    "r3k2r/1P4P1/8/2pP4/8/8/1p4p1/R3K2R w KQkq c6 0 1",    # promotions, en passant, castling
    "r3k2r/1p1p1p1p/8/2P1P1P1/1p1p1p2/8/P1P1P1P1/R3K2R b KQkq - 0 1",
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",               # capturing promotions, black
)


def snapshot(board: Board) -> dict:
    return {"squares": [(c, p) for c, p in zip(board.color, board.piece)],
            "kings": list(board.king), "side": board.side, "rights": board.castle,
            "ep": board.ep if board.ep != NO_SQUARE else None}


def unexpanded(board: Board) -> list[tuple[int, int]]:
    """The pseudo-legal moves as the stack holds them, with the promotion index of each:
    (move, index)."""
    out = []
    for m in board.moves():
        index = 0
        if m & PROMOTION:
            index = PROMOTION_ORDER.index(m >> 18)
        out.append((m, index))
    return out


def run(fens, plain=False):
    rig = MakeUnmakeRig()
    moves, stack, board = rig.moves, rig.stack, rig.board
    ctl, sctl = moves.control, stack.control
    errors, asked = [], []

    async def chip_snapshot(ctx):
        squares = []
        for sq in range(64):
            ctx.set(board.lookup.sq, sq)
            empty = ctx.get(board.planes.empty) >> sq & 1
            black = ctx.get(board.planes.black) >> sq & 1
            squares.append((2 if empty else black, ctx.get(board.lookup.piece)))
        pos = ctx.get(moves.position)
        return {"squares": squares, "kings": [ctx.get(board.attack.king[c]) for c in (0, 1)],
                "side": pos.side, "rights": pos.castle,
                "ep": pos.ep_sq if pos.ep_valid else None}

    async def settle(ctx):
        for _ in range(2):  # a board write shows two clocks after it is asked for
            await ctx.tick()

    async def pulse(ctx, signal):
        ctx.set(signal, 1)
        await ctx.tick()
        ctx.set(signal, 0)

    async def load(ctx, ref):
        ctx.set(ctl.host_ok, 1)
        for sq in range(64):
            ctx.set(moves.host.en, 1)
            ctx.set(moves.host.sq, sq)
            ctx.set(moves.host.color, ref.color[sq])
            ctx.set(moves.host.piece, ref.piece[sq])
            await ctx.tick()
        ctx.set(moves.host.en, 0)
        ctx.set(ctl.host_ok, 0)
        ctx.set(moves.root, {"side": ref.side, "castle": ref.castle,
                             "ep_valid": ref.ep != NO_SQUARE, "ep_sq": max(ref.ep, 0)})
        await pulse(ctx, ctl.load)
        await settle(ctx)

    async def in_hand(ctx, m, index):
        """The move onto the stack, the node closed, its first entry read and taken; then the
        entry's promotion index stepped to ``index``."""
        await pulse(ctx, sctl.start)
        await pulse(ctx, sctl.open)
        ctx.set(stack.push.valid, 1)
        ctx.set(stack.push.payload, {"frm": m & 63, "to": m >> 6 & 63,
                                     "promote": bool(m & PROMOTION)})
        await ctx.tick()
        ctx.set(stack.push.valid, 0)
        await ctx.tick()                     # written
        ctx.set(sctl.draining, 1)            # read at the node's first entry ...
        await pulse(ctx, sctl.close)
        ctx.set(sctl.draining, 0)
        await pulse(ctx, sctl.take)          # ... taken as it arrives
        for _ in range(index):
            await pulse(ctx, sctl.next_promo)

    async def until(ctx, signal, limit=12):
        for _ in range(limit):
            if ctx.get(signal):
                await ctx.tick()
                return True
            if ctx.get(moves.ask.valid):
                asked.append(ctx.get(moves.ask.payload))
            await ctx.tick()
        return False

    async def bench(ctx):
        ctx.set(ctl.store_all, int(plain))
        for fen in fens:
            ref = Board(fen)
            await load(ctx, ref)
            before = snapshot(ref)
            for m, index in unexpanded(ref):
                name = f"{fen} {move_uci(m)}"
                await in_hand(ctx, m, index)
                asked.clear()
                await pulse(ctx, ctl.make)
                if plain:
                    if not await until(ctx, ctl.unmade, 16):
                        errors.append(f"{name}: not unmade")
                        return
                    # one test of the made leaf: the mover's king (where it went, if it moved),
                    # attacked by the other side
                    tests = [a for a in asked if a.tag.leaf and a.tag.part in (NORMAL, CASTLE_TO)]
                    king = ref.king[ref.side]
                    want = (m >> 6 & 63) if (m & 63) == king else king
                    part = CASTLE_TO if m & CASTLE else NORMAL
                    if [(t.query.sq, t.query.by, t.tag.part) for t in tests] != \
                            [(want, ref.side ^ 1, part)]:
                        errors.append(f"{name}: the leaf's test {tests}")
                else:
                    if not await until(ctx, ctl.made):
                        errors.append(f"{name}: not made")
                        return
                    await settle(ctx)
                    if ref.makemove(m):
                        after = snapshot(ref)
                        ref.takeback()
                        got = await chip_snapshot(ctx)
                        if got != after:
                            errors.append(f"{name}: made {diff(got, after)}")
                    # back up, as the control goes: the side flips, then unmake
                    await pulse(ctx, ctl.flip)
                    await pulse(ctx, ctl.unmake)
                    if not await until(ctx, ctl.unmade):
                        errors.append(f"{name}: not unmade")
                        return
                await settle(ctx)
                got = await chip_snapshot(ctx)
                if got != before:
                    errors.append(f"{name}: unmade {diff(got, before)}")
                if len(errors) > 5:
                    return

    sim = Simulator(rig)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return errors


def diff(got: dict, want: dict) -> str:
    parts = []
    for key in want:
        if key == "squares":
            bad = [f"sq{sq} {g} want {w}" for sq, (g, w) in
                   enumerate(zip(got[key], want[key])) if g != w]
            if bad:
                parts.append(", ".join(bad[:4]))
        elif got[key] != want[key]:
            parts.append(f"{key} {got[key]} want {want[key]}")
    return "; ".join(parts)


def test_make_then_unmake_against_the_reference():
    errors = run(POSITIONS)
    assert not errors, "\n".join(errors)


def test_plain_leaf_is_made_tested_and_unmade():
    errors = run(POSITIONS[:2], plain=True)
    assert not errors, "\n".join(errors)
