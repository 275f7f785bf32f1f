"""The capture pipeline streams exactly the capture finder's captures (engine/search/
capture_finder.py's order, each with its own cursor), from a node's entry and from cursors in
mid-sequence, one a clock once the first is out, after the latencies the design gives."""

import random

from amaranth.sim import Simulator

from posdata.engine.rules.board import Board
from posdata.engine.rules.positions import STANDARD_POSITIONS
from posdata.hdl.search.attack_map import LATENCY as MAP_LATENCY
from posdata.hdl.search.capture_pipe import LATENCY, LATENCY_NEW_MAP, CapturePipe
from posdata.hdl.search.finder import CaptureFinder
from tests.hw_positions import EXTRA_STARTS, random_positions

from .capture_oracle import captures, first_difference
from .planes import set_node

GUARD = 400  #: clocks a run may take before the test calls it hung


def run(fens_and_cursors, ready_rate: float = 1.0, seed: int = 1):
    """Per (FEN, cursor, new_map): the candidates the pipe streams after a restart from the
    cursor ((vkind, vsq, vvalid, slot)), as (move, vkind, vsq, slot), and the clocks (from the
    restart's, 0) they were taken in."""
    dut = CapturePipe()
    rng = random.Random(seed)
    out = []

    async def bench(ctx):
        for fen, cursor, new_map in fens_and_cursors:
            board = Board(fen)
            set_node(ctx, dut, board)
            ctx.set(dut.candidates.ready, 0)
            if not new_map:  # a return: the planes have been the node's for a while
                await ctx.tick().repeat(MAP_LATENCY)
            c = dut.restart.payload.cursor
            for field, value in zip(("vkind", "vsq", "vvalid", "slot"), cursor):
                ctx.set(getattr(c, field), value)
            ctx.set(dut.restart.payload.new_map, new_map)
            ctx.set(dut.restart.valid, 1)
            # (what is offered in the restart's clock is stale: not taken)
            await ctx.tick()
            ctx.set(dut.restart.valid, 0)
            got, clocks = [], []
            for clock in range(1, GUARD):
                ready = rng.random() < ready_rate
                ctx.set(dut.candidates.ready, ready)
                if ready and ctx.get(dut.candidates.valid):
                    p = dut.candidates.payload
                    got.append(tuple(ctx.get(x) for x in (p.move.as_value(), p.vkind, p.vsq,
                                                          p.slot)))
                    clocks.append(clock)
                elif ctx.get(dut.idle) and not ctx.get(dut.candidates.valid):
                    break
                await ctx.tick()
            else:
                raise AssertionError(f"{fen}: no end after {GUARD} clocks")
            out.append((got, clocks))

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    return out


ENTRY = (0, 0, 0, 0)


def positions():
    return ([p.fen for p in STANDARD_POSITIONS] + list(EXTRA_STARTS)
            + random_positions(60, seed=39))


def test_entry_sequences_match_the_finder():
    fens = positions()
    results = run([(fen, ENTRY, 1) for fen in fens])
    for fen, (got, _) in zip(fens, results):
        want = captures(Board(fen))
        assert not first_difference(fen, got, want), first_difference(fen, got, want)


def test_restarts_from_cursors_in_mid_sequence():
    """From each candidate's own cursor the rest of the sequence; from a victim cursor (not
    current) the captures of the victims at and after it; the map left as the node's."""
    runs, wants = [], []
    rng = random.Random(5)
    for fen in positions()[:40]:
        seq = captures(Board(fen))
        for i in sorted(rng.sample(range(len(seq)), min(3, len(seq)))):
            _, kind, v, slot = seq[i]
            runs.append((fen, (kind, v, 1, slot), 0))
            wants.append((f"{fen}, from candidate {i}'s cursor", seq[i + 1:]))
        kind, v = rng.randrange(5), rng.randrange(64)
        runs.append((fen, (kind, v, 0, rng.randrange(29)), 0))
        wants.append((f"{fen}, from victims at ({kind}, {v})",
                      [c for c in seq if (c[1], c[2]) >= (kind, v)]))
    for (what, want), (got, _) in zip(wants, run(runs)):
        assert not first_difference(what, got, want), first_difference(what, got, want)


def test_a_stalled_stream_loses_nothing():
    fens = positions()[:30]
    results = run([(fen, ENTRY, 1) for fen in fens], ready_rate=0.4, seed=7)
    for fen, (got, _) in zip(fens, results):
        want = captures(Board(fen))
        assert not first_difference(fen, got, want), first_difference(fen, got, want)


def test_latency_and_one_candidate_a_clock():
    """The first candidate LATENCY_NEW_MAP clocks after an entry's restart, LATENCY after a
    return's; then one a clock to the last, whatever the victims and their aggressors."""
    fens = [fen for fen in positions()[:40] if len(captures(Board(fen))) >= 2]
    entries = run([(fen, ENTRY, 1) for fen in fens])
    returns = run([(fen, ENTRY, 0) for fen in fens])
    for fen, (_, entry), (_, back) in zip(fens, entries, returns):
        n = len(entry)
        assert entry == list(range(LATENCY_NEW_MAP, LATENCY_NEW_MAP + n)), (fen, entry)
        assert back == list(range(LATENCY, LATENCY + n)), (fen, back)


def test_the_oracle_is_the_gateware_finder():
    """The oracle's captures and cursors are what stepping ``CaptureFinder`` from its cursors
    gives (its move words and slots, not only the reference's order)."""
    fens = positions()[:30]
    dut = CaptureFinder()
    got = []

    async def bench(ctx):
        for fen in fens:
            board = Board(fen)
            set_node(ctx, dut, board)
            f, seq, kind, sq, after = dut.cursors, [], 0, 0, 0
            while True:
                ctx.set(f.victim_kind, kind)
                ctx.set(f.victim_sq, sq)
                ctx.set(f.victim_after, after)
                if not ctx.get(f.victim_valid):
                    break
                kind, v = ctx.get(f.found_kind), ctx.get(f.found_sq)
                ctx.set(f.target, v)
                slot = 0
                while True:
                    ctx.set(f.slot, slot)
                    if not ctx.get(f.aggressor_valid):
                        break
                    slot = ctx.get(f.aggressor_slot) + 1
                    seq.append((ctx.get(f.aggressor_move), kind, v, slot))
                kind, sq, after = (kind, v, 1) if v < 63 else (kind + 1, 0, 0)
            got.append(seq)

    sim = Simulator(dut)
    sim.add_testbench(bench)
    sim.run()
    for fen, seq in zip(fens, got):
        want = captures(Board(fen))
        names = ("reference", "CaptureFinder")
        assert not first_difference(fen, want, seq, names), first_difference(fen, want, seq, names)
