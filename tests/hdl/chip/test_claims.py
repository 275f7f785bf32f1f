"""The claim counter (hdl/chip/claims.py) against a model of its rule, clock by clock: a request is
registered twice, then it wins if it asks for the node the counter stands at and no
lower-numbered port wins in the same clock; the grant comes a clock later and the counter moves
on. A start returns the counter to 0 and drops what was asked before it."""

import random

from amaranth.sim import Simulator

from posdata.hdl.chip.claims import ClaimCounter

THREADS = 5


def test_lowest_matching_port_wins_and_the_counter_moves_on():
    dut = ClaimCounter(THREADS)
    rng = random.Random(3)
    errors = []

    async def bench(ctx):
        counter = 0
        registered = [(0, 0)] * THREADS   # (req, index) as the counter registered them
        compared = [(0, 0)] * THREADS     # ... and a clock later, when they are compared
        pending_grants = [0] * THREADS
        for clock in range(600):
            asks = [(int(rng.random() < 0.6), max(counter + rng.choice((0, 0, 1, -1)), 0))
                    for _ in range(THREADS)]
            for port, (req, index) in zip(dut.ports, asks):
                ctx.set(port.req, req)
                ctx.set(port.index, index)
            start = clock in (250, 251)
            ctx.set(dut.start, start)
            got_next = ctx.get(dut.ports[0].next)
            got_grants = [ctx.get(p.grant) for p in dut.ports]
            if got_next != counter or got_grants != pending_grants:
                errors.append(f"clock {clock}: next {got_next} grants {got_grants}, "
                              f"model {counter} {pending_grants}")
            winner = next((i for i, (req, index) in enumerate(compared)
                           if req and index == counter), None)
            pending_grants = [int(i == winner) for i in range(THREADS)]
            counter = 0 if start else counter + (winner is not None)
            compared = [(0, 0)] * THREADS if start else registered
            registered = asks
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    assert not errors, "\n".join(errors[:5])
