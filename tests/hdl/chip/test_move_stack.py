"""The move stack and per-ply records (hdl/chip/move_stack.py) alone, in Amaranth's simulator,
driven as the thread's control drives it over seeded random trees: every node's moves pushed,
then made one by one depth first (a promotion entry once per piece of the mover's promotion set,
which may differ by side), each child's moves popped on the way back up. The moves come back in
the order a depth-first walk of the tree visits them, with the right promotion piece, the
ply's last entry marked, an empty node told apart; a push beyond the stack's depth sets overflow
until the next start."""

import random

from amaranth.sim import Simulator

from posdata.engine.rules.defs import BISHOP, KNIGHT, QUEEN, ROOK
from posdata.hdl.chip.move_stack import MoveStack, StackEntry

#: white promotes to four pieces, black to two: the side picks the set
PROMOTIONS = ((QUEEN, ROOK, BISHOP, KNIGHT), (QUEEN, KNIGHT))


def random_tree(rng, depth: int, most: int = 4) -> list:
    """A node: a list of (entry dict, child node or None)."""
    if depth == 0:
        return []
    node = []
    for _ in range(rng.randint(0, most)):
        entry = {"frm": rng.randrange(64), "to": rng.randrange(64),
                 "promote": int(rng.random() < 0.2)}
        node.append((entry, random_tree(rng, depth - 1, most) if depth > 1 else None))
    return node


def expected(node, side=0) -> list:
    """(ply, entry, piece, last) per move made, depth first."""
    out = []

    def walk(node, ply, side):
        for i, (entry, child) in enumerate(node):
            pieces = PROMOTIONS[side] if entry["promote"] else (None,)
            for piece in pieces:
                out.append((ply, entry, piece, i == len(node) - 1))
                if child is not None:
                    walk(child, ply + 1, side ^ 1)
    walk(node, 0, side)
    return out


def run(trees, depth=64, overflow_after=None):
    dut = MoveStack(StackEntry, PROMOTIONS, depth=depth, plies=8)
    ctl = dut.control
    log, problems = [], []

    async def pulse(ctx, *signals):
        for s in signals:
            ctx.set(s, 1)
        await ctx.tick()
        for s in signals:
            ctx.set(s, 0)

    async def node(ctx, tree, ply, side):
        """Generate (push the node's moves), then make each (promotions once per piece)."""
        ctx.set(ctl.ply, ply)
        ctx.set(dut.side, side)
        await pulse(ctx, ctl.open)
        for entry, _ in tree:
            ctx.set(dut.push.valid, 1)
            ctx.set(dut.push.payload, entry)
            await ctx.tick()
        ctx.set(dut.push.valid, 0)
        while ctx.get(ctl.pushing):
            await ctx.tick()
        if ctx.get(ctl.empty) != (not tree):
            problems.append(f"ply {ply}: empty {ctx.get(ctl.empty)} with {len(tree)} moves")
        if not tree:
            return
        ctx.set(ctl.draining, 1)   # the node's first entry is read next
        await pulse(ctx, ctl.close)
        ctx.set(ctl.draining, 0)
        i = 0
        while True:
            await pulse(ctx, ctl.take)
            got = ctx.get(dut.hand.entry)
            entry = {"frm": got.frm, "to": got.to, "promote": got.promote}
            piece = ctx.get(dut.hand.piece) if got.promote else None
            last = ctx.get(dut.hand.last)
            log.append((ply, entry, piece, bool(last)))
            await pulse(ctx, dut.use.record)            # made from this ply
            child = tree[i][1] if i < len(tree) else None
            if child is not None:
                await node(ctx, child, ply + 1, side ^ 1)
                ctx.set(ctl.ply, ply)
                ctx.set(dut.side, side)
                await pulse(ctx, ctl.reload)            # back up: the ply's records
                await pulse(ctx, dut.use.pop)           # unmake: the child's moves leave
            made = ctx.get(dut.hand.made)
            if (made.move.frm, made.move.to, made.last) != (got.frm, got.to, last):
                problems.append(f"ply {ply}: made record {made} after the child, "
                                f"taken {got} last {last}")
            if made.move.promote and ctx.get(dut.hand.promo_more):
                await pulse(ctx, ctl.next_promo)        # the same entry again
            else:
                await pulse(ctx, ctl.next_entry)
                i += 1
                if made.last:
                    return

    async def bench(ctx):
        for tree in trees:
            await pulse(ctx, ctl.start)
            if overflow_after is not None:
                ctx.set(dut.push.valid, 1)
                ctx.set(dut.push.payload, {"frm": 1, "to": 2, "promote": 0})
                # a push is written a clock after it is offered: the (depth + 1)-th, two
                # clocks after it is offered, finds the stack full
                for i in range(1, depth + 4):
                    await ctx.tick()
                    if ctx.get(dut.overflow) != (i >= depth + 2):
                        problems.append(f"after {i} clocks overflow {ctx.get(dut.overflow)}")
                ctx.set(dut.push.valid, 0)
                await ctx.tick().repeat(3)
                if not ctx.get(dut.overflow):
                    problems.append("overflow did not stay set")
                await pulse(ctx, ctl.start)
                if ctx.get(dut.overflow):
                    problems.append("overflow not cleared by a start")
                continue
            await node(ctx, tree, 0, 0)

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return log, problems


def test_depth_first_order_with_promotions_and_last_entries():
    rng = random.Random(26)
    trees = [random_tree(rng, 3) for _ in range(6)]
    log, problems = run(trees)
    want = [m for tree in trees for m in expected(tree)]
    assert not problems, "\n".join(problems[:5])
    first = next((i for i, (a, b) in enumerate(zip(log, want)) if a != b), None)
    assert log == want, f"first difference at move {first}: {log[first:first + 2]} " \
                        f"want {want[first:first + 2]}"


def test_overflow_is_sticky_until_a_start():
    _, problems = run([None], depth=8, overflow_after=8)
    assert not problems, "\n".join(problems)
