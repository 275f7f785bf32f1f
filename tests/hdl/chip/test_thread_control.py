"""The thread's control (hdl/chip/thread_control.py) alone with its move stack, in Amaranth's
simulator: a Python model stands for the generator core, the legality collector and make/unmake
over a seeded random tree (each node's legal moves known, promotions among them), and a claim
counter that gives this thread every other node at the split ply. The control must walk the tree
depth first, making each move once per promotion piece, counting perft of the tree (plain: each
last-ply move made, tested and unmade; bulk: the last ply's moves counted), claim the split ply's
nodes in order and skip the ones taken, and end idle at the root."""

import random

from amaranth import Elaboratable, Module
from amaranth.lib import wiring
from amaranth.sim import Simulator

from posdata.engine.rules.defs import BISHOP, KNIGHT, QUEEN, ROOK
from posdata.hdl.chip.move_stack import MoveStack, StackEntry
from posdata.hdl.chip.thread_control import ThreadControl
from posdata.hdl.common.contract import Phase

PROMOTIONS = ((QUEEN, ROOK, BISHOP, KNIGHT), (QUEEN, ROOK, BISHOP, KNIGHT))


def random_tree(rng, depth):
    """A node: (entry, child) per move; a node may have no moves (mate), most have some."""
    if depth == 0:
        return None
    moves = rng.sample(range(4096), rng.choice((0, 1, 2, 3, 3, 4, 4, 5)))  # distinct (from, to)
    return [({"frm": m & 63, "to": m >> 6, "promote": int(rng.random() < 0.15)},
             random_tree(rng, depth - 1)) for m in moves]


def perft(tree, depth, claimed=None, split=0, ply=0, counter=None):
    """Leaves of ``tree`` to ``depth``; at ply ``split`` only the nodes ``claimed(i)`` keeps (i:
    the node's number in the order every thread reaches them)."""
    counter = counter if counter is not None else [0]
    if depth == 0:
        return 1
    total = 0
    for entry, child in tree:
        for _ in (PROMOTIONS[0] if entry["promote"] else (None,)):
            if ply + 1 == split and depth > 1:
                i = counter[0]
                counter[0] += 1
                if not claimed(i):
                    continue
            total += perft(child, depth - 1, claimed, split, ply + 1, counter)
    return total


class Rig(Elaboratable):
    def __init__(self):
        self.control = ThreadControl(StackEntry)
        self.stack = MoveStack(StackEntry, PROMOTIONS)

    def elaborate(self, platform):
        m = Module()
        m.submodules.control, m.submodules.stack = self.control, self.stack
        wiring.connect(m, self.control.stack, self.stack.control)
        wiring.connect(m, self.stack.hand, self.control.hand)
        return m


def count(tree, depth, bulk, split=0, claimed=lambda i: True):
    rig = Rig()
    ctl, stack = rig.control, rig.stack
    seq, col, core = ctl.sequencer, ctl.collector, ctl.core
    result = {}

    async def bench(ctx):
        ctx.set(ctl.count.depth, depth)
        ctx.set(ctl.count.bulk, bulk)
        ctx.set(ctl.count.split, split)
        ctx.set(ctl.count.start, 1)
        await ctx.tick()
        ctx.set(ctl.count.start, 0)
        path = [tree]          # the nodes from the root to the one at the control's ply
        made_entries = []      # the entry being made, to descend into
        leaves = 0
        pushes = []            # the node's moves, pushed one a clock
        core_done_in = None
        seq_done_in, seq_signal = None, None
        claims_next = 0
        grant_next = 0
        phases = {}
        capture = popping = False
        for clock in range(200_000):
            ctx.set(col.idle, 1)
            ctx.set(col.quiet, not pushes)
            # the claim counter: grants what ``claimed`` keeps, else the node is taken
            ctx.set(ctl.claim.grant, grant_next)
            ctx.set(ctl.claim.next, claims_next)
            grant_next = 0
            if ctx.get(ctl.claim.req):
                index = ctx.get(ctl.claim.index)
                if claims_next <= index:
                    if claimed(index):
                        grant_next = 1
                    claims_next = index + 1
            # the core: a node's moves, through the collector, onto the stack
            if ctx.get(core.start):
                node = path[-1]
                if ctx.get(col.counting):
                    leaves += sum(4 if e["promote"] else 1 for e, _ in node)
                else:
                    pushes = [e for e, _ in node]
                core_done_in = 3 + len(pushes)
            if core_done_in is not None:
                core_done_in -= 1
            ctx.set(core.done, core_done_in == 0)
            ctx.set(stack.push.valid, bool(pushes) and ctx.get(col.collect))
            if pushes and ctx.get(col.collect):
                ctx.set(stack.push.payload, pushes.pop(0))
            # make/unmake
            ctx.set(seq.made, 0)
            ctx.set(seq.unmade, 0)
            # make/unmake's first clock: it reads the move in hand and records it as the ply's
            # made move (make), or drops the child's moves (unmake)
            ctx.set(stack.use.record, capture)
            ctx.set(stack.use.pop, popping)
            if capture:
                e = ctx.get(stack.hand.entry)
                made_entries.append({"frm": e.frm, "to": e.to, "promote": e.promote})
            capture = popping = False
            if ctx.get(seq.make):
                capture = True
                store_all = ctx.get(seq.store_all)
                seq_done_in, seq_signal = (4, "unmade") if store_all else (2, "made")
                if store_all:
                    leaves += 1
            if ctx.get(seq.unmake):
                popping = True
                seq_done_in, seq_signal = 2, "unmade"
            if seq_done_in is not None:
                seq_done_in -= 1
                ctx.set(seq.phase, Phase.UNMAKE if seq_signal == "unmade" else Phase.MAKE)
                if seq_done_in == 0:
                    ctx.set(getattr(seq, seq_signal), 1)
                    if seq_signal == "made":  # down into the move's child
                        entry = made_entries.pop()
                        children = [c for e, c in path[-1] if e == entry]
                        assert children, f"clock {clock}: made {entry}, not a move of " \
                                         f"{[e for e, _ in path[-1]]}"
                        path.append(children[0])
                    elif made_entries:        # a plain leaf made, tested and unmade
                        made_entries.pop()
                    seq_done_in = None
            else:
                ctx.set(seq.phase, Phase.IDLE)
            if ctx.get(seq.flip):
                path.pop()
            phase = Phase(ctx.get(ctl.phase))
            phases[phase.name] = phases.get(phase.name, 0) + 1
            await ctx.tick()
            if not ctx.get(ctl.busy):
                break
        result.update(leaves=leaves, clocks=clock, path=len(path), phases=phases)

    sim = Simulator(rig)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return result


def trees(n, depth, seed):
    rng = random.Random(seed)
    return [random_tree(rng, depth) for _ in range(n)]


def test_plain_and_bulk_count_the_tree():
    for tree in trees(3, 3, 5):
        for bulk in (False, True):
            got = count(tree, 3, bulk)
            assert got["leaves"] == perft(tree, 3), (bulk, got)
            assert got["path"] == 1, "the control did not come back to the root"


def test_split_ply_nodes_claimed_and_skipped():
    keep = lambda i: i % 2 == 0  # noqa: E731
    for tree in trees(2, 3, 8):
        want = perft(tree, 3, keep, split=1)
        assert 0 < want < perft(tree, 3), "a tree where claiming matters"
        got = count(tree, 3, True, split=1, claimed=keep)
        assert got["leaves"] == want, got
